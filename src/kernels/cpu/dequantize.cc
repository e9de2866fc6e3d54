// DEQUANTIZE to float32: float16 (raw half bits) widens exactly; int8, uint8
// and int16 map through real = scale * (q - zero_point), with one scale per
// tensor or one per slice along quantized_dimension (per-channel).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/core/base/fp16.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class DequantizeKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kFloat32));
    type_ = input.type;
    if (type_ != DataType::kFloat16) {
      if (!IsQuantizedStorageType(type_)) {
        return ctx.Unsupported("dequantizing " + DataTypeName(type_) + " is not supported");
      }
      RELITE_RETURN_IF_ERROR(PrepareQuantization(ctx, input));
    }
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    float* out = ctx.output(0).data_as<float>();
    switch (type_) {
      case DataType::kFloat16:
        ParallelChunks(ctx, input.num_elements(), kDefaultMinChunk, [&](int64_t begin, int64_t end) {
          HalfToFloatArray(input.data_as<uint16_t>() + begin, out + begin, end - begin);
        });
        break;
      case DataType::kInt8: Dequantize(ctx, input.data_as<int8_t>(), out); break;
      case DataType::kUInt8: Dequantize(ctx, input.data_as<uint8_t>(), out); break;
      case DataType::kInt16: Dequantize(ctx, input.data_as<int16_t>(), out); break;
      default: return ctx.Error("unexpected type " + DataTypeName(type_));
    }
    return Status::Ok();
  }

 private:
  Status PrepareQuantization(KernelContext& ctx, const Tensor& input) {
    const Quantization& q = input.quant;
    if (q.scale.empty()) return ctx.Error("input '" + input.name + "' has no quantization parameters");
    if (q.zero_point.size() != q.scale.size() && q.zero_point.size() > 1) {
      return ctx.Error("input '" + input.name + "' has " + std::to_string(q.scale.size()) + " scales but " +
                       std::to_string(q.zero_point.size()) + " zero points");
    }
    const size_t channels = q.scale.size();
    scales_ = q.scale;
    zero_points_.assign(channels, 0);
    for (size_t c = 0; c < channels; ++c) {
      const int64_t zp = q.zero_point.empty() ? 0 : q.zero_point[q.zero_point.size() == 1 ? 0 : c];
      if (zp < INT32_MIN || zp > INT32_MAX) return ctx.Error("zero point out of range");
      zero_points_[c] = static_cast<int32_t>(zp);
    }
    outer_ = 1;
    inner_ = 1;
    if (channels == 1) {
      inner_ = input.num_elements();
      return Status::Ok();
    }
    const int axis = q.quantized_dimension;
    if (axis < 0 || axis >= input.rank()) {
      return ctx.Error("quantized_dimension " + std::to_string(axis) + " is out of range for rank " +
                       std::to_string(input.rank()));
    }
    if (static_cast<int64_t>(channels) != input.dim(axis)) {
      return ctx.Error("input '" + input.name + "' has " + std::to_string(channels) + " scales for dimension " +
                       std::to_string(axis) + " of size " + std::to_string(input.dim(axis)));
    }
    for (int d = 0; d < axis; ++d) outer_ *= input.dim(d);
    for (int d = axis + 1; d < input.rank(); ++d) inner_ *= input.dim(d);
    return Status::Ok();
  }

  template <typename Q>
  void Dequantize(KernelContext& ctx, const Q* in, float* out) const {
    const int64_t channels = static_cast<int64_t>(scales_.size());
    const int64_t n = outer_ * channels * inner_;
    if (channels == 1) {
      const float scale = scales_[0];
      const int32_t zero_point = zero_points_[0];
      UnaryMap(ctx, in, out, n, kDefaultMinChunk,
               [=](Q q) { return scale * static_cast<float>(static_cast<int32_t>(q) - zero_point); });
    } else if (inner_ == 1) {
      // Channels innermost (e.g. depthwise weights): walk elements, cycling c.
      ParallelChunks(ctx, n, kDefaultMinChunk, [&](int64_t begin, int64_t end) {
        int64_t c = begin % channels;
        for (int64_t i = begin; i < end; ++i) {
          out[i] = scales_[static_cast<size_t>(c)] *
                   static_cast<float>(static_cast<int32_t>(in[i]) - zero_points_[static_cast<size_t>(c)]);
          if (++c == channels) c = 0;
        }
      });
    } else {
      // Rows are (outer, channel) pairs of inner_ contiguous elements.
      const int64_t rows = outer_ * channels;
      if (inner_ == 0 || rows == 0) return;
      const int64_t min_rows = std::max<int64_t>(1, kDefaultMinChunk / inner_);
      ParallelChunks(ctx, rows, min_rows, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const size_t c = static_cast<size_t>(row % channels);
          const float scale = scales_[c];
          const int32_t zero_point = zero_points_[c];
          const Q* src = in + row * inner_;
          float* dst = out + row * inner_;
          for (int64_t i = 0; i < inner_; ++i) {
            dst[i] = scale * static_cast<float>(static_cast<int32_t>(src[i]) - zero_point);
          }
        }
      });
    }
  }

  DataType type_ = DataType::kFloat32;
  std::vector<float> scales_;
  std::vector<int32_t> zero_points_;
  int64_t outer_ = 1;
  int64_t inner_ = 1;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateDequantize(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<DequantizeKernel>());
}

}  // namespace relite::cpu
