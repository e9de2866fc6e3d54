// Helpers of the quantized elementwise op tests (ADD, SUB, MUL, QUANTIZE,
// RELU*, LEAKY_RELU, PRELU, CONCATENATION, data movement): one-op models
// whose tensors carry per-tensor quantization, seeded random data and the
// float value of a quantized element.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/single_op_model.h"

namespace relite::testing::qtest {

// A tensor of the op: dtype, shape and per-tensor quantization (scale 0 means
// none, for float tensors).
struct QTensor {
  DataType type;
  Shape shape;
  float scale = 0.0f;
  int64_t zero_point = 0;

  Quantization quant() const {
    Quantization q;
    if (scale > 0.0f) {
      q.scale = {scale};
      q.zero_point = {zero_point};
    }
    return q;
  }
};

using OptionsFn = std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>;

struct QOp {
  tflite::BuiltinOperator op;
  int version = 1;
  tflite::BuiltinOptions options_type = tflite::BuiltinOptions::NONE;
  OptionsFn options = nullptr;
};

template <typename Out>
struct QResult {
  Status build;
  Status invoke;
  Shape shape;
  std::vector<Out> out;
};

// Runs `op` on graph inputs `inputs` (raw element bytes per input) with one
// output `out`; `constants[i]` makes input i a constant instead.
template <typename Out>
QResult<Out> RunQuantizedOp(const QOp& op, const std::vector<QTensor>& inputs,
                            const std::vector<std::vector<uint8_t>>& data, const QTensor& out,
                            const std::vector<bool>& constants = {}, int threads = 1) {
  QResult<Out> r;
  SingleOpModel m;
  std::vector<int> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool is_const = i < constants.size() && constants[i];
    ids.push_back(is_const ? m.AddConstInputBytes(inputs[i].type, inputs[i].shape, data[i], inputs[i].quant())
                           : m.AddInput(inputs[i].type, inputs[i].shape, inputs[i].quant()));
  }
  const int io = m.AddOutput(out.type, out.shape, out.quant());
  m.SetBuiltinOp(op.op, op.version, op.options_type, op.options ? op.options(m.fbb()) : 0);
  r.build = m.Build(threads);
  if (!r.build.ok()) return r;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i < constants.size() && constants[i]) continue;
    if (!data[i].empty()) m.SetInput<uint8_t>(ids[i], data[i]);
  }
  r.invoke = m.Invoke();
  if (!r.invoke.ok()) return r;
  r.shape = m.GetOutputShape(io);
  r.out = m.GetOutput<Out>(io);
  return r;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
std::vector<T> RandomQ(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

inline int64_t Count(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

template <typename T>
DataType TypeOf() {
  if constexpr (std::is_same_v<T, uint8_t>) return DataType::kUInt8;
  if constexpr (std::is_same_v<T, int8_t>) return DataType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return DataType::kInt16;
  return DataType::kFloat32;
}

}  // namespace relite::testing::qtest
