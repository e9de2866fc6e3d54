// RFFT2D, REAL / IMAG / COMPLEX_ABS, SVDF (float, hybrid, int8) and hybrid
// BATCH_MATMUL: values against direct definitions, state across Invokes,
// and the errors malformed models get. LiteRT comparisons are in
// litert_golden_signal_test.cc.
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
using tflite::BuiltinOperator;

std::vector<float> Uniform(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = std::uniform_real_distribution<float>(lo, hi)(rng);
  return v;
}

Quantization Quant(float scale, int64_t zero_point = 0) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

// The 2-D DFT by its definition, in double.
std::vector<std::complex<double>> NaiveRfft2d(const std::vector<float>& x, int in_h, int in_w, int h, int w) {
  std::vector<std::complex<double>> out(static_cast<size_t>(h) * (w / 2 + 1));
  for (int u = 0; u < h; ++u) {
    for (int v = 0; v <= w / 2; ++v) {
      std::complex<double> sum = 0;
      for (int y = 0; y < std::min(in_h, h); ++y) {
        for (int xx = 0; xx < std::min(in_w, w); ++xx) {
          const double a = -2 * std::numbers::pi * (static_cast<double>(u) * y / h + static_cast<double>(v) * xx / w);
          sum += static_cast<double>(x[static_cast<size_t>(y) * in_w + xx]) * std::complex<double>(std::cos(a), std::sin(a));
        }
      }
      out[static_cast<size_t>(u) * (w / 2 + 1) + v] = sum;
    }
  }
  return out;
}

TEST(Rfft2dTest, MatchesTheDefinition) {
  struct Case {
    int slices, in_h, in_w, h, w;
  };
  for (const Case& c : {Case{1, 4, 8, 4, 8}, Case{3, 5, 6, 8, 4}, Case{1, 1, 16, 1, 16}, Case{2, 7, 3, 4, 2},
                        Case{1, 32, 64, 32, 64}, Case{2, 3, 3, 2, 2}}) {
    SCOPED_TRACE(std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + " -> " + std::to_string(c.h) + "x" +
                 std::to_string(c.w));
    SingleOpModel m;
    const int in = m.AddInput(DataType::kFloat32, {c.slices, c.in_h, c.in_w});
    m.AddConstInput<int32_t>(DataType::kInt32, {2}, {c.h, c.w});
    const int out = m.AddOutput(DataType::kComplex64);
    m.SetBuiltinOp(BuiltinOperator::RFFT2D, 1);
    ASSERT_TRUE(m.Build().ok());
    const std::vector<float> x = Uniform(static_cast<size_t>(c.slices * c.in_h * c.in_w), -1, 1, 7);
    m.SetInput(in, x);
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutputShape(out), (Shape{c.slices, c.h, c.w / 2 + 1}));
    const std::vector<std::complex<float>> y = m.GetOutput<std::complex<float>>(out);
    const size_t per = static_cast<size_t>(c.h) * (c.w / 2 + 1);
    ASSERT_EQ(y.size(), per * c.slices);
    for (int s = 0; s < c.slices; ++s) {
      const std::vector<float> slice(x.begin() + s * c.in_h * c.in_w, x.begin() + (s + 1) * c.in_h * c.in_w);
      const auto want = NaiveRfft2d(slice, c.in_h, c.in_w, c.h, c.w);
      for (size_t i = 0; i < per; ++i) {
        EXPECT_NEAR(y[s * per + i].real(), want[i].real(), 1e-5) << i;
        EXPECT_NEAR(y[s * per + i].imag(), want[i].imag(), 1e-5) << i;
      }
    }
  }
}

Status BuildRfft2d(const std::vector<int32_t>& length, bool constant_length, const Shape& in_shape = {4, 4},
                   DataType out_type = DataType::kComplex64) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, in_shape);
  if (constant_length) {
    m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(length.size())}, length);
  } else {
    m.AddInput(DataType::kInt32, {2});
  }
  m.AddOutput(out_type);
  m.SetBuiltinOp(BuiltinOperator::RFFT2D, 1);
  return m.Build();
}

TEST(Rfft2dTest, RejectsWhatTfliteRejects) {
  EXPECT_TRUE(BuildRfft2d({4, 4}, true).ok());
  EXPECT_NE(BuildRfft2d({4, 1}, true).ToString().find(">= 2"), std::string::npos);
  for (const std::vector<int32_t>& bad : {std::vector<int32_t>{3, 4}, {4, 6}, {0, 4}, {4, -4}, {INT32_MIN, 4}}) {
    const Status st = BuildRfft2d(bad, true);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.ToString().find("powers of two"), std::string::npos) << st.ToString();
  }
  EXPECT_NE(BuildRfft2d({4, 4, 4}, true).ToString().find("fft_length"), std::string::npos);
  EXPECT_NE(BuildRfft2d({4, 4}, false).ToString().find("constant"), std::string::npos);
  EXPECT_NE(BuildRfft2d({4, 4}, true, {16}).ToString().find("rank"), std::string::npos);
  EXPECT_FALSE(BuildRfft2d({4, 4}, true, {4, 4}, DataType::kFloat32).ok());
}

TEST(ComplexPartsTest, Complex64AndComplex128) {
  const std::vector<std::complex<float>> z = {{3, -4}, {0, 0}, {-1.5f, 2}, {1e30f, 1e30f}};
  for (auto op : {BuiltinOperator::REAL, BuiltinOperator::IMAG, BuiltinOperator::COMPLEX_ABS}) {
    SingleOpModel m;
    const int in = m.AddInput(DataType::kComplex64, {2, 2});
    const int out = m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(op, 1);
    ASSERT_TRUE(m.Build().ok());
    m.SetInput(in, z);
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutputShape(out), (Shape{2, 2}));
    const std::vector<float> y = m.GetOutput<float>(out);
    for (size_t i = 0; i < z.size(); ++i) {
      const float want = op == BuiltinOperator::REAL ? z[i].real() : op == BuiltinOperator::IMAG ? z[i].imag() : std::abs(z[i]);
      EXPECT_EQ(y[i], want) << i;
    }
  }
  EXPECT_FLOAT_EQ(std::abs(z[0]), 5.f);
  EXPECT_TRUE(std::isfinite(std::abs(z[3])));  // hypot: no overflow
  SingleOpModel m;
  const int in = m.AddInput(DataType::kComplex128, {2});
  const int out = m.AddOutput(DataType::kFloat64);
  m.SetBuiltinOp(BuiltinOperator::COMPLEX_ABS, 1);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<std::complex<double>>(in, {{6, 8}, {-5, 12}});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<double>(out), (std::vector<double>{10, 13}));
}

TEST(ComplexPartsTest, RejectsRealInputsAndWrongOutputs) {
  for (auto [in_type, out_type] : {std::pair{DataType::kFloat32, DataType::kFloat32},
                                   std::pair{DataType::kComplex64, DataType::kFloat64},
                                   std::pair{DataType::kComplex64, DataType::kComplex64}}) {
    SingleOpModel m;
    m.AddInput(in_type, {3});
    m.AddOutput(out_type);
    m.SetBuiltinOp(BuiltinOperator::REAL, 1);
    EXPECT_FALSE(m.Build().ok()) << DataTypeName(in_type) << " -> " << DataTypeName(out_type);
  }
}

// A float SVDF by its definition: memory[b][f] as a queue, newest last.
struct SvdfReference {
  int batch, input_size, filters, rank, memory;
  std::vector<float> wf, wt, bias;
  std::vector<std::vector<float>> mem;  // [b * filters + f][memory]

  std::vector<float> Step(const std::vector<float>& x) {
    if (mem.empty()) mem.assign(static_cast<size_t>(batch * filters), std::vector<float>(static_cast<size_t>(memory), 0.f));
    const int units = filters / rank;
    std::vector<float> out(static_cast<size_t>(batch * units), 0.f);
    for (int b = 0; b < batch; ++b) {
      for (int f = 0; f < filters; ++f) {
        std::vector<float>& q = mem[static_cast<size_t>(b * filters + f)];
        q.erase(q.begin());
        double a = 0;
        for (int i = 0; i < input_size; ++i) a += double{wf[static_cast<size_t>(f * input_size + i)]} * x[static_cast<size_t>(b * input_size + i)];
        q.push_back(static_cast<float>(a));
        double t = 0;
        for (int k = 0; k < memory; ++k) t += double{wt[static_cast<size_t>(f * memory + k)]} * q[static_cast<size_t>(k)];
        out[static_cast<size_t>(b * units + f / rank)] += static_cast<float>(t);
      }
      for (int u = 0; u < units; ++u) out[static_cast<size_t>(b * units + u)] += bias.empty() ? 0.f : bias[static_cast<size_t>(u)];
    }
    return out;
  }
};

TEST(SvdfTest, FloatStateCarriesAcrossInvokes) {
  SvdfReference ref{2, 5, 6, 2, 4, Uniform(30, -1, 1, 1), Uniform(24, -1, 1, 2), Uniform(3, -1, 1, 3), {}};
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {2, 5});
  m.AddConstInput<float>(DataType::kFloat32, {6, 5}, ref.wf);
  m.AddConstInput<float>(DataType::kFloat32, {6, 4}, ref.wt);
  m.AddConstInput<float>(DataType::kFloat32, {3}, ref.bias);
  m.AddVariableInput(DataType::kFloat32, {2, 24});
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(BuiltinOperator::SVDF, 1, tflite::BuiltinOptions::SVDFOptions,
                 tflite::CreateSVDFOptions(m.fbb(), 2, tflite::ActivationFunctionType::NONE).Union());
  ASSERT_TRUE(m.Build().ok());
  for (int step = 0; step < 7; ++step) {
    const std::vector<float> x = Uniform(10, -2, 2, 10 + static_cast<uint32_t>(step));
    m.SetInput(in, x);
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutputShape(out), (Shape{2, 3}));
    const std::vector<float> want = ref.Step(x), got = m.GetOutput<float>(out);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "step " << step << " [" << i << "]";
  }
  // A reset forgets the memory: the first step again.
  ASSERT_TRUE(m.interpreter().ResetVariableTensors().ok());
  SvdfReference fresh = ref;
  fresh.mem.clear();
  const std::vector<float> x = Uniform(10, -2, 2, 10);
  m.SetInput(in, x);
  ASSERT_TRUE(m.Invoke().ok());
  const std::vector<float> want = fresh.Step(x), got = m.GetOutput<float>(out);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5);
}

TEST(SvdfTest, HybridIsCloseToFloat) {
  // int8 weights that are exactly float weights / scale: the hybrid result
  // differs from the float one only by the input's quantization (a step of
  // up to 3/127 here, through |wf| <= 1.27 over 10 inputs and |wt| <= 2.54
  // over 3 memory slots: well under 0.15; LiteRT's exact values are the
  // golden test's).
  const float sf = 0.01f, st = 0.02f;
  std::vector<int8_t> qf(40), qt(12);
  std::vector<float> wf(40), wt(12);
  std::mt19937 rng(5);
  for (size_t i = 0; i < qf.size(); ++i) wf[i] = sf * (qf[i] = static_cast<int8_t>(std::uniform_int_distribution<int>(-127, 127)(rng)));
  for (size_t i = 0; i < qt.size(); ++i) wt[i] = st * (qt[i] = static_cast<int8_t>(std::uniform_int_distribution<int>(-127, 127)(rng)));
  for (bool asymmetric : {false, true}) {
    SvdfReference ref{1, 10, 4, 1, 3, wf, wt, {}, {}};
    SingleOpModel m;
    const int in = m.AddInput(DataType::kFloat32, {1, 10});
    m.AddConstInput<int8_t>(DataType::kInt8, {4, 10}, qf, Quant(sf));
    m.AddConstInput<int8_t>(DataType::kInt8, {4, 3}, qt, Quant(st));
    m.AddOptionalInput();
    m.AddVariableInput(DataType::kFloat32, {1, 12});
    const int out = m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(BuiltinOperator::SVDF, asymmetric ? 4 : 2, tflite::BuiltinOptions::SVDFOptions,
                   tflite::CreateSVDFOptions(m.fbb(), 1, tflite::ActivationFunctionType::NONE, asymmetric).Union());
    ASSERT_TRUE(m.Build().ok());
    for (int step = 0; step < 5; ++step) {
      const std::vector<float> x = Uniform(10, -1, 2, 20 + static_cast<uint32_t>(step));
      m.SetInput(in, x);
      ASSERT_TRUE(m.Invoke().ok());
      const std::vector<float> want = ref.Step(x), got = m.GetOutput<float>(out);
      for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 0.15) << step;
    }
  }
}

TEST(SvdfTest, Int8StateCarriesAcrossInvokes) {
  SingleOpModel m;
  const int in = m.AddInput(DataType::kInt8, {1, 4}, Quant(0.1f, 0));
  m.AddConstInput<int8_t>(DataType::kInt8, {2, 4}, {10, 20, -30, 40, 5, 5, 5, 5}, Quant(0.01f));
  m.AddConstInput<int16_t>(DataType::kInt16, {2, 3}, {1000, 2000, 3000, -4000, 5000, 6000}, Quant(1e-4f));
  m.AddOptionalInput();
  m.AddVariableInput(DataType::kInt16, {1, 6}, Quant(0.001f));
  const int out = m.AddOutput(DataType::kInt8, {}, Quant(0.01f, -10));
  m.SetBuiltinOp(BuiltinOperator::SVDF, 3, tflite::BuiltinOptions::SVDFOptions,
                 tflite::CreateSVDFOptions(m.fbb(), 2, tflite::ActivationFunctionType::RELU).Union());
  ASSERT_TRUE(m.Build().ok());
  // feature dots: 10+20-30+40 = 40 and 20 per unit x; s1 = 0.1 * 0.01 / 0.001 = 1.
  // With x = 1s: newest memory = (40, 20); s2 = 0.001 * 1e-4 / 0.01 = 1e-5.
  std::vector<int8_t> outs;
  for (int step = 0; step < 4; ++step) {
    m.SetInput<int8_t>(in, {1, 1, 1, 1});
    ASSERT_TRUE(m.Invoke().ok());
    outs.push_back(m.GetOutput<int8_t>(out)[0]);
  }
  // sum over memory slots of wt * 40 (filter 0) and wt * 20 (filter 1),
  // filled from the right: step 0 uses the last column only.
  auto expect = [](int step) {
    const int wt0[3] = {1000, 2000, 3000}, wt1[3] = {-4000, 5000, 6000};
    int64_t acc = 0;
    for (int k = 2 - std::min(step, 2); k < 3; ++k) acc += wt0[k] * 40 + wt1[k] * 20;
    return static_cast<int8_t>(std::clamp<int64_t>(std::llround(static_cast<double>(acc) * 1e-5) - 10, -128, 127));
  };
  for (int step = 0; step < 4; ++step) EXPECT_EQ(outs[static_cast<size_t>(step)], expect(step)) << step;
  EXPECT_NE(outs[0], outs[2]);
}

struct SvdfBuild {
  bool state_variable = true;
  int filters = 4, rank = 2;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::RELU;
  bool int8 = false;
  int state_columns = 0;  // 0: memory * filters
};

Status BuildSvdf(const SvdfBuild& b) {
  SingleOpModel m;
  const DataType act = b.int8 ? DataType::kInt8 : DataType::kFloat32;
  const Quantization q = b.int8 ? Quant(0.1f) : Quantization{};
  m.AddInput(act, {1, 3}, q);
  if (b.int8) {
    m.AddConstInput<int8_t>(DataType::kInt8, {b.filters, 3}, std::vector<int8_t>(static_cast<size_t>(b.filters * 3), 1), q);
    m.AddConstInput<int16_t>(DataType::kInt16, {b.filters, 2}, std::vector<int16_t>(static_cast<size_t>(b.filters * 2), 1), q);
  } else {
    m.AddConstInput<float>(DataType::kFloat32, {b.filters, 3}, std::vector<float>(static_cast<size_t>(b.filters * 3), 1.f));
    m.AddConstInput<float>(DataType::kFloat32, {b.filters, 2}, std::vector<float>(static_cast<size_t>(b.filters * 2), 1.f));
  }
  m.AddOptionalInput();
  const DataType state = b.int8 ? DataType::kInt16 : DataType::kFloat32;
  const Shape state_shape = {1, b.state_columns > 0 ? b.state_columns : 2 * b.filters};
  if (b.state_variable) {
    m.AddVariableInput(state, state_shape, q);
  } else {
    m.AddInput(state, state_shape, q);
  }
  m.AddOutput(act, {}, q);
  m.SetBuiltinOp(BuiltinOperator::SVDF, b.int8 ? 3 : 1, tflite::BuiltinOptions::SVDFOptions,
                 tflite::CreateSVDFOptions(m.fbb(), b.rank, b.activation).Union());
  return m.Build();
}

TEST(SvdfTest, RejectsMalformedModels) {
  EXPECT_TRUE(BuildSvdf({}).ok());
  SvdfBuild b;
  b.state_variable = false;
  EXPECT_NE(BuildSvdf(b).ToString().find("variable"), std::string::npos);
  b = {};
  b.rank = 3;  // 4 filters
  EXPECT_NE(BuildSvdf(b).ToString().find("multiple of rank"), std::string::npos);
  b.rank = 0;
  EXPECT_NE(BuildSvdf(b).ToString().find("rank"), std::string::npos);
  b = {};
  b.state_columns = 7;
  EXPECT_NE(BuildSvdf(b).ToString().find("state"), std::string::npos);
  b = {};
  b.int8 = true;
  EXPECT_TRUE(BuildSvdf(b).ok()) << BuildSvdf(b).ToString();
  b.activation = tflite::ActivationFunctionType::NONE;  // TFLite's int8 SVDF takes RELU only
  EXPECT_NE(BuildSvdf(b).ToString().find("RELU"), std::string::npos);
  b = {};
  b.activation = tflite::ActivationFunctionType::SIGN_BIT;
  EXPECT_FALSE(BuildSvdf(b).ok());
}

TEST(HybridBatchMatMulTest, CloseToFloatAndRejectsPerChannelRhs) {
  const float scale = 0.02f;
  std::vector<int8_t> q(24);
  std::vector<float> w(24);
  std::mt19937 rng(9);
  for (size_t i = 0; i < q.size(); ++i) w[i] = scale * (q[i] = static_cast<int8_t>(std::uniform_int_distribution<int>(-127, 127)(rng)));
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {2, 3, 4});
  m.AddConstInput<int8_t>(DataType::kInt8, {4, 6}, q, Quant(scale));
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(BuiltinOperator::BATCH_MATMUL, 1);
  ASSERT_TRUE(m.Build().ok());
  const std::vector<float> x = Uniform(24, -1, 1, 3);
  m.SetInput(in, x);
  ASSERT_TRUE(m.Invoke().ok());
  ASSERT_EQ(m.GetOutputShape(out), (Shape{2, 3, 6}));
  const std::vector<float> y = m.GetOutput<float>(out);
  for (int r = 0; r < 6; ++r) {
    for (int n = 0; n < 6; ++n) {
      double want = 0;
      for (int k = 0; k < 4; ++k) want += double{x[static_cast<size_t>(r * 4 + k)]} * w[static_cast<size_t>(k * 6 + n)];
      EXPECT_NEAR(y[static_cast<size_t>(r * 6 + n)], want, 0.03) << r << "," << n;
    }
  }
  Quantization per_channel;
  per_channel.scale = std::vector<float>(6, scale);
  per_channel.zero_point = std::vector<int64_t>(6, 0);
  per_channel.quantized_dimension = 1;
  SingleOpModel pc;
  pc.AddInput(DataType::kFloat32, {3, 4});
  pc.AddConstInput<int8_t>(DataType::kInt8, {4, 6}, q, per_channel);
  pc.AddOutput(DataType::kFloat32);
  pc.SetBuiltinOp(BuiltinOperator::BATCH_MATMUL, 1);
  EXPECT_NE(pc.Build().ToString().find("per-tensor"), std::string::npos);
  SingleOpModel variable_rhs;
  variable_rhs.AddInput(DataType::kFloat32, {3, 4});
  variable_rhs.AddInput(DataType::kInt8, {4, 6}, Quant(scale));
  variable_rhs.AddOutput(DataType::kFloat32);
  variable_rhs.SetBuiltinOp(BuiltinOperator::BATCH_MATMUL, 1);
  EXPECT_NE(variable_rhs.Build().ToString().find("constant"), std::string::npos);
}

}  // namespace
}  // namespace relite
