// CONCATENATION: joins any number of same-rank inputs along `axis`
// (negative counts from the end). A fused clamp activation applies to
// float32 outputs; for integer dtypes the quantized range already limits the
// values and the activation is ignored, as in TFLite.
#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class ConcatenationKernel final : public Kernel {
 public:
  ConcatenationKernel(int32_t axis, Activation activation) : axis_(axis), activation_(activation) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, std::numeric_limits<int>::max(), 1));
    const Tensor& first = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, first, "input 0"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, first, "input 0", output, "output"));
    const int rank = first.rank();
    RELITE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, axis_, rank, "axis"));

    const bool quantized_8bit = first.type == DataType::kUInt8 || first.type == DataType::kInt8;
    Shape out_shape = first.shape;
    int64_t axis_total = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const std::string name = "input " + std::to_string(i);
      const Tensor& in = ctx.input(i);
      RELITE_RETURN_IF_ERROR(CheckSameType(ctx, first, "input 0", in, name));
      if (in.rank() != rank) {
        return ctx.Error(name + " has rank " + std::to_string(in.rank()) + " but input 0 has rank " +
                         std::to_string(rank));
      }
      for (int d = 0; d < rank; ++d) {
        if (d != axis && in.dim(d) != first.dim(d)) {
          return ctx.Error(name + " shape " + ShapeToString(in.shape) + " differs from input 0 shape " +
                           ShapeToString(first.shape) + " outside the concatenation axis " + std::to_string(axis));
        }
      }
      axis_total += in.dim(axis);
      if (quantized_8bit && !SameQuantization(in.quant, output.quant)) {
        return ctx.Unsupported(name + " quantization differs from the output's (requantizing concatenation)");
      }
    }
    if (axis_total > std::numeric_limits<int32_t>::max()) return ctx.Error("concatenated dimension is too large");
    if (first.type == DataType::kFloat32 && !IsClampActivation(activation_)) {
      return ctx.Unsupported(std::string("fused activation ") + ActivationName(activation_));
    }
    out_shape[static_cast<size_t>(axis)] = static_cast<int32_t>(axis_total);

    const size_t esize = DataTypeSize(first.type);
    outer_ = DimProduct(first.shape, 0, axis);
    pieces_.assign(static_cast<size_t>(ctx.num_inputs()), RowPiece{});
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      pieces_[static_cast<size_t>(i)].row_bytes = DimProduct(in.shape, axis, rank) * static_cast<int64_t>(esize);
    }
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    Tensor& output = ctx.output(0);
    for (size_t i = 0; i < pieces_.size(); ++i) {
      pieces_[i].data = static_cast<uint8_t*>(ctx.input(static_cast<int>(i)).data);
    }
    ConcatRows(ctx, pieces_.data(), static_cast<int>(pieces_.size()), outer_, static_cast<uint8_t*>(output.data));
    if (output.type == DataType::kFloat32 && activation_ != Activation::kNone) {
      const ActivationRange range = GetActivationRange(activation_);
      float* y = output.data_as<float>();
      const int64_t n = output.num_elements();
      ParallelRows(ctx, n, sizeof(float), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) y[i] = std::min(std::max(y[i], range.min), range.max);
      });
    }
    return Status::Ok();
  }

 private:
  int32_t axis_;
  Activation activation_;
  int64_t outer_ = 0;
  std::vector<RowPiece> pieces_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateConcatenation(const Node& node) {
  int32_t axis = 0;
  if (const auto* o = GetOptions<tflite::ConcatenationOptions>(node)) axis = o->axis();
  RELITE_ASSIGN_OR_RETURN(Activation activation, ParseFusedActivation(node));
  return std::unique_ptr<Kernel>(std::make_unique<ConcatenationKernel>(axis, activation));
}

}  // namespace relite::cpu
