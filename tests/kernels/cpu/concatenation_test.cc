#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

struct ConcatCase {
  int axis = 0;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  int threads = 1;
  std::vector<bool> constant;  // per input; empty = all runtime inputs
};

template <typename T>
void CheckConcat(DataType dt, const std::vector<ref::Tensor<T>>& inputs, const ConcatCase& c) {
  SCOPED_TRACE("axis " + std::to_string(c.axis) + ", first shape " + ShapeToString(inputs[0].shape) + ", " +
               std::to_string(inputs.size()) + " inputs");
  SingleOpModel m;
  std::vector<int> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool is_const = !c.constant.empty() && c.constant[i];
    ids.push_back(is_const ? m.AddConstInput<T>(dt, inputs[i].shape, inputs[i].data) : m.AddInput(dt, inputs[i].shape));
  }
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::CONCATENATION, 1, tflite::BuiltinOptions::ConcatenationOptions,
                 tflite::CreateConcatenationOptions(m.fbb(), c.axis, c.activation).Union());
  const Status built = m.Build(c.threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (c.constant.empty() || !c.constant[i]) m.SetInput<T>(ids[i], inputs[i].data);
  }
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();

  const int rank = static_cast<int>(inputs[0].shape.size());
  ref::Tensor<T> expected = ref::Concat(inputs, c.axis < 0 ? c.axis + rank : c.axis);
  if constexpr (std::is_same_v<T, float>) {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (c.activation == tflite::ActivationFunctionType::RELU) lo = 0;
    if (c.activation == tflite::ActivationFunctionType::RELU6) lo = 0, hi = 6;
    if (c.activation == tflite::ActivationFunctionType::RELU_N1_TO_1) lo = -1, hi = 1;
    for (auto& v : expected.data) v = std::min(std::max(v, lo), hi);
  }
  EXPECT_EQ(m.GetOutputShape(out), expected.shape);
  EXPECT_EQ(m.GetOutput<T>(out), expected.data);
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 60; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    const int num_inputs = 1 + static_cast<int>(rng() % 4);
    ConcatCase c;
    c.axis = static_cast<int>(rng() % (2 * rank)) - rank;
    const int axis = c.axis < 0 ? c.axis + rank : c.axis;
    const Shape base = ref::RandomShape(rng, rank, 1, 5);
    std::vector<ref::Tensor<T>> inputs;
    for (int i = 0; i < num_inputs; ++i) {
      Shape s = base;
      s[static_cast<size_t>(axis)] = static_cast<int32_t>(rng() % 5);  // zero-sized pieces too
      inputs.push_back(ref::RandomTensor<T>(rng, s, is_bool));
      // The loader has no way to store an empty constant: only non-empty ones.
      c.constant.push_back(rng() % 3 == 0 && ref::Count(s) > 0);
    }
    CheckConcat(dt, inputs, c);
  }
}

TEST(Concatenation, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Concatenation, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(Concatenation, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(Concatenation, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(Concatenation, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(Concatenation, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(Concatenation, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

TEST(Concatenation, RowPiecesOfEverySize) {
  // Channel concatenations with rows of 1 to 40 bytes next to a one-element
  // piece: every size class of the short-row copy (1-3, 4-7, 8-15, 16-32
  // bytes) and the library copy past it, in the uint8 kernel (the
  // quantized one) and the float one.
  std::mt19937 rng(11);
  ConcatCase c;
  c.axis = 2;
  for (int n = 1; n <= 40; ++n) {
    CheckConcat(DataType::kUInt8,
                std::vector<ref::Tensor<uint8_t>>{ref::RandomTensor<uint8_t>(rng, {2, 3, n}, false),
                                                  ref::RandomTensor<uint8_t>(rng, {2, 3, 1}, false)},
                c);
  }
  for (int n = 1; n <= 10; ++n) {
    CheckConcat(DataType::kFloat32,
                std::vector<ref::Tensor<float>>{ref::RandomTensor<float>(rng, {2, 3, n}, false),
                                                ref::RandomTensor<float>(rng, {2, 3, 1}, false)},
                c);
  }
}

TEST(Concatenation, FusedActivations) {
  std::mt19937 rng(11);
  for (const auto act : {tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
                         tflite::ActivationFunctionType::RELU_N1_TO_1}) {
    std::vector<ref::Tensor<float>> inputs = {ref::RandomTensor<float>(rng, {2, 3, 5}),
                                              ref::RandomTensor<float>(rng, {2, 4, 5})};
    CheckConcat<float>(DataType::kFloat32, inputs, {1, act, 1, {}});
  }
}

TEST(Concatenation, LargeMultiThreaded) {
  std::mt19937 rng(12);
  for (const int axis : {0, 1, 2}) {
    Shape a = {48, 64, 40}, b = a, c = a;
    b[static_cast<size_t>(axis)] = 17;
    c[static_cast<size_t>(axis)] = 33;
    std::vector<ref::Tensor<float>> inputs = {ref::RandomTensor<float>(rng, a), ref::RandomTensor<float>(rng, b),
                                              ref::RandomTensor<float>(rng, c)};
    CheckConcat<float>(DataType::kFloat32, inputs, {axis, tflite::ActivationFunctionType::RELU, 4, {}});
  }
}

TEST(Concatenation, SameQuantizationInt8) {
  Quantization q;
  q.scale = {0.5f};
  q.zero_point = {-3};
  SingleOpModel m;
  const int a = m.AddInput(DataType::kInt8, {2, 2}, q);
  const int b = m.AddInput(DataType::kInt8, {2, 1}, q);
  const int out = m.AddOutput(DataType::kInt8, {}, q);
  m.SetBuiltinOp(tflite::BuiltinOperator::CONCATENATION, 1, tflite::BuiltinOptions::ConcatenationOptions,
                 tflite::CreateConcatenationOptions(m.fbb(), 1).Union());
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(a, {1, 2, 3, 4});
  m.SetInput<int8_t>(b, {-5, -6});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(out), (std::vector<int8_t>{1, 2, -5, 3, 4, -6}));
}

Status BuildConcat(const std::vector<std::pair<DataType, Shape>>& inputs, int axis,
                   tflite::ActivationFunctionType act = tflite::ActivationFunctionType::NONE,
                   const std::vector<Quantization>& quants = {}, DataType out_type = DataType::kFloat32) {
  SingleOpModel m;
  for (size_t i = 0; i < inputs.size(); ++i) {
    m.AddInput(inputs[i].first, inputs[i].second, quants.empty() ? Quantization{} : quants[i]);
  }
  m.AddOutput(out_type, {}, quants.empty() ? Quantization{} : quants.back());
  m.SetBuiltinOp(tflite::BuiltinOperator::CONCATENATION, 1, tflite::BuiltinOptions::ConcatenationOptions,
                 tflite::CreateConcatenationOptions(m.fbb(), axis, act).Union());
  return m.Build();
}

TEST(Concatenation, Errors) {
  const DataType f = DataType::kFloat32;
  EXPECT_EQ(BuildConcat({{f, {2, 3}}, {f, {2, 3, 1}}}, 0).code(), StatusCode::kInvalidArgument);  // rank
  EXPECT_EQ(BuildConcat({{f, {2, 3}}, {f, {3, 3}}}, 1).code(), StatusCode::kInvalidArgument);     // shape
  EXPECT_EQ(BuildConcat({{f, {2, 3}}, {f, {2, 3}}}, 2).code(), StatusCode::kInvalidArgument);     // axis
  EXPECT_EQ(BuildConcat({{f, {2, 3}}, {f, {2, 3}}}, -3).code(), StatusCode::kInvalidArgument);    // axis
  EXPECT_EQ(BuildConcat({{f, {2, 3}}, {DataType::kInt32, {2, 3}}}, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildConcat({{f, {2, 3}}}, 0, tflite::ActivationFunctionType::NONE, {}, DataType::kInt32).code(),
            StatusCode::kInvalidArgument);  // output dtype
  EXPECT_EQ(BuildConcat({{f, {2, 3}}, {f, {2, 3}}}, 0, tflite::ActivationFunctionType::TANH).code(),
            StatusCode::kUnimplemented);
  Quantization q1, q2;
  q1.scale = {0.5f};
  q1.zero_point = {0};
  q2.scale = {0.25f};
  q2.zero_point = {0};
  // Differing scales are requantized by the 8-bit kernel (quantized/concatenation_test.cc checks the values).
  EXPECT_TRUE(BuildConcat({{DataType::kUInt8, {2}}, {DataType::kUInt8, {2}}}, 0, tflite::ActivationFunctionType::NONE,
                          {q1, q2, q1}, DataType::kUInt8)
                  .ok());
  EXPECT_TRUE(BuildConcat({{DataType::kUInt8, {2}}, {DataType::kUInt8, {2}}}, 0, tflite::ActivationFunctionType::NONE,
                          {q1, q1, q1}, DataType::kUInt8)
                  .ok());
}

}  // namespace
}  // namespace relite
