// SPACE_TO_BATCH_ND: input [B, s_1..s_M, rest...], block_shape [M] and
// paddings [M, 2] (both constant int32/int64). Each spatial dimension is
// zero-padded to p_i = s_i + before_i + after_i, which must be a multiple of
// block_i, then cut into blocks: output [B * prod(block), p_1 / block_1,
// ..., rest...]. Output batch (o_1..o_M) * B + b, position (j_1..j_M) holds
// padded input [b, j_1 * block_1 + o_1, ...]. Padding is zero, or the
// output's zero point for quantized tensors (as in TFLite).
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/space_batch.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

void ZeroPointBytes(const Tensor& t, uint8_t* out) {
  std::memset(out, 0, 8);
  if (!t.quant.IsQuantized() || t.quant.zero_point.empty()) return;
  const int64_t zp = t.quant.zero_point[0];
  switch (t.type) {
    case DataType::kUInt8: out[0] = static_cast<uint8_t>(zp); return;
    case DataType::kInt8: { const int8_t v = static_cast<int8_t>(zp); std::memcpy(out, &v, 1); return; }
    case DataType::kInt16: { const int16_t v = static_cast<int16_t>(zp); std::memcpy(out, &v, 2); return; }
    default: return;
  }
}

class SpaceToBatchNdKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 3, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, input, "input", output, "output"));
    if (DataTypeSize(input.type) > 8) return ctx.Unsupported("element size " + std::to_string(DataTypeSize(input.type)));
    RELITE_RETURN_IF_ERROR(ReadSpaceBatchParams(ctx, input.rank(), "paddings", &p_));
    Shape out_shape = input.shape;
    const int64_t batch = input.dim(0);
    if (batch * p_.block_size > std::numeric_limits<int32_t>::max()) return ctx.Error("the output batch is too large");
    out_shape[0] = static_cast<int32_t>(batch * p_.block_size);
    for (int i = 0; i < p_.spatial; ++i) {
      const int64_t padded = input.dim(i + 1) + p_.before[i] + p_.after[i];
      if (padded % p_.block[i] != 0) {
        return ctx.Error("padded spatial dimension " + std::to_string(i) + " (" + std::to_string(padded) +
                         ") is not a multiple of block_shape[" + std::to_string(i) + "] = " + std::to_string(p_.block[i]));
      }
      RELITE_ASSIGN_OR_RETURN(out_shape[static_cast<size_t>(i) + 1],
                              ToDimension(ctx, padded / p_.block[i], "output spatial dimension"));
    }
    ZeroPointBytes(output, pad_value_);
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.num_elements() == 0) return Status::Ok();
    const int m = p_.spatial;
    const size_t esize = DataTypeSize(input.type);
    // One row = the trailing dimensions after the spatial ones, contiguous.
    const int64_t row_elems = DimProduct(input.shape, m + 1, input.rank());
    const int64_t row_bytes = row_elems * static_cast<int64_t>(esize);
    const int64_t rows = output.num_elements() / row_elems;
    const int64_t in_batch = input.dim(0);
    int64_t in_strides[kMaxCopyRank];  // in rows
    int64_t stride = 1;
    for (int d = m; d >= 0; --d) {
      in_strides[d] = stride;
      stride *= input.dim(d);
    }
    const auto* src = static_cast<const uint8_t*>(input.data);
    auto* dst = static_cast<uint8_t*>(output.data);
    ParallelRows(ctx, rows, row_bytes, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        // r = ((ob * out_1 + j_1) * out_2 + j_2) ...
        int64_t rem = r;
        int64_t j[kMaxCopyRank];
        for (int i = m - 1; i >= 0; --i) {
          j[i] = rem % output.dim(i + 1);
          rem /= output.dim(i + 1);
        }
        const int64_t ob = rem;
        const int64_t b = ob % in_batch;
        int64_t offset = ob / in_batch;  // row-major index into the block
        bool inside = true;
        int64_t src_row = b * in_strides[0];
        for (int i = m - 1; i >= 0; --i) {
          const int64_t o = offset % p_.block[i];
          offset /= p_.block[i];
          const int64_t pos = j[i] * p_.block[i] + o - p_.before[i];
          inside = inside && pos >= 0 && pos < input.dim(i + 1);
          src_row += pos * in_strides[i + 1];
        }
        uint8_t* out = dst + r * row_bytes;
        if (inside) {
          std::memcpy(out, src + src_row * row_bytes, static_cast<size_t>(row_bytes));
        } else {
          FillElements(out, row_elems, pad_value_, esize);
        }
      }
    });
    return Status::Ok();
  }

 private:
  SpaceBatchParams p_;
  uint8_t pad_value_[8] = {};
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSpaceToBatchNd(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<SpaceToBatchNdKernel>());
}

}  // namespace relite::cpu
