#include "src/kernels/cpu/internal/space_batch.h"

#include <limits>

#include "src/kernels/cpu/internal/value_inputs.h"

namespace relite::cpu {

Status ReadSpaceBatchParams(KernelContext& ctx, int rank, const std::string& edges_name, SpaceBatchParams* p) {
  std::vector<int64_t> block;
  std::vector<int64_t> edges;
  RELITE_RETURN_IF_ERROR(ReadShapeInput(ctx, 1, "block_shape", &block));
  RELITE_RETURN_IF_ERROR(ReadShapeInput(ctx, 2, edges_name, &edges));
  const Tensor& block_t = ctx.input(1);
  const Tensor& edges_t = ctx.input(2);
  if (block_t.rank() != 1) return ctx.Error("block_shape must be 1-D, got shape " + ShapeToString(block_t.shape));
  const int m = block_t.dim(0);
  if (m < 1 || m + 1 > rank) {
    return ctx.Error("block_shape has " + std::to_string(m) + " entries; the input of rank " + std::to_string(rank) +
                     " allows 1 to " + std::to_string(rank - 1));
  }
  if (rank > kMaxCopyRank) return ctx.Unsupported("rank " + std::to_string(rank) + " (at most 8)");
  if (edges_t.rank() != 2 || edges_t.dim(0) != m || edges_t.dim(1) != 2) {
    return ctx.Error(edges_name + " must have shape [" + std::to_string(m) + ",2], got " + ShapeToString(edges_t.shape));
  }
  p->spatial = m;
  p->block_size = 1;
  for (int i = 0; i < m; ++i) {
    const int64_t b = block[static_cast<size_t>(i)];
    const int64_t lo = edges[static_cast<size_t>(2 * i)];
    const int64_t hi = edges[static_cast<size_t>(2 * i + 1)];
    if (b < 1 || b > std::numeric_limits<int32_t>::max()) {
      return ctx.Error("block_shape[" + std::to_string(i) + "] is " + std::to_string(b) + "; it must be at least 1");
    }
    if (lo < 0 || hi < 0 || lo > std::numeric_limits<int32_t>::max() || hi > std::numeric_limits<int32_t>::max()) {
      return ctx.Error(edges_name + " of spatial dimension " + std::to_string(i) + " are out of range: [" +
                       std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    p->block[i] = b;
    p->before[i] = lo;
    p->after[i] = hi;
    p->block_size *= b;
    if (p->block_size > std::numeric_limits<int32_t>::max()) return ctx.Error("the block shape's product is too large");
  }
  return Status::Ok();
}

}  // namespace relite::cpu
