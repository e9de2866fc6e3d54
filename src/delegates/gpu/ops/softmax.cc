// SOFTMAX over the last axis, which is the channel axis of the GPU layout
// for every rank: one work item per pixel walks its slices three times
// (reference value, sum of exponentials, output), accumulating in float.
// When there are few pixels with many channels (a classifier's 1001 scores:
// one work item would walk 251 slices three times, ~60 us on an H200), a
// work group of 64-256 items shares each pixel: every item takes every
// group-size-th slice and the max and the sum are reduced in local memory.
// As on the CPU the reference is the max (the min when beta < 0), so every
// exponent is <= 0; the padding lanes take no part.
#include <algorithm>

#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/gpu/ops/emitters.h"

namespace relite::gpu {
namespace {

// The max of `m` and the first `left` (1..4+) lanes of `v`, shared by both
// kernels.
#define RELITE_SOFTMAX_HELPERS \
  "INLINE float max_lanes(float m, float4 v, int left) {\n" \
  "  m = fmax(m, v.x);\n" \
  "  if (left > 1) m = fmax(m, v.y);\n" \
  "  if (left > 2) m = fmax(m, v.z);\n" \
  "  if (left > 3) m = fmax(m, v.w);\n" \
  "  return m;\n" \
  "}\n"

constexpr const char* kSoftmaxSource = RELITE_SOFTMAX_HELPERS R"CL(
KERNEL void softmax(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int W, int H, int HB, int S, int C, float beta) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1);
  if (x >= W || yb >= HB) return;
  int n = yb / H, y = yb - n * H;
  int base = (n * S * H + y) * W + x, plane = H * W;
  // max(sign * x) over the real channels: the max, or minus the min.
  float sign = beta >= 0.0f ? 1.0f : -1.0f;
  float m = -3.402823466e+38f;
  for (int s = 0; s < S; ++s) {
    float4 v = LOAD4(src, base + s * plane) * F4(sign);
    m = max_lanes(m, v, C - s * 4);
  }
  float4 ref = F4(sign * m);
  float sum = 0.0f;
  for (int s = 0; s < S; ++s) {
    float4 e = mask_tail(exp(F4(beta) * (LOAD4(src, base + s * plane) - ref)), s, C);
    sum += (e.x + e.y) + (e.z + e.w);
  }
  float4 inv = F4(1.0f / sum);
  for (int s = 0; s < S; ++s) {
    float4 e = exp(F4(beta) * (LOAD4(src, base + s * plane) - ref)) * inv;
    STORE4(dst, base + s * plane, mask_tail(ACT(e), s, C));
  }
}
)CL";

constexpr const char* kSoftmaxGroupSource = RELITE_SOFTMAX_HELPERS R"CL(
KERNEL void softmax_group(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int W, int H, int HB, int S, int C, float beta) {
  // A work group of LANES x ROWS items per pixel (dimension 0 is LANES: see
  // kSoftmaxLanes), the pixel in dimension 2.
  int lane = LOCAL_ID(1) * LANES + LOCAL_ID(0), pix = GLOBAL_ID(2);
  const int NL = LANES * ROWS;
  LOCAL_MEM float red[LANES * ROWS];
  int x = pix % W, yb = pix / W;
  int active = yb < HB;  // the others still reach the barriers
  int n = active ? yb / H : 0, y = active ? yb - n * H : 0;
  int base = (n * S * H + y) * W + x, plane = H * W;
  float sign = beta >= 0.0f ? 1.0f : -1.0f;
  float m = -3.402823466e+38f;
  for (int s = lane; s < S && active; s += NL) {
    float4 v = LOAD4(src, base + s * plane) * F4(sign);
    m = max_lanes(m, v, C - s * 4);
  }
  red[lane] = m;
  BARRIER();
  for (int k = NL / 2; k > 0; k >>= 1) {
    if (lane < k) red[lane] = fmax(red[lane], red[lane + k]);
    BARRIER();
  }
  float4 ref = F4(sign * red[0]);
  BARRIER();
  float sum = 0.0f;
  for (int s = lane; s < S && active; s += NL) {
    float4 e = mask_tail(exp(F4(beta) * (LOAD4(src, base + s * plane) - ref)), s, C);
    sum += (e.x + e.y) + (e.z + e.w);
  }
  red[lane] = sum;
  BARRIER();
  for (int k = NL / 2; k > 0; k >>= 1) {
    if (lane < k) red[lane] += red[lane + k];
    BARRIER();
  }
  float4 inv = F4(1.0f / red[0]);
  for (int s = lane; s < S && active; s += NL) {
    float4 e = exp(F4(beta) * (LOAD4(src, base + s * plane) - ref)) * inv;
    STORE4(dst, base + s * plane, mask_tail(ACT(e), s, C));
  }
}
)CL";

// Work-group variant: LANES x ROWS items per pixel, both powers of two.
// LANES is 8, the dimension 0 the OpenCL backend fixes on CPU devices (see
// conv_2d.cc); ROWS makes the group 64-256 items, so each item walks at most
// a few slices per pass (with 8 items a pixel, a classifier's 251 slices
// took 11.7 us on an H200: 32 dependent loads per item and pass).
constexpr int kSoftmaxLanes = 8;
constexpr int kGroupMinSlices = 16;
constexpr int64_t kGroupMaxPixels = 4096;
int SoftmaxRows(int slices) {
  int rows = 8;  // 64 items
  while (rows < 32 && rows * kSoftmaxLanes * 2 <= slices) rows *= 2;
  return rows;
}

}  // namespace

Status EmitSoftmax(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  if (b.tensor(in).shape.empty()) return NotOnGpu("the input is a scalar");
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  if (b.tensor(in).shape != b.tensor(out).shape) {
    return InvalidArgumentError(fmt::format("{}: output shape {} differs from the input's {}", b.node().Describe(),
                                            ShapeToString(b.tensor(out).shape), ShapeToString(b.tensor(in).shape)));
  }
  // An absent options table means beta = 0, as on the CPU.
  float beta = 0.f;
  if (const auto* o = GetOptions<tflite::SoftmaxOptions>(b.node())) beta = o->beta();
  KernelLaunch l;
  const int64_t pixels = int64_t{so.w} * so.h * so.b;
  const bool group = so.slices() >= kGroupMinSlices && pixels <= kGroupMaxPixels;
  l.entry = group ? "softmax_group" : "softmax";
  l.source = group ? kSoftmaxGroupSource : kSoftmaxSource;
  const int rows = SoftmaxRows(so.slices());
  if (group) l.defines = fmt::format("#define LANES {}\n#define ROWS {}\n", kSoftmaxLanes, rows);
  l.args = {b.Read(in), b.Write(out), KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.h * so.b),
            KernelArg::Int(so.slices()), KernelArg::Int(so.c), KernelArg::Float(beta)};
  if (group) {
    // The reduction needs the lanes of a pixel in one work group: fix it.
    l.global = {static_cast<size_t>(kSoftmaxLanes), static_cast<size_t>(rows), static_cast<size_t>(pixels)};
    l.local = {static_cast<size_t>(kSoftmaxLanes), static_cast<size_t>(rows), 1};
  } else {
    l.global = {static_cast<size_t>(so.w), static_cast<size_t>(so.h) * static_cast<size_t>(so.b), 1};
  }
  l.fusable_output_arg = 1;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(si.elements()) * 3);
  return Status::Ok();
}

}  // namespace relite::gpu
