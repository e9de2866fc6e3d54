// CAST: converts each element to the output tensor's type. Supported types:
// float32, float64, float16 (raw IEEE half bits), int8/16/32/64,
// uint8/16/32 and bool. Float -> integer truncates toward zero like
// static_cast, but saturates out-of-range values and maps NaN to 0 (plain
// static_cast would be undefined there). Integer narrowing wraps. Anything
// -> bool is "!= 0"; bool -> anything is 0 or 1.
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/core/base/fp16.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// Element types by their storage: float16 and bool share storage types with
// uint16 and uint8, so they get tags of their own.
template <typename T>
struct Plain {
  using Storage = T;
};
struct Half {
  using Storage = uint16_t;
};
struct Boolean {
  using Storage = uint8_t;
};

template <typename To, typename From>
To SaturatingTruncate(From v) {
  if (v != v) return 0;
  // Both bounds are exact powers of two (or 0) in From.
  constexpr From kUpper = static_cast<From>(std::numeric_limits<To>::max() / 2 + 1) * From{2};
  constexpr From kLower = static_cast<From>(std::numeric_limits<To>::lowest());
  if (v >= kUpper) return std::numeric_limits<To>::max();
  if (v <= kLower) return std::numeric_limits<To>::lowest();
  return static_cast<To>(v);
}

template <typename ToTag, typename FromTag>
typename ToTag::Storage Convert(typename FromTag::Storage v) {
  if constexpr (std::is_same_v<FromTag, Half>) {
    return Convert<ToTag, Plain<float>>(HalfToFloat(v));
  } else if constexpr (std::is_same_v<FromTag, Boolean>) {
    return Convert<ToTag, Plain<uint8_t>>(static_cast<uint8_t>(v != 0));
  } else {
    using From = typename FromTag::Storage;
    if constexpr (std::is_same_v<ToTag, Boolean>) {
      return static_cast<uint8_t>(v != From{0});
    } else if constexpr (std::is_same_v<ToTag, Half>) {
      return FloatToHalf(static_cast<float>(v));
    } else {
      using To = typename ToTag::Storage;
      if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
        return SaturatingTruncate<To>(v);
      } else {
        return static_cast<To>(v);
      }
    }
  }
}

using CastFn = void (*)(KernelContext& ctx, const void* in, void* out, int64_t n);

template <typename FromTag, typename ToTag>
void CastElements(KernelContext& ctx, const void* in, void* out, int64_t n) {
  using From = typename FromTag::Storage;
  using To = typename ToTag::Storage;
  if constexpr (std::is_same_v<FromTag, Half> && std::is_same_v<ToTag, Plain<float>>) {
    // The common float16 -> float32 case has a vectorised array version.
    ParallelChunks(ctx, n, kDefaultMinChunk, [&](int64_t begin, int64_t end) {
      HalfToFloatArray(static_cast<const uint16_t*>(in) + begin, static_cast<float*>(out) + begin, end - begin);
    });
  } else {
    UnaryMap(ctx, static_cast<const From*>(in), static_cast<To*>(out), n, kDefaultMinChunk,
             [](From v) { return Convert<ToTag, FromTag>(v); });
  }
}

template <typename FromTag>
CastFn PickTo(DataType to) {
  switch (to) {
    case DataType::kFloat32: return &CastElements<FromTag, Plain<float>>;
    case DataType::kFloat64: return &CastElements<FromTag, Plain<double>>;
    case DataType::kFloat16: return &CastElements<FromTag, Half>;
    case DataType::kInt8: return &CastElements<FromTag, Plain<int8_t>>;
    case DataType::kInt16: return &CastElements<FromTag, Plain<int16_t>>;
    case DataType::kInt32: return &CastElements<FromTag, Plain<int32_t>>;
    case DataType::kInt64: return &CastElements<FromTag, Plain<int64_t>>;
    case DataType::kUInt8: return &CastElements<FromTag, Plain<uint8_t>>;
    case DataType::kUInt16: return &CastElements<FromTag, Plain<uint16_t>>;
    case DataType::kUInt32: return &CastElements<FromTag, Plain<uint32_t>>;
    case DataType::kBool: return &CastElements<FromTag, Boolean>;
    default: return nullptr;
  }
}

CastFn PickCast(DataType from, DataType to) {
  switch (from) {
    case DataType::kFloat32: return PickTo<Plain<float>>(to);
    case DataType::kFloat64: return PickTo<Plain<double>>(to);
    case DataType::kFloat16: return PickTo<Half>(to);
    case DataType::kInt8: return PickTo<Plain<int8_t>>(to);
    case DataType::kInt16: return PickTo<Plain<int16_t>>(to);
    case DataType::kInt32: return PickTo<Plain<int32_t>>(to);
    case DataType::kInt64: return PickTo<Plain<int64_t>>(to);
    case DataType::kUInt8: return PickTo<Plain<uint8_t>>(to);
    case DataType::kUInt16: return PickTo<Plain<uint16_t>>(to);
    case DataType::kUInt32: return PickTo<Plain<uint32_t>>(to);
    case DataType::kBool: return PickTo<Boolean>(to);
    default: return nullptr;
  }
}

class CastKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    const DataType to = ctx.output(0).type;
    same_type_ = input.type == to;
    cast_ = PickCast(input.type, to);
    if (cast_ == nullptr) {
      return ctx.Unsupported("cast from " + DataTypeName(input.type) + " to " + DataTypeName(to) +
                             " is not supported");
    }
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (same_type_ && input.type != DataType::kBool) {
      if (input.bytes > 0 && input.data != output.data) std::memcpy(output.data, input.data, input.bytes);
      return Status::Ok();
    }
    cast_(ctx, input.data, output.data, input.num_elements());
    return Status::Ok();
  }

 private:
  CastFn cast_ = nullptr;
  bool same_type_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateCast(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<CastKernel>());
}

}  // namespace relite::cpu
