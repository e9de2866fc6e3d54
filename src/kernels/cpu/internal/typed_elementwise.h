// Elementwise kernels over several element types, for the ops whose Eval is
// one scalar function per element (ABS, NEG, FLOOR_MOD, LESS, ...).
//
// An op is a struct with a templated (or overloaded) call operator; the
// kernel is given the list of types it accepts and dispatches on the input
// type once per Eval. bool tensors are one byte per element and are handed to
// the op as uint8_t 0/1 (any non-zero input byte reads as 1).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "relite/kernel.h"
#include "relite/tensor.h"
#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/internal/elementwise.h"

namespace relite::cpu {

namespace typed_internal {

// Calls fn(T{}) with T the storage type of `type` (uint8_t for bool); false
// for types without an elementwise storage type here.
template <typename Fn>
bool DispatchType(DataType type, const Fn& fn) {
  switch (type) {
    case DataType::kFloat32: fn(float{}); return true;
    case DataType::kInt32: fn(int32_t{}); return true;
    case DataType::kInt64: fn(int64_t{}); return true;
    case DataType::kInt16: fn(int16_t{}); return true;
    case DataType::kInt8: fn(int8_t{}); return true;
    case DataType::kBool: fn(uint8_t{}); return true;
    default: return false;
  }
}

inline uint8_t Truth(uint8_t v) { return static_cast<uint8_t>(v != 0); }

// True when op(args...) is an exact overload returning R (not reached by
// converting the arguments to another type's overload): only those types
// get code.
template <typename R, typename Op, typename... Args>
constexpr bool ReturnsExactly() {
  if constexpr (std::is_invocable_v<const Op&, Args...>) {
    return std::is_same_v<std::invoke_result_t<const Op&, Args...>, R>;
  } else {
    return false;
  }
}

}  // namespace typed_internal

// OK when `type` is in `types`; Unsupported for the quantized storage types
// (int8/uint8/int16) otherwise, InvalidArgument for the rest.
inline Status CheckListedType(KernelContext& ctx, DataType type, const std::vector<DataType>& types) {
  for (DataType t : types) {
    if (t == type) return Status::Ok();
  }
  std::string expected;
  for (DataType t : types) expected += (expected.empty() ? "" : ", ") + DataTypeName(t);
  if (IsQuantizedStorageType(type)) {
    return ctx.Unsupported("input type " + DataTypeName(type) + " (quantized) is not supported yet (supported: " +
                           expected + ")");
  }
  return ctx.Error("input type " + DataTypeName(type) + " is not valid for this op (expected " + expected + ")");
}

// out = op(in) with input and output of one type, taken from `types`.
template <typename Op>
class TypedUnaryKernel final : public Kernel {
 public:
  TypedUnaryKernel(Op op, std::initializer_list<DataType> types, int64_t min_chunk)
      : op_(op), types_(types), min_chunk_(min_chunk) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckListedType(ctx, input.type, types_));
    type_ = input.type;
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, type_));
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int64_t n = input.num_elements();
    const bool known = typed_internal::DispatchType(type_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (typed_internal::ReturnsExactly<T, Op, T>()) {
        const T* in = input.data_as<T>();
        T* out = ctx.output(0).data_as<T>();
        if constexpr (std::is_same_v<T, uint8_t>) {
          // Only bool maps to uint8_t here.
          const Op op = op_;
          UnaryMap(ctx, in, out, n, min_chunk_, [op](T v) { return op(typed_internal::Truth(v)); });
        } else {
          UnaryMap(ctx, in, out, n, min_chunk_, op_);
        }
      }
    });
    return known ? Status::Ok() : ctx.Error("unexpected type " + DataTypeName(type_));
  }

 private:
  Op op_;
  std::vector<DataType> types_;
  int64_t min_chunk_;
  DataType type_ = DataType::kFloat32;
};

template <typename Op>
std::unique_ptr<Kernel> MakeTypedUnaryKernel(Op op, std::initializer_list<DataType> types,
                                             int64_t min_chunk = kDefaultMinChunk) {
  return std::make_unique<TypedUnaryKernel<Op>>(op, types, min_chunk);
}

// What a binary op's output holds.
enum class BinaryOutput { kSameAsInput, kBool };

// out = op(a, b) with numpy broadcasting; inputs of one type from `types`,
// the output of that type or bool. An op may define
//   Status Validate(KernelContext&, DataType type, const Tensor& b) const
// which Eval calls before computing: the ops that TFLite fails on some
// divisor or exponent values (integer division by zero and the like).
template <typename Op, BinaryOutput kOutput = BinaryOutput::kSameAsInput>
class TypedBinaryKernel final : public Kernel {
 public:
  TypedBinaryKernel(Op op, std::initializer_list<DataType> types, int64_t min_chunk)
      : op_(op), types_(types), min_chunk_(min_chunk) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryInputs(ctx));
    type_ = ctx.input(0).type;
    RELITE_RETURN_IF_ERROR(CheckListedType(ctx, type_, types_));
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, kOutput == BinaryOutput::kBool ? DataType::kBool : type_));
    return PrepareBroadcast(ctx, &plan_, DataTypeSize(type_));
  }

  Status Eval(KernelContext& ctx) override {
    if constexpr (HasValidate<Op>::value) {
      RELITE_RETURN_IF_ERROR(op_.Validate(ctx, type_, ctx.input(1)));
    }
    if (plan_.num_elements == 0) return Status::Ok();
    const bool known = typed_internal::DispatchType(type_, [&](auto tag) {
      using T = decltype(tag);
      using Out = std::conditional_t<kOutput == BinaryOutput::kBool, uint8_t, T>;
      if constexpr (typed_internal::ReturnsExactly<Out, Op, T, T>()) {
        const T* a = ctx.input(0).data_as<T>();
        const T* b = ctx.input(1).data_as<T>();
        Out* out = ctx.output(0).data_as<Out>();
        if constexpr (std::is_same_v<T, uint8_t>) {
          const Op op = op_;
          RunBroadcastBinary(
              ctx, plan_, a, b, out,
              [op](T x, T y) { return op(typed_internal::Truth(x), typed_internal::Truth(y)); }, min_chunk_);
        } else {
          RunBroadcastBinary(ctx, plan_, a, b, out, op_, min_chunk_);
        }
      }
    });
    return known ? Status::Ok() : ctx.Error("unexpected type " + DataTypeName(type_));
  }

 private:
  template <typename T, typename = void>
  struct HasValidate : std::false_type {};
  template <typename T>
  struct HasValidate<T, std::void_t<decltype(std::declval<const T&>().Validate(
                                std::declval<KernelContext&>(), DataType{}, std::declval<const Tensor&>()))>>
      : std::true_type {};

  Op op_;
  std::vector<DataType> types_;
  int64_t min_chunk_;
  DataType type_ = DataType::kFloat32;
  BroadcastPlan plan_;
};

template <typename Op>
std::unique_ptr<Kernel> MakeTypedBinaryKernel(Op op, std::initializer_list<DataType> types,
                                              int64_t min_chunk = kDefaultMinChunk) {
  return std::make_unique<TypedBinaryKernel<Op>>(op, types, min_chunk);
}

template <typename Op>
std::unique_ptr<Kernel> MakeComparisonKernel(Op op, std::initializer_list<DataType> types) {
  return std::make_unique<TypedBinaryKernel<Op, BinaryOutput::kBool>>(op, types, kDefaultMinChunk);
}

// Error when any element of `divisor` (type T) is zero: the integer division
// ops fail their Eval then, as TFLite's do.
template <typename T>
Status CheckNoZero(KernelContext& ctx, const Tensor& divisor) {
  const T* d = divisor.data_as<T>();
  const int64_t n = divisor.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (d[i] == T(0)) return ctx.Error("division by zero (divisor '" + divisor.name + "' holds a 0)");
  }
  return Status::Ok();
}

}  // namespace relite::cpu
