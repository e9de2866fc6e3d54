// Quantized REDUCE_PROD, int8 and int16, as TFLite's builtin kernel computes
// it: in fixed point, each multiplication rescaled so that the running
// product stays in int32. With n = elements reduced into each output and
// (M, S) = QuantizeMultiplier(double(in_scale) / pow(double(out_scale), 1.0 / n)),
// per output over its inputs q_1, q_2, ... in memory (row-major) order:
//   p = q_1 - in_zp;  p = int32(MBQM64(int64(p) * (q_k - in_zp), M, S)) for k >= 2
//   out = clamp(MBQM64(p, M, S) + out_zp)
// where MBQM64 is TFLite's 64-bit MultiplyByQuantizedMultiplier (the
// multiplier reduced to 16 bits, one rounding shift). The rounding at every
// step makes the order matter, so the loop walks the input in memory order
// instead of the reordering passes of internal/reduction.h. int16 needs zero
// points 0. An int8/int16 input without quantization parameters is a plain
// integer product that wraps, as for int32; no reduced axes copy the input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/qconv_util.h"
#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/internal/reduction.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedReduceProdKernel final : public ReduceKernelBase {
 public:
  explicit QuantizedReduceProdKernel(const Node& node) : ReduceKernelBase(node, "REDUCE_PROD") {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(ReduceKernelBase::Prepare(ctx));
    const Tensor& input = ctx.input(0);
    const Tensor& axis = ctx.input(1);
    const int rank = static_cast<int>(input.rank());
    // Which input axes are reduced, and each kept axis's stride in the output.
    reduced_.assign(static_cast<size_t>(rank), false);
    any_reduced_ = false;
    for (int64_t k = 0; k < axis.num_elements(); ++k) {
      int64_t a = axis.type == DataType::kInt32 ? axis.data_as<int32_t>()[k] : axis.data_as<int64_t>()[k];
      if (a < 0) a += rank;  // range checked by the base's plan
      reduced_[static_cast<size_t>(a)] = true;
      any_reduced_ = true;
    }
    dims_.assign(input.shape.begin(), input.shape.end());
    index_.assign(dims_.size(), 0);
    out_strides_.assign(static_cast<size_t>(rank), 0);
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      if (reduced_[static_cast<size_t>(d)]) continue;
      out_strides_[static_cast<size_t>(d)] = stride;
      stride *= dims_[static_cast<size_t>(d)];
    }
    plain_ = input.quant.scale.empty();
    if (plain_) return Status::Ok();
    ScaleZeroPoint in_q, out_q;
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, input, "input", &in_q));
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, ctx.output(0), "output", &out_q));
    if (input.type == DataType::kInt16 && (in_q.zero_point != 0 || out_q.zero_point != 0)) {
      return ctx.Error("int16 input and output need zero point 0, have " + std::to_string(in_q.zero_point) +
                       " and " + std::to_string(out_q.zero_point));
    }
    in_zp_ = in_q.zero_point;
    out_zp_ = out_q.zero_point;
    const int64_t n = plan().reduced_count;
    multiplier_ = {};
    if (n > 0 && plan().output_elements > 0) {
      const double scaling = static_cast<double>(in_q.scale) /
                             std::pow(static_cast<double>(out_q.scale), 1.0 / static_cast<double>(n));
      multiplier_ = QuantizeMultiplier(scaling);
      // TFLite's 64-bit multiply is defined for shifts below 8 only.
      if (multiplier_.shift >= 8) {
        return ctx.Unsupported("input/output scales give a per-step rescaling beyond 2^8 (in scale " +
                               std::to_string(in_q.scale) + ", out scale " + std::to_string(out_q.scale) + ")");
      }
    }
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    switch (ctx.input(0).type) {
      case DataType::kInt8: Run<int8_t>(ctx); break;
      case DataType::kInt16: Run<int16_t>(ctx); break;
      default: return ctx.Error("unexpected input type " + DataTypeName(ctx.input(0).type));
    }
    return Status::Ok();
  }

 protected:
  Status CheckType(KernelContext& ctx, DataType type) const override {
    if (type == DataType::kInt8 || type == DataType::kInt16) return Status::Ok();
    return ctx.Unsupported("quantized " + DataTypeName(type) + " input is not supported (int8, int16)");
  }

  size_t ExtraScratchBytes(const ReductionPlan& plan, DataType) const override {
    return static_cast<size_t>(plan.output_elements) * sizeof(int32_t);
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) {
    const Tensor& input = ctx.input(0);
    const T* in = input.data_as<T>();
    T* out = ctx.output(0).data_as<T>();
    const int64_t outputs = plan().output_elements;
    const int64_t total = input.num_elements();
    if (outputs == 0) return;
    if (!any_reduced_) {
      for (int64_t i = 0; i < outputs; ++i) out[i] = in[i];
      return;
    }
    if (total == 0) {
      for (int64_t i = 0; i < outputs; ++i) out[i] = plain_ ? T(1) : T(0);
      return;
    }
    auto* acc = reinterpret_cast<int32_t*>(static_cast<char*>(ctx.scratch()) + extra_scratch_offset());
    const int rank = static_cast<int>(dims_.size());
    // Row-major walk with an index counter; an input is the first of its
    // output when all of its reduced coordinates are 0.
    int64_t* index = index_.data();
    std::fill(index_.begin(), index_.end(), 0);
    int64_t o = 0;
    int reduced_nonzero = 0;  // reduced axes whose coordinate is not 0
    for (int64_t i = 0; i < total; ++i) {
      const int32_t v = plain_ ? int32_t{in[i]} : int32_t{in[i]} - in_zp_;
      if (reduced_nonzero == 0) {
        acc[o] = v;
      } else if (plain_) {
        acc[o] = static_cast<int32_t>(static_cast<uint32_t>(acc[o]) * static_cast<uint32_t>(v));
      } else {
        acc[o] = MultiplyByReducedMultiplier64(static_cast<int64_t>(acc[o]) * v, multiplier_);
      }
      // Next index.
      for (int d = rank - 1; d >= 0; --d) {
        const auto du = static_cast<size_t>(d);
        if (++index[d] < dims_[du]) {
          o += out_strides_[du];
          if (reduced_[du] && index[d] == 1) ++reduced_nonzero;
          break;
        }
        o -= out_strides_[du] * (dims_[du] - 1);
        if (reduced_[du] && dims_[du] > 1) --reduced_nonzero;
        index[d] = 0;
      }
    }
    const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    for (int64_t k = 0; k < outputs; ++k) {
      if (plain_) {
        out[k] = static_cast<T>(acc[k]);  // wraps, as TFLite's integer product
        continue;
      }
      const int64_t r = int64_t{MultiplyByReducedMultiplier64(acc[k], multiplier_)} + out_zp_;
      out[k] = static_cast<T>(std::clamp<int64_t>(r, lo, hi));
    }
  }

  std::vector<bool> reduced_;
  std::vector<int64_t> dims_;
  std::vector<int64_t> out_strides_;
  std::vector<int64_t> index_;  // Eval's position in the input
  bool any_reduced_ = false;
  bool plain_ = false;
  int32_t in_zp_ = 0;
  int32_t out_zp_ = 0;
  QuantizedMultiplier multiplier_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedReduceProd(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedReduceProdKernel>(node));
}

}  // namespace relite::cpu
