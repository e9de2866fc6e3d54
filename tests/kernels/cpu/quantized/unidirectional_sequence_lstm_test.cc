// Integer UNIDIRECTIONAL_SEQUENCE_LSTM: the fixed-point gate nonlinearities
// by hand, a float reference LSTM, bit-exact cases recorded from TFLite
// (LiteRT 2.3.0, builtin kernels), state persistence across Invokes, and
// error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "relite/relite.h"
#include "src/kernels/cpu/internal/lstm_fixed_point.h"
#include "tflite_generated.h"

namespace relite {
namespace {

namespace fp = cpu::lstm_fp;

// ---------------------------------------------------------------------------
// Fixed-point nonlinearities.

TEST(LstmFixedPoint, MulRoundsTiesUpAndSaturatesMinusOneSquared) {
  EXPECT_EQ(fp::Mul(1, 16384), 1);   // +0.5 ulp -> 1
  EXPECT_EQ(fp::Mul(-1, 16384), 0);  // -0.5 ulp -> 0 (gemmlowp's nudge)
  EXPECT_EQ(fp::Mul(3, 16384), 2);   // 1.5 -> 2
  EXPECT_EQ(fp::Mul(-3, 16384), -1);  // -1.5 -> -1
  EXPECT_EQ(fp::Mul(INT16_MIN, INT16_MIN), INT16_MAX);
  EXPECT_EQ(fp::Mul(INT16_MIN, INT16_MAX), -32767);
}

TEST(LstmFixedPoint, RoundingShiftAndPowerOfTwo) {
  EXPECT_EQ(fp::RoundingShiftRight(3, 1), 2);    // 1.5 -> 2
  EXPECT_EQ(fp::RoundingShiftRight(-3, 1), -2);  // -1.5 -> -2 (away from zero)
  EXPECT_EQ(fp::RoundingShiftRight(5, 2), 1);    // 1.25 -> 1
  EXPECT_EQ(fp::RoundingShiftRight(-6, 2), -2);  // -1.5 -> -2
  EXPECT_EQ(fp::MulByPow2(4095, 3), 32760);
  EXPECT_EQ(fp::MulByPow2(4096, 3), INT16_MAX);   // saturates above (2^12 - 1)
  EXPECT_EQ(fp::MulByPow2(-4096, 3), INT16_MIN);  // and below -(2^12 - 1)
  EXPECT_EQ(fp::MulByPow2(-4095, 3), -32760);
  // gemmlowp constants are Q31 values divided by 2^16 with rounding.
  EXPECT_EQ(fp::Constant(1 << 30), 16384);
  EXPECT_EQ(fp::Constant(715827883), 10923);   // 1/3: 10922.67 -> 10923
  EXPECT_EQ(fp::Constant(1895147668), 28918);  // exp(-1/8): 28917.66 -> 28918
  EXPECT_EQ(fp::Constant(242), 0);
}

TEST(LstmFixedPoint, ExpOnQuarterIntervalByHand) {
  // a = -0.25 (Q0.15 raw -8192), traced by hand through the Taylor step:
  //   x = a + 1/8 = -4096; x^2 = Mul(-4096,-4096) = 512; x^3 = Mul(512,-4096) = -64;
  //   x^4 = Mul(512,512) = 8 (8.5 truncated after the nudge); x^4/4 = 2;
  //   (2 + -64) * 1/3: Mul(-62, 10923) = -21; -21 + 512 = 491; 491/2 -> 246;
  //   e^-1/8 * (x + 246) = Mul(28918, -3850) = -3398; 28918 - 3398 = 25520.
  // exp(-0.25) * 32768 = 25520.2.
  EXPECT_EQ(fp::ExpQuarterInterval(-8192), 25520);
  EXPECT_EQ(fp::ExpOnNegative<3>(0), INT16_MAX);
  // exp(-0.25) in Q3.12 (-1024): the same interval step, bit 0 of the barrel
  // shifter unused.
  EXPECT_EQ(fp::ExpOnNegative<3>(-1024), 25520);
}

TEST(LstmFixedPoint, LogisticAndTanhFixedPointsAndSaturation) {
  EXPECT_EQ(fp::Logistic<3>(0), 16384);  // exactly one half
  EXPECT_EQ(fp::Tanh<3>(0), 0);
  // Saturated ends: sigmoid(8) = 0.99966 -> 32757.x, tanh(8) = 1 - 2.3e-7.
  EXPECT_GE(fp::Logistic<3>(INT16_MAX), 32750);
  EXPECT_LE(fp::Logistic<3>(INT16_MIN), 17);
  EXPECT_GE(fp::Tanh<3>(INT16_MAX), 32760);
  EXPECT_LE(fp::Tanh<3>(INT16_MIN), -32760);
  for (int v = 1; v <= 32767; ++v) {
    const auto x = static_cast<int16_t>(v);
    // The negative half is derived exactly from the positive one.
    ASSERT_EQ(fp::Logistic<3>(static_cast<int16_t>(-v)), 32767 - fp::Logistic<3>(x)) << v;
    ASSERT_EQ(fp::Tanh<3>(static_cast<int16_t>(-v)), -fp::Tanh<3>(x)) << v;
  }
}

// Every int16 input within a few Q0.15 steps of the real function. (Not
// monotone: the 16-bit barrel shifter and Newton steps of gemmlowp, which
// TFLite runs, wobble by a few steps; the LSTM matches TFLite bit for bit,
// wobbles included.)
template <typename Fn, typename Ref>
int WorstError(Fn fn, Ref ref, double input_scale) {
  int worst = 0;
  for (int v = INT16_MIN; v <= INT16_MAX; ++v) {
    const int got = fn(static_cast<int16_t>(v));
    const double want = ref(v * input_scale) * 32768.0;
    worst = std::max(worst, static_cast<int>(std::ceil(std::abs(got - want))));
  }
  return worst;
}

TEST(LstmFixedPoint, AccurateOverAllInputs) {
  auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  auto tanh = [](double x) { return std::tanh(x); };
  // gemmlowp's polynomial/Newton steps in 16 bits lose a few ulps.
  // Measured bounds of gemmlowp's 16-bit functions (what TFLite computes):
  // 7 Q0.15 steps for the logistic, 13 for tanh. A wrong constant, shift or
  // barrel-shifter bit costs hundreds.
  EXPECT_LE(WorstError(&fp::Logistic<3>, sigmoid, 1.0 / 4096), 7);
  for (int bits = 0; bits <= 6; ++bits) {
    EXPECT_LE(WorstError(fp::TanhForIntegerBits(bits), tanh, std::ldexp(1.0, bits - 15)), 13) << bits;
  }
  EXPECT_EQ(fp::TanhForIntegerBits(7), nullptr);
}

// ---------------------------------------------------------------------------
// A one-op LSTM model written with the flatbuffers API (variable state
// tensors and intermediates are beyond SingleOpModel).

// Small deterministic generator (portable, unlike <random> distributions).
struct Lcg {
  uint64_t s;
  explicit Lcg(uint64_t seed) : s(seed * 6364136223846793005ULL + 1442695040888963407ULL) {}
  uint32_t Next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(s >> 33);
  }
  int Int(int lo, int hi) { return lo + static_cast<int>(Next() % static_cast<uint32_t>(hi - lo + 1)); }
  float Uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(Next() % 1000000) / 1e6f; }
};

struct LstmSpec {
  int batch = 1, time = 3, n_input = 4, n_cell = 5, n_output = 5;
  bool time_major = false, cifg = false, peephole = false, projection = false, layer_norm = false;
  float cell_clip = 0.f, proj_clip = 0.f;
  float in_scale = 0.02f;
  int in_zp = 3;
  float state_scale = 0.01f;
  int state_zp = -2;
  int cell_log2 = -12;
  float hidden_scale = 0.007f;
  int hidden_zp = 1;
  // Per gate (input, forget, cell, output).
  std::vector<int8_t> w_in[4], w_rec[4];
  float s_in[4] = {}, s_rec[4] = {};
  std::vector<int32_t> bias[4];
  float bias_scale[4] = {};
  std::vector<int16_t> peep[4];  // index 2 (cell gate) unused
  float s_peep[4] = {};
  std::vector<int16_t> ln[4];
  float s_ln[4] = {};
  float gate_scale[4] = {};  // layer-norm intermediates
  std::vector<int8_t> w_proj;
  float s_proj = 0.f;
  std::vector<int32_t> proj_bias;
  // Knobs for the error-path tests.
  int num_inputs = 24;
  int num_intermediates = 5;
  bool state_is_variable = true;
  tflite::TensorType bias_type = tflite::TensorType::INT32;
};

LstmSpec RandomSpec(uint64_t seed, bool cifg, bool peephole, bool projection, bool layer_norm) {
  Lcg r(seed);
  LstmSpec s;
  s.batch = r.Int(1, 3);
  s.time = r.Int(1, 5);
  s.n_input = r.Int(1, 9);
  s.n_cell = r.Int(2, 9);
  s.n_output = projection ? r.Int(1, s.n_cell) : s.n_cell;
  s.time_major = r.Int(0, 1) == 1;
  s.cifg = cifg;
  s.peephole = peephole;
  s.projection = projection;
  s.layer_norm = layer_norm;
  s.cell_clip = r.Int(0, 1) ? r.Uniform(1.f, 4.f) : 0.f;
  s.in_scale = r.Uniform(0.01f, 0.03f);
  s.in_zp = r.Int(-20, 20);
  s.state_scale = r.Uniform(0.006f, 0.012f);
  s.state_zp = r.Int(-10, 10);
  s.cell_log2 = r.Int(-13, -10);
  s.hidden_scale = r.Uniform(0.005f, 0.009f);
  s.hidden_zp = r.Int(-5, 5);
  if (!projection) {
    // Without projection the hidden state is the output state: the converter
    // gives the hidden intermediate the output state's parameters.
    s.hidden_scale = s.state_scale;
    s.hidden_zp = s.state_zp;
  }
  for (int g = 0; g < 4; ++g) {
    // Every intermediate, CIFG's too; wide enough that the pre-activations
    // (|.| < ~25 here) do not saturate int16 before the normalisation.
    if (layer_norm) s.gate_scale[g] = r.Uniform(0.0008f, 0.0012f);
    if (g == 0 && cifg) continue;
    s.s_in[g] = r.Uniform(0.003f, 0.01f);
    s.s_rec[g] = r.Uniform(0.003f, 0.01f);
    for (int k = 0; k < s.n_cell * s.n_input; ++k) s.w_in[g].push_back(static_cast<int8_t>(r.Int(-127, 127)));
    for (int k = 0; k < s.n_cell * s.n_output; ++k) s.w_rec[g].push_back(static_cast<int8_t>(r.Int(-127, 127)));
    if (layer_norm) {
      s.s_ln[g] = r.Uniform(0.00003f, 0.00006f);
      s.bias_scale[g] = s.s_ln[g] / 1024;
      for (int k = 0; k < s.n_cell; ++k) {
        s.ln[g].push_back(static_cast<int16_t>(r.Int(15000, 30000)));
        s.bias[g].push_back(r.Int(-3000000, 3000000));
      }
    } else {
      s.bias_scale[g] = s.in_scale * s.s_in[g];
      for (int k = 0; k < s.n_cell; ++k) s.bias[g].push_back(r.Int(-3000, 3000));
    }
    if (peephole && g != 2) {
      s.s_peep[g] = r.Uniform(0.00001f, 0.00003f);
      for (int k = 0; k < s.n_cell; ++k) s.peep[g].push_back(static_cast<int16_t>(r.Int(-32000, 32000)));
    }
  }
  if (projection) {
    s.s_proj = r.Uniform(0.003f, 0.01f);
    for (int k = 0; k < s.n_output * s.n_cell; ++k) s.w_proj.push_back(static_cast<int8_t>(r.Int(-127, 127)));
    for (int k = 0; k < s.n_output; ++k) s.proj_bias.push_back(r.Int(-2000, 2000));
  }
  return s;
}

std::vector<uint8_t> BuildLstmModel(const LstmSpec& s) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers{tflite::CreateBuffer(fbb)};
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  auto add = [&](const std::vector<int32_t>& shape, tflite::TensorType type, const void* data, size_t bytes, float scale,
                 int64_t zp, bool has_quant, bool variable = false) {
    uint32_t buffer = 0;
    if (data != nullptr) {
      fbb.ForceVectorAlignment(bytes, 1, 16);
      auto v = fbb.CreateVector(static_cast<const uint8_t*>(data), bytes);
      buffers.push_back(tflite::CreateBuffer(fbb, v));
      buffer = static_cast<uint32_t>(buffers.size() - 1);
    }
    flatbuffers::Offset<tflite::QuantizationParameters> q = 0;
    if (has_quant) {
      std::vector<float> sc{scale};
      std::vector<int64_t> zps{zp};
      q = tflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(sc), fbb.CreateVector(zps));
    }
    const int index = static_cast<int>(tensors.size());
    tensors.push_back(tflite::CreateTensor(fbb, fbb.CreateVector(shape), type, buffer,
                                           fbb.CreateString(std::to_string(index)), q, variable));
    return index;
  };
  std::vector<int32_t> inputs(24, -1);
  const std::vector<int32_t> in_shape =
      s.time_major ? std::vector<int32_t>{s.time, s.batch, s.n_input} : std::vector<int32_t>{s.batch, s.time, s.n_input};
  inputs[0] = add(in_shape, tflite::TensorType::INT8, nullptr, 0, s.in_scale, s.in_zp, true);
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && s.cifg) continue;
    inputs[1 + g] = add({s.n_cell, s.n_input}, tflite::TensorType::INT8, s.w_in[g].data(), s.w_in[g].size(), s.s_in[g], 0, true);
    inputs[5 + g] =
        add({s.n_cell, s.n_output}, tflite::TensorType::INT8, s.w_rec[g].data(), s.w_rec[g].size(), s.s_rec[g], 0, true);
    if (s.bias_type == tflite::TensorType::INT32) {
      inputs[12 + g] = add({s.n_cell}, tflite::TensorType::INT32, s.bias[g].data(), s.bias[g].size() * 4, s.bias_scale[g], 0, true);
    } else {
      std::vector<int8_t> b(s.bias[g].size(), 0);
      inputs[12 + g] = add({s.n_cell}, s.bias_type, b.data(), b.size(), s.bias_scale[g], 0, true);
    }
    if (s.peephole && g != 2) {
      const int slot = g == 0 ? 9 : (g == 1 ? 10 : 11);
      inputs[slot] = add({s.n_cell}, tflite::TensorType::INT16, s.peep[g].data(), s.peep[g].size() * 2, s.s_peep[g], 0, true);
    }
    if (s.layer_norm) {
      inputs[20 + g] = add({s.n_cell}, tflite::TensorType::INT16, s.ln[g].data(), s.ln[g].size() * 2, s.s_ln[g], 0, true);
    }
  }
  if (s.projection) {
    inputs[16] = add({s.n_output, s.n_cell}, tflite::TensorType::INT8, s.w_proj.data(), s.w_proj.size(), s.s_proj, 0, true);
    if (!s.proj_bias.empty()) {
      inputs[17] = add({s.n_output}, tflite::TensorType::INT32, s.proj_bias.data(), s.proj_bias.size() * 4,
                       s.hidden_scale * s.s_proj, 0, true);
    }
  }
  // A non-variable state (error test) must be readable: give it constant data.
  const std::vector<int16_t> zeros(static_cast<size_t>(s.batch) * std::max(s.n_output, s.n_cell), 0);
  inputs[18] = add({s.batch, s.n_output}, tflite::TensorType::INT8, s.state_is_variable ? nullptr : zeros.data(),
                   static_cast<size_t>(s.batch) * s.n_output, s.state_scale, s.state_zp, true, s.state_is_variable);
  inputs[19] = add({s.batch, s.n_cell}, tflite::TensorType::INT16, s.state_is_variable ? nullptr : zeros.data(),
                   static_cast<size_t>(s.batch) * s.n_cell * 2, std::ldexp(1.f, s.cell_log2), 0, true,
                   s.state_is_variable);
  std::vector<int32_t> intermediates;
  for (int g = 0; g < 4; ++g) {
    intermediates.push_back(s.layer_norm ? add({0}, tflite::TensorType::INT16, nullptr, 0, s.gate_scale[g], 0, true)
                                         : add({0}, tflite::TensorType::FLOAT32, nullptr, 0, 0.f, 0, false));
  }
  intermediates.push_back(add({0}, tflite::TensorType::INT8, nullptr, 0, s.hidden_scale, s.hidden_zp, true));
  intermediates.resize(static_cast<size_t>(s.num_intermediates));
  std::vector<int32_t> out_shape = in_shape;
  out_shape[2] = s.n_output;
  const int output = add(out_shape, tflite::TensorType::INT8, nullptr, 0, s.state_scale, s.state_zp, true);
  inputs.resize(static_cast<size_t>(s.num_inputs), -1);

  auto options = tflite::CreateUnidirectionalSequenceLSTMOptions(fbb, tflite::ActivationFunctionType::TANH, s.cell_clip,
                                                                 s.proj_clip, s.time_major);
  std::vector<int32_t> outputs{output};
  auto op = tflite::CreateOperator(fbb, 0, fbb.CreateVector(inputs), fbb.CreateVector(outputs),
                                   tflite::BuiltinOptions::UnidirectionalSequenceLSTMOptions, options.Union(), 0,
                                   tflite::CustomOptionsFormat::FLEXBUFFERS, 0, fbb.CreateVector(intermediates));
  std::vector<int32_t> graph_inputs{inputs[0]};
  auto subgraph = tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(graph_inputs),
                                         fbb.CreateVector(outputs), fbb.CreateVector(&op, 1), fbb.CreateString("main"));
  auto opcode = tflite::CreateOperatorCode(fbb, 44, 0, 1, tflite::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM);
  auto model = tflite::CreateModel(fbb, 3, fbb.CreateVector(&opcode, 1), fbb.CreateVector(&subgraph, 1),
                                   fbb.CreateString("lstm test"), fbb.CreateVector(buffers));
  tflite::FinishModelBuffer(fbb, model);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

struct LstmRunner {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
  BuiltinOpResolver resolver;
  std::unique_ptr<Interpreter> interpreter;

  // Loads, builds and allocates; the first failing status otherwise.
  Status Init(const LstmSpec& spec, int threads = 1) {
    bytes = BuildLstmModel(spec);
    RELITE_ASSIGN_OR_RETURN(model, Model::FromBuffer(bytes.data(), bytes.size(), "lstm"));
    RELITE_ASSIGN_OR_RETURN(interpreter, InterpreterBuilder(*model, resolver).SetNumThreads(threads).Build());
    return interpreter->AllocateTensors();
  }
  std::vector<int8_t> Run(const std::vector<int8_t>& x) {
    Tensor* in = interpreter->input_tensor(0);
    EXPECT_EQ(in->bytes, x.size());
    std::copy(x.begin(), x.end(), in->data_as<int8_t>());
    const Status s = interpreter->Invoke();
    EXPECT_TRUE(s.ok()) << s.ToString();
    const Tensor* out = interpreter->output_tensor(0);
    return std::vector<int8_t>(out->data_as<int8_t>(), out->data_as<int8_t>() + out->bytes);
  }
};

std::vector<int8_t> RandomInput(const LstmSpec& s, uint64_t seed) {
  Lcg r(seed);
  std::vector<int8_t> x(static_cast<size_t>(s.batch) * s.time * s.n_input);
  for (auto& v : x) v = static_cast<int8_t>(r.Int(-128, 127));
  return x;
}

// Writes a spec's model and input for the LiteRT script that produced the
// expected outputs below (RELITE_LSTM_DUMP_DIR=dir; not part of a normal run).
void MaybeDump(const std::string& name, const LstmSpec& s, const std::vector<int8_t>& x) {
  const char* dir = std::getenv("RELITE_LSTM_DUMP_DIR");
  if (dir == nullptr) return;
  const std::vector<uint8_t> bytes = BuildLstmModel(s);
  std::ofstream(std::string(dir) + "/" + name + ".tflite", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::ofstream(std::string(dir) + "/" + name + ".bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(x.size()));
}

// ---------------------------------------------------------------------------
// Float reference LSTM on the dequantized weights and input.

std::vector<float> Dequantize(const std::vector<int8_t>& q, float scale, int zp = 0) {
  std::vector<float> r(q.size());
  for (size_t i = 0; i < q.size(); ++i) r[i] = scale * static_cast<float>(q[i] - zp);
  return r;
}

std::vector<float> FloatLstm(const LstmSpec& s, const std::vector<int8_t>& xq) {
  const int nb = s.batch, nt = s.time, ni = s.n_input, nc = s.n_cell, no = s.n_output;
  const std::vector<float> x = Dequantize(xq, s.in_scale, s.in_zp);
  std::vector<float> out(static_cast<size_t>(nb) * nt * no);
  auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  for (int b = 0; b < nb; ++b) {
    std::vector<double> h(static_cast<size_t>(no), 0.0), c(static_cast<size_t>(nc), 0.0);
    for (int t = 0; t < nt; ++t) {
      const size_t row = s.time_major ? static_cast<size_t>(t) * nb + b : static_cast<size_t>(b) * nt + t;
      const float* xt = x.data() + row * ni;
      auto preact = [&](int g, const std::vector<double>& cell, bool peep) {
        std::vector<double> a(static_cast<size_t>(nc));
        for (int r = 0; r < nc; ++r) {
          double v = 0;
          for (int k = 0; k < ni; ++k) v += s.s_in[g] * s.w_in[g][static_cast<size_t>(r * ni + k)] * xt[k];
          for (int k = 0; k < no; ++k) v += s.s_rec[g] * s.w_rec[g][static_cast<size_t>(r * no + k)] * h[static_cast<size_t>(k)];
          if (peep) v += s.s_peep[g] * s.peep[g][static_cast<size_t>(r)] * cell[static_cast<size_t>(r)];
          a[static_cast<size_t>(r)] = v;
        }
        if (s.layer_norm) {
          double mean = 0, var = 0;
          for (double v : a) mean += v;
          mean /= nc;
          for (double v : a) var += (v - mean) * (v - mean);
          var /= nc;
          for (int r = 0; r < nc; ++r) {
            const double n = (a[static_cast<size_t>(r)] - mean) / std::sqrt(var + 1e-8);
            a[static_cast<size_t>(r)] = n * s.s_ln[g] * s.ln[g][static_cast<size_t>(r)] +
                                        static_cast<double>(s.bias_scale[g]) * s.bias[g][static_cast<size_t>(r)];
          }
        } else {
          for (int r = 0; r < nc; ++r) a[static_cast<size_t>(r)] += static_cast<double>(s.bias_scale[g]) * s.bias[g][static_cast<size_t>(r)];
        }
        return a;
      };
      const std::vector<double> f = preact(1, c, s.peephole), g = preact(2, c, false);
      const std::vector<double> i = s.cifg ? std::vector<double>() : preact(0, c, s.peephole);
      for (int r = 0; r < nc; ++r) {
        const double fr = sigmoid(f[static_cast<size_t>(r)]);
        const double ir = s.cifg ? 1.0 - fr : sigmoid(i[static_cast<size_t>(r)]);
        double cr = fr * c[static_cast<size_t>(r)] + ir * std::tanh(g[static_cast<size_t>(r)]);
        if (s.cell_clip > 0) cr = std::clamp<double>(cr, -s.cell_clip, s.cell_clip);
        c[static_cast<size_t>(r)] = cr;
      }
      const std::vector<double> o = preact(3, c, s.peephole);
      std::vector<double> hidden(static_cast<size_t>(nc));
      for (int r = 0; r < nc; ++r) hidden[static_cast<size_t>(r)] = sigmoid(o[static_cast<size_t>(r)]) * std::tanh(c[static_cast<size_t>(r)]);
      if (s.projection) {
        for (int k = 0; k < no; ++k) {
          double v = s.proj_bias.empty() ? 0.0 : static_cast<double>(s.hidden_scale) * s.s_proj * s.proj_bias[static_cast<size_t>(k)];
          for (int r = 0; r < nc; ++r) v += s.s_proj * s.w_proj[static_cast<size_t>(k * nc + r)] * hidden[static_cast<size_t>(r)];
          h[static_cast<size_t>(k)] = v;
        }
      } else {
        h = hidden;
      }
      for (int k = 0; k < no; ++k) out[row * no + static_cast<size_t>(k)] = static_cast<float>(h[static_cast<size_t>(k)]);
    }
  }
  return out;
}

struct Variant {
  const char* name;
  bool cifg, peephole, projection, layer_norm;
};

class LstmFloatReference : public ::testing::TestWithParam<Variant> {};

// Error budget per output, in output-state steps (state_scale): the output
// itself is rounded (0.5 step) and the recurrent input of every later step
// carries that rounding; the gates are Q3.12 (2^-12, ~0.0002 absolute, well
// under a step of ~0.01) and the cell state is 2^-10..2^-13. The recurrent
// weights here are small (|W_h| * n_output <~ 1), so the error does not grow
// over the 1-5 steps: one step bounds it with margin (measured <= 0.76);
// an arithmetic bug (wrong scale, shift or zero point) moves outputs by many
// steps.
TEST_P(LstmFloatReference, MatchesWithinQuantizationError) {
  const Variant v = GetParam();
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    LstmSpec s = RandomSpec(seed * 7 + 3, v.cifg, v.peephole, v.projection, v.layer_norm);
    if (v.peephole && v.projection && s.n_output < s.n_cell) {
      // TFLite's integer peephole only reaches the first n_output cells (it
      // strides by n_output); the recorded bit-exact cases cover that, the
      // float reference models the textbook LSTM.
      s = RandomSpec(seed * 7 + 3, v.cifg, v.peephole, false, v.layer_norm);
      s.projection = true;
      s.hidden_scale = 0.007f;
      s.hidden_zp = 2;
      s.s_proj = 0.006f;
      Lcg r(seed);
      for (int k = 0; k < s.n_output * s.n_cell; ++k) s.w_proj.push_back(static_cast<int8_t>(r.Int(-127, 127)));
    }
    double budget = 1.0;  // output rounding plus its recurrence (see above)
    if (s.projection) {
      // The hidden vector is rounded to int8 (half a hidden step) before the
      // projection sums n_cell of them: at most 0.5 * hidden_scale * max row
      // sum of |W_p| in real units.
      double row_max = 0;
      for (int o = 0; o < s.n_output; ++o) {
        double row = 0;
        for (int c = 0; c < s.n_cell; ++c) row += std::abs(s.s_proj * s.w_proj[static_cast<size_t>(o * s.n_cell + c)]);
        row_max = std::max(row_max, row);
      }
      budget += 0.5 * s.hidden_scale * row_max / s.state_scale;
    }
    // Layer norm divides the Q3.12-rounded pre-activations by their standard
    // deviation and keeps the normalised value to 2^-10: one more step.
    if (s.layer_norm) budget += 1.0;
    LstmRunner runner;
    const Status st = runner.Init(s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<int8_t> x = RandomInput(s, seed);
    const std::vector<int8_t> got = runner.Run(x);
    const std::vector<float> want = FloatLstm(s, x);
    ASSERT_EQ(got.size(), want.size());
    double worst = 0;
    for (size_t k = 0; k < got.size(); ++k) {
      const double real = s.state_scale * (got[k] - s.state_zp);
      // Outputs beyond the int8 range saturate in both.
      const double lo = s.state_scale * (-128 - s.state_zp), hi = s.state_scale * (127 - s.state_zp);
      worst = std::max(worst, std::abs(real - std::clamp<double>(want[k], lo, hi)) / s.state_scale);
    }
    EXPECT_LE(worst, budget) << v.name << " seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, LstmFloatReference,
                         ::testing::Values(Variant{"plain", false, false, false, false},
                                           Variant{"cifg", true, false, false, false},
                                           Variant{"peephole", false, true, false, false},
                                           Variant{"projection", false, false, true, false},
                                           Variant{"layer_norm", false, false, false, true},
                                           Variant{"all", true, true, true, true}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------
// State persistence: two Invokes of T steps equal one run of 2T steps.

TEST(QuantizedLstm, StatePersistsAcrossInvokesAndStartsAtZero) {
  for (const bool time_major : {false, true}) {
    LstmSpec s = RandomSpec(42, false, true, true, false);
    s.batch = 1;  // a [1, T] sequence splits into two halves in either layout
    s.time_major = time_major;
    s.time = 3;
    LstmSpec twice = s;
    twice.time = 6;
    const std::vector<int8_t> x = RandomInput(twice, 5);
    const std::vector<int8_t> first(x.begin(), x.begin() + 3 * s.n_input), second(x.begin() + 3 * s.n_input, x.end());

    LstmRunner whole, split, fresh;
    ASSERT_TRUE(whole.Init(twice).ok());
    ASSERT_TRUE(split.Init(s).ok());
    ASSERT_TRUE(fresh.Init(s).ok());
    const std::vector<int8_t> all = whole.Run(x);
    const std::vector<int8_t> a = split.Run(first);
    const std::vector<int8_t> b = split.Run(second);
    std::vector<int8_t> joined = a;
    joined.insert(joined.end(), b.begin(), b.end());
    EXPECT_EQ(joined, all);
    // The second half alone, from a zero state, differs: the state was carried.
    EXPECT_NE(fresh.Run(second), b);
    // Re-allocating resets the state (TFLite resets variable tensors then).
    ASSERT_TRUE(split.interpreter->AllocateTensors().ok());
    EXPECT_EQ(split.Run(first), a);
  }
}

TEST(QuantizedLstm, OutputStateStartsAtItsZeroPoint) {
  LstmSpec s = RandomSpec(9, false, false, false, false);
  s.state_zp = -7;
  LstmRunner runner;
  ASSERT_TRUE(runner.Init(s).ok());
  const int state = runner.interpreter->node(0).inputs[18];
  const int cell = runner.interpreter->node(0).inputs[19];
  const Tensor* h = runner.interpreter->tensor(state);
  const Tensor* c = runner.interpreter->tensor(cell);
  for (int64_t k = 0; k < h->num_elements(); ++k) EXPECT_EQ(h->data_as<int8_t>()[k], -7);
  for (int64_t k = 0; k < c->num_elements(); ++k) EXPECT_EQ(c->data_as<int16_t>()[k], 0);
}

TEST(QuantizedLstm, ThreadsDoNotChangeTheResult) {
  LstmSpec s = RandomSpec(11, false, true, false, false);
  s.batch = 5;
  LstmRunner one, four;
  ASSERT_TRUE(one.Init(s, 1).ok());
  ASSERT_TRUE(four.Init(s, 4).ok());
  const std::vector<int8_t> x = RandomInput(s, 3);
  EXPECT_EQ(one.Run(x), four.Run(x));
}

// ---------------------------------------------------------------------------
// Bit-exact against TFLite. The expected bytes were produced by LiteRT 2.3.0
// (builtin kernels; XNNPACK does not take this op) on the very models these
// specs build (RELITE_LSTM_DUMP_DIR writes them).

struct RecordedCase {
  const char* name;
  uint64_t seed;
  bool cifg, peephole, projection, layer_norm;
  std::vector<int8_t> expected;
};

class LstmBitExact : public ::testing::TestWithParam<RecordedCase> {};

TEST_P(LstmBitExact, MatchesTflite) {
  const RecordedCase& rc = GetParam();
  uint64_t seed = rc.seed;
  LstmSpec s = RandomSpec(seed, rc.cifg, rc.peephole, rc.projection, rc.layer_norm);
  if (std::string(rc.name).find("time_major") != std::string::npos) {
    // A time-major batch goes through TFLite's step as one block: with a
    // peephole and fewer outputs than cells its n_output stride crosses rows.
    while (s.n_output >= s.n_cell) s = RandomSpec(++seed, rc.cifg, rc.peephole, rc.projection, rc.layer_norm);
    s.time_major = true;
    s.batch = 3;
    s.time = 4;
  }
  const std::vector<int8_t> x = RandomInput(s, seed + 1000);
  MaybeDump(rc.name, s, x);
  LstmRunner runner;
  const Status st = runner.Init(s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(runner.Run(x), rc.expected);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Recorded, LstmBitExact, ::testing::Values(
    RecordedCase{"plain", 101, false, false, false, false, {21, 1, -27, 16, 1, -14, -63, -1, 16, 19, 49, -6, 16, 22, -10, 15, 1, 16}},
    RecordedCase{"cifg_peephole", 102, true, true, false, false, {-6, -4, -44, -6, -57, -4, 55, 65, -26, -6, -65, -101}},
    RecordedCase{"projection", 103, false, false, true, false, {19, 1, -9, 16, -5, -13, 16, -6, -14, 10, 5, -3, 24, -13, -22, 24, -14, -24}},
    RecordedCase{"layer_norm", 104, false, false, false, true, {6, 20, -19, -7, -25, -12, -6, -11, -21, -7, 16, -5, -11, -14, -52, -13, 3, 11, 27, -1, -18, -23, -15, -9, -26, -9, 11, -5, -8, -32, -38, -10, 6, -7, 19, -4, -18, -26, -14, 2, -22, -9, -3, 7, 1, 4, -35, 2}},
    RecordedCase{"all", 105, true, true, true, true, {4, -26, 6, -32, -8, -10, -26, 2, -8, 6, -28, 4}},
    RecordedCase{"peephole_projection_time_major", 107, false, true, true, false, {6, 10, 2, 1, 7, 7, -2, 3, 0, -3, 1, -1}}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// ---------------------------------------------------------------------------
// Error paths: clear statuses naming the node.

void ExpectError(const LstmSpec& s, const std::string& fragment) {
  LstmRunner runner;
  const Status st = runner.Init(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("UNIDIRECTIONAL_SEQUENCE_LSTM"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find(fragment), std::string::npos) << st.ToString();
}

TEST(QuantizedLstmErrors, WrongInputCount) {
  LstmSpec s = RandomSpec(1, false, false, false, false);
  s.num_inputs = 23;
  ExpectError(s, "expected 24 inputs");
}

TEST(QuantizedLstmErrors, MissingIntermediates) {
  LstmSpec s = RandomSpec(1, false, false, false, false);
  s.num_intermediates = 4;
  ExpectError(s, "5 intermediate tensors");
}

TEST(QuantizedLstmErrors, WrongBiasType) {
  LstmSpec s = RandomSpec(1, false, false, false, false);
  s.bias_type = tflite::TensorType::INT8;
  ExpectError(s, "gate bias");
}

TEST(QuantizedLstmErrors, StateMustBeVariable) {
  LstmSpec s = RandomSpec(1, false, false, false, false);
  s.state_is_variable = false;
  ExpectError(s, "variable tensor");
}

TEST(QuantizedLstmErrors, CellScaleMustBeAPowerOfTwoInRange) {
  LstmSpec s = RandomSpec(1, false, false, false, false);
  s.cell_log2 = -5;
  ExpectError(s, "cell state scale");
}

}  // namespace
}  // namespace relite
