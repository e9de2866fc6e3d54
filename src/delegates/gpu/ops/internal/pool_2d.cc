// Each work item pools one output pixel for one slice of 4 channels over
// the window clipped to the input, as the CPU kernel does: padding cells
// never count (the average divides by the in-bounds cells; the maximum
// skips NaNs like the CPU's "greater wins").
#include "src/delegates/gpu/ops/internal/pool_2d.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/core/ops/params.h"

namespace relite::gpu {
namespace {

constexpr const char* kPoolSource = R"CL(
#if AVERAGE && QUANT_AVG
#define POOL_ACCUMULATE(v) acc += rint((v) * q_inv_scale)  // the code minus the zero point: the sum is exact
#elif AVERAGE
#define POOL_ACCUMULATE(v) acc += (v)
#else
#define POOL_ACCUMULATE(v) acc = fmax(acc, (v))
#endif
KERNEL void pool_2d(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int srcW, int srcH, int W, int H, int HB, int S, int C,
                    int KH, int KW, int strideW, int strideH, int padW, int padH QUANT_AVG_ARGS) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), s = GLOBAL_ID(2);
  if (x >= W || yb >= HB || s >= S) return;
  int n = yb / H, y = yb - n * H;
  int x0 = x * strideW - padW, y0 = y * strideH - padH;
  int ky0 = y0 < 0 ? -y0 : 0, kx0 = x0 < 0 ? -x0 : 0;
  int ky1 = srcH - y0 < KH ? srcH - y0 : KH, kx1 = srcW - x0 < KW ? srcW - x0 : KW;
#if AVERAGE
  float4 acc = F4(0.0f);
#else
  float4 acc = F4(-3.402823466e+38f);
#endif
  int plane = (n * S + s) * srcH;
  // Whole input rows (a 7x7 global pool) are one run of cells: unrolled, so
  // several loads are in flight (one at a time, 49 loads took 11 us).
  int run = kx0 == 0 && x0 == 0 && kx1 == srcW ? (ky1 > ky0 ? ky1 - ky0 : 0) * srcW : 0;
  int first = (plane + y0 + ky0) * srcW;
#pragma unroll 8
  for (int i = 0; i < run; ++i) POOL_ACCUMULATE(LOAD4(src, first + i));
  for (int ky = run > 0 ? ky1 : ky0; ky < ky1; ++ky) {
    int row = (plane + y0 + ky) * srcW + x0;
#pragma unroll 4
    for (int kx = kx0; kx < kx1; ++kx) POOL_ACCUMULATE(LOAD4(src, row + kx));
  }
#if AVERAGE
  int count = (ky1 > ky0 ? ky1 - ky0 : 0) * (kx1 > kx0 ? kx1 - kx0 : 0);
#if QUANT_AVG
  // The CPU's integer rule on the codes (zero point included): uint8
  // (sum + n/2) / n, int8 halves away from zero (C division).
  if (count > 0) {
    int4 sum = convert_int4(acc) + I4(count * q_zp), round_up = I4(count / 2);
#if QUANT_UINT8
    int4 q = (sum + round_up) / count;
#else
    int4 q = select((sum - round_up) / count, (sum + round_up) / count, sum > 0);
#endif
    acc = convert_float4(q - I4(q_zp)) * q_scale;
  }
#else
  if (count > 0) acc = acc / F4((float)count);
#endif
#endif
  STORE4(dst, ((n * S + s) * H + y) * W + x, mask_tail(ACT(acc), s, C));
}
)CL";

// Global pooling of a large plane (a squeeze-and-excitation block's 64x64 or
// 128x128) in one launch: a work group of kPoolGroup items per (batch item,
// slice), each pooling every kPoolGroup-th cell, then a tree over local
// memory. (It was two launches, P partials per slice and one item per slice
// combining them: the combining item's 256-load chain took 14 us.)
constexpr int kPoolGroup = 256;
constexpr const char* kGlobalPoolGroupSource = R"CL(
KERNEL void pool_global_group(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int plane, int BS, int S, int C) {
  LOCAL_MEM float4 part[GROUP];
  int t = LOCAL_ID(0), bs = GLOBAL_ID(1);
#if AVERAGE
  float4 acc = F4(0.0f);
#define POOL_ACCUMULATE(a, v) a += (v)
#else
  float4 acc = F4(-3.402823466e+38f);
#define POOL_ACCUMULATE(a, v) a = fmax(a, (v))
#endif
  if (bs < BS) {
    int base = bs * plane;
    for (int k = t; k < plane; k += GROUP) POOL_ACCUMULATE(acc, LOAD4(src, base + k));  // neighbours read neighbours
  }
  part[t] = acc;
  BARRIER();
  for (int step = GROUP / 2; step > 0; step /= 2) {  // (`half` is an OpenCL type)
    if (t < step) {
      float4 m = part[t];
      POOL_ACCUMULATE(m, part[t + step]);
      part[t] = m;
    }
    BARRIER();
  }
  if (t != 0 || bs >= BS) return;
  acc = part[0];
#if AVERAGE
  acc = acc / F4((float)plane);
#endif
  STORE4(dst, bs, mask_tail(ACT(acc), bs % S, C));
}
)CL";

// Global pooling of a small plane (7x7 before a classifier) in one launch:
// one item per slice read the plane one cell at a time (a 49-load chain,
// 8.8 us for 7x7x1024 on an H200), so a work group of (kPoolLanes, kPoolLanes)
// gives each slice kPoolLanes items pooling every kPoolLanes-th cell, and the
// first item of the slice combines their results from local memory.
constexpr int kPoolLanes = 8;
constexpr const char* kGlobalPoolLanesSource = R"CL(
KERNEL void pool_global_lanes(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int plane, int BS, int S, int C) {
  LOCAL_MEM float4 part[LANES][LANES];
  int lane = LOCAL_ID(0), g = LOCAL_ID(1), bs = GLOBAL_ID(1);
#if AVERAGE
  float4 acc = F4(0.0f);
#define POOL_ACCUMULATE(v) acc += (v)
#else
  float4 acc = F4(-3.402823466e+38f);
#define POOL_ACCUMULATE(v) acc = fmax(acc, (v))
#endif
  if (bs < BS) {
    int base = bs * plane;
    for (int k = lane; k < plane; k += LANES) POOL_ACCUMULATE(LOAD4(src, base + k));
  }
  part[g][lane] = acc;
  BARRIER();
  if (lane != 0 || bs >= BS) return;
  for (int i = 1; i < LANES; ++i) POOL_ACCUMULATE(part[g][i]);
#if AVERAGE
  acc = acc / F4((float)plane);
#endif
  STORE4(dst, bs, mask_tail(ACT(acc), bs % S, C));
}
)CL";

}  // namespace

bool GlobalPoolFits(const GpuShape& in) { return in.h * in.w >= 2 * kPoolLanes; }

void EmitGlobalPool(OpBuilder& b, int in, int out, const GpuShape& si, const GpuShape& so, bool average, float act_min,
                    float act_max) {
  const size_t bs = static_cast<size_t>(so.b) * static_cast<size_t>(so.slices());
  const bool group = si.h * si.w >= kPoolGroup;
  KernelLaunch l;
  l.entry = group ? "pool_global_group" : "pool_global_lanes";
  l.source = group ? kGlobalPoolGroupSource : kGlobalPoolLanesSource;
  l.defines = group ? fmt::format("#define AVERAGE {}\n#define GROUP {}\n", average ? 1 : 0, kPoolGroup)
                    : fmt::format("#define AVERAGE {}\n#define LANES {}\n", average ? 1 : 0, kPoolLanes);
  l.act_min = act_min;
  l.act_max = act_max;
  l.args = {b.Read(in), b.Write(out), KernelArg::Int(si.h * si.w), KernelArg::Int(static_cast<int32_t>(bs)),
            KernelArg::Int(so.slices()), KernelArg::Int(so.c)};
  // The kernels combine a slice's items within one work group, whose size
  // is therefore fixed: one per (batch item, slice), or kPoolLanes slices
  // of kPoolLanes items.
  if (group) {
    l.global = {kPoolGroup, bs, 1};
    l.local = {kPoolGroup, 1, 1};
  } else {
    l.global = {kPoolLanes, (bs + kPoolLanes - 1) / kPoolLanes * kPoolLanes, 1};
    l.local = {kPoolLanes, kPoolLanes, 1};
  }
  l.fusable_output_arg = 1;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(si.elements()));
}

Status EmitPool2D(OpBuilder& b, bool average) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_ASSIGN_OR_RETURN(Pool2DParams p, ParsePool2DParams(b.node()));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  RELITE_RETURN_IF_ERROR(RequireClampActivation(p.activation));
  if (b.tensor(in).shape.size() != 4 || b.tensor(out).shape.size() != 4) return NotOnGpu("input and output must be 4-D");
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim ph, ComputeWindow(b.node(), p.padding, si.h, p.filter_h, p.stride_h, 1));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pw, ComputeWindow(b.node(), p.padding, si.w, p.filter_w, p.stride_w, 1));
  if (ph.out != so.h || pw.out != so.w || si.b != so.b || si.c != so.c) {
    return InvalidArgumentError(fmt::format("{}: output shape {} does not match pooling {}", b.node().Describe(),
                                            GpuShapeToString(so), GpuShapeToString(si)));
  }
  // 8-bit: the CPU pools the codes and never rescales, so the output must be
  // on the input's grid.
  const bool quantized = b.IsQuantized(in);
  if (quantized) RELITE_RETURN_IF_ERROR(b.RequireSameGrid(in, out, "the CPU pools the codes unchanged"));
  // Windows that tile one image exactly (2x2, stride 2, no clamp): a
  // residual read can take each maximum itself (FoldResidualPools).
  if (!average && si.b == 1 && p.filter_h == 2 && p.filter_w == 2 && p.stride_h == 2 && p.stride_w == 2 &&
      si.h == 2 * so.h && si.w == 2 * so.w && p.activation == Activation::kNone && b.SameValues(in, out)) {
    b.SetMaxPool2x2Of(in, si.h, si.w);
  }
  const bool covers = so.h == 1 && so.w == 1 && ph.pad_before <= 0 && pw.pad_before <= 0 &&
                      p.filter_h - ph.pad_before >= si.h && p.filter_w - pw.pad_before >= si.w;
  if (covers && GlobalPoolFits(si) && !(quantized && average)) {
    const ActivationRange r = GetActivationRange(p.activation);
    EmitGlobalPool(b, in, out, si, so, average, r.min, r.max);
    return Status::Ok();
  }
  KernelLaunch l;
  l.entry = "pool_2d";
  l.source = kPoolSource;
  const bool quant_avg = quantized && average;
  l.defines = fmt::format("#define AVERAGE {}\n", average ? 1 : 0);
  if (quant_avg) {
    l.defines += fmt::format("#define QUANT_AVG 1\n#define QUANT_UINT8 {}\n"
                             "#define QUANT_AVG_ARGS , float q_inv_scale, float q_scale, int q_zp\n",
                             b.tensor(in).type == DataType::kUInt8 ? 1 : 0);
  } else {
    l.defines += "#define QUANT_AVG 0\n#define QUANT_AVG_ARGS\n";
  }
  const ActivationRange r = GetActivationRange(p.activation);
  l.act_min = r.min;
  l.act_max = r.max;
  l.args = {b.Read(in), b.Write(out), KernelArg::Int(si.w), KernelArg::Int(si.h), KernelArg::Int(so.w), KernelArg::Int(so.h),
            KernelArg::Int(so.h * so.b), KernelArg::Int(so.slices()), KernelArg::Int(so.c), KernelArg::Int(p.filter_h),
            KernelArg::Int(p.filter_w), KernelArg::Int(p.stride_w), KernelArg::Int(p.stride_h), KernelArg::Int(pw.pad_before),
            KernelArg::Int(ph.pad_before)};
  if (quant_avg) {
    const Quantization& q = b.tensor(in).quant;
    l.args.push_back(KernelArg::Float(1.f / q.scale[0]));
    l.args.push_back(KernelArg::Float(q.scale[0]));
    l.args.push_back(KernelArg::Int(static_cast<int32_t>(q.zero_point.empty() ? 0 : q.zero_point[0])));
  }
  l.global = GridOf(so);
  l.fusable_output_arg = 1;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(so.elements()) * p.filter_h * p.filter_w);
  return Status::Ok();
}

}  // namespace relite::gpu
