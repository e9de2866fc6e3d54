// Hand-checked cases and rejections of the 8-bit comparisons, REDUCE_MAX/MIN,
// LOG_SOFTMAX, L2_NORMALIZATION, ABS and RSQRT of issue 14 (the bit-exact
// sweeps against LiteRT are in litert_golden_quantized_misc_test.cc).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_op_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::Quant;
using testing::SingleOpModel;
using tflite::BuiltinOperator;

template <typename T>
std::vector<uint8_t> Compare(BuiltinOperator op, DataType type, const Shape& sa, const std::vector<T>& a,
                             Quantization qa, const Shape& sb, const std::vector<T>& b, Quantization qb,
                             Status* build = nullptr) {
  SingleOpModel m;
  const int ia = m.AddInput(type, sa, qa);
  const int ib = m.AddInput(type, sb, qb);
  const int out = m.AddOutput(DataType::kBool);
  m.SetBuiltinOp(op, 2);
  const Status s = m.Build();
  if (build != nullptr) *build = s;
  if (!s.ok()) return {};
  m.SetInput<T>(ia, a);
  m.SetInput<T>(ib, b);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<uint8_t>(out);
}

TEST(QuantizedComparison, ComparesRealValuesAcrossScales) {
  // a = q * 0.5: {0.5, 1, 1.5, 2}; b = (q - 2) * 0.25: {1, 1, 1, 1}.
  const std::vector<int8_t> a = {1, 2, 3, 4};
  const std::vector<int8_t> b = {6, 6, 6, 6};
  EXPECT_EQ(Compare<int8_t>(BuiltinOperator::EQUAL, DataType::kInt8, {4}, a, Quant(0.5f, 0), {4}, b, Quant(0.25f, 2)),
            (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(Compare<int8_t>(BuiltinOperator::GREATER, DataType::kInt8, {4}, a, Quant(0.5f, 0), {1}, {6},
                            Quant(0.25f, 2)),
            (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ(Compare<uint8_t>(BuiltinOperator::LESS_EQUAL, DataType::kUInt8, {2, 2}, {10, 20, 30, 40}, Quant(0.1f, 10),
                             {2, 1}, {12, 14}, Quant(0.5f, 10)),
            // a = {0, 1, 2, 3}; b = {1, 2} per row.
            (std::vector<uint8_t>{1, 1, 1, 0}));
}

TEST(QuantizedComparison, RejectsAScaleOfOneOrMore) {
  Status s;
  Compare<int8_t>(BuiltinOperator::LESS, DataType::kInt8, {2}, {1, 2}, Quant(1.5f, 0), {2}, {1, 2}, Quant(0.5f, 0), &s);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("input 0 scale"), std::string::npos) << s.message();
}

template <typename T>
Status Reduce(BuiltinOperator op, DataType type, const Shape& shape, const std::vector<T>& x, Quantization in_q,
              Quantization out_q, std::vector<T>* y) {
  SingleOpModel m;
  const int in = m.AddInput(type, shape, in_q);
  m.AddConstInput<int32_t>(DataType::kInt32, {1}, {1});
  const int out = m.AddOutput(type, {}, out_q);
  m.SetBuiltinOp(op, 2, tflite::BuiltinOptions::ReducerOptions, tflite::CreateReducerOptions(m.fbb(), false).Union());
  RELITE_RETURN_IF_ERROR(m.Build());
  m.SetInput<T>(in, x);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  *y = m.GetOutput<T>(out);
  return Status::Ok();
}

TEST(QuantizedReduceMaxMin, RawMaxAndMinOfEquallyQuantizedTensors) {
  std::vector<int8_t> y;
  ASSERT_TRUE(Reduce<int8_t>(BuiltinOperator::REDUCE_MAX, DataType::kInt8, {2, 3}, {-5, 7, 1, -128, -100, -3},
                             Quant(0.1f, 4), Quant(0.1f, 4), &y)
                  .ok());
  EXPECT_EQ(y, (std::vector<int8_t>{7, -3}));
  std::vector<int16_t> z;
  ASSERT_TRUE(Reduce<int16_t>(BuiltinOperator::REDUCE_MIN, DataType::kInt16, {2, 2}, {300, -32768, 5, 4},
                              Quant(0.01f, 0), Quant(0.01f, 0), &z)
                  .ok());
  EXPECT_EQ(z, (std::vector<int16_t>{-32768, 4}));
}

TEST(QuantizedReduceMaxMin, RejectsRequantization) {
  std::vector<uint8_t> y;
  const Status s = Reduce<uint8_t>(BuiltinOperator::REDUCE_MIN, DataType::kUInt8, {2, 2}, {1, 2, 3, 4},
                                   Quant(0.1f, 4), Quant(0.2f, 4), &y);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("must equal the input"), std::string::npos) << s.message();
  std::vector<int16_t> z;
  EXPECT_FALSE(Reduce<int16_t>(BuiltinOperator::REDUCE_MAX, DataType::kInt16, {2, 2}, {1, 2, 3, 4}, Quant(0.1f, 3),
                               Quant(0.1f, 3), &z)
                   .ok());
}

template <typename T>
Status Unary(BuiltinOperator op, int version, DataType type, const Shape& shape, const std::vector<T>& x,
             Quantization in_q, Quantization out_q, std::vector<T>* y) {
  SingleOpModel m;
  const int in = m.AddInput(type, shape, in_q);
  const int out = m.AddOutput(type, {}, out_q);
  m.SetBuiltinOp(op, version);
  RELITE_RETURN_IF_ERROR(m.Build());
  m.SetInput<T>(in, x);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  *y = m.GetOutput<T>(out);
  return Status::Ok();
}

TEST(QuantizedLogSoftmax, EqualLogitsAndFixedOutputQuantization) {
  // Four equal logits: log(1/4) = -1.386 -> rint(-1.386 / 0.0625) = -22 -> 233.
  std::vector<uint8_t> y;
  ASSERT_TRUE(Unary<uint8_t>(BuiltinOperator::LOG_SOFTMAX, 1, DataType::kUInt8, {1, 4}, {9, 9, 9, 9}, Quant(0.1f, 0),
                             Quant(16.f / 256, 255), &y)
                  .ok());
  EXPECT_EQ(y, (std::vector<uint8_t>{233, 233, 233, 233}));
  EXPECT_FALSE(Unary<uint8_t>(BuiltinOperator::LOG_SOFTMAX, 1, DataType::kUInt8, {1, 4}, {9, 9, 9, 9}, Quant(0.1f, 0),
                              Quant(16.f / 256, 127), &y)
                   .ok());
  // int8: the same arithmetic on q + 128, output zero point 127 (-22 -> 105).
  std::vector<int8_t> z;
  ASSERT_TRUE(Unary<int8_t>(BuiltinOperator::LOG_SOFTMAX, 2, DataType::kInt8, {1, 4}, {9, 9, 9, 9}, Quant(0.1f, 0),
                            Quant(16.f / 256, 127), &z)
                  .ok());
  EXPECT_EQ(z, (std::vector<int8_t>{105, 105, 105, 105}));
  EXPECT_FALSE(Unary<int8_t>(BuiltinOperator::LOG_SOFTMAX, 2, DataType::kInt8, {1, 4}, {9, 9, 9, 9}, Quant(0.1f, 0),
                             Quant(16.f / 256, 0), &z)
                   .ok());
}

TEST(QuantizedL2Normalization, UnitRowAndFixedOutputQuantization) {
  // (3, 4) / 5 = (0.6, 0.8) -> 1/128 steps about 77 and 102.
  std::vector<int8_t> y;
  ASSERT_TRUE(Unary<int8_t>(BuiltinOperator::L2_NORMALIZATION, 2, DataType::kInt8, {1, 2}, {3, 4}, Quant(0.5f, 0),
                            Quant(1.f / 128, 0), &y)
                  .ok());
  ASSERT_EQ(y.size(), 2u);
  EXPECT_NEAR(y[0], 77, 1);
  EXPECT_NEAR(y[1], 102, 1);
  EXPECT_FALSE(Unary<int8_t>(BuiltinOperator::L2_NORMALIZATION, 2, DataType::kInt8, {1, 2}, {3, 4}, Quant(0.5f, 0),
                             Quant(1.f / 128, 128 - 256 + 1), &y)
                   .ok());
}

TEST(QuantizedAbsRsqrt, HandCases) {
  std::vector<int8_t> y;
  ASSERT_TRUE(Unary<int8_t>(BuiltinOperator::ABS, 2, DataType::kInt8, {3}, {-5, 0, 7}, Quant(0.1f, 1),
                            Quant(0.1f, -2), &y)
                  .ok());
  EXPECT_EQ(y, (std::vector<int8_t>{4, -1, 4}));
  // 1/sqrt(4 * 0.25) = 1 -> 100 steps of 0.01; v = 0 gives 127.
  ASSERT_TRUE(Unary<int8_t>(BuiltinOperator::RSQRT, 2, DataType::kInt8, {2}, {6, 2}, Quant(0.25f, 2),
                            Quant(0.01f, 0), &y)
                  .ok());
  ASSERT_EQ(y.size(), 2u);
  EXPECT_NEAR(y[0], 100, 1);
  EXPECT_EQ(y[1], 127);
  // Below the zero point: a negative real, an error at Invoke.
  EXPECT_FALSE(Unary<int8_t>(BuiltinOperator::RSQRT, 2, DataType::kInt8, {2}, {1, 2}, Quant(0.25f, 2),
                             Quant(0.01f, 0), &y)
                   .ok());
}

}  // namespace
}  // namespace relite
