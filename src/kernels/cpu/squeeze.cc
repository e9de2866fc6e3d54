// SQUEEZE: removes size-1 dimensions: those listed in squeeze_dims (negative
// counts from the end; each must have size 1), or all of them when the list
// is empty. The output is a copy of the input bytes.
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class SqueezeKernel final : public Kernel {
 public:
  explicit SqueezeKernel(std::vector<int32_t> squeeze_dims) : squeeze_dims_(std::move(squeeze_dims)) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(0), "output"));
    const int rank = input.rank();
    std::vector<bool> drop(static_cast<size_t>(rank), false);
    if (squeeze_dims_.empty()) {
      for (int d = 0; d < rank; ++d) drop[static_cast<size_t>(d)] = input.dim(d) == 1;
    } else {
      for (const int32_t raw : squeeze_dims_) {
        RELITE_ASSIGN_OR_RETURN(const int d, NormalizeAxis(ctx, raw, rank, "squeeze_dims entry"));
        if (input.dim(d) != 1) {
          return ctx.Error("cannot squeeze dimension " + std::to_string(d) + " of size " +
                           std::to_string(input.dim(d)) + " (input shape " + ShapeToString(input.shape) + ")");
        }
        drop[static_cast<size_t>(d)] = true;
      }
    }
    Shape out_shape;
    for (int d = 0; d < rank; ++d) {
      if (!drop[static_cast<size_t>(d)]) out_shape.push_back(input.dim(d));
    }
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const size_t bytes = static_cast<size_t>(input.num_elements()) * DataTypeSize(input.type);
    ParallelMemcpy(ctx, ctx.output(0).data, input.data, bytes);
    return Status::Ok();
  }

 private:
  std::vector<int32_t> squeeze_dims_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSqueeze(const Node& node) {
  std::vector<int32_t> dims;
  if (const auto* o = GetOptions<tflite::SqueezeOptions>(node); o != nullptr && o->squeeze_dims() != nullptr) {
    dims.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
  }
  return std::unique_ptr<Kernel>(std::make_unique<SqueezeKernel>(std::move(dims)));
}

}  // namespace relite::cpu
