// TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias (same kernel).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/testing/reference/conv_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

std::vector<float> RandomVector(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

void ExpectAllNear(const std::vector<float>& actual, const std::vector<float>& expected, float tol) {
  ASSERT_EQ(actual.size(), expected.size());
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (!(std::fabs(actual[i] - expected[i]) <= tol * (1.f + std::fabs(expected[i])))) {
      ADD_FAILURE() << "index " << i << ": got " << actual[i] << ", expected " << expected[i];
      if (++reported >= 10) return;
    }
  }
}

struct TcCase {
  int batch = 1, in_h = 5, in_w = 6, in_c = 4;
  int out_c = 3, filter_h = 3, filter_w = 3;
  int stride_h = 2, stride_w = 2;
  int out_h = 0, out_w = 0;  // 0: the SAME/VALID natural size
  tflite::Padding padding = tflite::Padding::SAME;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  bool bias = true;
  bool weights_are_input = false;
  int threads = 1;
};

int NaturalSize(bool same, int in, int stride, int filter) { return same ? in * stride : (in - 1) * stride + filter; }

std::string Describe(const TcCase& c) {
  return "in " + std::to_string(c.batch) + "x" + std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + "x" +
         std::to_string(c.in_c) + " weights " + std::to_string(c.out_c) + "x" + std::to_string(c.filter_h) + "x" +
         std::to_string(c.filter_w) + " stride " + std::to_string(c.stride_h) + "," + std::to_string(c.stride_w) +
         " out " + std::to_string(c.out_h) + "x" + std::to_string(c.out_w) +
         (c.padding == tflite::Padding::SAME ? " SAME" : " VALID") + " threads " + std::to_string(c.threads);
}

struct TcData {
  std::vector<float> input, weights, bias, expected;
  Shape out_shape;
};

TcData MakeData(const TcCase& c, uint32_t seed) {
  std::mt19937 rng(seed);
  TcData d;
  d.input = RandomVector(static_cast<size_t>(c.batch) * c.in_h * c.in_w * c.in_c, rng);
  d.weights = RandomVector(static_cast<size_t>(c.out_c) * c.filter_h * c.filter_w * c.in_c, rng);
  if (c.bias) d.bias = RandomVector(static_cast<size_t>(c.out_c), rng);
  const bool same = c.padding == tflite::Padding::SAME;
  ref::ConvGeometry g;
  g.batch = c.batch;
  g.in_h = c.in_h;
  g.in_w = c.in_w;
  g.in_c = c.in_c;
  g.out_c = c.out_c;
  g.filter_h = c.filter_h;
  g.filter_w = c.filter_w;
  g.stride_h = c.stride_h;
  g.stride_w = c.stride_w;
  g.out_h = c.out_h > 0 ? c.out_h : NaturalSize(same, c.in_h, c.stride_h, c.filter_h);
  g.out_w = c.out_w > 0 ? c.out_w : NaturalSize(same, c.in_w, c.stride_w, c.filter_w);
  // Padding of the forward convolution from the output back to the input.
  int unused;
  ref::SamePadding(same, g.out_h, c.filter_h, c.stride_h, 1, &unused, &g.pad_top);
  ref::SamePadding(same, g.out_w, c.filter_w, c.stride_w, 1, &unused, &g.pad_left);
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (c.activation == tflite::ActivationFunctionType::RELU) lo = 0.f;
  if (c.activation == tflite::ActivationFunctionType::RELU6) lo = 0.f, hi = 6.f;
  if (c.activation == tflite::ActivationFunctionType::RELU_N1_TO_1) lo = -1.f, hi = 1.f;
  d.expected = ref::TransposeConv(g, d.input, d.weights, d.bias, lo, hi);
  d.out_shape = {c.batch, g.out_h, g.out_w, c.out_c};
  return d;
}

void CheckRuns(SingleOpModel& m, int out, const TcData& d) {
  for (int run = 0; run < 2; ++run) {
    const Status inv = m.Invoke();
    ASSERT_TRUE(inv.ok()) << inv.ToString();
    EXPECT_EQ(m.GetOutputShape(out), d.out_shape);
    ExpectAllNear(m.GetOutput<float>(out), d.expected, 2e-5f);
  }
}

void RunTransposeConv(const TcCase& c, uint32_t seed = 5) {
  SCOPED_TRACE(Describe(c));
  const TcData d = MakeData(c, seed);
  SingleOpModel m;
  m.AddConstInput<int32_t>(DataType::kInt32, {4}, std::vector<int32_t>(d.out_shape.begin(), d.out_shape.end()));
  const Shape weights_shape = {c.out_c, c.filter_h, c.filter_w, c.in_c};
  const int w = c.weights_are_input ? m.AddInput(DataType::kFloat32, weights_shape)
                                    : m.AddConstInput<float>(DataType::kFloat32, weights_shape, d.weights);
  const int in = m.AddInput(DataType::kFloat32, {c.batch, c.in_h, c.in_w, c.in_c});
  if (c.bias) m.AddConstInput<float>(DataType::kFloat32, {c.out_c}, d.bias);
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, c.bias ? 3 : 1, tflite::BuiltinOptions::TransposeConvOptions,
                 tflite::CreateTransposeConvOptions(m.fbb(), c.padding, c.stride_w, c.stride_h, c.activation).Union());
  const Status st = m.Build(c.threads);
  ASSERT_TRUE(st.ok()) << st.ToString();
  m.SetInput<float>(in, d.input);
  if (c.weights_are_input) m.SetInput<float>(w, d.weights);
  CheckRuns(m, out, d);
}

std::vector<uint8_t> MediaPipeOptions(int padding, int stride_w, int stride_h) {
  const int32_t raw[3] = {padding, stride_w, stride_h};
  std::vector<uint8_t> bytes(sizeof(raw));
  std::memcpy(bytes.data(), raw, sizeof(raw));
  return bytes;
}

void RunMediaPipe(const TcCase& c, uint32_t seed = 11) {
  SCOPED_TRACE("Convolution2DTransposeBias " + Describe(c));
  const TcData d = MakeData(c, seed);
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {c.batch, c.in_h, c.in_w, c.in_c});
  m.AddConstInput<float>(DataType::kFloat32, {c.out_c, c.filter_h, c.filter_w, c.in_c}, d.weights);
  m.AddConstInput<float>(DataType::kFloat32, {c.out_c}, d.bias);
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetCustomOp("Convolution2DTransposeBias",
                MediaPipeOptions(c.padding == tflite::Padding::SAME ? 1 : 2, c.stride_w, c.stride_h));
  const Status st = m.Build(c.threads);
  ASSERT_TRUE(st.ok()) << st.ToString();
  m.SetInput<float>(in, d.input);
  CheckRuns(m, out, d);
}

TEST(TransposeConvTest, PaddingAndStrides) {
  for (auto padding : {tflite::Padding::SAME, tflite::Padding::VALID}) {
    for (int stride : {1, 2, 3}) {
      for (int k : {1, 2, 3, 4, 5}) {
        TcCase c;
        c.padding = padding;
        c.stride_h = c.stride_w = stride;
        c.filter_h = c.filter_w = k;
        RunTransposeConv(c);
      }
    }
  }
}

TEST(TransposeConvTest, AsymmetricAndOddOutputSizes) {
  TcCase c;
  c.filter_h = 2;
  c.filter_w = 5;
  c.stride_h = 1;
  c.stride_w = 3;
  RunTransposeConv(c);
  // The output shape tensor may ask for less than in * stride (odd sizes
  // of the forward convolution).
  c = TcCase{};
  c.out_h = 9;
  c.out_w = 11;
  RunTransposeConv(c);
  c.padding = tflite::Padding::VALID;
  c.filter_h = c.filter_w = 4;
  c.out_h = 12;
  c.out_w = 14;
  RunTransposeConv(c);
}

TEST(TransposeConvTest, ChannelsBatchesBiasActivation) {
  for (int in_c : {1, 7, 40}) {
    for (int out_c : {1, 5, 16, 21}) {
      TcCase c;
      c.in_c = in_c;
      c.out_c = out_c;
      RunTransposeConv(c);
    }
  }
  TcCase c;
  c.batch = 3;
  c.bias = false;
  RunTransposeConv(c);
  for (auto act : {tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
                   tflite::ActivationFunctionType::RELU_N1_TO_1}) {
    c.activation = act;
    c.bias = true;
    RunTransposeConv(c);
  }
}

// Stride equal to the filter size: no two taps meet, so the kernel writes
// the GEMM's biased, clamped columns in place. Covers pixels no tap reaches
// (an output_shape past in * stride), clamps of the bias alone, no bias,
// wide outputs and threads.
TEST(TransposeConvTest, DisjointTaps) {
  for (int out_c : {1, 3, 17}) {
    for (int k : {2, 3}) {
      TcCase c;
      c.in_h = 6;
      c.in_w = 7;
      c.in_c = 5;
      c.out_c = out_c;
      c.filter_h = c.filter_w = k;
      c.stride_h = c.stride_w = k;
      c.activation = tflite::ActivationFunctionType::RELU6;
      RunTransposeConv(c);
      c.out_h = 6 * k + 2;  // two rows and columns no tap reaches: bias only
      c.out_w = 7 * k + 1;
      c.activation = tflite::ActivationFunctionType::RELU_N1_TO_1;
      RunTransposeConv(c);
      c.bias = false;
      c.activation = tflite::ActivationFunctionType::RELU;
      RunTransposeConv(c);
      c.out_h = 6 * k - 1;  // less than in * stride
      c.out_w = 7 * k - 1;
      c.threads = 2;
      c.bias = true;
      RunTransposeConv(c);
    }
  }
  TcCase c;
  c.filter_h = c.stride_h = 2;
  c.filter_w = c.stride_w = 3;
  c.padding = tflite::Padding::VALID;
  c.batch = 2;
  c.threads = 3;
  RunTransposeConv(c);
  c.in_c = 16;
  c.out_c = 1;
  c.filter_w = c.stride_w = 2;
  RunMediaPipe(c);
}

TEST(TransposeConvTest, AbsentBiasInput) {
  TcCase c;
  c.bias = false;
  const TcData d = MakeData(c, 5);
  SingleOpModel m;
  m.AddConstInput<int32_t>(DataType::kInt32, {4}, std::vector<int32_t>(d.out_shape.begin(), d.out_shape.end()));
  m.AddConstInput<float>(DataType::kFloat32, {c.out_c, c.filter_h, c.filter_w, c.in_c}, d.weights);
  const int in = m.AddInput(DataType::kFloat32, {c.batch, c.in_h, c.in_w, c.in_c});
  m.AddOptionalInput();
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, 3, tflite::BuiltinOptions::TransposeConvOptions,
                 tflite::CreateTransposeConvOptions(m.fbb(), c.padding, c.stride_w, c.stride_h).Union());
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(in, d.input);
  CheckRuns(m, out, d);
}

TEST(TransposeConvTest, DynamicWeightsAndThreads) {
  TcCase c;
  c.weights_are_input = true;
  RunTransposeConv(c);
  c.weights_are_input = false;
  c.in_h = 17;
  c.in_w = 15;
  c.in_c = 24;
  c.out_c = 12;
  c.filter_h = c.filter_w = 4;
  for (int threads : {2, 3}) {
    c.threads = threads;
    RunTransposeConv(c);
    c.batch = 2;
    RunTransposeConv(c);
    c.batch = 1;
  }
}

TEST(TransposeConvTest, MediaPipeConvolution2DTransposeBias) {
  for (auto padding : {tflite::Padding::SAME, tflite::Padding::VALID}) {
    for (int stride : {1, 2}) {
      for (int k : {2, 3, 4}) {
        TcCase c;
        c.padding = padding;
        c.stride_h = c.stride_w = stride;
        c.filter_h = c.filter_w = k;
        c.in_c = 8;
        c.out_c = 6;
        RunMediaPipe(c);
      }
    }
  }
  TcCase c;
  c.threads = 2;
  c.in_h = 12;
  c.in_w = 12;
  c.in_c = 16;
  c.out_c = 16;
  c.filter_h = c.filter_w = 4;
  RunMediaPipe(c);
}

TEST(TransposeConvTest, MediaPipeErrors) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {1, 4, 4, 2});
  m.AddConstInput<float>(DataType::kFloat32, {3, 3, 3, 2}, std::vector<float>(54, 0.f));
  m.AddConstInput<float>(DataType::kFloat32, {3}, std::vector<float>(3, 0.f));
  m.AddOutput(DataType::kFloat32);
  m.SetCustomOp("Convolution2DTransposeBias", {1, 0, 0, 0});  // too short
  EXPECT_FALSE(m.Build().ok());

  SingleOpModel m2;
  m2.AddInput(DataType::kFloat32, {1, 4, 4, 2});
  m2.AddConstInput<float>(DataType::kFloat32, {3, 3, 3, 2}, std::vector<float>(54, 0.f));
  m2.AddOutput(DataType::kFloat32);
  m2.SetCustomOp("Convolution2DTransposeBias", MediaPipeOptions(1, 2, 2));  // bias missing
  EXPECT_FALSE(m2.Build().ok());
}

struct BadTc {
  std::vector<int32_t> output_shape = {1, 8, 8, 3};
  bool output_shape_constant = true;
  DataType output_shape_type = DataType::kInt32;
  Shape weights = {3, 3, 3, 2};
  Shape input = {1, 4, 4, 2};
  DataType type = DataType::kFloat32;
  Shape bias = {3};
  bool with_bias = true;
  bool options = true;
};

Status BuildBadTc(const BadTc& b) {
  SingleOpModel m;
  const Shape shape_shape = {static_cast<int32_t>(b.output_shape.size())};
  if (!b.output_shape_constant) {
    m.AddInput(DataType::kInt32, shape_shape);
  } else if (b.output_shape_type == DataType::kInt32) {
    m.AddConstInput<int32_t>(DataType::kInt32, shape_shape, b.output_shape);
  } else {
    m.AddConstInput<float>(DataType::kFloat32, shape_shape, std::vector<float>(b.output_shape.size(), 4.f));
  }
  m.AddConstInputBytes(b.type, b.weights,
                       std::vector<uint8_t>(static_cast<size_t>(NumElements(b.weights)) * DataTypeSize(b.type)));
  m.AddInput(b.type, b.input);
  if (b.with_bias) m.AddConstInput<float>(DataType::kFloat32, b.bias, std::vector<float>(NumElements(b.bias), 0.f));
  m.AddOutput(b.type);
  if (b.options) {
    m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, 3, tflite::BuiltinOptions::TransposeConvOptions,
                   tflite::CreateTransposeConvOptions(m.fbb(), tflite::Padding::SAME, 2, 2).Union());
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, 3);
  }
  return m.Build();
}

TEST(TransposeConvTest, Errors) {
  EXPECT_TRUE(BuildBadTc(BadTc{}).ok());
  BadTc b;
  b.output_shape_constant = false;
  EXPECT_EQ(BuildBadTc(b).code(), StatusCode::kUnimplemented);
  b = BadTc{};
  b.output_shape_type = DataType::kFloat32;
  EXPECT_EQ(BuildBadTc(b).code(), StatusCode::kInvalidArgument);
  b = BadTc{};
  b.output_shape = {1, 8, 8};
  EXPECT_EQ(BuildBadTc(b).code(), StatusCode::kInvalidArgument);
  b = BadTc{};
  b.output_shape = {1, 8, 8, 4};  // channels differ from the weights
  EXPECT_EQ(BuildBadTc(b).code(), StatusCode::kInvalidArgument);
  b = BadTc{};
  b.output_shape = {2, 8, 8, 3};  // batch differs from the input
  EXPECT_EQ(BuildBadTc(b).code(), StatusCode::kInvalidArgument);
  b = BadTc{};
  b.weights = {3, 3, 3, 5};  // input channels differ
  EXPECT_EQ(BuildBadTc(b).code(), StatusCode::kInvalidArgument);
  b = BadTc{};
  b.bias = {4};
  EXPECT_EQ(BuildBadTc(b).code(), StatusCode::kInvalidArgument);
  b = BadTc{};
  b.input = {4, 4, 2};
  EXPECT_EQ(BuildBadTc(b).code(), StatusCode::kInvalidArgument);
  b = BadTc{};
  b.type = DataType::kInt8;
  b.with_bias = false;
  EXPECT_FALSE(BuildBadTc(b).ok());  // 8-bit without quantization parameters
  b = BadTc{};
  b.options = false;
  EXPECT_FALSE(BuildBadTc(b).ok());
}

}  // namespace
}  // namespace relite
