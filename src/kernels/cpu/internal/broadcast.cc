#include "src/kernels/cpu/internal/broadcast.h"

#include <string>

namespace relite::cpu {
namespace {

// Per-channel vectors shorter than this get tiled (short inner loops waste
// most of their time in loop overhead); the tile is about this many elements.
constexpr int64_t kTileMaxChannels = 128;
constexpr int64_t kTileTargetElements = 1024;

// Size of dim `d` of `shape` right-aligned to rank `rank`; 1 for the
// missing leading dims.
int64_t AlignedDim(const Shape& shape, int rank, int d) {
  const int offset = rank - static_cast<int>(shape.size());
  return d < offset ? 1 : shape[static_cast<size_t>(d - offset)];
}

}  // namespace

bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  const int rank = static_cast<int>(std::max(a.size(), b.size()));
  out->assign(static_cast<size_t>(rank), 1);
  for (int d = 0; d < rank; ++d) {
    const int64_t da = AlignedDim(a, rank, d);
    const int64_t db = AlignedDim(b, rank, d);
    if (da == db || db == 1) {
      (*out)[static_cast<size_t>(d)] = static_cast<int32_t>(da);
    } else if (da == 1) {
      (*out)[static_cast<size_t>(d)] = static_cast<int32_t>(db);
    } else {
      return false;
    }
  }
  return true;
}

bool MakeBroadcastPlan(const Shape& a, const Shape& b, BroadcastPlan* plan) {
  *plan = BroadcastPlan();
  const int rank = static_cast<int>(std::max(a.size(), b.size()));
  // Unmerged dims and strides, outer to inner, size-1 output dims dropped.
  struct Dim {
    int64_t size, a_stride, b_stride;
  };
  Dim dims[64];
  if (rank > 64) return false;
  int count = 0;
  int64_t a_contiguous = 1;
  int64_t b_contiguous = 1;
  int64_t total = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t da = AlignedDim(a, rank, d);
    const int64_t db = AlignedDim(b, rank, d);
    const int64_t size = std::max(da, db) == 1 ? 1 : (da == 1 ? db : da);
    if (da == 0 || db == 0) {
      // An empty output: nothing to plan.
      plan->num_elements = 0;
      return true;
    }
    total *= size;
    if (size != 1) dims[count++] = {size, da == 1 ? 0 : a_contiguous, db == 1 ? 0 : b_contiguous};
    a_contiguous *= da;
    b_contiguous *= db;
  }
  plan->num_elements = total;
  if (count == 0) {
    // Scalar op scalar (any rank of all-ones).
    plan->rank = 1;
    plan->dims[0] = 1;
    return true;
  }
  // dims[] is inner to outer here; merge an outer dim into the current inner
  // run when both inputs continue it (stride == inner stride * inner size,
  // which also covers "both broadcast": 0 == 0 * size).
  Dim merged[64];
  int merged_count = 0;
  merged[merged_count++] = dims[0];
  for (int i = 1; i < count; ++i) {
    Dim& inner = merged[merged_count - 1];
    const Dim& outer = dims[i];
    if (outer.a_stride == inner.a_stride * inner.size && outer.b_stride == inner.b_stride * inner.size) {
      inner.size *= outer.size;
    } else {
      merged[merged_count++] = outer;
    }
  }
  if (merged_count > kMaxBroadcastRank) return false;
  plan->rank = merged_count;
  for (int i = 0; i < merged_count; ++i) {
    const Dim& d = merged[merged_count - 1 - i];
    plan->dims[i] = d.size;
    plan->a_stride[i] = d.a_stride;
    plan->b_stride[i] = d.b_stride;
  }
  if (plan->rank == 2 && plan->dims[1] < kTileMaxChannels) {
    const int64_t channels = plan->dims[1];
    const bool b_is_vector = plan->b_stride[0] == 0 && plan->b_stride[1] == 1 && plan->a_stride[1] == 1;
    const bool a_is_vector = plan->a_stride[0] == 0 && plan->a_stride[1] == 1 && plan->b_stride[1] == 1;
    if (b_is_vector || a_is_vector) {
      plan->tile_b = b_is_vector;
      plan->tile_a = a_is_vector;
      plan->tile_rows = std::min(plan->dims[0], (kTileTargetElements + channels - 1) / channels);
    }
  }
  return true;
}

Status CheckBinaryInputs(KernelContext& ctx) {
  RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 1));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.type != b.type) {
    return ctx.Error("input types differ: '" + a.name + "' is " + DataTypeName(a.type) + ", '" + b.name + "' is " +
                     DataTypeName(b.type));
  }
  return Status::Ok();
}

Status CheckBinaryOperands(KernelContext& ctx) {
  RELITE_RETURN_IF_ERROR(CheckBinaryInputs(ctx));
  return CheckOutputType(ctx, 0, ctx.input(0).type);
}

Status PrepareBroadcast(KernelContext& ctx, BroadcastPlan* plan, size_t element_size) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  for (const Tensor* t : {&a, &b}) {
    for (int32_t d : t->shape) {
      if (d < 0) return ctx.Error("input '" + t->name + "' has a negative dimension: " + ShapeToString(t->shape));
    }
  }
  Shape out_shape;
  if (!BroadcastShapes(a.shape, b.shape, &out_shape)) {
    return ctx.Error("input shapes " + ShapeToString(a.shape) + " and " + ShapeToString(b.shape) +
                     " are not broadcastable");
  }
  if (!MakeBroadcastPlan(a.shape, b.shape, plan)) {
    return ctx.Unsupported("broadcasting " + ShapeToString(a.shape) + " with " + ShapeToString(b.shape) +
                           " needs more than " + std::to_string(kMaxBroadcastRank) + " dimensions");
  }
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));
  const size_t scratch = plan->scratch_bytes(element_size);
  if (scratch > 0) ctx.RequestScratch(scratch);
  return Status::Ok();
}

}  // namespace relite::cpu
