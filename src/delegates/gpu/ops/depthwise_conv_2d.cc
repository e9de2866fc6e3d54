// DEPTHWISE_CONV_2D: each work item computes one output pixel for one slice
// of 4 output channels, accumulating in float. Output channel o reads input
// channel o / M (M = Cout / Cin, the depth multiplier, taken from the shapes as
// the CPU kernel does). With M = 1 an output slice reads the same input slice
// as one float4; otherwise the four input channels are gathered one by one.
//
// Weights are repacked as float4 [So][KH][KW] (zeros past Cout).
#include <fmt/format.h>

#include "src/core/ops/params.h"
#include "src/delegates/gpu/ops/emitters.h"

namespace relite::gpu {
namespace {

constexpr const char* kDepthwiseSource = R"CL(
KERNEL void depthwise_conv_2d(GLOBAL const STORAGE* src, GLOBAL const STORAGE* weights, GLOBAL const BIAS_STORAGE* bias,
                              GLOBAL STORAGE* dst, int srcW, int srcH, int srcS, int srcC, int dstW, int dstH,
                              int dstHB, int dstS, int KH, int KW, int strideW, int strideH, int padW, int padH,
                              int dilW, int dilH, int M REQUANT_ARGS EXTRA_ARGS) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), so = GLOBAL_ID(2);
  if (x >= dstW || yb >= dstHB || so >= dstS) return;
  int n = yb / dstH, y = yb - n * dstH;
  float4 acc = LOAD_BIAS(bias, so);
  int x0 = x * strideW - padW, y0 = y * strideH - padH;
#if MULTIPLIER_ONE
  int base = (n * srcS + so) * srcH;
#else
  // Scalar offsets of the four input channels in pixel 0 of image n; channels
  // past Cout have zero weights, so their input index is only kept in range.
  int plane4 = srcH * srcW * 4;
  int c0 = min((so * 4) / M, srcC - 1), c1 = min((so * 4 + 1) / M, srcC - 1);
  int c2 = min((so * 4 + 2) / M, srcC - 1), c3 = min((so * 4 + 3) / M, srcC - 1);
  int o0 = (n * srcS + c0 / 4) * plane4 + c0 % 4, o1 = (n * srcS + c1 / 4) * plane4 + c1 % 4;
  int o2 = (n * srcS + c2 / 4) * plane4 + c2 % 4, o3 = (n * srcS + c3 / 4) * plane4 + c3 % 4;
#endif
  int w = so * KH * KW;
  // KH_N and KW_N are the filter's size where the launch fixes it (up to
  // 7x7): the loops unroll and every tap's load is in flight at once (with
  // run-time bounds the taps' loads waited on each other, ~6 us a layer).
#pragma unroll
  for (int ky = 0; ky < KH_N; ++ky, w += KW) {
    int iy = y0 + ky * dilH;
    if (iy < 0 || iy >= srcH) continue;
#pragma unroll
    for (int kx = 0; kx < KW_N; ++kx) {
      int ix = x0 + kx * dilW;
      if (ix < 0 || ix >= srcW) continue;
#if MULTIPLIER_ONE
      float4 v = LOADX(src, (base + iy) * srcW + ix);
#else
      int p = (iy * srcW + ix) * 4;
      float4 v = F4(0.0f);
      v.x = LOADX1(src, o0 + p);
      v.y = LOADX1(src, o1 + p);
      v.z = LOADX1(src, o2 + p);
      v.w = LOADX1(src, o3 + p);
#endif
      acc += v * LOAD4(weights, w + kx);
    }
  }
  int o = ((n * dstS + so) * dstH + y) * dstW + x;
  STORE4(dst, o, ACT(ADD_RESIDUAL(REQUANT(acc, so), o)));
}
)CL";

}  // namespace

Status EmitDepthwiseConv2D(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int filter, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  const int bias = b.has_input(2) ? b.node().inputs[2] : -1;
  RELITE_ASSIGN_OR_RETURN(DepthwiseConv2DParams p, ParseDepthwiseConv2DParams(b.node()));
  RELITE_RETURN_IF_ERROR(b.RequireConstantWeights(in, out, filter, "filter", bias, /*channel_axis=*/3));
  RELITE_RETURN_IF_ERROR(RequireClampActivation(p.activation));
  const Shape& fs = b.tensor(filter).shape;
  if (b.tensor(in).shape.size() != 4 || fs.size() != 4 || b.tensor(out).shape.size() != 4) {
    return NotOnGpu("input, filter and output must be 4-D");
  }
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  const int kh = fs[1], kw = fs[2], cout = fs[3];
  const std::string what = b.node().Describe();
  if (fs[0] != 1 || kh < 1 || kw < 1) return InvalidArgumentError(fmt::format("{}: filter must be [1,KH,KW,Cout], got {}", what, ShapeToString(fs)));
  if (cout % si.c != 0) {
    return InvalidArgumentError(fmt::format("{}: filter channels {} are not a multiple of the {} input channels", what, cout, si.c));
  }
  const int multiplier = cout / si.c;
  if (cout != so.c) return InvalidArgumentError(fmt::format("{}: filter has {} channels, output has {}", what, cout, so.c));
  if (bias >= 0 && b.tensor(bias).num_elements() != cout) {
    return InvalidArgumentError(fmt::format("{}: bias has {} values for {} output channels", what, b.tensor(bias).num_elements(), cout));
  }
  RELITE_ASSIGN_OR_RETURN(const PaddedDim ph, ComputeWindow(b.node(), p.padding, si.h, kh, p.stride_h, p.dilation_h));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pw, ComputeWindow(b.node(), p.padding, si.w, kw, p.stride_w, p.dilation_w));
  if (ph.out != so.h || pw.out != so.w || si.b != so.b) {
    return InvalidArgumentError(fmt::format("{}: output shape {} does not match the convolution of {}", what,
                                            GpuShapeToString(so), GpuShapeToString(si)));
  }
  const int slices = so.slices();
  const IntegerConv exact = PlanIntegerConv(b, in, out, filter, 3, slices * 4);
  const int w_const = b.AddConstant(static_cast<size_t>(slices) * kh * kw * 4, [=](const ConstantTensors& t, float* dst) {
    const std::vector<float> w = exact.WeightValues(t, filter, 3);
    for (int c = 0; c < cout; ++c)
      for (int k = 0; k < kh * kw; ++k) dst[(static_cast<size_t>(c / 4) * kh * kw + k) * 4 + c % 4] = w[static_cast<size_t>(k) * cout + c];
  });
  const int b_const = b.AddConstant(
      static_cast<size_t>(slices) * 4,
      [=](const ConstantTensors& t, float* dst) {
        if (bias >= 0) {
          const std::vector<float> v = exact.BiasValues(t, bias);
          for (int c = 0; c < cout; ++c) dst[c] = v[c];
        }
      },
      exact.enabled);
  KernelLaunch l;
  l.entry = "depthwise_conv_2d";
  l.source = kDepthwiseSource;
  l.defines = fmt::format("#define MULTIPLIER_ONE {}\n", multiplier == 1 ? 1 : 0) + FilterSizeDefines(kh, kw) +
              exact.Defines();
  const ActivationRange r = GetActivationRange(p.activation);
  l.act_min = r.min;
  l.act_max = r.max;
  l.args = {b.Read(in), KernelArg::Constant(w_const), KernelArg::Constant(b_const), b.Write(out),
            KernelArg::Int(si.w), KernelArg::Int(si.h), KernelArg::Int(si.slices()), KernelArg::Int(si.c),
            KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.h * so.b), KernelArg::Int(slices),
            KernelArg::Int(kh), KernelArg::Int(kw), KernelArg::Int(p.stride_w), KernelArg::Int(p.stride_h),
            KernelArg::Int(pw.pad_before), KernelArg::Int(ph.pad_before), KernelArg::Int(p.dilation_w),
            KernelArg::Int(p.dilation_h), KernelArg::Int(multiplier)};
  exact.AddArgs(l);
  l.global = GridOf(so);
  l.fusable_output_arg = 3;
  l.residual_fusable = true;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(so.elements()) * kh * kw);
  return Status::Ok();
}

}  // namespace relite::gpu
