// QUANTIZE: float32 -> uint8/int8/int16 (x * (1 / scale), half to even) and
// integer requantization (XNNPACK's 8-bit convert, TFLite's Requantize).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing::qtest;  // NOLINT

const QOp kQuantize{tflite::BuiltinOperator::QUANTIZE, 2, tflite::BuiltinOptions::NONE, nullptr};

template <typename Out, typename In>
std::vector<Out> RunQ(const QTensor& in, const std::vector<In>& x, const QTensor& out) {
  const auto r = RunQuantizedOp<Out>(kQuantize, {in}, {Bytes(x)}, out);
  EXPECT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.shape, in.shape);
  return r.out;
}

TEST(QuantizeTest, FloatToInt8RoundsHalvesToEvenAndSaturates) {
  // scale 0.5: x * 2 = 0.5, 1.5, 2.5, -0.5, -1.5 are exact halves.
  const QTensor in{DataType::kFloat32, {9}};
  const QTensor out{DataType::kInt8, {9}, 0.5f, -1};
  const std::vector<float> x = {0.25f, 0.75f, 1.25f, -0.25f, -0.75f, 1000.0f, -1000.0f, 0.26f, -0.0f};
  // round_half_even(2x) - 1: 0, 2, 2, 0, -2 -> -1, 1, 1, -1, -3; then saturation.
  EXPECT_EQ(RunQ<int8_t>(in, x, out), (std::vector<int8_t>{-1, 1, 1, -1, -3, 127, -128, 0, -1}));
}

TEST(QuantizeTest, FloatToUint8AndInt16) {
  const QTensor in{DataType::kFloat32, {5}};
  EXPECT_EQ(RunQ<uint8_t>(in, std::vector<float>{0.0f, 0.1f, -1.0f, 25.5f, 12.25f}, QTensor{DataType::kUInt8, {5}, 0.1f, 10}),
            (std::vector<uint8_t>{10, 11, 0, 255, 132}));
  EXPECT_EQ(RunQ<int16_t>(in, std::vector<float>{0.0f, 1.5f, 2.5f, -2.5f, 5000.0f}, QTensor{DataType::kInt16, {5}, 0.125f, 0}),
            (std::vector<int16_t>{0, 12, 20, -20, 32767}));
}

TEST(QuantizeTest, Uint8ToInt8WithTheSameScaleShiftsBy128) {
  const QTensor in{DataType::kUInt8, {5}, 0.02f, 128};
  const QTensor out{DataType::kInt8, {5}, 0.02f, 0};
  EXPECT_EQ(RunQ<int8_t>(in, std::vector<uint8_t>{0, 1, 127, 128, 255}, out), (std::vector<int8_t>{-128, -127, -1, 0, 127}));
  EXPECT_EQ(RunQ<uint8_t>(out, std::vector<int8_t>{-128, -127, -1, 0, 127}, in), (std::vector<uint8_t>{0, 1, 127, 128, 255}));
}

TEST(QuantizeTest, SameScaleFlipsTheTopBitOverWholeBlocks) {
  // 300 values: every byte in the blocks of 16 (the vectorised bit flip or
  // copy) and in the scalar tail.
  std::vector<uint8_t> u(300);
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<uint8_t>(i * 7 + 3);
  const QTensor in{DataType::kUInt8, {300}, 0.0078431377f, 127};
  const QTensor out{DataType::kInt8, {300}, 0.0078431377f, -1};
  std::vector<int8_t> want;
  for (uint8_t v : u) want.push_back(static_cast<int8_t>(static_cast<int32_t>(v) - 128));
  EXPECT_EQ(RunQ<int8_t>(in, u, out), want);
  EXPECT_EQ(RunQ<uint8_t>(out, want, in), u);
  // Same type and parameters: a copy.
  const QTensor same{DataType::kUInt8, {300}, 0.5f, 3};
  EXPECT_EQ(RunQ<uint8_t>(same, u, same), u);
}

TEST(QuantizeTest, XnnpackConvertArithmetic) {
  // int8 -> int8, ratio 0.75: multiplier round(256 * 0.75) = 192,
  // out = ((x - 2) * 192 + 256 * -3 + 128) >> 8 (arithmetic shift).
  const QTensor in{DataType::kInt8, {6}, 0.75f, 2};
  const QTensor out{DataType::kInt8, {6}, 1.0f, -3};
  const std::vector<int8_t> x = {2, 4, 0, 127, -128, 3};
  std::vector<int8_t> want;
  for (int8_t v : x) {
    const int32_t r = ((static_cast<int32_t>(v) - 2) * 192 + 256 * -3 + 128) >> 8;
    want.push_back(static_cast<int8_t>(std::min(127, std::max(-128, r))));
  }
  EXPECT_EQ(want, (std::vector<int8_t>{-3, -1, -4, 91, -100, -2}));  // 1.5 - 3 rounds up to -1
  EXPECT_EQ(RunQ<int8_t>(in, x, out), want);
}

TEST(QuantizeTest, TfliteRequantizeRoundsTheShiftHalfUpInBlocksOf16) {
  // int8 -> uint8, ratio 0.25 = Q31 2^30 with shift -1: the doubling high
  // multiply gives x / 2 rounded, then a rounding shift by one. In TFLite's
  // blocks of 16 that shift rounds halves up (-2 -> -0.5 -> 0, -6 -> -1.5 -> -1);
  // the last n % 16 elements round them away from zero (-1, -2).
  const QTensor in{DataType::kInt8, {18}, 0.25f, 0};
  const QTensor out{DataType::kUInt8, {18}, 1.0f, 100};
  // (Filled by index: GCC 12 warns falsely on resize() after an initializer list.)
  std::vector<int8_t> x(18, 0);
  std::vector<uint8_t> want(18, 100);
  const int8_t head_x[] = {-2, -6, 2, 6, 127, -128};
  const uint8_t head_want[] = {100, 99, 101, 102, 132, 68};
  for (size_t i = 0; i < 6; ++i) x[i] = head_x[i], want[i] = head_want[i];
  x[16] = -2, x[17] = -6;
  want[16] = 99, want[17] = 98;
  EXPECT_EQ(RunQ<uint8_t>(in, x, out), want);
}

TEST(QuantizeTest, FloatToInt16TailRoundsHalvesAwayFromZero) {
  // Blocks of 8 round x * (1 / scale) half to even, the rest x / scale half away.
  const QTensor in{DataType::kFloat32, {10}};
  const std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 3.0f, 0.0f, 1.0f, 2.5f, -0.5f};
  EXPECT_EQ(RunQ<int16_t>(in, x, QTensor{DataType::kInt16, {10}, 1.0f, 0}),
            (std::vector<int16_t>{0, 2, 2, 0, -2, 3, 0, 1, 3, -1}));
}

TEST(QuantizeTest, Int16RequantizeRoundsHalvesAwayFromZero) {
  const QTensor in{DataType::kInt16, {4}, 0.25f, 0};
  const QTensor out{DataType::kInt8, {4}, 1.0f, 0};
  EXPECT_EQ(RunQ<int8_t>(in, std::vector<int16_t>{-2, -6, 2, 30000}, out), (std::vector<int8_t>{-1, -2, 1, 127}));
}

TEST(QuantizeTest, RandomRequantizationIsWithinOneStep) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> log_scale(-3.0f, 0.0f);
  for (int iter = 0; iter < 60; ++iter) {
    const float si = std::pow(10.0f, log_scale(rng)), so = std::pow(10.0f, log_scale(rng));
    const bool to_int8 = iter % 2 == 0;
    const QTensor in{DataType::kUInt8, {64}, si, static_cast<int64_t>(rng() % 256)};
    const QTensor out{to_int8 ? DataType::kInt8 : DataType::kUInt8, {64}, so,
                      to_int8 ? static_cast<int64_t>(rng() % 256) - 128 : static_cast<int64_t>(rng() % 256)};
    const auto x = RandomQ<uint8_t>(64, rng);
    const double lo = to_int8 ? -128 : 0, hi = to_int8 ? 127 : 255;
    std::vector<double> got;
    if (to_int8) {
      for (int8_t v : RunQ<int8_t>(in, x, out)) got.push_back(v);
    } else {
      for (uint8_t v : RunQ<uint8_t>(in, x, out)) got.push_back(v);
    }
    ASSERT_EQ(got.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double real = si * (static_cast<double>(x[i]) - static_cast<double>(in.zero_point));
      const double want = std::min(hi, std::max(lo, std::round(real / so) + static_cast<double>(out.zero_point)));
      ASSERT_LE(std::fabs(got[i] - want), 1.0) << iter << " " << i;
    }
  }
}

TEST(QuantizeTest, MissingOutputQuantizationIsAnError) {
  const auto r = RunQuantizedOp<int8_t>(kQuantize, {QTensor{DataType::kFloat32, {2}}},
                                        {Bytes(std::vector<float>{1.0f, 2.0f})}, QTensor{DataType::kInt8, {2}});
  EXPECT_FALSE(r.build.ok() && r.invoke.ok());
}

}  // namespace
}  // namespace relite
