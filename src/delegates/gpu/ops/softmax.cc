// SOFTMAX over the last axis, which is the channel axis of the GPU layout
// for every rank: one work item per pixel walks its slices three times
// (reference value, sum of exponentials, output), accumulating in float.
// As on the CPU the reference is the max (the min when beta < 0), so every
// exponent is <= 0; the padding lanes take no part.
#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/gpu/ops/emitters.h"

namespace relite::gpu {
namespace {

constexpr const char* kSoftmaxSource = R"CL(
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
    int left = C - s * 4;
    m = fmax(m, v.x);
    if (left > 1) m = fmax(m, v.y);
    if (left > 2) m = fmax(m, v.z);
    if (left > 3) m = fmax(m, v.w);
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
  l.entry = "softmax";
  l.source = kSoftmaxSource;
  l.args = {b.Read(in), b.Write(out), KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.h * so.b),
            KernelArg::Int(so.slices()), KernelArg::Int(so.c), KernelArg::Float(beta)};
  l.global = {static_cast<size_t>(so.w), static_cast<size_t>(so.h) * static_cast<size_t>(so.b), 1};
  l.fusable_output_arg = 1;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(si.elements()) * 3);
  return Status::Ok();
}

}  // namespace relite::gpu
