// CUMSUM along one axis (an int32 scalar input, read at Eval: the output shape
// does not depend on it): running sums in the element type, in order, as
// TFLite adds them; `exclusive` shifts by one (the first sum is 0), `reverse`
// runs from the end. float32, int32 (wrapping), int64 (wrapping).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class CumsumKernel final : public Kernel {
 public:
  CumsumKernel(bool exclusive, bool reverse) : exclusive_(exclusive), reverse_(reverse) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 1));
    const Tensor& in = ctx.input(0);
    const Tensor& axis = ctx.input(1);
    if (in.type != DataType::kFloat32 && in.type != DataType::kInt32 && in.type != DataType::kInt64) {
      return ctx.Error("input type " + DataTypeName(in.type) + " is not supported (float32, int32, int64)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, in.type));
    if (axis.type != DataType::kInt32) return ctx.Error("axis must be int32, got " + DataTypeName(axis.type));
    if (axis.num_elements() != 1) return ctx.Error("axis must hold one value, got shape " + ShapeToString(axis.shape));
    if (in.rank() < 1) return ctx.Error("input must have rank >= 1, got a scalar");
    if (axis.is_constant()) RELITE_RETURN_IF_ERROR(ResolveAxis(ctx).status());
    return ctx.ResizeOutput(0, in.shape);
  }

  Status Eval(KernelContext& ctx) override {
    auto axis = ResolveAxis(ctx);
    if (!axis.ok()) return axis.status();
    switch (ctx.input(0).type) {
      case DataType::kFloat32: Run<float>(ctx, *axis); break;
      case DataType::kInt32: Run<int32_t>(ctx, *axis); break;
      case DataType::kInt64: Run<int64_t>(ctx, *axis); break;
      default: return ctx.Error("unexpected input type " + DataTypeName(ctx.input(0).type));
    }
    return Status::Ok();
  }

 private:
  StatusOr<int> ResolveAxis(KernelContext& ctx) const {
    const Tensor& axis = ctx.input(1);
    if (axis.data == nullptr) return ctx.Error("axis tensor has no data");
    const int32_t a = axis.data_as<int32_t>()[0];
    const int rank = ctx.input(0).rank();
    if (a < -rank || a >= rank) {
      return ctx.Error("axis " + std::to_string(a) + " is out of range for input of rank " + std::to_string(rank));
    }
    return a < 0 ? a + rank : a;
  }

  template <typename T>
  static T Add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }

  template <typename T>
  void Run(KernelContext& ctx, int axis) const {
    const Tensor& in = ctx.input(0);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= in.dim(d);
    for (int d = axis + 1; d < in.rank(); ++d) inner *= in.dim(d);
    const int64_t extent = in.dim(axis);
    const T* x = in.data_as<T>();
    T* y = ctx.output(0).data_as<T>();
    if (outer * inner * extent == 0) return;
    // Each (outer, inner) column is one running sum; columns run in parallel.
    ctx.ParallelFor(outer * inner, std::max<int64_t>(1, 4096 / extent), [&](int64_t begin, int64_t end) {
      for (int64_t col = begin; col < end; ++col) {
        const int64_t o = col / inner, i = col - o * inner;
        const T* xc = x + o * extent * inner + i;
        T* yc = y + o * extent * inner + i;
        T sum = T(0);
        for (int64_t k = 0; k < extent; ++k) {
          const int64_t at = (reverse_ ? extent - 1 - k : k) * inner;
          if (exclusive_) {
            yc[at] = sum;
            sum = Add(sum, xc[at]);
          } else {
            sum = Add(sum, xc[at]);
            yc[at] = sum;
          }
        }
      }
    });
  }

  bool exclusive_, reverse_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateCumsum(const Node& node) {
  const auto* o = GetOptions<tflite::CumsumOptions>(node);
  return std::unique_ptr<Kernel>(std::make_unique<CumsumKernel>(o && o->exclusive(), o && o->reverse()));
}

}  // namespace relite::cpu
