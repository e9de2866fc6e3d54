// RFFT2D, the complex parts (REAL, IMAG, COMPLEX_ABS), SVDF (float, hybrid,
// int8, over several Invokes so its state is exercised), hybrid
// BATCH_MATMUL and UNIDIRECTIONAL_SEQUENCE_LSTM (float and hybrid, state
// over several Invokes) against native LiteRT (tests/testing/litert_golden.h).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/litert_golden.h"

namespace relite {
namespace {

using testing::GoldenCase;
using tflite::BuiltinOperator;
using Cases = std::vector<std::unique_ptr<GoldenCase>>;

std::vector<float> Uniform(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = std::uniform_real_distribution<float>(lo, hi)(rng);
  return v;
}

template <typename T>
std::vector<T> Ints(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(std::uniform_int_distribution<int>(lo, hi)(rng));
  return v;
}

Quantization Quant(float scale, int64_t zero_point = 0) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

TEST(LiteRtGoldenSignalTest, Rfft2d) {
  Cases cases;
  struct Fft {
    Shape in;
    int h, w;
  };
  // Exact sizes, zero padding, cropping, both at once, one row, width 2.
  const std::vector<Fft> ffts = {{{4, 8}, 4, 8},       {{2, 3, 5, 6}, 8, 4}, {{1, 16, 32}, 16, 32}, {{3, 7}, 2, 16},
                                 {{2, 1, 8}, 1, 8},    {{5, 2}, 8, 2},       {{2, 64, 64}, 64, 64}, {{3, 3}, 4, 2}};
  uint32_t seed = 1;
  for (const Fft& f : ffts) {
    auto c = std::make_unique<GoldenCase>("RFFT2D/" + ShapeToString(f.in) + " fft " + std::to_string(f.h) + "x" +
                                          std::to_string(f.w));
    const int in = c->model.AddInput(DataType::kFloat32, f.in);
    c->model.AddConstInput<int32_t>(DataType::kInt32, {2}, {f.h, f.w});
    const int out = c->model.AddOutput(DataType::kComplex64);
    c->model.SetBuiltinOp(BuiltinOperator::RFFT2D, 1);
    c->Feed<float>(in, DataType::kFloat32, f.in, Uniform(static_cast<size_t>(NumElements(f.in)), -1, 1, seed++));
    // Both run in double and round once to float: within a float ulp,
    // absolutely 1e-6 where cancellation leaves a value near 0.
    c->Expect(out, 2.5e-7, 1e-6);
    cases.push_back(std::move(c));
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

TEST(LiteRtGoldenSignalTest, ComplexParts) {
  Cases cases;
  const Shape s = {3, 7};
  std::vector<float> parts = Uniform(42, -4, 4, 10);
  parts[0] = 0.f;
  parts[1] = 0.f;
  parts[2] = 3e30f;  // |z| beyond float's square range: hypot, not sqrt(re^2 + im^2)
  parts[3] = -4e30f;
  std::vector<std::complex<float>> z(21);
  for (size_t i = 0; i < z.size(); ++i) z[i] = {parts[2 * i], parts[2 * i + 1]};
  for (auto [op, name] : {std::pair{BuiltinOperator::REAL, "REAL"}, std::pair{BuiltinOperator::IMAG, "IMAG"},
                          std::pair{BuiltinOperator::COMPLEX_ABS, "COMPLEX_ABS"}}) {
    auto c = std::make_unique<GoldenCase>(std::string(name) + "/complex64");
    const int in = c->model.AddInput(DataType::kComplex64, s);
    const int out = c->model.AddOutput(DataType::kFloat32);
    c->model.SetBuiltinOp(op, 1);
    c->Feed<std::complex<float>>(in, DataType::kComplex64, s, z);
    c->Expect(out);  // bit-exact (COMPLEX_ABS: both call the C library's hypot)
    cases.push_back(std::move(c));
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

// An SVDF over `steps` Invokes with a new input each time.
struct SvdfSpec {
  std::string name;
  int batch = 2, input_size = 5, filters = 6, rank = 2, memory = 4, steps = 6;
  bool bias = true;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  enum Kind { kFloat, kHybrid, kInt8 } kind = kFloat;
  bool asymmetric = false;
};

void AddSvdf(Cases& cases, const SvdfSpec& s, uint32_t seed) {
  auto c = std::make_unique<GoldenCase>("SVDF/" + s.name);
  const int units = s.filters / s.rank;
  const Shape in_shape = {s.batch, s.input_size};
  const size_t n_in = static_cast<size_t>(s.batch * s.input_size);
  const size_t n_feature = static_cast<size_t>(s.filters * s.input_size);
  const size_t n_time = static_cast<size_t>(s.filters * s.memory);
  int in = 0, version = 1;
  if (s.kind == SvdfSpec::kInt8) {
    in = c->model.AddInput(DataType::kInt8, in_shape, Quant(0.05f, 3));
    c->model.AddConstInput<int8_t>(DataType::kInt8, {s.filters, s.input_size}, Ints<int8_t>(n_feature, -127, 127, seed),
                                   Quant(0.004f));
    c->model.AddConstInput<int16_t>(DataType::kInt16, {s.filters, s.memory}, Ints<int16_t>(n_time, -30000, 30000, seed + 1),
                                    Quant(3e-5f));
    if (s.bias) {
      c->model.AddConstInput<int32_t>(DataType::kInt32, {units}, Ints<int32_t>(static_cast<size_t>(units), -20000, 20000, seed + 2),
                                      Quant(1e-7f));
    } else {
      c->model.AddOptionalInput();
    }
    c->model.AddVariableInput(DataType::kInt16, {s.batch, s.memory * s.filters}, Quant(0.0008f));
    version = 3;
  } else {
    in = c->model.AddInput(DataType::kFloat32, in_shape);
    if (s.kind == SvdfSpec::kHybrid) {
      c->model.AddConstInput<int8_t>(DataType::kInt8, {s.filters, s.input_size}, Ints<int8_t>(n_feature, -127, 127, seed),
                                     Quant(0.006f));
      c->model.AddConstInput<int8_t>(DataType::kInt8, {s.filters, s.memory}, Ints<int8_t>(n_time, -127, 127, seed + 1),
                                     Quant(0.009f));
      version = s.asymmetric ? 4 : 2;
    } else {
      c->model.AddConstInput<float>(DataType::kFloat32, {s.filters, s.input_size}, Uniform(n_feature, -1, 1, seed));
      c->model.AddConstInput<float>(DataType::kFloat32, {s.filters, s.memory}, Uniform(n_time, -1, 1, seed + 1));
    }
    if (s.bias) {
      c->model.AddConstInput<float>(DataType::kFloat32, {units}, Uniform(static_cast<size_t>(units), -1, 1, seed + 2));
    } else {
      c->model.AddOptionalInput();
    }
    c->model.AddVariableInput(DataType::kFloat32, {s.batch, s.memory * s.filters});
  }
  const int out = s.kind == SvdfSpec::kInt8 ? c->model.AddOutput(DataType::kInt8, {}, Quant(0.02f, -20))
                                            : c->model.AddOutput(DataType::kFloat32);
  c->model.SetBuiltinOp(BuiltinOperator::SVDF, version, tflite::BuiltinOptions::SVDFOptions,
                        tflite::CreateSVDFOptions(c->model.fbb(), s.rank, s.activation, s.asymmetric).Union());
  for (int step = 0; step < s.steps; ++step) {
    if (s.kind == SvdfSpec::kInt8) {
      c->Feed<int8_t>(in, DataType::kInt8, in_shape, Ints<int8_t>(n_in, -128, 127, seed + 10 + static_cast<uint32_t>(step)));
    } else {
      std::vector<float> x = Uniform(n_in, -2, 3, seed + 10 + static_cast<uint32_t>(step));
      if (step == 2) std::fill(x.begin(), x.begin() + s.input_size, 0.f);  // an all-zero row
      c->Feed<float>(in, DataType::kFloat32, in_shape, x);
    }
  }
  if (s.kind == SvdfSpec::kInt8) {
    c->Expect(out);
  } else {
    c->Expect(out, 1e-5, 1e-5);  // float sums in another order
  }
  cases.push_back(std::move(c));
}

TEST(LiteRtGoldenSignalTest, Svdf) {
  Cases cases;
  using A = tflite::ActivationFunctionType;
  uint32_t seed = 100;
  for (SvdfSpec::Kind kind : {SvdfSpec::kFloat, SvdfSpec::kHybrid}) {
    const std::string k = kind == SvdfSpec::kFloat ? "float" : "hybrid";
    SvdfSpec s;
    s.kind = kind;
    s.name = k + " rank 2";
    AddSvdf(cases, s, seed += 20);
    s.name = k + " rank 1 relu no bias";
    s.rank = 1;
    s.bias = false;
    s.activation = A::RELU;
    AddSvdf(cases, s, seed += 20);
    s.name = k + " batch 1 memory 10 input 40";
    s.batch = 1;
    s.memory = 10;
    s.input_size = 40;
    s.filters = 8;
    s.rank = 4;
    s.bias = true;
    s.steps = 13;
    AddSvdf(cases, s, seed += 20);
    if (kind == SvdfSpec::kHybrid) {
      SvdfSpec a;
      a.kind = kind;
      a.asymmetric = true;
      a.name = "hybrid asymmetric";
      AddSvdf(cases, a, seed += 20);
      a.name = "hybrid asymmetric memory 1";
      a.memory = 1;
      a.activation = A::RELU6;
      AddSvdf(cases, a, seed += 20);
    }
  }
  for (int variant = 0; variant < 3; ++variant) {
    SvdfSpec s;
    s.kind = SvdfSpec::kInt8;
    s.activation = A::RELU;
    s.name = "int8 " + std::to_string(variant);
    if (variant == 1) {
      s.rank = 1;
      s.bias = false;
      s.batch = 3;
    } else if (variant == 2) {
      s.batch = 1;
      s.input_size = 32;
      s.filters = 16;
      s.rank = 2;
      s.memory = 8;
      s.steps = 11;
    }
    AddSvdf(cases, s, seed += 20);
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

TEST(LiteRtGoldenSignalTest, HybridBatchMatMul) {
  Cases cases;
  struct Mm {
    Shape x, y;
    bool adj_x, adj_y;
  };
  const std::vector<Mm> mms = {
      {{2, 7, 9}, {2, 9, 33}, false, false}, {{2, 9, 7}, {2, 33, 9}, true, true},  {{4, 1, 6, 8}, {3, 8, 5}, false, false},
      {{6, 20, 16}, {16, 18}, false, false}, {{1, 1, 64}, {1, 40, 64}, false, true}, {{3, 40, 12}, {40, 36}, true, false},
  };
  uint32_t seed = 300;
  for (bool asymmetric : {false, true}) {
    for (const Mm& mm : mms) {
      auto c = std::make_unique<GoldenCase>("BATCH_MATMUL/hybrid" + std::string(asymmetric ? " asymmetric " : " ") +
                                            ShapeToString(mm.x) + (mm.adj_x ? "^T" : "") + " x " + ShapeToString(mm.y) +
                                            (mm.adj_y ? "^T" : ""));
      std::vector<float> x = Uniform(static_cast<size_t>(NumElements(mm.x)), -2, 3, seed++);
      if (!mm.adj_x) std::fill(x.begin(), x.begin() + mm.x.back(), 0.f);  // an all-zero row
      const int ix = c->model.AddInput(DataType::kFloat32, mm.x);
      c->model.AddConstInput<int8_t>(DataType::kInt8, mm.y, Ints<int8_t>(static_cast<size_t>(NumElements(mm.y)), -127, 127, seed++),
                                     Quant(0.0123f));
      const int out = c->model.AddOutput(DataType::kFloat32);
      c->model.SetBuiltinOp(BuiltinOperator::BATCH_MATMUL, asymmetric ? 4 : 1, tflite::BuiltinOptions::BatchMatMulOptions,
                            tflite::CreateBatchMatMulOptions(c->model.fbb(), mm.adj_x, mm.adj_y, asymmetric).Union());
      c->Feed<float>(ix, DataType::kFloat32, mm.x, x);
      // Symmetric: exact integer sums and the same two float products, bit-exact.
      // Asymmetric: LiteRT's zero-point correction rounds differently in the
      // last bit (observed: at most 1 ulp), so a 2-ulp relative bound.
      if (asymmetric) {
        c->Expect(out, 2.5e-7, 1e-7);
      } else {
        c->Expect(out);
      }
      cases.push_back(std::move(c));
    }
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

// An UNIDIRECTIONAL_SEQUENCE_LSTM over `invokes` Invokes with a new input
// sequence each time (the output and cell state are variables carried across).
struct LstmSpec {
  std::string name;
  int batch = 2, time = 4, n_input = 5, n_cell = 6, n_output = 6, invokes = 3;
  bool hybrid = true, asymmetric = false, time_major = false;
  bool cifg = false, peephole = false, projection = false, projection_bias = true, layer_norm = false;
  float cell_clip = 0.f, proj_clip = 0.f;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::TANH;
};

void AddLstm(Cases& cases, const LstmSpec& s, uint32_t seed) {
  auto c = std::make_unique<GoldenCase>(std::string("UNIDIRECTIONAL_SEQUENCE_LSTM/") + (s.hybrid ? "hybrid " : "float ") + s.name);
  GoldenCase& g = *c;
  const Shape in_shape = s.time_major ? Shape{s.time, s.batch, s.n_input} : Shape{s.batch, s.time, s.n_input};
  const int in = g.model.AddInput(DataType::kFloat32, in_shape);
  // A weight matrix: int8 with one symmetric scale (hybrid) or float.
  auto weights = [&](const Shape& shape, float scale) {
    const size_t n = static_cast<size_t>(NumElements(shape));
    if (s.hybrid) {
      g.model.AddConstInput<int8_t>(DataType::kInt8, shape, Ints<int8_t>(n, -127, 127, seed++), Quant(scale));
    } else {
      g.model.AddConstInput<float>(DataType::kFloat32, shape, Uniform(n, -127 * scale, 127 * scale, seed++));
    }
  };
  auto floats = [&](int n, float lo, float hi) {
    g.model.AddConstInput<float>(DataType::kFloat32, {n}, Uniform(static_cast<size_t>(n), lo, hi, seed++));
  };
  for (int gate = 0; gate < 4; ++gate) {  // 1..4 input-to-gate weights
    if (gate == 0 && s.cifg) {
      g.model.AddOptionalInput();
    } else {
      weights({s.n_cell, s.n_input}, 0.006f + 0.001f * static_cast<float>(gate));
    }
  }
  for (int gate = 0; gate < 4; ++gate) {  // 5..8 recurrent-to-gate weights
    if (gate == 0 && s.cifg) {
      g.model.AddOptionalInput();
    } else {
      weights({s.n_cell, s.n_output}, 0.005f + 0.0015f * static_cast<float>(gate));
    }
  }
  for (int gate : {0, 1, 3}) {  // 9..11 peephole (cell-to-gate) weights
    if (s.peephole && !(gate == 0 && s.cifg)) {
      weights({s.n_cell}, 0.004f);
    } else {
      g.model.AddOptionalInput();
    }
  }
  for (int gate = 0; gate < 4; ++gate) {  // 12..15 gate biases
    if (gate == 0 && s.cifg) {
      g.model.AddOptionalInput();
    } else {
      floats(s.n_cell, -0.5f, 0.5f);
    }
  }
  if (s.projection) {  // 16, 17
    weights({s.n_output, s.n_cell}, 0.007f);
    if (s.projection_bias) {
      floats(s.n_output, -0.2f, 0.2f);
    } else {
      g.model.AddOptionalInput();
    }
  } else {
    g.model.AddOptionalInput();
    g.model.AddOptionalInput();
  }
  g.model.AddVariableInput(DataType::kFloat32, {s.batch, s.n_output});  // 18 output state
  g.model.AddVariableInput(DataType::kFloat32, {s.batch, s.n_cell});    // 19 cell state
  for (int gate = 0; gate < 4; ++gate) {                                  // 20..23 layer norm
    if (s.layer_norm && !(gate == 0 && s.cifg)) {
      floats(s.n_cell, 0.5f, 1.5f);
    } else {
      g.model.AddOptionalInput();
    }
  }
  const int out = g.model.AddOutput(DataType::kFloat32);
  // v1 float, v2 hybrid, v3 hybrid with asymmetric inputs.
  const int version = s.hybrid ? (s.asymmetric ? 3 : 2) : 1;
  g.model.SetBuiltinOp(BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM, version,
                       tflite::BuiltinOptions::UnidirectionalSequenceLSTMOptions,
                       tflite::CreateUnidirectionalSequenceLSTMOptions(g.model.fbb(), s.activation, s.cell_clip, s.proj_clip,
                                                                       s.time_major, s.asymmetric, false)
                           .Union());
  const size_t n_in = static_cast<size_t>(NumElements(in_shape));
  for (int step = 0; step < s.invokes; ++step) {
    std::vector<float> x = Uniform(n_in, -1.5f, 2.f, seed++);
    if (step == 1) std::fill(x.begin(), x.begin() + s.n_input, 0.f);  // an all-zero input row
    if (step == 2 && s.batch * s.time > 1) {
      std::fill(x.end() - s.n_input, x.end(), 0.f);  // and at another time step / batch row
    }
    g.Feed<float>(in, DataType::kFloat32, in_shape, x);
  }
  // The integer sums, scales and float additions are TFLite's, in its order;
  // what differs is sigmoid and tanh: LiteRT evaluates them with Eigen's
  // rational approximations, relite with the C library's exp and tanh, a few
  // float ulps apart. Carried through the steps that stays below 5e-7 on
  // outputs of magnitude <= 2 (measured: 4.8e-7 at most over these cases);
  // a single input or state value quantized to another int8 step would move
  // a pre-activation by s * weight_scale >= ~1e-4 here, and outputs by
  // ~1e-5 or more, so the bound still tells a numerics change from noise.
  c->Expect(out, 1e-5, 2e-6);
  cases.push_back(std::move(c));
}

TEST(LiteRtGoldenSignalTest, UnidirectionalSequenceLstm) {
  Cases cases;
  using A = tflite::ActivationFunctionType;
  uint32_t seed = 500;
  for (bool asymmetric : {false, true}) {
    const std::string q = asymmetric ? "asymmetric " : "";
    LstmSpec s;
    s.asymmetric = asymmetric;
    s.name = q + "plain";
    AddLstm(cases, s, seed += 100);
    s.name = q + "peephole time-major cell clip";
    s.peephole = true;
    s.time_major = true;
    s.cell_clip = 0.8f;
    AddLstm(cases, s, seed += 100);
    s.name = q + "peephole projection proj clip";
    s.time_major = false;
    s.cell_clip = 0.f;
    s.projection = true;
    s.n_output = 4;
    s.proj_clip = 0.25f;
    AddLstm(cases, s, seed += 100);
    s.name = q + "projection without bias time-major";
    s.peephole = false;
    s.projection_bias = false;
    s.proj_clip = 0.f;
    s.time_major = true;
    AddLstm(cases, s, seed += 100);
    s = LstmSpec{};
    s.asymmetric = asymmetric;
    s.name = q + "CIFG peephole layer norm";
    s.cifg = true;
    s.peephole = true;
    s.layer_norm = true;
    AddLstm(cases, s, seed += 100);
    s.name = q + "layer norm projection relu6 time-major";
    s.cifg = false;
    s.peephole = false;
    s.projection = true;
    s.n_output = 3;
    s.time_major = true;
    s.activation = A::RELU6;
    AddLstm(cases, s, seed += 100);
    s = LstmSpec{};
    s.asymmetric = asymmetric;
    s.name = q + "batch 1 input 40 cells 24 outputs 12 time 7";
    s.batch = 1;
    s.time = 7;
    s.n_input = 40;
    s.n_cell = 24;
    s.n_output = 12;
    s.projection = true;
    s.peephole = true;
    AddLstm(cases, s, seed += 100);
    s.name = q + "batch 3 time-major input 33 cells 17";
    s.batch = 3;
    s.time = 5;
    s.n_input = 33;
    s.n_cell = 17;
    s.n_output = 17;
    s.projection = false;
    s.time_major = true;
    AddLstm(cases, s, seed += 100);
  }
  // The float kernel on the same shapes, for comparison.
  LstmSpec f;
  f.hybrid = false;
  f.name = "peephole projection";
  f.peephole = true;
  f.projection = true;
  f.n_output = 4;
  AddLstm(cases, f, seed += 100);
  f.name = "layer norm time-major";
  f.peephole = false;
  f.projection = false;
  f.n_output = 6;
  f.layer_norm = true;
  f.time_major = true;
  AddLstm(cases, f, seed += 100);
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

}  // namespace
}  // namespace relite
