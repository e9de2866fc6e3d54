// Runs a one-input quantized elementwise op over every 8-bit value.
#pragma once

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_op_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite::testing {

// Output for every input value lo..lo+255 (lo = 0 for uint8, -128 for int8).
template <typename T>
std::vector<int> RunOverAllValues(tflite::BuiltinOperator op, float in_scale, int in_zp, float out_scale, int out_zp) {
  const DataType type = sizeof(T) == 1 && static_cast<T>(-1) < 0 ? DataType::kInt8 : DataType::kUInt8;
  SingleOpModel m;
  const int in = m.AddInput(type, {256}, Quant(in_scale, in_zp));
  const int out = m.AddOutput(type, {}, Quant(out_scale, out_zp));
  m.SetBuiltinOp(op, 1);
  EXPECT_TRUE(m.Build().ok());
  const int lo = type == DataType::kInt8 ? -128 : 0;
  std::vector<T> x(256);
  for (int i = 0; i < 256; ++i) x[static_cast<size_t>(i)] = static_cast<T>(lo + i);
  m.SetInput<T>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  std::vector<int> y;
  for (T v : m.GetOutput<T>(out)) y.push_back(v);
  return y;
}

// int16 (zero points 0): output for every input value -32768..32767, or
// an empty vector when the model does not build (`status` says why).
inline std::vector<int> RunInt16OverAllValues(tflite::BuiltinOperator op, int version, float in_scale,
                                              float out_scale, Status* status = nullptr) {
  SingleOpModel m;
  const int in = m.AddInput(DataType::kInt16, {65536}, Quant(in_scale, 0));
  const int out = m.AddOutput(DataType::kInt16, {}, Quant(out_scale, 0));
  m.SetBuiltinOp(op, version);
  const Status built = m.Build();
  if (status != nullptr) *status = built;
  if (!built.ok()) return {};
  std::vector<int16_t> x(65536);
  for (int i = 0; i < 65536; ++i) x[static_cast<size_t>(i)] = static_cast<int16_t>(i - 32768);
  m.SetInput<int16_t>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  std::vector<int> y;
  for (int16_t v : m.GetOutput<int16_t>(out)) y.push_back(v);
  return y;
}

}  // namespace relite::testing
