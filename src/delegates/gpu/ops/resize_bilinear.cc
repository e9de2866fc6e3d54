// RESIZE_BILINEAR with TFLite's coordinate rules (align_corners,
// half_pixel_centers). The per-row and per-column taps (lower index, upper
// index, weight of the upper) are computed on the host exactly as the CPU
// kernel computes them and stored as one float32 constant: rows first, then
// columns. Each work item interpolates one output pixel for 4 channels.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/core/base/saturate.h"

namespace relite::gpu {
namespace {

constexpr const char* kResizeSource = R"CL(
KERNEL void resize_bilinear(GLOBAL const STORAGE* src, GLOBAL const float* taps, GLOBAL STORAGE* dst, int W, int H, int HB,
                            int S, int C, int srcW, int srcH) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), s = GLOBAL_ID(2);
  if (x >= W || yb >= HB || s >= S) return;
  int n = yb / H, y = yb - n * H;
  int ylo = (int)taps[3 * y], yhi = (int)taps[3 * y + 1];
  float dy = taps[3 * y + 2];
  int xt = 3 * (H + x);
  int xlo = (int)taps[xt], xhi = (int)taps[xt + 1];
  float dx = taps[xt + 2];
  int plane = (n * S + s) * srcH;
  float4 p00 = LOAD4(src, (plane + ylo) * srcW + xlo), p01 = LOAD4(src, (plane + ylo) * srcW + xhi);
  float4 p10 = LOAD4(src, (plane + yhi) * srcW + xlo), p11 = LOAD4(src, (plane + yhi) * srcW + xhi);
  float4 r = p00 * F4((1.0f - dy) * (1.0f - dx)) + p10 * F4(dy * (1.0f - dx)) + p01 * F4((1.0f - dy) * dx) +
             p11 * F4(dy * dx);
  STORE4(dst, ((n * S + s) * H + y) * W + x, mask_tail(ACT(r), s, C));
}
)CL";

// TFLite's taps along one axis (src/kernels/cpu/resize_bilinear.cc).
void FillTaps(int32_t in_size, int32_t out_size, bool align_corners, bool half_pixel, float* dst) {
  const float scale = align_corners && out_size > 1 ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
                                                    : static_cast<float>(in_size) / static_cast<float>(out_size);
  for (int32_t i = 0; i < out_size; ++i) {
    const float src = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const int32_t lower = std::max(SaturateToInt32(std::floor(src)), 0);
    const int32_t upper = std::min(SaturateToInt32(std::ceil(src)), in_size - 1);
    dst[3 * i] = static_cast<float>(lower);
    dst[3 * i + 1] = static_cast<float>(upper);
    dst[3 * i + 2] = src - static_cast<float>(lower);
  }
}

}  // namespace

Status EmitResizeBilinear(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int size_t_, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  bool align_corners = false, half_pixel = false;
  if (const auto* o = GetOptions<tflite::ResizeBilinearOptions>(b.node())) {
    align_corners = o->align_corners();
    half_pixel = o->half_pixel_centers();
  }
  const std::string where = b.node().Describe();
  if (align_corners && half_pixel) return InvalidArgumentError(fmt::format("{}: align_corners and half_pixel_centers are both set", where));
  if (b.tensor(in).shape.size() != 4 || b.tensor(out).shape.size() != 4) return NotOnGpu("input and output must be 4-D");
  if (b.tensor(size_t_).type != DataType::kInt32) return NotOnGpu("the size input must be int32");
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> size, b.ConstantInts(size_t_, "the size input"));
  if (size.size() != 2) return InvalidArgumentError(fmt::format("{}: the size input must hold 2 values", where));
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  if (size[0] != so.h || size[1] != so.w || so.b != si.b || so.c != si.c) {
    return InvalidArgumentError(fmt::format("{}: output shape {} does not match resizing {} to {}x{}", where, GpuShapeToString(so),
                                            GpuShapeToString(si), size[0], size[1]));
  }
  const int32_t in_h = si.h, in_w = si.w, out_h = so.h, out_w = so.w;
  const int taps = b.AddConstant(3 * static_cast<size_t>(out_h + out_w), [=](const ConstantTensors&, float* dst) {
    FillTaps(in_h, out_h, align_corners, half_pixel, dst);
    FillTaps(in_w, out_w, align_corners, half_pixel, dst + 3 * out_h);
  }, /*fp32=*/true);
  KernelLaunch l;
  l.entry = "resize_bilinear";
  l.source = kResizeSource;
  l.args = {b.Read(in), KernelArg::Constant(taps), b.Write(out), KernelArg::Int(so.w), KernelArg::Int(so.h),
            KernelArg::Int(so.h * so.b), KernelArg::Int(so.slices()), KernelArg::Int(so.c), KernelArg::Int(si.w),
            KernelArg::Int(si.h)};
  l.global = GridOf(so);
  l.fusable_output_arg = 2;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(so.elements()) * 4);
  return Status::Ok();
}

}  // namespace relite::gpu
