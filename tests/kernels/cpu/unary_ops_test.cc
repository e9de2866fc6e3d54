// The unary elementwise ops without a test file of their own: ABS, NEG,
// SQUARE, LOG, SIN, COS, FLOOR, CEIL, ROUND, SIGN, ELU, GELU, LOGICAL_NOT,
// ZEROS_LIKE. Expected special values (ROUND's zeros, SIGN of NaN, the wrap
// of the integer minimum) are what LiteRT's builtin kernels give.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
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

OpSpec Gelu(bool approximate) {
  return {Op::GELU, 1, tflite::BuiltinOptions::GeluOptions, [approximate](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateGeluOptions(fbb, approximate).Union();
          }};
}

uint32_t Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

// Runs a unary op of one type on `x` and expects `want` exactly (bitwise for
// float, so the sign of zero and NaN payloads count).
template <typename T>
void ExpectUnaryExact(const OpSpec& spec, DataType type, const std::vector<T>& x, const std::vector<T>& want,
                      const char* what) {
  const auto r = RunUnary<T, T>(spec, type, type, {static_cast<int32_t>(x.size())}, x);
  ASSERT_TRUE(r.build.ok()) << what << ": " << r.build.ToString();
  ASSERT_TRUE(r.invoke.ok()) << what << ": " << r.invoke.ToString();
  ASSERT_EQ(r.out.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    if constexpr (std::is_same_v<T, float>) {
      EXPECT_EQ(Bits(r.out[i]), Bits(want[i])) << what << " index " << i << ": got " << r.out[i] << " want " << want[i];
    } else {
      EXPECT_EQ(+r.out[i], +want[i]) << what << " index " << i;
    }
  }
}

// Build fails with `code` for an input of `type` (output of the same type).
void ExpectTypeRejected(const OpSpec& spec, DataType type, StatusCode code) {
  const auto r = RunUnary<uint8_t, uint8_t>(spec, type, type, {2}, std::vector<uint8_t>(8, 0), 1,
                                            type == DataType::kInt8 || type == DataType::kUInt8
                                                ? Quantization{{0.5f}, {0}, 0}
                                                : Quantization{});
  EXPECT_EQ(r.build.code(), code) << "type " << DataTypeName(type) << ": " << r.build.ToString();
}

// Wrong output type and wrong input count, for an op whose good type is `type`.
void ExpectShapeOfCallErrors(const OpSpec& spec, DataType type) {
  const DataType other = type == DataType::kInt64 ? DataType::kInt32 : DataType::kInt64;
  const auto r = RunUnary<uint8_t, uint8_t>(spec, type, other, {2}, std::vector<uint8_t>(8, 0));
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "wrong output type: " << r.build.ToString();
  SingleOpModel m;
  m.AddInput(type, {2});
  m.AddInput(type, {2});
  m.AddOutput(type);
  m.SetBuiltinOp(spec.op, spec.version);
  EXPECT_FALSE(m.Build().ok()) << "two inputs";
  SingleOpModel none;
  none.AddOutput(type);
  none.SetBuiltinOp(spec.op, spec.version);
  EXPECT_FALSE(none.Build().ok()) << "no input";
}

// ---- float ops against double references ----

TEST(UnaryOpsTest, FloatAbs) { CheckFloatUnary(Spec(Op::ABS), [](double x) { return std::fabs(x); }, -100, 100, 1); }
TEST(UnaryOpsTest, FloatNeg) { CheckFloatUnary(Spec(Op::NEG), [](double x) { return -x; }, -100, 100, 2); }
TEST(UnaryOpsTest, FloatSquare) { CheckFloatUnary(Spec(Op::SQUARE), [](double x) { return x * x; }, -100, 100, 3); }
TEST(UnaryOpsTest, FloatLog) { CheckFloatUnary(Spec(Op::LOG), [](double x) { return std::log(x); }, 1e-6, 1e6, 4); }
TEST(UnaryOpsTest, FloatSin) { CheckFloatUnary(Spec(Op::SIN), [](double x) { return std::sin(x); }, -20, 20, 5); }
TEST(UnaryOpsTest, FloatCos) { CheckFloatUnary(Spec(Op::COS), [](double x) { return std::cos(x); }, -20, 20, 6); }
TEST(UnaryOpsTest, FloatFloor) { CheckFloatUnary(Spec(Op::FLOOR), [](double x) { return std::floor(x); }, -50, 50, 7); }
TEST(UnaryOpsTest, FloatCeil) { CheckFloatUnary(Spec(Op::CEIL), [](double x) { return std::ceil(x); }, -50, 50, 8); }
TEST(UnaryOpsTest, FloatRound) {
  CheckFloatUnary(Spec(Op::ROUND), [](double x) { return std::nearbyint(x); }, -50, 50, 9);
}
TEST(UnaryOpsTest, FloatSign) {
  CheckFloatUnary(Spec(Op::SIGN), [](double x) { return std::isnan(x) ? x : (x > 0) - (x < 0); }, -5, 5, 10);
}
TEST(UnaryOpsTest, FloatElu) {
  CheckFloatUnary(Spec(Op::ELU), [](double x) { return x < 0 ? std::expm1(x) : x; }, -10, 10, 11);
}
TEST(UnaryOpsTest, GeluExact) {
  // The float erfc form against double: within a few float ulps.
  CheckFloatUnary(Gelu(false), [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }, -8, 8, 12, 2e-6,
                  1e-7);
}
TEST(UnaryOpsTest, GeluTanh) {
  // The tanh form cancels in float for x << 0 (1 + tanh -> 0): absolute
  // error there, relative elsewhere.
  CheckFloatUnary(Gelu(true),
                  [](double x) {
                    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
                  },
                  -8, 8, 13, 2e-6, 2e-6);
}

// ---- exact special values ----

TEST(UnaryOpsTest, RoundTiesToEvenAndZeroSigns) {
  // LiteRT's builtin ROUND (from floor): round(-0.5) and round(-0.3) are +0.
  ExpectUnaryExact<float>(Spec(Op::ROUND), DataType::kFloat32,
                          {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, -0.3f, 0.3f, -0.0f, 3.5f, 2.4999998f, 8388609.5f,
                           -8388609.5f, 16777215.0f, 1e30f, -1e30f, kInf, -kInf},
                          {0.0f, 2.0f, 2.0f, 0.0f, -2.0f, -2.0f, 0.0f, 0.0f, -0.0f, 4.0f, 2.0f, 8388610.0f,
                           -8388610.0f, 16777215.0f, 1e30f, -1e30f, kInf, -kInf},
                          "round");
  const auto r = RunUnary<float, float>(Spec(Op::ROUND), DataType::kFloat32, DataType::kFloat32, {1}, {kNaN});
  ASSERT_TRUE(r.invoke.ok());
  EXPECT_TRUE(std::isnan(r.out[0]));
}

TEST(UnaryOpsTest, FloorCeilKeepZeroSigns) {
  ExpectUnaryExact<float>(Spec(Op::FLOOR), DataType::kFloat32, {-0.0f, 0.0f, -0.5f, 0.5f, -kInf},
                          {-0.0f, 0.0f, -1.0f, 0.0f, -kInf}, "floor");
  ExpectUnaryExact<float>(Spec(Op::CEIL), DataType::kFloat32, {-0.0f, 0.0f, -0.5f, 0.5f, kInf},
                          {-0.0f, 0.0f, -0.0f, 1.0f, kInf}, "ceil");
}

TEST(UnaryOpsTest, SignOfZerosAndNaN) {
  const float neg_nan = -kNaN;
  // Both zeros give +0; NaN passes through with its sign (LiteRT: 0x7fc00000
  // and 0xffc00000 unchanged); denormals have a sign.
  ExpectUnaryExact<float>(Spec(Op::SIGN), DataType::kFloat32, {-0.0f, 0.0f, kNaN, neg_nan, -1e-40f, 1e-40f, -kInf},
                          {0.0f, 0.0f, kNaN, neg_nan, -1.0f, 1.0f, -1.0f}, "sign");
}

TEST(UnaryOpsTest, NegFlipsSigns) {
  ExpectUnaryExact<float>(Spec(Op::NEG), DataType::kFloat32, {0.0f, -0.0f, 1e-40f, kInf},
                          {-0.0f, 0.0f, -1e-40f, -kInf}, "neg");
}

TEST(UnaryOpsTest, EluSmallAndSaturated) {
  // expm1 keeps tiny negative inputs (e^x - 1 would give 0).
  const auto r = RunUnary<float, float>(Spec(Op::ELU), DataType::kFloat32, DataType::kFloat32, {4},
                                        {-1e-8f, -100.0f, -kInf, -0.0f});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_FLOAT_EQ(r.out[0], -1e-8f);
  EXPECT_EQ(r.out[1], -1.0f);
  EXPECT_EQ(r.out[2], -1.0f);
  EXPECT_EQ(Bits(r.out[3]), Bits(-0.0f));
}

TEST(UnaryOpsTest, GeluOptionsAndLiteRtValues) {
  const std::vector<float> x = {-10, -3, -1, -0.5f, 0, 0.5f, 1, 3, 10, 1e-3f};
  // LiteRT 2.3 builtin kernels (no XNNPACK), exact and tanh forms.
  const std::vector<float> exact = {-7.6198536e-23f, -4.0496956e-03f, -1.5865526e-01f, -1.5426877e-01f, 0.0f,
                                    3.4573123e-01f,  8.4134471e-01f,  2.9959502e+00f,  10.0f,           5.0039898e-04f};
  const std::vector<float> tanh_form = {-0.0f,          -3.6374331e-03f, -1.5880799e-01f, -1.5428600e-01f, 0.0f,
                                        3.4571400e-01f, 8.4119201e-01f,  2.9963627e+00f,  10.0f,           5.0039898e-04f};
  const Shape shape = {static_cast<int32_t>(x.size())};
  const auto e = RunUnary<float, float>(Gelu(false), DataType::kFloat32, DataType::kFloat32, shape, x);
  const auto t = RunUnary<float, float>(Gelu(true), DataType::kFloat32, DataType::kFloat32, shape, x);
  const auto none = RunUnary<float, float>(Spec(Op::GELU), DataType::kFloat32, DataType::kFloat32, shape, x);
  ASSERT_TRUE(e.invoke.ok() && t.invoke.ok() && none.invoke.ok());
  ExpectFloatsNear(e.out, exact, "exact", 1e-6, 1e-30);
  ExpectFloatsNear(t.out, tanh_form, "tanh", 1e-6, 1e-30);
  // No options table: the schema default, approximate = false.
  EXPECT_EQ(none.out, e.out);
  EXPECT_NE(e.out[1], t.out[1]);
}

// ---- integer and bool types ----

TEST(UnaryOpsTest, AbsInt32) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  // INT32_MIN maps to itself, as in LiteRT.
  ExpectUnaryExact<int32_t>(Spec(Op::ABS, 5), DataType::kInt32, {kMin, -3, 0, 5, kMax, -kMax},
                            {kMin, 3, 0, 5, kMax, kMax}, "abs int32");
}

template <typename T>
void CheckNegInt(DataType type) {
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  ExpectUnaryExact<T>(Spec(Op::NEG), type, {kMin, T(-3), T(0), T(5), kMax},
                      {kMin, T(3), T(0), T(-5), static_cast<T>(-kMax)}, DataTypeName(type).c_str());
}

TEST(UnaryOpsTest, NegIntegers) {
  CheckNegInt<int32_t>(DataType::kInt32);
  CheckNegInt<int64_t>(DataType::kInt64);
  CheckNegInt<int16_t>(DataType::kInt16);
  CheckNegInt<int8_t>(DataType::kInt8);
}

TEST(UnaryOpsTest, SignInt32) {
  ExpectUnaryExact<int32_t>(Spec(Op::SIGN, 2), DataType::kInt32,
                            {std::numeric_limits<int32_t>::min(), -3, 0, 5, std::numeric_limits<int32_t>::max()},
                            {-1, -1, 0, 1, 1}, "sign int32");
}

TEST(UnaryOpsTest, ZerosLike) {
  ExpectUnaryExact<float>(Spec(Op::ZEROS_LIKE), DataType::kFloat32, {kNaN, -1, kInf, -0.0f}, {0, 0, 0, 0}, "float");
  ExpectUnaryExact<int32_t>(Spec(Op::ZEROS_LIKE), DataType::kInt32, {7, -1, 3}, {0, 0, 0}, "int32");
  ExpectUnaryExact<int64_t>(Spec(Op::ZEROS_LIKE), DataType::kInt64, {int64_t{1} << 40, -1}, {0, 0}, "int64");
  const auto r = RunUnary<float, float>(Spec(Op::ZEROS_LIKE), DataType::kFloat32, DataType::kFloat32, {2, 0, 3}, {});
  ASSERT_TRUE(r.invoke.ok());
  EXPECT_EQ(r.shape, (Shape{2, 0, 3}));
}

TEST(UnaryOpsTest, LogicalNot) {
  // Any non-zero byte is true; the output is 0/1.
  ExpectUnaryExact<uint8_t>(Spec(Op::LOGICAL_NOT), DataType::kBool, {0, 1, 2, 255}, {1, 0, 0, 0}, "not");
}

TEST(UnaryOpsTest, IntegerOpsThreaded) {
  std::mt19937 rng(20);
  const Shape shape = {3, 129, 131};
  const auto x = RandomValues<int32_t>(static_cast<size_t>(Elements(shape)), rng, -1000, 1000);
  const auto r = RunUnary<int32_t, int32_t>(Spec(Op::NEG), DataType::kInt32, DataType::kInt32, shape, x, 4);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  ExpectValuesEqual(r.out, reference::Unary<int32_t>(x, [](int32_t v) { return -v; }), "neg threaded");
  const auto b = RandomValues<uint8_t>(static_cast<size_t>(Elements(shape)), rng, 0, 3);
  const auto n = RunUnary<uint8_t, uint8_t>(Spec(Op::LOGICAL_NOT), DataType::kBool, DataType::kBool, shape, b, 4);
  ASSERT_TRUE(n.invoke.ok()) << n.invoke.ToString();
  ExpectValuesEqual(n.out, reference::Unary<uint8_t>(b, [](uint8_t v) { return static_cast<uint8_t>(v == 0); }),
                    "not threaded");
}

// ---- errors ----

TEST(UnaryOpsTest, FloatOnlyOpsRejectOtherTypes) {
  for (Op op : {Op::SQUARE, Op::LOG, Op::SIN, Op::COS, Op::FLOOR, Op::CEIL, Op::ROUND, Op::ELU, Op::GELU}) {
    SCOPED_TRACE(tflite::EnumNameBuiltinOperator(op));
    CheckFloatUnaryErrors(Spec(op));
    ExpectTypeRejected(Spec(op), DataType::kBool, StatusCode::kInvalidArgument);
  }
}

TEST(UnaryOpsTest, QuantizedTypesAreUnsupported) {
  // TFLite has an 8-bit (quantized) LOG; not implemented yet. int8 ELU
  // (version 1) and int8/uint8 GELU are quantized/elu.cc and gelu.cc
  // (litert_golden_quantized_misc_test); TFLite has no uint8 ELU. ABS
  // int8/int16 is quantized/abs.cc; uint8 is no ABS type in TFLite.
  ExpectTypeRejected(Spec(Op::LOG, 2), DataType::kInt8, StatusCode::kUnimplemented);
  ExpectTypeRejected(Spec(Op::LOG, 2), DataType::kUInt8, StatusCode::kUnimplemented);
  const auto elu = RunUnary<uint8_t, uint8_t>(Spec(Op::ELU, 1), DataType::kUInt8, DataType::kUInt8, {1}, {1}, 1,
                                              Quantization{{0.5f}, {0}, 0});
  EXPECT_EQ(elu.build.code(), StatusCode::kUnimplemented) << elu.build.ToString();
  const auto r = RunUnary<uint8_t, uint8_t>(Spec(Op::ABS, 2), DataType::kUInt8, DataType::kUInt8, {1}, {1}, 1,
                                            Quantization{{0.5f}, {0}, 0});
  EXPECT_EQ(r.build.code(), StatusCode::kUnimplemented) << r.build.ToString();
  EXPECT_NE(r.build.message().find("ABS"), std::string::npos) << r.build.ToString();
  EXPECT_NE(r.build.message().find("uint8"), std::string::npos) << r.build.ToString();
}

TEST(UnaryOpsTest, IntegerOpsRejectOtherTypes) {
  ExpectTypeRejected(Spec(Op::ABS), DataType::kInt64, StatusCode::kInvalidArgument);
  ExpectTypeRejected(Spec(Op::ABS), DataType::kBool, StatusCode::kInvalidArgument);
  ExpectTypeRejected(Spec(Op::NEG), DataType::kBool, StatusCode::kInvalidArgument);
  ExpectTypeRejected(Spec(Op::SIGN), DataType::kInt64, StatusCode::kInvalidArgument);
  ExpectTypeRejected(Spec(Op::ZEROS_LIKE), DataType::kBool, StatusCode::kInvalidArgument);
  ExpectTypeRejected(Spec(Op::ZEROS_LIKE), DataType::kInt8, StatusCode::kUnimplemented);
  ExpectTypeRejected(Spec(Op::LOGICAL_NOT), DataType::kFloat32, StatusCode::kInvalidArgument);
  ExpectTypeRejected(Spec(Op::LOGICAL_NOT), DataType::kInt32, StatusCode::kInvalidArgument);
  ExpectShapeOfCallErrors(Spec(Op::ABS), DataType::kInt32);
  ExpectShapeOfCallErrors(Spec(Op::NEG), DataType::kInt64);
  ExpectShapeOfCallErrors(Spec(Op::SIGN), DataType::kInt32);
  ExpectShapeOfCallErrors(Spec(Op::ZEROS_LIKE), DataType::kInt32);
  ExpectShapeOfCallErrors(Spec(Op::LOGICAL_NOT), DataType::kBool);
}

TEST(UnaryOpsTest, VersionsBeyondTheRegisteredRange) {
  for (const auto& [op, max_version] :
       std::vector<std::pair<Op, int>>{{Op::ABS, 5}, {Op::NEG, 1}, {Op::SIGN, 2}, {Op::GELU, 2}, {Op::LOG, 2}}) {
    const auto r = RunUnary<float, float>(Spec(op, max_version + 1), DataType::kFloat32, DataType::kFloat32, {1}, {1});
    EXPECT_FALSE(r.build.ok()) << tflite::EnumNameBuiltinOperator(op);
  }
}

}  // namespace
}  // namespace relite
