// 8-bit (and int16) comparisons, reductions, LOG_SOFTMAX and the lookup-table
// activations (EXP, ELU, GELU) of issue 14 against native LiteRT's builtin
// kernels (tests/testing/litert_golden.h): every output bit-exact.
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/litert_golden.h"

namespace relite {
namespace {

using testing::GoldenCase;
using tflite::BuiltinOperator;
using Cases = std::vector<std::unique_ptr<GoldenCase>>;

Quantization Q(float scale, int64_t zero_point) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

template <typename T>
std::vector<T> Ints(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(std::uniform_int_distribution<int>(lo, hi)(rng));
  return v;
}

template <typename T>
int TypeMin() {
  return std::numeric_limits<T>::min();
}
template <typename T>
int TypeMax() {
  return std::numeric_limits<T>::max();
}

template <typename T>
void AddComparison(Cases& cases, BuiltinOperator op, const char* name, int version, DataType type, const Shape& sa,
                   const Quantization& qa, const Shape& sb, const Quantization& qb, uint32_t seed) {
  auto c = std::make_unique<GoldenCase>(std::string(name) + "/" + DataTypeName(type) + " " + ShapeToString(sa) + " vs " +
                                        ShapeToString(sb) + " seed " + std::to_string(seed));
  const int a = c->model.AddInput(type, sa, qa);
  const int b = c->model.AddInput(type, sb, qb);
  const int out = c->model.AddOutput(DataType::kBool);
  c->model.SetBuiltinOp(op, version);
  c->Feed<T>(a, type, sa, Ints<T>(static_cast<size_t>(NumElements(sa)), TypeMin<T>(), TypeMax<T>(), seed));
  c->Feed<T>(b, type, sb, Ints<T>(static_cast<size_t>(NumElements(sb)), TypeMin<T>(), TypeMax<T>(), seed + 1));
  c->Expect(out);
  cases.push_back(std::move(c));
}

TEST(LiteRtGoldenQuantizedTest, Comparisons) {
  Cases cases;
  const std::pair<BuiltinOperator, const char*> ops[] = {
      {BuiltinOperator::EQUAL, "EQUAL"},     {BuiltinOperator::NOT_EQUAL, "NOT_EQUAL"},
      {BuiltinOperator::GREATER, "GREATER"}, {BuiltinOperator::GREATER_EQUAL, "GREATER_EQUAL"},
      {BuiltinOperator::LESS, "LESS"},       {BuiltinOperator::LESS_EQUAL, "LESS_EQUAL"}};
  uint32_t seed = 100;
  for (auto [op, name] : ops) {
    // Scales 2:1 make many pairs dequantize to the same value (ties); the
    // 0.0137 / 0.0411 pair is near 1:3 without being exact.
    AddComparison<int8_t>(cases, op, name, 2, DataType::kInt8, {4, 64}, Q(0.05f, 3), {4, 64}, Q(0.1f, -2), seed++);
    AddComparison<int8_t>(cases, op, name, 2, DataType::kInt8, {2, 3, 40}, Q(0.0137f, -7), {3, 1}, Q(0.0411f, 5),
                          seed++);
    AddComparison<uint8_t>(cases, op, name, 1, DataType::kUInt8, {300}, Q(0.02f, 128), {300}, Q(0.04f, 100), seed++);
    AddComparison<uint8_t>(cases, op, name, 1, DataType::kUInt8, {3, 1, 7}, Q(0.7f, 10), {1, 5, 7}, Q(0.35f, 200),
                           seed++);
  }
  // SQUARED_DIFFERENCE int8 shares the comparisons' operand shapes.
  for (auto [qa, qb, qo] : {std::tuple{Q(0.05f, 3), Q(0.1f, -2), Q(0.2f, -128)},
                            std::tuple{Q(0.02f, -10), Q(0.021f, 7), Q(0.01f, -100)},
                            std::tuple{Q(0.3f, 0), Q(0.05f, 0), Q(0.9f, -5)}}) {
    auto c = std::make_unique<GoldenCase>("SQUARED_DIFFERENCE/int8 seed " + std::to_string(seed));
    const Shape sa = {2, 3, 40}, sb = {3, 1};
    const int a = c->model.AddInput(DataType::kInt8, sa, qa);
    const int b = c->model.AddInput(DataType::kInt8, sb, qb);
    const int out = c->model.AddOutput(DataType::kInt8, {}, qo);
    c->model.SetBuiltinOp(BuiltinOperator::SQUARED_DIFFERENCE, 2);
    c->Feed<int8_t>(a, DataType::kInt8, sa, Ints<int8_t>(240, -128, 127, seed++));
    c->Feed<int8_t>(b, DataType::kInt8, sb, Ints<int8_t>(3, -128, 127, seed++));
    c->Expect(out);
    cases.push_back(std::move(c));
  }
  // Scalars against tensors, equal quantization.
  AddComparison<int8_t>(cases, BuiltinOperator::EQUAL, "EQUAL", 2, DataType::kInt8, {50}, Q(0.25f, 0), {}, Q(0.25f, 0),
                        seed++);
  AddComparison<uint8_t>(cases, BuiltinOperator::LESS, "LESS", 1, DataType::kUInt8, {}, Q(0.003f, 7), {60},
                         Q(0.5f, 250), seed++);
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

template <typename T>
void AddReduce(Cases& cases, BuiltinOperator op, const char* name, int version, DataType type, const Shape& shape,
               const Quantization& q, const std::vector<int32_t>& axes, bool keep_dims, uint32_t seed,
               const Quantization* out_q = nullptr) {
  auto c = std::make_unique<GoldenCase>(std::string(name) + "/" + DataTypeName(type) + " " + ShapeToString(shape) +
                                        " axes " + std::to_string(axes.size()) + (keep_dims ? " keep" : "") +
                                        " seed " + std::to_string(seed));
  const int in = c->model.AddInput(type, shape, q);
  c->model.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int out = c->model.AddOutput(type, {}, out_q != nullptr ? *out_q : q);
  c->model.SetBuiltinOp(op, version, tflite::BuiltinOptions::ReducerOptions,
                        tflite::CreateReducerOptions(c->model.fbb(), keep_dims).Union());
  c->Feed<T>(in, type, shape, Ints<T>(static_cast<size_t>(NumElements(shape)), TypeMin<T>(), TypeMax<T>(), seed));
  c->Expect(out);
  cases.push_back(std::move(c));
}

TEST(LiteRtGoldenQuantizedTest, ReduceMaxMin) {
  Cases cases;
  const Shape s = {2, 3, 5, 4};
  uint32_t seed = 200;
  for (auto [op, name] : {std::pair{BuiltinOperator::REDUCE_MAX, "REDUCE_MAX"},
                          std::pair{BuiltinOperator::REDUCE_MIN, "REDUCE_MIN"}}) {
    AddReduce<int8_t>(cases, op, name, 2, DataType::kInt8, s, Q(0.1f, -5), {1, 2}, false, seed++);
    AddReduce<int8_t>(cases, op, name, 2, DataType::kInt8, s, Q(0.1f, 9), {-1}, true, seed++);
    AddReduce<uint8_t>(cases, op, name, 1, DataType::kUInt8, s, Q(0.02f, 128), {0, 3}, false, seed++);
    AddReduce<uint8_t>(cases, op, name, 1, DataType::kUInt8, s, Q(0.5f, 3), {0, 1, 2, 3}, false, seed++);
    AddReduce<int16_t>(cases, op, name, 3, DataType::kInt16, s, Q(0.001f, 0), {2}, true, seed++);
    AddReduce<int16_t>(cases, op, name, 3, DataType::kInt16, {1000}, Q(0.001f, 0), {0}, false, seed++);
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

TEST(LiteRtGoldenQuantizedTest, LogSoftmax) {
  Cases cases;
  uint32_t seed = 300;
  for (const Shape& shape : {Shape{4, 10}, Shape{1, 3, 3, 33}, Shape{7}, Shape{2, 1000}}) {
    for (float scale : {0.01f, 0.1f, 0.37f, 1.5f}) {
      auto c = std::make_unique<GoldenCase>("LOG_SOFTMAX/uint8 " + ShapeToString(shape) + " scale " +
                                            std::to_string(scale));
      const int in = c->model.AddInput(DataType::kUInt8, shape, Q(scale, 77));
      const int out = c->model.AddOutput(DataType::kUInt8, {}, Q(16.0f / 256.0f, 255));
      c->model.SetBuiltinOp(BuiltinOperator::LOG_SOFTMAX, 1, tflite::BuiltinOptions::LogSoftmaxOptions,
                            tflite::CreateLogSoftmaxOptions(c->model.fbb()).Union());
      c->Feed<uint8_t>(in, DataType::kUInt8, shape,
                       Ints<uint8_t>(static_cast<size_t>(NumElements(shape)), 0, 255, seed++));
      c->Expect(out);
      cases.push_back(std::move(c));
    }
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

template <typename T>
void AddUnary(Cases& cases, BuiltinOperator op, const std::string& name, int version, DataType type, const Shape& shape,
              const Quantization& in_q, const Quantization& out_q, const std::vector<T>& x,
              tflite::BuiltinOptions options_type = tflite::BuiltinOptions::NONE, bool with_options = false) {
  auto c = std::make_unique<GoldenCase>(name);
  const int in = c->model.AddInput(type, shape, in_q);
  const int out = c->model.AddOutput(type, {}, out_q);
  if (with_options) {
    c->model.SetBuiltinOp(op, version, options_type, tflite::CreateL2NormOptions(c->model.fbb()).Union());
  } else {
    c->model.SetBuiltinOp(op, version);
  }
  c->Feed<T>(in, type, shape, x);
  c->Expect(out);
  cases.push_back(std::move(c));
}

TEST(LiteRtGoldenQuantizedTest, AbsRsqrtL2Normalization) {
  Cases cases;
  const Shape s = {3, 85};
  const size_t n = 255;
  AddUnary<int8_t>(cases, BuiltinOperator::ABS, "ABS/int8 same scale", 2, DataType::kInt8, s, Q(0.1f, -20), Q(0.1f, 5),
                   Ints<int8_t>(n, -128, 127, 400));
  AddUnary<int8_t>(cases, BuiltinOperator::ABS, "ABS/int8 rescaled", 2, DataType::kInt8, s, Q(0.1f, 3), Q(0.07f, -128),
                   Ints<int8_t>(n, -128, 127, 401));
  AddUnary<int16_t>(cases, BuiltinOperator::ABS, "ABS/int16 rescaled", 3, DataType::kInt16, s, Q(0.001f, 0),
                    Q(0.0013f, 0), Ints<int16_t>(n, -32768, 32767, 402));
  AddUnary<int16_t>(cases, BuiltinOperator::ABS, "ABS/int16 plain", 4, DataType::kInt16, s, Quantization{},
                    Quantization{}, Ints<int16_t>(n, -32768, 32767, 403));
  for (auto [in_scale, out_scale, zp] : {std::tuple{0.05f, 0.02f, -128}, std::tuple{0.5f, 0.01f, -100},
                                         std::tuple{0.003f, 0.4f, -20}, std::tuple{1.7f, 0.005f, 0}}) {
    std::vector<int8_t> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<int8_t>(std::max<int>(zp, -128 + static_cast<int>(i)));
    AddUnary<int8_t>(cases, BuiltinOperator::RSQRT,
                     "RSQRT/int8 in " + std::to_string(in_scale) + " out " + std::to_string(out_scale), 2,
                     DataType::kInt8, s, Q(in_scale, zp), Q(out_scale, 3), x);
  }
  uint32_t seed = 410;
  for (const Shape& shape : {Shape{4, 10}, Shape{1, 3, 3, 33}, Shape{7}, Shape{2, 600}}) {
    const size_t m = static_cast<size_t>(NumElements(shape));
    AddUnary<uint8_t>(cases, BuiltinOperator::L2_NORMALIZATION, "L2_NORMALIZATION/uint8 " + ShapeToString(shape), 1,
                      DataType::kUInt8, shape, Q(0.05f, 120), Q(1.0f / 128, 128), Ints<uint8_t>(m, 0, 255, seed++),
                      tflite::BuiltinOptions::L2NormOptions, true);
    AddUnary<int8_t>(cases, BuiltinOperator::L2_NORMALIZATION, "L2_NORMALIZATION/int8 " + ShapeToString(shape), 2,
                     DataType::kInt8, shape, Q(0.3f, -7), Q(1.0f / 128, 0), Ints<int8_t>(m, -128, 127, seed++),
                     tflite::BuiltinOptions::L2NormOptions, true);
  }
  // A row at the zero point (acc 0) and a row with one value off it.
  std::vector<int8_t> flat(20, 4);
  flat[15] = 5;
  AddUnary<int8_t>(cases, BuiltinOperator::L2_NORMALIZATION, "L2_NORMALIZATION/int8 zero rows", 2, DataType::kInt8,
                   {2, 10}, Q(0.3f, 4), Q(1.0f / 128, 0), flat, tflite::BuiltinOptions::L2NormOptions, true);
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

TEST(LiteRtGoldenQuantizedTest, LogSoftmaxInt8) {
  Cases cases;
  uint32_t seed = 500;
  for (const Shape& shape : {Shape{4, 10}, Shape{1, 3, 3, 33}, Shape{7}, Shape{2, 1000}}) {
    for (auto [scale, zp] : {std::pair{0.01f, -20}, std::pair{0.1f, 0}, std::pair{0.37f, 90}, std::pair{1.5f, -128}}) {
      auto c = std::make_unique<GoldenCase>("LOG_SOFTMAX/int8 " + ShapeToString(shape) + " scale " +
                                            std::to_string(scale) + " zp " + std::to_string(zp));
      const int in = c->model.AddInput(DataType::kInt8, shape, Q(scale, zp));
      const int out = c->model.AddOutput(DataType::kInt8, {}, Q(16.0f / 256.0f, 127));
      c->model.SetBuiltinOp(BuiltinOperator::LOG_SOFTMAX, 2, tflite::BuiltinOptions::LogSoftmaxOptions,
                            tflite::CreateLogSoftmaxOptions(c->model.fbb()).Union());
      c->Feed<int8_t>(in, DataType::kInt8, shape,
                      Ints<int8_t>(static_cast<size_t>(NumElements(shape)), -128, 127, seed++));
      c->Expect(out);
      cases.push_back(std::move(c));
    }
  }
  // A row of equal values, and rows holding the type's extremes.
  auto c = std::make_unique<GoldenCase>("LOG_SOFTMAX/int8 flat and extreme rows");
  const int in = c->model.AddInput(DataType::kInt8, {3, 6}, Q(0.2f, 5));
  const int out = c->model.AddOutput(DataType::kInt8, {}, Q(16.0f / 256.0f, 127));
  c->model.SetBuiltinOp(BuiltinOperator::LOG_SOFTMAX, 2, tflite::BuiltinOptions::LogSoftmaxOptions,
                        tflite::CreateLogSoftmaxOptions(c->model.fbb()).Union());
  c->Feed<int8_t>(in, DataType::kInt8, {3, 6},
                  {9, 9, 9, 9, 9, 9, -128, 127, -128, 127, 0, 0, -128, -128, -128, -128, -128, -127});
  c->Expect(out);
  cases.push_back(std::move(c));
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

// Every value of the 8-bit type once: the whole lookup table, with -128/127
// (0/255) among them.
template <typename T>
std::vector<T> AllValues() {
  std::vector<T> v;
  for (int q = TypeMin<T>(); q <= TypeMax<T>(); ++q) v.push_back(static_cast<T>(q));
  return v;
}

template <typename T>
void AddTableOp(Cases& cases, BuiltinOperator op, const std::string& name, int version, DataType type,
                const Quantization& in_q, const Quantization& out_q, int gelu_approximate = -1) {
  auto c = std::make_unique<GoldenCase>(name + "/" + DataTypeName(type) + " in " + std::to_string(in_q.scale[0]) +
                                        "," + std::to_string(in_q.zero_point[0]) + " out " +
                                        std::to_string(out_q.scale[0]) + "," + std::to_string(out_q.zero_point[0]) +
                                        (gelu_approximate == 1 ? " approximate" : ""));
  const int in = c->model.AddInput(type, {4, 64}, in_q);
  const int out = c->model.AddOutput(type, {}, out_q);
  if (gelu_approximate >= 0) {
    c->model.SetBuiltinOp(op, version, tflite::BuiltinOptions::GeluOptions,
                          tflite::CreateGeluOptions(c->model.fbb(), gelu_approximate == 1).Union());
  } else {
    c->model.SetBuiltinOp(op, version);
  }
  c->Feed<T>(in, type, {4, 64}, AllValues<T>());
  c->Expect(out);
  cases.push_back(std::move(c));
}

TEST(LiteRtGoldenQuantizedTest, LookupTableActivations) {
  Cases cases;
  const DataType i8 = DataType::kInt8, u8 = DataType::kUInt8;
  // EXP (int8 only in TFLite). Input ranges stay below e^x / out_scale = 2^31,
  // where TFLite's float-to-int conversion is undefined.
  for (auto [qi, qo] : {std::pair{Q(0.05f, -10), Q(0.2f, -128)}, std::pair{Q(0.02f, 0), Q(0.05f, -128)},
                        std::pair{Q(0.03f, 50), Q(0.01f, -100)}, std::pair{Q(0.1f, 100), Q(0.5f, -120)},
                        std::pair{Q(0.0173f, -37), Q(0.0311f, 13)}}) {
    AddTableOp<int8_t>(cases, BuiltinOperator::EXP, "EXP", 2, i8, qi, qo);
  }
  // ELU (int8 only in TFLite, op version 1).
  for (auto [qi, qo] : {std::pair{Q(0.05f, -3), Q(0.04f, 10)}, std::pair{Q(0.1f, 0), Q(0.1f, 0)},
                        std::pair{Q(0.02f, 77), Q(0.015f, -50)}, std::pair{Q(0.2f, -128), Q(0.3f, 100)},
                        std::pair{Q(0.0137f, 11), Q(0.0071f, 127)},
                        // expm1(x) and expf(x) - 1 round one entry differently here
                        std::pair{Q(0.00992384367f, 89), Q(0.0230459273f, 19)},
                        std::pair{Q(0.019652389f, 4), Q(0.0360250138f, -39)}}) {
    AddTableOp<int8_t>(cases, BuiltinOperator::ELU, "ELU", 1, i8, qi, qo);
  }
  // GELU, int8 and uint8, both forms.
  for (int approximate : {0, 1}) {
    for (auto [qi, qo] : {std::pair{Q(0.04f, 5), Q(0.03f, -20)}, std::pair{Q(0.1f, -128), Q(0.1f, -100)},
                          std::pair{Q(0.0213f, 40), Q(0.0117f, -90)}, std::pair{Q(0.3f, 0), Q(0.25f, 3)},
                          // the exact form via erfcf and via 1 + erf (float or double)
                          // round one entry differently in each of these
                          std::pair{Q(0.0180823002f, -6), Q(0.0634508505f, 36)},
                          std::pair{Q(0.0168224238f, 105), Q(0.0321754143f, 47)},
                          std::pair{Q(0.0602677204f, 28), Q(0.00346280308f, -18)}}) {
      AddTableOp<int8_t>(cases, BuiltinOperator::GELU, "GELU", 2, i8, qi, qo, approximate);
    }
    for (auto [qi, qo] : {std::pair{Q(0.03f, 128), Q(0.02f, 30)}, std::pair{Q(0.05f, 200), Q(0.01f, 0)},
                          std::pair{Q(0.0191f, 0), Q(0.0191f, 255)}, std::pair{Q(0.12f, 77), Q(0.06f, 10)}}) {
      AddTableOp<uint8_t>(cases, BuiltinOperator::GELU, "GELU", 2, u8, qi, qo, approximate);
    }
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

TEST(LiteRtGoldenQuantizedTest, ReduceProdInt8) {
  Cases cases;
  const BuiltinOperator op = BuiltinOperator::REDUCE_PROD;
  const DataType i8 = DataType::kInt8;
  uint32_t seed = 600;
  const Quantization out_a = Q(0.3f, 2), out_b = Q(0.2f, -100), out_c = Q(0.05f, 17);
  // Values in [-2.6, 2.5]: products of up to 4 of them.
  AddReduce<int8_t>(cases, op, "REDUCE_PROD", 2, i8, {2, 3, 4}, Q(0.02f, -4), {1}, false, seed++, &out_a);
  AddReduce<int8_t>(cases, op, "REDUCE_PROD", 2, i8, {2, 3, 4}, Q(0.02f, -4), {-1}, true, seed++, &out_a);
  AddReduce<int8_t>(cases, op, "REDUCE_PROD", 2, i8, {2, 3, 4}, Q(0.02f, 6), {0, 2}, false, seed++, &out_c);
  AddReduce<int8_t>(cases, op, "REDUCE_PROD", 2, i8, {3, 2, 2}, Q(0.05f, 0), {0, 1, 2}, false, seed++, &out_a);
  AddReduce<int8_t>(cases, op, "REDUCE_PROD", 2, i8, {5, 7}, Q(0.1f, 3), {0}, true, seed++, &out_b);
  {
    // Values near 1 (0.8 .. 1.27): products of 15 stay in range.
    auto c = std::make_unique<GoldenCase>("REDUCE_PROD/int8 near one, 15 factors");
    const Shape s = {2, 3, 4, 5};
    const int in = c->model.AddInput(i8, s, Q(0.01f, 0));
    c->model.AddConstInput<int32_t>(DataType::kInt32, {2}, {1, 3});
    const int out = c->model.AddOutput(i8, {}, Q(0.2f, -100));
    c->model.SetBuiltinOp(op, 2, tflite::BuiltinOptions::ReducerOptions,
                          tflite::CreateReducerOptions(c->model.fbb(), false).Union());
    c->Feed<int8_t>(in, i8, s, Ints<int8_t>(120, 80, 127, seed++));
    c->Expect(out);
    cases.push_back(std::move(c));
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

}  // namespace
}  // namespace relite
