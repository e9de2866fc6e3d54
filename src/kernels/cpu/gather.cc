// GATHER: picks slices of `params` along `axis` at the positions given by
// `indices` (int16/int32/int64, runtime data allowed). With batch_dims = b
// the first b dimensions of params and indices are matched batch dimensions.
// Output shape: params[:axis] + indices[b:] + params[axis+1:]. An index
// outside [0, params.shape[axis]) makes Eval fail; nothing is written then.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

template <typename Index>
int64_t FirstBadIndex(const Index* indices, int64_t count, int64_t limit) {
  for (int64_t i = 0; i < count; ++i) {
    const int64_t v = static_cast<int64_t>(indices[i]);
    if (v < 0 || v >= limit) return i;
  }
  return -1;
}

// Copies rows of `kBytes` bytes (0: row_bytes, known at run time only).
template <size_t kBytes, typename Index>
void GatherRows(const uint8_t* params, const Index* indices, uint8_t* out, int64_t begin, int64_t end,
                int64_t outer, int64_t num_indices, int64_t axis_size, int64_t row_bytes) {
  // Row r of the output is (batch, outer index, position in indices).
  int64_t k = begin % num_indices;
  int64_t bo = begin / num_indices;  // batch * outer + outer index
  int64_t o = bo % outer;
  const Index* batch_indices = indices + (bo / outer) * num_indices;
  uint8_t* d = out + begin * row_bytes;
  for (int64_t r = begin; r < end; ++r, d += row_bytes) {
    const int64_t idx = static_cast<int64_t>(batch_indices[k]);
    const uint8_t* s = params + (bo * axis_size + idx) * row_bytes;
    if constexpr (kBytes != 0) {
      std::memcpy(d, s, kBytes);
    } else {
      std::memcpy(d, s, static_cast<size_t>(row_bytes));
    }
    if (++k == num_indices) {
      k = 0;
      ++bo;
      if (++o == outer) {
        o = 0;
        batch_indices += num_indices;
      }
    }
  }
}

class GatherKernel final : public Kernel {
 public:
  GatherKernel(int32_t axis, int32_t batch_dims) : axis_(axis), batch_dims_(batch_dims) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, params, "params"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, params, "params", ctx.output(0), "output"));
    if (indices.type != DataType::kInt32 && indices.type != DataType::kInt64 && indices.type != DataType::kInt16) {
      return ctx.Error("indices must be int16, int32 or int64, got " + DataTypeName(indices.type));
    }
    const int rank = params.rank();
    const int indices_rank = indices.rank();
    RELITE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, axis_, rank, "axis"));
    int batch_dims = batch_dims_;
    if (batch_dims < 0) batch_dims += indices_rank;
    if (batch_dims < 0 || batch_dims > indices_rank) {
      return ctx.Error("batch_dims " + std::to_string(batch_dims_) + " is out of range for indices of rank " +
                       std::to_string(indices_rank));
    }
    if (batch_dims > axis) {
      return ctx.Error("batch_dims " + std::to_string(batch_dims) + " must not exceed axis " + std::to_string(axis));
    }
    for (int d = 0; d < batch_dims; ++d) {
      if (params.dim(d) != indices.dim(d)) {
        return ctx.Error("batch dimension " + std::to_string(d) + " differs: params " + ShapeToString(params.shape) +
                         ", indices " + ShapeToString(indices.shape));
      }
    }
    Shape out_shape(params.shape.begin(), params.shape.begin() + axis);
    out_shape.insert(out_shape.end(), indices.shape.begin() + batch_dims, indices.shape.end());
    out_shape.insert(out_shape.end(), params.shape.begin() + axis + 1, params.shape.end());

    batches_ = DimProduct(params.shape, 0, batch_dims);
    outer_ = DimProduct(params.shape, batch_dims, axis);
    axis_size_ = params.dim(axis);
    num_indices_ = DimProduct(indices.shape, batch_dims, indices_rank);
    row_bytes_ = DimProduct(params.shape, axis + 1, rank) * static_cast<int64_t>(DataTypeSize(params.type));
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    switch (ctx.input(1).type) {
      case DataType::kInt16: return Run<int16_t>(ctx);
      case DataType::kInt32: return Run<int32_t>(ctx);
      default: return Run<int64_t>(ctx);
    }
  }

 private:
  template <typename Index>
  Status Run(KernelContext& ctx) {
    const Index* indices = ctx.input(1).data_as<Index>();
    const int64_t total_indices = batches_ * num_indices_;
    const int64_t bad = FirstBadIndex(indices, total_indices, axis_size_);
    if (bad >= 0) {
      return ctx.Error("index " + std::to_string(static_cast<int64_t>(indices[bad])) + " at position " +
                       std::to_string(bad) + " is out of range [0, " + std::to_string(axis_size_) + ")");
    }
    const int64_t rows = batches_ * outer_ * num_indices_;
    if (rows == 0 || row_bytes_ == 0) return Status::Ok();
    const auto* params = static_cast<const uint8_t*>(ctx.input(0).data);
    auto* out = static_cast<uint8_t*>(ctx.output(0).data);
    ParallelRows(ctx, rows, row_bytes_, [&](int64_t begin, int64_t end) {
      switch (row_bytes_) {
        case 1: GatherRows<1>(params, indices, out, begin, end, outer_, num_indices_, axis_size_, 1); break;
        case 2: GatherRows<2>(params, indices, out, begin, end, outer_, num_indices_, axis_size_, 2); break;
        case 4: GatherRows<4>(params, indices, out, begin, end, outer_, num_indices_, axis_size_, 4); break;
        case 8: GatherRows<8>(params, indices, out, begin, end, outer_, num_indices_, axis_size_, 8); break;
        default: GatherRows<0>(params, indices, out, begin, end, outer_, num_indices_, axis_size_, row_bytes_);
      }
    });
    return Status::Ok();
  }

  int32_t axis_;
  int32_t batch_dims_;
  int64_t batches_ = 0;
  int64_t outer_ = 0;
  int64_t axis_size_ = 0;
  int64_t num_indices_ = 0;
  int64_t row_bytes_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateGather(const Node& node) {
  int32_t axis = 0;
  int32_t batch_dims = 0;
  if (const auto* o = GetOptions<tflite::GatherOptions>(node)) {
    axis = o->axis();
    batch_dims = o->batch_dims();
  }
  return std::unique_ptr<Kernel>(std::make_unique<GatherKernel>(axis, batch_dims));
}

}  // namespace relite::cpu
