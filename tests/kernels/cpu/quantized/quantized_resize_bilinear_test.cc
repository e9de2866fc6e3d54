// Quantized RESIZE_BILINEAR: XNNPACK's 11-bit fixed-point interpolation.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_op_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::Quant;
using testing::SingleOpModel;

template <typename T>
std::vector<T> Resize(DataType type, const Shape& shape, const std::vector<T>& x, int out_h, int out_w,
                      bool align_corners, bool half_pixel) {
  SingleOpModel m;
  const int in = m.AddInput(type, shape, Quant(0.1f, 0));
  m.AddConstInput<int32_t>(DataType::kInt32, {2}, {out_h, out_w});
  const int out = m.AddOutput(type, {}, Quant(0.1f, 0));
  m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_BILINEAR, 3, tflite::BuiltinOptions::ResizeBilinearOptions,
                 tflite::CreateResizeBilinearOptions(m.fbb(), align_corners, half_pixel).Union());
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<T>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<T>(out);
}

TEST(QuantizedResizeBilinear, MidpointsRoundHalfUp) {
  // align_corners, 2 -> 3 columns: weight 1024/2048 in the middle.
  // uint8 (0 + 255) / 2 = 127.5 -> 128; int8 (-128 + 127) / 2 = -0.5 -> 0:
  // ((top << 11) + 2^21) >> 22 rounds halves up.
  EXPECT_EQ(Resize<uint8_t>(DataType::kUInt8, {1, 1, 2, 1}, {0, 255}, 1, 3, true, false),
            (std::vector<uint8_t>{0, 128, 255}));
  EXPECT_EQ(Resize<int8_t>(DataType::kInt8, {1, 1, 2, 1}, {-128, 127}, 1, 3, true, false),
            (std::vector<int8_t>{-128, 0, 127}));
  // Legacy (neither flag), 2 -> 4: sources 0, 0.5, 1, 1.5 (clamped to column 1).
  EXPECT_EQ(Resize<uint8_t>(DataType::kUInt8, {1, 1, 2, 1}, {10, 21}, 1, 4, false, false),
            (std::vector<uint8_t>{10, 16, 21, 21}));
  // Half-pixel, 2 -> 4: sources -0.25 (clamped to 0), 0.25, 0.75, 1.25 (-> 1).
  // 10 + 11 * 0.25 = 12.75 -> 13; 10 + 11 * 0.75 = 18.25 -> 18.
  EXPECT_EQ(Resize<uint8_t>(DataType::kUInt8, {1, 1, 2, 1}, {10, 21}, 1, 4, false, true),
            (std::vector<uint8_t>{10, 13, 18, 21}));
}

TEST(QuantizedResizeBilinear, MatchesFloatWithinOneStep) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> d(0, 255);
  const int H = 5, W = 7, C = 3, OH = 13, OW = 9;
  std::vector<uint8_t> x(H * W * C);
  for (auto& v : x) v = static_cast<uint8_t>(d(rng));
  const auto y = Resize<uint8_t>(DataType::kUInt8, {1, H, W, C}, x, OH, OW, false, true);
  auto src = [](int o, int in, int out) {
    const double s = (o + 0.5) * in / out - 0.5;
    return std::min<double>(std::max(s, 0.0), in - 1);
  };
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int c = 0; c < C; ++c) {
        const double sy = src(oy, H, OH), sx = src(ox, W, OW);
        const int y0 = static_cast<int>(sy), x0 = static_cast<int>(sx);
        const int y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
        const double ay = sy - y0, ax = sx - x0;
        auto at = [&](int yy, int xx) { return static_cast<double>(x[(yy * W + xx) * C + c]); };
        const double want = (1 - ay) * ((1 - ax) * at(y0, x0) + ax * at(y0, x1)) +
                            ay * ((1 - ax) * at(y1, x0) + ax * at(y1, x1));
        EXPECT_LE(std::fabs(y[(oy * OW + ox) * C + c] - want), 1.0) << oy << " " << ox << " " << c;
      }
}

}  // namespace
}  // namespace relite
