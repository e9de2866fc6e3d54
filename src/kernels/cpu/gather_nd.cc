// GATHER_ND: each length-K row of `indices` (int16/int32/int64, the last
// dimension) addresses a slice params[i0, ..., iK-1, ...]. Output shape:
// indices.shape[:-1] + params.shape[K:]. An out-of-range index makes Eval
// fail before anything is written.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class GatherNdKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, params, "params"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, params, "params", ctx.output(0), "output"));
    if (indices.type != DataType::kInt32 && indices.type != DataType::kInt64 && indices.type != DataType::kInt16) {
      return ctx.Error("indices must be int16, int32 or int64, got " + DataTypeName(indices.type));
    }
    if (indices.rank() < 1) return ctx.Error("indices must have rank >= 1");
    const int k = indices.dim(indices.rank() - 1);
    if (k > params.rank()) {
      return ctx.Error("index depth " + std::to_string(k) + " exceeds params rank " + std::to_string(params.rank()));
    }
    Shape out_shape(indices.shape.begin(), indices.shape.end() - 1);
    out_shape.insert(out_shape.end(), params.shape.begin() + k, params.shape.end());

    depth_ = k;
    num_slices_ = DimProduct(indices.shape, 0, indices.rank() - 1);
    slice_bytes_ = DimProduct(params.shape, k, params.rank()) * static_cast<int64_t>(DataTypeSize(params.type));
    dims_.assign(params.shape.begin(), params.shape.begin() + k);
    slice_strides_.assign(static_cast<size_t>(k), 0);
    int64_t stride = 1;  // in slices
    for (int d = k - 1; d >= 0; --d) {
      slice_strides_[static_cast<size_t>(d)] = stride;
      stride *= params.dim(d);
    }
    ctx.RequestScratch(static_cast<size_t>(num_slices_) * sizeof(int64_t));
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
    if (num_slices_ == 0) return Status::Ok();
    const Index* indices = ctx.input(1).data_as<Index>();
    auto* offsets = static_cast<int64_t*>(ctx.scratch());
    // Resolve and check every index before writing anything.
    for (int64_t i = 0; i < num_slices_; ++i) {
      int64_t offset = 0;
      for (int d = 0; d < depth_; ++d) {
        const int64_t v = static_cast<int64_t>(indices[i * depth_ + d]);
        if (v < 0 || v >= dims_[static_cast<size_t>(d)]) {
          return ctx.Error("index " + std::to_string(v) + " of dimension " + std::to_string(d) + " (index row " +
                           std::to_string(i) + ") is out of range [0, " +
                           std::to_string(dims_[static_cast<size_t>(d)]) + ")");
        }
        offset += v * slice_strides_[static_cast<size_t>(d)];
      }
      offsets[i] = offset;
    }
    if (slice_bytes_ == 0) return Status::Ok();
    const auto* params = static_cast<const uint8_t*>(ctx.input(0).data);
    auto* out = static_cast<uint8_t*>(ctx.output(0).data);
    const int64_t n = slice_bytes_;
    ParallelRows(ctx, num_slices_, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) std::memcpy(out + i * n, params + offsets[i] * n, static_cast<size_t>(n));
    });
    return Status::Ok();
  }

  int depth_ = 0;
  int64_t num_slices_ = 0;
  int64_t slice_bytes_ = 0;
  std::vector<int64_t> dims_;
  std::vector<int64_t> slice_strides_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateGatherNd(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<GatherNdKernel>());
}

}  // namespace relite::cpu
