// The GPU delegate as a whole: partitioning around an op it lacks, clamp
// folding, options and their errors, the unavailable path, the CLI.
#include <sys/wait.h>

#include <cstdio>
#include <map>

#include <cstdlib>

#include <gtest/gtest.h>

#include "tests/testing/gpu_test_util.h"
#include "relite/model_writer.h"
#include "tests/testing/graph_builder.h"

namespace relite {
namespace {

constexpr int32_t kAdd = 0, kRelu = 19, kSqrt = 75, kMul = 18, kRelu6 = 21, kLogistic = 14;

// A chain of `shape` ops (default [1,4,4,6]): each entry is (op code, second
// operand constant?); the constants have as many values as the last dimension.
std::vector<uint8_t> Chain(const std::vector<int32_t>& ops, const Shape& shape = {1, 4, 4, 6}) {
  testing::GraphBuilder g;
  std::map<int32_t, int> codes;
  const int in = g.AddTensor(DataType::kFloat32, shape);
  int x = in;
  for (int32_t op : ops) {
    auto it = codes.find(op);
    if (it == codes.end()) it = codes.emplace(op, g.AddOpCode(op)).first;
    const int out = g.AddTensor(DataType::kFloat32, shape);
    if (op == kAdd || op == kMul) {
      std::vector<float> values(static_cast<size_t>(shape.back()));
      for (size_t k = 0; k < values.size(); ++k) values[k] = 0.5f * static_cast<float>(k % 6 + 1);
      const int c = g.AddTensor(DataType::kFloat32, {shape.back()}, g.AddBufferOf(values));
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
  RELITE_GPU_DELEGATE_OR_SKIP(shared, GpuPrecision::kFp32);
  (void)shared;
  auto own = CreateGpuDelegate({});
  ASSERT_TRUE(own.ok());
  Delegate* gpu = own->get();
  // ADD -> RELU -> RELU6 (folded twice), MUL -> LOGISTIC -> RELU (folded into the unary).
  const auto model = Chain({kAdd, kRelu, kRelu6, kMul, kLogistic, kRelu});
  auto r = testing::RunCpuAndGpu(model, gpu, -8.f, 8.f);
  EXPECT_EQ(GetGpuDelegateStats(*gpu).folded_clamps, 3);
  EXPECT_EQ(GetGpuDelegateStats(*gpu).kernels, 5);  // in, ADD, MUL, LOGISTIC, out
  EXPECT_EQ(r.partitions, 1) << r.report;
  EXPECT_EQ(r.delegated, 6) << r.report;
  EXPECT_TRUE(testing::OutputsClose(r, testing::kFp32Atol, testing::kFp32Rtol));
}

// Two convolutions of one input added together, then RELU: the ADD folds into
// the convolution that runs second (the other operand must be ready), RELU
// into that; a third branch's ADD whose operand comes later must not fold
// into the earlier producer. Outputs must equal the CPU's either way.
TEST(GpuDelegateTest, ResidualAddsFoldOnlyWhereTheOtherOperandIsReady) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  ModelWriter w;
  const Shape shape{1, 6, 5, 7};
  auto weights = [&](const char* name, float scale) {
    std::vector<float> v(7 * 3 * 3 * 7);
    for (size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(static_cast<int>(i * 37 % 11) - 5) / 20.f;
    return w.AddConstantOf<float>({7, 3, 3, 7}, name, v);
  };
  const int x = w.AddTensor(DataType::kFloat32, shape, "x");
  const int bias = w.AddConstantOf<float>({7}, "bias", std::vector<float>{0.1f, -0.2f, 0.3f, 0.f, 0.5f, -0.1f, 0.2f});
  const int a = w.AddTensor(DataType::kFloat32, shape, "a");
  const int b = w.AddTensor(DataType::kFloat32, shape, "b");
  const int c = w.AddTensor(DataType::kFloat32, shape, "c");
  const int sum = w.AddTensor(DataType::kFloat32, shape, "sum");
  const int relu = w.AddTensor(DataType::kFloat32, shape, "relu");
  const int y = w.AddTensor(DataType::kFloat32, shape, "y");
  w.AddOp(BuiltinOp::kConv2D, {x, weights("wa", 1.f), bias}, {a}, writer::Conv2DOptions{});
  w.AddOp(BuiltinOp::kConv2D, {x, weights("wb", -1.f), bias}, {b}, writer::Conv2DOptions{});
  w.AddOp(BuiltinOp::kAdd, {a, b}, {sum}, writer::ArithmeticOptions{});
  w.AddOp(BuiltinOp::kRelu, {sum}, {relu});
  w.AddOp(BuiltinOp::kConv2D, {relu, weights("wc", 0.5f), bias}, {c}, writer::Conv2DOptions{});
  w.AddOp(BuiltinOp::kAdd, {c, relu}, {y}, writer::ArithmeticOptions{writer::Activation::kRelu6});
  w.SetInputs({x});
  w.SetOutputs({y});
  auto bytes = w.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  GpuDelegateOptions options;
  auto own = CreateGpuDelegate(options);  // its own statistics
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  auto r = testing::RunCpuAndGpu(*bytes, own->get(), -2.f, 2.f);
  EXPECT_EQ(r.partitions, 1) << r.report;
  EXPECT_EQ(r.delegated, 6) << r.report;
  const GpuDelegateStats stats = GetGpuDelegateStats(**own);
  EXPECT_EQ(stats.folded_adds, 2);    // into conv b, and into conv c (relu was ready)
  EXPECT_EQ(stats.folded_clamps, 1);  // RELU into conv b's launch
  EXPECT_EQ(stats.kernels, 5);        // input conversion, 3 convolutions, output conversion
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
  GpuDelegateOptions no_dir;
  no_dir.experimental_flags = kGpuExperimentalSerialization;  // without serialization_dir
  auto a = CreateGpuDelegate(no_dir);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find("serialization_dir"), std::string::npos);

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
    // "no OpenCL device matches ..." or "no CUDA device matches ...".
    EXPECT_NE(c.status().message().find(" device matches 'no-such-device-anywhere'"), std::string::npos)
        << c.status().ToString();
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

// An output whose GPU buffer already holds the model's bytes (float32 in fp32,
// one pixel per batch item as a classifier's [1,1001], or exactly 4
// channels) is copied out with no conversion launch; any other keeps one.
TEST(GpuDelegateTest, OutputsInTheModelsLayoutNeedNoConversionLaunch) {
  RELITE_GPU_DELEGATE_OR_SKIP(shared, GpuPrecision::kFp32);
  (void)shared;
  struct Case {
    Shape shape;
    bool direct;
  };
  for (const Case& c : {Case{{1, 1001}, true}, Case{{1, 3, 5, 4}, true}, Case{{2, 8}, true}, Case{{1, 1, 1, 7}, true},
                        Case{{2, 7}, false}, Case{{1, 3, 5, 6}, false}, Case{{1, 9, 1}, false}}) {
    for (GpuPrecision precision : {GpuPrecision::kFp32, GpuPrecision::kFp16}) {
      GpuDelegateOptions options;
      options.precision = precision;
      auto gpu = CreateGpuDelegate(options);
      ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
      const auto model = Chain({kAdd, kMul}, c.shape);  // two launches: MUL is not folded
      auto r = testing::RunCpuAndGpu(model, gpu->get(), -2.f, 2.f);
      const bool fp32 = precision == GpuPrecision::kFp32;
      const std::string what = ShapeToString(c.shape) + (fp32 ? " fp32" : " fp16");
      EXPECT_EQ(r.partitions, 1) << what << r.report;
      // input conversion, ADD, MUL, and the output conversion unless direct
      EXPECT_EQ(GetGpuDelegateStats(**gpu).kernels, c.direct && fp32 ? 3 : 4) << what;
      EXPECT_TRUE(testing::OutputsCloseAt(r, precision)) << what;
    }
  }
}

// A residual branch widened by a PAD of its channels (BlazeFace's blocks):
// the convolution that took the ADD reads the PAD's input and zeros past
// it, and the PAD goes, where the input's channels fill whole slices of one
// image and nothing else reads the padded tensor.
TEST(GpuDelegateTest, ChannelPadsOfAResidualAreReadAsZeros) {
  RELITE_GPU_DELEGATE_OR_SKIP(shared, GpuPrecision::kFp32);
  (void)shared;
  struct Case {
    int batch, in_c;
    bool pad_is_output;  // a second use: the PAD stays
    bool folds;
  };
  for (const Case& c : {Case{1, 8, false, true}, Case{1, 12, false, true}, Case{1, 6, false, false}, Case{2, 8, false, false},
                        Case{1, 8, true, false}}) {
    constexpr int kOut = 16;
    ModelWriter w;
    const Shape in_shape{c.batch, 5, 6, c.in_c}, out_shape{c.batch, 5, 6, kOut};
    std::vector<float> wv(static_cast<size_t>(kOut * c.in_c));
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>(static_cast<int>(i * 37 % 11) - 5) / 10.f;
    const int x = w.AddTensor(DataType::kFloat32, in_shape, "x");
    const int filter = w.AddConstantOf<float>({kOut, 1, 1, c.in_c}, "filter", wv);
    const int bias = w.AddConstantOf<float>({kOut}, "bias", std::vector<float>(kOut, 0.125f));
    const int paddings = w.AddConstantOf<int32_t>({4, 2}, "paddings", {0, 0, 0, 0, 0, 0, 0, kOut - c.in_c});
    const int conv = w.AddTensor(DataType::kFloat32, out_shape, "conv");
    const int padded = w.AddTensor(DataType::kFloat32, out_shape, "padded");
    const int y = w.AddTensor(DataType::kFloat32, out_shape, "y");
    w.AddOp(BuiltinOp::kPad, {x, paddings}, {padded});
    w.AddOp(BuiltinOp::kConv2D, {x, filter, bias}, {conv}, writer::Conv2DOptions{});
    w.AddOp(BuiltinOp::kAdd, {conv, padded}, {y}, writer::ArithmeticOptions{writer::Activation::kRelu});
    w.SetInputs({x});
    w.SetOutputs(c.pad_is_output ? std::vector<int>{y, padded} : std::vector<int>{y});
    auto bytes = w.Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto gpu = CreateGpuDelegate({});
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    const std::string what = ShapeToString(in_shape) + (c.pad_is_output ? " (padded is an output)" : "");
    auto r = testing::RunCpuAndGpu(*bytes, gpu->get(), -2.f, 2.f);
    const GpuDelegateStats stats = GetGpuDelegateStats(**gpu);
    EXPECT_EQ(r.partitions, 1) << what << r.report;
    EXPECT_EQ(stats.folded_adds, 1) << what;
    EXPECT_EQ(stats.folded_pads, c.folds ? 1 : 0) << what;
    // input conversion, [PAD], CONV_2D (+ ADD), output conversion(s)
    EXPECT_EQ(stats.kernels, (c.folds ? 3 : 4) + (c.pad_is_output ? 1 : 0)) << what;
    EXPECT_TRUE(testing::OutputsClose(r, testing::kFp32Atol, testing::kFp32Rtol)) << what;
  }
}

// BlazeFace's downsampling blocks: the residual branch is a 2x2, stride 2
// MAX_POOL_2D of the block input (channel-padded where the block widens).
// The convolution that took the ADD takes each maximum from the pool's
// input itself where the windows tile the image exactly.
TEST(GpuDelegateTest, MaxPoolsOfAResidualAreTakenByTheReader) {
  RELITE_GPU_DELEGATE_OR_SKIP(shared, GpuPrecision::kFp32);
  (void)shared;
  struct Case {
    int h, w, in_c;
    bool folds;  // the pool (the pad folds whenever there is one)
  };
  // 11 rows: SAME windows, the last one half outside: not folded.
  for (const Case& c : {Case{10, 12, 8, true}, Case{10, 12, 16, true}, Case{4, 6, 12, true}, Case{11, 12, 8, false}}) {
    for (GpuPrecision precision : {GpuPrecision::kFp32, GpuPrecision::kFp16}) {
      constexpr int kOut = 16;
      const int oh = (c.h + 1) / 2, ow = (c.w + 1) / 2;
      ModelWriter w;
      const Shape in_shape{1, c.h, c.w, c.in_c}, pooled_shape{1, oh, ow, c.in_c}, out_shape{1, oh, ow, kOut};
      std::vector<float> wv(static_cast<size_t>(kOut * c.in_c));
      for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>(static_cast<int>(i * 37 % 11) - 5) / 10.f;
      const int x = w.AddTensor(DataType::kFloat32, in_shape, "x");
      const int filter = w.AddConstantOf<float>({kOut, 1, 1, c.in_c}, "filter", wv);
      const int bias = w.AddConstantOf<float>({kOut}, "bias", std::vector<float>(kOut, 0.125f));
      const int conv = w.AddTensor(DataType::kFloat32, out_shape, "conv");
      const int pooled = w.AddTensor(DataType::kFloat32, pooled_shape, "pooled");
      const int y = w.AddTensor(DataType::kFloat32, out_shape, "y");
      const writer::Padding pool_padding = c.h % 2 ? writer::Padding::kSame : writer::Padding::kValid;
      w.AddOp(BuiltinOp::kMaxPool2D, {x}, {pooled}, writer::Pool2DOptions{pool_padding, 2, 2, 2, 2});
      int residual = pooled;
      if (c.in_c < kOut) {
        const int paddings = w.AddConstantOf<int32_t>({4, 2}, "paddings", {0, 0, 0, 0, 0, 0, 0, kOut - c.in_c});
        residual = w.AddTensor(DataType::kFloat32, out_shape, "padded");
        w.AddOp(BuiltinOp::kPad, {pooled, paddings}, {residual});
      }
      w.AddOp(BuiltinOp::kConv2D, {x, filter, bias}, {conv}, writer::Conv2DOptions{writer::Padding::kValid, 2, 2});
      w.AddOp(BuiltinOp::kAdd, {conv, residual}, {y}, writer::ArithmeticOptions{writer::Activation::kRelu});
      w.SetInputs({x});
      w.SetOutputs({y});
      auto bytes = w.Finish();
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      GpuDelegateOptions options;
      options.precision = precision;
      auto gpu = CreateGpuDelegate(options);
      ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
      const bool fp32 = precision == GpuPrecision::kFp32;
      const std::string what = ShapeToString(in_shape) + (fp32 ? " fp32" : " fp16");
      auto r = testing::RunCpuAndGpu(*bytes, gpu->get(), -2.f, 2.f);
      const GpuDelegateStats stats = GetGpuDelegateStats(**gpu);
      EXPECT_EQ(r.partitions, 1) << what << r.report;
      EXPECT_EQ(stats.folded_adds, 1) << what;
      EXPECT_EQ(stats.folded_pads, c.in_c < kOut ? 1 : 0) << what;
      EXPECT_EQ(stats.folded_pools, c.folds ? 1 : 0) << what;
      // input conversion, [MAX_POOL_2D], CONV_2D (+ PAD + ADD), output conversion
      EXPECT_EQ(stats.kernels, c.folds ? 3 : 4) << what;
      EXPECT_TRUE(testing::OutputsCloseAt(r, precision)) << what;
    }
  }
}

// A unary function of x alone (LOGISTIC, HARD_SWISH, TANH, EXP) runs in the
// epilogue of the launch producing its input, after that launch's clamp and
// before any clamp folded after it; not where lanes past the channels would
// stop being zeros (channels not filling whole slices) or the input has
// another reader.
TEST(GpuDelegateTest, UnaryNodesFoldIntoTheirProducers) {
  RELITE_GPU_DELEGATE_OR_SKIP(shared, GpuPrecision::kFp32);
  (void)shared;
  constexpr int32_t kHardSwish = 117, kTanh = 28, kExp = 47;
  struct Case {
    std::vector<int32_t> ops;
    int channels;
    int folded_unaries, folded_clamps, kernels;
  };
  const Case cases[] = {
      {{kAdd, kLogistic}, 8, 1, 0, 3},               // in, ADD (+ LOGISTIC), out
      {{kAdd, kRelu, kHardSwish, kRelu6}, 8, 1, 2, 3},  // clamp, then hard swish, then its clamp
      {{kMul, kTanh, kExp}, 12, 1, 0, 4},              // one function per launch: EXP stays
      {{kAdd, kLogistic}, 6, 0, 0, 4},                 // a partial slice: not folded
  };
  for (const Case& c : cases) {
    for (GpuPrecision precision : {GpuPrecision::kFp32, GpuPrecision::kFp16}) {
      GpuDelegateOptions options;
      options.precision = precision;
      auto gpu = CreateGpuDelegate(options);
      ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
      const auto model = Chain(c.ops, {1, 3, 5, c.channels});
      auto r = testing::RunCpuAndGpu(model, gpu->get(), -4.f, 4.f);
      const bool fp32 = precision == GpuPrecision::kFp32;
      const std::string what = std::to_string(c.ops.size()) + " ops, " + std::to_string(c.channels) + " channels" + (fp32 ? " fp32" : " fp16");
      const GpuDelegateStats stats = GetGpuDelegateStats(**gpu);
      EXPECT_EQ(r.partitions, 1) << what << r.report;
      EXPECT_EQ(stats.folded_unaries, c.folded_unaries) << what;
      EXPECT_EQ(stats.folded_clamps, c.folded_clamps) << what;
      EXPECT_EQ(stats.kernels, c.kernels) << what;
      EXPECT_TRUE(testing::OutputsCloseAt(r, precision)) << what;
    }
  }
}

// A RESHAPE that keeps the batch and the channels and only regroups pixels
// leaves the GPU bytes where they are: its readers (and the boundary, for an
// output) read its input, with no launch. One that moves channels, or whose
// input is a partition input and output a partition output, keeps its remap.
TEST(GpuDelegateTest, ReshapesThatKeepTheGpuLayoutAreReadInPlace) {
  RELITE_GPU_DELEGATE_OR_SKIP(shared, GpuPrecision::kFp32);
  (void)shared;
  ModelWriter w;
  auto constant = [&](int n, const char* name) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) v[static_cast<size_t>(k)] = 0.25f * static_cast<float>(k % 5) - 0.5f;
    return w.AddConstantOf<float>({n}, name, v);
  };
  auto reshape = [&](int in, const Shape& to, const char* name) {
    const int out = w.AddTensor(DataType::kFloat32, to, name);
    w.AddOp(BuiltinOp::kReshape, {in}, {out}, writer::ReshapeOptions{std::vector<int32_t>(to.begin(), to.end())});
    return out;
  };
  const int x = w.AddTensor(DataType::kFloat32, {1, 6, 5, 8}, "x");
  const int y = w.AddTensor(DataType::kFloat32, {1, 1, 1, 12}, "y");
  const int z = w.AddTensor(DataType::kFloat32, {1, 4, 4, 8}, "z");
  const int a = w.AddTensor(DataType::kFloat32, {1, 6, 5, 8}, "a");
  w.AddOp(BuiltinOp::kAdd, {x, constant(8, "c8")}, {a}, writer::ArithmeticOptions{});
  const int r1 = reshape(a, {1, 30, 8}, "r1");         // in place, an output: converted from a
  const int r2 = reshape(a, {1, 6, 40}, "r2");         // channels change: a remap
  const int r3 = reshape(r1, {1, 2, 15, 8}, "r3");     // in place, of one in place
  const int l = w.AddTensor(DataType::kFloat32, {1, 2, 15, 8}, "l");
  w.AddOp(BuiltinOp::kAdd, {r3, constant(8, "c8b")}, {l}, writer::ArithmeticOptions{});  // (a LOGISTIC would fold into r3's node)
  const int b = w.AddTensor(DataType::kFloat32, {1, 1, 1, 12}, "b");
  w.AddOp(BuiltinOp::kAdd, {y, constant(12, "c12")}, {b}, writer::ArithmeticOptions{});
  const int s = reshape(b, {1, 12}, "s");              // a classifier's [1,1,1,N] -> [1,N]: in place
  const int sm = w.AddTensor(DataType::kFloat32, {1, 12}, "sm");
  w.AddOp(BuiltinOp::kSoftmax, {s}, {sm}, writer::SoftmaxOptions{});
  const int zr = reshape(z, {1, 16, 8}, "zr");         // partition input to output: a remap
  w.SetInputs({x, y, z});
  w.SetOutputs({r1, r2, l, sm, zr});
  auto bytes = w.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  for (GpuPrecision precision : {GpuPrecision::kFp32, GpuPrecision::kFp16}) {
    GpuDelegateOptions options;
    options.precision = precision;
    auto gpu = CreateGpuDelegate(options);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    auto r = testing::RunCpuAndGpu(*bytes, gpu->get(), -2.f, 2.f);
    const bool fp32 = precision == GpuPrecision::kFp32;
    EXPECT_EQ(r.partitions, 3) << r.report;  // one per input's connected nodes
    const GpuDelegateStats stats = GetGpuDelegateStats(**gpu);
    EXPECT_EQ(stats.folded_reshapes, 3);
    // 3 input conversions; ADD + a's conversion (for r1); r2's remap and
    // conversion; ADD and its conversion; ADD, SOFTMAX (its [1,12] read
    // straight from its buffer in fp32); zr's remap and conversion.
    EXPECT_EQ(stats.kernels, fp32 ? 13 : 14);
    ASSERT_EQ(r.gpu.size(), 5u);
    EXPECT_TRUE(testing::OutputsCloseAt(r, precision)) << (fp32 ? "fp32" : "fp16");
  }
}

// A layout-keeping RESHAPE whose launch took a LOGISTIC (or a clamp) no
// longer copies its input: it keeps its launch, and the result is the
// function's, not the reshaped input's.
TEST(GpuDelegateTest, AReshapeThatTookAnEpilogueKeepsItsLaunch) {
  RELITE_GPU_DELEGATE_OR_SKIP(shared, GpuPrecision::kFp32);
  (void)shared;
  for (BuiltinOp op : {BuiltinOp::kLogistic, BuiltinOp::kRelu}) {
    ModelWriter w;
    const int x = w.AddTensor(DataType::kFloat32, {1, 4, 6, 8}, "x");
    const int a = w.AddTensor(DataType::kFloat32, {1, 4, 6, 8}, "a");
    const int r = w.AddTensor(DataType::kFloat32, {1, 24, 8}, "r");
    const int y = w.AddTensor(DataType::kFloat32, {1, 24, 8}, "y");
    w.AddOp(BuiltinOp::kAdd, {x, w.AddConstantOf<float>({8}, "c", std::vector<float>(8, 0.5f))}, {a}, writer::ArithmeticOptions{});
    w.AddOp(BuiltinOp::kReshape, {a}, {r}, writer::ReshapeOptions{{1, 24, 8}});
    w.AddOp(op, {r}, {y});
    w.SetInputs({x});
    w.SetOutputs({y});
    auto bytes = w.Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto gpu = CreateGpuDelegate({});
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    auto r_ = testing::RunCpuAndGpu(*bytes, gpu->get(), -2.f, 2.f);
    const GpuDelegateStats stats = GetGpuDelegateStats(**gpu);
    EXPECT_EQ(stats.folded_reshapes, 0);
    EXPECT_EQ(stats.kernels, 4);  // input conversion, ADD, RESHAPE (+ the function), output conversion
    EXPECT_TRUE(testing::OutputsClose(r_, testing::kFp32Atol, testing::kFp32Rtol));
  }
}

// On CUDA the interpreter's tensor arena is page-locked memory of the
// delegate, and each Invoke transfers the partition's input and output
// straight from and to it; with pinned_tensor_arena off (and on OpenCL) they
// go through staging buffers. Either way every Invoke reads the input it was
// given: the same outputs, bit for bit, over two Invokes of different inputs.
TEST(GpuDelegateTest, PinnedTensorArenaIsTransferredDirectlyOnCuda) {
  RELITE_GPU_DELEGATE_OR_SKIP(shared, GpuPrecision::kFp32);
  const std::string backend = GpuDelegateBackend(*shared);
  const char* env = std::getenv("RELITE_GPU_PINNED_ARENA");
  const bool env_off = env != nullptr && std::string(env) == "0";
  const auto bytes = Chain({kAdd, kMul, kLogistic});
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "chain");
  ASSERT_TRUE(model.ok());
  BuiltinOpResolver resolver;
  constexpr int kValues = 4 * 4 * 6;
  constexpr uint64_t kBoundaryBytes = 2 * kValues * sizeof(float);  // input and output, per Invoke
  std::vector<std::vector<float>> outputs[2];
  for (bool pinned : {true, false}) {
    GpuDelegateOptions options;
    options.pinned_tensor_arena = pinned;
    auto gpu = CreateGpuDelegate(options);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    auto interp = InterpreterBuilder(**model, resolver).AddDelegate(gpu->get()).Build();
    ASSERT_TRUE(interp.ok()) << interp.status().ToString();
    ASSERT_TRUE((*interp)->AllocateTensors().ok());
    for (int run = 0; run < 2; ++run) {
      float* in = (*interp)->typed_input<float>(0);
      for (int i = 0; i < kValues; ++i) in[i] = 0.05f * static_cast<float>((i * 7 + run * 13) % 41) - 1.f;
      const Status s = (*interp)->Invoke();
      ASSERT_TRUE(s.ok()) << s.ToString();
      const float* out = (*interp)->typed_output<float>(0);
      outputs[pinned ? 0 : 1].emplace_back(out, out + kValues);
    }
    const GpuDelegateStats stats = GetGpuDelegateStats(**gpu);
    const bool direct = pinned && backend == "cuda" && !env_off;
    EXPECT_EQ(stats.host_bytes_direct, direct ? 2 * kBoundaryBytes : 0) << backend << (pinned ? " pinned" : " staged");
    EXPECT_EQ(stats.host_bytes_staged, direct ? 0 : 2 * kBoundaryBytes) << backend << (pinned ? " pinned" : " staged");
  }
  EXPECT_NE(outputs[0][0], outputs[0][1]) << "two different inputs";
  EXPECT_EQ(outputs[0], outputs[1]);
}

int RunShell(const std::string& cmd, std::string* out) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p) != nullptr) *out += buf;
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The backend the tests run on (tests/CMakeLists.txt runs them once each).
bool OnCuda() {
  const char* env = std::getenv("RELITE_GPU_BACKEND");
  return env != nullptr && std::string(env) == "cuda";
}

TEST(GpuDelegateTest, WithoutItsLibraryTheCliWarnsAndRunsOnTheCpu) {
  const std::string path = ::testing::TempDir() + "/relite_gpu_chain.tflite";
  const auto bytes = Chain({kAdd, kLogistic});
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  std::string out;
  const std::string missing = OnCuda() ? "RELITE_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "
                                        : "RELITE_OPENCL_LIBRARY=/nonexistent/libOpenCL.so ";
  const int rc = RunShell(missing + testing::CliPath() + " run " + path + " --delegate gpu", &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(OnCuda() ? "WARNING: GPU delegate unavailable: the CUDA driver library could not be loaded"
                              : "WARNING: GPU delegate unavailable: no OpenCL library could be loaded"),
            std::string::npos)
      << out;
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
  ASSERT_EQ(RunShell(testing::CliPath() + " inspect " + path + " --delegate gpu --precision fp16", &out), 0) << out;
  EXPECT_NE(out.find("placement (GPU delegate)"), std::string::npos) << out;
  EXPECT_NE(out.find("GPU partition 0"), std::string::npos) << out;
  EXPECT_NE(out.find("GPU partition 1"), std::string::npos) << out;
  EXPECT_NE(out.find("SQRT has no GPU kernel"), std::string::npos) << out;
}

}  // namespace
}  // namespace relite

namespace relite {
namespace {

std::string WriteChain(const std::string& name, const std::vector<int32_t>& ops) {
  const std::string path = ::testing::TempDir() + "/" + name;
  const auto bytes = Chain(ops);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return "";
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

TEST(GpuDelegateTest, CliRejectsAGpuDeviceThatDoesNotExist) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  (void)gpu;
  const std::string path = WriteChain("relite_gpu_device.tflite", {kAdd});
  ASSERT_FALSE(path.empty());
  std::string out;
  EXPECT_NE(RunShell(testing::CliPath() + " run " + path + " --delegate gpu --gpu-device no-such-device-anywhere", &out), 0);
  EXPECT_NE(out.find("error: "), std::string::npos) << out;
  EXPECT_NE(out.find(std::string("no ") + (OnCuda() ? "CUDA" : "OpenCL") + " device matches 'no-such-device-anywhere' (devices: #0 "),
            std::string::npos)
      << out;
}

TEST(GpuDelegateTest, ProfileEnvironmentPrintsKernelTimes) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  (void)gpu;
  const std::string path = WriteChain("relite_gpu_profile.tflite", {kAdd, kLogistic});
  ASSERT_FALSE(path.empty());
  std::string out;
  ASSERT_EQ(RunShell("RELITE_GPU_PROFILE=1 " + testing::CliPath() + " bench " + path + " --delegate gpu --runs 3", &out), 0)
      << out;
  EXPECT_NE(out.find("GPU kernel profile ("), std::string::npos) << out;
  EXPECT_NE(out.find("binary [4x4x2]"), std::string::npos) << out;  // ADD over [1,4,4,6]: W x H x slices
  EXPECT_NE(out.find("unary [4x4x2]"), std::string::npos) << out;
}

}  // namespace
}  // namespace relite
