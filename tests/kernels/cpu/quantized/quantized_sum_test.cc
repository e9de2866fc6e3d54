// Quantized SUM: XNNPACK's exact integer sum of the raw values,
// scaled in float with both zero points folded into one float bias, rounded
// half to even (src/kernels/cpu/internal/quantized_reduce.h).
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
std::vector<T> Reduce(tflite::BuiltinOperator op, DataType type, const Shape& shape, const std::vector<T>& x,
                      const std::vector<int32_t>& axes, bool keep_dims, Quantization in_q, Quantization out_q,
                      Shape* out_shape = nullptr) {
  SingleOpModel m;
  const int in = m.AddInput(type, shape, in_q);
  m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int out = m.AddOutput(type, {}, out_q);
  m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::ReducerOptions, tflite::CreateReducerOptions(m.fbb(), keep_dims).Union());
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<T>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  if (out_shape != nullptr) *out_shape = m.GetOutputShape(out);
  return m.GetOutput<T>(out);
}

TEST(QuantizedSum, RescalesTheExactSum) {
  // in scale 0.5, zp 1; out scale 2, zp -3: scale 0.25, bias -3 - 4 * 0.25 = -4;
  // raw sum 18 -> 18 * 0.25 - 4 = 0.5 -> 0 (half to even).
  const std::vector<int8_t> x = {4, 5, 6, 3};
  EXPECT_EQ(Reduce<int8_t>(tflite::BuiltinOperator::SUM, DataType::kInt8, {1, 4}, x, {1}, true, Quant(0.5f, 1),
                           Quant(2.f, -3)),
            (std::vector<int8_t>{0}));
  // Saturation: 255 * 4 values at scale 1 into scale 1 -> 1020, clamped.
  const std::vector<uint8_t> u = {255, 255, 255, 255};
  EXPECT_EQ(Reduce<uint8_t>(tflite::BuiltinOperator::SUM, DataType::kUInt8, {4}, u, {0}, false, Quant(1.f, 0),
                            Quant(1.f, 0)),
            (std::vector<uint8_t>{255}));
}

}  // namespace
}  // namespace relite
