// 8-bit and 16x8 TRANSPOSE_CONV against an exact reference of the arithmetic
// LiteRT 2.3.0 applies (XNNPACK's fp32 requantization where its delegate takes
// the node, TFLite's optimized builtin kernel elsewhere), a float reference
// within one quantization step, hand-computed cases and error paths. The
// reference was checked bit for bit against LiteRT on 400 random cases.
//
// RELITE_TCONV_SWEEP_DIR=dir writes every random case (model, input, our
// output) for comparison with LiteRT (not part of a normal run).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;

Quantization Q(std::vector<float> scale, std::vector<int64_t> zp, int dim = 0) {
  Quantization q;
  q.scale = std::move(scale);
  q.zero_point = std::move(zp);
  q.quantized_dimension = dim;
  return q;
}

struct TCase {
  DataType type = DataType::kUInt8;
  int batch = 1, h = 3, w = 3, cin = 2, cout = 3, kh = 3, kw = 3, sh = 2, sw = 2;
  int out_h = -1, out_w = -1;  // -1: the natural size for the padding
  tflite::Padding padding = tflite::Padding::SAME;
  float in_scale = 0.05f, out_scale = 0.1f;
  int in_zp = 0, out_zp = 0, w_zp = 0;
  std::vector<float> w_scale = {0.02f};
  bool bias = true;
  bool omit_bias_input = false;  // 3 inputs instead of an absent 4th
  tflite::ActivationFunctionType act = tflite::ActivationFunctionType::NONE;
  int threads = 1;
  bool tie_data = false;  // values within a few steps of the zero points
  bool declare_output = true;  // the model declares the output shape

  int OutH() const {
    return out_h >= 0 ? out_h : padding == tflite::Padding::SAME ? h * sh : (h - 1) * sh + kh;
  }
  int OutW() const {
    return out_w >= 0 ? out_w : padding == tflite::Padding::SAME ? w * sw : (w - 1) * sw + kw;
  }
  size_t ElemBytes() const { return type == DataType::kInt16 ? 2 : 1; }
};

struct TData {
  std::vector<uint8_t> x;  // raw bytes (int16 little endian for 16x8)
  std::vector<uint8_t> w;  // raw bytes
  std::vector<int64_t> bias;
};

int64_t XVal(const TCase& c, const std::vector<uint8_t>& x, size_t i) {
  if (c.type == DataType::kInt16) return static_cast<int16_t>(x[2 * i] | (x[2 * i + 1] << 8));
  return c.type == DataType::kInt8 ? static_cast<int8_t>(x[i]) : x[i];
}
int64_t WVal(const TCase& c, const std::vector<uint8_t>& w, size_t i) {
  return c.type == DataType::kUInt8 ? w[i] : static_cast<int8_t>(w[i]);
}

std::vector<uint8_t> Bytes(const std::vector<int64_t>& v, size_t size) {
  std::vector<uint8_t> b(v.size() * size);
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t k = 0; k < size; ++k) b[i * size + k] = static_cast<uint8_t>(static_cast<uint64_t>(v[i]) >> (8 * k));
  return b;
}

// Builds and runs the one-op model; returns the raw output bytes.
std::vector<uint8_t> RunModel(const TCase& c, const TData& d, Shape* out_shape, std::string* error,
                              std::vector<uint8_t>* model_bytes = nullptr) {
  SingleOpModel m;
  m.AddConstInput<int32_t>(DataType::kInt32, {4}, {c.batch, c.OutH(), c.OutW(), c.cout});
  std::vector<int64_t> wzp(c.w_scale.size(), c.w_zp);
  const DataType wtype = c.type == DataType::kUInt8 ? DataType::kUInt8 : DataType::kInt8;
  m.AddConstInputBytes(wtype, {c.cout, c.kh, c.kw, c.cin}, d.w, Q(c.w_scale, wzp, 0));
  const int in = m.AddInput(c.type, {c.batch, c.h, c.w, c.cin}, Q({c.in_scale}, {c.in_zp}));
  if (c.bias) {
    std::vector<float> bscale;
    for (float s : c.w_scale) bscale.push_back(s * c.in_scale);
    const DataType btype = c.type == DataType::kInt16 ? DataType::kInt64 : DataType::kInt32;
    m.AddConstInputBytes(btype, {c.cout}, Bytes(d.bias, btype == DataType::kInt64 ? 8 : 4),
                         Q(bscale, std::vector<int64_t>(bscale.size(), 0)));
  } else if (!c.omit_bias_input) {
    m.AddOptionalInput();
  }
  // Converted models declare the output shape; XNNPACK's delegate (applied
  // before the shapes are inferred) needs it to take the node.
  const Shape declared = c.declare_output ? Shape{c.batch, c.OutH(), c.OutW(), c.cout} : Shape{};
  const int out = m.AddOutput(c.type, declared, Q({c.out_scale}, {c.out_zp}));
  m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, c.type == DataType::kInt16 ? 3 : 4,
                 tflite::BuiltinOptions::TransposeConvOptions,
                 tflite::CreateTransposeConvOptions(m.fbb(), c.padding, c.sw, c.sh, c.act).Union());
  Status st = m.Build(c.threads);
  if (model_bytes != nullptr) *model_bytes = m.model_bytes();
  if (!st.ok()) {
    *error = st.ToString();
    return {};
  }
  m.SetInput<uint8_t>(in, d.x);
  st = m.Invoke();
  if (!st.ok()) {
    *error = st.ToString();
    return {};
  }
  *out_shape = m.GetOutputShape(out);
  return m.GetOutput<uint8_t>(out);
}

// Exact int64 accumulators (bias excluded), [b][oy][ox][oc].
std::vector<int64_t> Accumulate(const TCase& c, const TData& d) {
  const int oh = c.OutH(), ow = c.OutW();
  auto pad = [&](int out, int k, int s) {
    if (c.padding == tflite::Padding::VALID) return 0;
    const int in = (out + s - 1) / s;
    return std::max(0, (in - 1) * s + k - out) / 2;
  };
  const int pt = pad(oh, c.kh, c.sh), pl = pad(ow, c.kw, c.sw);
  const int64_t xzp = c.in_zp, wzp = c.type == DataType::kUInt8 ? c.w_zp : 0;
  std::vector<int64_t> acc(static_cast<size_t>(c.batch) * oh * ow * c.cout, 0);
  for (int b = 0; b < c.batch; ++b)
    for (int iy = 0; iy < c.h; ++iy)
      for (int ix = 0; ix < c.w; ++ix)
        for (int ky = 0; ky < c.kh; ++ky)
          for (int kx = 0; kx < c.kw; ++kx) {
            const int oy = iy * c.sh - pt + ky, ox = ix * c.sw - pl + kx;
            if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
            for (int o = 0; o < c.cout; ++o) {
              int64_t s = 0;
              for (int ci = 0; ci < c.cin; ++ci) {
                const size_t xi = ((static_cast<size_t>(b) * c.h + iy) * c.w + ix) * c.cin + ci;
                const size_t wi = ((static_cast<size_t>(o) * c.kh + ky) * c.kw + kx) * c.cin + ci;
                s += (XVal(c, d.x, xi) - xzp) * (WVal(c, d.w, wi) - wzp);
              }
              acc[((static_cast<size_t>(b) * oh + oy) * ow + ox) * c.cout + o] += s;
            }
          }
  return acc;
}

// Whether LiteRT's XNNPACK delegate takes the node (constant weights and bias here).
bool XnnpackTakes(const TCase& c) {
  if (c.type == DataType::kInt16 || !c.declare_output) return false;
  const int oh = c.OutH(), ow = c.OutW();
  if (c.padding == tflite::Padding::VALID) return c.kh <= oh && c.kw <= ow;
  return (oh + c.sh - 1) / c.sh == c.h && (ow + c.sw - 1) / c.sw == c.w && c.kh >= c.sh && c.kw >= c.sw;
}

float ActLo(tflite::ActivationFunctionType a) {
  using A = tflite::ActivationFunctionType;
  return a == A::RELU || a == A::RELU6 ? 0.f : a == A::RELU_N1_TO_1 ? -1.f : -INFINITY;
}
float ActHi(tflite::ActivationFunctionType a) {
  using A = tflite::ActivationFunctionType;
  return a == A::RELU6 ? 6.f : a == A::RELU_N1_TO_1 ? 1.f : INFINITY;
}

// TFLite's QuantizeMultiplier of a double: Q31 mantissa and exponent.
void QuantizeMultiplierRef(double s, int32_t* m, int* shift) {
  if (s == 0) {
    *m = 0;
    *shift = 0;
    return;
  }
  const double q = std::frexp(s, shift);
  int64_t qf = static_cast<int64_t>(std::round(q * (1ll << 31)));
  if (qf == (1ll << 31)) {
    qf /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    qf = 0;
  }
  *m = static_cast<int32_t>(qf);
}

// gemmlowp's SaturatingRoundingDoublingHighMul then RoundingDivideByPOT.
int32_t TfliteMul32(int32_t x, int32_t m, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  const int64_t xs = static_cast<int64_t>(x) * (int64_t{1} << left);
  const int32_t xl = static_cast<int32_t>(xs);
  int32_t high;
  if (xl == INT32_MIN && m == INT32_MIN) {
    high = INT32_MAX;
  } else {
    const int64_t ab = static_cast<int64_t>(xl) * m;
    const int64_t nudge = ab >= 0 ? (1ll << 30) : (1 - (1ll << 30));
    high = static_cast<int32_t>((ab + nudge) / (1ll << 31));
  }
  if (right == 0) return high;
  const int32_t mask = (1 << right) - 1;
  const int32_t rem = high & mask;
  const int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
  return (high >> right) + (rem > threshold ? 1 : 0);
}

// The vector path of TFLite's optimized kernel (NEON, emulated on x86): left
// shift by a positive exponent, rounding doubling high multiply, rounding
// (half up) right shift by a negative one.
int32_t TfliteMulVector(int32_t x, int32_t m, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift < 0 ? -shift : 0;
  const int64_t xs = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  const int64_t p = xs * m;
  // round(2 * p / 2^32) with halves up, via floor((2p + 2^31) / 2^32).
  const int64_t hi = (2 * p + (int64_t{1} << 31)) >> 32;
  return right == 0 ? static_cast<int32_t>(hi) : static_cast<int32_t>((hi + (int64_t{1} << (right - 1))) >> right);
}

// TFLite's int64 MultiplyByQuantizedMultiplier (16-bit reduced multiplier).
int32_t TfliteMul64(int64_t x, int32_t m, int shift) {
  const int64_t reduced = m < 0x7FFF0000 ? (m + (1 << 15)) >> 16 : 0x7FFF;
  const int total = 15 - shift;
  return static_cast<int32_t>((x * reduced + (int64_t{1} << (total - 1))) >> total);
}

// The exact expected output values.
std::vector<int32_t> Reference(const TCase& c, const TData& d) {
  const std::vector<int64_t> acc = Accumulate(c, d);
  const int32_t qmin = c.type == DataType::kInt16 ? -32768 : c.type == DataType::kInt8 ? -128 : 0;
  const int32_t qmax = c.type == DataType::kInt16 ? 32767 : c.type == DataType::kInt8 ? 127 : 255;
  const bool xnn = XnnpackTakes(c);
  int32_t lo = qmin, hi = qmax;
  const float alo = ActLo(c.act), ahi = ActHi(c.act);
  if (xnn) {
    auto bound = [&](float v) {
      return static_cast<int32_t>(std::lrintf(std::fmin(std::fmax(v / c.out_scale + static_cast<float>(c.out_zp),
                                                                  static_cast<float>(qmin)),
                                                        static_cast<float>(qmax))));
    };
    lo = bound(alo);
    hi = bound(ahi);
  } else {
    if (std::isfinite(alo)) lo = std::max(qmin, c.out_zp + static_cast<int32_t>(std::round(alo / c.out_scale)));
    if (std::isfinite(ahi)) hi = std::min(qmax, c.out_zp + static_cast<int32_t>(std::round(ahi / c.out_scale)));
  }
  std::vector<int32_t> y(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    const int o = static_cast<int>(i % c.cout);
    const float ws = c.w_scale.size() > 1 ? c.w_scale[o] : c.w_scale[0];
    const int64_t a = acc[i] + (c.bias ? d.bias[o] : 0);
    if (xnn) {
      const float scale = c.in_scale * ws / c.out_scale;
      const float r = std::nearbyint(std::clamp(static_cast<float>(a) * scale, static_cast<float>(lo - c.out_zp),
                                                static_cast<float>(hi - c.out_zp)));
      y[i] = static_cast<int32_t>(r) + c.out_zp;
    } else {
      int32_t m;
      int shift;
      QuantizeMultiplierRef(static_cast<double>(c.in_scale) * static_cast<double>(ws) / static_cast<double>(c.out_scale),
                            &m, &shift);
      // int8: channels in whole groups of 8 take the vector path; uint8: flat
      // indices in whole groups of 16.
      const bool vector = c.type == DataType::kInt8 ? o < c.cout / 8 * 8 : i < acc.size() / 16 * 16;
      const int32_t v = c.type == DataType::kInt16 ? TfliteMul64(a, m, shift)
                        : vector ? TfliteMulVector(static_cast<int32_t>(a), m, shift) + c.out_zp
                                 : TfliteMul32(static_cast<int32_t>(a), m, shift) + c.out_zp;
      y[i] = std::clamp(v, lo, hi);
    }
  }
  return y;
}

std::vector<int32_t> Values(const TCase& c, const std::vector<uint8_t>& raw) {
  std::vector<int32_t> v(raw.size() / c.ElemBytes());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(XVal(c, raw, i));
  return v;
}

TData RandomData(const TCase& c, std::mt19937& rng, int bias_range) {
  auto U = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  TData d;
  const size_t nx = static_cast<size_t>(c.batch) * c.h * c.w * c.cin;
  const int lo = c.type == DataType::kUInt8 ? 0 : -128, hi = c.type == DataType::kUInt8 ? 255 : 127;
  if (c.type == DataType::kInt16) {
    std::vector<int64_t> xv(nx);
    for (auto& v : xv) v = U(-32768, 32767);
    d.x = Bytes(xv, 2);
  } else if (c.tie_data) {
    d.x.resize(nx);
    for (auto& v : d.x) v = static_cast<uint8_t>(std::clamp(c.in_zp + U(-4, 4), lo, hi));
  } else {
    d.x.resize(nx);
    for (auto& v : d.x) v = static_cast<uint8_t>(U(0, 255));
  }
  d.w.resize(static_cast<size_t>(c.cout) * c.kh * c.kw * c.cin);
  for (auto& v : d.w) {
    if (c.tie_data) {
      v = static_cast<uint8_t>(c.type == DataType::kUInt8 ? std::clamp(c.w_zp + U(-4, 4), 0, 255) : U(-4, 4));
    } else {
      v = static_cast<uint8_t>(c.type == DataType::kUInt8 ? U(0, 255) : static_cast<uint8_t>(U(-127, 127)));
    }
  }
  d.bias.resize(static_cast<size_t>(c.cout));
  for (auto& v : d.bias) v = c.tie_data ? U(-20, 20) : U(-bias_range, bias_range);
  return d;
}

void MaybeDump(const TCase& c, const TData& d, const std::vector<uint8_t>& model, const std::vector<uint8_t>& ours,
               const std::string& error, int index) {
  const char* dir = std::getenv("RELITE_TCONV_SWEEP_DIR");
  if (dir == nullptr) return;
  const std::string base = std::string(dir) + "/tc_" + std::to_string(index);
  std::system(("mkdir -p " + base).c_str());
  std::ofstream(base + "/model.tflite", std::ios::binary)
      .write(reinterpret_cast<const char*>(model.data()), static_cast<std::streamsize>(model.size()));
  std::ofstream(base + "/input.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(d.x.data()), static_cast<std::streamsize>(d.x.size()));
  std::ofstream(base + "/ours.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(ours.data()), static_cast<std::streamsize>(ours.size()));
  std::ofstream(base + "/desc.txt") << "type=" << DataTypeName(c.type) << " b=" << c.batch << " in=" << c.h << "x" << c.w
                                    << "x" << c.cin << " k=" << c.kh << "x" << c.kw << " s=" << c.sh << "x" << c.sw
                                    << " out=" << c.OutH() << "x" << c.OutW() << "x" << c.cout
                                    << " pad=" << (c.padding == tflite::Padding::SAME ? "SAME" : "VALID")
                                    << " act=" << static_cast<int>(c.act) << " bias=" << c.bias
                                    << " wscales=" << c.w_scale.size() << " declared=" << c.declare_output
                                    << " xnn=" << XnnpackTakes(c) << "\n";
  if (!error.empty()) std::ofstream(base + "/error.txt") << error << "\n";
}

TCase RandomCase(std::mt19937& rng, int iter) {
  auto U = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  TCase c;
  const int kind = iter % 4;  // uint8, int8 per-tensor, int8 per-channel, 16x8
  c.type = kind == 0 ? DataType::kUInt8 : kind == 3 ? DataType::kInt16 : DataType::kInt8;
  c.batch = U(1, 2);
  c.h = U(1, 6);
  c.w = U(1, 6);
  c.cin = U(1, 20);
  c.cout = U(1, 24);
  c.kh = U(1, 4);
  c.kw = U(1, 4);
  c.sh = U(1, 3);
  c.sw = U(1, 3);
  c.padding = U(0, 1) ? tflite::Padding::SAME : tflite::Padding::VALID;
  if (U(0, 2) == 0) {  // an output size other than the natural one
    if (c.padding == tflite::Padding::SAME) {
      c.out_h = (c.h - 1) * c.sh + U(1, c.sh);
      c.out_w = (c.w - 1) * c.sw + U(1, c.sw);
    } else {
      c.out_h = (c.h - 1) * c.sh + c.kh + U(0, c.sh - 1);
      c.out_w = (c.w - 1) * c.sw + c.kw + U(0, c.sw - 1);
    }
  }
  const int act = U(0, 5);
  using A = tflite::ActivationFunctionType;
  c.act = act == 1 ? A::RELU : act == 2 ? A::RELU6 : act == 3 ? A::RELU_N1_TO_1 : A::NONE;
  c.bias = U(0, 3) != 0;
  c.declare_output = U(0, 7) != 0;
  c.threads = 1 + iter % 2;
  if (c.type == DataType::kInt16) {
    c.in_scale = 0.0001f * U(1, 50);
    c.out_scale = 0.0005f * U(1, 60);
  } else {
    const int lo = c.type == DataType::kUInt8 ? 0 : -128, hi = c.type == DataType::kUInt8 ? 255 : 127;
    c.in_zp = U(lo, hi);
    c.out_zp = U(lo, hi);
    c.in_scale = 0.01f + 0.001f * U(0, 50);
    c.out_scale = 0.05f + 0.013f * U(0, 30);
  }
  c.w_zp = c.type == DataType::kUInt8 ? U(0, 255) : 0;
  if (kind == 2 || (kind == 3 && U(0, 1))) {
    c.w_scale.clear();
    for (int o = 0; o < c.cout; ++o) c.w_scale.push_back(0.0005f + 0.00037f * U(0, 40));
  } else {
    c.w_scale = {0.002f + 0.0005f * U(0, 20)};
  }
  if (c.type != DataType::kInt16 && U(0, 3) == 0) {
    // Power-of-two scales and small values: many exact rounding ties.
    c.tie_data = true;
    c.in_scale = 0.5f;
    const float out_scales[] = {2.f, 1.f, 0.375f, 0.25f};  // multipliers from 1/16 to 2
    c.out_scale = out_scales[U(0, 3)];
    for (float& s : c.w_scale) s = U(0, 1) ? 0.5f : 0.25f;
  }
  return c;
}

TEST(QuantizedTransposeConv, RandomMatchesExactReference) {
  const char* seed = std::getenv("RELITE_TCONV_SWEEP_SEED");
  std::mt19937 rng(seed != nullptr ? static_cast<uint32_t>(std::atoi(seed)) : 2024u);
  const char* dump = std::getenv("RELITE_TCONV_SWEEP_DIR");
  const int count = dump != nullptr ? 400 : 120;
  for (int iter = 0; iter < count; ++iter) {
    const TCase c = RandomCase(rng, iter);
    const TData d = RandomData(c, rng, c.type == DataType::kInt16 ? 1 << 20 : 3000);
    Shape shape;
    std::string error;
    std::vector<uint8_t> model;
    const std::vector<uint8_t> raw = RunModel(c, d, &shape, &error, &model);
    MaybeDump(c, d, model, raw, error, iter);
    if (!error.empty()) {
      ADD_FAILURE() << "case " << iter << ": " << error;
      continue;
    }
    EXPECT_EQ(shape, (Shape{c.batch, c.OutH(), c.OutW(), c.cout})) << "case " << iter;
    const std::vector<int32_t> want = Reference(c, d);
    const std::vector<int32_t> got = Values(c, raw);
    EXPECT_EQ(got.size(), want.size()) << "case " << iter;
    if (got.size() != want.size()) continue;
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) bad += got[i] != want[i];
    EXPECT_EQ(bad, 0) << "case " << iter << " (" << (XnnpackTakes(c) ? "xnnpack" : "builtin") << ")";
  }
}

// Dequantized float transposed convolution, quantized: within one step.
TEST(QuantizedTransposeConv, FloatReferenceWithinOneStep) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 24; ++iter) {
    TCase c = RandomCase(rng, iter);
    c.act = tflite::ActivationFunctionType::NONE;
    const TData d = RandomData(c, rng, c.type == DataType::kInt16 ? 1 << 16 : 500);
    Shape shape;
    std::string error;
    const std::vector<int32_t> got = Values(c, RunModel(c, d, &shape, &error));
    ASSERT_TRUE(error.empty()) << error;
    const std::vector<int64_t> acc = Accumulate(c, d);
    const int32_t qmin = c.type == DataType::kInt16 ? -32768 : c.type == DataType::kInt8 ? -128 : 0;
    const int32_t qmax = c.type == DataType::kInt16 ? 32767 : c.type == DataType::kInt8 ? 127 : 255;
    ASSERT_EQ(got.size(), acc.size());
    for (size_t i = 0; i < acc.size(); ++i) {
      const int o = static_cast<int>(i % c.cout);
      const double ws = c.w_scale.size() > 1 ? c.w_scale[o] : c.w_scale[0];
      const double real = (static_cast<double>(acc[i]) + (c.bias ? d.bias[o] : 0)) * c.in_scale * ws;
      const double q = std::clamp(std::round(real / c.out_scale) + c.out_zp, double(qmin), double(qmax));
      ASSERT_LE(std::abs(got[i] - q), 1.0) << "case " << iter << " element " << i;
    }
  }
}

// One input pixel, 1x1 input into a 2x2 stride-2 kernel: every output is one
// product, easy to compute by hand, including XNNPACK's ties to even.
TEST(QuantizedTransposeConv, HandComputedTiesToEvenUint8) {
  TCase c;
  c.type = DataType::kUInt8;
  c.h = c.w = 1;
  c.cin = 1;
  c.cout = 1;
  c.kh = c.kw = 2;
  c.sh = c.sw = 2;
  c.padding = tflite::Padding::VALID;
  c.in_scale = 0.5f;
  c.w_scale = {1.f};
  c.out_scale = 1.f;
  c.in_zp = 10;
  c.out_zp = 100;
  c.w_zp = 128;
  c.bias = false;
  TData d;
  d.x = {15};                     // x - zp = 5
  d.w = {129, 127, 131, 133};     // w - zp = 1, -1, 3, 5
  // real = 0.5 * 5 * {1, -1, 3, 5} = 2.5, -2.5, 7.5, 12.5 -> even: 2, -2, 8, 12.
  Shape shape;
  std::string error;
  const std::vector<uint8_t> got = RunModel(c, d, &shape, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(shape, (Shape{1, 2, 2, 1}));
  EXPECT_EQ(got, (std::vector<uint8_t>{102, 98, 108, 112}));
}

// Without a declared output shape XNNPACK's delegate declines the node (it
// runs before shapes are inferred): the same ties take TFLite's arithmetic.
TEST(QuantizedTransposeConv, UndeclaredOutputShapeTakesBuiltinArithmetic) {
  TCase c;
  c.type = DataType::kUInt8;
  c.h = c.w = 1;
  c.cin = 1;
  c.cout = 1;
  c.kh = c.kw = 2;
  c.sh = c.sw = 2;
  c.padding = tflite::Padding::VALID;
  c.in_scale = 0.5f;
  c.w_scale = {1.f};
  c.out_scale = 1.f;
  c.in_zp = 10;
  c.out_zp = 100;
  c.w_zp = 128;
  c.bias = false;
  c.declare_output = false;
  TData d;
  d.x = {15};
  d.w = {129, 127, 131, 133};
  // 2.5, -2.5, 7.5, 12.5 -> 3, -2, 8, 13 (gemmlowp: halves up).
  Shape shape;
  std::string error;
  const std::vector<uint8_t> got = RunModel(c, d, &shape, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(got, (std::vector<uint8_t>{103, 98, 108, 113}));
}

// The same ties through TFLite's builtin arithmetic (SAME padding with a
// kernel smaller than the stride: XNNPACK declines): gemmlowp's doubling
// high multiply rounds ties upwards (2.5 -> 3, -2.5 -> -2).
TEST(QuantizedTransposeConv, HandComputedBuiltinRoundsTiesUp) {
  TCase c;
  c.type = DataType::kInt8;
  c.h = c.w = 1;
  c.cin = 1;
  c.cout = 4;
  c.kh = c.kw = 1;
  c.sh = c.sw = 2;
  c.padding = tflite::Padding::SAME;
  c.in_scale = 0.5f;
  c.w_scale = {1.f};
  c.out_scale = 1.f;
  c.in_zp = -3;
  c.out_zp = -7;
  c.bias = false;
  ASSERT_FALSE(XnnpackTakes(c));
  TData d;
  d.x = {2};  // x - zp = 5
  d.w = {1, static_cast<uint8_t>(-1), 3, 5};
  // 2.5, -2.5, 7.5, 12.5 -> 3, -2, 8, 13; output 2x2, the kernel lands on (0, 0).
  Shape shape;
  std::string error;
  const std::vector<int32_t> got = Values(c, RunModel(c, d, &shape, &error));
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(shape, (Shape{1, 2, 2, 4}));
  const std::vector<int32_t> want = {-4, -9, 1, 6, -7, -7, -7, -7, -7, -7, -7, -7, -7, -7, -7, -7};
  EXPECT_EQ(got, want);
}

// TFLite's optimized int8 kernel requantizes channels in whole groups of 8
// with its vector code (rounding high multiply, then a rounding shift, halves
// up) and the remaining channels with MultiplyByQuantizedMultiplier (double
// rounding, halves away from zero): -1.5 gives -1 in channels 0..7, -2 in
// channel 8.
TEST(QuantizedTransposeConv, BuiltinVectorAndScalarChannelsRoundDifferently) {
  TCase c;
  c.type = DataType::kInt8;
  c.h = c.w = 1;
  c.cin = 1;
  c.cout = 9;
  c.kh = c.kw = 1;
  c.sh = c.sw = 2;
  c.padding = tflite::Padding::SAME;
  c.in_scale = 0.5f;
  c.w_scale = {0.5f};
  c.out_scale = 1.f;
  c.bias = false;
  ASSERT_FALSE(XnnpackTakes(c));
  TData d;
  d.x = {static_cast<uint8_t>(-3)};
  d.w.assign(9, 2);  // acc = -6, real -1.5
  Shape shape;
  std::string error;
  const std::vector<int32_t> got = Values(c, RunModel(c, d, &shape, &error));
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(got.size(), 36u);
  EXPECT_EQ(std::vector<int32_t>(got.begin(), got.begin() + 9), (std::vector<int32_t>{-1, -1, -1, -1, -1, -1, -1, -1, -2}));
  EXPECT_EQ(got, Reference(c, d));
}

// Overlapping taps add up before a single requantization (stride 1, 2x1
// kernel): the middle output holds two products.
TEST(QuantizedTransposeConv, OverlapsAccumulateBeforeRounding) {
  TCase c;
  c.type = DataType::kInt8;
  c.h = 2;
  c.w = 1;
  c.cin = 1;
  c.cout = 1;
  c.kh = 2;
  c.kw = 1;
  c.sh = c.sw = 1;
  c.padding = tflite::Padding::VALID;
  c.in_scale = 0.25f;
  c.w_scale = {1.f};
  c.out_scale = 1.f;
  c.bias = true;
  TData d;
  d.x = {1, 1};            // 0.25 each
  d.w = {2, 4};            // products 0.5 and 1.0 (top) / 0.5 and 1.0 (bottom)
  d.bias = {2};            // + 0.5 everywhere
  // out0 = 0.5 + 0.5 = 1; out1 = 0.5 + 1.0 + 0.5 = 2; out2 = 1.0 + 0.5 = 1.5 -> 2 (even).
  Shape shape;
  std::string error;
  const std::vector<int32_t> got = Values(c, RunModel(c, d, &shape, &error));
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(got, (std::vector<int32_t>{1, 2, 2}));
}

TEST(QuantizedTransposeConv, PerChannelScalesAndSaturation) {
  TCase c;
  c.type = DataType::kInt8;
  c.h = c.w = 1;
  c.cin = 1;
  c.cout = 3;
  c.kh = c.kw = 1;
  c.sh = c.sw = 1;
  c.padding = tflite::Padding::VALID;
  c.in_scale = 1.f;
  c.out_scale = 1.f;
  c.w_scale = {1.f, 0.5f, 4.f};
  c.bias = false;
  TData d;
  d.x = {10};
  d.w = {3, 3, 100};  // 30, 15, 4000 -> saturates at 127
  Shape shape;
  std::string error;
  const std::vector<int32_t> got = Values(c, RunModel(c, d, &shape, &error));
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(got, (std::vector<int32_t>{30, 15, 127}));
}

TEST(QuantizedTransposeConv, ThreeInputsWithoutBias) {
  std::mt19937 rng(5);
  TCase c;
  c.type = DataType::kUInt8;
  c.bias = false;
  c.omit_bias_input = true;
  c.in_zp = 128;
  c.out_zp = 3;
  c.w_zp = 120;
  const TData d = RandomData(c, rng, 0);
  Shape shape;
  std::string error;
  const std::vector<int32_t> got = Values(c, RunModel(c, d, &shape, &error));
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(got, Reference(c, d));
}

TEST(QuantizedTransposeConv, LargerMultithreadedMatchesReference) {
  std::mt19937 rng(9);
  for (int threads : {1, 3}) {
    TCase c;
    c.type = DataType::kInt8;
    c.batch = 2;
    c.h = 9;
    c.w = 11;
    c.cin = 33;
    c.cout = 40;
    c.kh = c.kw = 4;
    c.sh = c.sw = 2;
    c.in_zp = -5;
    c.out_zp = 9;
    c.w_scale.clear();
    for (int o = 0; o < c.cout; ++o) c.w_scale.push_back(0.001f + 0.0002f * o);
    c.threads = threads;
    const TData d = RandomData(c, rng, 5000);
    Shape shape;
    std::string error;
    const std::vector<int32_t> got = Values(c, RunModel(c, d, &shape, &error));
    ASSERT_TRUE(error.empty()) << error;
    EXPECT_EQ(got, Reference(c, d)) << threads << " threads";
  }
}

// 16x8 with many input channels of extreme values: the int64 accumulator
// holds what an int32 one could not.
TEST(QuantizedTransposeConv, Int16WideExtremeChannels) {
  std::mt19937 rng(21);
  TCase c;
  c.type = DataType::kInt16;
  c.h = c.w = 2;
  c.cin = 600;
  c.cout = 5;
  c.kh = c.kw = 2;
  c.sh = c.sw = 1;
  c.in_scale = 0.001f;
  c.out_scale = 4.f;
  c.w_scale = {0.01f};
  TData d = RandomData(c, rng, 1 << 20);
  for (size_t i = 0; i < d.x.size(); i += 2) {  // 32767 everywhere
    d.x[i] = 0xFF;
    d.x[i + 1] = 0x7F;
  }
  for (size_t i = 0; i < d.w.size(); ++i) d.w[i] = static_cast<uint8_t>(i % 5 == 0 ? -127 : 127);
  Shape shape;
  std::string error;
  const std::vector<int32_t> got = Values(c, RunModel(c, d, &shape, &error));
  ASSERT_TRUE(error.empty()) << error;
  const std::vector<int32_t> want = Reference(c, d);
  EXPECT_EQ(got, want);
  EXPECT_NE(want[1], 32767);  // not saturated: the test sees the accumulator
}

TEST(QuantizedTransposeConv, ErrorsNameTheProblem) {
  std::mt19937 rng(3);
  {
    // uint8 input with int8 weights.
    SingleOpModel m;
    m.AddConstInput<int32_t>(DataType::kInt32, {4}, {1, 2, 2, 1});
    m.AddConstInput<int8_t>(DataType::kInt8, {1, 1, 1, 1}, {1}, Q({1.f}, {0}));
    m.AddInput(DataType::kUInt8, {1, 1, 1, 1}, Q({1.f}, {0}));
    m.AddOutput(DataType::kUInt8, {}, Q({1.f}, {0}));
    m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, 2, tflite::BuiltinOptions::TransposeConvOptions,
                   tflite::CreateTransposeConvOptions(m.fbb(), tflite::Padding::SAME, 2, 2).Union());
    const Status st = m.Build();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.ToString().find("weights"), std::string::npos) << st.ToString();
  }
  {
    // output_shape channels disagree with the weights.
    SingleOpModel m;
    m.AddConstInput<int32_t>(DataType::kInt32, {4}, {1, 2, 2, 3});
    m.AddConstInput<int8_t>(DataType::kInt8, {1, 1, 1, 1}, {1}, Q({1.f}, {0}));
    m.AddInput(DataType::kInt8, {1, 1, 1, 1}, Q({1.f}, {0}));
    m.AddOutput(DataType::kInt8, {}, Q({1.f}, {0}));
    m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, 2, tflite::BuiltinOptions::TransposeConvOptions,
                   tflite::CreateTransposeConvOptions(m.fbb(), tflite::Padding::SAME, 2, 2).Union());
    const Status st = m.Build();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.ToString().find("channels"), std::string::npos) << st.ToString();
    EXPECT_NE(st.ToString().find("TRANSPOSE_CONV"), std::string::npos) << st.ToString();
  }
  {
    // 16x8 with an int32 bias (TFLite requires int64).
    SingleOpModel m;
    m.AddConstInput<int32_t>(DataType::kInt32, {4}, {1, 2, 2, 1});
    m.AddConstInput<int8_t>(DataType::kInt8, {1, 1, 1, 1}, {1}, Q({1.f}, {0}));
    m.AddInput(DataType::kInt16, {1, 1, 1, 1}, Q({1.f}, {0}));
    m.AddConstInput<int32_t>(DataType::kInt32, {1}, {0}, Q({1.f}, {0}));
    m.AddOutput(DataType::kInt16, {}, Q({1.f}, {0}));
    m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, 3, tflite::BuiltinOptions::TransposeConvOptions,
                   tflite::CreateTransposeConvOptions(m.fbb(), tflite::Padding::SAME, 2, 2).Union());
    const Status st = m.Build();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.ToString().find("bias"), std::string::npos) << st.ToString();
  }
  {
    // Weights computed by the graph.
    SingleOpModel m;
    m.AddConstInput<int32_t>(DataType::kInt32, {4}, {1, 2, 2, 1});
    m.AddInput(DataType::kInt8, {1, 1, 1, 1}, Q({1.f}, {0}));
    m.AddInput(DataType::kInt8, {1, 1, 1, 1}, Q({1.f}, {0}));
    m.AddOutput(DataType::kInt8, {}, Q({1.f}, {0}));
    m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE_CONV, 2, tflite::BuiltinOptions::TransposeConvOptions,
                   tflite::CreateTransposeConvOptions(m.fbb(), tflite::Padding::SAME, 2, 2).Union());
    const Status st = m.Build();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.ToString().find("weights"), std::string::npos) << st.ToString();
  }
  {
    // A fused TANH is not a clamp.
    TCase c;
    c.act = tflite::ActivationFunctionType::TANH;
    const TData d = RandomData(c, rng, 10);
    Shape shape;
    std::string error;
    RunModel(c, d, &shape, &error);
    EXPECT_FALSE(error.empty());
  }
}

}  // namespace
}  // namespace relite
