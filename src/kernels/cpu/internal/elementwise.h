// Shared pieces of the elementwise kernels: parallel chunking, input/output
// checks, fused activation clamps, wrap-around integer arithmetic and the
// unary map.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "relite/kernel.h"
#include "relite/tensor.h"
#include "src/core/ops/params.h"

namespace relite::cpu {

// Output elements below which a cheap elementwise op stays on one thread.
inline constexpr int64_t kDefaultMinChunk = 16384;
// The same for ops costing tens of cycles per element (exp, tanh, ...).
inline constexpr int64_t kTranscendentalMinChunk = 2048;

// fn(begin, end) over [0, n): inline when the work is small or there is a
// single thread, else through ctx.ParallelFor. The std::function built for
// ParallelFor captures one reference, so it never allocates.
template <typename Fn>
void ParallelChunks(KernelContext& ctx, int64_t n, int64_t min_chunk, const Fn& fn) {
  if (n <= 0) return;
  if (n < 2 * min_chunk || ctx.num_threads() <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  ctx.ParallelFor(n, min_chunk, [&fn](int64_t begin, int64_t end) { fn(begin, end); });
}

// Exactly `inputs` inputs (all present) and `outputs` outputs.
Status CheckArity(KernelContext& ctx, int inputs, int outputs);

// True for the integer types that .tflite uses for quantized activations;
// arithmetic on them needs requantization, which this issue does not cover.
inline bool IsQuantizedStorageType(DataType type) {
  return type == DataType::kInt8 || type == DataType::kUInt8 || type == DataType::kInt16;
}

// Error unless tensor `what` has type `expected`.
Status CheckType(KernelContext& ctx, const Tensor& tensor, const char* what, DataType expected);

// OK when `type` is one of `computed`; Unsupported for the quantized storage
// types (int8/uint8/int16) and InvalidArgument for anything else. `what`
// names the tensor ("input").
Status CheckComputedType(KernelContext& ctx, DataType type, std::initializer_list<DataType> computed,
                         const char* what = "input");

// Error unless output `index` has the given type.
Status CheckOutputType(KernelContext& ctx, int index, DataType expected);

// Input 0 float32 (quantized types are unsupported, others invalid), output
// 0 float32 and the same shape as input 0.
Status PrepareFloatUnary(KernelContext& ctx);


// `value` clamped to the activation's range, typed like the data. For
// integer types the range is the activation's range cut to the type (RELU on
// int32: [0, INT32_MAX]).
template <typename T>
struct ActivationClamp {
  T lo;
  T hi;
  T operator()(T v) const { return std::min(std::max(v, lo), hi); }
};

template <typename T>
ActivationClamp<T> MakeActivationClamp(Activation activation) {
  const ActivationRange range = GetActivationRange(activation);
  if constexpr (std::is_floating_point_v<T>) {
    return {static_cast<T>(range.min), static_cast<T>(range.max)};
  } else {
    const T lo = range.min <= static_cast<float>(std::numeric_limits<T>::lowest()) ? std::numeric_limits<T>::lowest()
                                                                                  : static_cast<T>(range.min);
    const T hi = range.max >= static_cast<float>(std::numeric_limits<T>::max()) ? std::numeric_limits<T>::max()
                                                                               : static_cast<T>(range.max);
    return {lo, hi};
  }
}

// op followed by the activation clamp.
template <typename T, typename Op>
struct Clamped {
  Op op;
  ActivationClamp<T> clamp;
  T operator()(T a, T b) const { return clamp(op(a, b)); }
};

// Signed integer arithmetic that wraps on overflow (two's complement) instead
// of being undefined; plain arithmetic for floats.
template <typename T>
inline T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
inline T WrappingSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <typename T>
inline T WrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    // Promote through unsigned int too, so narrow types do not multiply as int.
    using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) * static_cast<Wide>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}

// out[i] = fn(in[i]) for n elements, in parallel chunks.
template <typename In, typename Out, typename Fn>
void UnaryMap(KernelContext& ctx, const In* in, Out* out, int64_t n, int64_t min_chunk, const Fn& fn) {
  ParallelChunks(ctx, n, min_chunk, [&](int64_t begin, int64_t end) {
    // Locals, not the captured references: a store through an 8-bit `out`
    // may alias anything in memory, which would make the compiler reload the
    // pointers and fn's state every element and keep the loop scalar.
    const In* src = in;
    Out* dst = out;
    const Fn f = fn;
    for (int64_t i = begin; i < end; ++i) dst[i] = f(src[i]);
  });
}

// A float32 -> float32 elementwise kernel computing out[i] = fn(in[i]);
// `min_chunk` is the smallest number of elements worth a thread.
template <typename Fn>
class FloatUnaryKernel final : public Kernel {
 public:
  explicit FloatUnaryKernel(Fn fn, int64_t min_chunk = kDefaultMinChunk) : fn_(fn), min_chunk_(min_chunk) {}

  Status Prepare(KernelContext& ctx) override { return PrepareFloatUnary(ctx); }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    UnaryMap(ctx, input.data_as<float>(), ctx.output(0).data_as<float>(), input.num_elements(), min_chunk_, fn_);
    return Status::Ok();
  }

 private:
  Fn fn_;
  int64_t min_chunk_;
};

// The same with a function over arrays: array_fn(in, out, n), for ops
// written with explicit vector code.
class FloatArrayKernel final : public Kernel {
 public:
  using ArrayFn = void (*)(const float* in, float* out, int64_t n);
  FloatArrayKernel(ArrayFn array_fn, int64_t min_chunk) : array_fn_(array_fn), min_chunk_(min_chunk) {}

  Status Prepare(KernelContext& ctx) override { return PrepareFloatUnary(ctx); }

  Status Eval(KernelContext& ctx) override {
    const float* in = ctx.input(0).data_as<float>();
    float* out = ctx.output(0).data_as<float>();
    ParallelChunks(ctx, ctx.input(0).num_elements(), min_chunk_,
                   [&](int64_t begin, int64_t end) { array_fn_(in + begin, out + begin, end - begin); });
    return Status::Ok();
  }

 private:
  ArrayFn array_fn_;
  int64_t min_chunk_;
};

template <typename Fn>
std::unique_ptr<Kernel> MakeFloatUnaryKernel(Fn fn, int64_t min_chunk = kDefaultMinChunk) {
  return std::make_unique<FloatUnaryKernel<Fn>>(fn, min_chunk);
}

}  // namespace relite::cpu
