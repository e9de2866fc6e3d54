// A reduce op (inputs data + constant axis, ReducerOptions.keep_dims) over a
// fixed list of element types, each reduced by Reducer<T>: REDUCE_MIN,
// REDUCE_PROD. The op files name the reducer and the types.
#pragma once

#include <memory>
#include <string>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/reduction.h"

namespace relite::cpu {

template <template <typename> class Reducer, typename... Types>
class TypedReduceKernel final : public ReduceKernelBase {
 public:
  TypedReduceKernel(const Node& node, const char* op_name, const char* type_list)
      : ReduceKernelBase(node, op_name), type_list_(type_list) {}

  Status Eval(KernelContext& ctx) override {
    const DataType type = ctx.input(0).type;
    const bool ran = (Run<Types>(ctx, type) || ...);
    return ran ? Status::Ok() : ctx.Error("unexpected input type " + DataTypeName(type));
  }

 protected:
  Status CheckType(KernelContext& ctx, DataType type) const override {
    if (((type == DataTypeOf<Types>()) || ...)) return Status::Ok();
    if (IsQuantizedStorageType(type)) {
      return ctx.Unsupported("quantized " + DataTypeName(type) + " input is not supported yet");
    }
    return ctx.Error("input type " + DataTypeName(type) + " is not supported (" + type_list_ + ")");
  }

 private:
  template <typename T>
  bool Run(KernelContext& ctx, DataType type) {
    if (type != DataTypeOf<T>()) return false;
    reduce_internal::RunReduction<Reducer<T>>(ctx, plan(), ctx.input(0).data_as<T>(), ctx.output(0).data_as<T>(),
                                              ctx.scratch());
    return true;
  }

  std::string type_list_;
};

}  // namespace relite::cpu
