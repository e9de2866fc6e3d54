// Shared machinery of the reduce group (MEAN, SUM, REDUCE_MAX): axis
// resolution, the reduction plan, and the vectorisable reduction loops.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "relite/kernel.h"

namespace relite::cpu {

// A reduction of a dense tensor, split into passes over 3-D views
// [outer, reduced, inner] (row-major, inner contiguous). Each pass removes one
// run of adjacent reduced axes; most models need exactly one pass (e.g. the
// H,W of NHWC collapses to [N, H*W, C]).
struct ReductionPass {
  int64_t outer = 1;
  int64_t reduced = 1;
  int64_t inner = 1;
  int64_t output_elements() const { return outer * inner; }
};

struct ReductionPlan {
  Shape output_shape;
  std::vector<ReductionPass> passes;  // empty: the output is a copy of the input
  int64_t reduced_count = 1;          // input elements folded into each output element
  int64_t output_elements = 0;
  // Elements of the two ping-pong buffers holding the results of every pass
  // but the last.
  int64_t buffer_elements[2] = {0, 0};
};

// Reads the constant axis tensor (int32 or int64, any rank, negative and
// repeated entries allowed) and plans the reduction of `input_shape`.
Status PlanReduction(const KernelContext& ctx, const Shape& input_shape, const Tensor& axis, bool keep_dims,
                     ReductionPlan* plan);

// Prepare of MEAN / SUM / REDUCE_MAX: inputs (data, axis), options
// ReducerOptions { keep_dims }. The op files add the dtype rules and Eval.
class ReduceKernelBase : public Kernel {
 public:
  ReduceKernelBase(const Node& node, const char* op_name);
  Status Prepare(KernelContext& ctx) override;

 protected:
  // Checks the data type of input 0 (called from Prepare).
  virtual Status CheckType(KernelContext& ctx, DataType type) const = 0;
  // Extra scratch bytes the op needs besides the pass buffers (e.g. a wide
  // final buffer), given the plan.
  virtual size_t ExtraScratchBytes(const ReductionPlan&, DataType) const { return 0; }

  const ReductionPlan& plan() const { return plan_; }
  // Scratch offset (bytes) of the op's extra buffer.
  size_t extra_scratch_offset() const { return extra_offset_; }

  bool keep_dims_ = false;
  const char* op_name_;

 private:
  ReductionPlan plan_;
  size_t extra_offset_ = 0;
};

namespace reduce_internal {

inline constexpr size_t kScratchAlign = 64;
inline size_t AlignUp(size_t n) { return (n + kScratchAlign - 1) / kScratchAlign * kScratchAlign; }

// How values combine. Sum keeps lanes of Acc (float for float data, a
// wrapping uint64 for integers) and merges finished blocks into a wider Total
// (double for float), so long reductions lose no accuracy to a single running
// float sum. Max keeps everything in the element type; as in TFLite a value
// wins only when it compares greater, so NaNs are skipped and an empty (or
// all-NaN) run gives the type's lowest value.
template <typename AccT, typename TotalT, typename OutT>
struct SumReducer {
  using Acc = AccT;
  using Total = TotalT;
  using Out = OutT;
  static Acc AccInit() { return Acc(0); }
  static Total TotalInit() { return Total(0); }
  template <typename A, typename B>
  static A Combine(A a, B b) {
    return static_cast<A>(a + static_cast<A>(b));
  }
  static Out Finish(Total t) { return static_cast<Out>(t); }
};

template <typename T>
struct MaxReducer {
  using Acc = T;
  using Total = T;
  using Out = T;
  static Acc AccInit() { return std::numeric_limits<T>::lowest(); }
  static Total TotalInit() { return std::numeric_limits<T>::lowest(); }
  template <typename A, typename B>
  static A Combine(A a, B b) {
    const A v = static_cast<A>(b);
    return v > a ? v : a;
  }
  static Out Finish(Total t) { return t; }
};

// REDUCE_MIN: the mirror of MaxReducer (a value wins only when it compares
// less; an empty run gives the type's largest value).
template <typename T>
struct MinReducer {
  using Acc = T;
  using Total = T;
  using Out = T;
  static Acc AccInit() { return std::numeric_limits<T>::max(); }
  static Total TotalInit() { return std::numeric_limits<T>::max(); }
  template <typename A, typename B>
  static A Combine(A a, B b) {
    const A v = static_cast<A>(b);
    return v < a ? v : a;
  }
  static Out Finish(Total t) { return t; }
};

// REDUCE_PROD in the element type, as TFLite computes it: float products
// round per step, integer products wrap (two's complement).
template <typename T>
struct ProdReducer {
  using Acc = T;
  using Total = T;
  using Out = T;
  static Acc AccInit() { return T(1); }
  static Total TotalInit() { return T(1); }
  template <typename A, typename B>
  static A Combine(A a, B b) {
    if constexpr (std::is_integral_v<A>) {
      using U = std::make_unsigned_t<A>;
      return static_cast<A>(static_cast<U>(a) * static_cast<U>(static_cast<A>(b)));
    } else {
      return a * static_cast<A>(b);
    }
  }
  static Out Finish(Total t) { return t; }
};

// REDUCE_ANY / REDUCE_ALL over bool bytes (any non-zero byte is true; the
// result is 0 or 1).
template <bool kAll>
struct BoolReducer {
  using Acc = uint8_t;
  using Total = uint8_t;
  using Out = uint8_t;
  static Acc AccInit() { return kAll ? 1 : 0; }
  static Total TotalInit() { return kAll ? 1 : 0; }
  template <typename A, typename B>
  static A Combine(A a, B b) {
    const uint8_t v = static_cast<uint8_t>(b != 0);
    return static_cast<A>(kAll ? (a & v) : (a | v));
  }
  static Out Finish(Total t) { return t; }
};

// Reduction of n contiguous values: 32 independent lanes over blocks of 1024
// values, each block folded as a tree into the running total.
template <class R, typename In>
typename R::Total ReduceContiguous(const In* x, int64_t n) {
  constexpr int kLanes = 32;
  constexpr int64_t kBlock = 32 * kLanes;
  using Acc = typename R::Acc;
  typename R::Total total = R::TotalInit();
  int64_t i = 0;
  while (n - i >= kLanes) {
    Acc acc[kLanes];
    for (int l = 0; l < kLanes; ++l) acc[l] = R::AccInit();
    const int64_t end = i + std::min<int64_t>(kBlock, (n - i) / kLanes * kLanes);
    for (; i < end; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) acc[l] = R::Combine(acc[l], x[i + l]);
    }
    for (int w = kLanes / 2; w > 0; w /= 2) {
      for (int l = 0; l < w; ++l) acc[l] = R::Combine(acc[l], acc[l + w]);
    }
    total = R::Combine(total, acc[0]);
  }
  Acc tail = R::AccInit();
  for (; i < n; ++i) tail = R::Combine(tail, x[i]);
  return R::Combine(total, tail);
}

inline constexpr int kColumnTile = 64;

// tot[c] = reduction over r < rows of x[r * stride + c], for c < width
// (width <= kColumnTile). Rows are folded in blocks of 32 into Acc lanes and
// each block into the totals. kWidth > 0 fixes the width at compile time.
template <class R, int kWidth, typename In>
void ReduceColumnTile(const In* x, int64_t rows, int64_t stride, int width, typename R::Total* tot) {
  constexpr int64_t kRowBlock = 32;
  const int w = kWidth > 0 ? kWidth : width;
  typename R::Acc acc[kColumnTile];
  for (int c = 0; c < w; ++c) tot[c] = R::TotalInit();
  for (int64_t r0 = 0; r0 < rows; r0 += kRowBlock) {
    const int64_t r1 = std::min(rows, r0 + kRowBlock);
    for (int c = 0; c < w; ++c) acc[c] = R::AccInit();
    for (int64_t r = r0; r < r1; ++r) {
      const In* row = x + r * stride;
      for (int c = 0; c < w; ++c) acc[c] = R::Combine(acc[c], row[c]);
    }
    for (int c = 0; c < w; ++c) tot[c] = R::Combine(tot[c], acc[c]);
  }
}

// One tile of columns [c0, c0 + kColumnTile) of a [rows, width] matrix.
template <class R, typename In>
void ReduceColumns(const In* x, int64_t rows, int64_t width, int64_t c0, typename R::Out* out) {
  typename R::Total tot[kColumnTile];
  if (width * 2 <= kColumnTile) {
    // Narrow rows: view k consecutive rows as one row of k * width values so
    // the vector lanes stay busy, then fold the k groups.
    const int64_t k = kColumnTile / width;
    const int64_t wide = k * width;
    const int64_t wide_rows = rows / k;
    ReduceColumnTile<R, 0>(x, wide_rows, wide, static_cast<int>(wide), tot);
    for (int64_t r = wide_rows * k; r < rows; ++r) {
      for (int64_t c = 0; c < width; ++c) tot[c] = R::Combine(tot[c], x[r * width + c]);
    }
    for (int64_t c = 0; c < width; ++c) {
      typename R::Total t = tot[c];
      for (int64_t g = 1; g < k; ++g) t = R::Combine(t, tot[g * width + c]);
      out[c] = R::Finish(t);
    }
    return;
  }
  const int w = static_cast<int>(std::min<int64_t>(kColumnTile, width - c0));
  // No rows (an empty reduced axis): the input may have no memory at all, so
  // no pointer is formed into it; every column is the reducer's identity.
  const auto* cols = rows > 0 ? x + c0 : x;
  if (w == kColumnTile) {
    ReduceColumnTile<R, kColumnTile>(cols, rows, width, w, tot);
  } else {
    ReduceColumnTile<R, 0>(cols, rows, width, w, tot);
  }
  for (int c = 0; c < w; ++c) out[c0 + c] = R::Finish(tot[c]);
}

inline constexpr int64_t kWorkPerChunk = 1 << 15;

// One pass: out[o, i] = reduce over r of in[o, r, i].
template <class R, typename In>
void RunPass(KernelContext& ctx, const ReductionPass& p, const In* in, typename R::Out* out) {
  const int64_t outer = p.outer, reduced = p.reduced, inner = p.inner;
  if (inner == 1) {
    if (outer == 1 && reduced >= 4 * kWorkPerChunk && ctx.num_threads() > 1) {
      // One long row: threads reduce slices, then the slices are combined.
      constexpr int kMaxParts = 64;
      const int parts = std::min(kMaxParts, ctx.num_threads());
      const int64_t slice = (reduced + parts - 1) / parts;
      typename R::Total partial[kMaxParts];
      ctx.ParallelFor(parts, 1, [&](int64_t b, int64_t e) {
        for (int64_t s = b; s < e; ++s) {
          const int64_t lo = std::min(reduced, s * slice);
          const int64_t hi = std::min(reduced, lo + slice);
          partial[s] = ReduceContiguous<R>(in + lo, hi - lo);
        }
      });
      typename R::Total t = R::TotalInit();
      for (int s = 0; s < parts; ++s) t = R::Combine(t, partial[s]);
      out[0] = R::Finish(t);
      return;
    }
    const int64_t min_chunk = std::max<int64_t>(1, kWorkPerChunk / std::max<int64_t>(1, reduced));
    ctx.ParallelFor(outer, min_chunk, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) out[o] = R::Finish(ReduceContiguous<R>(in + o * reduced, reduced));
    });
    return;
  }
  const int64_t tiles = inner * 2 <= kColumnTile ? 1 : (inner + kColumnTile - 1) / kColumnTile;
  const int64_t work_per_item = std::max<int64_t>(1, reduced * std::min<int64_t>(inner, kColumnTile));
  const int64_t min_chunk = std::max<int64_t>(1, kWorkPerChunk / work_per_item);
  ctx.ParallelFor(outer * tiles, min_chunk, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t o = item / tiles;
      const int64_t t = item - o * tiles;
      ReduceColumns<R>(in + o * reduced * inner, reduced, inner, t * kColumnTile, out + o * inner);
    }
  });
}

// Runs every pass of `plan`; the last one writes `out`. Intermediate results
// live in the two ping-pong buffers at the start of `scratch`.
template <class R, typename In>
void RunReduction(KernelContext& ctx, const ReductionPlan& plan, const In* in, typename R::Out* out, void* scratch) {
  using Out = typename R::Out;
  if (plan.output_elements == 0) return;
  if (plan.passes.empty()) {
    for (int64_t i = 0; i < plan.output_elements; ++i) out[i] = static_cast<Out>(in[i]);
    return;
  }
  Out* buffers[2] = {static_cast<Out*>(scratch),
                     reinterpret_cast<Out*>(static_cast<char*>(scratch) +
                                            AlignUp(static_cast<size_t>(plan.buffer_elements[0]) * sizeof(Out)))};
  const size_t last = plan.passes.size() - 1;
  RunPass<R>(ctx, plan.passes[0], in, last == 0 ? out : buffers[0]);
  for (size_t k = 1; k <= last; ++k) {
    RunPass<R>(ctx, plan.passes[k], buffers[(k - 1) % 2], k == last ? out : buffers[k % 2]);
  }
}

// Scratch bytes RunReduction needs for pass results of `elem_size` bytes.
inline size_t PassBufferBytes(const ReductionPlan& plan, size_t elem_size) {
  return AlignUp(static_cast<size_t>(plan.buffer_elements[0]) * elem_size) +
         AlignUp(static_cast<size_t>(plan.buffer_elements[1]) * elem_size);
}

}  // namespace reduce_internal
}  // namespace relite::cpu
