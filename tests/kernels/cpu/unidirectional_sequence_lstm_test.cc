// Float UNIDIRECTIONAL_SEQUENCE_LSTM against a double-precision reference
// LSTM (plain, CIFG, peephole, projection with clipping, layer norm,
// diagonal recurrent weights, time-major), state persistence, error paths;
// the hybrid (int8 weights) kernel near the same reference on the
// dequantized weights, and the hybrid combinations it refuses (its exact
// numerics are checked against LiteRT in litert_golden_signal_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "relite/relite.h"
#include "tflite_generated.h"

namespace relite {
namespace {

struct Lcg {
  uint64_t s;
  explicit Lcg(uint64_t seed) : s(seed * 2862933555777941757ULL + 3037000493ULL) {}
  float Uniform(float lo, float hi) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * static_cast<float>((s >> 33) % 1000000) / 1e6f;
  }
};

struct Spec {
  int batch = 2, time = 4, n_input = 5, n_cell = 6, n_output = 6;
  bool time_major = false, cifg = false, peephole = false, projection = false, layer_norm = false, diagonal = false;
  float cell_clip = 0.f, proj_clip = 0.f;
  std::vector<float> w_x[4], w_h[4], bias[4], peep[4], ln[4], w_proj, b_proj;
  bool state_is_variable = true;
  bool int8_weights = false;  // hybrid: every weight tensor int8(v * 100), scale 0.01
  bool float_peephole = false;  // hybrid with float peephole weights (refused)
  bool per_channel = false;   // hybrid with one scale per output row (refused)
};

Spec RandomSpec(uint64_t seed, bool cifg, bool peephole, bool projection, bool layer_norm, bool diagonal) {
  Lcg r(seed);
  Spec s;
  s.cifg = cifg;
  s.peephole = peephole;
  s.projection = projection;
  s.layer_norm = layer_norm;
  s.diagonal = diagonal;
  s.time_major = seed % 2 == 1;
  s.n_output = projection ? 4 : s.n_cell;
  s.cell_clip = seed % 3 == 0 ? 1.5f : 0.f;
  s.proj_clip = projection && seed % 2 == 0 ? 0.4f : 0.f;
  auto fill = [&](std::vector<float>& v, size_t n, float lo, float hi) {
    v.resize(n);
    for (auto& x : v) x = r.Uniform(lo, hi);
  };
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && cifg) continue;
    fill(s.w_x[g], static_cast<size_t>(s.n_cell) * s.n_input, -0.6f, 0.6f);
    fill(s.w_h[g], diagonal ? static_cast<size_t>(s.n_cell) : static_cast<size_t>(s.n_cell) * s.n_output, -0.6f, 0.6f);
    fill(s.bias[g], static_cast<size_t>(s.n_cell), -0.5f, 0.5f);
    if (peephole && g != 2) fill(s.peep[g], static_cast<size_t>(s.n_cell), -0.5f, 0.5f);
    if (layer_norm) fill(s.ln[g], static_cast<size_t>(s.n_cell), 0.5f, 1.5f);
  }
  if (projection) {
    fill(s.w_proj, static_cast<size_t>(s.n_output) * s.n_cell, -0.6f, 0.6f);
    fill(s.b_proj, static_cast<size_t>(s.n_output), -0.2f, 0.2f);
  }
  return s;
}

std::vector<uint8_t> Build(const Spec& s) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers{tflite::CreateBuffer(fbb)};
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  auto add = [&](const std::vector<int32_t>& shape, const std::vector<float>* data, bool variable = false,
                 bool as_int8 = false) {
    uint32_t buffer = 0;
    if (data != nullptr) {
      std::vector<uint8_t> bytes;
      if (as_int8) {
        for (float v : *data) bytes.push_back(static_cast<uint8_t>(static_cast<int8_t>(v * 100)));
      } else {
        bytes.resize(data->size() * 4);
        std::memcpy(bytes.data(), data->data(), bytes.size());
      }
      fbb.ForceVectorAlignment(bytes.size(), 1, 16);
      buffers.push_back(tflite::CreateBuffer(fbb, fbb.CreateVector(bytes)));
      buffer = static_cast<uint32_t>(buffers.size() - 1);
    }
    flatbuffers::Offset<tflite::QuantizationParameters> q = 0;
    if (as_int8) {
      const size_t scales = s.per_channel ? static_cast<size_t>(shape[0]) : 1;
      std::vector<float> sc(scales, 0.01f);
      std::vector<int64_t> zp(scales, 0);
      q = tflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(sc), fbb.CreateVector(zp),
                                               tflite::QuantizationDetails::NONE, 0, 0);
    }
    const int index = static_cast<int>(tensors.size());
    tensors.push_back(tflite::CreateTensor(fbb, fbb.CreateVector(shape),
                                           as_int8 ? tflite::TensorType::INT8 : tflite::TensorType::FLOAT32, buffer,
                                           fbb.CreateString(std::to_string(index)), q, variable));
    return index;
  };
  std::vector<int32_t> inputs(24, -1);
  const std::vector<int32_t> in_shape =
      s.time_major ? std::vector<int32_t>{s.time, s.batch, s.n_input} : std::vector<int32_t>{s.batch, s.time, s.n_input};
  inputs[0] = add(in_shape, nullptr);
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && s.cifg) continue;
    inputs[1 + g] = add({s.n_cell, s.n_input}, &s.w_x[g], false, s.int8_weights);
    inputs[5 + g] = add(s.diagonal ? std::vector<int32_t>{s.n_cell} : std::vector<int32_t>{s.n_cell, s.n_output}, &s.w_h[g],
                        false, s.int8_weights);
    inputs[12 + g] = add({s.n_cell}, &s.bias[g]);
    if (s.peephole && g != 2) {
      inputs[g == 0 ? 9 : (g == 1 ? 10 : 11)] = add({s.n_cell}, &s.peep[g], false, s.int8_weights && !s.float_peephole);
    }
    if (s.layer_norm) inputs[20 + g] = add({s.n_cell}, &s.ln[g]);
  }
  if (s.projection) {
    inputs[16] = add({s.n_output, s.n_cell}, &s.w_proj, false, s.int8_weights);
    inputs[17] = add({s.n_output}, &s.b_proj);
  }
  const std::vector<float> zeros(static_cast<size_t>(s.batch) * std::max(s.n_cell, s.n_output), 0.f);
  std::vector<float> h0(zeros.begin(), zeros.begin() + s.batch * s.n_output), c0(zeros.begin(), zeros.begin() + s.batch * s.n_cell);
  inputs[18] = add({s.batch, s.n_output}, s.state_is_variable ? nullptr : &h0, s.state_is_variable);
  inputs[19] = add({s.batch, s.n_cell}, s.state_is_variable ? nullptr : &c0, s.state_is_variable);
  std::vector<int32_t> out_shape = in_shape;
  out_shape[2] = s.n_output;
  std::vector<int32_t> outputs{add(out_shape, nullptr)};
  auto options = tflite::CreateUnidirectionalSequenceLSTMOptions(fbb, tflite::ActivationFunctionType::TANH, s.cell_clip,
                                                                 s.proj_clip, s.time_major, false, s.diagonal);
  auto op = tflite::CreateOperator(fbb, 0, fbb.CreateVector(inputs), fbb.CreateVector(outputs),
                                   tflite::BuiltinOptions::UnidirectionalSequenceLSTMOptions, options.Union());
  std::vector<int32_t> graph_inputs{inputs[0]};
  auto subgraph = tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(graph_inputs),
                                         fbb.CreateVector(outputs), fbb.CreateVector(&op, 1), fbb.CreateString("main"));
  auto opcode = tflite::CreateOperatorCode(fbb, 44, 0, s.diagonal ? 4 : 1, tflite::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM);
  auto model = tflite::CreateModel(fbb, 3, fbb.CreateVector(&opcode, 1), fbb.CreateVector(&subgraph, 1),
                                   fbb.CreateString("lstm"), fbb.CreateVector(buffers));
  tflite::FinishModelBuffer(fbb, model);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

struct Runner {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
  BuiltinOpResolver resolver;
  std::unique_ptr<Interpreter> interpreter;
  Status Init(const Spec& s, int threads = 1) {
    bytes = Build(s);
    RELITE_ASSIGN_OR_RETURN(model, Model::FromBuffer(bytes.data(), bytes.size(), "lstm"));
    RELITE_ASSIGN_OR_RETURN(interpreter, InterpreterBuilder(*model, resolver).SetNumThreads(threads).Build());
    return interpreter->AllocateTensors();
  }
  std::vector<float> Run(const std::vector<float>& x) {
    Tensor* in = interpreter->input_tensor(0);
    EXPECT_EQ(in->bytes, x.size() * sizeof(float));
    std::copy(x.begin(), x.end(), in->data_as<float>());
    const Status st = interpreter->Invoke();
    EXPECT_TRUE(st.ok()) << st.ToString();
    const Tensor* out = interpreter->output_tensor(0);
    return std::vector<float>(out->data_as<float>(), out->data_as<float>() + out->bytes / sizeof(float));
  }
};

std::vector<float> Reference(const Spec& s, const std::vector<float>& x) {
  const int nb = s.batch, nt = s.time, ni = s.n_input, nc = s.n_cell, no = s.n_output;
  std::vector<float> out(static_cast<size_t>(nb) * nt * no);
  auto sig = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  for (int b = 0; b < nb; ++b) {
    std::vector<double> h(static_cast<size_t>(no), 0.0), c(static_cast<size_t>(nc), 0.0);
    for (int t = 0; t < nt; ++t) {
      const size_t row = s.time_major ? static_cast<size_t>(t) * nb + b : static_cast<size_t>(b) * nt + t;
      auto pre = [&](int g, bool peep) {
        std::vector<double> a(static_cast<size_t>(nc));
        for (int r = 0; r < nc; ++r) {
          double v = 0;
          for (int k = 0; k < ni; ++k) v += double{s.w_x[g][static_cast<size_t>(r * ni + k)]} * x[row * ni + k];
          if (s.diagonal) {
            v += double{s.w_h[g][static_cast<size_t>(r)]} * h[static_cast<size_t>(r)];
          } else {
            for (int k = 0; k < no; ++k) v += double{s.w_h[g][static_cast<size_t>(r * no + k)]} * h[static_cast<size_t>(k)];
          }
          if (peep) v += double{s.peep[g][static_cast<size_t>(r)]} * c[static_cast<size_t>(r)];
          a[static_cast<size_t>(r)] = v;
        }
        if (s.layer_norm) {
          double mean = 0, var = 0;
          for (double v : a) mean += v / nc;
          for (double v : a) var += (v - mean) * (v - mean) / nc;
          for (int r = 0; r < nc; ++r) {
            a[static_cast<size_t>(r)] = (a[static_cast<size_t>(r)] - mean) / std::sqrt(var + 1e-8) * s.ln[g][static_cast<size_t>(r)];
          }
        }
        for (int r = 0; r < nc; ++r) a[static_cast<size_t>(r)] += s.bias[g][static_cast<size_t>(r)];
        return a;
      };
      const auto f = pre(1, s.peephole), g = pre(2, false);
      const auto i = s.cifg ? f : pre(0, s.peephole);
      for (int r = 0; r < nc; ++r) {
        const double fr = sig(f[static_cast<size_t>(r)]);
        const double ir = s.cifg ? 1 - fr : sig(i[static_cast<size_t>(r)]);
        double v = fr * c[static_cast<size_t>(r)] + ir * std::tanh(g[static_cast<size_t>(r)]);
        if (s.cell_clip > 0) v = std::clamp<double>(v, -s.cell_clip, s.cell_clip);
        c[static_cast<size_t>(r)] = v;
      }
      const auto o = pre(3, s.peephole);
      std::vector<double> hid(static_cast<size_t>(nc));
      for (int r = 0; r < nc; ++r) hid[static_cast<size_t>(r)] = sig(o[static_cast<size_t>(r)]) * std::tanh(c[static_cast<size_t>(r)]);
      if (s.projection) {
        for (int k = 0; k < no; ++k) {
          double v = s.b_proj[static_cast<size_t>(k)];
          for (int r = 0; r < nc; ++r) v += double{s.w_proj[static_cast<size_t>(k * nc + r)]} * hid[static_cast<size_t>(r)];
          if (s.proj_clip > 0) v = std::clamp<double>(v, -s.proj_clip, s.proj_clip);
          h[static_cast<size_t>(k)] = v;
        }
      } else {
        h = hid;
      }
      for (int k = 0; k < no; ++k) out[row * no + static_cast<size_t>(k)] = static_cast<float>(h[static_cast<size_t>(k)]);
    }
  }
  return out;
}

std::vector<float> RandomInput(const Spec& s, uint64_t seed) {
  Lcg r(seed + 77);
  std::vector<float> x(static_cast<size_t>(s.batch) * s.time * s.n_input);
  for (auto& v : x) v = r.Uniform(-2.f, 2.f);
  return x;
}

struct Variant {
  const char* name;
  bool cifg, peephole, projection, layer_norm, diagonal;
};

class FloatLstm : public ::testing::TestWithParam<Variant> {};

// float32 sums of <= 11 products and float exp/tanh against double: the
// outputs are within a few float ulps of values of magnitude <= 1.
TEST_P(FloatLstm, MatchesDoubleReference) {
  const Variant v = GetParam();
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Spec s = RandomSpec(seed, v.cifg, v.peephole, v.projection, v.layer_norm, v.diagonal);
    Runner runner;
    const Status st = runner.Init(s, seed % 2 == 0 ? 2 : 1);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<float> x = RandomInput(s, seed);
    const std::vector<float> got = runner.Run(x), want = Reference(s, x);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) ASSERT_NEAR(got[k], want[k], 2e-6) << v.name << " seed " << seed << " at " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, FloatLstm,
                         ::testing::Values(Variant{"plain", false, false, false, false, false},
                                           Variant{"cifg", true, false, false, false, false},
                                           Variant{"peephole", false, true, false, false, false},
                                           Variant{"projection", false, false, true, false, false},
                                           Variant{"layer_norm", false, false, false, true, false},
                                           Variant{"diagonal", false, false, false, false, true},
                                           Variant{"all", true, true, true, true, false}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(FloatLstm, StatePersistsAcrossInvokes) {
  Spec s = RandomSpec(3, false, true, true, false, false);
  s.batch = 1;
  s.time = 3;
  Spec twice = s;
  twice.time = 6;
  const std::vector<float> x = RandomInput(twice, 9);
  const auto half = static_cast<std::ptrdiff_t>(3 * s.n_input);
  Runner whole, split;
  ASSERT_TRUE(whole.Init(twice).ok());
  ASSERT_TRUE(split.Init(s).ok());
  const std::vector<float> all = whole.Run(x);
  std::vector<float> joined = split.Run(std::vector<float>(x.begin(), x.begin() + half));
  const std::vector<float> b = split.Run(std::vector<float>(x.begin() + half, x.end()));
  joined.insert(joined.end(), b.begin(), b.end());
  EXPECT_EQ(joined, all);
}

// The weights the hybrid kernel sees, as floats: int8(v * 100) * 0.01.
Spec Dequantized(Spec s) {
  for (int g = 0; g < 4; ++g) {
    for (std::vector<float>* w : {&s.w_x[g], &s.w_h[g], &s.peep[g]}) {
      for (float& v : *w) v = static_cast<float>(static_cast<int8_t>(v * 100)) * 0.01f;
    }
  }
  for (float& v : s.w_proj) v = static_cast<float>(static_cast<int8_t>(v * 100)) * 0.01f;
  s.int8_weights = false;
  return s;
}

// Hybrid against the double reference on the dequantized weights: they
// differ only by quantizing x and h to int8 per row at every step (a step of
// max|row| / 127 <= 2 / 127 on at most 6 + 6 terms with weights <= 0.6, so
// about 0.03 on a pre-activation at worst, less after the sigmoid and tanh;
// with projection, o * tanh(c) is quantized too).
TEST(HybridLstm, NearFloatReferenceOnDequantizedWeights) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Spec s = RandomSpec(seed, seed == 3, seed % 2 == 0, seed == 4, seed == 2, false);
    s.int8_weights = true;
    Runner runner;
    const Status st = runner.Init(s, seed % 2 == 0 ? 2 : 1);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<float> x = RandomInput(s, seed);
    const std::vector<float> got = runner.Run(x), want = Reference(Dequantized(s), x);
    ASSERT_EQ(got.size(), want.size());
    double worst = 0;
    for (size_t k = 0; k < got.size(); ++k) worst = std::max(worst, std::fabs(double{got[k]} - want[k]));
    EXPECT_LT(worst, 0.03) << "seed " << seed;
    EXPECT_GT(worst, 0.0) << "seed " << seed << ": the inputs were quantized, so some output should move";
  }
}

TEST(HybridLstm, DiagonalRecurrentWeightsAreRejectedByName) {
  Spec s = RandomSpec(1, false, false, false, false, true);
  s.int8_weights = true;
  Runner runner;
  const Status st = runner.Init(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("UNIDIRECTIONAL_SEQUENCE_LSTM"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("diagonal recurrent weights are not supported in the hybrid"), std::string::npos)
      << st.ToString();
}

TEST(HybridLstm, PerChannelWeightsAreRejectedByName) {
  Spec s = RandomSpec(1, false, false, false, false, false);
  s.int8_weights = true;
  s.per_channel = true;
  Runner runner;
  const Status st = runner.Init(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("UNIDIRECTIONAL_SEQUENCE_LSTM"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("one per-tensor scale"), std::string::npos) << st.ToString();
}

TEST(HybridLstm, FloatPeepholeWeightsAreRejectedByName) {
  Spec s = RandomSpec(1, false, true, false, false, false);
  s.int8_weights = true;
  s.float_peephole = true;
  Runner runner;
  const Status st = runner.Init(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("UNIDIRECTIONAL_SEQUENCE_LSTM"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("(input 9) are float32"), std::string::npos) << st.ToString();
}

TEST(FloatLstm, StateMustBeVariable) {
  Spec s = RandomSpec(1, false, false, false, false, false);
  s.state_is_variable = false;
  Runner runner;
  const Status st = runner.Init(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("variable tensor"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace relite
