#include "src/kernels/cpu/internal/data_movement.h"

#include <cstring>
#include <limits>

namespace relite::cpu {

Status CheckArity(const KernelContext& ctx, int min_inputs, int max_inputs, int num_outputs) {
  const int n = ctx.num_inputs();
  if (n < min_inputs || n > max_inputs) {
    const std::string expected = min_inputs == max_inputs ? std::to_string(min_inputs)
                                 : max_inputs == std::numeric_limits<int>::max()
                                     ? "at least " + std::to_string(min_inputs)
                                     : std::to_string(min_inputs) + ".." + std::to_string(max_inputs);
    return ctx.Error("expected " + expected + " inputs, got " + std::to_string(n));
  }
  for (int i = 0; i < min_inputs; ++i) {
    if (!ctx.has_input(i)) return ctx.Error("required input " + std::to_string(i) + " is absent");
  }
  if (num_outputs >= 0 && ctx.num_outputs() != num_outputs) {
    return ctx.Error("expected " + std::to_string(num_outputs) + " outputs, got " + std::to_string(ctx.num_outputs()));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.node().outputs[static_cast<size_t>(i)] < 0) return ctx.Error("output " + std::to_string(i) + " is absent");
  }
  return Status::Ok();
}

Status CheckCopyableType(const KernelContext& ctx, const Tensor& t, const std::string& what) {
  if (DataTypeSize(t.type) == 0) {
    return ctx.Unsupported(what + " has dtype " + DataTypeName(t.type) + ", which has no fixed element size");
  }
  return Status::Ok();
}

Status CheckSameType(const KernelContext& ctx, const Tensor& a, const std::string& what_a, const Tensor& b,
                     const std::string& what_b) {
  if (a.type != b.type) {
    return ctx.Error(what_b + " has dtype " + DataTypeName(b.type) + " but " + what_a + " has dtype " +
                     DataTypeName(a.type));
  }
  return Status::Ok();
}

Status ReadConstantInts(KernelContext& ctx, int input_index, const std::string& what,
                        std::vector<int64_t>* values) {
  values->clear();
  if (!ctx.has_input(input_index)) return ctx.Error(what + " (input " + std::to_string(input_index) + ") is missing");
  const Tensor& t = ctx.input(input_index);
  if (t.type != DataType::kInt32 && t.type != DataType::kInt64) {
    return ctx.Error(what + " must be int32 or int64, got " + DataTypeName(t.type));
  }
  if (!ctx.InputValuesReady(input_index)) return ctx.NeedInputValues(input_index);
  const int64_t n = t.num_elements();
  if (n < 0) return ctx.Error(what + " has an invalid shape " + ShapeToString(t.shape));
  const size_t elem = DataTypeSize(t.type);
  if (n > 0 && (t.data == nullptr || t.bytes < static_cast<size_t>(n) * elem)) {
    return ctx.Error(what + " holds " + std::to_string(t.bytes) + " bytes, too few for shape " +
                     ShapeToString(t.shape));
  }
  values->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (t.type == DataType::kInt32) {
      int32_t v;
      std::memcpy(&v, static_cast<const uint8_t*>(t.data) + i * 4, 4);
      (*values)[static_cast<size_t>(i)] = v;
    } else {
      int64_t v;
      std::memcpy(&v, static_cast<const uint8_t*>(t.data) + i * 8, 8);
      (*values)[static_cast<size_t>(i)] = v;
    }
  }
  return Status::Ok();
}

StatusOr<int> NormalizeAxis(const KernelContext& ctx, int64_t axis, int rank, const std::string& what) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank) +
                     " (valid: [" + std::to_string(-rank) + ", " + std::to_string(rank) + "))");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

bool SameQuantization(const Quantization& a, const Quantization& b) {
  return a.scale == b.scale && a.zero_point == b.zero_point &&
         (a.scale.size() <= 1 || a.quantized_dimension == b.quantized_dimension);
}

int64_t DimProduct(const Shape& shape, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= shape[static_cast<size_t>(i)];
  return p;
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

int64_t StridedView::num_elements() const {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= size[d];
  return n;
}

StridedView SimplifyView(const StridedView& view) {
  StridedView out;
  for (int d = 0; d < view.rank; ++d) {
    if (view.size[d] == 0) {
      // Empty: keep one zero-sized dimension so callers see no elements.
      out.rank = 1;
      out.size[0] = 0;
      out.stride[0] = 1;
      return out;
    }
    if (view.size[d] == 1) continue;
    out.size[out.rank] = view.size[d];
    out.stride[out.rank] = view.stride[d];
    ++out.rank;
  }
  // Merge d into d+1 when stepping d once equals walking all of d+1.
  int merged = 0;
  for (int d = 0; d < out.rank; ++d) {
    if (merged > 0 && out.stride[merged - 1] == out.stride[d] * out.size[d]) {
      out.size[merged - 1] *= out.size[d];
      out.stride[merged - 1] = out.stride[d];
      continue;
    }
    out.size[merged] = out.size[d];
    out.stride[merged] = out.stride[d];
    ++merged;
  }
  out.rank = merged;
  return out;
}

namespace {

template <size_t N>
void FillFixed(uint8_t* dst, int64_t count, const uint8_t* value) {
  uint8_t v[N];
  std::memcpy(v, value, N);
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * static_cast<int64_t>(N), v, N);
}

template <size_t N>
void GatherFixed(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t count) {
  const int64_t step = src_stride * static_cast<int64_t>(N);
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * static_cast<int64_t>(N), src + i * step, N);
}

}  // namespace

void FillElements(uint8_t* dst, int64_t count, const uint8_t* value, size_t elem_size) {
  if (count <= 0) return;
  bool all_same_byte = true;
  for (size_t i = 1; i < elem_size; ++i) all_same_byte &= value[i] == value[0];
  if (all_same_byte) {
    std::memset(dst, value[0], static_cast<size_t>(count) * elem_size);
    return;
  }
  switch (elem_size) {
    case 2: FillFixed<2>(dst, count, value); return;
    case 4: FillFixed<4>(dst, count, value); return;
    case 8: FillFixed<8>(dst, count, value); return;
    default:
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * static_cast<int64_t>(elem_size), value, elem_size);
  }
}

void CopyStridedRow(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t count, size_t elem_size) {
  if (count <= 0) return;
  if (src_stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(count) * elem_size);
    return;
  }
  switch (elem_size) {
    case 1: GatherFixed<1>(src, src_stride, dst, count); return;
    case 2: GatherFixed<2>(src, src_stride, dst, count); return;
    case 4: GatherFixed<4>(src, src_stride, dst, count); return;
    case 8: GatherFixed<8>(src, src_stride, dst, count); return;
    case 16: GatherFixed<16>(src, src_stride, dst, count); return;
    default: {
      const int64_t step = src_stride * static_cast<int64_t>(elem_size);
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * static_cast<int64_t>(elem_size), src + i * step, elem_size);
    }
  }
}

void ParallelMemcpy(KernelContext& ctx, void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  constexpr int64_t kBlock = 64 * 1024;
  const int64_t total = static_cast<int64_t>(bytes);
  const int64_t blocks = (total + kBlock - 1) / kBlock;
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  ParallelRows(ctx, blocks, kBlock, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kBlock;
    const int64_t last = std::min(end * kBlock, total);
    std::memcpy(d + first, s + first, static_cast<size_t>(last - first));
  });
}

void ConcatRows(KernelContext& ctx, const RowPiece* pieces, int num_pieces, int64_t outer, uint8_t* dst) {
  int64_t out_row = 0;
  for (int i = 0; i < num_pieces; ++i) out_row += pieces[i].row_bytes;
  if (out_row == 0) return;
  if (outer == 1) {
    for (int i = 0; i < num_pieces; ++i) {
      ParallelMemcpy(ctx, dst, pieces[i].data, static_cast<size_t>(pieces[i].row_bytes));
      dst += pieces[i].row_bytes;
    }
    return;
  }
  ParallelRows(ctx, outer, out_row, [&](int64_t begin, int64_t end) {
    uint8_t* d = dst + begin * out_row;
    for (int64_t o = begin; o < end; ++o) {
      for (int i = 0; i < num_pieces; ++i) {
        const int64_t n = pieces[i].row_bytes;
        if (n == 0) continue;
        CopyRowBytes(d, pieces[i].data + o * n, n);
        d += n;
      }
    }
  });
}

void SplitRows(KernelContext& ctx, const uint8_t* src, int64_t outer, const RowPiece* pieces, int num_pieces) {
  int64_t in_row = 0;
  for (int i = 0; i < num_pieces; ++i) in_row += pieces[i].row_bytes;
  if (in_row == 0) return;
  if (outer == 1) {
    for (int i = 0; i < num_pieces; ++i) {
      ParallelMemcpy(ctx, pieces[i].data, src, static_cast<size_t>(pieces[i].row_bytes));
      src += pieces[i].row_bytes;
    }
    return;
  }
  ParallelRows(ctx, outer, in_row, [&](int64_t begin, int64_t end) {
    const uint8_t* s = src + begin * in_row;
    for (int64_t o = begin; o < end; ++o) {
      for (int i = 0; i < num_pieces; ++i) {
        const int64_t n = pieces[i].row_bytes;
        if (n == 0) continue;
        CopyRowBytes(pieces[i].data + o * n, s, n);
        s += n;
      }
    }
  });
}

void CopyStridedView(KernelContext& ctx, const StridedView& view, size_t elem_size, const uint8_t* src_origin,
                     uint8_t* dst) {
  const StridedView v = SimplifyView(view);
  if (v.rank == 0) {
    std::memcpy(dst, src_origin, elem_size);
    return;
  }
  if (v.size[0] == 0) return;
  const int last = v.rank - 1;
  const int64_t inner = v.size[last];
  const int64_t inner_stride = v.stride[last];
  const int64_t row_bytes = inner * static_cast<int64_t>(elem_size);
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= v.size[d];
  const int64_t esize = static_cast<int64_t>(elem_size);

  ParallelRows(ctx, rows, row_bytes, [&](int64_t begin, int64_t end) {
    int64_t idx[kMaxCopyRank] = {};
    int64_t offset = 0;  // in elements
    int64_t rem = begin;
    for (int d = last - 1; d >= 0; --d) {
      idx[d] = rem % v.size[d];
      rem /= v.size[d];
      offset += idx[d] * v.stride[d];
    }
    const uint8_t* s = src_origin + offset * esize;
    uint8_t* out = dst + begin * row_bytes;
    for (int64_t r = begin; r < end; ++r) {
      CopyStridedRow(s, inner_stride, out, inner, elem_size);
      out += row_bytes;
      for (int d = last - 1; d >= 0; --d) {
        if (++idx[d] < v.size[d]) {
          s += v.stride[d] * esize;
          break;
        }
        s -= (v.size[d] - 1) * v.stride[d] * esize;
        idx[d] = 0;
      }
    }
  });
}

}  // namespace relite::cpu
