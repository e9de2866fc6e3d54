// FULLY_CONNECTED: out[r][o] = act(bias[o] + sum_k in[r][k] * W[o][k]), the
// input read as [rows, K]. On the GPU a row is a run of the input's layout:
// K = C (each pixel a row), K = W * C (each image row a row) or K = H * W * C
// (each image a row), so a row is a VALID convolution window of 1x1, 1xW or
// HxW taps and the weights [N, K] are an OHWI filter of that window, packed
// like CONV_2D's. Any other K (splitting a pixel's channels, or spanning
// images) cannot be indexed by slices and is left to the CPU.
//
// Two kernels: one work item per (row, output slice), or, when that gives
// too few work items (a few rows: classifier heads), one output channel per
// 8 work items of a work group, which split the K loop and add their partial
// sums in local memory (4x the work items of a slice each, 2 loads per 4 MACs).
#include <algorithm>

#include <fmt/format.h>

#include "src/core/ops/params.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/conv_weights.h"

namespace relite::gpu {
namespace {

// LANES == 1: global (rows, So), one output slice per work item, weights
// packed like CONV_2D's. LANES > 1: global (LANES, So * 4, rows) with a local
// size of (LANES, <= MAX_GROUP_ITEMS, 1), one output channel per work group
// row, weights packed as [N][taps][Si * 4].
constexpr const char* kFullyConnectedSource = R"CL(
KERNEL void fully_connected(GLOBAL const STORAGE* src, GLOBAL const STORAGE* weights, GLOBAL const BIAS_STORAGE* bias,
                            GLOBAL STORAGE* dst, int srcW, int srcH, int srcS, int KH, int KW, int outW, int outH,
                            int rows, int dstS, int flat, int N REQUANT_ARGS) {
#if LANES == 1
  int r = GLOBAL_ID(0), so = GLOBAL_ID(1);
  if (r >= rows || so >= dstS) return;
#else
  int lane = LOCAL_ID(0), o = GLOBAL_ID(1), r = GLOBAL_ID(2);
  // Work items past the grid still reach the barrier.
  int active = r < rows && o < dstS * 4;
#endif
  // The row's window: image n, first pixel (oy, ox).
  int ox = r % outW, t = r / outW;
  int oy = t % outH, n = t / outH;
  int plane = srcH * srcW;
#if LANES == 1
  float4 acc = LOAD_BIAS(bias, so);
  for (int ky = 0; ky < KH; ++ky) {
    for (int kx = 0; kx < KW; ++kx) {
      int i = (n * srcS * srcH + oy + ky) * srcW + ox + kx;
      int w = ((so * KH + ky) * KW + kx) * srcS * 4;
      for (int si = 0; si < srcS; ++si) {
        float4 v = LOADX(src, i);
        acc += v.x * LOAD4(weights, w) + v.y * LOAD4(weights, w + 1) + v.z * LOAD4(weights, w + 2) +
               v.w * LOAD4(weights, w + 3);
        i += plane;
        w += 4;
      }
    }
  }
  int d = flat ? r * dstS + so : ((n * dstS + so) * outH + oy) * outW + ox;
  STORE4(dst, d, ACT(REQUANT(acc, so)));
#else
  float4 acc4 = F4(0.0f);
  if (active && o < N) {
    // j runs over (tap, input slice) in the packed weights' order.
    int total = KH * KW * srcS;
    int i0 = (n * srcS * srcH + oy) * srcW + ox;
    for (int j = lane; j < total; j += LANES) {
      int tap = j / srcS, si = j - tap * srcS;
      int ky = tap / KW, kx = tap - ky * KW;
      acc4 += LOADX(src, i0 + si * plane + ky * srcW + kx) * LOAD4(weights, o * total + j);
    }
  }
  LOCAL_MEM float partial[LANES * MAX_GROUP_ITEMS];
  int base = LOCAL_ID(1) * LANES;
  partial[base + lane] = acc4.x + acc4.y + acc4.z + acc4.w;
  BARRIER();
  if (lane != 0 || !active) return;
  float acc = 0.0f;
  for (int k = 0; k < LANES; ++k) acc += partial[base + k];
  // Channels past N (the last slice's tail) are stored as zeros.
  float v = o < N ? ACT(REQUANT1(acc + LOAD_BIAS1(bias, o), o)) : 0.0f;
  int so = o / 4;
  int d = flat ? r * dstS + so : ((n * dstS + so) * outH + oy) * outW + ox;
  STORE1(dst, d * 4 + o % 4, v);
#endif
}
)CL";

// Work groups of (kRowSplitLanes, kMaxGroupItems, 1), lanes in dimension 0: see
// conv_2d.cc for why 8 x 8.
constexpr int kRowSplitLanes = 8;
constexpr int kMaxGroupItems = 8;
// Below this many (row, output slice) pairs the K loop is split over lanes.
constexpr int64_t kSplitBelowItems = 16384;

}  // namespace

Status EmitFullyConnected(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int weights, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  const int bias = b.has_input(2) ? b.node().inputs[2] : -1;
  const std::string what = b.node().Describe();
  RELITE_ASSIGN_OR_RETURN(FullyConnectedParams p, ParseFullyConnectedParams(b.node()));
  RELITE_RETURN_IF_ERROR(b.RequireConstantWeights(in, out, weights, "weights", bias));
  RELITE_RETURN_IF_ERROR(RequireClampActivation(p.activation));
  const Shape& ws = b.tensor(weights).shape;
  const Shape& is = b.tensor(in).shape;
  if (ws.size() != 2 || ws[0] < 1 || ws[1] < 1) {
    return InvalidArgumentError(fmt::format("{}: weights must be 2-D [N, K], got {}", what, ShapeToString(ws)));
  }
  const int units = ws[0], depth = ws[1];
  if (bias >= 0 && b.tensor(bias).num_elements() != units) {
    return InvalidArgumentError(fmt::format("{}: bias has {} values for {} units", what, b.tensor(bias).num_elements(), units));
  }
  if (is.empty()) return InvalidArgumentError(fmt::format("{}: the input must have at least one dimension", what));
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  if (si.elements() % depth != 0) {
    return InvalidArgumentError(fmt::format("{}: input {} does not divide into rows of {}", what, ShapeToString(is), depth));
  }
  const int64_t rows = si.elements() / depth;
  Shape expected;
  if (p.keep_num_dims) {
    if (is.back() != depth) {
      return InvalidArgumentError(fmt::format("{}: keep_num_dims needs the input's last dimension to be K = {}, got {}", what,
                                              depth, ShapeToString(is)));
    }
    expected = is;
    expected.back() = units;
  } else {
    expected = {static_cast<int32_t>(rows), units};
  }
  if (b.tensor(out).shape != expected) {
    return InvalidArgumentError(fmt::format("{}: declared output shape {} does not match {} for input {} and weights {}", what,
                                            ShapeToString(b.tensor(out).shape), ShapeToString(expected), ShapeToString(is),
                                            ShapeToString(ws)));
  }
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  // The row's window (taps) in the input's GPU layout.
  int kh = 0, kw = 0;
  if (depth == si.c) {
    kh = kw = 1;
  } else if (int64_t{depth} == int64_t{si.w} * si.c) {
    kh = 1;
    kw = si.w;
  } else if (int64_t{depth} == int64_t{si.h} * si.w * si.c) {
    kh = si.h;
    kw = si.w;
  } else {
    return NotOnGpu(fmt::format("input {} read as rows of K = {} values: a row is not whole pixels, image rows or images of "
                                "the GPU layout (reshape the input so that K is its last dimension)",
                                ShapeToString(is), depth));
  }
  const int out_h = si.h - kh + 1, out_w = si.w - kw + 1;
  // Output [rows, N] is one row per batch entry; with keep_num_dims (or a
  // single pixel per image) it is the window grid's own layout.
  const bool flat = !p.keep_num_dims && out_h * out_w > 1;
  const int cin = si.c, taps = kh * kw, src_s = si.slices();
  const int dst_s = so.slices();
  const bool split = rows * dst_s < kSplitBelowItems && taps * src_s >= 2 * kRowSplitLanes;
  const IntegerConv exact = PlanIntegerConv(b, in, out, weights, 0, dst_s * 4);
  int w_const = -1;
  if (split) {
    // [N][taps][Si * 4]: one channel's weights in the order its lanes read the input.
    w_const = b.AddConstant(static_cast<size_t>(units) * taps * src_s * 4, [=](const ConstantTensors& t, float* dst) {
      const std::vector<float> w = exact.WeightValues(t, weights, 0);
      for (int o = 0; o < units; ++o)
        for (int k = 0; k < taps; ++k)
          for (int c = 0; c < cin; ++c) {
            dst[(static_cast<size_t>(o) * taps + k) * src_s * 4 + c] = w[(static_cast<size_t>(o) * taps + k) * cin + c];
          }
    });
  } else {
    w_const = b.AddConstant(PackedConvWeightsCount(units, kh, kw, cin), [=](const ConstantTensors& t, float* dst) {
      PackConvWeights(exact.WeightValues(t, weights, 0).data(), units, kh, kw, cin, dst);
    });
  }
  const int b_const = b.AddConstant(
      static_cast<size_t>(dst_s) * 4,
      [=](const ConstantTensors& t, float* dst) {
        if (bias >= 0) {
          const std::vector<float> v = exact.BiasValues(t, bias);
          for (int c = 0; c < units; ++c) dst[c] = v[c];
        }
      },
      exact.enabled);
  KernelLaunch l;
  l.entry = "fully_connected";
  l.source = kFullyConnectedSource;
  l.defines = fmt::format("#define LANES {}\n#define MAX_GROUP_ITEMS {}\n", split ? kRowSplitLanes : 1, kMaxGroupItems) + exact.Defines();
  const ActivationRange r = GetActivationRange(p.activation);
  l.act_min = r.min;
  l.act_max = r.max;
  l.args = {b.Read(in), KernelArg::Constant(w_const), KernelArg::Constant(b_const), b.Write(out),
            KernelArg::Int(si.w), KernelArg::Int(si.h), KernelArg::Int(src_s), KernelArg::Int(kh), KernelArg::Int(kw),
            KernelArg::Int(out_w), KernelArg::Int(out_h), KernelArg::Int(static_cast<int32_t>(rows)), KernelArg::Int(dst_s),
            KernelArg::Int(flat ? 1 : 0), KernelArg::Int(units)};
  exact.AddArgs(l);
  if (split) {
    // The kernel's local memory holds (LANES x kMaxGroupItems) partial sums
    // and the lanes must be one work group's dimension 0: fix the local size.
    const size_t channels = static_cast<size_t>(dst_s) * 4;
    l.global = {static_cast<size_t>(kRowSplitLanes), channels, static_cast<size_t>(rows)};
    l.local = {static_cast<size_t>(kRowSplitLanes), std::min<size_t>(channels, kMaxGroupItems), 1};
  } else {
    l.global = {static_cast<size_t>(rows), static_cast<size_t>(dst_s), 1};
  }
  l.fusable_output_arg = 3;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(rows) * units * depth);
  return Status::Ok();
}

}  // namespace relite::gpu
