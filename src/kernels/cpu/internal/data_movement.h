// Helpers shared by the shape-group kernels (ops that only move bytes:
// reshape, concat, slice, transpose, gather, ...). Elements are copied as
// opaque DataTypeSize(type)-byte units, so every fixed-size dtype works.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "relite/status.h"
#include "relite/tensor.h"

namespace relite::cpu {

// Highest rank the strided-copy helpers handle (after merging dimensions).
inline constexpr int kMaxCopyRank = 8;

// Checks the operator's arity: inputs [min_inputs, max_inputs] (INT_MAX: no
// upper bound) with the first min_inputs present, and exactly num_outputs outputs (any count when < 0).
Status CheckArity(const KernelContext& ctx, int min_inputs, int max_inputs, int num_outputs);

// OK when `t` has a fixed element size; Unsupported for string, resource,
// variant and int4 tensors.
Status CheckCopyableType(const KernelContext& ctx, const Tensor& t, const std::string& what);
// InvalidArgument unless `b` has the dtype of `a`.
Status CheckSameType(const KernelContext& ctx, const Tensor& a, const std::string& what_a, const Tensor& b,
                     const std::string& what_b);

// Values of input `input_index`, an int32 or int64 tensor of any shape, in storage order. The input must be constant: its data
// is read in Prepare. `what` names the input in error messages.
Status ReadConstantInts(KernelContext& ctx, int input_index, const std::string& what,
                        std::vector<int64_t>* values);

// Maps axis in [-rank, rank) to [0, rank).
StatusOr<int> NormalizeAxis(const KernelContext& ctx, int64_t axis, int rank, const std::string& what);

// True when both tensors carry the same (or no) quantization parameters.
bool SameQuantization(const Quantization& a, const Quantization& b);

// Product of shape[begin, end).
int64_t DimProduct(const Shape& shape, int begin, int end);

// Row-major strides (in elements) of `shape`.
std::vector<int64_t> RowMajorStrides(const Shape& shape);

// Runs fn(begin, end) over rows [0, rows), split across the interpreter's
// threads when the copy is big enough to amortise the hand-off. The callable
// is passed to ParallelFor through a one-pointer wrapper, so no allocation.
template <typename Fn>
void ParallelRows(KernelContext& ctx, int64_t rows, int64_t bytes_per_row, Fn&& fn) {
  constexpr int64_t kMinParallelBytes = 256 * 1024;
  constexpr int64_t kChunkBytes = 64 * 1024;
  if (rows <= 0) return;
  const int64_t row_bytes = std::max<int64_t>(bytes_per_row, 1);
  if (rows == 1 || ctx.num_threads() <= 1 || rows * row_bytes < kMinParallelBytes) {
    fn(int64_t{0}, rows);
    return;
  }
  const int64_t min_chunk = std::max<int64_t>(1, kChunkBytes / row_bytes);
  ctx.ParallelFor(rows, min_chunk, [&fn](int64_t begin, int64_t end) { fn(begin, end); });
}

// A strided view of a source buffer: element (i0, ..., ik) lives at
// origin + sum(i_d * stride[d]) elements. Strides may be negative or zero.
struct StridedView {
  int rank = 0;
  int64_t size[kMaxCopyRank] = {};
  int64_t stride[kMaxCopyRank] = {};

  int64_t num_elements() const;
};

// The same view with size-1 dimensions dropped and neighbouring dimensions
// merged where the outer one steps exactly over the inner one.
StridedView SimplifyView(const StridedView& view);

// Copies the view (rank <= kMaxCopyRank) into the contiguous row-major
// buffer `dst`. `src_origin` points at element (0, ..., 0). Rows whose
// innermost stride is 1 are copied with memcpy.
void CopyStridedView(KernelContext& ctx, const StridedView& view, size_t elem_size, const uint8_t* src_origin,
                     uint8_t* dst);

// memcpy split into blocks over the interpreter's threads when large.
void ParallelMemcpy(KernelContext& ctx, void* dst, const void* src, size_t bytes);

// memcpy for the short rows of channel concatenations and splits (1 to 32
// bytes a row, e.g. one uint8 channel): two possibly overlapping fixed-size
// moves instead of a library call per row; longer rows go to memcpy.
inline void CopyRowBytes(void* dst, const void* src, int64_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (n >= 16 && n <= 32) {
    std::memcpy(d, s, 16);
    std::memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8 && n < 16) {
    std::memcpy(d, s, 8);
    std::memcpy(d + n - 8, s + n - 8, 8);
  } else if (n >= 4 && n < 8) {
    std::memcpy(d, s, 4);
    std::memcpy(d + n - 4, s + n - 4, 4);
  } else if (n > 0 && n < 4) {
    d[0] = s[0];
    d[n / 2] = s[n / 2];
    d[n - 1] = s[n - 1];
  } else if (n > 0) {
    std::memcpy(d, s, static_cast<size_t>(n));
  }
}

// One operand of a concatenation or split: `row_bytes` contiguous bytes per
// outer row.
struct RowPiece {
  uint8_t* data = nullptr;
  int64_t row_bytes = 0;
};

// dst row o is pieces[0] row o, then pieces[1] row o, ... (CONCATENATION, PACK).
void ConcatRows(KernelContext& ctx, const RowPiece* pieces, int num_pieces, int64_t outer, uint8_t* dst);
// The inverse: src row o is cut into pieces[0] row o, pieces[1] row o, ... (SPLIT, UNPACK).
void SplitRows(KernelContext& ctx, const uint8_t* src, int64_t outer, const RowPiece* pieces, int num_pieces);

// Fills `count` elements of `elem_size` bytes at dst with the bytes at value.
void FillElements(uint8_t* dst, int64_t count, const uint8_t* value, size_t elem_size);

// Copies `count` elements from src, stepping `src_stride` elements, to dst contiguously.
void CopyStridedRow(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t count, size_t elem_size);

}  // namespace relite::cpu
