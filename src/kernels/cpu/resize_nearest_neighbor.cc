// RESIZE_NEAREST_NEIGHBOR (NHWC, any fixed-size dtype: pure data movement)
// with TFLite's source index rule:
//   scale = in / out, or (in - 1) / (out - 1) with align_corners (out > 1);
//   src = (dst + offset) * scale, offset = 0.5 with half_pixel_centers else 0;
//   index = round(src) with align_corners, else floor(src); then clamped to
//   in - 1 (and to >= 0 with half_pixel_centers).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/resize.h"
#include "src/kernels/cpu/kernels.h"
#include "src/core/base/saturate.h"

namespace relite::cpu {
namespace {

void ComputeSourceIndices(int32_t in_size, int32_t out_size, bool align_corners, bool half_pixel,
                          std::vector<int32_t>* indices) {
  const float scale = ResizeScale(in_size, out_size, align_corners);
  const float offset = half_pixel ? 0.5f : 0.f;
  indices->resize(static_cast<size_t>(out_size));
  for (int32_t i = 0; i < out_size; ++i) {
    const float src = (static_cast<float>(i) + offset) * scale;
    int32_t index = SaturateToInt32(align_corners ? std::round(src) : std::floor(src));
    index = std::min(index, in_size - 1);
    if (half_pixel) index = std::max(index, 0);
    (*indices)[static_cast<size_t>(i)] = index;
  }
}

// Copies output rows [begin, end) with elements of type T (by size only).
template <typename T>
void ResizeRows(const T* in, T* out, int64_t begin, int64_t end, int64_t out_h, int64_t in_h, int64_t in_w,
                int64_t channels, const std::vector<int32_t>& src_rows, const std::vector<int32_t>& src_cols) {
  const int64_t out_w = static_cast<int64_t>(src_cols.size());
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / out_h;
    const int64_t oy = row - b * out_h;
    const T* src = in + (b * in_h + src_rows[static_cast<size_t>(oy)]) * in_w * channels;
    T* __restrict dst = out + row * out_w * channels;
    if (channels == 1) {
      for (int64_t ox = 0; ox < out_w; ++ox) dst[ox] = src[src_cols[static_cast<size_t>(ox)]];
      continue;
    }
    for (int64_t ox = 0; ox < out_w; ++ox, dst += channels) {
      const T* __restrict p = src + src_cols[static_cast<size_t>(ox)] * channels;
      for (int64_t c = 0; c < channels; ++c) dst[c] = p[c];
    }
  }
}

class ResizeNearestNeighborKernel final : public Kernel {
 public:
  ResizeNearestNeighborKernel(bool align_corners, bool half_pixel)
      : align_corners_(align_corners), half_pixel_(half_pixel) {}

  Status Prepare(KernelContext& ctx) override {
    int32_t out_h = 0, out_w = 0;
    RELITE_RETURN_IF_ERROR(PrepareResize(ctx, &out_h, &out_w));
    const Tensor& input = ctx.input(0);
    const size_t elem = DataTypeSize(input.type);
    if (elem != 1 && elem != 2 && elem != 4 && elem != 8) {
      return ctx.Error("input type " + DataTypeName(input.type) + " is not supported");
    }
    // No indices for an empty output (one dimension alone could ask for gigabytes).
    const bool empty = ctx.output(0).num_elements() == 0;
    ComputeSourceIndices(input.dim(1), empty ? 0 : out_h, align_corners_, half_pixel_, &src_rows_);
    ComputeSourceIndices(input.dim(2), empty ? 0 : out_w, align_corners_, half_pixel_, &src_cols_);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    switch (DataTypeSize(input.type)) {
      case 1: return EvalTyped<uint8_t>(ctx);
      case 2: return EvalTyped<uint16_t>(ctx);
      case 4: return EvalTyped<uint32_t>(ctx);
      case 8: return EvalTyped<uint64_t>(ctx);
      default: return ctx.Error("unexpected input type " + DataTypeName(input.type));
    }
  }

 private:
  template <typename T>
  Status EvalTyped(KernelContext& ctx) {
    const Tensor& input = ctx.input(0);
    const int64_t batch = input.dim(0), in_h = input.dim(1), in_w = input.dim(2), channels = input.dim(3);
    const int64_t out_h = static_cast<int64_t>(src_rows_.size());
    const int64_t out_w = static_cast<int64_t>(src_cols_.size());
    const T* in = static_cast<const T*>(input.data);
    T* out = static_cast<T*>(ctx.output(0).data);
    const int64_t row_work = std::max<int64_t>(1, out_w * channels);
    ctx.ParallelFor(batch * out_h, std::max<int64_t>(1, (1 << 16) / row_work), [&](int64_t begin, int64_t end) {
      ResizeRows(in, out, begin, end, out_h, in_h, in_w, channels, src_rows_, src_cols_);
    });
    return Status::Ok();
  }

  bool align_corners_;
  bool half_pixel_;
  std::vector<int32_t> src_rows_, src_cols_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateResizeNearestNeighbor(const Node& node) {
  bool align_corners = false, half_pixel = false;
  if (const auto* o = GetOptions<tflite::ResizeNearestNeighborOptions>(node)) {
    align_corners = o->align_corners();
    half_pixel = o->half_pixel_centers();
  }
  return std::unique_ptr<Kernel>(std::make_unique<ResizeNearestNeighborKernel>(align_corners, half_pixel));
}

}  // namespace relite::cpu
