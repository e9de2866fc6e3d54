// Numpy-style broadcasting of binary elementwise ops.
//
// Prepare builds a BroadcastPlan from the two input shapes: both shapes are
// right-aligned against the output, size-1 output dims are dropped and
// neighbouring dims with the same pattern (both inputs step / only one steps)
// are merged. What remains is the smallest loop nest that walks the output:
//   same shape            -> one dim, both inputs contiguous
//   one side scalar       -> one dim, that side has stride 0
//   [N,H,W,C] op [C]      -> two dims: rows x channels (per-channel vector)
//   anything else         -> an odometer over the outer dims around a
//                            contiguous (or broadcast) innermost run.
// Eval runs the plan with RunBroadcastBinary, split across threads by output
// element ranges.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "relite/kernel.h"
#include "relite/tensor.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/elementwise.h"

namespace relite::cpu {

// Ranks beyond this (after merging dims) are reported as unsupported.
inline constexpr int kMaxBroadcastRank = 16;

// The broadcast output shape, or false when some pair of dims is neither
// equal nor 1. Shapes of different rank are right-aligned; rank 0 is a scalar.
bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out);

struct BroadcastPlan {
  int rank = 0;  // merged rank; 0 when the output is empty
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t a_stride[kMaxBroadcastRank] = {};  // elements; 0 where `a` is broadcast
  int64_t b_stride[kMaxBroadcastRank] = {};
  int64_t num_elements = 0;
  // Per-channel vector broadcast ([rows, C] op [C] or [C] op [rows, C]) with
  // a short C: the vector is tiled `tile_rows` times into scratch so the
  // inner loop runs over tile_rows * C elements instead of C.
  bool tile_a = false;
  bool tile_b = false;
  int64_t tile_rows = 0;

  int64_t tile_elements() const { return tile_rows * (rank > 0 ? dims[rank - 1] : 0); }
  // Scratch bytes RunBroadcastBinary needs for inputs of `element_size` bytes.
  size_t scratch_bytes(size_t element_size) const {
    return (tile_a || tile_b) ? static_cast<size_t>(tile_elements()) * element_size : 0;
  }
};

// Builds the plan for shapes already known to broadcast (BroadcastShapes).
// False when the merged rank exceeds kMaxBroadcastRank.
bool MakeBroadcastPlan(const Shape& a, const Shape& b, BroadcastPlan* plan);

// Two inputs and one output, the inputs of one type (the output unchecked:
// comparisons write bool).
Status CheckBinaryInputs(KernelContext& ctx);

// The common checks of a binary elementwise op: CheckBinaryInputs and the
// output of the inputs' type too.
Status CheckBinaryOperands(KernelContext& ctx);

// Checks that the two inputs broadcast, builds `plan`, sets output 0 to the
// broadcast shape and requests the plan's scratch. `element_size` is the
// byte size of an input element (non-zero).
Status PrepareBroadcast(KernelContext& ctx, BroadcastPlan* plan, size_t element_size);

namespace broadcast_internal {

// The three shapes of the innermost run; `op` must be inlinable for the
// loops to vectorise.
template <typename In, typename Out, typename Op>
inline void RunBoth(const In* a, const In* b, Out* out, int64_t n, const Op& op) {
  for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
}
template <typename In, typename Out, typename Op>
inline void RunScalarA(In a, const In* b, Out* out, int64_t n, const Op& op) {
  for (int64_t i = 0; i < n; ++i) out[i] = op(a, b[i]);
}
template <typename In, typename Out, typename Op>
inline void RunScalarB(const In* a, In b, Out* out, int64_t n, const Op& op) {
  for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b);
}

// Output elements [begin, end) of a general plan.
template <typename In, typename Out, typename Op>
void RunRange(const BroadcastPlan& plan, const In* a, const In* b, Out* out, const Op& op, int64_t begin,
              int64_t end) {
  const int last = plan.rank - 1;
  const int64_t inner = plan.dims[last];
  const bool a_steps = plan.a_stride[last] != 0;
  const bool b_steps = plan.b_stride[last] != 0;
  // Decode `begin` into the outer odometer once; the walk below only adds.
  int64_t counter[kMaxBroadcastRank] = {};
  int64_t row = begin / inner;
  int64_t col = begin % inner;
  int64_t a_offset = 0;
  int64_t b_offset = 0;
  for (int d = last - 1; d >= 0; --d) {
    counter[d] = row % plan.dims[d];
    row /= plan.dims[d];
    a_offset += counter[d] * plan.a_stride[d];
    b_offset += counter[d] * plan.b_stride[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t n = std::min(inner - col, end - pos);
    Out* o = out + pos;
    if (a_steps && b_steps) {
      RunBoth(a + a_offset + col, b + b_offset + col, o, n, op);
    } else if (a_steps) {
      RunScalarB(a + a_offset + col, b[b_offset], o, n, op);
    } else if (b_steps) {
      RunScalarA(a[a_offset], b + b_offset + col, o, n, op);
    } else {
      const Out v = op(a[a_offset], b[b_offset]);
      std::fill(o, o + n, v);
    }
    pos += n;
    col = 0;
    for (int d = last - 1; d >= 0; --d) {
      a_offset += plan.a_stride[d];
      b_offset += plan.b_stride[d];
      if (++counter[d] < plan.dims[d]) break;
      a_offset -= plan.a_stride[d] * plan.dims[d];
      b_offset -= plan.b_stride[d] * plan.dims[d];
      counter[d] = 0;
    }
  }
}

// Output elements [begin, end) when one side is a vector tiled to `period`
// elements: out[i] = op(full[i], tiled[i % period]).
template <bool kTiledIsA, typename In, typename Out, typename Op>
void RunTiledRange(const In* full, const In* tiled, int64_t period, Out* out, const Op& op, int64_t begin,
                   int64_t end) {
  int64_t pos = begin;
  int64_t phase = begin % period;
  while (pos < end) {
    const int64_t n = std::min(period - phase, end - pos);
    if constexpr (kTiledIsA) {
      RunBoth(tiled + phase, full + pos, out + pos, n, op);
    } else {
      RunBoth(full + pos, tiled + phase, out + pos, n, op);
    }
    pos += n;
    phase = 0;
  }
}

}  // namespace broadcast_internal

// out = op(a, b) under `plan`; `min_chunk` is the smallest number of output
// elements worth a thread (smaller for costlier ops).
template <typename In, typename Out, typename Op>
void RunBroadcastBinary(KernelContext& ctx, const BroadcastPlan& plan, const In* a, const In* b, Out* out,
                        const Op& op, int64_t min_chunk = kDefaultMinChunk) {
  if (plan.num_elements == 0) return;
  if (plan.tile_a || plan.tile_b) {
    // The vector operand is contiguous [C]; repeat it into scratch.
    const In* vector = plan.tile_a ? a : b;
    In* tiled = static_cast<In*>(ctx.scratch());
    const int64_t channels = plan.dims[plan.rank - 1];
    for (int64_t r = 0; r < plan.tile_rows; ++r) std::copy(vector, vector + channels, tiled + r * channels);
    const int64_t period = plan.tile_elements();
    if (plan.tile_a) {
      ParallelChunks(ctx, plan.num_elements, min_chunk, [&](int64_t begin, int64_t end) {
        broadcast_internal::RunTiledRange<true>(b, tiled, period, out, op, begin, end);
      });
    } else {
      ParallelChunks(ctx, plan.num_elements, min_chunk, [&](int64_t begin, int64_t end) {
        broadcast_internal::RunTiledRange<false>(a, tiled, period, out, op, begin, end);
      });
    }
    return;
  }
  ParallelChunks(ctx, plan.num_elements, min_chunk, [&](int64_t begin, int64_t end) {
    broadcast_internal::RunRange(plan, a, b, out, op, begin, end);
  });
}

// out = activation(op(in0, in1)) on tensors of type T, the usual Eval of a
// binary arithmetic op.
template <typename T, typename Op>
void RunBinaryOp(KernelContext& ctx, const BroadcastPlan& plan, const Op& op, Activation activation = Activation::kNone,
                 int64_t min_chunk = kDefaultMinChunk) {
  const T* a = ctx.input(0).data_as<T>();
  const T* b = ctx.input(1).data_as<T>();
  T* out = ctx.output(0).data_as<T>();
  if (activation == Activation::kNone) {
    RunBroadcastBinary(ctx, plan, a, b, out, op, min_chunk);
  } else {
    RunBroadcastBinary(ctx, plan, a, b, out, Clamped<T, Op>{op, MakeActivationClamp<T>(activation)}, min_chunk);
  }
}

}  // namespace relite::cpu
