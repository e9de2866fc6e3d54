// RESHAPE: same elements, new shape. The new shape comes from the constant
// 1-D shape input when present, else from ReshapeOptions.new_shape; one
// dimension may be -1 (inferred). The output is a copy of the input bytes.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class ReshapeKernel final : public Kernel {
 public:
  ReshapeKernel(bool has_option_shape, std::vector<int64_t> option_shape)
      : has_option_shape_(has_option_shape), option_shape_(std::move(option_shape)) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 2, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", output, "output"));

    std::vector<int64_t> requested;
    if (ctx.has_input(1) && ctx.input(1).rank() == 1) {
      RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "shape", &requested));
    } else if (has_option_shape_) {
      requested = option_shape_;
      // Old converters wrote [0] for a scalar result.
      if (requested.size() == 1 && requested[0] == 0 && input.num_elements() == 1) requested.clear();
    } else if (ctx.has_input(1)) {
      return ctx.Error("shape input must be 1-D, got shape " + ShapeToString(ctx.input(1).shape));
    } else {
      return ctx.Error("no target shape: neither a shape input nor ReshapeOptions.new_shape");
    }

    Shape shape;
    RELITE_RETURN_IF_ERROR(ResolveShape(ctx, requested, input.num_elements(), &shape));
    return ctx.ResizeOutput(0, std::move(shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    const size_t bytes = static_cast<size_t>(input.num_elements()) * DataTypeSize(input.type);
    ParallelMemcpy(ctx, output.data, input.data, bytes);
    return Status::Ok();
  }

 private:
  static Status ResolveShape(const KernelContext& ctx, const std::vector<int64_t>& requested, int64_t num_elements,
                             Shape* shape) {
    int inferred = -1;
    int64_t known = 1;
    for (size_t i = 0; i < requested.size(); ++i) {
      const int64_t d = requested[i];
      if (d == -1) {
        if (inferred >= 0) return ctx.Error("new shape has more than one -1 dimension");
        inferred = static_cast<int>(i);
      } else if (d < 0 || d > std::numeric_limits<int32_t>::max()) {
        return ctx.Error("new shape dimension " + std::to_string(i) + " is " + std::to_string(d));
      } else {
        if (__builtin_mul_overflow(known, d, &known)) return ctx.Error("new shape has too many elements");
      }
    }
    shape->assign(requested.size(), 0);
    for (size_t i = 0; i < requested.size(); ++i) (*shape)[i] = static_cast<int32_t>(requested[i]);
    if (inferred >= 0) {
      if (known == 0 || num_elements % known != 0) {
        return ctx.Error("cannot infer the -1 dimension: " + std::to_string(num_elements) +
                         " input elements do not divide by " + std::to_string(known));
      }
      const int64_t d = num_elements / known;
      if (d > std::numeric_limits<int32_t>::max()) return ctx.Error("inferred dimension is too large");
      (*shape)[static_cast<size_t>(inferred)] = static_cast<int32_t>(d);
      known *= d;
    }
    if (known != num_elements) {
      return ctx.Error("new shape " + ShapeToString(*shape) + " has " + std::to_string(known) +
                       " elements but the input has " + std::to_string(num_elements));
    }
    return Status::Ok();
  }

  bool has_option_shape_;
  std::vector<int64_t> option_shape_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateReshape(const Node& node) {
  bool has_option_shape = false;
  std::vector<int64_t> option_shape;
  if (const auto* o = GetOptions<tflite::ReshapeOptions>(node); o != nullptr && o->new_shape() != nullptr) {
    has_option_shape = true;
    option_shape.assign(o->new_shape()->begin(), o->new_shape()->end());
  }
  return std::unique_ptr<Kernel>(std::make_unique<ReshapeKernel>(has_option_shape, std::move(option_shape)));
}

}  // namespace relite::cpu
