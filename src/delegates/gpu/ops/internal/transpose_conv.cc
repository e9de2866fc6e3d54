// Gather form of the transposed convolution: output pixel (oy, ox) sums
// in[iy][ix] . W[:, ky, kx, :] over the taps with iy * sh - pad_top + ky = oy
// and ix * sw - pad_left + kx = ox, so each work item (one output pixel, one
// slice of 4 output channels) owns its sum and no atomics are needed. The
// taps of one output pixel are those with ky = (oy + pad_top) mod sh, + sh, ...
//
// Weights [Cout, KH, KW, Cin] are OHWI like CONV_2D's filter and are packed the
// same way (ops/internal/conv_weights.h).
#include "src/delegates/gpu/ops/internal/transpose_conv.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/core/ops/params.h"
#include "src/delegates/gpu/ops/internal/conv_weights.h"

namespace relite::gpu {
namespace {

constexpr const char* kTransposeConvSource = R"CL(
KERNEL void transpose_conv(GLOBAL const STORAGE* src, GLOBAL const STORAGE* weights, GLOBAL const STORAGE* bias,
                           GLOBAL STORAGE* dst, int srcW, int srcH, int srcS, int dstW, int dstH, int dstHB, int dstS,
                           int KH, int KW, int strideW, int strideH, int padW, int padH) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), so = GLOBAL_ID(2);
  if (x >= dstW || yb >= dstHB || so >= dstS) return;
  int n = yb / dstH, y = yb - n * dstH;
  float4 acc = LOAD4(bias, so);
  int ty = y + padH, tx = x + padW;  // >= 0
  // First taps whose input row/column is inside the input: iy = (ty - ky) / sh <= srcH - 1.
  int ky0 = ty % strideH, kx0 = tx % strideW;
  int over_y = (ty - ky0) / strideH - (srcH - 1), over_x = (tx - kx0) / strideW - (srcW - 1);
  if (over_y > 0) ky0 += over_y * strideH;
  if (over_x > 0) kx0 += over_x * strideW;
  int plane = srcH * srcW;
  for (int ky = ky0; ky < KH && ky <= ty; ky += strideH) {
    int iy = (ty - ky) / strideH;
    for (int kx = kx0; kx < KW && kx <= tx; kx += strideW) {
      int ix = (tx - kx) / strideW;
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

Status EmitTransposeConvOp(OpBuilder& b, const TransposeConvInputs& inputs) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(inputs.input));
  RELITE_ASSIGN_OR_RETURN(int weights, b.Input(inputs.weights));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  const int bias = inputs.bias >= 0 && b.has_input(inputs.bias) ? b.node().inputs[static_cast<size_t>(inputs.bias)] : -1;
  const int max_inputs = std::max({inputs.input, inputs.weights, inputs.bias, inputs.output_shape}) + 1;
  const std::string what = b.node().Describe();
  if (b.num_inputs() > max_inputs) return InvalidArgumentError(fmt::format("{}: expected at most {} inputs", what, max_inputs));
  RELITE_ASSIGN_OR_RETURN(TransposeConvParams p, ParseTransposeConvParams(b.node()));
  RELITE_RETURN_IF_ERROR(b.RequireConstantWeights(in, out, weights, "weights", bias));
  RELITE_RETURN_IF_ERROR(RequireClampActivation(p.activation));
  const Shape& ws = b.tensor(weights).shape;
  if (b.tensor(in).shape.size() != 4 || ws.size() != 4 || b.tensor(out).shape.size() != 4) {
    return NotOnGpu("input, weights and output must be 4-D");
  }
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  const int cout = ws[0], kh = ws[1], kw = ws[2], cin = ws[3];
  if (cout < 1 || kh < 1 || kw < 1) return InvalidArgumentError(fmt::format("{}: weights {} have an empty dimension", what, ShapeToString(ws)));
  if (cin != si.c) return InvalidArgumentError(fmt::format("{}: weights have {} input channels, the input {}", what, cin, si.c));
  if (bias >= 0 && b.tensor(bias).num_elements() != cout) {
    return InvalidArgumentError(fmt::format("{}: bias has {} values for {} output channels", what, b.tensor(bias).num_elements(), cout));
  }
  // The output size the op defines, which the declared output shape must match.
  Shape expected;
  if (inputs.output_shape >= 0) {
    RELITE_ASSIGN_OR_RETURN(int shape_t, b.Input(inputs.output_shape));
    if (b.tensor(shape_t).type != DataType::kInt32) {
      return InvalidArgumentError(fmt::format("{}: output_shape must be int32, got {}", what, DataTypeName(b.tensor(shape_t).type)));
    }
    RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> v, b.ConstantInts(shape_t, "output_shape"));
    if (v.size() != 4) return InvalidArgumentError(fmt::format("{}: output_shape must hold 4 values, got {}", what, v.size()));
    expected = {static_cast<int32_t>(v[0]), static_cast<int32_t>(v[1]), static_cast<int32_t>(v[2]), static_cast<int32_t>(v[3])};
  } else {
    auto size = [&](int32_t n, int32_t stride, int32_t k) {
      return p.padding == PaddingType::kSame ? int64_t{n} * stride : int64_t{n - 1} * stride + k;
    };
    const int64_t h = size(si.h, p.stride_h, kh), w = size(si.w, p.stride_w, kw);
    if (h > INT32_MAX || w > INT32_MAX) return NotOnGpu("the output is too large");
    expected = {si.b, static_cast<int32_t>(h), static_cast<int32_t>(w), cout};
  }
  if (expected[0] != si.b || expected[3] != cout || b.tensor(out).shape != expected) {
    return InvalidArgumentError(fmt::format("{}: declared output shape {} does not match the transposed convolution's {} "
                                            "(input {}, weights {})",
                                            what, ShapeToString(b.tensor(out).shape), ShapeToString(expected),
                                            ShapeToString(b.tensor(in).shape), ShapeToString(ws)));
  }
  // Padding is that of the forward convolution from the output back to the input.
  RELITE_RETURN_IF_ERROR(CheckTransposedWindow(b.node(), si.h, so.h, kh, p.stride_h));
  RELITE_RETURN_IF_ERROR(CheckTransposedWindow(b.node(), si.w, so.w, kw, p.stride_w));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pad_h_window, ComputeWindow(b.node(), p.padding, so.h, kh, p.stride_h, 1));

  const int pad_h = pad_h_window.pad_before;
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pad_w_window, ComputeWindow(b.node(), p.padding, so.w, kw, p.stride_w, 1));

  const int pad_w = pad_w_window.pad_before;
  const int w_const = b.AddConstant(PackedConvWeightsCount(cout, kh, kw, cin), [=](const ConstantTensors& t, float* dst) {
    PackConvWeights(OpBuilder::ConstantFloats(t, weights).data(), cout, kh, kw, cin, dst);
  });
  const int b_const = b.AddConstant(static_cast<size_t>(so.slices()) * 4, [=](const ConstantTensors& t, float* dst) {
    if (bias >= 0) {
      const std::vector<float> v = OpBuilder::ConstantFloats(t, bias);
      for (int c = 0; c < cout; ++c) dst[c] = v[c];
    }
  });
  KernelLaunch l;
  l.entry = "transpose_conv";
  l.source = kTransposeConvSource;
  const ActivationRange r = GetActivationRange(p.activation);
  l.act_min = r.min;
  l.act_max = r.max;
  l.args = {b.Read(in), KernelArg::Constant(w_const), KernelArg::Constant(b_const), b.Write(out),
            KernelArg::Int(si.w), KernelArg::Int(si.h), KernelArg::Int(si.slices()),
            KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.h * so.b), KernelArg::Int(so.slices()),
            KernelArg::Int(kh), KernelArg::Int(kw), KernelArg::Int(p.stride_w), KernelArg::Int(p.stride_h),
            KernelArg::Int(pad_w), KernelArg::Int(pad_h)};
  l.global = GridOf(so);
  l.fusable_output_arg = 3;
  b.Launch(std::move(l));
  // Each input pixel reaches KH * KW output pixels.
  b.SetCost(static_cast<double>(si.elements()) * kh * kw * cout);
  return Status::Ok();
}

}  // namespace relite::gpu
