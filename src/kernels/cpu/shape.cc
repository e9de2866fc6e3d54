// SHAPE: the input's dimensions as a 1-D tensor of ShapeOptions.out_type
// (int32, the schema default, or int64). Works for any input, constant or
// not: only the shape is read.
#include <memory>
#include <string>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class ShapeKernel final : public Kernel {
 public:
  explicit ShapeKernel(DataType out_type) : out_type_(out_type) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1, 1));
    const Tensor& output = ctx.output(0);
    if (output.type != out_type_) {
      return ctx.Error("output has dtype " + DataTypeName(output.type) + " but out_type is " + DataTypeName(out_type_));
    }
    return ctx.ResizeOutput(0, Shape{static_cast<int32_t>(ctx.input(0).rank())});
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    for (int d = 0; d < input.rank(); ++d) {
      if (out_type_ == DataType::kInt32) {
        output.data_as<int32_t>()[d] = input.dim(d);
      } else {
        output.data_as<int64_t>()[d] = input.dim(d);
      }
    }
    return Status::Ok();
  }

 private:
  DataType out_type_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateShape(const Node& node) {
  DataType out_type = DataType::kInt32;
  if (const auto* o = GetOptions<tflite::ShapeOptions>(node)) {
    // A model written without the field stores the default: FLOAT32 (0),
    // which TFLite reads as int32 as well.
    const auto t = static_cast<DataType>(o->out_type());
    if (t == DataType::kInt64) {
      out_type = DataType::kInt64;
    } else if (t != DataType::kInt32 && t != DataType::kFloat32) {
      return InvalidArgumentError(node.Describe() + ": out_type must be int32 or int64, got " + DataTypeName(t));
    }
  }
  return std::unique_ptr<Kernel>(std::make_unique<ShapeKernel>(out_type));
}

}  // namespace relite::cpu
