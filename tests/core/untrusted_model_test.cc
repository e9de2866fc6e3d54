// Regression tests for what probing relite as an attacker found (issue 13):
// each crafted model (written with ModelWriter, or a real model with a field
// rewritten in place) crashed, read out of bounds, threw or ran unbounded
// before its fix. Every one must now be an error value naming the tensor or
// node, and never crash (this suite also runs under ASan/UBSan).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz/model_mutator.h"
#include "relite/model_writer.h"
#include "relite/relite.h"
#include "tests/testing/gpu_test_util.h"
#include "tests/testing/models_dir.h"
#include "tflite_generated.h"

namespace relite {
namespace {

using fuzz::FindSite;
using fuzz::FindSites;
using fuzz::SiteKind;
using fuzz::WriteSite;
namespace w = writer;

std::vector<uint8_t> ReadModel(const std::string& name) {
  std::ifstream f(testing::ModelsDir() + "/" + name, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

const tflite::SubGraph* MainGraph(const std::vector<uint8_t>& bytes) {
  return tflite::GetModel(bytes.data())->subgraphs()->Get(0);
}

// Loads, builds (with `delegate`), allocates and invokes; the first error.
Status RunAll(const std::vector<uint8_t>& bytes, Delegate* delegate = nullptr, const ResourceLimits& limits = {},
              const OpResolver* resolver = nullptr) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "crafted.tflite");
  if (!model.ok()) return model.status();
  BuiltinOpResolver builtins;
  InterpreterBuilder builder(**model, resolver != nullptr ? *resolver : builtins);
  builder.SetNumThreads(1).SetResourceLimits(limits);
  if (delegate != nullptr) builder.AddDelegate(delegate);
  auto interp = builder.Build();
  if (!interp.ok()) return interp.status();
  RELITE_RETURN_IF_ERROR((*interp)->AllocateTensors());
  return (*interp)->Invoke();
}

::testing::AssertionResult ErrorContains(const Status& s, const std::vector<std::string>& fragments) {
  if (s.ok()) return ::testing::AssertionFailure() << "expected an error, got OK";
  for (const std::string& f : fragments) {
    if (s.message().find(f) == std::string::npos) {
      return ::testing::AssertionFailure() << "'" << f << "' not in: " << s.ToString();
    }
  }
  return ::testing::AssertionSuccess();
}

// Finding 1: hand_landmark_lite with one filter's declared shape changed from
// [24,1,1,96] to [24,65536,1,96] made the GPU delegate pack 600 MB of weights
// out of a 4.6 KB buffer. The filter is the output of a DEQUANTIZE of float16
// weights, which the CPU folds: its real shape is the one DEQUANTIZE computes,
// and the file's declaration is only a hint. Folding now happens before the
// delegate is asked, so it sees the computed shape, as the CPU kernels do,
// and both run the model alike.
TEST(UntrustedModel, GpuDelegateTrustsVerifiedConstantsNotDeclaredShapes) {
  RELITE_REQUIRE_MODELS_DIR();
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  std::vector<uint8_t> bytes = ReadModel("hand_landmark_lite.tflite");
  const auto* sg = MainGraph(bytes);
  int target = -1;
  for (uint32_t i = 0; i < sg->operators()->size() && target < 0; ++i) {
    const auto* op = sg->operators()->Get(i);
    const auto* code = tflite::GetModel(bytes.data())->operator_codes()->Get(op->opcode_index());
    const int32_t builtin = std::max(static_cast<int32_t>(code->builtin_code()), static_cast<int32_t>(code->deprecated_builtin_code()));
    if (builtin != static_cast<int32_t>(tflite::BuiltinOperator::DEQUANTIZE)) continue;
    const auto* t = sg->tensors()->Get(static_cast<uint32_t>(op->outputs()->Get(0)));
    if (t->shape()->size() == 4 && t->shape()->Get(0) == 24 && t->shape()->Get(1) == 1 && t->shape()->Get(3) == 96) {
      target = op->outputs()->Get(0);
    }
  }
  ASSERT_GE(target, 0) << "hand_landmark_lite has no [24,1,1,96] float16 filter";
  const auto sites = FindSites(bytes.data(), bytes.size());
  const fuzz::Site* dim = FindSite(sites, SiteKind::kShapeDim, target, 1);
  ASSERT_NE(dim, nullptr);
  WriteSite(bytes.data(), *dim, 65536);
  const testing::GpuRunResult r = testing::RunCpuAndGpu(bytes, gpu);
  ASSERT_FALSE(r.cpu.empty());
  EXPECT_EQ(r.partitions, 1) << r.report;
  EXPECT_TRUE(testing::OutputsClose(r, 1e-3f, 1e-3f));
}

// Finding 2 on the two real models it was seen with: a graph input pointing
// at a weight tensor is rejected at load, naming the tensor.
TEST(UntrustedModel, GraphInputNamingAWeightIsRejected) {
  RELITE_REQUIRE_MODELS_DIR();
  for (const char* name : {"keras_lstm_mnist_ptq.tflite", "face_detection_short_range.tflite"}) {
    std::vector<uint8_t> bytes = ReadModel(name);
    const auto* sg = MainGraph(bytes);
    int weight = -1;
    for (uint32_t i = 0; i < sg->tensors()->size() && weight < 0; ++i) {
      const auto* b = tflite::GetModel(bytes.data())->buffers()->Get(sg->tensors()->Get(i)->buffer());
      if (b->data() != nullptr && b->data()->size() > 64) weight = static_cast<int>(i);
    }
    ASSERT_GE(weight, 0) << name;
    const auto sites = FindSites(bytes.data(), bytes.size());
    const fuzz::Site* in = FindSite(sites, SiteKind::kGraphInput, -1, 0);
    ASSERT_NE(in, nullptr) << name;
    WriteSite(bytes.data(), *in, weight);
    EXPECT_TRUE(ErrorContains(RunAll(bytes), {"input list names tensor " + std::to_string(weight), "constant data"}))
        << name;
  }
}

// A gpu_fuzzer finding: face_detection_short_range with the declared shape
// of one activation ('reshape_2', [1,384,1]) changed to [1,384,2147483647]
// overflowed GpuShape::slices() (int32 c + 3) in the support check. GPU
// shapes are now bounded before any arithmetic; the node stays on the CPU
// and the model runs as before.
TEST(UntrustedModel, GpuShapesAreBoundedBeforeArithmetic) {
  RELITE_REQUIRE_MODELS_DIR();
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  std::vector<uint8_t> bytes = ReadModel("face_detection_short_range.tflite");
  const auto* sg = MainGraph(bytes);
  int target = -1;
  for (uint32_t i = 0; i < sg->tensors()->size(); ++i) {
    const auto* t = sg->tensors()->Get(i);
    if (t->name() != nullptr && t->name()->str() == "reshape_2") target = static_cast<int>(i);
  }
  ASSERT_GE(target, 0);
  const auto sites = FindSites(bytes.data(), bytes.size());
  const fuzz::Site* dim = FindSite(sites, SiteKind::kShapeDim, target, 2);
  ASSERT_NE(dim, nullptr);
  WriteSite(bytes.data(), *dim, INT32_MAX);
  const testing::GpuRunResult r = testing::RunCpuAndGpu(bytes, gpu);
  ASSERT_FALSE(r.cpu.empty());
  EXPECT_NE(r.report.find("too large"), std::string::npos) << r.report;
  EXPECT_TRUE(testing::OutputsClose(r, 1e-3f, 1e-3f));
}

// An input of [1,2,2,1] resized by a constant size tensor.
std::vector<uint8_t> ResizeModel(int32_t out_h, int32_t out_w) {
  ModelWriter m;
  const int in = m.AddTensor(DataType::kFloat32, {1, 2, 2, 1}, "input");
  const int size = m.AddConstantOf<int32_t>({2}, "size", {out_h, out_w});
  const int out = m.AddTensor(DataType::kFloat32, {1, 4, 4, 1}, "resized");
  m.AddOp(BuiltinOp::kResizeBilinear, {in, size}, {out}, w::ResizeBilinearOptions{});
  m.SetInputs({in});
  m.SetOutputs({out});
  auto bytes = m.Finish();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

// Finding 4: a RESIZE_BILINEAR output size of 2^30 threw std::bad_alloc out
// of AllocateTensors. The output's size is now checked where the kernel sets
// it, against the element bound and the tensor limit.
TEST(UntrustedModel, HugeResizeIsAnErrorNotAnException) {
  const Status huge = RunAll(ResizeModel(1 << 30, 1 << 30));
  EXPECT_TRUE(ErrorContains(huge, {"node 0 (RESIZE_BILINEAR v1)", "output 0", "'resized'", "more than 2^40 elements"}));
  EXPECT_EQ(huge.code(), StatusCode::kResourceExhausted);
  const Status big = RunAll(ResizeModel(1 << 30, 4));
  EXPECT_TRUE(ErrorContains(big, {"node 0 (RESIZE_BILINEAR v1)", "16.0 GiB", "max_tensor_bytes"}));
  EXPECT_EQ(big.code(), StatusCode::kResourceExhausted);
}

// Nothing throws across the API, whatever a kernel (here a custom one) does:
// the public entry points turn an escaping exception into a Status.
class ThrowingKernel final : public Kernel {
 public:
  explicit ThrowingKernel(bool in_prepare) : in_prepare_(in_prepare) {}
  Status Prepare(KernelContext& ctx) override {
    if (in_prepare_) throw std::bad_alloc();
    return ctx.ResizeOutput(0, ctx.input(0).shape);
  }
  Status Eval(KernelContext&) override { throw std::length_error("vector too long"); }

 private:
  bool in_prepare_;
};

TEST(UntrustedModel, ExceptionsBecomeStatuses) {
  ModelWriter m;
  const int in = m.AddTensor(DataType::kFloat32, {2}, "in");
  const int out = m.AddTensor(DataType::kFloat32, {2}, "out");
  m.AddCustomOp("Throws", {in}, {out});
  m.SetInputs({in});
  m.SetOutputs({out});
  auto bytes = m.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  for (bool in_prepare : {true, false}) {
    BuiltinOpResolver resolver;
    resolver.AddCustom("Throws", [in_prepare](const Node&) -> StatusOr<std::unique_ptr<Kernel>> {
      return std::unique_ptr<Kernel>(std::make_unique<ThrowingKernel>(in_prepare));
    });
    const Status s = RunAll(*bytes, nullptr, {}, &resolver);
    if (in_prepare) {
      EXPECT_TRUE(ErrorContains(s, {"AllocateTensors", "out of memory"}));
      EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
    } else {
      EXPECT_TRUE(ErrorContains(s, {"Invoke", "unexpected exception", "vector too long"}));
    }
  }
  BuiltinOpResolver resolver;
  resolver.AddCustom("Throws", [](const Node&) -> StatusOr<std::unique_ptr<Kernel>> { throw std::bad_alloc(); });
  EXPECT_TRUE(ErrorContains(RunAll(*bytes, nullptr, {}, &resolver), {"InterpreterBuilder::Build", "out of memory"}));
}

std::vector<uint8_t> SoftmaxModel(DataType type, float beta) {
  ModelWriter m;
  Quantization in_q, out_q;
  if (type != DataType::kFloat32) {
    in_q.scale = {0.1f};
    in_q.zero_point = {type == DataType::kUInt8 ? 128 : 0};
    out_q.scale = {1.f / 256};
    out_q.zero_point = {type == DataType::kUInt8 ? 0 : -128};
  }
  const int in = m.AddTensor(type, {1, 8}, "logits", in_q);
  const int out = m.AddTensor(type, {1, 8}, "probs", out_q);
  m.AddOp(BuiltinOp::kSoftmax, {in}, {out}, w::SoftmaxOptions{beta});
  m.SetInputs({in});
  m.SetOutputs({out});
  auto bytes = m.Finish();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

// Finding 5: a NaN softmax beta was undefined behaviour in the 8-bit kernel
// (a NaN converted to an integer).
TEST(UntrustedModel, NonFiniteSoftmaxBetaIsRejected) {
  for (DataType type : {DataType::kFloat32, DataType::kUInt8, DataType::kInt8}) {
    for (float beta : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
      EXPECT_TRUE(ErrorContains(RunAll(SoftmaxModel(type, beta)), {"node 0 (SOFTMAX", "beta", "must be finite"}))
          << DataTypeName(type) << " beta " << beta;
    }
    EXPECT_TRUE(RunAll(SoftmaxModel(type, 1.f)).ok()) << DataTypeName(type);
  }
  // A negative beta overflows the 8-bit kernel's exponential table.
  EXPECT_TRUE(ErrorContains(RunAll(SoftmaxModel(DataType::kUInt8, -1000.f)), {"node 0 (SOFTMAX", "overflows"}));
}

// A fuzzing finding (relite_mutant_replay on the seed corpus): a depthwise
// dilation of 1,900,671,690 overflowed the kernel's int32 window arithmetic
// and read out of bounds. Window sizes are now checked in 64 bits.
TEST(UntrustedModel, HugeDilationIsRejected) {
  for (int32_t dilation : {1900671690, 1 << 29, 70000}) {
    ModelWriter m;
    const int in = m.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "in");
    const int f = m.AddConstantOf<float>({1, 3, 3, 4}, "filter", std::vector<float>(36, 0.5f));
    const int b = m.AddConstantOf<float>({4}, "bias", {0, 0, 0, 0});
    const int out = m.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "out");
    m.AddOp(BuiltinOp::kDepthwiseConv2D, {in, f, b}, {out},
            w::DepthwiseConv2DOptions{w::Padding::kSame, 1, 1, 1, w::Activation::kNone, dilation, 1});
    m.SetInputs({in});
    m.SetOutputs({out});
    auto bytes = m.Finish();
    ASSERT_TRUE(bytes.ok());
    const Status s = RunAll(*bytes);
    if (dilation == 70000) {
      EXPECT_TRUE(s.ok()) << s.ToString();  // large but within the bound: a valid (if odd) model
    } else {
      EXPECT_TRUE(ErrorContains(s, {"node 0 (DEPTHWISE_CONV_2D", "dilation", "2^30"})) << dilation;
    }
  }
}

// A convolution over a 1 x 1,048,576 image: legal, but the work a model file
// can ask for must be bounded (finding 8).
std::vector<uint8_t> WideConvModel(int32_t width, int32_t channels) {
  ModelWriter m;
  const int in = m.AddTensor(DataType::kFloat32, {1, 1, width, channels}, "wide_input");
  const int f = m.AddConstantOf<float>({channels, 1, 3, channels}, "filter",
                                        std::vector<float>(static_cast<size_t>(channels * 3 * channels), 0.01f));
  const int out = m.AddTensor(DataType::kFloat32, {1, 1, width, channels}, "wide_output");
  m.AddOp(BuiltinOp::kConv2D, {in, f}, {out}, w::Conv2DOptions{});
  m.SetInputs({in});
  m.SetOutputs({out});
  auto bytes = m.Finish();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

TEST(UntrustedModel, WorkLimitNamesTheNode) {
  const auto bytes = WideConvModel(1048576, 128);  // ~5e10 MACs: inside the default bound
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "wide.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  BuiltinOpResolver resolver;
  ResourceLimits limits;
  limits.max_macs = 1e9;
  auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(1).SetResourceLimits(limits).Build();
  ASSERT_TRUE(interp.ok());
  const Status s = (*interp)->AllocateTensors();
  EXPECT_TRUE(ErrorContains(s, {"node 0 (CONV_2D v1)", "multiply-accumulates", "max_macs"}));
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  // 1,048,576 x 3 x 128 x 128 MACs plus the elements moved.
  EXPECT_NEAR((*interp)->estimated_macs(), 1048576.0 * 3 * 128 * 128, 1048576.0 * 128 * 3);
}

TEST(UntrustedModel, TensorAndArenaLimitsNameTheTensor) {
  const auto bytes = WideConvModel(4096, 64);  // 1 MiB tensors
  ResourceLimits tensor_limit;
  tensor_limit.max_tensor_bytes = 512 << 10;
  EXPECT_TRUE(ErrorContains(RunAll(bytes, nullptr, tensor_limit), {"input tensor 0 ('wide_input')", "1.0 MiB", "max_tensor_bytes"}));
  // The arena this model needs, then limits just below and exactly at it.
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "wide.tflite");
  ASSERT_TRUE(model.ok());
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(1).Build();
  ASSERT_TRUE(interp.ok() && (*interp)->AllocateTensors().ok());
  const size_t arena = (*interp)->arena_bytes();
  ASSERT_GE(arena, size_t{2} << 20);  // input and output, 1 MiB each
  ResourceLimits arena_limit;
  arena_limit.max_arena_bytes = arena - 1;
  EXPECT_TRUE(ErrorContains(RunAll(bytes, nullptr, arena_limit), {"activation arena", "max_arena_bytes", "largest buffer"}));
  ResourceLimits none;
  none.max_arena_bytes = 0;
  none.max_tensor_bytes = 0;
  none.max_macs = 0;
  EXPECT_TRUE(RunAll(bytes, nullptr, none).ok());
  ResourceLimits fits;
  fits.max_tensor_bytes = 1 << 20;
  fits.max_arena_bytes = arena;
  EXPECT_TRUE(RunAll(bytes, nullptr, fits).ok()) << "limits are inclusive";
}

// ResizeInputTensor is bounded the same way.
TEST(UntrustedModel, InputResizeIsBounded) {
  const auto bytes = WideConvModel(16, 4);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "small.tflite");
  ASSERT_TRUE(model.ok());
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).Build();
  ASSERT_TRUE(interp.ok());
  EXPECT_TRUE(ErrorContains((*interp)->ResizeInputTensor(0, {1 << 20, 1 << 20, 1 << 20, 4}), {"input 0", "2^40"}));
  EXPECT_TRUE(ErrorContains((*interp)->ResizeInputTensor(0, {1, 1 << 14, 1 << 14, 4}), {"input 0 (tensor 0 ('wide_input'))", "4.0 GiB"}));
  EXPECT_TRUE((*interp)->ResizeInputTensor(0, {1, 1, 32, 4}).ok());
  EXPECT_TRUE((*interp)->AllocateTensors().ok());
}

// The defaults leave every real model a wide margin (at least 10x).
TEST(UntrustedModel, DefaultLimitsFitEveryRealModel) {
  RELITE_REQUIRE_MODELS_DIR();
  const ResourceLimits defaults;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::ModelsDir())) {
    if (entry.path().extension() != ".tflite") continue;
    auto model = Model::FromFile(entry.path().string());
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    BuiltinOpResolver resolver;
    auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(1).Build();
    if (!interp.ok() || !(*interp)->AllocateTensors().ok()) continue;  // model_invoking_error
    ++checked;
    EXPECT_LT((*interp)->arena_bytes() * 10, defaults.max_arena_bytes) << entry.path();
    EXPECT_LT((*interp)->estimated_macs() * 10, defaults.max_macs) << entry.path();
    for (int i = 0; i < (*interp)->tensors_size(); ++i) {
      EXPECT_LT((*interp)->tensor(i)->bytes * 10, defaults.max_tensor_bytes) << entry.path() << " tensor " << i;
    }
  }
  EXPECT_GE(checked, 14);
}

}  // namespace
}  // namespace relite
