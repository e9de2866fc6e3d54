// 8-bit CONV_2D and DEPTHWISE_CONV_2D against a naive exact reference of
// XNNPACK's arithmetic (padded taps read the input zero point, so add nothing)
// and hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>
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

struct ConvCase {
  bool depthwise = false;
  DataType type = DataType::kUInt8;
  int batch = 1, h = 5, w = 5, cin = 3, cout = 4, kh = 3, kw = 3, mult = 1;
  int sh = 1, sw = 1, dh = 1, dw = 1;
  tflite::Padding padding = tflite::Padding::SAME;
  float in_scale = 0.05f, out_scale = 0.1f;
  int in_zp = 0, out_zp = 0, w_zp = 0;
  std::vector<float> w_scale = {0.02f};
  tflite::ActivationFunctionType act = tflite::ActivationFunctionType::NONE;
  int threads = 1;
};

int32_t Val(DataType t, uint8_t b) { return t == DataType::kInt8 ? static_cast<int8_t>(b) : b; }

std::vector<uint8_t> RunConv(const ConvCase& c, const std::vector<uint8_t>& x, const std::vector<uint8_t>& w,
                         const std::vector<int32_t>& bias, Shape* out_shape) {
  SingleOpModel m;
  const int in = m.AddInput(c.type, {c.batch, c.h, c.w, c.cin}, Q({c.in_scale}, {c.in_zp}));
  std::vector<int64_t> wzp(c.w_scale.size(), c.w_zp);
  const Shape wshape = c.depthwise ? Shape{1, c.kh, c.kw, c.cout} : Shape{c.cout, c.kh, c.kw, c.cin};
  m.AddConstInputBytes(c.type, wshape, w, Q(c.w_scale, wzp, c.depthwise ? 3 : 0));
  std::vector<float> bscale;
  for (float s : c.w_scale) bscale.push_back(s * c.in_scale);
  m.AddConstInput<int32_t>(DataType::kInt32, {c.cout}, bias, Q(bscale, std::vector<int64_t>(bscale.size(), 0)));
  const int out = m.AddOutput(c.type, {}, Q({c.out_scale}, {c.out_zp}));
  if (c.depthwise) {
    m.SetBuiltinOp(tflite::BuiltinOperator::DEPTHWISE_CONV_2D, 3, tflite::BuiltinOptions::DepthwiseConv2DOptions,
                   tflite::CreateDepthwiseConv2DOptions(m.fbb(), c.padding, c.sw, c.sh, c.mult, c.act, c.dw, c.dh).Union());
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::CONV_2D, 3, tflite::BuiltinOptions::Conv2DOptions,
                   tflite::CreateConv2DOptions(m.fbb(), c.padding, c.sw, c.sh, c.act, c.dw, c.dh).Union());
  }
  const Status st = m.Build(c.threads);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (!st.ok()) return {};
  m.SetInput<uint8_t>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  *out_shape = m.GetOutputShape(out);
  return m.GetOutput<uint8_t>(out);
}

std::vector<uint8_t> Reference(const ConvCase& c, const std::vector<uint8_t>& x, const std::vector<uint8_t>& w,
                               const std::vector<int32_t>& bias, int32_t qmin, int32_t qmax, Shape* shape) {
  const int ekh = (c.kh - 1) * c.dh + 1, ekw = (c.kw - 1) * c.dw + 1;
  int oh, ow, pt = 0, pl = 0;
  if (c.padding == tflite::Padding::SAME) {
    oh = (c.h + c.sh - 1) / c.sh;
    ow = (c.w + c.sw - 1) / c.sw;
    pt = std::max(0, (oh - 1) * c.sh + ekh - c.h) / 2;
    pl = std::max(0, (ow - 1) * c.sw + ekw - c.w) / 2;
  } else {
    oh = (c.h - ekh) / c.sh + 1;
    ow = (c.w - ekw) / c.sw + 1;
  }
  *shape = {c.batch, oh, ow, c.cout};
  std::vector<uint8_t> y(static_cast<size_t>(c.batch) * oh * ow * c.cout);
  for (int b = 0; b < c.batch; ++b)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int o = 0; o < c.cout; ++o) {
          int64_t acc = bias[o];
          for (int ky = 0; ky < c.kh; ++ky)
            for (int kx = 0; kx < c.kw; ++kx) {
              const int iy = oy * c.sh - pt + ky * c.dh, ix = ox * c.sw - pl + kx * c.dw;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              const int ci_begin = c.depthwise ? o / c.mult : 0, ci_end = c.depthwise ? ci_begin + 1 : c.cin;
              for (int ci = ci_begin; ci < ci_end; ++ci) {
                const int xv = Val(c.type, x[((static_cast<size_t>(b) * c.h + iy) * c.w + ix) * c.cin + ci]) - c.in_zp;
                const size_t wi = c.depthwise ? (static_cast<size_t>(ky) * c.kw + kx) * c.cout + o
                                              : ((static_cast<size_t>(o) * c.kh + ky) * c.kw + kx) * c.cin + ci;
                acc += static_cast<int64_t>(xv) * (Val(c.type, w[wi]) - c.w_zp);
              }
            }
          const float ws = c.w_scale.size() > 1 ? c.w_scale[o] : c.w_scale[0];
          const float scale = c.in_scale * ws / c.out_scale;
          const float r = std::nearbyint(std::clamp(static_cast<float>(acc) * scale,
                                                    static_cast<float>(qmin - c.out_zp), static_cast<float>(qmax - c.out_zp)));
          y[((static_cast<size_t>(b) * oh + oy) * ow + ox) * c.cout + o] = static_cast<uint8_t>(static_cast<int32_t>(r) + c.out_zp);
        }
  return y;
}

// force_3x3: 3x3 depthwise filters on inputs wide and tall enough for rows
// of interior windows (the kernel's weights-in-registers path), with and
// without an 8-channel block and a channel tail past the 16-channel blocks.
void RandomSweep(bool depthwise, uint32_t seed, int count, bool force_3x3 = false) {
  std::mt19937 rng(seed);
  auto U = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  for (int iter = 0; iter < count; ++iter) {
    ConvCase c;
    c.depthwise = depthwise;
    const int kind = iter % 3;
    c.type = kind == 0 ? DataType::kUInt8 : DataType::kInt8;
    c.batch = U(1, 2);
    c.h = U(1, 12);
    c.w = U(1, 12);
    c.cin = depthwise && U(0, 1) ? 8 * U(1, 6) + U(0, 3) : U(1, 20);
    c.kh = U(1, 4);
    c.kw = U(1, 4);
    c.sh = U(1, 2);
    c.sw = U(1, 2);
    if (U(0, 3) == 0) c.dh = c.dw = 2;
    c.padding = U(0, 1) ? tflite::Padding::SAME : tflite::Padding::VALID;
    if (c.padding == tflite::Padding::VALID) {
      c.h = std::max(c.h, (c.kh - 1) * c.dh + 1);
      c.w = std::max(c.w, (c.kw - 1) * c.dw + 1);
    }
    c.mult = depthwise && U(0, 3) == 0 ? 2 : 1;
    if (force_3x3) {
      c.kh = c.kw = 3;
      c.h = U(7, 14);
      c.w = U(7, 20);
      c.cin = 8 * U(1, 6) + (iter % 2 ? U(1, 7) : 0);  // 16-channel blocks, an 8-channel block, a tail
      c.mult = 1;
    }
    c.cout = depthwise ? c.cin * c.mult : U(1, 40);
    c.threads = 1 + iter % 2;
    const int lo = kind == 0 ? 0 : -128, hi = kind == 0 ? 255 : 127;
    c.in_zp = U(lo, hi);
    c.out_zp = U(lo, hi);
    c.in_scale = 0.01f + 0.001f * U(0, 50);
    c.out_scale = 0.05f + 0.01f * U(0, 30);
    c.w_zp = kind == 0 ? U(0, 255) : 0;
    c.w_scale = {0.002f + 0.0005f * U(0, 20)};
    if (kind == 2) {
      c.w_scale.clear();
      for (int o = 0; o < c.cout; ++o) c.w_scale.push_back(0.002f + 0.0005f * U(0, 20));
    }
    c.act = iter % 4 == 1 ? tflite::ActivationFunctionType::RELU : tflite::ActivationFunctionType::NONE;
    std::vector<uint8_t> x(static_cast<size_t>(c.batch) * c.h * c.w * c.cin);
    std::vector<uint8_t> w(static_cast<size_t>(c.cout) * c.kh * c.kw * (depthwise ? 1 : c.cin));
    for (auto& v : x) v = static_cast<uint8_t>(U(lo, hi));
    for (auto& v : w) v = static_cast<uint8_t>(U(kind == 0 ? 0 : -127, kind == 0 ? 255 : 127));
    std::vector<int32_t> bias(static_cast<size_t>(c.cout));
    for (auto& v : bias) v = U(-5000, 5000);
    SCOPED_TRACE("iter " + std::to_string(iter) + " in " + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" +
                 std::to_string(c.cin) + " k " + std::to_string(c.kh) + "x" + std::to_string(c.kw));
    Shape got_shape, want_shape;
    const std::vector<uint8_t> y = RunConv(c, x, w, bias, &got_shape);
    const int32_t qmin = c.act == tflite::ActivationFunctionType::RELU ? std::max(lo, c.out_zp) : lo;
    const std::vector<uint8_t> expected = Reference(c, x, w, bias, qmin, hi, &want_shape);
    ASSERT_EQ(got_shape, want_shape);
    ASSERT_EQ(y, expected);
  }
}

TEST(QuantizedConv2D, RandomMatchesReference) { RandomSweep(false, 11, 30); }
TEST(QuantizedDepthwiseConv2D, RandomMatchesReference) { RandomSweep(true, 12, 30); }
TEST(QuantizedDepthwiseConv2D, Random3x3InteriorRowsMatchReference) { RandomSweep(true, 13, 40, true); }

TEST(QuantizedConv2D, HandComputedPaddingReadsZeroPoint) {
  // 1x2x2x1 uint8 input, zp 128, 3x3 SAME filter of ones (w_zp 0), scale 1:
  // each output sums (x - 128) over the whole image (every tap inside or padded with 0).
  ConvCase c;
  c.h = c.w = 2;
  c.cin = 1;
  c.cout = 1;
  c.in_scale = 1.f;
  c.w_scale = {1.f};
  c.out_scale = 1.f;
  c.in_zp = 128;
  c.out_zp = 10;
  Shape shape;
  const std::vector<uint8_t> y = RunConv(c, {129, 130, 131, 133}, std::vector<uint8_t>(9, 1), {-1}, &shape);
  // (1 + 2 + 3 + 5) - 1 = 10, + zp 10.
  EXPECT_EQ(y, (std::vector<uint8_t>{20, 20, 20, 20}));
  c.depthwise = true;
  EXPECT_EQ(RunConv(c, {129, 130, 131, 133}, std::vector<uint8_t>(9, 1), {-1}, &shape),
            (std::vector<uint8_t>{20, 20, 20, 20}));
}

}  // namespace
}  // namespace relite
