// SCATTER_ND: a zero tensor of shape `shape` (constant, the dtype of
// `indices`: int32 or int64) into which the slices of `updates` are added at
// the positions of `indices` ([..., ix], ix <= rank of the output; updates
// [indices.dims[:-1], shape[ix:]]). Repeated positions accumulate (TFLite
// adds them), with wrap-around for integers and logical OR for bool. An
// index outside the output makes Eval fail before anything is written.
// Updates: float32, int32, int64, bool, int8, uint8 (stored integers; the
// zero fill is the stored 0, as in TFLite).
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// kOr: bool tensors (bytes), where a sum is true when either operand is.
template <typename T, bool kOr>
inline T AccumulateAdd(T a, T b) {
  if constexpr (kOr) {
    return static_cast<T>((a | b) != 0);
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

class ScatterNdKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 3, 1));
    const Tensor& indices = ctx.input(0);
    const Tensor& updates = ctx.input(1);
    const Tensor& output = ctx.output(0);
    if (indices.type != DataType::kInt32 && indices.type != DataType::kInt64) {
      return ctx.Error("indices must be int32 or int64, got " + DataTypeName(indices.type));
    }
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, indices, "indices", ctx.input(2), "shape"));
    switch (updates.type) {
      case DataType::kFloat32: case DataType::kInt32: case DataType::kInt64:
      case DataType::kBool: case DataType::kInt8: case DataType::kUInt8: break;
      default: return ctx.Error("updates must be float32, int32, int64, bool, int8 or uint8, got " + DataTypeName(updates.type));
    }
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, updates, "updates", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, updates, "updates", output, "output"));
    std::vector<int64_t> shape;
    RELITE_RETURN_IF_ERROR(ReadShapeInput(ctx, 2, "shape", &shape));
    if (ctx.input(2).rank() != 1) return ctx.Error("shape must be 1-D, got shape " + ShapeToString(ctx.input(2).shape));
    Shape out_shape(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      RELITE_ASSIGN_OR_RETURN(out_shape[d], ToDimension(ctx, shape[d], "shape[" + std::to_string(d) + "]"));
    }
    if (indices.rank() < 1) return ctx.Error("indices must have rank >= 1");
    const int ix = indices.dim(indices.rank() - 1);
    const int out_rank = static_cast<int>(out_shape.size());
    if (ix > out_rank) {
      return ctx.Error("indices address " + std::to_string(ix) + " dimensions, more than the output's " +
                       std::to_string(out_rank));
    }
    // updates must be indices.shape[:-1] + shape[ix:].
    Shape expected(indices.shape.begin(), indices.shape.end() - 1);
    expected.insert(expected.end(), out_shape.begin() + ix, out_shape.end());
    if (updates.shape != expected) {
      return ctx.Error("updates have shape " + ShapeToString(updates.shape) + ", expected " + ShapeToString(expected));
    }
    ix_ = ix;
    slice_elems_ = DimProduct(out_shape, ix, out_rank);
    num_slices_ = DimProduct(indices.shape, 0, indices.rank() - 1);
    out_dims_ = out_shape;
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    switch (ctx.output(0).type) {
      case DataType::kFloat32: return Dispatch<float, false>(ctx);
      case DataType::kInt32: return Dispatch<int32_t, false>(ctx);
      case DataType::kInt64: return Dispatch<int64_t, false>(ctx);
      case DataType::kBool: return Dispatch<uint8_t, true>(ctx);
      case DataType::kInt8: return Dispatch<int8_t, false>(ctx);
      default: return Dispatch<uint8_t, false>(ctx);
    }
  }

 private:
  template <typename T, bool kOr>
  Status Dispatch(KernelContext& ctx) {
    return ctx.input(0).type == DataType::kInt32 ? Run<T, kOr, int32_t>(ctx) : Run<T, kOr, int64_t>(ctx);
  }

  // Flat slice offset (in slices) of index tuple i, or -1 when out of range.
  template <typename I>
  int64_t SliceOffset(const I* tuple) const {
    int64_t offset = 0;
    for (int d = 0; d < ix_; ++d) {
      const int64_t v = static_cast<int64_t>(tuple[d]);
      const int64_t n = out_dims_[static_cast<size_t>(d)];
      if (v < 0 || v >= n) return -1;
      offset = offset * n + v;
    }
    return offset;
  }

  template <typename T, bool kOr, typename I>
  Status Run(KernelContext& ctx) {
    const I* indices = ctx.input(0).data_as<I>();
    for (int64_t i = 0; i < num_slices_; ++i) {
      if (SliceOffset(indices + i * ix_) < 0) {
        return ctx.Error("index tuple " + std::to_string(i) + " lies outside the output shape " +
                         ShapeToString(out_dims_));
      }
    }
    Tensor& output = ctx.output(0);
    T* out = output.data_as<T>();
    const int64_t total = output.num_elements();
    if (total == 0) return Status::Ok();
    std::memset(static_cast<void*>(out), 0, static_cast<size_t>(total) * sizeof(T));
    const T* updates = ctx.input(1).data_as<T>();
    for (int64_t i = 0; i < num_slices_; ++i) {
      T* o = out + SliceOffset(indices + i * ix_) * slice_elems_;
      const T* u = updates + i * slice_elems_;
      for (int64_t j = 0; j < slice_elems_; ++j) o[j] = AccumulateAdd<T, kOr>(o[j], u[j]);
    }
    return Status::Ok();
  }

  int ix_ = 0;
  int64_t slice_elems_ = 0;
  int64_t num_slices_ = 0;
  Shape out_dims_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateScatterNd(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<ScatterNdKernel>());
}

}  // namespace relite::cpu
