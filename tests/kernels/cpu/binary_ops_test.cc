// The broadcasting binary and selection ops without a test file of their
// own: FLOOR_DIV, FLOOR_MOD, POW, SQUARED_DIFFERENCE, the six comparisons,
// LOGICAL_OR, SELECT and SELECT_V2. Expected special values (negative
// operands, division by zero, int32 POW overflow, NaN comparisons, SELECT's
// rank-1 condition) are what LiteRT's builtin kernels give.
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT
using Op = tflite::BuiltinOperator;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

OpSpec Spec(Op op, int version = 1) { return {op, version, tflite::BuiltinOptions::NONE, nullptr}; }

// Every broadcast shape pair with a and b drawn from `gen` (b re-drawn while
// it is zero when `nonzero_b`), checked against `ref`.
template <typename T, typename Out = T, typename Ref>
void CheckPairs(const OpSpec& spec, DataType type, Ref ref, const std::function<T(std::mt19937&)>& gen, uint32_t seed,
                bool nonzero_b, DataType out_type = DataType(-1)) {
  std::mt19937 rng(seed);
  for (const auto& [as, bs] : BroadcastShapePairs()) {
    std::vector<T> a(static_cast<size_t>(Elements(as)));
    std::vector<T> b(static_cast<size_t>(Elements(bs)));
    for (T& v : a) v = gen(rng);
    for (T& v : b) {
      do {
        v = gen(rng);
      } while (nonzero_b && v == T(0));
    }
    const std::string what = "a " + ShapeStr(as) + " b " + ShapeStr(bs);
    const OpResult<Out> r = RunBinary<Out>(spec, type, as, a, bs, b, 1, false, out_type);
    ASSERT_TRUE(r.build.ok()) << what << ": " << r.build.ToString();
    ASSERT_TRUE(r.invoke.ok()) << what << ": " << r.invoke.ToString();
    bool ok = false;
    EXPECT_EQ(r.shape, reference::BroadcastShape(as, bs, &ok)) << what;
    ExpectValuesEqual<Out>(r.out, reference::BroadcastBinary<Out>(as, a, bs, b, ref), what);
  }
}

template <typename T>
std::function<T(std::mt19937&)> Uniform(int64_t lo, int64_t hi) {
  return [lo, hi](std::mt19937& rng) { return static_cast<T>(std::uniform_int_distribution<int64_t>(lo, hi)(rng)); };
}
std::function<float(std::mt19937&)> UniformFloat(float lo, float hi) {
  return [lo, hi](std::mt19937& rng) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
}

// A same-shape op on vectors: expects success and returns the output.
template <typename Out, typename T>
std::vector<Out> RunSame(const OpSpec& spec, DataType type, const std::vector<T>& a, const std::vector<T>& b,
                     DataType out_type = DataType(-1)) {
  const Shape shape = {static_cast<int32_t>(a.size())};
  const OpResult<Out> r = RunBinary<Out>(spec, type, shape, a, shape, b, 1, false, out_type);
  EXPECT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  return r.out;
}

// Floor division and modulo references, in the widest types.
int64_t RefFloorDiv(int64_t a, int64_t b) {
  return static_cast<int64_t>(std::floor(static_cast<long double>(a) / static_cast<long double>(b)));
}
int64_t RefFloorMod(int64_t a, int64_t b) { return a - RefFloorDiv(a, b) * b; }

// ---- FLOOR_DIV ----

TEST(FloorDivTest, FloatBroadcast) {
  CheckPairs<float>(Spec(Op::FLOOR_DIV, 2), DataType::kFloat32,
                    [](float a, float b) { return static_cast<float>(std::floor(double{a} / double{b})); },
                    UniformFloat(-20, 20), 1, true);
}

template <typename T>
void CheckFloorDivInt(DataType type, int version, int64_t lo, int64_t hi, uint32_t seed) {
  CheckPairs<T>(Spec(Op::FLOOR_DIV, version), type, [](T a, T b) { return static_cast<T>(RefFloorDiv(a, b)); },
                Uniform<T>(lo, hi), seed, true);
}

TEST(FloorDivTest, IntegerBroadcast) {
  CheckFloorDivInt<int32_t>(DataType::kInt32, 1, -100000, 100000, 2);
  CheckFloorDivInt<int16_t>(DataType::kInt16, 3, -30000, 30000, 3);
  CheckFloorDivInt<int8_t>(DataType::kInt8, 3, -128, 127, 4);
}

TEST(FloorDivTest, NegativeOperandsMatchLiteRt) {
  const std::vector<int32_t> a = {7, -7, 7, -7, 0, 5, -1, 1};
  const std::vector<int32_t> b = {2, 2, -2, -2, 3, 7, 3, -3};
  const std::vector<int32_t> want = {3, -4, -4, 3, 0, 0, -1, -1};
  EXPECT_EQ(RunSame<int32_t>(Spec(Op::FLOOR_DIV), DataType::kInt32, a, b), want);
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), wf(want.begin(), want.end());
  EXPECT_EQ(RunSame<float>(Spec(Op::FLOOR_DIV, 2), DataType::kFloat32, af, bf), wf);
  std::vector<int8_t> a8(a.begin(), a.end()), b8(b.begin(), b.end()), w8(want.begin(), want.end());
  EXPECT_EQ(RunSame<int8_t>(Spec(Op::FLOOR_DIV, 3), DataType::kInt8, a8, b8), w8);
  // INT32_MIN / -1 wraps to INT32_MIN (LiteRT's result) instead of trapping.
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(RunSame<int32_t>(Spec(Op::FLOOR_DIV), DataType::kInt32, std::vector<int32_t>{kMin, kMin, 9},
                         std::vector<int32_t>{-1, 1, -1}),
            (std::vector<int32_t>{kMin, kMin, -9}));
  // For int16 and int8 LiteRT saturates instead.
  EXPECT_EQ(RunSame<int8_t>(Spec(Op::FLOOR_DIV, 3), DataType::kInt8, std::vector<int8_t>{-128, 127}, std::vector<int8_t>{-1, -1}),
            (std::vector<int8_t>{127, -127}));
  EXPECT_EQ(RunSame<int16_t>(Spec(Op::FLOOR_DIV, 3), DataType::kInt16, std::vector<int16_t>{-32768}, std::vector<int16_t>{-1}),
            (std::vector<int16_t>{32767}));
}

TEST(FloorDivTest, DivisionByZeroFailsInvoke) {
  // LiteRT fails Invoke with "Division by 0" for every type, float included.
  const auto i = RunBinary<int32_t>(Spec(Op::FLOOR_DIV), DataType::kInt32, {2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 6},
                                    {3}, std::vector<int32_t>{1, 0, 2});
  ASSERT_TRUE(i.build.ok()) << i.build.ToString();
  EXPECT_EQ(i.invoke.code(), StatusCode::kInvalidArgument) << i.invoke.ToString();
  const auto f = RunBinary<float>(Spec(Op::FLOOR_DIV, 2), DataType::kFloat32, {3}, std::vector<float>{1, -1, 0}, {},
                                  std::vector<float>{-0.0f});
  ASSERT_TRUE(f.build.ok()) << f.build.ToString();
  EXPECT_FALSE(f.invoke.ok());
  const auto c = RunBinary<int16_t>(Spec(Op::FLOOR_DIV, 3), DataType::kInt16, {}, std::vector<int16_t>{5}, {},
                                    std::vector<int16_t>{0}, 1, /*b_const=*/true);
  EXPECT_TRUE(!c.build.ok() || !c.invoke.ok());
}

TEST(FloorDivTest, Errors) {
  CheckBinaryErrors(Spec(Op::FLOOR_DIV, 2), DataType::kFloat32);
  // TFLite has no int64 FLOOR_DIV.
  const auto r = RunBinary<int64_t>(Spec(Op::FLOOR_DIV), DataType::kInt64, {1}, std::vector<int64_t>{1}, {1},
                                    std::vector<int64_t>{1});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << r.build.ToString();
  const auto u = RunBinary<uint8_t>(Spec(Op::FLOOR_DIV), DataType::kUInt8, {1}, std::vector<uint8_t>{1}, {1},
                                    std::vector<uint8_t>{1});
  EXPECT_EQ(u.build.code(), StatusCode::kUnimplemented) << u.build.ToString();
}

// ---- FLOOR_MOD ----

TEST(FloorModTest, FloatBroadcast) {
  CheckPairs<float>(Spec(Op::FLOOR_MOD), DataType::kFloat32,
                    [](float a, float b) {
                      const float r = std::fmod(a, b);
                      return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
                    },
                    UniformFloat(-20, 20), 5, true);
}

template <typename T>
void CheckFloorModInt(DataType type, int version, int64_t lo, int64_t hi, uint32_t seed) {
  CheckPairs<T>(Spec(Op::FLOOR_MOD, version), type, [](T a, T b) { return static_cast<T>(RefFloorMod(a, b)); },
                Uniform<T>(lo, hi), seed, true);
}

TEST(FloorModTest, IntegerBroadcast) {
  CheckFloorModInt<int32_t>(DataType::kInt32, 1, -100000, 100000, 6);
  CheckFloorModInt<int64_t>(DataType::kInt64, 1, -(int64_t{1} << 40), int64_t{1} << 40, 7);
  CheckFloorModInt<int16_t>(DataType::kInt16, 2, -30000, 30000, 8);
  CheckFloorModInt<int8_t>(DataType::kInt8, 2, -128, 127, 9);
}

TEST(FloorModTest, NegativeOperandsAndSpecialsMatchLiteRt) {
  EXPECT_EQ(RunSame<int32_t>(Spec(Op::FLOOR_MOD), DataType::kInt32, std::vector<int32_t>{7, -7, 7, -7, 0, 5, -1, 1},
                         std::vector<int32_t>{2, 2, -2, -2, 3, 7, 3, -3}),
            (std::vector<int32_t>{1, 1, -1, -1, 0, 5, 2, -2}));
  // x mod -1 is 0, also for the minimum (where LiteRT traps).
  EXPECT_EQ(RunSame<int64_t>(Spec(Op::FLOOR_MOD), DataType::kInt64,
                         std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 5}, std::vector<int64_t>{-1, -1}),
            (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(RunSame<int32_t>(Spec(Op::FLOOR_MOD), DataType::kInt32,
                         std::vector<int32_t>{std::numeric_limits<int32_t>::min()}, std::vector<int32_t>{-1}),
            (std::vector<int32_t>{0}));
  const auto f = RunSame<float>(Spec(Op::FLOOR_MOD), DataType::kFloat32,
                            std::vector<float>{7.5f, -7.5f, 7.5f, -7.5f, -0.0f, 3, kInf, 5, -5, 1},
                            std::vector<float>{2, 2, -2, -2, 2, kInf, 2, -kInf, kInf, 0});
  ASSERT_EQ(f.size(), 10u);
  const std::vector<float> want = {1.5f, 0.5f, -0.5f, -1.5f, -0.0f, 3, kNaN, -kInf, kInf, kNaN};
  ExpectFloatsNear(f, want, "float mod");
  EXPECT_TRUE(std::signbit(f[4]));
}

TEST(FloorModTest, IntegerDivisionByZeroFailsInvoke) {
  for (DataType type : {DataType::kInt32, DataType::kInt64}) {
    const auto r = RunBinary<int64_t>(Spec(Op::FLOOR_MOD), type, {2}, std::vector<int64_t>{4, 4}, {2},
                                      std::vector<int64_t>{0, 0});
    ASSERT_TRUE(r.build.ok()) << r.build.ToString();
    EXPECT_FALSE(r.invoke.ok()) << DataTypeName(type);
  }
  const auto r8 = RunBinary<int8_t>(Spec(Op::FLOOR_MOD, 2), DataType::kInt8, {2}, std::vector<int8_t>{4, 4}, {},
                                    std::vector<int8_t>{0});
  EXPECT_FALSE(r8.invoke.ok());
}

TEST(FloorModTest, Threaded) {
  CheckThreaded<int32_t>(Spec(Op::FLOOR_MOD), DataType::kInt32,
                         [](int32_t a, int32_t b) { return static_cast<int32_t>(RefFloorMod(a, b)); }, 1, 1000, 10);
}

TEST(FloorModTest, Errors) {
  CheckBinaryErrors(Spec(Op::FLOOR_MOD), DataType::kInt32);
  const auto r = RunBinary<uint8_t>(Spec(Op::FLOOR_MOD), DataType::kBool, {1}, std::vector<uint8_t>{1}, {1},
                                    std::vector<uint8_t>{1});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << r.build.ToString();
}

// ---- POW ----

TEST(PowTest, FloatBroadcast) {
  std::mt19937 rng(11);
  for (const auto& [as, bs] : BroadcastShapePairs()) {
    const auto a = RandomValues<float>(static_cast<size_t>(Elements(as)), rng, 0.1, 4);
    const auto b = RandomValues<float>(static_cast<size_t>(Elements(bs)), rng, -3, 3);
    const auto r = RunBinary<float>(Spec(Op::POW), DataType::kFloat32, as, a, bs, b);
    ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
    ExpectFloatsNear(r.out,
                     reference::BroadcastBinary<float>(
                         as, a, bs, b, [](float x, float y) { return static_cast<float>(std::pow(double{x}, double{y})); }),
                     "a " + ShapeStr(as) + " b " + ShapeStr(bs));
  }
}

TEST(PowTest, FloatSpecials) {
  const auto r = RunSame<float>(Spec(Op::POW), DataType::kFloat32, std::vector<float>{2, -8, -8, 0, 0, kNaN, 1, -1},
                            std::vector<float>{0.5f, 1.0f / 3, 2, -1, 0, 0, kNaN, kInf});
  ExpectFloatsNear(r, {1.4142135f, kNaN, 64, kInf, 1, 1, 1, 1}, "pow specials");
}

TEST(PowTest, Int32MatchesLiteRt) {
  // Out-of-range results are INT32_MIN in LiteRT (double -> int conversion).
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(RunSame<int32_t>(Spec(Op::POW), DataType::kInt32,
                         std::vector<int32_t>{2, -3, 0, 5, 7, 2, -2, 0, 46341, 3, -1, -1, 1, 2, -2},
                         std::vector<int32_t>{3, 3, 0, 0, 1, 31, 31, 5, 2, 40, 2147483647, 1000000, 99999, 30, 30}),
            (std::vector<int32_t>{8, -27, 1, 1, 7, kMin, kMin, 0, kMin, kMin, -1, 1, 1, 1 << 30, 1 << 30}));
  std::mt19937 rng(12);
  const auto base = RandomValues<int32_t>(1000, rng, -12, 12);
  const auto exponent = RandomValues<int32_t>(1000, rng, 0, 12);
  const auto r = RunSame<int32_t>(Spec(Op::POW), DataType::kInt32, base, exponent);
  for (size_t i = 0; i < base.size(); ++i) {
    const double p = std::pow(double{1.0} * base[i], exponent[i]);
    const int32_t want = (p >= kMin && p <= std::numeric_limits<int32_t>::max()) ? static_cast<int32_t>(p) : kMin;
    ASSERT_EQ(r[i], want) << base[i] << "^" << exponent[i];
  }
}

TEST(PowTest, Int32NegativeExponentFailsInvoke) {
  const auto r = RunBinary<int32_t>(Spec(Op::POW), DataType::kInt32, {2}, std::vector<int32_t>{2, 3}, {2},
                                    std::vector<int32_t>{1, -1});
  ASSERT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_FALSE(r.invoke.ok());
}

TEST(PowTest, Errors) {
  CheckBinaryErrors(Spec(Op::POW), DataType::kFloat32);
  const auto r = RunBinary<int64_t>(Spec(Op::POW), DataType::kInt64, {1}, std::vector<int64_t>{1}, {1},
                                    std::vector<int64_t>{1});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << r.build.ToString();
}

// ---- SQUARED_DIFFERENCE ----

TEST(SquaredDifferenceTest, Broadcast) {
  CheckBroadcastPairs<float>(Spec(Op::SQUARED_DIFFERENCE), DataType::kFloat32,
                             [](float a, float b) { return (a - b) * (a - b); }, -10, 10, 13);
  CheckBroadcastPairs<int32_t>(Spec(Op::SQUARED_DIFFERENCE), DataType::kInt32,
                               [](int32_t a, int32_t b) { return (a - b) * (a - b); }, -1000, 1000, 14);
}

TEST(SquaredDifferenceTest, Int32WrapsAndThreaded) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  // (kMin - kMax) wraps to 1 (LiteRT: 1); 65536^2 wraps to 0.
  EXPECT_EQ(RunSame<int32_t>(Spec(Op::SQUARED_DIFFERENCE), DataType::kInt32, std::vector<int32_t>{kMin, 65536, -3},
                         std::vector<int32_t>{kMax, 0, 5}),
            (std::vector<int32_t>{1, 0, 64}));
  CheckThreaded<float>(Spec(Op::SQUARED_DIFFERENCE), DataType::kFloat32,
                       [](float a, float b) { return (a - b) * (a - b); }, -5, 5, 15);
}

TEST(SquaredDifferenceTest, Errors) {
  CheckBinaryErrors(Spec(Op::SQUARED_DIFFERENCE), DataType::kFloat32);
  const auto r = RunBinary<int8_t>(Spec(Op::SQUARED_DIFFERENCE, 2), DataType::kInt8, {1}, std::vector<int8_t>{1}, {1},
                                   std::vector<int8_t>{1});
  // int8 is quantized (quantized/squared_difference.cc): no scale, an error.
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << r.build.ToString();
}

// ---- comparisons ----

struct Comparison {
  Op op;
  int int16_version;  // 0: no int16 version
  bool takes_bool;
  std::function<bool(double, double)> ref;
};

std::vector<Comparison> Comparisons() {
  return {{Op::EQUAL, 4, true, [](double a, double b) { return a == b; }},
          {Op::NOT_EQUAL, 0, true, [](double a, double b) { return a != b; }},
          {Op::GREATER, 1, false, [](double a, double b) { return a > b; }},
          {Op::GREATER_EQUAL, 3, false, [](double a, double b) { return a >= b; }},
          {Op::LESS, 3, false, [](double a, double b) { return a < b; }},
          {Op::LESS_EQUAL, 1, false, [](double a, double b) { return a <= b; }}};
}

template <typename T>
void CheckComparison(const Comparison& c, DataType type, int version, uint32_t seed) {
  SCOPED_TRACE(std::string(tflite::EnumNameBuiltinOperator(c.op)) + " " + DataTypeName(type));
  // Few distinct values, so that equal pairs are common.
  const auto ref = [&c](T a, T b) { return static_cast<uint8_t>(c.ref(double(a), double(b))); };
  CheckPairs<T, uint8_t>(Spec(c.op, version), type, ref, Uniform<T>(-3, 3), seed, false, DataType::kBool);
}

TEST(ComparisonTest, EveryTypeBroadcast) {
  uint32_t seed = 20;
  for (const Comparison& c : Comparisons()) {
    CheckComparison<float>(c, DataType::kFloat32, 1, seed++);
    CheckComparison<int32_t>(c, DataType::kInt32, 1, seed++);
    CheckComparison<int64_t>(c, DataType::kInt64, 1, seed++);
    if (c.int16_version > 0) CheckComparison<int16_t>(c, DataType::kInt16, c.int16_version, seed++);
  }
  // LiteRT's NOT_EQUAL on int16 neither fails nor computes (its output is
  // garbage): rejected here.
  const auto r = RunBinary<uint8_t>(Spec(Op::NOT_EQUAL), DataType::kInt16, {2}, std::vector<int16_t>{1, 2}, {2},
                                    std::vector<int16_t>{1, 3}, 1, false, DataType::kBool);
  EXPECT_EQ(r.build.code(), StatusCode::kUnimplemented) << r.build.ToString();
}

TEST(ComparisonTest, NaNAndZerosMatchLiteRt) {
  const std::vector<float> a = {1, kNaN, kNaN, 1, -0.0f, kInf};
  const std::vector<float> b = {kNaN, 1, kNaN, 1, 0.0f, kInf};
  const std::vector<std::pair<Op, std::vector<uint8_t>>> want = {
      {Op::EQUAL, {0, 0, 0, 1, 1, 1}},   {Op::NOT_EQUAL, {1, 1, 1, 0, 0, 0}},     {Op::GREATER, {0, 0, 0, 0, 0, 0}},
      {Op::GREATER_EQUAL, {0, 0, 0, 1, 1, 1}}, {Op::LESS, {0, 0, 0, 0, 0, 0}}, {Op::LESS_EQUAL, {0, 0, 0, 1, 1, 1}}};
  for (const auto& [op, w] : want) {
    EXPECT_EQ(RunSame<uint8_t>(Spec(op), DataType::kFloat32, a, b, DataType::kBool), w)
        << tflite::EnumNameBuiltinOperator(op);
  }
  // int64 beyond double's precision compares exactly.
  const int64_t big = (int64_t{1} << 60) + 1;
  EXPECT_EQ(RunSame<uint8_t>(Spec(Op::EQUAL), DataType::kInt64, std::vector<int64_t>{big}, std::vector<int64_t>{big - 1},
                         DataType::kBool),
            (std::vector<uint8_t>{0}));
  EXPECT_EQ(RunSame<uint8_t>(Spec(Op::GREATER), DataType::kInt64, std::vector<int64_t>{big}, std::vector<int64_t>{big - 1},
                         DataType::kBool),
            (std::vector<uint8_t>{1}));
}

TEST(ComparisonTest, BoolEqualityReadsNonZeroAsTrue) {
  const std::vector<uint8_t> a = {0, 0, 1, 1, 2, 255};
  const std::vector<uint8_t> b = {0, 1, 0, 1, 1, 0};
  EXPECT_EQ(RunSame<uint8_t>(Spec(Op::EQUAL), DataType::kBool, a, b, DataType::kBool),
            (std::vector<uint8_t>{1, 0, 0, 1, 1, 0}));
  EXPECT_EQ(RunSame<uint8_t>(Spec(Op::NOT_EQUAL), DataType::kBool, a, b, DataType::kBool),
            (std::vector<uint8_t>{0, 1, 1, 0, 0, 1}));
  CheckPairs<uint8_t, uint8_t>(Spec(Op::NOT_EQUAL), DataType::kBool,
                               [](uint8_t x, uint8_t y) { return static_cast<uint8_t>((x != 0) != (y != 0)); },
                               Uniform<uint8_t>(0, 2), 40, false, DataType::kBool);
}

TEST(ComparisonTest, Threaded) {
  std::mt19937 rng(41);
  const Shape as = {3, 67, 61, 7};
  const Shape bs = {7};
  const auto a = RandomValues<int32_t>(static_cast<size_t>(Elements(as)), rng, -3, 3);
  const auto b = RandomValues<int32_t>(static_cast<size_t>(Elements(bs)), rng, -3, 3);
  const auto r = RunBinary<uint8_t>(Spec(Op::LESS_EQUAL), DataType::kInt32, as, a, bs, b, 4, false, DataType::kBool);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  ExpectValuesEqual(r.out,
                    reference::BroadcastBinary<uint8_t>(as, a, bs, b,
                                                        [](int32_t x, int32_t y) { return static_cast<uint8_t>(x <= y); }),
                    "threaded");
}

TEST(ComparisonTest, Errors) {
  for (const Comparison& c : Comparisons()) {
    SCOPED_TRACE(tflite::EnumNameBuiltinOperator(c.op));
    CheckBinaryErrors(Spec(c.op), DataType::kFloat32);
    // The output must be bool, not the input type.
    const auto same = RunBinary<float>(Spec(c.op), DataType::kFloat32, {2}, std::vector<float>{1, 2}, {2},
                                       std::vector<float>{1, 2});
    EXPECT_EQ(same.build.code(), StatusCode::kInvalidArgument) << same.build.ToString();
    // 8-bit inputs are quantized (quantized/equal.cc etc.): no scale, an error.
    for (DataType q : {DataType::kInt8, DataType::kUInt8}) {
      const auto r = RunBinary<uint8_t>(Spec(c.op, 2), q, {2}, std::vector<uint8_t>{1, 2}, {2},
                                        std::vector<uint8_t>{1, 2}, 1, false, DataType::kBool);
      EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << DataTypeName(q) << ": " << r.build.ToString();
    }
    const auto b = RunBinary<uint8_t>(Spec(c.op), DataType::kBool, {2}, std::vector<uint8_t>{1, 0}, {2},
                                      std::vector<uint8_t>{1, 1}, 1, false, DataType::kBool);
    if (c.takes_bool) {
      EXPECT_TRUE(b.invoke.ok()) << b.invoke.ToString();
    } else {
      EXPECT_EQ(b.build.code(), StatusCode::kInvalidArgument) << "bool: " << b.build.ToString();
    }
  }
}

// ---- LOGICAL_OR ----

TEST(LogicalOrTest, BroadcastAndTruthTable) {
  CheckBroadcastPairs<uint8_t>(Spec(Op::LOGICAL_OR), DataType::kBool,
                               [](uint8_t a, uint8_t b) { return static_cast<uint8_t>(a || b); }, 0, 1, 50);
  EXPECT_EQ(RunSame<uint8_t>(Spec(Op::LOGICAL_OR), DataType::kBool, std::vector<uint8_t>{0, 0, 1, 1, 2, 0},
                         std::vector<uint8_t>{0, 1, 0, 1, 0, 7}),
            (std::vector<uint8_t>{0, 1, 1, 1, 1, 1}));
  CheckThreaded<uint8_t>(Spec(Op::LOGICAL_OR), DataType::kBool,
                         [](uint8_t a, uint8_t b) { return static_cast<uint8_t>(a || b); }, 0, 1, 51);
}

TEST(LogicalOrTest, Errors) {
  CheckBinaryErrors(Spec(Op::LOGICAL_OR), DataType::kBool);
  const auto r = RunBinary<float>(Spec(Op::LOGICAL_OR), DataType::kFloat32, {1}, std::vector<float>{1}, {1},
                                  std::vector<float>{0});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << r.build.ToString();
}

// ---- SELECT / SELECT_V2 ----

template <typename T>
struct SelectResult {
  Status build;
  Status invoke;
  Shape shape;
  std::vector<T> out;
};

template <typename T>
SelectResult<T> RunSelect(Op op, DataType type, const Shape& cs, const std::vector<uint8_t>& c, const Shape& xs,
                          const std::vector<T>& x, const Shape& ys, const std::vector<T>& y, int threads = 1,
                          DataType cond_type = DataType::kBool, DataType out_type = DataType(-1)) {
  SelectResult<T> r;
  SingleOpModel m;
  const int ic = m.AddInput(cond_type, cs);
  const int ix = m.AddInput(type, xs);
  const int iy = m.AddInput(type, ys);
  const int io = m.AddOutput(out_type == DataType(-1) ? type : out_type);
  m.SetBuiltinOp(op, 1);
  r.build = m.Build(threads);
  if (!r.build.ok()) return r;
  if (!c.empty()) m.SetInput<uint8_t>(ic, c);
  if (!x.empty()) m.SetInput<T>(ix, x);
  if (!y.empty()) m.SetInput<T>(iy, y);
  r.invoke = m.Invoke();
  if (!r.invoke.ok()) return r;
  r.shape = m.GetOutputShape(io);
  r.out = m.GetOutput<T>(io);
  return r;
}

// Three-way numpy broadcast reference.
template <typename T>
std::vector<T> RefSelect(const Shape& cs, const std::vector<uint8_t>& c, const Shape& xs, const std::vector<T>& x,
                         const Shape& ys, const std::vector<T>& y, Shape* out_shape) {
  bool ok1 = false, ok2 = false;
  *out_shape = reference::BroadcastShape(cs, reference::BroadcastShape(xs, ys, &ok1), &ok2);
  std::vector<T> out(static_cast<size_t>(Elements(*out_shape)));
  std::vector<int64_t> coords(out_shape->size());
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i);
    for (size_t d = out_shape->size(); d-- > 0;) {
      coords[d] = rest % (*out_shape)[d];
      rest /= (*out_shape)[d];
    }
    const bool pick = c[static_cast<size_t>(reference::BroadcastSourceIndex(cs, coords))] != 0;
    out[i] = pick ? x[static_cast<size_t>(reference::BroadcastSourceIndex(xs, coords))]
                  : y[static_cast<size_t>(reference::BroadcastSourceIndex(ys, coords))];
  }
  return out;
}

template <typename T>
void CheckSelectV2(DataType type, uint32_t seed) {
  SCOPED_TRACE(DataTypeName(type));
  const std::vector<std::array<Shape, 3>> triples = {
      {Shape{3, 1}, Shape{2}, Shape{}},          {Shape{}, Shape{2, 3}, Shape{2, 3}},
      {Shape{2, 1, 4}, Shape{1, 3, 1}, Shape{4}}, {Shape{5}, Shape{3, 1}, Shape{1}},
      {Shape{2, 3, 4}, Shape{2, 3, 4}, Shape{2, 3, 4}}, {Shape{1, 2, 1, 3, 1, 2}, Shape{2, 1, 3, 1, 2, 1}, Shape{2, 1}},
      {Shape{1, 1, 200}, Shape{4, 4, 200}, Shape{200}}, {Shape{0, 3}, Shape{3}, Shape{1}},
      {Shape{2, 1}, Shape{}, Shape{}}};
  std::mt19937 rng(seed);
  for (const auto& [cs, xs, ys] : triples) {
    const auto c = RandomValues<uint8_t>(static_cast<size_t>(Elements(cs)), rng, 0, 2);
    const auto x = RandomValues<T>(static_cast<size_t>(Elements(xs)), rng, -100, 100);
    const auto y = RandomValues<T>(static_cast<size_t>(Elements(ys)), rng, -100, 100);
    const std::string what = "c " + ShapeStr(cs) + " x " + ShapeStr(xs) + " y " + ShapeStr(ys);
    const auto r = RunSelect<T>(Op::SELECT_V2, type, cs, c, xs, x, ys, y);
    ASSERT_TRUE(r.build.ok()) << what << ": " << r.build.ToString();
    ASSERT_TRUE(r.invoke.ok()) << what << ": " << r.invoke.ToString();
    Shape want_shape;
    const auto want = RefSelect(cs, c, xs, x, ys, y, &want_shape);
    EXPECT_EQ(r.shape, want_shape) << what;
    ExpectValuesEqual(r.out, want, what);
  }
}

TEST(SelectTest, V2BroadcastEveryElementSize) {
  CheckSelectV2<float>(DataType::kFloat32, 60);
  CheckSelectV2<int32_t>(DataType::kInt32, 61);
  CheckSelectV2<int64_t>(DataType::kInt64, 62);
  CheckSelectV2<int16_t>(DataType::kInt16, 63);
  CheckSelectV2<int8_t>(DataType::kInt8, 64);
  CheckSelectV2<uint8_t>(DataType::kUInt8, 65);
  CheckSelectV2<uint8_t>(DataType::kBool, 66);
}

TEST(SelectTest, V2MatchesLiteRt) {
  const auto r = RunSelect<float>(Op::SELECT_V2, DataType::kFloat32, {3, 1}, {1, 0, 1}, {2}, {1, 2}, {}, {9});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  EXPECT_EQ(r.out, (std::vector<float>{1, 2, 9, 9, 1, 2}));
}

TEST(SelectTest, V1SameShapeScalarAndRankOneCondition) {
  const std::vector<float> x = {0, 1, 2, 3, 4, 5};
  const std::vector<float> y = {-0.0f, -1, -2, -3, -4, -5};
  // LiteRT: a rank-1 condition picks whole rows.
  auto r = RunSelect<float>(Op::SELECT, DataType::kFloat32, {3}, {1, 0, 1}, {3, 2}, x, {3, 2}, y);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  EXPECT_EQ(r.out, (std::vector<float>{0, 1, -2, -3, 4, 5}));
  r = RunSelect<float>(Op::SELECT, DataType::kFloat32, {}, {0}, {3, 2}, x, {3, 2}, y);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, y);
  r = RunSelect<float>(Op::SELECT, DataType::kFloat32, {3, 2}, {1, 0, 0, 1, 3, 0}, {3, 2}, x, {3, 2}, y);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<float>{0, -1, -2, 3, 4, -5}));
  // A rank-1 condition on a rank-1 x is the same-shape case.
  auto v = RunSelect<int64_t>(Op::SELECT, DataType::kInt64, {3}, {0, 1, 0}, {3}, {1, 2, 3}, {3}, {7, 8, 9});
  ASSERT_TRUE(v.invoke.ok()) << v.invoke.ToString();
  EXPECT_EQ(v.out, (std::vector<int64_t>{7, 2, 9}));
  // Rank 4 with a per-row condition, and int8 values passing through.
  std::mt19937 rng(70);
  const Shape xs = {4, 3, 2, 5};
  const auto c = RandomValues<uint8_t>(4, rng, 0, 1);
  const auto x8 = RandomValues<int8_t>(static_cast<size_t>(Elements(xs)), rng, -128, 127);
  const auto y8 = RandomValues<int8_t>(static_cast<size_t>(Elements(xs)), rng, -128, 127);
  const auto q = RunSelect<int8_t>(Op::SELECT, DataType::kInt8, {4}, c, xs, x8, xs, y8);
  ASSERT_TRUE(q.invoke.ok()) << q.invoke.ToString();
  for (size_t i = 0; i < x8.size(); ++i) ASSERT_EQ(q.out[i], c[i / 30] ? x8[i] : y8[i]) << i;
}

TEST(SelectTest, Threaded) {
  std::mt19937 rng(71);
  const Shape s = {3, 129, 131};
  const auto c = RandomValues<uint8_t>(static_cast<size_t>(Elements(s)), rng, 0, 1);
  const auto x = RandomValues<float>(static_cast<size_t>(Elements(s)), rng, -1, 1);
  const auto y = RandomValues<float>(static_cast<size_t>(Elements(s)), rng, -1, 1);
  for (Op op : {Op::SELECT, Op::SELECT_V2}) {
    const auto r = RunSelect<float>(op, DataType::kFloat32, s, c, s, x, s, y, 4);
    ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
    Shape shape;
    EXPECT_EQ(r.out, RefSelect(s, c, s, x, s, y, &shape));
  }
  const Shape xs = {5, 301, 1, 67};
  const Shape cs = {1, 1, 77, 1};
  const auto c2 = RandomValues<uint8_t>(static_cast<size_t>(Elements(cs)), rng, 0, 1);
  const auto x2 = RandomValues<int32_t>(static_cast<size_t>(Elements(xs)), rng, -9, 9);
  const auto r = RunSelect<int32_t>(Op::SELECT_V2, DataType::kInt32, cs, c2, xs, x2, {}, {42}, 4);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  Shape shape;
  EXPECT_EQ(r.out, RefSelect(cs, c2, xs, x2, Shape{}, std::vector<int32_t>{42}, &shape));
}

TEST(SelectTest, Errors) {
  const std::vector<float> six(6, 1.0f);
  const auto expect_invalid = [](const Status& s, const char* what) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << what << ": " << s.ToString();
  };
  // SELECT: the condition is x's shape, a scalar or a vector of rows.
  expect_invalid(RunSelect<float>(Op::SELECT, DataType::kFloat32, {2}, {1, 0}, {3, 2}, six, {3, 2}, six).build,
                 "rank-1 condition of the wrong length");
  expect_invalid(RunSelect<float>(Op::SELECT, DataType::kFloat32, {1, 2}, {1, 0}, {3, 2}, six, {3, 2}, six).build,
                 "broadcast condition in SELECT");
  expect_invalid(RunSelect<float>(Op::SELECT, DataType::kFloat32, {3}, {1, 0, 1}, {3, 2}, six, {2}, {1, 2}).build,
                 "x and y of different shapes in SELECT");
  expect_invalid(RunSelect<float>(Op::SELECT_V2, DataType::kFloat32, {4}, {1, 0, 1, 0}, {3, 2}, six, {}, {1}).build,
                 "not broadcastable");
  expect_invalid(RunSelect<float>(Op::SELECT_V2, DataType::kFloat32, {2}, {1, 0}, {3}, {1, 2, 3}, {2}, {1, 2}).build,
                 "x and y not broadcastable");
  for (Op op : {Op::SELECT, Op::SELECT_V2}) {
    SCOPED_TRACE(tflite::EnumNameBuiltinOperator(op));
    expect_invalid(RunSelect<float>(op, DataType::kFloat32, {2}, {1, 0}, {2}, {1, 2}, {2}, {1, 2}, 1,
                                    DataType::kInt32)
                       .build,
                   "condition not bool");
    expect_invalid(RunSelect<float>(op, DataType::kFloat32, {2}, {1, 0}, {2}, {1, 2}, {2}, {1, 2}, 1, DataType::kBool,
                                    DataType::kInt32)
                       .build,
                   "output type");
    {
      SingleOpModel m;
      m.AddInput(DataType::kBool, {2});
      m.AddInput(DataType::kFloat32, {2});
      m.AddInput(DataType::kInt32, {2});
      m.AddOutput(DataType::kFloat32);
      m.SetBuiltinOp(op, 1);
      expect_invalid(m.Build(), "x and y types differ");
    }
    {
      SingleOpModel m;
      m.AddInput(DataType::kBool, {2});
      m.AddInput(DataType::kFloat32, {2});
      m.AddOutput(DataType::kFloat32);
      m.SetBuiltinOp(op, 1);
      EXPECT_FALSE(m.Build().ok()) << "two inputs";
    }
    {
      SingleOpModel m;
      m.AddInput(DataType::kBool, {2});
      m.AddInput(DataType::kString, {2});
      m.AddInput(DataType::kString, {2});
      m.AddOutput(DataType::kString);
      m.SetBuiltinOp(op, 1);
      EXPECT_FALSE(m.Build().ok()) << "string";
    }
  }
}

}  // namespace
}  // namespace relite
