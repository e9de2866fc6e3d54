#include "src/kernels/cpu/internal/pad_kernel.h"

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"

namespace relite::cpu {
namespace {

// Element bytes of `value` converted to `type` (for the quantized zero point).
void IntegerToElement(DataType type, int64_t value, uint8_t* out) {
  switch (type) {
    case DataType::kUInt8: { const uint8_t v = static_cast<uint8_t>(value); std::memcpy(out, &v, 1); return; }
    case DataType::kInt8: { const int8_t v = static_cast<int8_t>(value); std::memcpy(out, &v, 1); return; }
    case DataType::kInt16: { const int16_t v = static_cast<int16_t>(value); std::memcpy(out, &v, 2); return; }
    case DataType::kUInt16: { const uint16_t v = static_cast<uint16_t>(value); std::memcpy(out, &v, 2); return; }
    case DataType::kInt32: { const int32_t v = static_cast<int32_t>(value); std::memcpy(out, &v, 4); return; }
    case DataType::kUInt32: { const uint32_t v = static_cast<uint32_t>(value); std::memcpy(out, &v, 4); return; }
    case DataType::kInt64: std::memcpy(out, &value, 8); return;
    default: return;  // float types: quantization does not apply, value stays 0
  }
}

// Rows of 4-byte elements up to this size are written inline: a channel pad
// (e.g. [64,64,24] -> [64,64,28]) is thousands of short rows, where calls to
// memcpy and a fill per row would cost more than the copy.
constexpr int64_t kShortRowBytes = 1024;

inline __attribute__((always_inline)) void CopyShortRow4(uint8_t* out, const uint8_t* in, int64_t before, int64_t count, int64_t after, const uint8_t* fill) {
  uint8_t fill32[32];
  for (int i = 0; i < 32; i += 4) std::memcpy(fill32 + i, fill, 4);
  auto fill_run = [&](uint8_t* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) std::memcpy(dst + 4 * i, fill32, 32);
    for (; i < n; ++i) std::memcpy(dst + 4 * i, fill32, 4);
  };
  fill_run(out, before);
  out += 4 * before;
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) std::memcpy(out + 4 * i, in + 4 * i, 32);
  for (; i < count; ++i) std::memcpy(out + 4 * i, in + 4 * i, 4);
  fill_run(out + 4 * count, after);
}

class PadKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 3, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", output, "output"));
    elem_size_ = DataTypeSize(input.type);
    if (elem_size_ > sizeof(fill_)) return ctx.Unsupported("element size " + std::to_string(elem_size_));
    const int rank = input.rank();
    if (rank > kMaxCopyRank) return ctx.Unsupported("rank " + std::to_string(rank) + " (at most 8)");
    if (input.quant.IsQuantized() && output.quant.IsQuantized() && !SameQuantization(input.quant, output.quant)) {
      return ctx.Unsupported("input and output quantization differ (requantizing pad)");
    }

    const Tensor& paddings_tensor = ctx.input(1);
    std::vector<int64_t> paddings;
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "paddings", &paddings));
    if (paddings_tensor.rank() != 2 || paddings_tensor.dim(0) != rank || paddings_tensor.dim(1) != 2) {
      return ctx.Error("paddings must have shape [" + std::to_string(rank) + ",2], got " +
                       ShapeToString(paddings_tensor.shape));
    }

    has_value_input_ = ctx.has_input(2);
    std::memset(fill_, 0, sizeof(fill_));
    if (has_value_input_) {
      const Tensor& value = ctx.input(2);
      RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", value, "constant_values"));
      if (value.num_elements() != 1) {
        return ctx.Error("constant_values must hold one value, got shape " + ShapeToString(value.shape));
      }
      if (value.quant.IsQuantized() && output.quant.IsQuantized() && !SameQuantization(value.quant, output.quant)) {
        return ctx.Unsupported("constant_values quantization differs from the output's");
      }
    } else if (output.quant.IsQuantized() && !output.quant.zero_point.empty()) {
      IntegerToElement(output.type, output.quant.zero_point[0], fill_);
    }

    // Dimension list with neighbours merged: a dimension whose inner
    // neighbour is unpadded absorbs it (its padding scales by the inner size).
    rank_ = 0;
    Shape out_shape(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[static_cast<size_t>(2 * d)];
      const int64_t after = paddings[static_cast<size_t>(2 * d + 1)];
      if (before < 0 || after < 0) {
        return ctx.Error("paddings for dimension " + std::to_string(d) + " are negative: [" +
                         std::to_string(before) + ", " + std::to_string(after) + "]");
      }
      const int64_t out_dim = input.dim(d) + before + after;
      if (out_dim > std::numeric_limits<int32_t>::max()) {
        return ctx.Error("padded dimension " + std::to_string(d) + " is too large");
      }
      out_shape[static_cast<size_t>(d)] = static_cast<int32_t>(out_dim);
      if (rank_ > 0 && before == 0 && after == 0) {
        const int last = rank_ - 1;
        in_[last] *= input.dim(d);
        before_[last] *= input.dim(d);
        after_[last] *= input.dim(d);
        continue;
      }
      in_[rank_] = input.dim(d);
      before_[rank_] = before;
      after_[rank_] = after;
      ++rank_;
    }
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.num_elements() == 0) return Status::Ok();
    if (has_value_input_) std::memcpy(fill_, ctx.input(2).data, elem_size_);
    const auto* src = static_cast<const uint8_t*>(input.data);
    auto* dst = static_cast<uint8_t*>(output.data);
    if (rank_ == 0) {  // scalar input
      std::memcpy(dst, src, elem_size_);
      return Status::Ok();
    }

    const int last = rank_ - 1;
    int64_t out_dims[kMaxCopyRank];
    int64_t in_strides[kMaxCopyRank];
    int64_t stride = 1;
    for (int d = rank_ - 1; d >= 0; --d) {
      out_dims[d] = in_[d] + before_[d] + after_[d];
      in_strides[d] = stride;
      stride *= in_[d];
    }
    int64_t rows = 1;
    for (int d = 0; d < last; ++d) rows *= out_dims[d];
    const int64_t esize = static_cast<int64_t>(elem_size_);
    const int64_t row_elems = out_dims[last];
    const int64_t row_bytes = row_elems * esize;
    const bool empty_input = input.num_elements() == 0;

    if (rank_ == 2 && before_[0] == 0 && after_[0] == 0 && !empty_input && esize == 4 && row_bytes <= kShortRowBytes) {
      // Padding of the innermost dimension only (a channel pad): every row is
      // interior, so the loop needs no index bookkeeping.
      const int64_t before = before_[1], count = in_[1], after = after_[1];
      const uint8_t* fill = fill_;
      ParallelRows(ctx, rows, row_bytes, [=](int64_t begin, int64_t end) {
        const int64_t in_row_bytes = count * 4;
        for (int64_t r = begin; r < end; ++r) {
          CopyShortRow4(dst + r * row_bytes, src + r * in_row_bytes, before, count, after, fill);
        }
      });
      return Status::Ok();
    }
    ParallelRows(ctx, rows, row_bytes, [&](int64_t begin, int64_t end) {
      int64_t idx[kMaxCopyRank] = {};
      int64_t rem = begin;
      for (int d = last - 1; d >= 0; --d) {
        idx[d] = rem % out_dims[d];
        rem /= out_dims[d];
      }
      uint8_t* out = dst + begin * row_bytes;
      for (int64_t r = begin; r < end; ++r, out += row_bytes) {
        bool interior = !empty_input;
        int64_t src_offset = 0;
        for (int d = 0; d < last && interior; ++d) {
          const int64_t i = idx[d] - before_[d];
          interior = i >= 0 && i < in_[d];
          src_offset += i * in_strides[d];
        }
        if (!interior) {
          FillElements(out, row_elems, fill_, elem_size_);
        } else if (esize == 4 && row_bytes <= kShortRowBytes) {
          CopyShortRow4(out, src + src_offset * esize, before_[last], in_[last], after_[last], fill_);
        } else {
          FillElements(out, before_[last], fill_, elem_size_);
          std::memcpy(out + before_[last] * esize, src + src_offset * esize, static_cast<size_t>(in_[last] * esize));
          FillElements(out + (before_[last] + in_[last]) * esize, after_[last], fill_, elem_size_);
        }
        for (int d = last - 1; d >= 0; --d) {
          if (++idx[d] < out_dims[d]) break;
          idx[d] = 0;
        }
      }
    });
    return Status::Ok();
  }

 private:
  size_t elem_size_ = 0;
  bool has_value_input_ = false;
  alignas(16) uint8_t fill_[16] = {};
  // Merged dimensions: input size and padding counts (in elements of the
  // merged dimension).
  int rank_ = 0;
  int64_t in_[kMaxCopyRank] = {};
  int64_t before_[kMaxCopyRank] = {};
  int64_t after_[kMaxCopyRank] = {};
};

}  // namespace

std::unique_ptr<Kernel> MakePadKernel() { return std::make_unique<PadKernel>(); }

}  // namespace relite::cpu
