// UNIDIRECTIONAL_SEQUENCE_LSTM, float32: TFLite's float LSTM step
//   gate   = act(W_x . x + W_h . h [+ w_c * c] + b)        (act: sigmoid; the
//            cell gate uses the op's activation)
//   with layer norm: act(ln_w * normalize(W_x . x + W_h . h [+ w_c * c]) + b)
//   c      = clip(f * c + i * g)            (CIFG: i = 1 - f)
//   o      = sigmoid(... + w_co * c_new)    (peephole sees the new cell)
//   h      = o * act(c), or clip(W_p . (o * act(c)) + b_p) with projection
// over each sequence; the state tensors are variables carried across Invokes.
// Batch rows are independent recurrences and run in parallel. The 8-bit
// version is quantized/unidirectional_sequence_lstm.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "relite/kernel.h"
#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/hybrid.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

enum : int {
  kInput = 0,
  kInputToInput = 1,
  kRecurrentToInput = 5,
  kCellToInput = 9,
  kCellToForget = 10,
  kCellToOutput = 11,
  kInputGateBias = 12,
  kProjectionWeights = 16,
  kProjectionBias = 17,
  kOutputState = 18,
  kCellState = 19,
  kInputLayerNorm = 20,
  kForgetLayerNorm = 21,
};
constexpr int kNumGates = 4;  // input, forget, cell, output
constexpr int kCellGate = 2;
constexpr int kPeepholeOf[kNumGates] = {kCellToInput, kCellToForget, -1, kCellToOutput};

inline float Dot(const float* a, const float* b, int n) {
  int k = 0;
  float sum = 0.f;
#if defined(__AVX2__) && defined(__FMA__)
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  for (; k + 16 <= n; k += 16) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(b + k), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 8), _mm256_loadu_ps(b + k + 8), acc1);
  }
  for (; k + 8 <= n; k += 8) acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(b + k), acc0);
  acc0 = _mm256_add_ps(acc0, acc1);
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc0), _mm256_extractf128_ps(acc0, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  sum = _mm_cvtss_f32(s);
#endif
  for (; k < n; ++k) sum += a[k] * b[k];
  return sum;
}

inline float Sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

class FloatLstmKernel final : public Kernel {
 public:
  FloatLstmKernel(bool time_major, float cell_clip, float proj_clip, bool layer_norm, bool diagonal,
                  tflite::ActivationFunctionType activation)
      : time_major_(time_major),
        cell_clip_(cell_clip),
        proj_clip_(proj_clip),
        use_layer_norm_(layer_norm),
        diagonal_(diagonal),
        activation_(activation) {}

  Status Prepare(KernelContext& ctx) override {
    const Tensor& input = ctx.input(kInput);
    if (input.rank() != 3) return ctx.Error("input must be 3-D, got " + ShapeToString(input.shape));
    for (int i : {2, 3, 4, 6, 7, 8, 13, 14, 15, int{kOutputState}, int{kCellState}}) {
      if (!ctx.has_input(i)) return ctx.Error("required input " + std::to_string(i) + " is absent");
    }
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (ctx.has_input(i) && ctx.input(i).type != DataType::kFloat32) {
        return ctx.Unsupported("input " + std::to_string(i) + " is " + DataTypeName(ctx.input(i).type) +
                               "; the float LSTM takes float32 only (hybrid LSTMs have int8 input_to_output weights)");
      }
    }
    if (ctx.output(0).type != DataType::kFloat32) return ctx.Error("output must be float32");
    n_time_ = time_major_ ? input.dim(0) : input.dim(1);
    n_batch_ = time_major_ ? input.dim(1) : input.dim(0);
    n_input_ = input.dim(2);
    const Tensor& w_io = ctx.input(4);
    const Tensor& w_ro = ctx.input(8);
    if (w_io.rank() != 2 || w_ro.rank() != (diagonal_ ? 1 : 2)) return ctx.Error("weights have the wrong rank");
    n_cell_ = w_io.dim(0);
    n_output_ = diagonal_ ? w_ro.dim(0) : w_ro.dim(1);
    if (n_input_ <= 0 || n_cell_ <= 0 || n_output_ <= 0 || n_time_ < 0 || n_batch_ < 0) {
      return ctx.Error("bad dimensions: input " + ShapeToString(input.shape));
    }
    use_cifg_ = !ctx.has_input(kInputToInput);
    if (ctx.has_input(kInputToInput) != ctx.has_input(kRecurrentToInput) || use_cifg_ == ctx.has_input(kInputGateBias)) {
      return ctx.Error("input gate weights and bias must be all present or all absent (CIFG)");
    }
    use_peephole_ = ctx.has_input(kCellToOutput);
    if (ctx.has_input(kCellToForget) != use_peephole_ || (!use_cifg_ && ctx.has_input(kCellToInput) != use_peephole_)) {
      return ctx.Error("peephole weights must be all present or all absent");
    }
    use_projection_ = ctx.has_input(kProjectionWeights);
    if (!use_projection_ && ctx.has_input(kProjectionBias)) return ctx.Error("projection bias without projection weights");
    if (!use_projection_ && n_output_ != n_cell_) return ctx.Error("n_output must equal n_cell without projection");
    auto expect = [&](int i, const Shape& want) -> Status {
      if (!ctx.has_input(i) || ctx.input(i).shape == want) return Status::Ok();
      return ctx.Error("input " + std::to_string(i) + " must have shape " + ShapeToString(want) + ", got " +
                       ShapeToString(ctx.input(i).shape));
    };
    for (int g = 0; g < kNumGates; ++g) {
      RELITE_RETURN_IF_ERROR(expect(1 + g, {n_cell_, n_input_}));
      RELITE_RETURN_IF_ERROR(expect(5 + g, diagonal_ ? Shape{n_cell_} : Shape{n_cell_, n_output_}));
      RELITE_RETURN_IF_ERROR(expect(12 + g, {n_cell_}));
      if (kPeepholeOf[g] >= 0) RELITE_RETURN_IF_ERROR(expect(kPeepholeOf[g], {n_cell_}));
      if (use_layer_norm_) {
        if (g > 0 && !ctx.has_input(kInputLayerNorm + g)) return ctx.Error("layer norm weights are incomplete");
        RELITE_RETURN_IF_ERROR(expect(kInputLayerNorm + g, {n_cell_}));
      }
    }
    if (use_layer_norm_ && use_cifg_ == ctx.has_input(kInputLayerNorm)) {
      return ctx.Error("input layer norm weights must be present exactly when the input gate is");
    }
    RELITE_RETURN_IF_ERROR(expect(kProjectionWeights, {n_output_, n_cell_}));
    RELITE_RETURN_IF_ERROR(expect(kProjectionBias, {n_output_}));
    for (int i : {int{kOutputState}, int{kCellState}}) {
      if (!ctx.input(i).is_variable) return ctx.Error("state input " + std::to_string(i) + " must be a variable tensor");
    }
    if (ctx.input(kOutputState).num_elements() != static_cast<int64_t>(n_batch_) * n_output_ ||
        ctx.input(kCellState).num_elements() != static_cast<int64_t>(n_batch_) * n_cell_) {
      return ctx.Error("state tensors must hold batch * n_output and batch * n_cell elements");
    }
    Shape out_shape = input.shape;
    out_shape.back() = n_output_;
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));
    ctx.RequestScratch(RowScratchFloats() * sizeof(float) * static_cast<size_t>(std::max(n_batch_, 1)));
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    if (n_batch_ == 0 || n_time_ == 0) return Status::Ok();
    Ptrs p;
    for (int g = 0; g < kNumGates; ++g) {
      auto get = [&](int i) { return ctx.has_input(i) ? ctx.input(i).data_as<float>() : nullptr; };
      p.w_x[g] = get(1 + g);
      p.w_h[g] = get(5 + g);
      p.bias[g] = get(12 + g);
      p.peephole[g] = (use_peephole_ && kPeepholeOf[g] >= 0) ? get(kPeepholeOf[g]) : nullptr;
      p.layer_norm[g] = use_layer_norm_ ? get(kInputLayerNorm + g) : nullptr;
    }
    p.w_proj = use_projection_ ? ctx.input(kProjectionWeights).data_as<float>() : nullptr;
    p.b_proj = ctx.has_input(kProjectionBias) ? ctx.input(kProjectionBias).data_as<float>() : nullptr;
    const float* input = ctx.input(kInput).data_as<float>();
    float* output = ctx.output(0).data_as<float>();
    float* output_state = ctx.input(kOutputState).data_as<float>();
    float* cell_state = ctx.input(kCellState).data_as<float>();
    auto* scratch = static_cast<float*>(ctx.scratch());
    const int64_t work = static_cast<int64_t>(n_time_) * n_cell_ * (n_input_ + n_output_) * kNumGates;
    const int64_t min_rows = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(work, 1));
    ctx.ParallelFor(n_batch_, min_rows, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        float* s = scratch + static_cast<size_t>(b) * RowScratchFloats();
        float* h = output_state + static_cast<size_t>(b) * n_output_;
        float* c = cell_state + static_cast<size_t>(b) * n_cell_;
        for (int t = 0; t < n_time_; ++t) {
          const size_t row = time_major_ ? static_cast<size_t>(t) * n_batch_ + static_cast<size_t>(b)
                                         : static_cast<size_t>(b) * n_time_ + static_cast<size_t>(t);
          Step(p, input + row * n_input_, h, c, output + row * n_output_, s);
        }
      }
    });
    return Status::Ok();
  }

 private:
  struct Ptrs {
    const float* w_x[kNumGates];
    const float* w_h[kNumGates];
    const float* bias[kNumGates];
    const float* peephole[kNumGates];
    const float* layer_norm[kNumGates];
    const float* w_proj;
    const float* b_proj;
  };

  size_t RowScratchFloats() const { return static_cast<size_t>(n_cell_) * 5; }

  float Activate(float v) const {
    switch (activation_) {
      case tflite::ActivationFunctionType::RELU: return std::max(v, 0.f);
      case tflite::ActivationFunctionType::RELU_N1_TO_1: return std::clamp(v, -1.f, 1.f);
      case tflite::ActivationFunctionType::RELU6: return std::clamp(v, 0.f, 6.f);
      case tflite::ActivationFunctionType::TANH: return std::tanh(v);
      default: return v;
    }
  }

  void Gate(const Ptrs& p, int g, const float* x, const float* h, const float* c, float* out) const {
    const bool ln = p.layer_norm[g] != nullptr;
    for (int r = 0; r < n_cell_; ++r) {
      float a = ln ? 0.f : p.bias[g][r];
      a += Dot(p.w_x[g] + static_cast<size_t>(r) * n_input_, x, n_input_);
      a += diagonal_ ? p.w_h[g][r] * h[r] : Dot(p.w_h[g] + static_cast<size_t>(r) * n_output_, h, n_output_);
      if (p.peephole[g] != nullptr) a += p.peephole[g][r] * c[r];
      out[r] = a;
    }
    if (ln) {
      float sum = 0.f;
      for (int r = 0; r < n_cell_; ++r) sum += out[r];
      const float mean = sum / static_cast<float>(n_cell_);
      float sum_sq = 0.f;
      for (int r = 0; r < n_cell_; ++r) sum_sq += (out[r] - mean) * (out[r] - mean);
      const float inv_stddev = 1.f / std::sqrt(sum_sq / static_cast<float>(n_cell_) + 1e-8f);
      for (int r = 0; r < n_cell_; ++r) out[r] = (out[r] - mean) * inv_stddev * p.layer_norm[g][r] + p.bias[g][r];
    }
    if (g == kCellGate) {
      for (int r = 0; r < n_cell_; ++r) out[r] = Activate(out[r]);
    } else {
      for (int r = 0; r < n_cell_; ++r) out[r] = Sigmoid(out[r]);
    }
  }

  void Step(const Ptrs& p, const float* x, float* h, float* c, float* out, float* scratch) const {
    const int nc = n_cell_;
    float* gi = scratch;
    float* gf = scratch + nc;
    float* gg = scratch + 2 * nc;
    float* go = scratch + 3 * nc;
    float* hidden = scratch + 4 * nc;
    if (!use_cifg_) Gate(p, 0, x, h, c, gi);
    Gate(p, 1, x, h, c, gf);
    Gate(p, 2, x, h, c, gg);
    for (int r = 0; r < nc; ++r) {
      const float i = use_cifg_ ? 1.f - gf[r] : gi[r];
      float v = gf[r] * c[r] + i * gg[r];
      if (cell_clip_ > 0.f) v = std::clamp(v, -cell_clip_, cell_clip_);
      c[r] = v;
    }
    Gate(p, 3, x, h, c, go);
    for (int r = 0; r < nc; ++r) hidden[r] = go[r] * Activate(c[r]);
    if (use_projection_) {
      for (int o = 0; o < n_output_; ++o) {
        float v = (p.b_proj != nullptr ? p.b_proj[o] : 0.f) + Dot(p.w_proj + static_cast<size_t>(o) * nc, hidden, nc);
        if (proj_clip_ > 0.f) v = std::clamp(v, -proj_clip_, proj_clip_);
        h[o] = v;
      }
    } else {
      std::memcpy(h, hidden, static_cast<size_t>(nc) * sizeof(float));
    }
    std::memcpy(out, h, static_cast<size_t>(n_output_) * sizeof(float));
  }

  const bool time_major_;
  const float cell_clip_, proj_clip_;
  const bool use_layer_norm_, diagonal_;
  const tflite::ActivationFunctionType activation_;
  int n_batch_ = 0, n_time_ = 0, n_input_ = 0, n_cell_ = 0, n_output_ = 0;
  bool use_cifg_ = false, use_peephole_ = false, use_projection_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateUnidirectionalSequenceLstm(const Node& node) {
  if (node.inputs.size() != 24 && node.inputs.size() != 20) {
    return InvalidArgumentError(node.Describe() + ": expected 24 inputs (or the legacy 20), got " +
                                std::to_string(node.inputs.size()));
  }
  if (node.outputs.size() != 1) {
    return InvalidArgumentError(node.Describe() + ": expected 1 output, got " + std::to_string(node.outputs.size()));
  }
  // Hybrid as TFLite tells it (IsHybridOp): float input over quantized
  // input_to_output weights; that kernel refuses weight types it lacks.
  if (node.input_type(kInput) == DataType::kFloat32 && node.inputs[4] >= 0 && node.input_type(4) != DataType::kFloat32) {
    return CreateHybridUnidirectionalSequenceLstm(node);
  }
  const auto* options = GetOptions<tflite::UnidirectionalSequenceLSTMOptions>(node);
  const auto activation = options != nullptr ? options->fused_activation_function() : tflite::ActivationFunctionType::NONE;
  if (activation == tflite::ActivationFunctionType::SIGN_BIT) {
    return UnimplementedError(node.Describe() + ": SIGN_BIT activation is not supported in the LSTM");
  }
  const bool layer_norm = node.inputs.size() == 24 && node.inputs[kForgetLayerNorm] >= 0;
  return std::unique_ptr<Kernel>(std::make_unique<FloatLstmKernel>(
      options != nullptr && options->time_major(), options != nullptr ? options->cell_clip() : 0.f,
      options != nullptr ? options->proj_clip() : 0.f, layer_norm,
      options != nullptr && options->diagonal_recurrent_tensors(), activation));
}

}  // namespace relite::cpu
