#include <gtest/gtest.h>

#include <cmath>
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

struct FcCase {
  Shape input = {1, 16};
  int units = 8;
  bool keep_num_dims = false;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  enum class Bias { kConst, kNone, kAbsent } bias = Bias::kConst;
  bool weights_are_input = false;
  int depth = 0;  // 0: last input dimension
  int threads = 1;
};

void RunFcCase(const FcCase& c, uint32_t seed = 3) {
  SCOPED_TRACE("input " + ShapeToString(c.input) + " units " + std::to_string(c.units) + " threads " +
               std::to_string(c.threads) + (c.weights_are_input ? " dynamic weights" : ""));
  std::mt19937 rng(seed);
  const int depth = c.depth > 0 ? c.depth : c.input.back();
  const int64_t elements = NumElements(c.input);
  const int batch = static_cast<int>(elements / depth);
  const std::vector<float> input = RandomVector(static_cast<size_t>(elements), rng);
  const std::vector<float> weights = RandomVector(static_cast<size_t>(c.units) * depth, rng);
  std::vector<float> bias;
  if (c.bias == FcCase::Bias::kConst) bias = RandomVector(static_cast<size_t>(c.units), rng);

  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, c.input);
  const int w = c.weights_are_input ? m.AddInput(DataType::kFloat32, {c.units, depth})
                                    : m.AddConstInput<float>(DataType::kFloat32, {c.units, depth}, weights);
  if (c.bias == FcCase::Bias::kConst) m.AddConstInput<float>(DataType::kFloat32, {c.units}, bias);
  if (c.bias == FcCase::Bias::kAbsent) m.AddOptionalInput();
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 9, tflite::BuiltinOptions::FullyConnectedOptions,
                 tflite::CreateFullyConnectedOptions(
                     m.fbb(), c.activation, tflite::FullyConnectedOptionsWeightsFormat::DEFAULT, c.keep_num_dims)
                     .Union());
  const Status st = m.Build(c.threads);
  ASSERT_TRUE(st.ok()) << st.ToString();
  m.SetInput<float>(in, input);
  if (c.weights_are_input) m.SetInput<float>(w, weights);

  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (c.activation == tflite::ActivationFunctionType::RELU) lo = 0.f;
  if (c.activation == tflite::ActivationFunctionType::RELU6) lo = 0.f, hi = 6.f;
  if (c.activation == tflite::ActivationFunctionType::RELU_N1_TO_1) lo = -1.f, hi = 1.f;
  const std::vector<float> expected = ref::FullyConnected(batch, depth, c.units, input, weights, bias, lo, hi);
  Shape expected_shape = {batch, c.units};
  if (c.keep_num_dims) {
    expected_shape = c.input;
    expected_shape.back() = c.units;
  }
  for (int run = 0; run < 2; ++run) {
    const Status inv = m.Invoke();
    ASSERT_TRUE(inv.ok()) << inv.ToString();
    EXPECT_EQ(m.GetOutputShape(out), expected_shape);
    ExpectAllNear(m.GetOutput<float>(out), expected, 2e-5f);
  }
}

TEST(FullyConnectedTest, SingleRow) {
  for (int depth : {1, 7, 8, 16, 33, 300}) {
    for (int units : {1, 3, 4, 9, 64}) {
      FcCase c;
      c.input = {1, depth};
      c.units = units;
      RunFcCase(c);
    }
  }
}

TEST(FullyConnectedTest, Batches) {
  for (int batch : {2, 5, 6, 7, 13}) {
    for (int units : {1, 8, 17, 40}) {
      FcCase c;
      c.input = {batch, 29};
      c.units = units;
      RunFcCase(c);
    }
  }
  FcCase deep;
  deep.input = {9, 700};  // several GEMM depth blocks
  deep.units = 24;
  RunFcCase(deep);
}

TEST(FullyConnectedTest, InputFlattenedByWeights) {
  FcCase c;
  c.input = {2, 3, 4, 5};  // 120 values = 6 rows of 20
  c.depth = 20;
  c.units = 7;
  RunFcCase(c);
  c.input = {1, 2, 2, 8};  // one row of 32
  c.depth = 32;
  RunFcCase(c);
}

TEST(FullyConnectedTest, KeepNumDims) {
  FcCase c;
  c.input = {2, 3, 10};
  c.units = 6;
  c.keep_num_dims = true;
  RunFcCase(c);
  c.input = {1, 1, 10};
  RunFcCase(c);
}

TEST(FullyConnectedTest, ActivationsAndBias) {
  for (auto act : {tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
                   tflite::ActivationFunctionType::RELU_N1_TO_1}) {
    for (int batch : {1, 4}) {
      FcCase c;
      c.input = {batch, 24};
      c.units = 10;
      c.activation = act;
      RunFcCase(c);
    }
  }
  for (auto bias : {FcCase::Bias::kNone, FcCase::Bias::kAbsent}) {
    for (int batch : {1, 3}) {
      FcCase c;
      c.input = {batch, 12};
      c.units = 5;
      c.bias = bias;
      RunFcCase(c);
    }
  }
}

TEST(FullyConnectedTest, DynamicWeights) {
  for (int batch : {1, 3, 8, 11}) {
    FcCase c;
    c.input = {batch, 19};
    c.units = 21;
    c.weights_are_input = true;
    RunFcCase(c);
  }
}

TEST(FullyConnectedTest, MultiThreaded) {
  for (int threads : {2, 3}) {
    FcCase c;
    c.threads = threads;
    c.input = {1, 512};
    c.units = 301;
    RunFcCase(c);
    c.input = {50, 128};
    c.units = 70;
    RunFcCase(c);
    c.input = {3, 256};
    c.units = 500;
    RunFcCase(c);
  }
}

Status BuildBad(const Shape& input, const Shape& weights, const Shape* bias, DataType type, bool keep_num_dims,
                int extra_inputs = 0) {
  SingleOpModel m;
  m.AddInput(type, input);
  m.AddConstInputBytes(type, weights,
                       std::vector<uint8_t>(static_cast<size_t>(NumElements(weights)) * DataTypeSize(type)));
  if (bias != nullptr) m.AddConstInput<float>(DataType::kFloat32, *bias, std::vector<float>(NumElements(*bias), 0.f));
  for (int i = 0; i < extra_inputs; ++i) m.AddInput(DataType::kFloat32, {1});
  m.AddOutput(type);
  m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 1, tflite::BuiltinOptions::FullyConnectedOptions,
                 tflite::CreateFullyConnectedOptions(m.fbb(), tflite::ActivationFunctionType::NONE,
                                                     tflite::FullyConnectedOptionsWeightsFormat::DEFAULT, keep_num_dims)
                     .Union());
  return m.Build();
}

TEST(FullyConnectedTest, NoOptionsMeansDefaults) {
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {1, 2});
  m.AddConstInput<float>(DataType::kFloat32, {1, 2}, {2.f, -3.f});
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 1);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(in, {1.f, 1.f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(out), std::vector<float>{-1.f});
}

TEST(FullyConnectedTest, Errors) {
  const Shape bias4 = {4}, bias5 = {5};
  EXPECT_TRUE(BuildBad({2, 6}, {4, 6}, &bias4, DataType::kFloat32, false).ok());
  EXPECT_FALSE(BuildBad({2, 6}, {4, 6}, &bias4, DataType::kFloat32, false, 1).ok());
  EXPECT_EQ(BuildBad({2, 6}, {4, 6}, &bias5, DataType::kFloat32, false).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildBad({2, 7}, {4, 6}, &bias4, DataType::kFloat32, false).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildBad({2, 6}, {4, 6, 1}, &bias4, DataType::kFloat32, false).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildBad({3, 4}, {4, 6}, &bias4, DataType::kFloat32, true).code(), StatusCode::kInvalidArgument);
  // 8-bit without quantization parameters.
  EXPECT_EQ(BuildBad({2, 6}, {4, 6}, nullptr, DataType::kInt8, false).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildBad({2, 6}, {4, 6}, nullptr, DataType::kInt32, false).code(), StatusCode::kInvalidArgument);
}

// Hybrid (float input, int8 weights): the weights' quantization is checked,
// naming what is wrong. (LiteRT's outputs: litert_golden_test.)
TEST(FullyConnectedTest, HybridWeightsAreChecked) {
  auto build = [](const Quantization& q, bool weights_const) {
    testing::SingleOpModel m;
    m.AddInput(DataType::kFloat32, {2, 4});
    if (weights_const) {
      m.AddConstInput<int8_t>(DataType::kInt8, {3, 4}, std::vector<int8_t>(12, 5), q);
    } else {
      m.AddInput(DataType::kInt8, {3, 4}, q);
    }
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 3);
    return m.Build();
  };
  Quantization ok;
  ok.scale = {0.1f};
  ok.zero_point = {0};
  EXPECT_TRUE(build(ok, true).ok()) << build(ok, true).ToString();
  Quantization shifted = ok;
  shifted.zero_point = {3};
  EXPECT_NE(build(shifted, true).message().find("symmetric"), std::string::npos) << build(shifted, true).ToString();
  Quantization two;
  two.scale = {0.1f, 0.2f};
  two.zero_point = {0, 0};
  EXPECT_NE(build(two, true).message().find("per-channel scales"), std::string::npos) << build(two, true).ToString();
  EXPECT_NE(build(Quantization{}, true).message().find("1 or 3 scales"), std::string::npos);
  Quantization zero = ok;
  zero.scale = {0.f};
  EXPECT_NE(build(zero, true).message().find("positive"), std::string::npos);
  EXPECT_EQ(build(ok, false).code(), StatusCode::kUnimplemented);
  // All-zero input rows give exactly the bias (scale 1, no division by zero).
  testing::SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {1, 4});
  m.AddConstInput<int8_t>(DataType::kInt8, {3, 4}, std::vector<int8_t>{1, 2, 3, 4, -5, 6, 7, 8, 9, 10, -11, 12}, ok);
  m.AddConstInput<float>(DataType::kFloat32, {3}, std::vector<float>{0.5f, -1.f, 2.f});
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 3);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(in, {0, 0, 0, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(out), (std::vector<float>{0.5f, -1.f, 2.f}));
  // One row: q = round(x * 127 / max|x|); out = sum(q * w) * (max|x| / 127 * 0.1).
  m.SetInput<float>(in, {1.f, -0.5f, 0.25f, 2.f});
  ASSERT_TRUE(m.Invoke().ok());
  const float q[4] = {64, -32, 16, 127};  // 63.5 -> 64, -31.75 -> -32, 15.875 -> 16
  const float s = 2.f / 127 * 0.1f;
  const std::vector<float> got = m.GetOutput<float>(out);
  const int8_t w[12] = {1, 2, 3, 4, -5, 6, 7, 8, 9, 10, -11, 12};
  const float bias[3] = {0.5f, -1.f, 2.f};
  for (int u = 0; u < 3; ++u) {
    float dot = 0;
    for (int k = 0; k < 4; ++k) dot += q[k] * w[u * 4 + k];
    EXPECT_NEAR(got[static_cast<size_t>(u)], dot * s + bias[u], 1e-6f) << u;
  }
}

}  // namespace
}  // namespace relite
