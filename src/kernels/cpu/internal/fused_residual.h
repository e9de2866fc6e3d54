// A residual ADD fused into the kernel producing one of its operands
// (Kernel::FuseResidualAdd): the checks on the other operand R, shared by
// CONV_2D (which adds R in its GEMM epilogue), and the whole state of the
// fusion for kernels that finish their output row by row
// (DEPTHWISE_CONV_2D, RESIZE_BILINEAR), which add R to each finished row.
#pragma once

#include <algorithm>
#include <limits>
#include <string>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/conv_util.h"
#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {

// Input `index` must be a float [batch, height, width, <= channels] tensor
// (fewer channels: R was channel-padded by a PAD the interpreter skips);
// sets *residual_channels. `into` names the kernel in the message.
inline Status CheckFusedResidualOperand(KernelContext& ctx, int index, int batch, int height, int width, int channels,
                                        const char* into, int* residual_channels) {
  if (!ctx.has_input(index)) return InternalError(ctx.node().Describe() + ": fused ADD operand is missing");
  const Tensor& residual = ctx.input(index);
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, residual, "fused ADD operand"));
  if (residual.rank() != 4 || residual.dim(0) != batch || residual.dim(1) != height || residual.dim(2) != width ||
      residual.dim(3) > channels) {
    // Shapes fixed at fusion time can only change through ResizeInputTensor.
    return ctx.Unsupported(std::string("the ADD fused into this ") + into + " needs an operand of shape [" +
                           std::to_string(batch) + "," + std::to_string(height) + "," + std::to_string(width) +
                           ",<=" + std::to_string(channels) + "] after the resize, got " +
                           ShapeToString(residual.shape));
  }
  *residual_channels = residual.dim(3);
  return Status::Ok();
}

class FusedRowResidual {
 public:
  bool active() const { return active_; }

  // Kernel::FuseResidualAdd: the ADD's clamp is [min, max].
  bool Take(float min, float max) {
    if (active_) return false;
    active_ = true;
    min_ = min;
    max_ = max;
    return true;
  }
  // Kernel::FuseClamp once the ADD is fused: the clamp follows the sum, so
  // only an ADD without a clamp of its own takes it.
  bool TakeClamp(float min, float max) {
    if (!active_ || min_ != -kInf || max_ != kInf) return false;
    min_ = min;
    max_ = max;
    return true;
  }

  Status Prepare(KernelContext& ctx, int index, int batch, int height, int width, int channels, const char* into) {
    channels_ = channels;
    return CheckFusedResidualOperand(ctx, index, batch, height, width, channels, into, &residual_channels_);
  }
  int residual_channels() const { return residual_channels_; }

  // out = clamp(out + R) over one output row of `pixels` pixels; R's row
  // has residual_channels() per pixel (zeros beyond).
  void AddToRow(const float* residual_row, float* out_row, int pixels) const {
    if (residual_channels_ == channels_) {
      Kernels().add_residual_clamp_f32(1, pixels * channels_, pixels * channels_, residual_row, 0, min_, max_, out_row, 0);
      return;
    }
    Kernels().add_residual_clamp_f32(pixels, channels_, residual_channels_, residual_row,
                                     static_cast<size_t>(residual_channels_), min_, max_, out_row,
                                     static_cast<size_t>(channels_));
  }

 private:
  static constexpr float kInf = std::numeric_limits<float>::infinity();
  bool active_ = false;
  int channels_ = 0, residual_channels_ = 0;
  float min_ = -kInf, max_ = kInf;
};

}  // namespace relite::cpu
