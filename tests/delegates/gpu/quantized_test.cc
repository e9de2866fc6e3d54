// 8-bit models on the GPU delegate: each quantized GPU op against relite's
// bit-exact CPU 8-bit kernel, compared in quantization steps (codes), on
// random 8-bit inputs over the whole type and random scales and zero points,
// uint8 and int8, per-tensor and per-channel weights; the refusals of the
// support check (flag cleared, weights quantized on the wrong axis, a scale a
// GPU cannot hold, a range float16 cannot hold); and a dynamic-range model
// (int8 weights feeding float ops) against its twin with float weights.
//
// Bounds. fp32: >= 99.9% of codes equal or one step apart, none more than two
// (the bound; the GPU rounds real values in float where the CPU uses
// fixed-point multipliers, so values that land on a rounding boundary may
// round the other way). fp16: every stored activation is rounded to half
// (relative 2^-11), which is up to 255 * 2^-11 = 0.12 of a step for a code far
// from the zero point, and the weights are half too: >= 99% within one step,
// none more than two. (Measured on PoCL: fp32 99.87% of codes equal to the CPU's,
// fp16 99.62%, both 100% within one step; the suite prints its totals.)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "relite/model_writer.h"
#include "tests/testing/gpu_test_util.h"

namespace relite {
namespace {

using writer::Activation;
using writer::Padding;

struct CodeBound {
  double within_one;  // fraction of codes at most one step from the CPU's
  float max_steps;
};

CodeBound BoundFor(GpuPrecision p) { return p == GpuPrecision::kFp16 ? CodeBound{0.99, 2.f} : CodeBound{0.999, 2.f}; }

int64_t QMin(DataType t) { return t == DataType::kUInt8 ? 0 : -128; }
int64_t QMax(DataType t) { return t == DataType::kUInt8 ? 255 : 127; }

Quantization Q(float scale, int64_t zero_point) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

// Parameters whose grid covers [lo, hi] (and 0, as TFLite's converter does).
Quantization RangeQuant(DataType t, float lo, float hi) {
  lo = std::min(lo, 0.f);
  hi = std::max(hi, 0.f);
  if (hi - lo < 1e-6f) hi = lo + 1e-6f;
  const float scale = (hi - lo) / 255.f;
  const int64_t zp = std::clamp<int64_t>(QMin(t) + static_cast<int64_t>(std::lround(-lo / scale)), QMin(t), QMax(t));
  return Q(scale, zp);
}

float RealLo(DataType t, const Quantization& q) { return (QMin(t) - q.zero_point[0]) * q.scale[0]; }
float RealHi(DataType t, const Quantization& q) { return (QMax(t) - q.zero_point[0]) * q.scale[0]; }

// Random activation parameters: scale in [0.004, 0.05], zero point anywhere
// in the type's range (so real ranges from all-negative to all-positive).
Quantization RandomQuant(DataType t, std::mt19937& rng) {
  std::uniform_real_distribution<float> log_scale(std::log(0.004f), std::log(0.05f));
  std::uniform_int_distribution<int64_t> zp(QMin(t), QMax(t));
  return Q(std::exp(log_scale(rng)), zp(rng));
}

// Mean and standard deviation of the real values of uniformly random codes.
float CodeMean(DataType t, const Quantization& q) { return 0.5f * (RealLo(t, q) + RealHi(t, q)); }
float CodeStd(const Quantization& q) { return q.scale[0] * 256.f / std::sqrt(12.f); }

std::vector<uint8_t> Bytes(const ModelWriter& w) {
  auto bytes = w.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

// Totals over every comparison of a precision, printed when the suite ends
// so the stated bounds can be audited against what was measured.
struct CodeStats {
  size_t values = 0, equal = 0, within_one = 0;
  float worst = 0.f;
};
CodeStats g_stats[2];

// Outputs compared in codes.
::testing::AssertionResult CodesClose(const testing::GpuRunResult& r, CodeBound bound, CodeStats& stats) {
  if (r.cpu.empty()) return ::testing::AssertionFailure() << "no outputs";
  for (size_t o = 0; o < r.cpu.size(); ++o) {
    if (r.cpu[o].size() != r.gpu[o].size() || r.cpu[o].empty()) {
      return ::testing::AssertionFailure() << "output " << o << ": " << r.gpu[o].size() << " values, CPU has " << r.cpu[o].size();
    }
    size_t within = 0;
    float worst = 0.f;
    size_t worst_at = 0;
    for (size_t i = 0; i < r.cpu[o].size(); ++i) {
      const float d = std::fabs(r.gpu[o][i] - r.cpu[o][i]);
      within += d <= 1.f;
      stats.equal += d == 0.f;
      if (d > worst) worst = d, worst_at = i;
    }
    if (std::getenv("RELITE_QUANT_TRACE")) {
      size_t eq = 0;
      for (size_t i = 0; i < r.cpu[o].size(); ++i) eq += r.gpu[o][i] == r.cpu[o][i];
      std::printf("  %s: output %zu: %.2f%% equal\n", ::testing::UnitTest::GetInstance()->current_test_info()->name(), o,
                  100.0 * static_cast<double>(eq) / static_cast<double>(r.cpu[o].size()));
    }
    stats.values += r.cpu[o].size();
    stats.within_one += within;
    stats.worst = std::max(stats.worst, worst);
    const double frac = static_cast<double>(within) / static_cast<double>(r.cpu[o].size());
    if (frac < bound.within_one || worst > bound.max_steps) {
      return ::testing::AssertionFailure() << "output " << o << ": " << frac * 100 << "% of " << r.cpu[o].size()
                                           << " codes within one step (bound " << bound.within_one * 100 << "%), worst "
                                           << worst << " steps at " << worst_at << " (GPU " << r.gpu[o][worst_at] << ", CPU "
                                           << r.cpu[o][worst_at] << "; bound " << bound.max_steps << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

class GpuQuantizedTest : public ::testing::TestWithParam<GpuPrecision> {
 public:
  static void TearDownTestSuite() {
    for (int p = 0; p < 2; ++p) {
      const CodeStats& s = g_stats[p];
      if (s.values == 0) continue;
      std::printf("%s: %zu codes, %.3f%% equal to the CPU's, %.4f%% within one step, worst %.0f steps\n",
                  p == 0 ? "fp32" : "fp16", s.values, 100.0 * static_cast<double>(s.equal) / static_cast<double>(s.values),
                  100.0 * static_cast<double>(s.within_one) / static_cast<double>(s.values), s.worst);
    }
  }

 protected:
  CodeBound bound() const { return BoundFor(GetParam()); }
  // Runs `bytes` on the CPU and the GPU, expects one GPU partition holding
  // every op, and compares the outputs in codes.
  // `exact`: ops the GPU computes in integers as the CPU does (op_builder.h
  // IntegerConv, gpu_program.h IntegerAdd, the 8-bit average pool): every
  // code must be the CPU's, in fp32 and fp16.
  void ExpectMatchesCpu(const std::vector<uint8_t>& bytes, Delegate* gpu, uint32_t seed = 1, bool exact = false) {
    auto r = testing::RunCpuAndGpu(bytes, gpu, -1.f, 1.f, seed);
    EXPECT_EQ(r.delegated, r.operations) << r.report;
    EXPECT_EQ(r.partitions, 1) << r.report;
    EXPECT_TRUE(CodesClose(r, exact ? CodeBound{1.0, 0.f} : bound(), g_stats[GetParam() == GpuPrecision::kFp16 ? 1 : 0]));
  }
};

constexpr DataType kTypes[] = {DataType::kUInt8, DataType::kInt8};
const char* Name(DataType t) { return t == DataType::kUInt8 ? "uint8" : "int8"; }

TEST_P(GpuQuantizedTest, AddSubMulWithBroadcastAndActivations) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(7);
  const Shape shapes[][2] = {{{1, 5, 7, 6}, {1, 5, 7, 6}}, {{1, 5, 7, 6}, {1, 1, 1, 6}}, {{2, 3, 4, 5}, {2, 3, 1, 5}}};
  const Activation acts[] = {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1};
  int k = 0;
  for (DataType t : kTypes) {
    for (BuiltinOp op : {BuiltinOp::kAdd, BuiltinOp::kSub, BuiltinOp::kMul}) {
      for (const auto& s : shapes) {
        const Activation act = acts[k++ % 4];
        SCOPED_TRACE(::testing::Message() << Name(t) << " op " << static_cast<int>(op) << " " << ShapeToString(s[0])
                                          << " x " << ShapeToString(s[1]) << " act " << static_cast<int>(act));
        const Quantization qa = RandomQuant(t, rng), qb = RandomQuant(t, rng);
        const float alo = RealLo(t, qa), ahi = RealHi(t, qa), blo = RealLo(t, qb), bhi = RealHi(t, qb);
        float lo = alo + blo, hi = ahi + bhi;
        if (op == BuiltinOp::kSub) lo = alo - bhi, hi = ahi - blo;
        if (op == BuiltinOp::kMul) {
          const float p[] = {alo * blo, alo * bhi, ahi * blo, ahi * bhi};
          lo = *std::min_element(p, p + 4), hi = *std::max_element(p, p + 4);
        }
        // 0.7 of the full range: most values on the grid, some saturating.
        ModelWriter w;
        const int a = w.AddTensor(t, s[0], "a", qa);
        const int b = w.AddTensor(t, s[1], "b", qb);
        const int out = w.AddTensor(t, s[0], "out", RangeQuant(t, 0.7f * lo, 0.7f * hi));
        w.AddOp(op, {a, b}, {out}, writer::ArithmeticOptions{act});
        w.SetInputs({a, b});
        w.SetOutputs({out});
        ExpectMatchesCpu(Bytes(w), gpu, static_cast<uint32_t>(k), /*exact=*/op != BuiltinOp::kMul);
      }
    }
  }
}

// Scales whose reciprocals and products are whole numbers (0.05 -> 20): the
// kernel source must still spell them as float literals ("20.0f"; a fuzzer
// found "20f", which OpenCL refuses, in the exact ADD's parameters).
TEST_P(GpuQuantizedTest, RoundScalesBuildAndStayExact) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  for (DataType t : kTypes) {
    for (float scale : {0.05f, 0.25f, 1.f, 2.f}) {
      SCOPED_TRACE(::testing::Message() << Name(t) << " scale " << scale);
      const int64_t zp = t == DataType::kUInt8 ? 100 : -20;
      ModelWriter w;
      const int a = w.AddTensor(t, {1, 3, 3, 8}, "a", Q(scale, zp));
      const int y = w.AddTensor(t, {1, 3, 3, 8}, "y", Q(2 * scale, zp));
      w.AddOp(BuiltinOp::kAdd, {a, a}, {y}, writer::ArithmeticOptions{Activation::kRelu});
      w.SetInputs({a});
      w.SetOutputs({y});
      ExpectMatchesCpu(Bytes(w), gpu, 3, /*exact=*/true);
    }
  }
}

// Weights for a convolution-like op: codes over the whole type, real values
// scaled so an output sums O(1) terms.
struct Weights {
  std::vector<uint8_t> codes;  // raw bytes (uint8 or int8)
  Quantization quant;
  std::vector<int32_t> bias;
  Quantization bias_quant;
  std::vector<float> real;  // dequantized, [channel-major as laid out]
  std::vector<float> real_bias;
};

// `channels` output channels along `axis` of `shape`; per_channel: int8 with
// zero point 0 and a scale per channel (TFLite's int8 scheme), else one scale
// and a random zero point (uint8) or zero (int8).
Weights RandomWeights(DataType t, const Shape& shape, int axis, bool per_channel, float input_scale, std::mt19937& rng) {
  Weights w;
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  const int channels = shape[static_cast<size_t>(axis)];
  const int64_t taps = n / channels;
  std::uniform_real_distribution<float> jitter(0.5f, 2.f);
  const float base = 1.f / (127.f * std::sqrt(static_cast<float>(taps)));
  w.quant.quantized_dimension = per_channel ? axis : 0;
  for (int c = 0; c < (per_channel ? channels : 1); ++c) {
    w.quant.scale.push_back(base * jitter(rng));
    w.quant.zero_point.push_back(per_channel || t == DataType::kInt8 ? 0 : std::uniform_int_distribution<int>(100, 156)(rng));
  }
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  w.codes.resize(static_cast<size_t>(n));
  w.real.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = per_channel ? static_cast<size_t>((i / inner) % channels) : 0;
    int64_t code = t == DataType::kUInt8 ? static_cast<int64_t>(rng() % 256) : static_cast<int64_t>(rng() % 255) - 127;
    w.codes[static_cast<size_t>(i)] = static_cast<uint8_t>(code);
    w.real[static_cast<size_t>(i)] = static_cast<float>(code - w.quant.zero_point[c]) * w.quant.scale[c];
  }
  for (int c = 0; c < channels; ++c) {
    const float bias_scale = input_scale * w.quant.scale[per_channel ? static_cast<size_t>(c) : 0];
    w.bias_quant.scale.push_back(bias_scale);
    w.bias_quant.zero_point.push_back(0);
    const int32_t code = static_cast<int32_t>(std::lround(std::uniform_real_distribution<float>(-0.3f, 0.3f)(rng) / bias_scale));
    w.bias.push_back(code);
    w.real_bias.push_back(static_cast<float>(code) * bias_scale);
  }
  if (!per_channel) {
    w.bias_quant.scale.resize(1);
    w.bias_quant.zero_point.resize(1);
  }
  return w;
}

// Output parameters for sum_taps(x * w[c]) + b[c] with random input codes:
// mean +- 3 standard deviations over every channel.
Quantization ConvOutputQuant(DataType t, const Weights& w, const Quantization& in_q, int axis, const Shape& shape) {
  const int channels = shape[static_cast<size_t>(axis)];
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<double> sum(static_cast<size_t>(channels)), sum2(static_cast<size_t>(channels));
  for (size_t i = 0; i < w.real.size(); ++i) {
    const size_t c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
    sum[c] += w.real[i];
    sum2[c] += static_cast<double>(w.real[i]) * w.real[i];
  }
  const double mean_x = CodeMean(t, in_q), std_x = CodeStd(in_q);
  double lo = 0, hi = 0;
  for (int c = 0; c < channels; ++c) {
    const double m = mean_x * sum[static_cast<size_t>(c)] + w.real_bias[static_cast<size_t>(c)];
    const double s = std_x * std::sqrt(sum2[static_cast<size_t>(c)]);
    lo = std::min(lo, m - 3 * s), hi = std::max(hi, m + 3 * s);
  }
  return RangeQuant(t, static_cast<float>(lo), static_cast<float>(hi));
}

TEST_P(GpuQuantizedTest, Conv2DPerTensorAndPerChannel) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(11);
  struct Case {
    Shape in;
    int out_c, kh, kw, stride;
    Padding pad;
    Activation act;
  };
  const Case cases[] = {{{1, 9, 8, 5}, 7, 3, 3, 1, Padding::kSame, Activation::kNone},
                        {{1, 9, 8, 5}, 7, 3, 3, 2, Padding::kValid, Activation::kRelu6},
                        {{2, 6, 6, 16}, 9, 1, 1, 1, Padding::kValid, Activation::kRelu},
                        {{1, 7, 10, 3}, 12, 5, 3, 2, Padding::kSame, Activation::kNone}};
  int k = 0;
  for (DataType t : kTypes) {
    for (bool per_channel : {false, true}) {
      if (per_channel && t == DataType::kUInt8) continue;  // TFLite's per-channel scheme is int8
      for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message() << Name(t) << (per_channel ? " per-channel " : " per-tensor ") << ShapeToString(c.in)
                                          << " -> " << c.out_c << " filter " << c.kh << "x" << c.kw << " stride " << c.stride);
        const Quantization in_q = RandomQuant(t, rng);
        const Shape wshape{c.out_c, c.kh, c.kw, c.in[3]};
        const Weights wt = RandomWeights(t, wshape, 0, per_channel, in_q.scale[0], rng);
        const auto size = [&](int in, int f) {
          return c.pad == Padding::kSame ? (in + c.stride - 1) / c.stride : (in - f + c.stride) / c.stride;
        };
        const Shape oshape{c.in[0], size(c.in[1], c.kh), size(c.in[2], c.kw), c.out_c};
        ModelWriter w;
        const int x = w.AddTensor(t, c.in, "x", in_q);
        const int f = w.AddConstant(t, wshape, "filter", wt.codes, wt.quant);
        const int b = w.AddConstantOf<int32_t>({c.out_c}, "bias", wt.bias, wt.bias_quant);
        const int y = w.AddTensor(t, oshape, "y", ConvOutputQuant(t, wt, in_q, 0, wshape));
        writer::Conv2DOptions o;
        o.padding = c.pad;
        o.stride_h = o.stride_w = c.stride;
        o.activation = c.act;
        w.AddOp(BuiltinOp::kConv2D, {x, f, b}, {y}, o);
        w.SetInputs({x});
        w.SetOutputs({y});
        ExpectMatchesCpu(Bytes(w), gpu, static_cast<uint32_t>(++k), /*exact=*/true);
      }
    }
  }
}

TEST_P(GpuQuantizedTest, DepthwiseConv2DPerTensorAndPerChannel) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(13);
  struct Case {
    Shape in;
    int mult, k, stride;
    Padding pad;
  };
  const Case cases[] = {{{1, 9, 8, 6}, 1, 3, 1, Padding::kSame},
                        {{1, 9, 8, 5}, 2, 3, 2, Padding::kValid},
                        {{2, 7, 7, 8}, 1, 5, 2, Padding::kSame}};
  int k = 0;
  for (DataType t : kTypes) {
    for (bool per_channel : {false, true}) {
      if (per_channel && t == DataType::kUInt8) continue;
      for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message() << Name(t) << (per_channel ? " per-channel " : " per-tensor ") << ShapeToString(c.in)
                                          << " multiplier " << c.mult << " filter " << c.k << " stride " << c.stride);
        const Quantization in_q = RandomQuant(t, rng);
        const int oc = c.in[3] * c.mult;
        const Shape wshape{1, c.k, c.k, oc};
        const Weights wt = RandomWeights(t, wshape, 3, per_channel, in_q.scale[0], rng);
        const auto size = [&](int in) { return c.pad == Padding::kSame ? (in + c.stride - 1) / c.stride : (in - c.k + c.stride) / c.stride; };
        ModelWriter w;
        const int x = w.AddTensor(t, c.in, "x", in_q);
        const int f = w.AddConstant(t, wshape, "filter", wt.codes, wt.quant);
        const int b = w.AddConstantOf<int32_t>({oc}, "bias", wt.bias, wt.bias_quant);
        const int y = w.AddTensor(t, {c.in[0], size(c.in[1]), size(c.in[2]), oc}, "y", ConvOutputQuant(t, wt, in_q, 3, wshape));
        writer::DepthwiseConv2DOptions o;
        o.padding = c.pad;
        o.stride_h = o.stride_w = c.stride;
        o.depth_multiplier = c.mult;
        w.AddOp(BuiltinOp::kDepthwiseConv2D, {x, f, b}, {y}, o);
        w.SetInputs({x});
        w.SetOutputs({y});
        ExpectMatchesCpu(Bytes(w), gpu, static_cast<uint32_t>(++k), /*exact=*/true);
      }
    }
  }
}

TEST_P(GpuQuantizedTest, FullyConnected) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(17);
  int k = 0;
  for (DataType t : kTypes) {
    for (const Shape& in : {Shape{2, 20}, Shape{1, 64}, Shape{3, 2, 12}}) {
      SCOPED_TRACE(::testing::Message() << Name(t) << " " << ShapeToString(in));
      const int depth = in.back();
      const int batch = static_cast<int>(NumElements(in) / depth);
      const Quantization in_q = RandomQuant(t, rng);
      const Shape wshape{11, depth};
      const Weights wt = RandomWeights(t, wshape, 0, false, in_q.scale[0], rng);
      ModelWriter w;
      const int x = w.AddTensor(t, in, "x", in_q);
      const int f = w.AddConstant(t, wshape, "weights", wt.codes, wt.quant);
      const int b = w.AddConstantOf<int32_t>({11}, "bias", wt.bias, wt.bias_quant);
      const int y = w.AddTensor(t, {batch, 11}, "y", ConvOutputQuant(t, wt, in_q, 0, wshape));
      w.AddOp(BuiltinOp::kFullyConnected, {x, f, b}, {y}, writer::FullyConnectedOptions{k % 2 ? Activation::kRelu : Activation::kNone});
      w.SetInputs({x});
      w.SetOutputs({y});
      ExpectMatchesCpu(Bytes(w), gpu, static_cast<uint32_t>(++k), /*exact=*/true);
    }
  }
}

TEST_P(GpuQuantizedTest, AverageAndMaxPool) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(19);
  int k = 0;
  for (DataType t : kTypes) {
    for (BuiltinOp op : {BuiltinOp::kAveragePool2D, BuiltinOp::kMaxPool2D}) {
      for (Padding pad : {Padding::kSame, Padding::kValid}) {
        for (int f : {2, 3}) {
          const Quantization q = RandomQuant(t, rng);
          const Shape in{1, 8, 9, 5};
          const auto size = [&](int n) { return pad == Padding::kSame ? (n + 1) / 2 : (n - f + 2) / 2; };
          ModelWriter w;
          const int x = w.AddTensor(t, in, "x", q);
          const int y = w.AddTensor(t, {1, size(8), size(9), 5}, "y", q);
          writer::Pool2DOptions o;
          o.padding = pad;
          o.stride_h = o.stride_w = 2;
          o.filter_h = o.filter_w = f;
          o.activation = k % 2 ? Activation::kRelu6 : Activation::kNone;
          w.AddOp(op, {x}, {y}, o);
          w.SetInputs({x});
          w.SetOutputs({y});
          SCOPED_TRACE(::testing::Message() << Name(t) << " op " << static_cast<int>(op) << " filter " << f);
          ExpectMatchesCpu(Bytes(w), gpu, static_cast<uint32_t>(++k), /*exact=*/true);
        }
      }
    }
  }
}

TEST_P(GpuQuantizedTest, ConcatenationWithDifferingScales) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(23);
  for (DataType t : kTypes) {
    for (int axis : {3, 1}) {
      SCOPED_TRACE(::testing::Message() << Name(t) << " axis " << axis);
      ModelWriter w;
      std::vector<int> ins;
      float lo = 0, hi = 0;
      Shape out{1, 4, 5, 3};
      out[static_cast<size_t>(axis)] = 0;
      for (int i = 0; i < 3; ++i) {
        Shape s{1, 4, 5, 3};
        s[static_cast<size_t>(axis)] = 2 + i;
        out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
        const Quantization q = RandomQuant(t, rng);
        lo = std::min(lo, RealLo(t, q)), hi = std::max(hi, RealHi(t, q));
        ins.push_back(w.AddTensor(t, s, fmt::format("x{}", i), q));
      }
      const int y = w.AddTensor(t, out, "y", RangeQuant(t, 0.8f * lo, 0.8f * hi));
      w.AddOp(BuiltinOp::kConcatenation, ins, {y}, writer::ConcatenationOptions{axis, Activation::kNone});
      w.SetInputs(ins);
      w.SetOutputs({y});
      ExpectMatchesCpu(Bytes(w), gpu);
    }
  }
}

// ADD, then RESHAPE of its (quantized) output, then PAD: data movement keeps
// the producer's grid.
TEST_P(GpuQuantizedTest, ReshapeAndPadKeepTheGrid) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(29);
  for (DataType t : kTypes) {
    SCOPED_TRACE(Name(t));
    const Quantization qa = RandomQuant(t, rng), qb = RandomQuant(t, rng);
    const Quantization qs = RangeQuant(t, RealLo(t, qa) + RealLo(t, qb), RealHi(t, qa) + RealHi(t, qb));
    ModelWriter w;
    const int a = w.AddTensor(t, {1, 4, 6, 4}, "a", qa);
    const int b = w.AddTensor(t, {1, 4, 6, 4}, "b", qb);
    const int sum = w.AddTensor(t, {1, 4, 6, 4}, "sum", qs);
    const int shape = w.AddConstantOf<int32_t>({4}, "shape", {1, 8, 3, 4});
    const int reshaped = w.AddTensor(t, {1, 8, 3, 4}, "reshaped", qs);
    const int paddings = w.AddConstantOf<int32_t>({4, 2}, "paddings", {0, 0, 1, 2, 2, 1, 0, 0});
    const int padded = w.AddTensor(t, {1, 11, 6, 4}, "padded", qs);
    w.AddOp(BuiltinOp::kAdd, {a, b}, {sum}, writer::ArithmeticOptions{});
    w.AddOp(BuiltinOp::kReshape, {sum, shape}, {reshaped}, writer::ReshapeOptions{{1, 8, 3, 4}});
    w.AddOp(BuiltinOp::kPad, {reshaped, paddings}, {padded});
    w.SetInputs({a, b});
    w.SetOutputs({padded});
    ExpectMatchesCpu(Bytes(w), gpu);
  }
}

// SOFTMAX, LOGISTIC and TANH with the fixed output parameters TFLite's 8-bit
// kernels require; HARD_SWISH with free ones.
TEST_P(GpuQuantizedTest, Activations) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(31);
  int k = 0;
  for (DataType t : kTypes) {
    const int64_t off = t == DataType::kUInt8 ? 0 : -128;
    struct Case {
      BuiltinOp op;
      Shape shape;
      Quantization out;
    };
    const Case cases[] = {{BuiltinOp::kSoftmax, {3, 10}, Q(1.f / 256, off)},
                          {BuiltinOp::kSoftmax, {1, 2, 3, 17}, Q(1.f / 256, off)},
                          {BuiltinOp::kLogistic, {1, 4, 5, 6}, Q(1.f / 256, off)},
                          {BuiltinOp::kTanh, {1, 4, 5, 6}, Q(1.f / 128, off + 128)},
                          {BuiltinOp::kHardSwish, {1, 4, 5, 6}, {}}};
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message() << Name(t) << " op " << static_cast<int>(c.op) << " " << ShapeToString(c.shape));
      // Inputs spanning a few units: the curved part of each function.
      Quantization in_q = RandomQuant(t, rng);
      in_q.scale[0] *= 1.5f;
      Quantization out_q = c.out;
      if (c.op == BuiltinOp::kHardSwish) out_q = RangeQuant(t, -0.375f, std::max(0.f, RealHi(t, in_q)));
      ModelWriter w;
      const int x = w.AddTensor(t, c.shape, "x", in_q);
      const int y = w.AddTensor(t, c.shape, "y", out_q);
      if (c.op == BuiltinOp::kSoftmax) {
        w.AddOp(c.op, {x}, {y}, writer::SoftmaxOptions{k % 2 ? 0.7f : 1.f});
      } else {
        w.AddOp(c.op, {x}, {y});
      }
      w.SetInputs({x});
      w.SetOutputs({y});
      ExpectMatchesCpu(Bytes(w), gpu, static_cast<uint32_t>(++k));
    }
  }
}

TEST_P(GpuQuantizedTest, MeanAndResizeBilinear) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(37);
  for (DataType t : kTypes) {
    SCOPED_TRACE(Name(t));
    {
      const Quantization in_q = RandomQuant(t, rng);
      // The mean of many random codes sits near the middle: a finer grid.
      const float m = CodeMean(t, in_q), s = CodeStd(in_q);
      ModelWriter w;
      const int x = w.AddTensor(t, {1, 6, 7, 5}, "x", in_q);
      const int axes = w.AddConstantOf<int32_t>({2}, "axes", {1, 2});
      const int y = w.AddTensor(t, {1, 1, 1, 5}, "y", RangeQuant(t, m - s, m + s));
      w.AddOp(BuiltinOp::kMean, {x, axes}, {y}, writer::ReducerOptions{true});
      w.SetInputs({x});
      w.SetOutputs({y});
      SCOPED_TRACE("MEAN");
      ExpectMatchesCpu(Bytes(w), gpu);
    }
    for (bool half_pixel : {false, true}) {
      const Quantization q = RandomQuant(t, rng);
      ModelWriter w;
      const int x = w.AddTensor(t, {1, 5, 6, 3}, "x", q);
      const int size = w.AddConstantOf<int32_t>({2}, "size", {9, 13});
      const int y = w.AddTensor(t, {1, 9, 13, 3}, "y", q);
      w.AddOp(BuiltinOp::kResizeBilinear, {x, size}, {y}, writer::ResizeBilinearOptions{false, half_pixel});
      w.SetInputs({x});
      w.SetOutputs({y});
      SCOPED_TRACE(half_pixel ? "RESIZE_BILINEAR half pixel" : "RESIZE_BILINEAR");
      ExpectMatchesCpu(Bytes(w), gpu);
    }
  }
}

// QUANTIZE from float (the model's input boundary) and between 8-bit types
// (a re-scale), in front of an ADD so the partition computes something.
TEST_P(GpuQuantizedTest, QuantizeFromFloatAndRequantize) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(41);
  for (DataType from : {DataType::kFloat32, DataType::kUInt8, DataType::kInt8}) {
    for (DataType to : kTypes) {
      SCOPED_TRACE(::testing::Message() << DataTypeName(from) << " -> " << Name(to));
      const Quantization in_q = from == DataType::kFloat32 ? Quantization{} : RandomQuant(from, rng);
      const Quantization q = RangeQuant(to, -0.9f, 1.1f);
      ModelWriter w;
      const int x = w.AddTensor(from, {1, 6, 5, 4}, "x", in_q);
      const int xq = w.AddTensor(to, {1, 6, 5, 4}, "xq", q);
      const int b = w.AddTensor(to, {1, 6, 5, 4}, "b", q);
      const int y = w.AddTensor(to, {1, 6, 5, 4}, "y", RangeQuant(to, -1.8f, 2.2f));
      w.AddOp(BuiltinOp::kQuantize, {x}, {xq});
      w.AddOp(BuiltinOp::kAdd, {xq, b}, {y}, writer::ArithmeticOptions{});
      w.SetInputs({x, b});
      w.SetOutputs({y, xq});
      ExpectMatchesCpu(Bytes(w), gpu);
    }
  }
}

// DEQUANTIZE at the output: the GPU's real values leave as float.
TEST_P(GpuQuantizedTest, DequantizeToFloat) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(43);
  for (DataType t : kTypes) {
    SCOPED_TRACE(Name(t));
    const Quantization qa = RandomQuant(t, rng), qb = RandomQuant(t, rng);
    const Quantization qs = RangeQuant(t, RealLo(t, qa) + RealLo(t, qb), RealHi(t, qa) + RealHi(t, qb));
    ModelWriter w;
    const int a = w.AddTensor(t, {2, 5, 3}, "a", qa);
    const int b = w.AddTensor(t, {2, 5, 3}, "b", qb);
    const int sum = w.AddTensor(t, {2, 5, 3}, "sum", qs);
    const int y = w.AddTensor(DataType::kFloat32, {2, 5, 3}, "y");
    w.AddOp(BuiltinOp::kAdd, {a, b}, {sum}, writer::ArithmeticOptions{});
    w.AddOp(BuiltinOp::kDequantize, {sum}, {y});
    w.SetInputs({a, b});
    w.SetOutputs({y});
    auto r = testing::RunCpuAndGpu(Bytes(w), gpu);
    EXPECT_EQ(r.delegated, 2) << r.report;
    // The values are codes of `sum` times its scale: one step, in real units.
    ASSERT_EQ(r.cpu.size(), 1u);
    size_t within = 0;
    float worst = 0;
    for (size_t i = 0; i < r.cpu[0].size(); ++i) {
      const float steps = std::fabs(r.gpu[0][i] - r.cpu[0][i]) / qs.scale[0];
      within += steps <= 1.001f;
      worst = std::max(worst, steps);
    }
    EXPECT_GE(static_cast<double>(within) / static_cast<double>(r.cpu[0].size()), bound().within_one);
    EXPECT_LE(worst, bound().max_steps + 0.01f);
  }
}

// ---- Refusals: what the support check will not run, and why. -------------


std::vector<uint8_t> QuantizedAdd(DataType t, const Quantization& q) {
  ModelWriter w;
  const int a = w.AddTensor(t, {1, 4, 4, 3}, "a", q);
  const int b = w.AddTensor(t, {1, 4, 4, 3}, "b", q);
  const int y = w.AddTensor(t, {1, 4, 4, 3}, "y", q);
  w.AddOp(BuiltinOp::kAdd, {a, b}, {y}, writer::ArithmeticOptions{});
  w.SetInputs({a, b});
  w.SetOutputs({y});
  return Bytes(w);
}

TEST(GpuQuantizedRefusalTest, ClearingTheFlagKeepsQuantizedModelsOnTheCpu) {
  GpuDelegateOptions options;
  options.experimental_flags = kGpuExperimentalNone;
  auto gpu = CreateGpuDelegate(options);
  if (!gpu.ok()) {
    if (testing::GpuRequired()) FAIL() << gpu.status().ToString();
    GTEST_SKIP() << gpu.status().ToString();
  }
  const DelegationReport rep = testing::DelegationOf(QuantizedAdd(DataType::kUInt8, Q(0.05f, 128)), gpu->get());
  EXPECT_EQ(rep.num_delegated, 0);
  EXPECT_NE(rep.ToString().find("kGpuExperimentalQuantizedModels"), std::string::npos) << rep.ToString();
}

TEST_P(GpuQuantizedTest, SubnormalScaleIsRefused) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const DelegationReport rep = testing::DelegationOf(QuantizedAdd(DataType::kInt8, Q(1e-40f, 0)), gpu);
  EXPECT_EQ(rep.num_delegated, 0);
  EXPECT_NE(rep.ToString().find("subnormal"), std::string::npos) << rep.ToString();
}

TEST_P(GpuQuantizedTest, RangeBeyondFloat16IsRefusedInFp16Only) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  // 300 * 255 = 76500 > 65504, float16's largest value.
  const DelegationReport rep = testing::DelegationOf(QuantizedAdd(DataType::kUInt8, Q(300.f, 0)), gpu);
  if (GetParam() == GpuPrecision::kFp16) {
    EXPECT_EQ(rep.num_delegated, 0);
    EXPECT_NE(rep.ToString().find("float16's range"), std::string::npos) << rep.ToString();
  } else {
    EXPECT_EQ(rep.num_delegated, 1) << rep.ToString();
  }
}

// The CPU copies (RESHAPE) or pools (AVERAGE_POOL_2D) 8-bit codes without
// rescaling: an output on another grid cannot be reproduced in real values.
TEST_P(GpuQuantizedTest, DataMovementOntoAnotherGridIsRefused) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  {
    ModelWriter w;
    const int x = w.AddTensor(DataType::kUInt8, {1, 4, 4, 3}, "x", Q(0.05f, 128));
    const int shape = w.AddConstantOf<int32_t>({2}, "shape", {1, 48});
    const int y = w.AddTensor(DataType::kUInt8, {1, 48}, "y", Q(0.1f, 128));
    w.AddOp(BuiltinOp::kReshape, {x, shape}, {y}, writer::ReshapeOptions{{1, 48}});
    w.SetInputs({x});
    w.SetOutputs({y});
    const DelegationReport rep = testing::DelegationOf(Bytes(w), gpu);
    EXPECT_EQ(rep.num_delegated, 0);
    EXPECT_NE(rep.ToString().find("the op copies values"), std::string::npos) << rep.ToString();
  }
  {
    ModelWriter w;
    const int x = w.AddTensor(DataType::kInt8, {1, 4, 4, 3}, "x", Q(0.05f, 0));
    const int y = w.AddTensor(DataType::kInt8, {1, 2, 2, 3}, "y", Q(0.05f, 5));
    writer::Pool2DOptions o;
    o.stride_h = o.stride_w = o.filter_h = o.filter_w = 2;
    w.AddOp(BuiltinOp::kAveragePool2D, {x}, {y}, o);
    w.SetInputs({x});
    w.SetOutputs({y});
    const DelegationReport rep = testing::DelegationOf(Bytes(w), gpu);
    EXPECT_EQ(rep.num_delegated, 0);
    EXPECT_NE(rep.ToString().find("pools the codes unchanged"), std::string::npos) << rep.ToString();
  }
}

TEST_P(GpuQuantizedTest, PerChannelWeightsOnTheWrongAxisAreRefused) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  std::mt19937 rng(47);
  const Quantization in_q = Q(0.02f, 0);
  const Shape wshape{4, 3, 3, 4};
  Weights wt = RandomWeights(DataType::kInt8, wshape, 0, true, in_q.scale[0], rng);
  wt.quant.quantized_dimension = 3;  // 4 scales along the input channels
  ModelWriter w;
  const int x = w.AddTensor(DataType::kInt8, {1, 5, 5, 4}, "x", in_q);
  const int f = w.AddConstant(DataType::kInt8, wshape, "filter", wt.codes, wt.quant);
  const int b = w.AddConstantOf<int32_t>({4}, "bias", wt.bias, wt.bias_quant);
  const int y = w.AddTensor(DataType::kInt8, {1, 5, 5, 4}, "y", Q(0.05f, 0));
  w.AddOp(BuiltinOp::kConv2D, {x, f, b}, {y}, writer::Conv2DOptions{});
  w.SetInputs({x});
  w.SetOutputs({y});
  const DelegationReport rep = testing::DelegationOf(Bytes(w), gpu);
  EXPECT_EQ(rep.num_delegated, 0);
  EXPECT_NE(rep.ToString().find("along dimension 3"), std::string::npos) << rep.ToString();
}

// ---- Dynamic range: int8 weights, float activations. ----------------------

// CONV_2D (int8 per-channel weights) -> DEPTHWISE (int8 per-channel) ->
// FULLY_CONNECTED (int8 per-tensor weights), float everywhere else; `float_twin`
// writes the same graph with the weights dequantized to float32.
std::vector<uint8_t> DynamicRangeModel(bool float_twin) {
  std::mt19937 rng(53);
  ModelWriter w;
  const int x = w.AddTensor(DataType::kFloat32, {1, 8, 8, 6}, "x");
  auto weights = [&](const Shape& shape, int axis, bool per_channel, const std::string& name) {
    Weights wt = RandomWeights(DataType::kInt8, shape, axis, per_channel, 1.f, rng);
    if (float_twin) return w.AddConstantOf<float>(shape, name, wt.real);
    return w.AddConstant(DataType::kInt8, shape, name, wt.codes, wt.quant);
  };
  auto bias = [&](int n, const std::string& name) {
    std::vector<float> b(static_cast<size_t>(n));
    for (float& v : b) v = std::uniform_real_distribution<float>(-0.2f, 0.2f)(rng);
    return w.AddConstantOf<float>({n}, name, b);
  };
  const int f1 = weights({10, 3, 3, 6}, 0, true, "conv/filter");
  const int b1 = bias(10, "conv/bias");
  const int y1 = w.AddTensor(DataType::kFloat32, {1, 8, 8, 10}, "conv");
  w.AddOp(BuiltinOp::kConv2D, {x, f1, b1}, {y1}, writer::Conv2DOptions{Padding::kSame, 1, 1, Activation::kRelu6});
  const int f2 = weights({1, 3, 3, 10}, 3, true, "dw/filter");
  const int b2 = bias(10, "dw/bias");
  const int y2 = w.AddTensor(DataType::kFloat32, {1, 4, 4, 10}, "dw");
  writer::DepthwiseConv2DOptions dw;
  dw.stride_h = dw.stride_w = 2;
  w.AddOp(BuiltinOp::kDepthwiseConv2D, {y1, f2, b2}, {y2}, dw);
  const int f3 = weights({7, 160}, 0, false, "fc/weights");
  const int b3 = bias(7, "fc/bias");
  const int y3 = w.AddTensor(DataType::kFloat32, {1, 7}, "fc");
  w.AddOp(BuiltinOp::kFullyConnected, {y2, f3, b3}, {y3}, writer::FullyConnectedOptions{});
  w.SetInputs({x});
  w.SetOutputs({y3});
  return Bytes(w);
}

std::vector<float> RunFloat(const std::vector<uint8_t>& bytes, Delegate* gpu, DelegationReport* report) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "test");
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return {};
  BuiltinOpResolver resolver;
  InterpreterBuilder builder(**model, resolver);
  builder.SetNumThreads(1);
  if (gpu != nullptr) builder.AddDelegate(gpu);
  auto interp = builder.Build();
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  if (!interp.ok()) return {};
  Status s = (*interp)->AllocateTensors();
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  if (report != nullptr && !(*interp)->delegation_reports().empty()) *report = (*interp)->delegation_reports().back();
  Tensor* in = (*interp)->input_tensor(0);
  std::mt19937 rng(5);
  for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = std::uniform_real_distribution<float>(-1.f, 1.f)(rng);
  s = (*interp)->Invoke();
  EXPECT_TRUE(s.ok()) << s.ToString();
  const Tensor* out = (*interp)->output_tensor(0);
  return std::vector<float>(out->data_as<float>(), out->data_as<float>() + out->num_elements());
}

TEST_P(GpuQuantizedTest, DynamicRangeModelMatchesItsFloatTwin) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  DelegationReport rep;
  const std::vector<float> hybrid = RunFloat(DynamicRangeModel(false), gpu, &rep);
  EXPECT_EQ(rep.num_delegated, 3) << rep.ToString();
  EXPECT_EQ(rep.num_partitions, 1) << rep.ToString();
  const std::vector<float> twin = RunFloat(DynamicRangeModel(true), nullptr, nullptr);
  ASSERT_EQ(hybrid.size(), twin.size());
  ASSERT_FALSE(twin.empty());
  // fp32: the 1e-3 + 1e-3|b|. fp16 stores every activation in half.
  const float tol = GetParam() == GpuPrecision::kFp16 ? 1e-2f : 1e-3f;
  for (size_t i = 0; i < twin.size(); ++i) {
    EXPECT_NEAR(hybrid[i], twin[i], tol + tol * std::fabs(twin[i])) << "output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuQuantizedTest, ::testing::Values(GpuPrecision::kFp32, GpuPrecision::kFp16),
                         [](const auto& info) { return info.param == GpuPrecision::kFp32 ? "fp32" : "fp16"; });

}  // namespace
}  // namespace relite
