// SVDF on float activations (internal/svdf.h has the op): float32 weights,
// or hybrid: int8 weights_feature and weights_time (one scale each) with
// float input, bias, state and output, as TFLite's EvalHybridSVDF:
//   - each input row is quantized on the fly (symmetric, or asymmetric under
//     asymmetric_quantize_inputs) and the newest memory value is
//     float(sum w * (q - z)) * (input_scale * feature_scale), the sum exact
//     in int32;
//   - weights_time is dequantized once (float(q) * scale) and the time
//     product runs in float as for float weights.
// The state is the variable input 4, updated in place every Invoke; the
// int8 kernel is quantized/svdf.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/hybrid.h"
#include "src/kernels/cpu/internal/svdf.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

float Dot(const float* a, const float* b, int n) {
  float sum = 0.f;
  for (int i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

class SvdfKernel final : public Kernel {
 public:
  SvdfKernel(const SvdfOptions& options, bool hybrid) : options_(options), hybrid_(hybrid) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(PrepareSvdfShapes(ctx, options_.rank, &dims_));
    const Tensor& feature = ctx.input(kSvdfWeightsFeature);
    const Tensor& time = ctx.input(kSvdfWeightsTime);
    RELITE_RETURN_IF_ERROR(CheckType(ctx, ctx.input(kSvdfInput), "input", DataType::kFloat32));
    RELITE_RETURN_IF_ERROR(CheckType(ctx, ctx.input(kSvdfState), "state", DataType::kFloat32));
    if (ctx.has_input(kSvdfBias)) RELITE_RETURN_IF_ERROR(CheckType(ctx, ctx.input(kSvdfBias), "bias", DataType::kFloat32));
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kFloat32));
    const size_t filters = static_cast<size_t>(dims_.batch) * static_cast<size_t>(dims_.filters);
    scratch_.assign(filters + 1, 0.f);
    if (!hybrid_) {
      RELITE_RETURN_IF_ERROR(CheckType(ctx, feature, "weights_feature", DataType::kFloat32));
      RELITE_RETURN_IF_ERROR(CheckType(ctx, time, "weights_time", DataType::kFloat32));
      return Status::Ok();
    }
    // Hybrid: TFLite reads one scale per weight tensor (params.scale).
    RELITE_RETURN_IF_ERROR(CheckType(ctx, feature, "weights_feature", DataType::kInt8));
    RELITE_RETURN_IF_ERROR(CheckType(ctx, time, "weights_time", DataType::kInt8));
    for (const Tensor* w : {&feature, &time}) {
      const char* what = w == &feature ? "weights_feature" : "weights_time";
      if (w->quant.scale.size() != 1) {
        return ctx.Unsupported(std::string(what) + " must have one (per-tensor) scale, got " +
                               std::to_string(w->quant.scale.size()));
      }
      if (!(w->quant.scale[0] > 0.f) || !std::isfinite(w->quant.scale[0])) {
        return ctx.Error(std::string(what) + " scale must be positive and finite");
      }
      if (!w->is_constant() || w->data == nullptr) return ctx.Unsupported(std::string(what) + " must be constant");
    }
    feature_scale_ = feature.quant.scale[0];
    const int64_t nt = time.num_elements();
    time_float_.resize(static_cast<size_t>(nt));
    const int8_t* tq = time.data_as<int8_t>();
    for (int64_t i = 0; i < nt; ++i) time_float_[static_cast<size_t>(i)] = static_cast<float>(tq[i]) * time.quant.scale[0];
    const int64_t ni = ctx.input(kSvdfInput).num_elements();
    quantized_float_.resize(static_cast<size_t>(ni) + 1);
    quantized_.resize(static_cast<size_t>(ni) + 1);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const SvdfDims& d = dims_;
    if (d.batch == 0 || d.filters == 0) return Status::Ok();
    const float* x = ctx.input(kSvdfInput).data_as<float>();
    float* state = ctx.input(kSvdfState).data_as<float>();
    const float* time = hybrid_ ? time_float_.data() : ctx.input(kSvdfWeightsTime).data_as<float>();
    const int m = d.memory, n = d.input_size;
    for (int b = 0; b < d.batch; ++b) {
      const float* xb = x + static_cast<size_t>(b) * n;
      float batch_scale = 0.f;
      if (hybrid_) {
        float* qf = quantized_float_.data();
        const float s = options_.asymmetric_quantize_inputs ? QuantizeAsymmetricAsFloats(xb, n, qf)
                                                            : QuantizeSymmetricAsFloats(xb, n, qf);
        for (int i = 0; i < n; ++i) quantized_[static_cast<size_t>(i)] = static_cast<int32_t>(qf[i]);
        batch_scale = s * feature_scale_;
      }
      for (int f = 0; f < d.filters; ++f) {
        float* memory = state + (static_cast<size_t>(b) * d.filters + f) * m;
        std::memmove(memory, memory + 1, static_cast<size_t>(m - 1) * sizeof(float));
        if (hybrid_) {
          const int8_t* w = ctx.input(kSvdfWeightsFeature).data_as<int8_t>() + static_cast<size_t>(f) * n;
          int64_t sum = 0;  // TFLite's int32 sum, without its overflow for n > 2^16
          for (int i = 0; i < n; ++i) sum += static_cast<int32_t>(w[i]) * quantized_[static_cast<size_t>(i)];
          memory[m - 1] = static_cast<float>(sum) * batch_scale;
        } else {
          memory[m - 1] = Dot(ctx.input(kSvdfWeightsFeature).data_as<float>() + static_cast<size_t>(f) * n, xb, n);
        }
        scratch_[static_cast<size_t>(b) * d.filters + f] = Dot(time + static_cast<size_t>(f) * m, memory, m);
      }
    }
    const float* bias = ctx.has_input(kSvdfBias) ? ctx.input(kSvdfBias).data_as<float>() : nullptr;
    float* out = ctx.output(0).data_as<float>();
    const int rank = options_.rank;
    for (int b = 0; b < d.batch; ++b) {
      for (int u = 0; u < d.units; ++u) {
        const float* s = scratch_.data() + static_cast<size_t>(b) * d.filters + static_cast<size_t>(u) * rank;
        float v = 0.f;
        for (int r = 0; r < rank; ++r) v += s[r];
        if (bias != nullptr) v = bias[u] + v;
        out[static_cast<size_t>(b) * d.units + u] = Activate(v);
      }
    }
    return Status::Ok();
  }

 private:
  float Activate(float v) const {
    using A = tflite::ActivationFunctionType;
    switch (options_.activation) {
      case A::RELU: return std::max(v, 0.f);
      case A::RELU_N1_TO_1: return std::clamp(v, -1.f, 1.f);
      case A::RELU6: return std::clamp(v, 0.f, 6.f);
      case A::TANH: return std::tanh(v);
      default: return v;
    }
  }

  SvdfOptions options_;
  bool hybrid_;
  SvdfDims dims_;
  std::vector<float> scratch_;  // per batch and filter: weights_time . memory
  float feature_scale_ = 1.f;
  std::vector<float> time_float_;       // hybrid: dequantized weights_time
  std::vector<float> quantized_float_;  // hybrid: q - z of one input row
  std::vector<int32_t> quantized_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSvdf(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(SvdfOptions options, ParseSvdfOptions(node));
  using A = tflite::ActivationFunctionType;
  if (options.activation != A::NONE && options.activation != A::RELU && options.activation != A::RELU_N1_TO_1 &&
      options.activation != A::RELU6 && options.activation != A::TANH) {
    return UnimplementedError(node.Describe() + ": fused activation " +
                              std::to_string(static_cast<int>(options.activation)) + " is not supported");
  }
  return std::unique_ptr<Kernel>(std::make_unique<SvdfKernel>(options, IsHybridNode(node)));
}

}  // namespace relite::cpu
