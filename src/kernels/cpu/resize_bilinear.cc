// RESIZE_BILINEAR (NHWC float32) with TFLite's coordinate rules:
//   scale = in / out, or (in - 1) / (out - 1) with align_corners (out > 1);
//   src = (dst + 0.5) * scale - 0.5 with half_pixel_centers, else dst * scale;
//   lower = max(floor(src), 0), upper = min(ceil(src), in - 1),
//   weight of upper = src - lower (may be negative near the top-left edge,
//   where lower == upper so the weights still sum to one).
// The per-column and per-row taps are computed in Prepare. Eval interpolates
// whole pixels with a vector loop over channels, or, for fewer than 8
// channels, walks each output row as one flat run of values with per-value
// taps (a per-pixel loop of 3 channels would be mostly overhead).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/fused_residual.h"
#include "src/kernels/cpu/internal/resize.h"
#include "src/kernels/cpu/kernels.h"
#include "src/core/base/saturate.h"
#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {
namespace {

constexpr int32_t kMinVectorChannels = 8;

struct Taps {
  std::vector<int32_t> lower, upper;
  std::vector<float> weight;  // of the upper tap
};

void ComputeTaps(int32_t in_size, int32_t out_size, bool align_corners, bool half_pixel, Taps* taps) {
  const float scale = ResizeScale(in_size, out_size, align_corners);
  taps->lower.resize(static_cast<size_t>(out_size));
  taps->upper.resize(static_cast<size_t>(out_size));
  taps->weight.resize(static_cast<size_t>(out_size));
  for (int32_t i = 0; i < out_size; ++i) {
    const float src = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const int32_t lower = std::max(SaturateToInt32(std::floor(src)), 0);
    const int32_t upper = std::min(SaturateToInt32(std::ceil(src)), in_size - 1);
    taps->lower[static_cast<size_t>(i)] = lower;
    taps->upper[static_cast<size_t>(i)] = upper;
    taps->weight[static_cast<size_t>(i)] = src - static_cast<float>(lower);
  }
}

class ResizeBilinearKernel final : public Kernel {
 public:
  ResizeBilinearKernel(bool align_corners, bool half_pixel) : align_corners_(align_corners), half_pixel_(half_pixel) {}

  // The skip connection of decoder stages (RESIZE -> ADD(R)): each output
  // row gets R and the ADD's clamp while it is in L1.
  bool FuseResidualAdd(int residual_input_index, float min, float max) override {
    return residual_input_index == kResidualInput && residual_.Take(min, max);
  }
  int residual_input_index() const override { return kResidualInput; }
  // Only the clamp of a fused ADD without its own.
  bool FuseClamp(float min, float max) override { return residual_.TakeClamp(min, max); }

  Status Prepare(KernelContext& ctx) override {
    int32_t out_h = 0, out_w = 0;
    RELITE_RETURN_IF_ERROR(PrepareResize(ctx, &out_h, &out_w, residual_.active() ? 1 : 0));
    const Tensor& input = ctx.input(0);
    if (input.type == DataType::kUInt8 || input.type == DataType::kInt8 || input.type == DataType::kInt16) {
      return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported yet");
    }
    if (input.type != DataType::kFloat32) return ctx.Error("input must be float32, got " + DataTypeName(input.type));
    if (residual_.active()) {
      RELITE_RETURN_IF_ERROR(
          residual_.Prepare(ctx, kResidualInput, input.dim(0), out_h, out_w, input.dim(3), "resize"));
    }
    // No taps for an empty output (one dimension alone could ask for gigabytes).
    const bool empty = ctx.output(0).num_elements() == 0;
    if (empty) out_h = out_w = 0;
    ComputeTaps(input.dim(1), out_h, align_corners_, half_pixel_, &rows_);
    ComputeTaps(input.dim(2), out_w, align_corners_, half_pixel_, &cols_);
    const int32_t channels = input.dim(3);
    flat_lower_.clear();
    flat_upper_.clear();
    flat_weight_.clear();
    if (channels < kMinVectorChannels) {
      const size_t n = static_cast<size_t>(out_w) * static_cast<size_t>(channels);
      flat_lower_.resize(n);
      flat_upper_.resize(n);
      flat_weight_.resize(n);
      for (size_t x = 0, j = 0; x < static_cast<size_t>(out_w); ++x) {
        for (int32_t c = 0; c < channels; ++c, ++j) {
          flat_lower_[j] = cols_.lower[x] * channels + c;
          flat_upper_[j] = cols_.upper[x] * channels + c;
          flat_weight_[j] = cols_.weight[x];
        }
      }
    }
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int64_t batch = input.dim(0), in_h = input.dim(1), in_w = input.dim(2), channels = input.dim(3);
    const int64_t out_h = static_cast<int64_t>(rows_.lower.size());
    const int64_t out_w = static_cast<int64_t>(cols_.lower.size());
    const float* in = input.data_as<float>();
    float* out = ctx.output(0).data_as<float>();
    const float* residual = residual_.active() ? ctx.input(kResidualInput).data_as<float>() : nullptr;
    const int64_t residual_row = out_w * residual_.residual_channels();
    const int64_t row_work = std::max<int64_t>(1, out_w * channels * 4);
    ctx.ParallelFor(batch * out_h, std::max<int64_t>(1, (1 << 15) / row_work), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        InterpolateRow(in, row, in_h, in_w, channels, out_h, out_w, out);
        if (residual != nullptr) {
          residual_.AddToRow(residual + row * residual_row, out + row * out_w * channels, static_cast<int>(out_w));
        }
      }
    });
    return Status::Ok();
  }

 private:
  static constexpr int kResidualInput = 2;  // after the size input

  void InterpolateRow(const float* in, int64_t row, int64_t in_h, int64_t in_w, int64_t channels, int64_t out_h,
                      int64_t out_w, float* out) const {
    const int64_t b = row / out_h;
    const size_t oy = static_cast<size_t>(row - b * out_h);
    ResizeF32Row r;
    r.dy = rows_.weight[oy];
    r.top = in + (b * in_h + rows_.lower[oy]) * in_w * channels;
    r.bottom = in + (b * in_h + rows_.upper[oy]) * in_w * channels;
    r.channels = channels;
    r.out_w = out_w;
    r.lower = cols_.lower.data();
    r.upper = cols_.upper.data();
    r.weight = cols_.weight.data();
    if (channels < kMinVectorChannels) {
      r.flat_lower = flat_lower_.data();
      r.flat_upper = flat_upper_.data();
      r.flat_weight = flat_weight_.data();
    }
    Kernels().resize_f32_row(r, out + row * out_w * channels);
  }

  bool align_corners_;
  bool half_pixel_;
  FusedRowResidual residual_;  // a fused ADD, read from input kResidualInput
  Taps rows_, cols_;
  // Per output value of a row (x * channels + c) when channels < kMinVectorChannels.
  std::vector<int32_t> flat_lower_, flat_upper_;
  std::vector<float> flat_weight_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateResizeBilinear(const Node& node) {
  bool align_corners = false, half_pixel = false;
  if (const auto* o = GetOptions<tflite::ResizeBilinearOptions>(node)) {
    align_corners = o->align_corners();
    half_pixel = o->half_pixel_centers();
  }
  if (align_corners && half_pixel) {
    return InvalidArgumentError(node.Describe() + ": align_corners and half_pixel_centers cannot both be true");
  }
  return std::unique_ptr<Kernel>(std::make_unique<ResizeBilinearKernel>(align_corners, half_pixel));
}

}  // namespace relite::cpu
