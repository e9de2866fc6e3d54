// SPLIT_V: cuts input 0 along the constant axis (input 2) into parts whose
// sizes are the constant size_splits (input 1); one size may be -1 (the rest).
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class SplitVKernel final : public Kernel {
 public:
  explicit SplitVKernel(int32_t num_splits) : num_splits_(num_splits) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 3, -1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    std::vector<int64_t> sizes;
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "size_splits", &sizes));
    if (ctx.input(1).rank() > 1) return ctx.Error("size_splits must be 1-D");
    std::vector<int64_t> axis_values;
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 2, "axis", &axis_values));
    if (axis_values.size() != 1) return ctx.Error("axis must hold exactly one value");
    const int rank = input.rank();
    RELITE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, axis_values[0], rank, "axis"));

    const int num_outputs = ctx.num_outputs();
    if (static_cast<int64_t>(sizes.size()) != num_outputs) {
      return ctx.Error("size_splits has " + std::to_string(sizes.size()) + " entries but the operator has " +
                       std::to_string(num_outputs) + " outputs");
    }
    if (num_splits_ != 0 && num_splits_ != num_outputs) {
      return ctx.Error("num_splits is " + std::to_string(num_splits_) + " but the operator has " +
                       std::to_string(num_outputs) + " outputs");
    }
    const int64_t dim = input.dim(axis);
    int inferred = -1;
    int64_t known = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == -1) {
        if (inferred >= 0) return ctx.Error("size_splits has more than one -1 entry");
        inferred = static_cast<int>(i);
      } else if (sizes[i] < 0 || sizes[i] > dim) {
        return ctx.Error("size_splits[" + std::to_string(i) + "] = " + std::to_string(sizes[i]) +
                         " is invalid for a dimension of size " + std::to_string(dim));
      } else {
        known += sizes[i];
      }
    }
    if (inferred >= 0) {
      if (known > dim) {
        return ctx.Error("size_splits sum to " + std::to_string(known) + ", more than dimension size " +
                         std::to_string(dim));
      }
      sizes[static_cast<size_t>(inferred)] = dim - known;
      known = dim;
    }
    if (known != dim) {
      return ctx.Error("size_splits sum to " + std::to_string(known) + " but dimension " + std::to_string(axis) +
                       " has size " + std::to_string(dim));
    }

    outer_ = DimProduct(input.shape, 0, axis);
    const int64_t inner_bytes = DimProduct(input.shape, axis + 1, rank) * static_cast<int64_t>(DataTypeSize(input.type));
    pieces_.assign(sizes.size(), RowPiece{});
    for (int i = 0; i < num_outputs; ++i) {
      const size_t k = static_cast<size_t>(i);
      pieces_[k].row_bytes = sizes[k] * inner_bytes;
      RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(i), "output " + std::to_string(i)));
      Shape out_shape = input.shape;
      out_shape[static_cast<size_t>(axis)] = static_cast<int32_t>(sizes[k]);
      RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(i, std::move(out_shape)));
    }
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    for (size_t i = 0; i < pieces_.size(); ++i) {
      pieces_[i].data = static_cast<uint8_t*>(ctx.output(static_cast<int>(i)).data);
    }
    SplitRows(ctx, static_cast<const uint8_t*>(ctx.input(0).data), outer_, pieces_.data(),
              static_cast<int>(pieces_.size()));
    return Status::Ok();
  }

 private:
  int32_t num_splits_;
  int64_t outer_ = 0;
  std::vector<RowPiece> pieces_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSplitV(const Node& node) {
  int32_t num_splits = 0;
  if (const auto* o = GetOptions<tflite::SplitVOptions>(node)) num_splits = o->num_splits();
  if (num_splits < 0) {
    return InvalidArgumentError(node.Describe() + ": num_splits must be >= 0, got " + std::to_string(num_splits));
  }
  return std::unique_ptr<Kernel>(std::make_unique<SplitVKernel>(num_splits));
}

}  // namespace relite::cpu
