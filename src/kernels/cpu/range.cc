// RANGE: [start, start + delta, ...) up to but excluding `limit`, for
// scalar int32, int64 or float32 start/limit/delta of one dtype (the
// output's). The element count depends on the values, so all three must be
// constant (such a node is normally folded at load time). As in TFLite,
// integer counts are ceil(|limit - start| / |delta|) in exact arithmetic,
// float counts ceil(|(limit - start) / delta|) in float, and element i is
// the running sum start + delta + ... (i times), not start + i * delta.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

template <typename T>
T Scalar(const Tensor& t) {
  T v;
  std::memcpy(&v, t.data, sizeof(T));
  return v;
}

class RangeKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 3, 1));
    const char* names[3] = {"start", "limit", "delta"};
    const DataType type = ctx.input(0).type;
    if (type != DataType::kInt32 && type != DataType::kInt64 && type != DataType::kFloat32) {
      return ctx.Error("start must be int32, int64 or float32, got " + DataTypeName(type));
    }
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx.input(i);
      RELITE_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), "start", t, names[i]));
      if (t.num_elements() != 1 || t.rank() > 1) {
        return ctx.Error(std::string(names[i]) + " must be a scalar, got shape " + ShapeToString(t.shape));
      }
      RELITE_RETURN_IF_ERROR(RequireConstantInput(ctx, i, names[i]));
      if (t.data == nullptr || t.bytes < DataTypeSize(type)) return ctx.Error(std::string(names[i]) + " has no data");
    }
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), "start", ctx.output(0), "output"));
    const StatusOr<int64_t> count = type == DataType::kInt32   ? IntCount<int32_t>(ctx)
                                    : type == DataType::kInt64 ? IntCount<int64_t>(ctx)
                                                               : FloatCount(ctx);
    if (!count.ok()) return count.status();
    RELITE_ASSIGN_OR_RETURN(const int32_t dim, ToDimension(ctx, count.value(), "the element count"));
    return ctx.ResizeOutput(0, Shape{dim});
  }

  Status Eval(KernelContext& ctx) override {
    switch (ctx.input(0).type) {
      case DataType::kInt32: Run<int32_t>(ctx); break;
      case DataType::kInt64: Run<int64_t>(ctx); break;
      default: Run<float>(ctx); break;
    }
    return Status::Ok();
  }

 private:
  static Status CheckDirection(const KernelContext& ctx, bool zero_delta, bool ascending, bool descending,
                               bool positive_delta) {
    if (zero_delta) return ctx.Error("delta must not be zero");
    if ((ascending && !positive_delta) || (descending && positive_delta)) {
      return ctx.Error(positive_delta ? "start must not exceed limit when delta is positive"
                                      : "start must not be below limit when delta is negative");
    }
    return Status::Ok();
  }

  template <typename T>
  static StatusOr<int64_t> IntCount(KernelContext& ctx) {
    const T start = Scalar<T>(ctx.input(0));
    const T limit = Scalar<T>(ctx.input(1));
    const T delta = Scalar<T>(ctx.input(2));
    RELITE_RETURN_IF_ERROR(CheckDirection(ctx, delta == 0, start < limit, start > limit, delta > 0));
    // |limit - start| and |delta| as unsigned 128-bit: no overflow for any int64.
    const __int128 span = static_cast<__int128>(limit) - static_cast<__int128>(start);
    const unsigned __int128 a = static_cast<unsigned __int128>(span < 0 ? -span : span);
    const unsigned __int128 d = static_cast<unsigned __int128>(delta < 0 ? -static_cast<__int128>(delta)
                                                                          : static_cast<__int128>(delta));
    const unsigned __int128 count = (a + d - 1) / d;
    if (count > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) {
      return ctx.Error("the range holds too many elements");
    }
    return static_cast<int64_t>(count);
  }

  static StatusOr<int64_t> FloatCount(KernelContext& ctx) {
    const float start = Scalar<float>(ctx.input(0));
    const float limit = Scalar<float>(ctx.input(1));
    const float delta = Scalar<float>(ctx.input(2));
    if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
      return ctx.Error("start, limit and delta must be finite");
    }
    RELITE_RETURN_IF_ERROR(CheckDirection(ctx, delta == 0.f, start < limit, start > limit, delta > 0.f));
    const float count = std::ceil(std::fabs((limit - start) / delta));
    if (!(count <= 2147483647.f)) return ctx.Error("the range holds too many elements");
    return static_cast<int64_t>(count);
  }

  template <typename T>
  static void Run(KernelContext& ctx) {
    Tensor& output = ctx.output(0);
    const int64_t n = output.num_elements();
    const T delta = Scalar<T>(ctx.input(2));
    T value = Scalar<T>(ctx.input(0));
    T* out = output.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      out[i] = value;
      value = WrapAdd(value, delta);
    }
  }

  // The running sum past the last element may leave T's range: wrap it
  // instead of invoking undefined behaviour (the value is never stored).
  template <typename T>
  static T WrapAdd(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return a + b;
    }
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateRange(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<RangeKernel>());
}

}  // namespace relite::cpu
