// RESIZE_NEAREST_NEIGHBOR on quantized tensors: the generic kernel copies raw
// values (TFLite requires equal input and output quantization; no
// rescaling), for uint8, int8 and int16 alike.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_op_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::Quant;
using testing::SingleOpModel;

template <typename T>
std::vector<T> Resize(DataType type, const std::vector<T>& x, bool align_corners, bool half_pixel) {
  SingleOpModel m;
  const int in = m.AddInput(type, {1, 2, 2, 1}, Quant(0.5f, 0));
  m.AddConstInput<int32_t>(DataType::kInt32, {2}, {3, 3});
  const int out = m.AddOutput(type, {}, Quant(0.5f, 0));
  m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, 3,
                 tflite::BuiltinOptions::ResizeNearestNeighborOptions,
                 tflite::CreateResizeNearestNeighborOptions(m.fbb(), align_corners, half_pixel).Union());
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<T>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<T>(out);
}

TEST(QuantizedResizeNearestNeighbor, CopiesRawValues) {
  // 2 -> 3, legacy: source index floor(o * 2 / 3) = 0, 0, 1.
  EXPECT_EQ(Resize<uint8_t>(DataType::kUInt8, {1, 200, 3, 255}, false, false),
            (std::vector<uint8_t>{1, 1, 200, 1, 1, 200, 3, 3, 255}));
  // align_corners: round(o * 1 / 2) = 0, 1 (0.5 rounds away), 1.
  EXPECT_EQ(Resize<int8_t>(DataType::kInt8, {-128, 5, -3, 127}, true, false),
            (std::vector<int8_t>{-128, 5, 5, -3, 127, 127, -3, 127, 127}));
  // half_pixel: floor((o + 0.5) * 2 / 3) = 0, 1, 1.
  EXPECT_EQ(Resize<int16_t>(DataType::kInt16, {-30000, 7, 8, 30000}, false, true),
            (std::vector<int16_t>{-30000, 7, 7, 8, 30000, 30000, 8, 30000, 30000}));
}

}  // namespace
}  // namespace relite
