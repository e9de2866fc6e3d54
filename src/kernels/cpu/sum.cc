// SUM over the axes given by a constant axis tensor. float32 sums in float
// lanes with double block totals; int32/int64 wrap on overflow like TFLite's
// integer sum.
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/reduction.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

using reduce_internal::RunReduction;
using reduce_internal::SumReducer;

class SumKernel final : public ReduceKernelBase {
 public:
  explicit SumKernel(const Node& node) : ReduceKernelBase(node, "SUM") {}

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    switch (input.type) {
      case DataType::kFloat32:
        RunReduction<SumReducer<float, double, float>>(ctx, plan(), input.data_as<float>(), output.data_as<float>(),
                                                       ctx.scratch());
        return Status::Ok();
      case DataType::kInt32: {
        int64_t* sums = reinterpret_cast<int64_t*>(static_cast<char*>(ctx.scratch()) + extra_scratch_offset());
        RunReduction<SumReducer<uint64_t, uint64_t, int64_t>>(ctx, plan(), input.data_as<int32_t>(), sums,
                                                              ctx.scratch());
        int32_t* out = output.data_as<int32_t>();
        for (int64_t i = 0; i < plan().output_elements; ++i) out[i] = static_cast<int32_t>(sums[i]);
        return Status::Ok();
      }
      case DataType::kInt64:
        RunReduction<SumReducer<uint64_t, uint64_t, int64_t>>(ctx, plan(), input.data_as<int64_t>(),
                                                              output.data_as<int64_t>(), ctx.scratch());
        return Status::Ok();
      default: return ctx.Error("unexpected input type " + DataTypeName(input.type));
    }
  }

 protected:
  Status CheckType(KernelContext& ctx, DataType type) const override {
    if (type == DataType::kFloat32 || type == DataType::kInt32 || type == DataType::kInt64) return Status::Ok();
    if (type == DataType::kUInt8 || type == DataType::kInt8 || type == DataType::kInt16) {
      return ctx.Unsupported("quantized " + DataTypeName(type) + " input is not supported yet");
    }
    return ctx.Error("input type " + DataTypeName(type) + " is not supported (float32, int32, int64)");
  }

  size_t ExtraScratchBytes(const ReductionPlan& plan, DataType type) const override {
    return type == DataType::kInt32 ? static_cast<size_t>(plan.output_elements) * sizeof(int64_t) : 0;
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSum(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<SumKernel>(node));
}

}  // namespace relite::cpu
