// WHERE (the one-input form): the coordinates of the true (non-zero)
// elements of the condition, in row-major order, as an int64 [count, rank]
// tensor. The count depends on the values, so the condition must be
// constant (then the node is normally folded at load time). Condition:
// bool, float32, int32, int64, int8, uint8 or int16 (non-zero is true; for
// floats -0.0 counts as zero).
#include <cstring>
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

template <typename Fn>
void ForEachTrue(const Tensor& t, Fn&& fn) {
  const int64_t n = t.num_elements();
  auto scan = [&](auto tag) {
    using T = decltype(tag);
    const auto* p = static_cast<const uint8_t*>(t.data);
    for (int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
      if (v != T{0}) fn(i);
    }
  };
  switch (t.type) {
    case DataType::kFloat32: scan(float{}); return;
    case DataType::kInt32: scan(int32_t{}); return;
    case DataType::kInt64: scan(int64_t{}); return;
    case DataType::kInt16: scan(int16_t{}); return;
    case DataType::kInt8: scan(int8_t{}); return;
    default: scan(uint8_t{}); return;  // bool, uint8
  }
}

class WhereKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 1) {
      return ctx.Unsupported("the three-input form of WHERE (select) is not supported; got " +
                             std::to_string(ctx.num_inputs()) + " inputs");
    }
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1, 1));
    const Tensor& cond = ctx.input(0);
    switch (cond.type) {
      case DataType::kBool: case DataType::kFloat32: case DataType::kInt32: case DataType::kInt64:
      case DataType::kInt8: case DataType::kUInt8: case DataType::kInt16: break;
      default: return ctx.Error("condition must be bool or a numeric type, got " + DataTypeName(cond.type));
    }
    if (ctx.output(0).type != DataType::kInt64) {
      return ctx.Error("output must be int64, got " + DataTypeName(ctx.output(0).type));
    }
    RELITE_RETURN_IF_ERROR(RequireConstantInput(ctx, 0, "condition"));
    if (cond.num_elements() > 0 &&
        (cond.data == nullptr || cond.bytes < static_cast<size_t>(cond.num_elements()) * DataTypeSize(cond.type))) {
      return ctx.Error("condition holds too few bytes for its shape");
    }
    int64_t count = 0;
    ForEachTrue(cond, [&](int64_t) { ++count; });
    RELITE_ASSIGN_OR_RETURN(const int32_t rows, ToDimension(ctx, count, "the number of true elements"));
    return ctx.ResizeOutput(0, Shape{rows, static_cast<int32_t>(cond.rank())});
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& cond = ctx.input(0);
    int64_t* out = ctx.output(0).data_as<int64_t>();
    const int rank = cond.rank();
    const int64_t capacity = ctx.output(0).num_elements();
    int64_t written = 0;
    ForEachTrue(cond, [&](int64_t flat) {
      if (written + rank > capacity) return;  // the condition cannot change (constant); guard anyway
      for (int d = rank - 1; d >= 0; --d) {
        out[written + d] = flat % cond.dim(d);
        flat /= cond.dim(d);
      }
      written += rank;
    });
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateWhere(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<WhereKernel>());
}

}  // namespace relite::cpu
