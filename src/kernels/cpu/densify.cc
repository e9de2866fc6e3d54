// DENSIFY: expands a constant sparse tensor (TFLite SparsityParameters) to
// the dense tensor of the input's shape; unstored elements are zero.
//
// The format: an n-D tensor with a k-D block (block_map[j] = the original
// dimension that block dimension j splits) is viewed as n + k "expanded"
// dimensions: n block-grid dimensions (shape[d] / block size) followed by the
// k in-block dimensions. traversal_order lists the expanded dimensions from
// outermost to innermost storage level and dim_metadata describes each level
// in that order: DENSE (every index, dense_size of them) or SPARSE_CSR
// (positions array_segments[p] .. array_segments[p+1] of the parent position
// p, with their indices in array_indices). Positions at the last level index
// the stored values. Every index and segment is validated in Prepare, so a
// malformed tensor is an error, never an out-of-bounds access.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// One of the union's index vectors, read as int64.
struct IndexArray {
  const void* data = nullptr;
  tflite::SparseIndexVector type = tflite::SparseIndexVector::NONE;
  int64_t size = 0;

  int64_t operator[](int64_t i) const {
    switch (type) {
      case tflite::SparseIndexVector::Int32Vector: return static_cast<const int32_t*>(data)[i];
      case tflite::SparseIndexVector::Uint16Vector: return static_cast<const uint16_t*>(data)[i];
      default: return static_cast<const uint8_t*>(data)[i];
    }
  }
};

bool ReadIndexArray(tflite::SparseIndexVector type, const void* table, IndexArray* out) {
  if (table == nullptr) return false;
  out->type = type;
  switch (type) {
    case tflite::SparseIndexVector::Int32Vector: {
      const auto* v = static_cast<const tflite::Int32Vector*>(table)->values();
      out->data = v != nullptr ? v->data() : nullptr;
      out->size = v != nullptr ? v->size() : 0;
      return true;
    }
    case tflite::SparseIndexVector::Uint16Vector: {
      const auto* v = static_cast<const tflite::Uint16Vector*>(table)->values();
      out->data = v != nullptr ? v->data() : nullptr;
      out->size = v != nullptr ? v->size() : 0;
      return true;
    }
    case tflite::SparseIndexVector::Uint8Vector: {
      const auto* v = static_cast<const tflite::Uint8Vector*>(table)->values();
      out->data = v != nullptr ? v->data() : nullptr;
      out->size = v != nullptr ? v->size() : 0;
      return true;
    }
    default: return false;
  }
}

struct Level {
  bool sparse = false;
  int64_t dense_size = 0;  // DENSE levels
  IndexArray segments;     // SPARSE_CSR levels
  IndexArray indices;
  int64_t out_stride = 0;  // output elements per step of this level's index
};

class DensifyKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(0), "output"));
    if (input.sparsity == nullptr) return ctx.Error("input has no sparsity parameters");
    if (!input.is_constant()) return ctx.Unsupported("input must be a constant tensor");
    RELITE_RETURN_IF_ERROR(ParseFormat(ctx, input));
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    const size_t esize = DataTypeSize(input.type);
    const int64_t total = output.num_elements();
    if (total == 0) return Status::Ok();
    std::memset(output.data, 0, static_cast<size_t>(total) * esize);
    Expand(0, 0, 0, static_cast<const uint8_t*>(input.data), static_cast<uint8_t*>(output.data), esize);
    return Status::Ok();
  }

 private:
  Status ParseFormat(const KernelContext& ctx, const Tensor& input) {
    const auto* sp = static_cast<const tflite::SparsityParameters*>(input.sparsity);
    const int rank = input.rank();
    const auto* order = sp->traversal_order();
    const auto* block_map = sp->block_map();
    const auto* metadata = sp->dim_metadata();
    if (order == nullptr || metadata == nullptr) return ctx.Error("sparsity lacks traversal_order or dim_metadata");
    const int k = block_map != nullptr ? static_cast<int>(block_map->size()) : 0;
    const int n = rank + k;
    if (static_cast<int>(order->size()) != n || static_cast<int>(metadata->size()) != n) {
      return ctx.Error("sparsity has " + std::to_string(order->size()) + " traversal_order and " +
                       std::to_string(metadata->size()) + " dim_metadata entries, expected rank + block dims = " +
                       std::to_string(n));
    }
    if (n > 2 * kMaxCopyRank) return ctx.Unsupported("more than 16 sparse storage levels");

    // position[e]: the storage level of expanded dimension e.
    std::vector<int> position(static_cast<size_t>(n), -1);
    for (int i = 0; i < n; ++i) {
      const int e = order->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (e < 0 || e >= n || position[static_cast<size_t>(e)] >= 0) {
        return ctx.Error("traversal_order is not a permutation of [0, " + std::to_string(n) + ")");
      }
      position[static_cast<size_t>(e)] = i;
    }
    // Block size of each original dimension (1 when not blocked), and the
    // output stride of each expanded dimension.
    std::vector<int64_t> block(static_cast<size_t>(rank), 1);
    std::vector<int64_t> expanded_size(static_cast<size_t>(n));
    std::vector<int64_t> expanded_stride(static_cast<size_t>(n));
    const std::vector<int64_t> out_strides = RowMajorStrides(input.shape);
    for (int j = 0; j < k; ++j) {
      const int d = block_map->Get(static_cast<flatbuffers::uoffset_t>(j));
      if (d < 0 || d >= rank || block[static_cast<size_t>(d)] != 1) {
        return ctx.Error("block_map entry " + std::to_string(j) + " (" + std::to_string(d) +
                         ") is not a distinct dimension of the rank-" + std::to_string(rank) + " tensor");
      }
      const auto* m = metadata->Get(static_cast<flatbuffers::uoffset_t>(position[static_cast<size_t>(rank + j)]));
      if (m == nullptr || m->format() != tflite::DimensionType::DENSE || m->dense_size() < 1) {
        return ctx.Error("block dimension " + std::to_string(j) + " must be DENSE with dense_size >= 1");
      }
      if (input.dim(d) % m->dense_size() != 0) {
        return ctx.Error("dimension " + std::to_string(d) + " of size " + std::to_string(input.dim(d)) +
                         " is not a multiple of its block size " + std::to_string(m->dense_size()));
      }
      block[static_cast<size_t>(d)] = m->dense_size();
      expanded_size[static_cast<size_t>(rank + j)] = m->dense_size();
      expanded_stride[static_cast<size_t>(rank + j)] = out_strides[static_cast<size_t>(d)];
    }
    for (int d = 0; d < rank; ++d) {
      const size_t s = static_cast<size_t>(d);
      expanded_size[s] = input.dim(d) / block[s];
      expanded_stride[s] = out_strides[s] * block[s];
    }

    // Levels in storage order, checked by walking every position once.
    levels_.assign(static_cast<size_t>(n), Level{});
    int64_t count = 1;  // positions at the current level
    for (int i = 0; i < n; ++i) {
      const int e = order->Get(static_cast<flatbuffers::uoffset_t>(i));
      const auto* m = metadata->Get(static_cast<flatbuffers::uoffset_t>(i));
      Level& level = levels_[static_cast<size_t>(i)];
      const int64_t size = expanded_size[static_cast<size_t>(e)];
      level.out_stride = expanded_stride[static_cast<size_t>(e)];
      const std::string where = "dim_metadata[" + std::to_string(i) + "]";
      if (m == nullptr) return ctx.Error(where + " is missing");
      if (m->format() == tflite::DimensionType::DENSE) {
        if (m->dense_size() != size) {
          return ctx.Error(where + " dense_size " + std::to_string(m->dense_size()) + " does not match the dimension size " +
                           std::to_string(size));
        }
        level.dense_size = size;
        count *= size;
        continue;
      }
      if (m->format() != tflite::DimensionType::SPARSE_CSR) return ctx.Error(where + " has an unknown format");
      level.sparse = true;
      if (!ReadIndexArray(m->array_segments_type(), m->array_segments(), &level.segments) ||
          !ReadIndexArray(m->array_indices_type(), m->array_indices(), &level.indices)) {
        return ctx.Error(where + " is SPARSE_CSR but lacks array_segments or array_indices");
      }
      if (level.segments.size < count + 1) {
        return ctx.Error(where + " array_segments has " + std::to_string(level.segments.size) + " entries, needs " +
                         std::to_string(count + 1));
      }
      for (int64_t p = 0; p < count; ++p) {
        if (level.segments[p] < 0 || level.segments[p] > level.segments[p + 1]) {
          return ctx.Error(where + " array_segments is not non-decreasing from 0 at entry " + std::to_string(p));
        }
      }
      const int64_t next = level.segments[count];
      if (next > level.indices.size) {
        return ctx.Error(where + " array_segments ends at " + std::to_string(next) + " but array_indices has " +
                         std::to_string(level.indices.size) + " entries");
      }
      for (int64_t q = level.segments[0]; q < next; ++q) {
        const int64_t idx = level.indices[q];
        if (idx < 0 || idx >= size) {
          return ctx.Error(where + " array_indices[" + std::to_string(q) + "] = " + std::to_string(idx) +
                           " is outside the dimension size " + std::to_string(size));
        }
      }
      count = next;
    }
    const int64_t stored = static_cast<int64_t>(input.bytes / DataTypeSize(input.type));
    if (count > stored) {
      return ctx.Error("the sparse structure addresses " + std::to_string(count) + " values but the tensor stores " +
                       std::to_string(stored));
    }
    return Status::Ok();
  }

  // Visits the children of position `pos` at storage level `i`; `offset` is
  // the output element offset accumulated by the outer levels.
  void Expand(size_t i, int64_t pos, int64_t offset, const uint8_t* values, uint8_t* out, size_t esize) const {
    if (i == levels_.size()) {
      std::memcpy(out + offset * static_cast<int64_t>(esize), values + pos * static_cast<int64_t>(esize), esize);
      return;
    }
    const Level& level = levels_[i];
    if (!level.sparse) {
      for (int64_t c = 0; c < level.dense_size; ++c) {
        Expand(i + 1, pos * level.dense_size + c, offset + c * level.out_stride, values, out, esize);
      }
      return;
    }
    const int64_t end = level.segments[pos + 1];
    for (int64_t q = level.segments[pos]; q < end; ++q) {
      Expand(i + 1, q, offset + level.indices[q] * level.out_stride, values, out, esize);
    }
  }

  std::vector<Level> levels_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateDensify(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<DensifyKernel>());
}

}  // namespace relite::cpu
