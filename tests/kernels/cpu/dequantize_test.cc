#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kDequantize{tflite::BuiltinOperator::DEQUANTIZE, 1, tflite::BuiltinOptions::NONE, nullptr};

TEST(DequantizeTest, Float16AllValues) {
  std::vector<uint16_t> halves(65536);
  for (size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<uint16_t>(i);
  for (bool constant : {false, true}) {
    const auto r = RunUnary<float, uint16_t>(kDequantize, DataType::kFloat16, DataType::kFloat32, {256, 256}, halves, 2,
                                             {}, constant);
    ASSERT_TRUE(r.build.ok()) << r.build.ToString();
    ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
    EXPECT_EQ(r.shape, (Shape{256, 256}));
    ASSERT_EQ(r.out.size(), halves.size());
    for (size_t i = 0; i < halves.size(); ++i) {
      const double want = reference::HalfToDouble(halves[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(r.out[i])) << std::hex << i;
      } else {
        EXPECT_EQ(static_cast<double>(r.out[i]), want) << std::hex << i;
        EXPECT_EQ(std::signbit(r.out[i]), (halves[i] & 0x8000) != 0) << std::hex << i;
      }
    }
  }
}

TEST(DequantizeTest, Float16SpecialValuesOddLength) {
  // 13 values: the last five take the scalar tail of the vector loop.
  const std::vector<uint16_t> halves = {0x7e00, 0x7c01, 0xfe00, 0x3555, 0x0400, 0x3c00, 0x7bff, 0x7c00,
                                        0x0000, 0x8000, 0x0001, 0x83ff, 0xfc00};
  const auto r = RunUnary<float, uint16_t>(kDequantize, DataType::kFloat16, DataType::kFloat32, {13}, halves);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  for (size_t i = 0; i < halves.size(); ++i) {
    const double want = reference::HalfToDouble(halves[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(r.out[i])) << i;
    } else {
      EXPECT_EQ(static_cast<double>(r.out[i]), want) << i;
      EXPECT_EQ(std::signbit(r.out[i]), (halves[i] & 0x8000) != 0) << i;
    }
  }
}

template <typename Q>
void CheckQuantized(DataType type, const Shape& shape, const Quantization& q, uint32_t seed, int threads = 1,
                    bool constant = false) {
  std::mt19937 rng(seed);
  const auto x = RandomValues<Q>(static_cast<size_t>(Elements(shape)), rng, std::numeric_limits<Q>::lowest(),
                                 std::numeric_limits<Q>::max());
  const auto r = RunUnary<float, Q>(kDequantize, type, DataType::kFloat32, shape, x, threads, q, constant);
  const std::string what = DataTypeName(type) + " " + ShapeStr(shape) + " channels " + std::to_string(q.scale.size());
  ASSERT_TRUE(r.build.ok()) << what << ": " << r.build.ToString();
  ASSERT_TRUE(r.invoke.ok()) << what << ": " << r.invoke.ToString();
  EXPECT_EQ(r.shape, shape) << what;
  ExpectFloatsNear(r.out, reference::Dequantize(shape, x, q.scale, q.zero_point, q.quantized_dimension), what, 1e-6,
                   0);
}

TEST(DequantizeTest, PerTensor) {
  CheckQuantized<int8_t>(DataType::kInt8, {2, 3, 5}, {{0.05f}, {-3}, 0}, 100);
  CheckQuantized<uint8_t>(DataType::kUInt8, {7, 11}, {{0.2f}, {128}, 0}, 101);
  CheckQuantized<int16_t>(DataType::kInt16, {100}, {{0.001f}, {0}, 0}, 102);
  CheckQuantized<int8_t>(DataType::kInt8, {}, {{2.0f}, {1}, 0}, 103);
  CheckQuantized<int8_t>(DataType::kInt8, {3, 50, 1001}, {{0.5f}, {7}, 0}, 104, 4);
  CheckQuantized<int8_t>(DataType::kInt8, {4, 9}, {{0.5f}, {7}, 0}, 105, 1, /*constant=*/true);
}

TEST(DequantizeTest, PerChannel) {
  const Quantization axis0{{0.1f, 0.2f, 0.3f}, {0, 1, -2}, 0};
  CheckQuantized<int8_t>(DataType::kInt8, {3, 2, 2, 4}, axis0, 110);
  const Quantization axis1{{0.1f, 0.2f, 0.3f, 0.4f, 0.5f}, {0, 0, 0, 0, 0}, 1};
  CheckQuantized<int8_t>(DataType::kInt8, {2, 5, 7}, axis1, 111);
  const Quantization last{{0.1f, 0.2f, 0.3f, 0.4f}, {1, 2, 3, 4}, 3};
  CheckQuantized<int8_t>(DataType::kInt8, {1, 3, 3, 4}, last, 112);
  CheckQuantized<uint8_t>(DataType::kUInt8, {1, 300, 301, 4}, {{0.1f, 0.2f, 0.3f, 0.4f}, {100, 120, 128, 0}, 3}, 113,
                          4);
  CheckQuantized<int8_t>(DataType::kInt8, {3, 400, 200}, {{0.1f, 0.2f, 0.3f}, {0, 0, 0}, 0}, 114, 4);
  CheckQuantized<int16_t>(DataType::kInt16, {6, 5}, {{0.1f, 0.2f, 0.3f, 0.4f, 0.5f}, {0, 0, 0, 0, 0}, 1}, 115);
}

TEST(DequantizeTest, Errors) {
  {
    const auto r = RunUnary<float, int8_t>(kDequantize, DataType::kInt8, DataType::kFloat32, {3}, std::vector<int8_t>{1, 2, 3});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "no quantization: " << r.build.ToString();
  }
  {
    const auto r = RunUnary<float, int8_t>(kDequantize, DataType::kInt8, DataType::kFloat32, {2, 3},
                                           std::vector<int8_t>{1, 2, 3, 4, 5, 6}, 1, {{0.1f, 0.2f}, {0, 0}, 1});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "scale count: " << r.build.ToString();
  }
  {
    const auto r = RunUnary<float, int8_t>(kDequantize, DataType::kInt8, DataType::kFloat32, {2, 3},
                                           std::vector<int8_t>{1, 2, 3, 4, 5, 6}, 1, {{0.1f, 0.2f}, {0, 0}, 5});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "axis: " << r.build.ToString();
  }
  {
    const auto r = RunUnary<int32_t, int8_t>(kDequantize, DataType::kInt8, DataType::kInt32, {3}, std::vector<int8_t>{1, 2, 3},
                                             1, {{0.1f}, {0}, 0});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "int32 output: " << r.build.ToString();
  }
  {
    const auto r = RunUnary<float, int32_t>(kDequantize, DataType::kInt32, DataType::kFloat32, {3},
                                            std::vector<int32_t>{1, 2, 3}, 1, {{0.1f}, {0}, 0});
    EXPECT_EQ(r.build.code(), StatusCode::kUnimplemented) << "int32 input: " << r.build.ToString();
  }
}

}  // namespace
}  // namespace relite
