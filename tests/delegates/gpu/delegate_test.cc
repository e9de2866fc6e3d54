// The GPU delegate as a whole: partitioning around an op it lacks, clamp
// folding, options and their errors, the unavailable path, the CLI.
#include <sys/wait.h>

#include <cstdio>
#include <map>

#include <gtest/gtest.h>

#include "tests/testing/gpu_test_util.h"
#include "tests/testing/graph_builder.h"

namespace relite {
namespace {

constexpr int32_t kAdd = 0, kRelu = 19, kSqrt = 75, kMul = 18, kRelu6 = 21, kLogistic = 14;

// A chain of [1,4,4,6] ops: each entry is (op code, second operand constant?).
std::vector<uint8_t> Chain(const std::vector<int32_t>& ops) {
  testing::GraphBuilder g;
  std::map<int32_t, int> codes;
  const Shape shape{1, 4, 4, 6};
  const int in = g.AddTensor(DataType::kFloat32, shape);
  int x = in;
  for (int32_t op : ops) {
    auto it = codes.find(op);
    if (it == codes.end()) it = codes.emplace(op, g.AddOpCode(op)).first;
    const int out = g.AddTensor(DataType::kFloat32, shape);
    if (op == kAdd || op == kMul) {
      const int c = g.AddTensor(DataType::kFloat32, {6}, g.AddBufferOf(std::vector<float>{0.5f, 1.f, 1.5f, 2.f, 2.5f, 3.f}));
      g.AddOp(it->second, {x, c}, {out});
    } else {
      g.AddOp(it->second, {x}, {out});
    }
    x = out;
  }
  g.SetInputs({in});
  g.SetOutputs({x});
  return g.Finish();
}

TEST(GpuDelegateTest, UnsupportedOpInTheMiddleGivesTwoPartitionsAndTheWarning) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  // SQRT has no GPU kernel: ADD, MUL | SQRT | ADD, LOGISTIC.
  const auto model = Chain({kAdd, kMul, kSqrt, kAdd, kLogistic});
  auto r = testing::RunCpuAndGpu(model, gpu, 0.f, 2.f);
  EXPECT_EQ(r.partitions, 2) << r.report;
  EXPECT_EQ(r.delegated, 4) << r.report;
  EXPECT_NE(r.report.find("WARNING: op code #75 (SQRT v1) cannot be handled by the GPU delegate: SQRT has no GPU kernel"),
            std::string::npos)
      << r.report;
  EXPECT_NE(r.report.find("4 of 5 operations will run on the GPU in 2 partition(s); the rest on the CPU."), std::string::npos)
      << r.report;
  EXPECT_TRUE(testing::OutputsClose(r, testing::kFp32Atol, testing::kFp32Rtol));
}

TEST(GpuDelegateTest, ClampNodesFoldIntoTheirProducers) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  // ADD -> RELU -> RELU6 (folded twice), MUL -> LOGISTIC -> RELU (folded into the unary).
  const auto model = Chain({kAdd, kRelu, kRelu6, kMul, kLogistic, kRelu});
  auto r = testing::RunCpuAndGpu(model, gpu, -8.f, 8.f);
  EXPECT_EQ(r.partitions, 1) << r.report;
  EXPECT_EQ(r.delegated, 6) << r.report;
  EXPECT_TRUE(testing::OutputsClose(r, testing::kFp32Atol, testing::kFp32Rtol));
}

TEST(GpuDelegateTest, MaxDelegatedPartitionsKeepsTheLargest) {
  std::string reason;
  if (testing::SharedGpuDelegate(GpuPrecision::kFp32, &reason) == nullptr) {
    if (testing::GpuRequired()) FAIL() << reason;
    GTEST_SKIP() << reason;
  }
  GpuDelegateOptions options;
  options.max_delegated_partitions = 1;
  auto gpu = CreateGpuDelegate(options);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  const auto model = Chain({kAdd, kSqrt, kAdd, kMul, kLogistic});
  auto r = testing::RunCpuAndGpu(model, gpu->get(), 0.f, 2.f);
  EXPECT_EQ(r.partitions, 1) << r.report;
  EXPECT_EQ(r.delegated, 3) << r.report;  // the 3-node partition, not the 1-node one
  EXPECT_TRUE(testing::OutputsClose(r, testing::kFp32Atol, testing::kFp32Rtol));
}

TEST(GpuDelegateTest, OptionErrorsAreValues) {
  GpuDelegateOptions reserved;
  reserved.experimental_flags = kGpuExperimentalSerialization;
  auto a = CreateGpuDelegate(reserved);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(a.status().message().find("serialization"), std::string::npos);

  GpuDelegateOptions negative;
  negative.max_delegated_partitions = -1;
  EXPECT_EQ(CreateGpuDelegate(negative).status().code(), StatusCode::kInvalidArgument);

  GpuDelegateOptions index;
  index.device_index = 99;
  auto b = CreateGpuDelegate(index);
  ASSERT_FALSE(b.ok());
  if (b.status().code() != StatusCode::kUnavailable) {  // with OpenCL: the choice is wrong, and the devices are named
    EXPECT_EQ(b.status().code(), StatusCode::kNotFound) << b.status().ToString();
    EXPECT_NE(b.status().message().find("device index 99 does not exist (devices: #0 "), std::string::npos)
        << b.status().ToString();
  }
  GpuDelegateOptions name;
  name.device_name = "no-such-device-anywhere";
  auto c = CreateGpuDelegate(name);
  ASSERT_FALSE(c.ok());
  if (c.status().code() != StatusCode::kUnavailable) {
    EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
    EXPECT_NE(c.status().message().find("no OpenCL device matches 'no-such-device-anywhere'"), std::string::npos);
  }
}

TEST(GpuDelegateTest, ResizingAnInputAfterDelegationIsAnErrorNotACrash) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  const auto bytes = Chain({kAdd, kLogistic});
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "chain");
  ASSERT_TRUE(model.ok());
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).AddDelegate(gpu).Build();
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  ASSERT_TRUE((*interp)->AllocateTensors().ok());
  ASSERT_TRUE((*interp)->ResizeInputTensor(0, {1, 8, 8, 6}).ok());
  Status s = (*interp)->AllocateTensors();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the partition was built for [1,4,4,6]"), std::string::npos) << s.ToString();
}

int RunShell(const std::string& cmd, std::string* out) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p) != nullptr) *out += buf;
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(GpuDelegateTest, WithoutOpenClTheCliWarnsAndRunsOnTheCpu) {
  const std::string path = ::testing::TempDir() + "/relite_gpu_chain.tflite";
  const auto bytes = Chain({kAdd, kLogistic});
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  std::string out;
  const int rc = RunShell("RELITE_OPENCL_LIBRARY=/nonexistent/libOpenCL.so " + std::string(RELITE_CLI_PATH) + " run " + path +
                         " --delegate gpu",
                     &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("WARNING: GPU delegate unavailable: no OpenCL library could be loaded"), std::string::npos) << out;
  EXPECT_NE(out.find("running on the CPU"), std::string::npos) << out;
}

TEST(GpuDelegateTest, CliInspectShowsThePlacementTable) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  (void)gpu;
  const std::string path = ::testing::TempDir() + "/relite_gpu_split.tflite";
  const auto bytes = Chain({kAdd, kSqrt, kLogistic});
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  std::string out;
  ASSERT_EQ(RunShell(std::string(RELITE_CLI_PATH) + " inspect " + path + " --delegate gpu --precision fp16", &out), 0) << out;
  EXPECT_NE(out.find("placement (GPU delegate)"), std::string::npos) << out;
  EXPECT_NE(out.find("GPU partition 0"), std::string::npos) << out;
  EXPECT_NE(out.find("GPU partition 1"), std::string::npos) << out;
  EXPECT_NE(out.find("SQRT has no GPU kernel"), std::string::npos) << out;
}

}  // namespace
}  // namespace relite
