// int16x8 (int16 activations, int8 weights, int64 bias: the converter's 16x8
// mode), int16 reductions (MEAN, SUM, REDUCE_PROD) and quantized BATCH_MATMUL
// against native LiteRT's builtin kernels
// (tests/testing/litert_golden.h). Every output here is integer or exactly
// dequantized, so every case must match bit for bit.
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/litert_golden.h"

namespace relite {
namespace {

using testing::GoldenCase;
using tflite::ActivationFunctionType;
using tflite::BuiltinOperator;
using tflite::BuiltinOptions;
using tflite::Padding;
using Cases = std::vector<std::unique_ptr<GoldenCase>>;

std::vector<float> Uniform(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = std::uniform_real_distribution<float>(lo, hi)(rng);
  return v;
}

template <typename T>
std::vector<T> Ints(size_t n, int64_t lo, int64_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  return v;
}

Quantization Q(float scale, int64_t zero_point = 0) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

// Symmetric per-channel int8 weights along `axis`.
Quantization PerChannel(int channels, int axis, uint32_t seed) {
  std::mt19937 rng(seed);
  Quantization q;
  q.quantized_dimension = axis;
  for (int c = 0; c < channels; ++c) {
    q.scale.push_back(std::uniform_real_distribution<float>(0.002f, 0.02f)(rng));
    q.zero_point.push_back(0);
  }
  return q;
}

// The bias of a 16x8 layer: scale input_scale * weight_scale[c], zero point 0.
Quantization BiasQuant(float input_scale, const Quantization& w) {
  Quantization q;
  for (float s : w.scale) {
    q.scale.push_back(input_scale * s);
    q.zero_point.push_back(0);
  }
  return q;
}

size_t Count(const Shape& s) {
  size_t n = 1;
  for (int64_t d : s) n *= static_cast<size_t>(d);
  return n;
}

GoldenCase& NewCase(Cases& cases, const std::string& name) {
  cases.push_back(std::make_unique<GoldenCase>(name));
  return *cases.back();
}

void RunCases(Cases& cases) {
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

// ---------------------------------------------------------------- 16x8 layers

void AddFullyConnected(Cases& cases, const std::string& name, bool per_channel, DataType bias_type,
                       ActivationFunctionType act, uint32_t seed) {
  GoldenCase& c = NewCase(cases, "FULLY_CONNECTED/16x8 " + name);
  const float in_scale = 0.0021f;
  const Shape in_shape = {3, 24};
  const int in = c.model.AddInput(DataType::kInt16, in_shape, Q(in_scale));
  const Quantization wq = per_channel ? PerChannel(10, 0, seed) : Q(0.0093f);
  c.model.AddConstInput<int8_t>(DataType::kInt8, {10, 24}, Ints<int8_t>(240, -127, 127, seed + 1), wq);
  Quantization bq = BiasQuant(in_scale, wq);
  if (bias_type == DataType::kInt64) {
    c.model.AddConstInput<int64_t>(DataType::kInt64, {10}, Ints<int64_t>(10, -300000, 300000, seed + 2), bq);
  } else if (bias_type == DataType::kInt32) {
    c.model.AddConstInput<int32_t>(DataType::kInt32, {10}, Ints<int32_t>(10, -300000, 300000, seed + 2), bq);
  } else {
    c.model.AddOptionalInput();
  }
  const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.0173f));
  c.model.SetBuiltinOp(BuiltinOperator::FULLY_CONNECTED, 7, BuiltinOptions::FullyConnectedOptions,
                       tflite::CreateFullyConnectedOptions(c.model.fbb(), act).Union());
  c.Feed<int16_t>(in, DataType::kInt16, in_shape, Ints<int16_t>(Count(in_shape), -32768, 32767, seed + 3));
  c.Expect(out);
}

void AddConv(Cases& cases, const std::string& name, Padding padding, int stride, int dilation,
             ActivationFunctionType act, bool bias, uint32_t seed) {
  GoldenCase& c = NewCase(cases, "CONV_2D/16x8 " + name);
  const float in_scale = 0.0032f;
  const Shape in_shape = {2, 7, 6, 5};
  const int in = c.model.AddInput(DataType::kInt16, in_shape, Q(in_scale));
  const Quantization wq = PerChannel(6, 0, seed);
  c.model.AddConstInput<int8_t>(DataType::kInt8, {6, 3, 3, 5}, Ints<int8_t>(270, -127, 127, seed + 1), wq);
  if (bias) {
    c.model.AddConstInput<int64_t>(DataType::kInt64, {6}, Ints<int64_t>(6, -200000, 200000, seed + 2),
                                   BiasQuant(in_scale, wq));
  } else {
    c.model.AddOptionalInput();
  }
  const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.061f));
  c.model.SetBuiltinOp(BuiltinOperator::CONV_2D, 4, BuiltinOptions::Conv2DOptions,
                       tflite::CreateConv2DOptions(c.model.fbb(), padding, stride, stride, act, dilation, dilation)
                           .Union());
  c.Feed<int16_t>(in, DataType::kInt16, in_shape, Ints<int16_t>(Count(in_shape), -32768, 32767, seed + 3));
  c.Expect(out);
}

void AddDepthwise(Cases& cases, const std::string& name, Padding padding, int stride, int multiplier,
                  ActivationFunctionType act, uint32_t seed, int dilation = 1) {
  GoldenCase& c = NewCase(cases, "DEPTHWISE_CONV_2D/16x8 " + name);
  const float in_scale = 0.0027f;
  const Shape in_shape = {1, 6, 7, 4};
  const int out_c = 4 * multiplier;
  const int in = c.model.AddInput(DataType::kInt16, in_shape, Q(in_scale));
  const Quantization wq = PerChannel(out_c, 3, seed);
  c.model.AddConstInput<int8_t>(DataType::kInt8, {1, 3, 3, out_c}, Ints<int8_t>(9 * out_c, -127, 127, seed + 1), wq);
  c.model.AddConstInput<int64_t>(DataType::kInt64, {out_c}, Ints<int64_t>(out_c, -100000, 100000, seed + 2),
                                 BiasQuant(in_scale, wq));
  const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.023f));
  c.model.SetBuiltinOp(BuiltinOperator::DEPTHWISE_CONV_2D, 5, BuiltinOptions::DepthwiseConv2DOptions,
                       tflite::CreateDepthwiseConv2DOptions(c.model.fbb(), padding, stride, stride, multiplier, act,
                                                            dilation, dilation)
                           .Union());
  c.Feed<int16_t>(in, DataType::kInt16, in_shape, Ints<int16_t>(Count(in_shape), -32768, 32767, seed + 3));
  c.Expect(out);
}

void AddTransposeConv(Cases& cases, const std::string& name, Padding padding, int stride, bool bias,
                      uint32_t seed, ActivationFunctionType act = ActivationFunctionType::NONE) {
  GoldenCase& c = NewCase(cases, "TRANSPOSE_CONV/16x8 " + name);
  const float in_scale = 0.0041f;
  const Shape in_shape = {1, 4, 5, 3};
  const int oh = padding == Padding::SAME ? 4 * stride : (4 - 1) * stride + 3;
  const int ow = padding == Padding::SAME ? 5 * stride : (5 - 1) * stride + 3;
  c.model.AddConstInput<int32_t>(DataType::kInt32, {4}, {1, oh, ow, 4});
  const Quantization wq = PerChannel(4, 0, seed);
  c.model.AddConstInput<int8_t>(DataType::kInt8, {4, 3, 3, 3}, Ints<int8_t>(108, -127, 127, seed + 1), wq);
  const int in = c.model.AddInput(DataType::kInt16, in_shape, Q(in_scale));
  if (bias) {
    c.model.AddConstInput<int64_t>(DataType::kInt64, {4}, Ints<int64_t>(4, -100000, 100000, seed + 2),
                                   BiasQuant(in_scale, wq));
  }
  const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.037f));
  c.model.SetBuiltinOp(BuiltinOperator::TRANSPOSE_CONV, act == ActivationFunctionType::NONE ? 3 : 4,
                       BuiltinOptions::TransposeConvOptions,
                       tflite::CreateTransposeConvOptions(c.model.fbb(), padding, stride, stride, act).Union());
  c.Feed<int16_t>(in, DataType::kInt16, in_shape, Ints<int16_t>(Count(in_shape), -32768, 32767, seed + 3));
  c.Expect(out);
}

TEST(LiteRtGoldenInt16Test, Layers16x8) {
  Cases cases;
  AddFullyConnected(cases, "int64 bias", false, DataType::kInt64, ActivationFunctionType::NONE, 10);
  AddFullyConnected(cases, "int64 bias relu", false, DataType::kInt64, ActivationFunctionType::RELU, 20);
  AddFullyConnected(cases, "no bias", false, DataType::kFloat32, ActivationFunctionType::NONE, 30);
  AddFullyConnected(cases, "per-channel int64 bias", true, DataType::kInt64, ActivationFunctionType::NONE, 40);
  AddConv(cases, "same", Padding::SAME, 1, 1, ActivationFunctionType::NONE, true, 50);
  AddConv(cases, "valid stride 2 relu6", Padding::VALID, 2, 1, ActivationFunctionType::RELU6, true, 60);
  AddConv(cases, "same dilation 2 relu", Padding::SAME, 1, 2, ActivationFunctionType::RELU, true, 70);
  AddDepthwise(cases, "same", Padding::SAME, 1, 1, ActivationFunctionType::NONE, 80);
  AddDepthwise(cases, "valid stride 2 multiplier 2 relu", Padding::VALID, 2, 2, ActivationFunctionType::RELU, 90);
  AddTransposeConv(cases, "same stride 2", Padding::SAME, 2, true, 100);
  AddTransposeConv(cases, "valid stride 1 no bias", Padding::VALID, 1, false, 110);
  AddFullyConnected(cases, "int32 bias", false, DataType::kInt32, ActivationFunctionType::RELU6, 120);
  AddDepthwise(cases, "same dilation 2 relu6", Padding::SAME, 1, 1, ActivationFunctionType::RELU6, 150, 2);
  AddTransposeConv(cases, "same stride 2 relu", Padding::SAME, 2, true, 160, ActivationFunctionType::RELU);
  {
    GoldenCase& c = NewCase(cases, "FULLY_CONNECTED/16x8 keep_num_dims");
    const float in_scale = 0.0021f;
    const Shape in_shape = {2, 3, 16};
    const int in = c.model.AddInput(DataType::kInt16, in_shape, Q(in_scale));
    c.model.AddConstInput<int8_t>(DataType::kInt8, {5, 16}, Ints<int8_t>(80, -127, 127, 141), Q(0.011f));
    c.model.AddConstInput<int64_t>(DataType::kInt64, {5}, Ints<int64_t>(5, -90000, 90000, 142), Q(in_scale * 0.011f));
    const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.009f));
    c.model.SetBuiltinOp(BuiltinOperator::FULLY_CONNECTED, 7, BuiltinOptions::FullyConnectedOptions,
                         tflite::CreateFullyConnectedOptions(c.model.fbb(), ActivationFunctionType::NONE,
                                                             tflite::FullyConnectedOptionsWeightsFormat::DEFAULT, true)
                             .Union());
    c.Feed<int16_t>(in, DataType::kInt16, in_shape, Ints<int16_t>(Count(in_shape), -32768, 32767, 143));
    c.Expect(out);
  }
  RunCases(cases);
}

// ------------------------------------------------------------- elementwise

void AddBinary(Cases& cases, const std::string& name, BuiltinOperator op, int version, const Shape& a_shape,
               const Shape& b_shape, float sa, float sb, float so, ActivationFunctionType act, bool pot_flag,
               uint32_t seed) {
  GoldenCase& c = NewCase(cases, name);
  const int a = c.model.AddInput(DataType::kInt16, a_shape, Q(sa));
  const int b = c.model.AddInput(DataType::kInt16, b_shape, Q(sb));
  const int out = c.model.AddOutput(DataType::kInt16, {}, Q(so));
  auto& fbb = c.model.fbb();
  if (op == BuiltinOperator::ADD) {
    c.model.SetBuiltinOp(op, version, BuiltinOptions::AddOptions, tflite::CreateAddOptions(fbb, act, pot_flag).Union());
  } else if (op == BuiltinOperator::SUB) {
    c.model.SetBuiltinOp(op, version, BuiltinOptions::SubOptions, tflite::CreateSubOptions(fbb, act, pot_flag).Union());
  } else {
    c.model.SetBuiltinOp(op, version, BuiltinOptions::MulOptions, tflite::CreateMulOptions(fbb, act).Union());
  }
  c.Feed<int16_t>(a, DataType::kInt16, a_shape, Ints<int16_t>(Count(a_shape), -32768, 32767, seed));
  c.Feed<int16_t>(b, DataType::kInt16, b_shape, Ints<int16_t>(Count(b_shape), -32768, 32767, seed + 1));
  c.Expect(out);
}

void AddUnary(Cases& cases, const std::string& name, BuiltinOperator op, int version, const Shape& shape, float si,
              float so, uint32_t seed, BuiltinOptions options_type = BuiltinOptions::NONE,
              flatbuffers::Offset<void> options = 0, GoldenCase** made = nullptr) {
  GoldenCase& c = NewCase(cases, name);
  const int in = c.model.AddInput(DataType::kInt16, shape, Q(si));
  const int out = c.model.AddOutput(DataType::kInt16, {}, Q(so));
  c.model.SetBuiltinOp(op, version, options_type, options);
  std::vector<int16_t> x = Ints<int16_t>(Count(shape), -32768, 32767, seed);
  x[0] = -32768;
  x[1] = 32767;
  x[2] = 0;
  c.Feed<int16_t>(in, DataType::kInt16, shape, x);
  c.Expect(out);
  if (made != nullptr) *made = &c;
}

TEST(LiteRtGoldenInt16Test, Elementwise) {
  Cases cases;
  const Shape s = {2, 3, 4, 5};
  const ActivationFunctionType none = ActivationFunctionType::NONE, relu = ActivationFunctionType::RELU;
  // General scales (left shift 15), and the POT kernel where all three are powers of two.
  AddBinary(cases, "ADD/int16 general", BuiltinOperator::ADD, 3, s, s, 0.0012f, 0.0031f, 0.0040f, none, true, 1);
  AddBinary(cases, "ADD/int16 general broadcast relu", BuiltinOperator::ADD, 3, s, {1, 3, 1, 5}, 0.0021f, 0.0007f,
            0.0025f, relu, true, 3);
  AddBinary(cases, "ADD/int16 pot", BuiltinOperator::ADD, 3, s, s, 1.0f / 1024, 1.0f / 4096, 1.0f / 1024, none, true,
            5);
  AddBinary(cases, "ADD/int16 pot first shifted", BuiltinOperator::ADD, 3, s, s, 1.0f / 8192, 1.0f / 2048,
            1.0f / 2048, relu, true, 7);
  AddBinary(cases, "ADD/int16 pot scales, general flag", BuiltinOperator::ADD, 5, s, s, 1.0f / 1024, 1.0f / 4096,
            1.0f / 1024, none, false, 9);
  AddBinary(cases, "SUB/int16 general", BuiltinOperator::SUB, 3, s, s, 0.0012f, 0.0031f, 0.0040f, none, true, 11);
  AddBinary(cases, "SUB/int16 general broadcast", BuiltinOperator::SUB, 3, {1, 3, 1, 5}, s, 0.0021f, 0.0007f,
            0.0025f, relu, true, 13);
  AddBinary(cases, "SUB/int16 pot", BuiltinOperator::SUB, 3, s, s, 1.0f / 1024, 1.0f / 4096, 1.0f / 1024, none, true,
            15);
  AddBinary(cases, "SUB/int16 pot second at output scale", BuiltinOperator::SUB, 3, s, s, 1.0f / 16384, 1.0f / 512,
            1.0f / 512, none, true, 17);
  AddBinary(cases, "MUL/int16", BuiltinOperator::MUL, 4, s, s, 0.0012f, 0.0031f, 0.0040f, none, true, 19);
  AddBinary(cases, "MUL/int16 broadcast relu", BuiltinOperator::MUL, 4, s, {5}, 0.011f, 0.0007f, 0.0003f, relu, true,
            21);

  // SOFTMAX / LOGISTIC / TANH: table kernels for general input scales, the
  // fixed-point kernel for 2^-12 (and 2^-13 for TANH).
  for (float beta : {1.0f, 0.4f}) {
    GoldenCase* c = nullptr;
    AddUnary(cases, "SOFTMAX/int16 beta " + std::to_string(beta), BuiltinOperator::SOFTMAX, 3, {3, 2, 17}, 0.00037f,
             1.0f / 32768, 31, BuiltinOptions::SoftmaxOptions, 0, &c);
    c->model.SetBuiltinOp(BuiltinOperator::SOFTMAX, 3, BuiltinOptions::SoftmaxOptions,
                          tflite::CreateSoftmaxOptions(c->model.fbb(), beta).Union());
  }
  {
    GoldenCase* c = nullptr;
    AddUnary(cases, "SOFTMAX/int16 wide input", BuiltinOperator::SOFTMAX, 3, {4, 33}, 0.01f, 1.0f / 32768, 33,
             BuiltinOptions::SoftmaxOptions, 0, &c);
    c->model.SetBuiltinOp(BuiltinOperator::SOFTMAX, 3, BuiltinOptions::SoftmaxOptions,
                          tflite::CreateSoftmaxOptions(c->model.fbb(), 1.0f).Union());
  }
  AddBinary(cases, "MUL/int16 saturating", BuiltinOperator::MUL, 4, s, s, 0.05f, 0.03f, 0.0001f, none, true, 25);
  for (float si : {0.00031f, 0.0027f, 1.0f / 4096, 1.0f / 8192, 0.07f}) {
    AddUnary(cases, "LOGISTIC/int16 scale " + std::to_string(si), BuiltinOperator::LOGISTIC, 3, s, si, 1.0f / 32768,
             41);
    AddUnary(cases, "TANH/int16 scale " + std::to_string(si), BuiltinOperator::TANH, 3, s, si, 1.0f / 32768, 43);
  }
  // Every int16 input once, at each kind of scale.
  std::vector<int16_t> all(65536);
  for (int i = 0; i < 65536; ++i) all[static_cast<size_t>(i)] = static_cast<int16_t>(i - 32768);
  for (float si : {0.00031f, 1.0f / 4096, 1.0f / 8192, 0.07f}) {
    for (BuiltinOperator op : {BuiltinOperator::LOGISTIC, BuiltinOperator::TANH}) {
      GoldenCase& c = NewCase(cases, std::string(op == BuiltinOperator::TANH ? "TANH" : "LOGISTIC") +
                                         "/int16 every input, scale " + std::to_string(si));
      const int in = c.model.AddInput(DataType::kInt16, {65536}, Q(si));
      const int out = c.model.AddOutput(DataType::kInt16, {}, Q(1.0f / 32768));
      c.model.SetBuiltinOp(op, 3);
      c.Feed<int16_t>(in, DataType::kInt16, {65536}, all);
      c.Expect(out);
    }
  }
  // Scales within TFLite's 1e-3 (in log2) of a power of two count as one.
  AddBinary(cases, "ADD/int16 nearly pot", BuiltinOperator::ADD, 3, s, s, 1.0003f / 1024, 0.9996f / 4096,
            1.0002f / 1024, none, true, 23);
  AddUnary(cases, "LOGISTIC/int16 scale nearly 2^-12", BuiltinOperator::LOGISTIC, 3, s, 1.0004f / 4096,
           1.0f / 32768, 45);
  AddUnary(cases, "TANH/int16 scale nearly 2^-13", BuiltinOperator::TANH, 3, s, 0.9997f / 8192, 1.0f / 32768, 47);
  AddUnary(cases, "TANH/int16 output scale nearly 2^-15", BuiltinOperator::TANH, 3, s, 0.0013f, 1.0002f / 32768, 49);
  // Clamps and LEAKY_RELU (TFLite's builtin int16 kernels; its HARD_SWISH and
  // RELU_N1_TO_1 refuse int16, as relite does).
  AddUnary(cases, "RELU/int16", BuiltinOperator::RELU, 3, s, 0.0011f, 0.0013f, 51);
  AddUnary(cases, "RELU6/int16", BuiltinOperator::RELU6, 3, s, 0.0011f, 0.0003f, 53);
  {
    GoldenCase* c = nullptr;
    AddUnary(cases, "LEAKY_RELU/int16", BuiltinOperator::LEAKY_RELU, 2, s, 0.0011f, 0.0009f, 55,
             BuiltinOptions::LeakyReluOptions, 0, &c);
    c->model.SetBuiltinOp(BuiltinOperator::LEAKY_RELU, 2, BuiltinOptions::LeakyReluOptions,
                          tflite::CreateLeakyReluOptions(c->model.fbb(), 0.3f).Union());
  }
  RunCases(cases);
}

// ------------------------------------------------- conversions and data movement

TEST(LiteRtGoldenInt16Test, ConversionsAndMoves) {
  Cases cases;
  const Shape s = {2, 4, 4, 3};
  const size_t n = Count(s);
  {
    GoldenCase& c = NewCase(cases, "QUANTIZE/float to int16");
    const int in = c.model.AddInput(DataType::kFloat32, s);
    const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.0007f));
    c.model.SetBuiltinOp(BuiltinOperator::QUANTIZE, 3);
    std::vector<float> x = Uniform(n, -30, 30, 61);
    x[0] = 0.00035f;  // a tie
    x[1] = -0.00105f;
    x[2] = 100.0f;  // saturates
    x[3] = -100.0f;
    c.Feed<float>(in, DataType::kFloat32, s, x);
    c.Expect(out);
  }
  struct Requant {
    const char* name;
    DataType from, to;
    float s_in;
    int64_t z_in;
    float s_out;
    int64_t z_out;
  };
  for (const Requant& r : {Requant{"int16 to int16", DataType::kInt16, DataType::kInt16, 0.0007f, 0, 0.0019f, 0},
                           Requant{"int16 to int8", DataType::kInt16, DataType::kInt8, 0.0007f, 0, 0.09f, 5},
                           Requant{"int8 to int16", DataType::kInt8, DataType::kInt16, 0.05f, -3, 0.0004f, 0}}) {
    GoldenCase& c = NewCase(cases, std::string("QUANTIZE/") + r.name);
    const int in = c.model.AddInput(r.from, s, Q(r.s_in, r.z_in));
    const int out = c.model.AddOutput(r.to, {}, Q(r.s_out, r.z_out));
    c.model.SetBuiltinOp(BuiltinOperator::QUANTIZE, r.to == DataType::kInt16 || r.from == DataType::kInt16 ? 3 : 2);
    if (r.from == DataType::kInt16) {
      c.Feed<int16_t>(in, r.from, s, Ints<int16_t>(n, -32768, 32767, 63));
    } else {
      c.Feed<int8_t>(in, r.from, s, Ints<int8_t>(n, -128, 127, 65));
    }
    c.Expect(out);
  }
  {
    GoldenCase& c = NewCase(cases, "DEQUANTIZE/int16");
    const int in = c.model.AddInput(DataType::kInt16, s, Q(0.0013f));
    const int out = c.model.AddOutput(DataType::kFloat32);
    c.model.SetBuiltinOp(BuiltinOperator::DEQUANTIZE, 4);
    c.Feed<int16_t>(in, DataType::kInt16, s, Ints<int16_t>(n, -32768, 32767, 67));
    c.Expect(out);
  }
  // Pools (int16: TFLite's builtin kernels).
  for (bool avg : {false, true}) {
    for (Padding padding : {Padding::SAME, Padding::VALID}) {
      GoldenCase& c = NewCase(cases, std::string(avg ? "AVERAGE_POOL_2D" : "MAX_POOL_2D") + "/int16 " +
                                         (padding == Padding::SAME ? "same relu" : "valid"));
      const Shape ps = {2, 7, 6, 3};
      const int in = c.model.AddInput(DataType::kInt16, ps, Q(0.0011f));
      const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.0011f));
      c.model.SetBuiltinOp(avg ? BuiltinOperator::AVERAGE_POOL_2D : BuiltinOperator::MAX_POOL_2D, 3,
                           BuiltinOptions::Pool2DOptions,
                           tflite::CreatePool2DOptions(c.model.fbb(), padding, 2, 2, 3, 3,
                                                       padding == Padding::SAME ? ActivationFunctionType::RELU
                                                                                : ActivationFunctionType::NONE)
                               .Union());
      c.Feed<int16_t>(in, DataType::kInt16, ps, Ints<int16_t>(Count(ps), -32768, 32767, 71));
      c.Expect(out);
    }
  }
  {
    GoldenCase& c = NewCase(cases, "CONCATENATION/int16");
    const int a = c.model.AddInput(DataType::kInt16, {2, 3, 4}, Q(0.001f));
    const int b = c.model.AddInput(DataType::kInt16, {2, 2, 4}, Q(0.001f));
    const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.001f));
    c.model.SetBuiltinOp(BuiltinOperator::CONCATENATION, 3, BuiltinOptions::ConcatenationOptions,
                         tflite::CreateConcatenationOptions(c.model.fbb(), 1).Union());
    c.Feed<int16_t>(a, DataType::kInt16, {2, 3, 4}, Ints<int16_t>(24, -32768, 32767, 73));
    c.Feed<int16_t>(b, DataType::kInt16, {2, 2, 4}, Ints<int16_t>(16, -32768, 32767, 74));
    c.Expect(out);
  }
  {
    GoldenCase& c = NewCase(cases, "PAD/int16");
    const int in = c.model.AddInput(DataType::kInt16, {2, 3, 4}, Q(0.001f));
    c.model.AddConstInput<int32_t>(DataType::kInt32, {3, 2}, {0, 1, 2, 0, 1, 3});
    const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.001f));
    c.model.SetBuiltinOp(BuiltinOperator::PAD, 4);
    c.Feed<int16_t>(in, DataType::kInt16, {2, 3, 4}, Ints<int16_t>(24, -32768, 32767, 75));
    c.Expect(out);
  }
  {
    GoldenCase& c = NewCase(cases, "RESHAPE/int16");
    const int in = c.model.AddInput(DataType::kInt16, {2, 3, 4}, Q(0.001f));
    c.model.AddConstInput<int32_t>(DataType::kInt32, {2}, {4, -1});
    const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.001f));
    c.model.SetBuiltinOp(BuiltinOperator::RESHAPE, 1);
    c.Feed<int16_t>(in, DataType::kInt16, {2, 3, 4}, Ints<int16_t>(24, -32768, 32767, 77));
    c.Expect(out);
  }
  RunCases(cases);
}

// Type-generic moves of int16 data: the quantization passes through.
// (LiteRT's SPACE_TO_DEPTH and DEPTH_TO_SPACE refuse int16.)
struct Move {
  std::string name;
  BuiltinOperator op;
  Shape in_shape;
  std::function<void(testing::SingleOpModel&)> extra;  // constant inputs, after the data
  int outputs = 1;
  BuiltinOptions options_type = BuiltinOptions::NONE;
  std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)> options = nullptr;
  bool data_second = false;  // SPLIT: the axis comes first
};

TEST(LiteRtGoldenInt16Test, DataMovement) {
  Cases cases;
  using M = testing::SingleOpModel;
  const std::vector<Move> moves = {
      {"TRANSPOSE", BuiltinOperator::TRANSPOSE, {2, 3, 4},
       [](M& m) { m.AddConstInput<int32_t>(DataType::kInt32, {3}, {2, 0, 1}); }},
      {"SLICE", BuiltinOperator::SLICE, {3, 4, 5},
       [](M& m) {
         m.AddConstInput<int32_t>(DataType::kInt32, {3}, {1, 0, 2});
         m.AddConstInput<int32_t>(DataType::kInt32, {3}, {2, -1, 3});
       }},
      {"STRIDED_SLICE", BuiltinOperator::STRIDED_SLICE, {3, 4, 5},
       [](M& m) {
         m.AddConstInput<int32_t>(DataType::kInt32, {3}, {0, 3, 1});
         m.AddConstInput<int32_t>(DataType::kInt32, {3}, {3, 0, 5});
         m.AddConstInput<int32_t>(DataType::kInt32, {3}, {2, -1, 2});
       },
       1, BuiltinOptions::StridedSliceOptions,
       [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateStridedSliceOptions(fbb).Union(); }},
      {"GATHER", BuiltinOperator::GATHER, {4, 3, 2},
       [](M& m) { m.AddConstInput<int32_t>(DataType::kInt32, {5}, {3, 0, 0, 2, 1}); }, 1,
       BuiltinOptions::GatherOptions,
       [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateGatherOptions(fbb, 0).Union(); }},
      {"SQUEEZE", BuiltinOperator::SQUEEZE, {2, 1, 3}, nullptr},
      {"EXPAND_DIMS", BuiltinOperator::EXPAND_DIMS, {2, 3},
       [](M& m) { m.AddConstInput<int32_t>(DataType::kInt32, {1}, {1}); }},
      {"RESIZE_NEAREST_NEIGHBOR", BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, {1, 3, 4, 2},
       [](M& m) { m.AddConstInput<int32_t>(DataType::kInt32, {2}, {5, 7}); }, 1,
       BuiltinOptions::ResizeNearestNeighborOptions,
       [](flatbuffers::FlatBufferBuilder& fbb) {
         return tflite::CreateResizeNearestNeighborOptions(fbb, false, true).Union();
       }},
      {"TILE", BuiltinOperator::TILE, {2, 3}, [](M& m) { m.AddConstInput<int32_t>(DataType::kInt32, {2}, {2, 3}); }},
      {"MIRROR_PAD", BuiltinOperator::MIRROR_PAD, {3, 4},
       [](M& m) { m.AddConstInput<int32_t>(DataType::kInt32, {2, 2}, {1, 2, 2, 1}); }, 1,
       BuiltinOptions::MirrorPadOptions,
       [](flatbuffers::FlatBufferBuilder& fbb) {
         return tflite::CreateMirrorPadOptions(fbb, tflite::MirrorPadMode::REFLECT).Union();
       }},
      {"PADV2", BuiltinOperator::PADV2, {2, 3},
       [](M& m) {
         m.AddConstInput<int32_t>(DataType::kInt32, {2, 2}, {1, 0, 0, 2});
         m.AddConstInput<int16_t>(DataType::kInt16, {1}, {-1234}, Q(0.001f));
       }},
      {"REVERSE_V2", BuiltinOperator::REVERSE_V2, {3, 4},
       [](M& m) { m.AddConstInput<int32_t>(DataType::kInt32, {1}, {1}); }},
      {"BATCH_TO_SPACE_ND", BuiltinOperator::BATCH_TO_SPACE_ND, {4, 2, 2, 1},
       [](M& m) {
         m.AddConstInput<int32_t>(DataType::kInt32, {2}, {2, 2});
         m.AddConstInput<int32_t>(DataType::kInt32, {2, 2}, {0, 0, 0, 0});
       }},
      {"SPLIT", BuiltinOperator::SPLIT, {2, 6}, nullptr, 3, BuiltinOptions::SplitOptions,
       [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSplitOptions(fbb, 3).Union(); }, true},
      {"MAXIMUM", BuiltinOperator::MAXIMUM, {2, 3, 4},
       [](M& m) { m.AddConstInput<int16_t>(DataType::kInt16, {4}, {-30000, 0, 100, 32767}, Q(0.001f)); }},
      {"MINIMUM", BuiltinOperator::MINIMUM, {2, 3, 4},
       [](M& m) { m.AddConstInput<int16_t>(DataType::kInt16, {4}, {-30000, 0, 100, 32767}, Q(0.001f)); }},
  };
  uint32_t seed = 200;
  for (const Move& mv : moves) {
    GoldenCase& c = NewCase(cases, mv.name + "/int16");
    if (mv.data_second) c.model.AddConstInput<int32_t>(DataType::kInt32, {}, {1});
    const int in = c.model.AddInput(DataType::kInt16, mv.in_shape, Q(0.001f));
    if (mv.extra) mv.extra(c.model);
    std::vector<int> outs;
    for (int o = 0; o < mv.outputs; ++o) outs.push_back(c.model.AddOutput(DataType::kInt16, {}, Q(0.001f)));
    c.model.SetBuiltinOp(mv.op, 1, mv.options_type, mv.options ? mv.options(c.model.fbb()) : 0);
    c.Feed<int16_t>(in, DataType::kInt16, mv.in_shape, Ints<int16_t>(Count(mv.in_shape), -32768, 32767, seed++));
    for (int o : outs) c.Expect(o);
  }
  {
    // TFLite's int16 CONCATENATION copies every input whatever its scale.
    GoldenCase& c = NewCase(cases, "CONCATENATION/int16 different scales");
    const int a = c.model.AddInput(DataType::kInt16, {2, 3}, Q(0.002f));
    const int b = c.model.AddInput(DataType::kInt16, {2, 2}, Q(0.0005f));
    const int out = c.model.AddOutput(DataType::kInt16, {}, Q(0.001f));
    c.model.SetBuiltinOp(BuiltinOperator::CONCATENATION, 3, BuiltinOptions::ConcatenationOptions,
                         tflite::CreateConcatenationOptions(c.model.fbb(), -1).Union());
    c.Feed<int16_t>(a, DataType::kInt16, {2, 3}, Ints<int16_t>(6, -32768, 32767, seed++));
    c.Feed<int16_t>(b, DataType::kInt16, {2, 2}, Ints<int16_t>(4, -32768, 32767, seed++));
    c.Expect(out);
  }
  RunCases(cases);
}

// ------------------------------------------------------- int16 reductions

void AddReduce16(Cases& cases, BuiltinOperator op, const std::string& name, int version, const Shape& shape,
                 const std::vector<int32_t>& axes, bool keep_dims, float in_scale, float out_scale, int64_t lo,
                 int64_t hi, uint32_t seed) {
  std::string axes_text;
  for (int32_t a : axes) axes_text += " " + std::to_string(a);
  GoldenCase& c = NewCase(cases, name + "/int16 " + ShapeToString(shape) + " axes" + axes_text +
                                     (keep_dims ? " keep" : "") + " seed " + std::to_string(seed));
  const int in = c.model.AddInput(DataType::kInt16, shape, Q(in_scale));
  c.model.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int out = c.model.AddOutput(DataType::kInt16, {}, Q(out_scale));
  c.model.SetBuiltinOp(op, version, BuiltinOptions::ReducerOptions,
                       tflite::CreateReducerOptions(c.model.fbb(), keep_dims).Union());
  c.Feed<int16_t>(in, DataType::kInt16, shape, Ints<int16_t>(Count(shape), lo, hi, seed));
  c.Expect(out);
}

TEST(LiteRtGoldenInt16Test, Reductions) {
  Cases cases;
  const Shape s = {2, 3, 5, 4};
  const int64_t lo = -32768, hi = 32767;
  uint32_t seed = 700;
  // MEAN (version 3 for int16): rescaled, same scale, larger out scale.
  for (auto [si, so] : {std::pair{0.001f, 0.0007f}, std::pair{0.002f, 0.002f}, std::pair{0.0004f, 0.0013f}}) {
    AddReduce16(cases, BuiltinOperator::MEAN, "MEAN", 3, s, {1, 2}, true, si, so, lo, hi, seed++);
    AddReduce16(cases, BuiltinOperator::MEAN, "MEAN", 3, s, {-1}, false, si, so, lo, hi, seed++);
    AddReduce16(cases, BuiltinOperator::MEAN, "MEAN", 3, s, {0, 1, 2, 3}, false, si, so, lo, hi, seed++);
    AddReduce16(cases, BuiltinOperator::MEAN, "MEAN", 3, s, {0, 2}, true, si, so, lo, hi, seed++);
  }
  AddReduce16(cases, BuiltinOperator::MEAN, "MEAN", 3, {1000}, {0}, false, 0.001f, 0.0003f, lo, hi, seed++);
  AddReduce16(cases, BuiltinOperator::MEAN, "MEAN", 3, {3, 7}, {1}, false, 0.05f, 0.0011f, -200, 200, seed++);
  // SUM (TFLite gives int16 SUM version 1): out scales that keep most sums
  // in range, and one that saturates.
  AddReduce16(cases, BuiltinOperator::SUM, "SUM", 1, s, {2}, false, 0.0005f, 0.003f, lo, hi, seed++);
  AddReduce16(cases, BuiltinOperator::SUM, "SUM", 1, s, {1, 2}, true, 0.0005f, 0.009f, lo, hi, seed++);
  AddReduce16(cases, BuiltinOperator::SUM, "SUM", 1, s, {-1}, false, 0.001f, 0.0037f, lo, hi, seed++);
  AddReduce16(cases, BuiltinOperator::SUM, "SUM", 1, s, {0, 1, 2, 3}, false, 0.0002f, 0.03f, lo, hi, seed++);
  AddReduce16(cases, BuiltinOperator::SUM, "SUM", 1, s, {0}, true, 0.001f, 0.001f, lo, hi, seed++);
  // REDUCE_PROD (version 2): values up to +-16.4, two or three factors.
  AddReduce16(cases, BuiltinOperator::REDUCE_PROD, "REDUCE_PROD", 2, {4, 2, 3}, {1}, false, 0.0005f, 0.01f, lo, hi,
              seed++);
  AddReduce16(cases, BuiltinOperator::REDUCE_PROD, "REDUCE_PROD", 2, {4, 2, 3}, {0}, true, 0.0005f, 0.5f, -2000,
              2000, seed++);
  AddReduce16(cases, BuiltinOperator::REDUCE_PROD, "REDUCE_PROD", 2, {4, 3, 2}, {-1, 0}, false, 0.0003f, 0.2f, -9000,
              9000, seed++);
  AddReduce16(cases, BuiltinOperator::REDUCE_PROD, "REDUCE_PROD", 2, {5, 3}, {1}, false, 0.001f, 0.13f, lo, hi,
              seed++);
  RunCases(cases);
}

// ------------------------------------------------------------ BATCH_MATMUL

template <typename T>
void AddBatchMatMul(Cases& cases, const std::string& name, DataType type, DataType out_type, const Shape& xs,
                    const Shape& ys, bool adj_x, bool adj_y, Quantization qx, Quantization qy, Quantization qo,
                    bool const_rhs, uint32_t seed) {
  GoldenCase& c = NewCase(cases, "BATCH_MATMUL/" + name);
  const int64_t lo = type == DataType::kInt8 ? -128 : -32768, hi = type == DataType::kInt8 ? 127 : 32767;
  const int x = c.model.AddInput(type, xs, qx);
  int y = -1;
  if (const_rhs) {
    c.model.AddConstInput<T>(type, ys, Ints<T>(Count(ys), lo, hi, seed + 1), qy);
  } else {
    y = c.model.AddInput(type, ys, qy);
  }
  const int out = c.model.AddOutput(out_type, {}, out_type == DataType::kInt32 ? Quantization{} : qo);
  c.model.SetBuiltinOp(BuiltinOperator::BATCH_MATMUL, type == DataType::kInt8 ? 2 : 3,
                       BuiltinOptions::BatchMatMulOptions,
                       tflite::CreateBatchMatMulOptions(c.model.fbb(), adj_x, adj_y).Union());
  c.Feed<T>(x, type, xs, Ints<T>(Count(xs), lo, hi, seed));
  if (!const_rhs) c.Feed<T>(y, type, ys, Ints<T>(Count(ys), lo, hi, seed + 1));
  c.Expect(out);
}

TEST(LiteRtGoldenInt16Test, BatchMatMul) {
  Cases cases;
  const DataType i8 = DataType::kInt8, i16 = DataType::kInt16;
  AddBatchMatMul<int8_t>(cases, "int8", i8, i8, {2, 5, 7}, {2, 7, 6}, false, false, Q(0.05f, 3), Q(0.02f, -2),
                         Q(0.4f, -5), false, 1);
  AddBatchMatMul<int8_t>(cases, "int8 adj_x adj_y broadcast", i8, i8, {2, 1, 7, 5}, {3, 6, 7}, true, true,
                         Q(0.05f, -128), Q(0.02f, 0), Q(0.3f, 10), false, 3);
  AddBatchMatMul<int8_t>(cases, "int8 constant rhs adj_y", i8, i8, {3, 4, 9}, {5, 9}, false, true, Q(0.031f, 0),
                         Q(0.011f, 0), Q(0.2f, 0), true, 5);
  AddBatchMatMul<int8_t>(cases, "int8 to int32", i8, DataType::kInt32, {2, 3, 8}, {2, 8, 4}, false, false,
                         Q(0.05f, 0), Q(0.02f, 0), Q(1.0f, 0), false, 7);
  AddBatchMatMul<int16_t>(cases, "int16", i16, i16, {2, 5, 7}, {2, 7, 6}, false, false, Q(0.0005f), Q(0.0002f),
                          Q(0.07f), false, 9);
  AddBatchMatMul<int16_t>(cases, "int16 adj_x broadcast constant rhs", i16, i16, {2, 1, 9, 4}, {3, 9, 5}, true,
                          false, Q(0.0003f), Q(0.0004f), Q(0.05f), true, 11);
  RunCases(cases);
}

// ------------------------------------------------------- a small 16x8 model

// float -> QUANTIZE int16 -> CONV_2D 16x8 -> ADD (a second quantized input)
// -> SOFTMAX -> DEQUANTIZE -> float, as the converter's 16x8 mode writes it.
TEST(LiteRtGoldenInt16Test, SmallModel16x8) {
  Cases cases;
  GoldenCase& c = NewCase(cases, "QUANTIZE-CONV_2D-ADD-SOFTMAX-DEQUANTIZE/16x8");
  auto& m = c.model;
  auto& fbb = m.fbb();
  const Shape in_shape = {1, 5, 5, 3};
  const float s_in = 4.0f / 32767, s_conv = 9.0f / 32767, s_add = 12.0f / 32767;
  const int x = m.AddGraphInput(DataType::kFloat32, in_shape);
  const int xq = m.AddTensor(DataType::kInt16, in_shape, Q(s_in));
  m.AddPrecedingOp(BuiltinOperator::QUANTIZE, 3, {x}, {xq});
  const Quantization wq = PerChannel(8, 0, 81);
  const int w = m.AddConstTensor<int8_t>(DataType::kInt8, {8, 3, 3, 3}, Ints<int8_t>(216, -127, 127, 82), wq);
  const int bias = m.AddConstTensor<int64_t>(DataType::kInt64, {8}, Ints<int64_t>(8, -5000, 5000, 83),
                                             BiasQuant(s_in, wq));
  const int conv = m.AddTensor(DataType::kInt16, {1, 5, 5, 8}, Q(s_conv));
  m.AddPrecedingOp(BuiltinOperator::CONV_2D, 4, {xq, w, bias}, {conv}, BuiltinOptions::Conv2DOptions,
                   tflite::CreateConv2DOptions(fbb, Padding::SAME, 1, 1, ActivationFunctionType::RELU).Union());
  const int r = m.AddGraphInput(DataType::kFloat32, {1, 1, 1, 8});
  const int rq = m.AddTensor(DataType::kInt16, {1, 1, 1, 8}, Q(s_in));
  m.AddPrecedingOp(BuiltinOperator::QUANTIZE, 3, {r}, {rq});
  const int sum = m.AddTensor(DataType::kInt16, {1, 5, 5, 8}, Q(s_add));
  m.AddPrecedingOp(BuiltinOperator::ADD, 3, {conv, rq}, {sum}, BuiltinOptions::AddOptions,
                   tflite::CreateAddOptions(fbb, ActivationFunctionType::NONE, false).Union());
  const int prob = m.AddTensor(DataType::kInt16, {1, 5, 5, 8}, Q(1.0f / 32768));
  m.AddPrecedingOp(BuiltinOperator::SOFTMAX, 3, {sum}, {prob}, BuiltinOptions::SoftmaxOptions,
                   tflite::CreateSoftmaxOptions(fbb, 1.0f).Union());
  m.AddExistingInput(prob);
  const int y = m.AddOutput(DataType::kFloat32, {1, 5, 5, 8});
  m.SetBuiltinOp(BuiltinOperator::DEQUANTIZE, 4);
  c.Feed<float>(x, DataType::kFloat32, in_shape, Uniform(Count(in_shape), -4, 4, 84));
  c.Feed<float>(r, DataType::kFloat32, {1, 1, 1, 8}, Uniform(8, -4, 4, 85));
  c.Expect(y);  // dequantized int16: exact
  RunCases(cases);
}

}  // namespace
}  // namespace relite
