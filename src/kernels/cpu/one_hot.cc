// ONE_HOT: indices (int32 or int64, any shape), depth (int32 scalar,
// constant, >= 0), on_value and off_value (scalars of the output's dtype).
// The output has a new dimension of size depth at `axis` (OneHotOptions;
// -1 appends it; the schema default is 0): element (..., j, ...) is on_value where
// indices[...] == j, else off_value (an index outside [0, depth) gives a
// row of off_value). As in TFLite, axis must be -1 or in [0, rank]. Values
// are copied as bytes, so any fixed-size dtype works.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class OneHotKernel final : public Kernel {
 public:
  explicit OneHotKernel(int32_t axis) : axis_(axis) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 4, 4, 1));
    const Tensor& indices = ctx.input(0);
    const Tensor& on = ctx.input(2);
    const Tensor& off = ctx.input(3);
    const Tensor& output = ctx.output(0);
    if (indices.type != DataType::kInt32 && indices.type != DataType::kInt64) {
      return ctx.Error("indices must be int32 or int64, got " + DataTypeName(indices.type));
    }
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, on, "on_value"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, on, "on_value", off, "off_value"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, on, "on_value", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, on, "on_value", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, off, "off_value", output, "output"));
    if (DataTypeSize(on.type) > 8) return ctx.Unsupported("element size " + std::to_string(DataTypeSize(on.type)));
    if (on.num_elements() != 1 || on.rank() > 1) return ctx.Error("on_value must be a scalar");
    if (off.num_elements() != 1 || off.rank() > 1) return ctx.Error("off_value must be a scalar");
    const Tensor& depth_t = ctx.input(1);
    if (depth_t.type != DataType::kInt32) return ctx.Error("depth must be int32, got " + DataTypeName(depth_t.type));
    std::vector<int64_t> depth;
    RELITE_RETURN_IF_ERROR(ReadShapeInput(ctx, 1, "depth", &depth));
    if (depth.size() != 1 || depth_t.rank() > 1) return ctx.Error("depth must be a scalar");
    if (depth[0] < 0) return ctx.Error("depth is negative (" + std::to_string(depth[0]) + ")");
    const int rank = indices.rank();
    const int axis = axis_ == -1 ? rank : axis_;
    if (axis < 0 || axis > rank) {
      return ctx.Error("axis " + std::to_string(axis_) + " is out of range for indices of rank " +
                       std::to_string(rank) + " (valid: -1 or [0, " + std::to_string(rank) + "])");
    }
    Shape out_shape = indices.shape;
    out_shape.insert(out_shape.begin() + axis, static_cast<int32_t>(depth[0]));
    depth_ = depth[0];
    outer_ = DimProduct(indices.shape, 0, axis);
    inner_ = DimProduct(indices.shape, axis, rank);
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    Tensor& output = ctx.output(0);
    if (output.num_elements() == 0) return Status::Ok();
    if (ctx.input(0).type == DataType::kInt32) {
      Run(ctx, ctx.input(0).data_as<int32_t>());
    } else {
      Run(ctx, ctx.input(0).data_as<int64_t>());
    }
    return Status::Ok();
  }

 private:
  template <typename Index>
  void Run(KernelContext& ctx, const Index* indices) {
    Tensor& output = ctx.output(0);
    const size_t esize = DataTypeSize(output.type);
    uint8_t on[8];
    uint8_t off[8];
    std::memcpy(on, ctx.input(2).data, esize);
    std::memcpy(off, ctx.input(3).data, esize);
    auto* dst = static_cast<uint8_t*>(output.data);
    // Output row (o, j) holds inner_ elements: off everywhere, then on where
    // indices[o, s] == j.
    const int64_t row_bytes = inner_ * static_cast<int64_t>(esize);
    ParallelRows(ctx, outer_ * depth_, row_bytes, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t o = r / depth_;
        const int64_t j = r % depth_;
        uint8_t* out = dst + r * row_bytes;
        const Index* idx = indices + o * inner_;
        FillElements(out, inner_, off, esize);
        for (int64_t s = 0; s < inner_; ++s) {
          if (static_cast<int64_t>(idx[s]) == j) std::memcpy(out + s * static_cast<int64_t>(esize), on, esize);
        }
      }
    });
  }

  int32_t axis_;
  int64_t depth_ = 0;
  int64_t outer_ = 0;
  int64_t inner_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateOneHot(const Node& node) {
  int32_t axis = 0;  // schema default (TFLite reads absent options as 0 too)
  if (const auto* o = GetOptions<tflite::OneHotOptions>(node)) axis = o->axis();
  return std::unique_ptr<Kernel>(std::make_unique<OneHotKernel>(axis));
}

}  // namespace relite::cpu
