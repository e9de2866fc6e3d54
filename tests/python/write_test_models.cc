// relite_python_test_models DIR: the small models the Python suite needs and
// the real ones do not provide: a SignatureDef, a free (-1) dimension, and a
// dynamic-range model (int8 weights feeding float ops).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "relite/model_writer.h"

namespace {

// x, y [-1,4] float32 -> ADD -> sum, signature "serving_default" (x, y -> sum).
relite::Status WriteSignatureAdd(const std::string& path) {
  relite::ModelWriter m("relite python test: ADD with a signature and a free batch dimension");
  const int x = m.AddTensor(relite::DataType::kFloat32, {1, 4}, "x");
  const int y = m.AddTensor(relite::DataType::kFloat32, {1, 4}, "y");
  const int sum = m.AddTensor(relite::DataType::kFloat32, {1, 4}, "sum");
  m.AddOp(relite::BuiltinOp::kAdd, {x, y}, {sum}, relite::writer::ArithmeticOptions{});
  for (int t : {x, y, sum}) m.SetShapeSignature(t, {-1, 4});
  m.SetInputs({x, y});
  m.SetOutputs({sum});
  m.AddSignature("serving_default", {{"x", x}, {"y", y}}, {{"sum", sum}});
  return m.WriteFile(path);
}

// Post-training dynamic-range quantization as TFLite's converter writes it:
// float activations, int8 weights (symmetric, zero point 0), float biases.
//   x [1,8,8,6] -> CONV_2D 3x3 SAME, 10 filters, weights per channel (axis 0) -> conv
//   v [2,40]    -> FULLY_CONNECTED, 7 units, weights per tensor           -> fc
// One op per output, so the error of LiteRT's hybrid kernels (which quantize
// the input to int8 per batch) has a simple bound (tests/python).
relite::Status WriteDynamicRange(const std::string& path) {
  std::mt19937 rng(2026);
  relite::ModelWriter m("relite python test: dynamic-range CONV_2D and FULLY_CONNECTED");
  auto weights = [&](const relite::Shape& shape, bool per_channel, const std::string& name) {
    const int channels = shape[0];
    int64_t n = 1;
    for (int32_t d : shape) n *= d;
    relite::Quantization q;
    q.quantized_dimension = 0;
    for (int c = 0; c < (per_channel ? channels : 1); ++c) {
      q.scale.push_back(std::uniform_real_distribution<float>(0.5f, 2.f)(rng) / (127.f * std::sqrt(n / channels)));
      q.zero_point.push_back(0);
    }
    std::vector<int8_t> codes(static_cast<size_t>(n));
    for (int8_t& v : codes) v = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
    return m.AddConstantOf<int8_t>(shape, name, codes, q);
  };
  auto bias = [&](int n, const std::string& name) {
    std::vector<float> b(static_cast<size_t>(n));
    for (float& v : b) v = std::uniform_real_distribution<float>(-0.2f, 0.2f)(rng);
    return m.AddConstantOf<float>({n}, name, b);
  };
  const int x = m.AddTensor(relite::DataType::kFloat32, {1, 8, 8, 6}, "x");
  const int conv = m.AddTensor(relite::DataType::kFloat32, {1, 8, 8, 10}, "conv");
  const int cw = weights({10, 3, 3, 6}, true, "conv/filter");
  const int cb = bias(10, "conv/bias");
  m.AddOp(relite::BuiltinOp::kConv2D, {x, cw, cb}, {conv}, relite::writer::Conv2DOptions{});
  const int v = m.AddTensor(relite::DataType::kFloat32, {2, 40}, "v");
  const int fc = m.AddTensor(relite::DataType::kFloat32, {2, 7}, "fc");
  const int fw = weights({7, 40}, false, "fc/weights");
  const int fb = bias(7, "fc/bias");
  m.AddOp(relite::BuiltinOp::kFullyConnected, {v, fw, fb}, {fc}, relite::writer::FullyConnectedOptions{});
  m.SetInputs({x, v});
  m.SetOutputs({conv, fc});
  return m.WriteFile(path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: relite_python_test_models DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (const relite::Status& s : {WriteSignatureAdd(dir + "/signature_add.tflite"),
                                  WriteDynamicRange(dir + "/dynamic_range.tflite")}) {
    if (!s.ok()) {
      std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
