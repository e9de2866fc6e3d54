// Hybrid UNIDIRECTIONAL_SEQUENCE_LSTM: float input, state, biases, layer
// norm and output; int8 weights (input, recurrent, peephole and projection),
// one symmetric scale per weight tensor. The step is the float LSTM's
// (unidirectional_sequence_lstm.cc), with every matrix product done as
// TFLite's hybrid LSTM does it:
//   - per time step and batch row, x and the previous h are quantized to int8
//     on the fly (symmetric, or asymmetric under asymmetric_quantize_inputs:
//     internal/hybrid.h), once for all four gates;
//   - gate = bias [or 0 with layer norm]
//            + float(W_x . q_x - z_x * rowsum(W_x)) * (s_x * scale(W_x))
//            + float(W_h . q_h - z_h * rowsum(W_h)) * (s_h * scale(W_h))
//            [+ (float(w_c) * scale(w_c)) * c]          (peephole)
//     with the int8 products summed exactly in int32, then scaled and added
//     in float in that order;
//   - with projection, h = o * act(c) is quantized the same way and
//     h_out = clip(bias_p + float(W_p . q - z * rowsum(W_p)) * (s * scale(W_p))).
// TFLite skips a product whose whole input (all batch rows) is zero; a zero
// row adds +0 either way, so each batch row here runs on its own and rows run
// in parallel. TFLite reads one scale per weight tensor (a per-channel
// tensor has no single scale there), so per-channel weights are refused, as
// are diagonal recurrent weights and sparse or non-constant weights.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/hybrid.h"

namespace relite::cpu {
namespace {

enum : int {
  kInput = 0,
  kInputToInput = 1,   // 1..4: input-to-gate weights (input, forget, cell, output)
  kRecurrentToInput = 5,  // 5..8: recurrent-to-gate weights
  kCellToInput = 9,
  kCellToForget = 10,
  kCellToOutput = 11,
  kInputGateBias = 12,  // 12..15: gate biases
  kProjectionWeights = 16,
  kProjectionBias = 17,
  kOutputState = 18,
  kCellState = 19,
  kInputLayerNorm = 20,  // 20..23: layer norm coefficients
};
constexpr int kNumGates = 4;  // input, forget, cell, output
constexpr int kCellGate = 2;
constexpr int kPeepholeOf[kNumGates] = {kCellToInput, kCellToForget, -1, kCellToOutput};
// int8 x int8 products summed in int32 stay exact (and defined) while a row
// is shorter than 2^31 / 128^2; TFLite sums in int32 too.
constexpr int kMaxDepth = 1 << 16;

inline int32_t DotInt8(const int8_t* w, const int8_t* q, int n) {
  int32_t sum = 0;
  for (int k = 0; k < n; ++k) sum += static_cast<int32_t>(w[k]) * static_cast<int32_t>(q[k]);
  return sum;
}

inline bool AllZero(const float* v, int n) {
  for (int i = 0; i < n; ++i) {
    if (v[i] != 0.f) return false;
  }
  return true;
}

inline float Sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

// An int8 weight matrix with its scale and, for asymmetric inputs, the row
// sums that correct for the input's zero point.
struct QuantizedWeights {
  const int8_t* data = nullptr;
  float scale = 1.f;
  std::vector<int32_t> row_sums;
};

class HybridLstmKernel final : public Kernel {
 public:
  HybridLstmKernel(bool time_major, float cell_clip, float proj_clip, bool layer_norm, bool asymmetric,
                   tflite::ActivationFunctionType activation)
      : time_major_(time_major),
        cell_clip_(cell_clip),
        proj_clip_(proj_clip),
        use_layer_norm_(layer_norm),
        asymmetric_(asymmetric),
        activation_(activation) {}

  Status Prepare(KernelContext& ctx) override {
    const Tensor& input = ctx.input(kInput);
    if (input.type != DataType::kFloat32) return ctx.Error("hybrid input must be float32, got " + DataTypeName(input.type));
    if (input.rank() != 3) return ctx.Error("input must be 3-D, got " + ShapeToString(input.shape));
    for (int i : {2, 3, 4, 6, 7, 8, 13, 14, 15, int{kOutputState}, int{kCellState}}) {
      if (!ctx.has_input(i)) return ctx.Error("required input " + std::to_string(i) + " is absent");
    }
    if (ctx.output(0).type != DataType::kFloat32) return ctx.Error("output must be float32");
    if (cell_clip_ < 0.f || proj_clip_ < 0.f) return ctx.Error("cell_clip and proj_clip must be >= 0");
    n_time_ = time_major_ ? input.dim(0) : input.dim(1);
    n_batch_ = time_major_ ? input.dim(1) : input.dim(0);
    n_input_ = input.dim(2);
    const Tensor& w_io = ctx.input(4);
    const Tensor& w_ro = ctx.input(8);
    if (w_io.rank() != 2 || w_ro.rank() != 2) {
      return ctx.Error("input_to_output and recurrent_to_output weights must be 2-D, got " + ShapeToString(w_io.shape) +
                       " and " + ShapeToString(w_ro.shape));
    }
    n_cell_ = w_io.dim(0);
    n_output_ = w_ro.dim(1);
    if (n_input_ <= 0 || n_cell_ <= 0 || n_output_ <= 0 || n_time_ < 0 || n_batch_ < 0) {
      return ctx.Error("bad dimensions: input " + ShapeToString(input.shape) + ", input_to_output weights " +
                       ShapeToString(w_io.shape) + ", recurrent_to_output weights " + ShapeToString(w_ro.shape));
    }
    if (n_input_ > kMaxDepth || n_cell_ > kMaxDepth || n_output_ > kMaxDepth) {
      return ctx.Unsupported("hybrid LSTM sizes above " + std::to_string(kMaxDepth) + " (input " + std::to_string(n_input_) +
                             ", cells " + std::to_string(n_cell_) + ", outputs " + std::to_string(n_output_) +
                             ") would overflow the int32 sums");
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
    auto expect_float = [&](int i, const char* what) -> Status {
      if (!ctx.has_input(i) || ctx.input(i).type == DataType::kFloat32) return Status::Ok();
      return ctx.Error(std::string(what) + " (input " + std::to_string(i) + ") must be float32 in the hybrid LSTM, got " +
                       DataTypeName(ctx.input(i).type));
    };
    for (int g = 0; g < kNumGates; ++g) {
      RELITE_RETURN_IF_ERROR(expect(1 + g, {n_cell_, n_input_}));
      RELITE_RETURN_IF_ERROR(expect(5 + g, {n_cell_, n_output_}));
      RELITE_RETURN_IF_ERROR(expect(12 + g, {n_cell_}));
      RELITE_RETURN_IF_ERROR(expect_float(12 + g, "gate bias"));
      if (kPeepholeOf[g] >= 0) RELITE_RETURN_IF_ERROR(expect(kPeepholeOf[g], {n_cell_}));
      if (use_layer_norm_) {
        if (g > 0 && !ctx.has_input(kInputLayerNorm + g)) return ctx.Error("layer norm weights are incomplete");
        RELITE_RETURN_IF_ERROR(expect(kInputLayerNorm + g, {n_cell_}));
        RELITE_RETURN_IF_ERROR(expect_float(kInputLayerNorm + g, "layer norm coefficients"));
      }
    }
    if (use_layer_norm_ && use_cifg_ == ctx.has_input(kInputLayerNorm)) {
      return ctx.Error("input layer norm weights must be present exactly when the input gate is");
    }
    RELITE_RETURN_IF_ERROR(expect(kProjectionWeights, {n_output_, n_cell_}));
    RELITE_RETURN_IF_ERROR(expect(kProjectionBias, {n_output_}));
    RELITE_RETURN_IF_ERROR(expect_float(kProjectionBias, "projection bias"));
    RELITE_RETURN_IF_ERROR(expect_float(kOutputState, "output state"));
    RELITE_RETURN_IF_ERROR(expect_float(kCellState, "cell state"));
    for (int i : {int{kOutputState}, int{kCellState}}) {
      if (!ctx.input(i).is_variable) return ctx.Error("state input " + std::to_string(i) + " must be a variable tensor");
    }
    if (ctx.input(kOutputState).num_elements() != static_cast<int64_t>(n_batch_) * n_output_ ||
        ctx.input(kCellState).num_elements() != static_cast<int64_t>(n_batch_) * n_cell_) {
      return ctx.Error("state tensors must hold batch * n_output and batch * n_cell elements");
    }

    // The int8 weights: matrices with their row sums, peephole weights
    // dequantized once (TFLite's recovered cell weights: scale * float(w)).
    for (int g = 0; g < kNumGates; ++g) {
      const bool present = !(g == 0 && use_cifg_);
      input_weights_[g] = {};
      recurrent_weights_[g] = {};
      peephole_[g].clear();
      if (present) {
        RELITE_RETURN_IF_ERROR(LoadWeights(ctx, 1 + g, n_cell_, n_input_, &input_weights_[g]));
        RELITE_RETURN_IF_ERROR(LoadWeights(ctx, 5 + g, n_cell_, n_output_, &recurrent_weights_[g]));
      }
      if (use_peephole_ && present && kPeepholeOf[g] >= 0) {
        QuantizedWeights p;
        RELITE_RETURN_IF_ERROR(LoadWeights(ctx, kPeepholeOf[g], n_cell_, 1, &p));
        peephole_[g].resize(static_cast<size_t>(n_cell_));
        for (int r = 0; r < n_cell_; ++r) peephole_[g][static_cast<size_t>(r)] = p.scale * static_cast<float>(p.data[r]);
      }
    }
    projection_ = {};
    if (use_projection_) RELITE_RETURN_IF_ERROR(LoadWeights(ctx, kProjectionWeights, n_output_, n_cell_, &projection_));

    Shape out_shape = input.shape;
    out_shape.back() = n_output_;
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));
    ctx.RequestScratch(RowScratchBytes() * static_cast<size_t>(std::max(n_batch_, 1)));
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    if (n_batch_ == 0 || n_time_ == 0) return Status::Ok();
    Ptrs p;
    for (int g = 0; g < kNumGates; ++g) {
      auto get = [&](int i) { return ctx.has_input(i) ? ctx.input(i).data_as<float>() : nullptr; };
      p.bias[g] = get(12 + g);
      p.layer_norm[g] = use_layer_norm_ ? get(kInputLayerNorm + g) : nullptr;
    }
    p.b_proj = ctx.has_input(kProjectionBias) ? ctx.input(kProjectionBias).data_as<float>() : nullptr;
    const float* input = ctx.input(kInput).data_as<float>();
    float* output = ctx.output(0).data_as<float>();
    float* output_state = ctx.input(kOutputState).data_as<float>();
    float* cell_state = ctx.input(kCellState).data_as<float>();
    auto* scratch = static_cast<uint8_t*>(ctx.scratch());
    const int64_t work = static_cast<int64_t>(n_time_) * n_cell_ * (n_input_ + n_output_) * kNumGates;
    const int64_t min_rows = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(work, 1));
    ctx.ParallelFor(n_batch_, min_rows, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        uint8_t* s = scratch + static_cast<size_t>(b) * RowScratchBytes();
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
    const float* bias[kNumGates];
    const float* layer_norm[kNumGates];
    const float* b_proj;
  };
  // One quantized vector: int8 values, scale and zero point, or all zero.
  struct QuantizedVector {
    const int8_t* q = nullptr;
    float scale = 1.f;
    int32_t zero_point = 0;
    bool zero = true;
  };

  Status LoadWeights(KernelContext& ctx, int i, int rows, int cols, QuantizedWeights* out) const {
    const Tensor& w = ctx.input(i);
    const std::string what = "weights (input " + std::to_string(i) + ")";
    if (w.type != DataType::kInt8) {
      return ctx.Unsupported(what + " are " + DataTypeName(w.type) +
                             "; the hybrid LSTM takes int8 weights for every matrix and peephole input");
    }
    if (!w.is_constant() || w.data == nullptr) return ctx.Unsupported(what + ": hybrid int8 weights must be constant");
    if (w.sparsity != nullptr) return ctx.Unsupported(what + ": sparse hybrid weights are not supported");
    if (w.quant.scale.size() != 1) {
      return ctx.Unsupported(what + " have " + std::to_string(w.quant.scale.size()) +
                             " scales; the hybrid LSTM takes one per-tensor scale (as TFLite's kernel reads)");
    }
    for (int64_t z : w.quant.zero_point) {
      if (z != 0) return ctx.Unsupported(what + " must be symmetric (zero point 0)");
    }
    const float scale = w.quant.scale[0];
    if (!(scale > 0.f) || !std::isfinite(scale)) return ctx.Error(what + ": scale must be positive and finite");
    if (w.num_elements() != static_cast<int64_t>(rows) * cols) {
      return ctx.Error(what + " must hold " + std::to_string(static_cast<int64_t>(rows) * cols) + " values, got " +
                       ShapeToString(w.shape));
    }
    out->data = w.data_as<int8_t>();
    out->scale = scale;
    out->row_sums.clear();
    if (asymmetric_ && cols > 1) {
      out->row_sums.resize(static_cast<size_t>(rows));
      for (int r = 0; r < rows; ++r) {
        int32_t sum = 0;
        for (int k = 0; k < cols; ++k) sum += out->data[static_cast<size_t>(r) * cols + k];
        out->row_sums[static_cast<size_t>(r)] = sum;
      }
    }
    return Status::Ok();
  }

  // Per batch row: four gates and the hidden vector (floats), then the
  // quantized x, h and hidden vector (int8).
  size_t RowScratchFloats() const { return static_cast<size_t>(n_cell_) * 5; }
  size_t RowScratchBytes() const {
    const size_t bytes = RowScratchFloats() * sizeof(float) + static_cast<size_t>(n_input_) + n_output_ + n_cell_;
    return (bytes + 63) / 64 * 64;
  }

  QuantizedVector Quantize(const float* v, int n, int8_t* q) const {
    QuantizedVector out;
    out.q = q;
    if (AllZero(v, n)) return out;  // TFLite skips the product (it would add +0)
    out.zero = false;
    out.scale = QuantizeToInt8(v, n, asymmetric_, q, &out.zero_point);
    return out;
  }

  // acc[r] += float(W[r] . q - z * rowsum(W[r])) * (s * scale(W)).
  static void Accumulate(const QuantizedWeights& w, int rows, int cols, const QuantizedVector& v, float* acc) {
    if (v.zero) return;
    const float scale = v.scale * w.scale;
    for (int r = 0; r < rows; ++r) {
      int32_t dot = DotInt8(w.data + static_cast<size_t>(r) * cols, v.q, cols);
      if (!w.row_sums.empty()) dot -= w.row_sums[static_cast<size_t>(r)] * v.zero_point;
      acc[r] += static_cast<float>(dot) * scale;
    }
  }

  float Activate(float v) const {
    switch (activation_) {
      case tflite::ActivationFunctionType::RELU: return std::max(v, 0.f);
      case tflite::ActivationFunctionType::RELU_N1_TO_1: return std::clamp(v, -1.f, 1.f);
      case tflite::ActivationFunctionType::RELU6: return std::clamp(v, 0.f, 6.f);
      case tflite::ActivationFunctionType::TANH: return std::tanh(v);
      default: return v;
    }
  }

  void Gate(const Ptrs& p, int g, const QuantizedVector& x, const QuantizedVector& h, const float* c, float* out) const {
    const bool ln = p.layer_norm[g] != nullptr;
    if (ln) {
      std::fill(out, out + n_cell_, 0.f);
    } else {
      std::copy(p.bias[g], p.bias[g] + n_cell_, out);
    }
    Accumulate(input_weights_[g], n_cell_, n_input_, x, out);
    Accumulate(recurrent_weights_[g], n_cell_, n_output_, h, out);
    if (!peephole_[g].empty()) {
      const float* w = peephole_[g].data();
      for (int r = 0; r < n_cell_; ++r) out[r] += w[r] * c[r];
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

  void Step(const Ptrs& p, const float* x, float* h, float* c, float* out, uint8_t* scratch) const {
    const int nc = n_cell_;
    auto* f32 = reinterpret_cast<float*>(scratch);
    float* gi = f32;
    float* gf = f32 + nc;
    float* gg = f32 + 2 * nc;
    float* go = f32 + 3 * nc;
    float* hidden = f32 + 4 * nc;
    auto* q_x = reinterpret_cast<int8_t*>(scratch + RowScratchFloats() * sizeof(float));
    int8_t* q_h = q_x + n_input_;
    int8_t* q_hidden = q_h + n_output_;
    // x and the previous h, quantized once for all gates.
    const QuantizedVector xq = Quantize(x, n_input_, q_x);
    const QuantizedVector hq = Quantize(h, n_output_, q_h);
    if (!use_cifg_) Gate(p, 0, xq, hq, c, gi);
    Gate(p, 1, xq, hq, c, gf);
    Gate(p, 2, xq, hq, c, gg);
    // c = f * c, then c += g * i (CIFG: i = 1 - f), then the clip.
    for (int r = 0; r < nc; ++r) {
      const float i = use_cifg_ ? 1.f - gf[r] : gi[r];
      float v = gf[r] * c[r];
      v += gg[r] * i;
      if (cell_clip_ > 0.f) v = std::clamp(v, -cell_clip_, cell_clip_);
      c[r] = v;
    }
    Gate(p, 3, xq, hq, c, go);  // the output gate's peephole sees the new cell
    for (int r = 0; r < nc; ++r) hidden[r] = go[r] * Activate(c[r]);
    if (use_projection_) {
      if (p.b_proj != nullptr) {
        std::copy(p.b_proj, p.b_proj + n_output_, h);
      } else {
        std::fill(h, h + n_output_, 0.f);
      }
      Accumulate(projection_, n_output_, nc, Quantize(hidden, nc, q_hidden), h);
      if (proj_clip_ > 0.f) {
        for (int o = 0; o < n_output_; ++o) h[o] = std::clamp(h[o], -proj_clip_, proj_clip_);
      }
    } else {
      std::memcpy(h, hidden, static_cast<size_t>(nc) * sizeof(float));
    }
    std::memcpy(out, h, static_cast<size_t>(n_output_) * sizeof(float));
  }

  const bool time_major_;
  const float cell_clip_, proj_clip_;
  const bool use_layer_norm_, asymmetric_;
  const tflite::ActivationFunctionType activation_;
  int n_batch_ = 0, n_time_ = 0, n_input_ = 0, n_cell_ = 0, n_output_ = 0;
  bool use_cifg_ = false, use_peephole_ = false, use_projection_ = false;
  QuantizedWeights input_weights_[kNumGates], recurrent_weights_[kNumGates], projection_;
  std::vector<float> peephole_[kNumGates];  // dequantized cell-to-gate weights
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateHybridUnidirectionalSequenceLstm(const Node& node) {
  const auto* options = GetOptions<tflite::UnidirectionalSequenceLSTMOptions>(node);
  const auto activation = options != nullptr ? options->fused_activation_function() : tflite::ActivationFunctionType::NONE;
  if (activation == tflite::ActivationFunctionType::SIGN_BIT) {
    return UnimplementedError(node.Describe() + ": SIGN_BIT activation is not supported in the LSTM");
  }
  if (options != nullptr && options->diagonal_recurrent_tensors()) {
    return UnimplementedError(node.Describe() +
                              ": diagonal recurrent weights are not supported in the hybrid (int8 weights) LSTM");
  }
  const bool layer_norm = node.inputs.size() == 24 && node.inputs[kInputLayerNorm + 1] >= 0;
  return std::unique_ptr<Kernel>(std::make_unique<HybridLstmKernel>(
      options != nullptr && options->time_major(), options != nullptr ? options->cell_clip() : 0.f,
      options != nullptr ? options->proj_clip() : 0.f, layer_norm,
      options != nullptr && options->asymmetric_quantize_inputs(), activation));
}

}  // namespace relite::cpu
