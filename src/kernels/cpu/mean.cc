// MEAN: average over the axes given by a constant axis tensor.
// float32 averages in float with wide block totals; int32/int64 sum exactly
// in 64 bits and divide with truncation, as TFLite does.
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/reduction.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

using reduce_internal::RunReduction;
using reduce_internal::SumReducer;

class MeanKernel final : public ReduceKernelBase {
 public:
  explicit MeanKernel(const Node& node) : ReduceKernelBase(node, "MEAN") {}

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    switch (input.type) {
      case DataType::kFloat32: {
        float* out = output.data_as<float>();
        RunReduction<SumReducer<float, double, float>>(ctx, plan(), input.data_as<float>(), out, ctx.scratch());
        // An empty reduction leaves the zero sum, as TFLite does.
        const int64_t count = plan().reduced_count;
        if (count > 1) {
          const float divisor = static_cast<float>(count);
          for (int64_t i = 0; i < plan().output_elements; ++i) out[i] = out[i] / divisor;
        }
        return Status::Ok();
      }
      case DataType::kInt32: return EvalInt<int32_t>(ctx);
      case DataType::kInt64: return EvalInt<int64_t>(ctx);
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
    return type == DataType::kFloat32 ? 0 : static_cast<size_t>(plan.output_elements) * sizeof(int64_t);
  }

 private:
  template <typename T>
  Status EvalInt(KernelContext& ctx) {
    int64_t* sums = reinterpret_cast<int64_t*>(static_cast<char*>(ctx.scratch()) + extra_scratch_offset());
    RunReduction<SumReducer<uint64_t, uint64_t, int64_t>>(ctx, plan(), ctx.input(0).data_as<T>(), sums,
                                                          ctx.scratch());
    T* out = ctx.output(0).data_as<T>();
    const int64_t count = plan().reduced_count;
    for (int64_t i = 0; i < plan().output_elements; ++i) {
      out[i] = static_cast<T>(count > 0 ? sums[i] / count : sums[i]);
    }
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateMean(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<MeanKernel>(node));
}

}  // namespace relite::cpu
