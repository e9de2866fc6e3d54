// MEAN over constant axes, keep_dims or not, summing in float.
//
// The reduction is planned in GPU dimensions: `kept` is the input's GPU
// shape with the reduced dimensions set to 1, whose elements in row-major
// order are the output's. When channels are kept and the output's GPU shape
// is `kept` (e.g. a global average pool, axes [1,2] of NHWC), a work item
// sums whole slices. Otherwise each output lane finds its `kept` coordinate
// (from its linear index when the layouts differ, e.g. keep_dims=false
// moving W into the channels) and sums its own values; reduced channels are
// summed a slice at a time with the padding lanes masked off.
#include <array>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/pool_2d.h"

namespace relite::gpu {
namespace {

constexpr const char* kMeanSource = R"CL(
INLINE float mean_lane(GLOBAL const STORAGE* src, int inW, int inH, int inB, int inS, int inC, int kb, int ky, int kx,
                       int kc, float count) {
  float sum = 0.0f;
  int b0 = RB ? 0 : kb, b1 = RB ? inB : kb + 1;
  int y0 = RH ? 0 : ky, y1 = RH ? inH : ky + 1;
  int x0 = RW ? 0 : kx, x1 = RW ? inW : kx + 1;
  for (int b = b0; b < b1; ++b) {
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
#if RC
        for (int s = 0; s < inS; ++s) {
          float4 v = mask_tail(LOAD4(src, ((b * inS + s) * inH + y) * inW + x), s, inC);
          sum += (v.x + v.y) + (v.z + v.w);
        }
#else
        sum += LOAD1(src, (((b * inS + kc / 4) * inH + y) * inW + x) * 4 + (kc & 3));
#endif
      }
    }
  }
  return sum / count;
}
KERNEL void mean(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int W, int H, int HB, int S, int C,
                 int inW, int inH, int inB, int inS, int inC, int kH, int kW, int kC, float count) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), s = GLOBAL_ID(2);
  if (x >= W || yb >= HB || s >= S) return;
  int n = yb / H, y = yb - n * H;
#if SLICES
  float4 acc = F4(0.0f);
  int b0 = RB ? 0 : n, b1 = RB ? inB : n + 1;
  int y0 = RH ? 0 : y, y1 = RH ? inH : y + 1;
  int x0 = RW ? 0 : x, x1 = RW ? inW : x + 1;
  for (int b = b0; b < b1; ++b) {
    for (int yy = y0; yy < y1; ++yy) {
      for (int xx = x0; xx < x1; ++xx) acc += LOAD4(src, ((b * inS + s) * inH + yy) * inW + xx);
    }
  }
  float4 r = acc / F4(count);
#else
  float v[4];
  for (int k = 0; k < 4; ++k) {
    int c = s * 4 + k;
    v[k] = 0.0f;
    if (c >= C) continue;
#if LINEAR
    int l = ((n * H + y) * W + x) * C + c;
    int kc = l % kC;
    l /= kC;
    int kx = l % kW;
    l /= kW;
    int ky = l % kH, kb = l / kH;
#else
    int kb = n, ky = y, kx = x, kc = c;
#endif
    v[k] = mean_lane(src, inW, inH, inB, inS, inC, kb, ky, kx, kc, count);
  }
  float4 r = F4(0.0f);
  r.x = v[0];
  r.y = v[1];
  r.z = v[2];
  r.w = v[3];
#endif
  STORE4(dst, ((n * S + s) * H + y) * W + x, mask_tail(ACT(r), s, C));
}
)CL";

}  // namespace

Status EmitMean(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int axis_t, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, b.ConstantInts(axis_t, "the axes"));
  bool keep_dims = false;
  if (const auto* o = GetOptions<tflite::ReducerOptions>(b.node())) keep_dims = o->keep_dims();
  const Shape& in_shape = b.tensor(in).shape;
  const int rank = static_cast<int>(in_shape.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) return InvalidArgumentError(fmt::format("{}: axis {} is out of range for rank {}", b.node().Describe(), a, rank));
    reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }
  // The output shape the CPU kernel computes, and the reduction in GPU dims.
  Shape expected;
  std::array<bool, 4> rg{false, false, false, false};
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      if (keep_dims) expected.push_back(1);
      rg[static_cast<size_t>(GpuAxis(rank, d))] = true;
      count *= in_shape[static_cast<size_t>(d)];
    } else {
      expected.push_back(in_shape[static_cast<size_t>(d)]);
    }
  }
  if (expected != b.tensor(out).shape) {
    return InvalidArgumentError(fmt::format("{}: declared output shape {} differs from the reduction's {}", b.node().Describe(),
                                            ShapeToString(b.tensor(out).shape), ShapeToString(expected)));
  }
  const GpuShape kept{rg[0] ? 1 : si.b, rg[1] ? 1 : si.h, rg[2] ? 1 : si.w, rg[3] ? 1 : si.c};
  const bool linear = !(kept == so);
  // A global average pool (height and width, the output [B,1,1,C] in GPU
  // layout): several items per slice and one work group to combine them,
  // instead of one item summing a whole plane (10.7 -> 5.3 us for 7x7x672 on an H100).
  if (rg[1] && rg[2] && !rg[0] && !rg[3] && !linear && !b.IsQuantized(in) && GlobalPoolFits(si)) {
    EmitGlobalPool(b, in, out, si, so, true, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity());
    return Status::Ok();
  }
  const bool slices = !linear && !rg[3];
  KernelLaunch l;
  l.entry = "mean";
  l.source = kMeanSource;
  l.defines = fmt::format("#define RB {}\n#define RH {}\n#define RW {}\n#define RC {}\n#define LINEAR {}\n#define SLICES {}\n",
                          rg[0] ? 1 : 0, rg[1] ? 1 : 0, rg[2] ? 1 : 0, rg[3] ? 1 : 0, linear ? 1 : 0, slices ? 1 : 0);
  l.args = {b.Read(in), b.Write(out), KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.h * so.b),
            KernelArg::Int(so.slices()), KernelArg::Int(so.c), KernelArg::Int(si.w), KernelArg::Int(si.h), KernelArg::Int(si.b),
            KernelArg::Int(si.slices()), KernelArg::Int(si.c), KernelArg::Int(kept.h), KernelArg::Int(kept.w),
            KernelArg::Int(kept.c), KernelArg::Float(static_cast<float>(count))};
  l.global = GridOf(so);
  l.fusable_output_arg = 1;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(si.elements()));
  return Status::Ok();
}

}  // namespace relite::gpu
