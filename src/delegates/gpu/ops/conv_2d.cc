// CONV_2D: direct convolution; each work item computes one output pixel for
// one slice of 4 output channels, accumulating in float.
//
// Weights are repacked at build time so that for output slice `so`, tap
// (ky, kx) and input slice `si` the four float4s w0..w3 (one per input
// channel of the slice, each holding 4 output channels) are adjacent:
//   float4 index ((so * KH + ky) * KW + kx) * Si * 4 + si * 4 + k.
#include <fmt/format.h>

#include "src/core/ops/params.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/conv_weights.h"

namespace relite::gpu {
namespace {

constexpr const char* kConv2DSource = R"CL(
KERNEL void conv_2d(GLOBAL const STORAGE* src, GLOBAL const STORAGE* weights, GLOBAL const STORAGE* bias,
                    GLOBAL STORAGE* dst, int srcW, int srcH, int srcS, int dstW, int dstH, int dstHB, int dstS,
                    int KH, int KW, int strideW, int strideH, int padW, int padH, int dilW, int dilH) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), so = GLOBAL_ID(2);
  if (x >= dstW || yb >= dstHB || so >= dstS) return;
  int n = yb / dstH, y = yb - n * dstH;
  float4 acc = LOAD4(bias, so);
  int x0 = x * strideW - padW, y0 = y * strideH - padH;
  int plane = srcH * srcW;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = y0 + ky * dilH;
    if (iy < 0 || iy >= srcH) continue;
    for (int kx = 0; kx < KW; ++kx) {
      int ix = x0 + kx * dilW;
      if (ix < 0 || ix >= srcW) continue;
      int w = ((so * KH + ky) * KW + kx) * srcS * 4;
      int i = (n * srcS * srcH + iy) * srcW + ix;
      for (int si = 0; si < srcS; ++si) {
        float4 v = LOAD4(src, i);
        acc += v.x * LOAD4(weights, w) + v.y * LOAD4(weights, w + 1) + v.z * LOAD4(weights, w + 2) +
               v.w * LOAD4(weights, w + 3);
        i += plane;
        w += 4;
      }
    }
  }
  STORE4(dst, ((n * dstS + so) * dstH + y) * dstW + x, ACT(acc));
}
)CL";

}  // namespace

Status EmitConv2D(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int filter, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  const int bias = b.has_input(2) ? b.node().inputs[2] : -1;
  RELITE_ASSIGN_OR_RETURN(Conv2DParams p, ParseConv2DParams(b.node()));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(filter, "the filter"));
  if (!b.IsConstant(filter)) return NotOnGpu("the filter must be constant");
  if (bias >= 0) {
    RELITE_RETURN_IF_ERROR(b.RequireFloat(bias, "the bias"));
    if (!b.IsConstant(bias)) return NotOnGpu("the bias must be constant");
  }
  if (!IsClampActivation(p.activation)) return NotOnGpu(fmt::format("fused activation {} is not supported", ActivationName(p.activation)));
  const Shape& fs = b.tensor(filter).shape;
  const Shape& is = b.tensor(in).shape;
  if (is.size() != 4 || fs.size() != 4 || b.tensor(out).shape.size() != 4) return NotOnGpu("input, filter and output must be 4-D");
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  const int cout = fs[0], kh = fs[1], kw = fs[2], cin = fs[3];
  if (cin != si.c) return NotOnGpu(fmt::format("grouped convolution (filter depth {} vs {} input channels) is not supported", cin, si.c));
  if (cout != so.c) return InvalidArgumentError(fmt::format("{}: filter has {} outputs, output has {} channels", b.node().Describe(), cout, so.c));
  if (bias >= 0 && b.tensor(bias).num_elements() != cout) {
    return InvalidArgumentError(fmt::format("{}: bias has {} values for {} output channels", b.node().Describe(), b.tensor(bias).num_elements(), cout));
  }
  const PaddedDim ph = ComputePaddedDim(p.padding, si.h, kh, p.stride_h, p.dilation_h);
  const PaddedDim pw = ComputePaddedDim(p.padding, si.w, kw, p.stride_w, p.dilation_w);
  if (ph.out != so.h || pw.out != so.w || si.b != so.b) {
    return InvalidArgumentError(fmt::format("{}: output shape {} does not match the convolution of {}", b.node().Describe(),
                                            GpuShapeToString(so), GpuShapeToString(si)));
  }
  const int w_const = b.AddConstant(PackedConvWeightsCount(cout, kh, kw, cin), [=](const ConstantTensors& t, float* dst) {
    PackConvWeights(OpBuilder::ConstantFloats(t, filter), cout, kh, kw, cin, dst);
  });
  const int b_const = b.AddConstant(static_cast<size_t>(so.slices()) * 4, [=](const ConstantTensors& t, float* dst) {
    if (bias >= 0) {
      const float* v = OpBuilder::ConstantFloats(t, bias);
      for (int c = 0; c < cout; ++c) dst[c] = v[c];
    }
  });
  KernelLaunch l;
  l.entry = "conv_2d";
  l.source = kConv2DSource;
  const ActivationRange r = GetActivationRange(p.activation);
  l.act_min = r.min;
  l.act_max = r.max;
  l.args = {b.Read(in), KernelArg::Constant(w_const), KernelArg::Constant(b_const), b.Write(out),
            KernelArg::Int(si.w), KernelArg::Int(si.h), KernelArg::Int(si.slices()),
            KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.h * so.b), KernelArg::Int(so.slices()),
            KernelArg::Int(kh), KernelArg::Int(kw), KernelArg::Int(p.stride_w), KernelArg::Int(p.stride_h),
            KernelArg::Int(pw.pad_before), KernelArg::Int(ph.pad_before), KernelArg::Int(p.dilation_w), KernelArg::Int(p.dilation_h)};
  l.global = GridOf(so);
  l.fusable_output_arg = 3;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(so.elements()) * kh * kw * cin);
  return Status::Ok();
}

}  // namespace relite::gpu
