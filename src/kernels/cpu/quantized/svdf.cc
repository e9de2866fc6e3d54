// SVDF, fully integer (TFLite's EvalIntegerSVDF; the op is described in
// internal/svdf.h): int8 input and weights_feature, int16 weights_time and
// state, int32 bias, int8 output.
//   newest memory value = clamp_int16(MBQM(sum wf * (x - x_zp), s1))
//   unit sum            = bias + sum over its filters of sum wt * memory (int32)
//   out                 = clamp_int8(MBQM(unit sum, s2) + out_zp)
// with s1 = x_scale * wf_scale / state_scale and s2 = state_scale * wt_scale /
// out_scale (computed in float, as TFLite does, then made fixed-point
// multipliers). As in TFLite the state and weights are taken as symmetric
// (their zero points are not read), the activation must be RELU, and it
// is not applied beyond the int8 clamp: the output's quantization carries it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/internal/svdf.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// Two's-complement int32 arithmetic, as TFLite's int32 accumulators wrap.
inline int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

class QuantizedSvdfKernel final : public Kernel {
 public:
  explicit QuantizedSvdfKernel(const SvdfOptions& options) : options_(options) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(PrepareSvdfShapes(ctx, options_.rank, &dims_));
    const Tensor& input = ctx.input(kSvdfInput);
    const Tensor& feature = ctx.input(kSvdfWeightsFeature);
    const Tensor& time = ctx.input(kSvdfWeightsTime);
    const Tensor& state = ctx.input(kSvdfState);
    const Tensor& output = ctx.output(0);
    if (input.type != DataType::kInt8) {
      return ctx.Unsupported("input type " + DataTypeName(input.type) + " is not supported (int8 or float32)");
    }
    RELITE_RETURN_IF_ERROR(CheckType(ctx, feature, "weights_feature", DataType::kInt8));
    RELITE_RETURN_IF_ERROR(CheckType(ctx, time, "weights_time", DataType::kInt16));
    RELITE_RETURN_IF_ERROR(CheckType(ctx, state, "state", DataType::kInt16));
    if (ctx.has_input(kSvdfBias)) RELITE_RETURN_IF_ERROR(CheckType(ctx, ctx.input(kSvdfBias), "bias", DataType::kInt32));
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kInt8));
    float scale[5];
    const Tensor* tensors[5] = {&input, &feature, &time, &state, &output};
    const char* names[5] = {"input", "weights_feature", "weights_time", "state", "output"};
    for (int i = 0; i < 5; ++i) {
      const Quantization& q = tensors[i]->quant;
      if (q.scale.empty()) return ctx.Error(std::string(names[i]) + " has no quantization parameters");
      scale[i] = q.scale[0];
      if (!(scale[i] > 0.f) || !std::isfinite(scale[i])) {
        return ctx.Error(std::string(names[i]) + " scale must be positive and finite");
      }
    }
    input_zero_point_ = input.quant.zero_point.empty() ? 0 : static_cast<int32_t>(input.quant.zero_point[0]);
    output_zero_point_ = output.quant.zero_point.empty() ? 0 : static_cast<int32_t>(output.quant.zero_point[0]);
    if (input_zero_point_ < -128 || input_zero_point_ > 127 || output_zero_point_ < -128 || output_zero_point_ > 127) {
      return ctx.Error("input and output zero points must lie in [-128, 127]");
    }
    // float arithmetic first, as TFLite's expressions over float scales.
    const float s1 = scale[0] * scale[1] / scale[3];
    const float s2 = scale[3] * scale[2] / scale[4];
    feature_multiplier_ = QuantizeMultiplier(static_cast<double>(s1));
    output_multiplier_ = QuantizeMultiplier(static_cast<double>(s2));
    scratch_.assign(static_cast<size_t>(dims_.batch) * static_cast<size_t>(dims_.filters) + 1, 0);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const SvdfDims& d = dims_;
    if (d.batch == 0 || d.filters == 0) return Status::Ok();
    const int8_t* x = ctx.input(kSvdfInput).data_as<int8_t>();
    const int8_t* feature = ctx.input(kSvdfWeightsFeature).data_as<int8_t>();
    const int16_t* time = ctx.input(kSvdfWeightsTime).data_as<int16_t>();
    int16_t* state = ctx.input(kSvdfState).data_as<int16_t>();
    const int m = d.memory, n = d.input_size;
    for (int b = 0; b < d.batch; ++b) {
      const int8_t* xb = x + static_cast<size_t>(b) * n;
      for (int f = 0; f < d.filters; ++f) {
        int16_t* memory = state + (static_cast<size_t>(b) * d.filters + f) * m;
        std::memmove(memory, memory + 1, static_cast<size_t>(m - 1) * sizeof(int16_t));
        const int8_t* w = feature + static_cast<size_t>(f) * n;
        int64_t dot = 0;
        for (int i = 0; i < n; ++i) dot += static_cast<int32_t>(w[i]) * (static_cast<int32_t>(xb[i]) - input_zero_point_);
        const int32_t scaled = MultiplyByQuantizedMultiplier(Wrap(dot), feature_multiplier_);
        memory[m - 1] = static_cast<int16_t>(std::clamp<int32_t>(scaled, INT16_MIN, INT16_MAX));
        const int16_t* wt = time + static_cast<size_t>(f) * m;
        int64_t acc = 0;
        for (int k = 0; k < m; ++k) acc += static_cast<int32_t>(wt[k]) * static_cast<int32_t>(memory[k]);
        scratch_[static_cast<size_t>(b) * d.filters + f] = Wrap(acc);
      }
    }
    const int32_t* bias = ctx.has_input(kSvdfBias) ? ctx.input(kSvdfBias).data_as<int32_t>() : nullptr;
    int8_t* out = ctx.output(0).data_as<int8_t>();
    const int rank = options_.rank;
    for (int b = 0; b < d.batch; ++b) {
      for (int u = 0; u < d.units; ++u) {
        const int32_t* s = scratch_.data() + static_cast<size_t>(b) * d.filters + static_cast<size_t>(u) * rank;
        int64_t sum = bias != nullptr ? bias[u] : 0;
        for (int r = 0; r < rank; ++r) sum += s[r];
        const int32_t v = MultiplyByQuantizedMultiplier(Wrap(sum), output_multiplier_) + output_zero_point_;
        out[static_cast<size_t>(b) * d.units + u] = static_cast<int8_t>(std::clamp<int32_t>(v, -128, 127));
      }
    }
    return Status::Ok();
  }

 private:
  SvdfOptions options_;
  SvdfDims dims_;
  int32_t input_zero_point_ = 0, output_zero_point_ = 0;
  QuantizedMultiplier feature_multiplier_, output_multiplier_;
  std::vector<int32_t> scratch_;  // per batch and filter: weights_time . memory
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedSvdf(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(SvdfOptions options, ParseSvdfOptions(node));
  if (options.activation != tflite::ActivationFunctionType::RELU) {
    return UnimplementedError(node.Describe() + ": the int8 SVDF takes only the RELU activation (as TFLite), got " +
                              std::to_string(static_cast<int>(options.activation)));
  }
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedSvdfKernel>(options));
}

}  // namespace relite::cpu
