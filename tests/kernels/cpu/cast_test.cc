#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kCast{tflite::BuiltinOperator::CAST, 1, tflite::BuiltinOptions::NONE, nullptr};

template <typename Out, typename In>
std::vector<Out> Cast(DataType from, DataType to, const std::vector<In>& x, int threads = 1) {
  const auto r = RunUnary<Out, In>(kCast, from, to, {static_cast<int32_t>(x.size())}, x, threads);
  EXPECT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  return r.out;
}

TEST(CastTest, FloatToIntegersTruncatesTowardZero) {
  const std::vector<float> x = {0.0f, -0.0f, 1.9f, -1.9f, 2.5f, -2.5f, 100.99f, -100.99f, 16777216.0f};
  EXPECT_EQ((Cast<int32_t>(DataType::kFloat32, DataType::kInt32, x)),
            (std::vector<int32_t>{0, 0, 1, -1, 2, -2, 100, -100, 16777216}));
  EXPECT_EQ((Cast<int64_t>(DataType::kFloat32, DataType::kInt64, x)),
            (std::vector<int64_t>{0, 0, 1, -1, 2, -2, 100, -100, 16777216}));
  EXPECT_EQ((Cast<int16_t>(DataType::kFloat32, DataType::kInt16, std::vector<float>{1.9f, -1.9f, 300.5f})),
            (std::vector<int16_t>{1, -1, 300}));
  EXPECT_EQ((Cast<uint8_t>(DataType::kFloat32, DataType::kUInt8, std::vector<float>{0.5f, 1.9f, 254.9f})),
            (std::vector<uint8_t>{0, 1, 254}));
}

TEST(CastTest, FloatToIntegerSaturatesAndMapsNanToZero) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {3e9f, -3e9f, kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), 2147483520.0f};
  EXPECT_EQ((Cast<int32_t>(DataType::kFloat32, DataType::kInt32, x)),
            (std::vector<int32_t>{INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, 0, 2147483520}));
  EXPECT_EQ((Cast<int8_t>(DataType::kFloat32, DataType::kInt8, std::vector<float>{200.0f, -200.0f, -128.5f, 127.9f})),
            (std::vector<int8_t>{127, -128, -128, 127}));
  EXPECT_EQ((Cast<uint8_t>(DataType::kFloat32, DataType::kUInt8, std::vector<float>{-1.0f, 256.0f, 255.5f})),
            (std::vector<uint8_t>{0, 255, 255}));
}

TEST(CastTest, IntegerConversions) {
  EXPECT_EQ((Cast<float>(DataType::kInt32, DataType::kFloat32, std::vector<int32_t>{-7, 0, 123456, INT32_MIN})),
            (std::vector<float>{-7.0f, 0.0f, 123456.0f, -2147483648.0f}));
  // Narrowing wraps (two's complement), as static_cast does.
  EXPECT_EQ((Cast<int32_t>(DataType::kInt64, DataType::kInt32, std::vector<int64_t>{(1LL << 32) + 5, -1, 1LL << 31})),
            (std::vector<int32_t>{5, -1, INT32_MIN}));
  EXPECT_EQ((Cast<int8_t>(DataType::kUInt8, DataType::kInt8, std::vector<uint8_t>{0, 127, 128, 255})),
            (std::vector<int8_t>{0, 127, -128, -1}));
  EXPECT_EQ((Cast<int64_t>(DataType::kInt32, DataType::kInt64, std::vector<int32_t>{INT32_MIN, -1, INT32_MAX})),
            (std::vector<int64_t>{INT32_MIN, -1, INT32_MAX}));
  EXPECT_EQ((Cast<uint8_t>(DataType::kInt16, DataType::kUInt8, std::vector<int16_t>{-1, 256, 300})),
            (std::vector<uint8_t>{255, 0, 44}));
  EXPECT_EQ((Cast<double>(DataType::kInt64, DataType::kFloat64, std::vector<int64_t>{-3, 1LL << 40})),
            (std::vector<double>{-3.0, 1099511627776.0}));
}

TEST(CastTest, Bool) {
  EXPECT_EQ((Cast<uint8_t>(DataType::kFloat32, DataType::kBool,
                           std::vector<float>{0.0f, -0.0f, 0.1f, -3.0f, std::numeric_limits<float>::quiet_NaN()})),
            (std::vector<uint8_t>{0, 0, 1, 1, 1}));
  EXPECT_EQ((Cast<uint8_t>(DataType::kInt32, DataType::kBool, std::vector<int32_t>{0, 1, -1, 256})),
            (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ((Cast<float>(DataType::kBool, DataType::kFloat32, std::vector<uint8_t>{0, 1, 1, 0})),
            (std::vector<float>{0.0f, 1.0f, 1.0f, 0.0f}));
  EXPECT_EQ((Cast<int32_t>(DataType::kBool, DataType::kInt32, std::vector<uint8_t>{0, 1})), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ((Cast<uint8_t>(DataType::kBool, DataType::kBool, std::vector<uint8_t>{0, 1})), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ((Cast<uint16_t>(DataType::kBool, DataType::kFloat16, std::vector<uint8_t>{0, 1})),
            (std::vector<uint16_t>{0x0000, 0x3c00}));
}

// Every half value, through float32 and back.
TEST(CastTest, Float16ToFloat32AllValues) {
  std::vector<uint16_t> halves(65536);
  for (size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<uint16_t>(i);
  const auto got = Cast<float>(DataType::kFloat16, DataType::kFloat32, halves, 2);
  ASSERT_EQ(got.size(), halves.size());
  for (size_t i = 0; i < halves.size(); ++i) {
    const double want = reference::HalfToDouble(halves[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << std::hex << i;
    } else {
      EXPECT_EQ(static_cast<double>(got[i]), want) << std::hex << i;
      EXPECT_EQ(std::signbit(got[i]), (halves[i] & 0x8000) != 0) << std::hex << i;
    }
  }
  const auto back = Cast<uint16_t>(DataType::kFloat32, DataType::kFloat16, got, 2);
  for (size_t i = 0; i < halves.size(); ++i) {
    const bool nan = (halves[i] & 0x7c00) == 0x7c00 && (halves[i] & 0x3ff) != 0;
    if (nan) {
      EXPECT_TRUE((back[i] & 0x7c00) == 0x7c00 && (back[i] & 0x3ff) != 0) << std::hex << i;
    } else {
      EXPECT_EQ(back[i], halves[i]) << std::hex << i;
    }
  }
}

TEST(CastTest, Float32ToFloat16Rounding) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.0f,     -0.0f,   1.0f,         65504.0f,   65519.99f,  65520.0f,   -65520.0f, 1e6f,
                          kInf,     -kInf,   6.1035156e-5f, 6.0e-5f,   5.9604645e-8f, 2.9802322e-8f, 2.98023259e-8f,
                          1e-8f,    1e-30f,  -3.1e-5f,     1.00048828125f, 1.00146484375f, 2049.0f, 2051.0f, 0.1f, -0.3f};
  std::mt19937 rng(91);
  for (float v : RandomValues<float>(500, rng, -70000, 70000)) x.push_back(v);
  for (float v : RandomValues<float>(500, rng, -1e-4, 1e-4)) x.push_back(v);
  const auto got = Cast<uint16_t>(DataType::kFloat32, DataType::kFloat16, x);
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(got[i], reference::DoubleToHalf(x[i])) << "x = " << x[i];
  }
  const auto nan = Cast<uint16_t>(DataType::kFloat32, DataType::kFloat16,
                                  std::vector<float>{std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE((nan[0] & 0x7c00) == 0x7c00 && (nan[0] & 0x3ff) != 0);
}

TEST(CastTest, SameTypeCopiesAndShapes) {
  std::mt19937 rng(92);
  const auto x = RandomValues<float>(3 * 4 * 5, rng, -100, 100);
  const auto r = RunUnary<float, float>(kCast, DataType::kFloat32, DataType::kFloat32, {3, 4, 5}, x);
  ASSERT_TRUE(r.invoke.ok());
  EXPECT_EQ(r.out, x);
  EXPECT_EQ(r.shape, (Shape{3, 4, 5}));
  const auto scalar = RunUnary<int32_t, float>(kCast, DataType::kFloat32, DataType::kInt32, {}, std::vector<float>{-4.5f});
  ASSERT_TRUE(scalar.invoke.ok());
  EXPECT_EQ(scalar.shape, Shape{});
  EXPECT_EQ(scalar.out, std::vector<int32_t>{-4});
}

TEST(CastTest, ThreadedLarge) {
  std::mt19937 rng(93);
  const auto x = RandomValues<float>(300007, rng, -1e6, 1e6);
  const auto got = Cast<int32_t>(DataType::kFloat32, DataType::kInt32, x, 4);
  EXPECT_EQ(got, reference::Unary<int32_t>(x, [](float v) { return static_cast<int32_t>(v); }));
}

TEST(CastTest, Errors) {
  {
    const auto r = RunUnary<uint8_t, float>(kCast, DataType::kFloat32, DataType::kString, {2}, std::vector<float>{1, 2});
    EXPECT_EQ(r.build.code(), StatusCode::kUnimplemented) << r.build.ToString();
  }
  {
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, {2});
    m.AddInput(DataType::kFloat32, {2});
    m.AddOutput(DataType::kInt32);
    m.SetBuiltinOp(tflite::BuiltinOperator::CAST, 1);
    EXPECT_FALSE(m.Build().ok());
  }
}

}  // namespace
}  // namespace relite
