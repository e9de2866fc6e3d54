// BATCH_TO_SPACE_ND: the inverse of SPACE_TO_BATCH_ND. Input [B * prod(block),
// s_1..s_M, rest...], block_shape [M] and crops [M, 2] (constant int32 or
// int64). Input batch (o_1..o_M) * B + b at (i_1..i_M) goes to full
// position i_k * block_k + o_k of output batch b; the output keeps positions
// crop_start_k .. s_k * block_k - crop_end_k of each spatial dimension.
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

class BatchToSpaceNdKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 3, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, input, "input", output, "output"));
    RELITE_RETURN_IF_ERROR(ReadSpaceBatchParams(ctx, input.rank(), "crops", &p_));
    Shape out_shape = input.shape;
    if (input.dim(0) % p_.block_size != 0) {
      return ctx.Error("input batch " + std::to_string(input.dim(0)) + " is not a multiple of the block size " +
                       std::to_string(p_.block_size));
    }
    out_shape[0] = static_cast<int32_t>(input.dim(0) / p_.block_size);
    for (int i = 0; i < p_.spatial; ++i) {
      const int64_t full = static_cast<int64_t>(input.dim(i + 1)) * p_.block[i];
      const int64_t kept = full - p_.before[i] - p_.after[i];
      if (kept < 0) {
        return ctx.Error("crops [" + std::to_string(p_.before[i]) + ", " + std::to_string(p_.after[i]) +
                         "] of spatial dimension " + std::to_string(i) + " exceed its size " + std::to_string(full));
      }
      RELITE_ASSIGN_OR_RETURN(out_shape[static_cast<size_t>(i) + 1],
                              ToDimension(ctx, kept, "output spatial dimension"));
    }
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.num_elements() == 0) return Status::Ok();
    const int m = p_.spatial;
    const size_t esize = DataTypeSize(input.type);
    const int64_t row_elems = DimProduct(input.shape, m + 1, input.rank());
    const int64_t row_bytes = row_elems * static_cast<int64_t>(esize);
    const int64_t rows = output.num_elements() / row_elems;
    const int64_t out_batch = output.dim(0);
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
        int64_t rem = r;
        int64_t src_row = 0;
        int64_t offset = 0;  // row-major index into the block
        int64_t block_stride = 1;
        for (int i = m - 1; i >= 0; --i) {
          const int64_t full = rem % output.dim(i + 1) + p_.before[i];
          rem /= output.dim(i + 1);
          src_row += (full / p_.block[i]) * in_strides[i + 1];
          offset += (full % p_.block[i]) * block_stride;
          block_stride *= p_.block[i];
        }
        const int64_t b = rem;
        src_row += (offset * out_batch + b) * in_strides[0];
        std::memcpy(dst + r * row_bytes, src + src_row * row_bytes, static_cast<size_t>(row_bytes));
      }
    });
    return Status::Ok();
  }

 private:
  SpaceBatchParams p_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateBatchToSpaceNd(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<BatchToSpaceNdKernel>());
}

}  // namespace relite::cpu
