// UNIDIRECTIONAL_SEQUENCE_LSTM, full-integer version ("8x8_16"): int8 input,
// output and output state, int8 weights, int32 biases, int16 cell state,
// int16 peephole and layer-norm weights. XNNPACK does not take this op, so
// TFLite runs its builtin integer LSTM; this kernel reproduces it bit for bit.
//
// Per time step and batch row (x: input, h: output state, c: cell state):
//   gate_g = clamp16(MBQM(bx_g + W_xg . x, s_xg)) then
//            clamp16(MBQM(bh_g + W_hg . h, s_hg) + gate_g)      (Q3.12, or the
//            layer-norm intermediate's scale when layer norm is on)
//            [+ clamp16(MBQM(w_cg * c, s_cg) + gate_g)  peephole]
//            [layer norm in integer arithmetic, then bias]
//   i, f, o = logistic(gate) (Q3.12 -> Q0.15),  g = tanh(gate) (Q3.12 -> Q0.15)
//   c = sat16(rdiv(f * c, 2^15) + rdiv(i * g, 2^(30 + log2(cell_scale))))
//       (CIFG: i = 32767 - f), then clipped to +-cell_clip / cell_scale
//   h = clamp8(MBQM(o * tanh(c), 2^-30 / hidden_scale) + hidden_zp), or with
//   projection: hid = clamp8(MBQM(o * tanh(c), ...) - hidden_zp),
//   h = clamp8(MBQM(bp + hidden_zp * sum(W_p) + W_p . hid, s_p) + h_zp) [clip]
// where MBQM is TFLite's MultiplyByQuantizedMultiplier, bx_g/bh_g fold the
// gate bias and the input/state zero points into one int32 per row, and
// every effective scale s is float32 arithmetic on the tensor scales in
// TFLite's order, then QuantizeMultiplier.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "relite/kernel.h"
#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/lstm_fixed_point.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// Operator inputs (TFLite's numbering).
enum LstmInput : int {
  kInput = 0,
  kInputToInput = 1,
  kInputToForget = 2,
  kInputToCell = 3,
  kInputToOutput = 4,
  kRecurrentToInput = 5,
  kRecurrentToForget = 6,
  kRecurrentToCell = 7,
  kRecurrentToOutput = 8,
  kCellToInput = 9,
  kCellToForget = 10,
  kCellToOutput = 11,
  kInputGateBias = 12,
  kForgetGateBias = 13,
  kCellGateBias = 14,
  kOutputGateBias = 15,
  kProjectionWeights = 16,
  kProjectionBias = 17,
  kOutputState = 18,
  kCellState = 19,
  kInputLayerNorm = 20,
  kForgetLayerNorm = 21,
  kCellLayerNorm = 22,
  kOutputLayerNorm = 23,
};

enum Gate : int { kGateInput = 0, kGateForget = 1, kGateCell = 2, kGateOutput = 3 };
constexpr int kNumGates = 4;
constexpr int kGateInputWeights[kNumGates] = {kInputToInput, kInputToForget, kInputToCell, kInputToOutput};
constexpr int kGateRecurrentWeights[kNumGates] = {kRecurrentToInput, kRecurrentToForget, kRecurrentToCell,
                                                  kRecurrentToOutput};
constexpr int kGatePeephole[kNumGates] = {kCellToInput, kCellToForget, -1, kCellToOutput};
constexpr int kGateBias[kNumGates] = {kInputGateBias, kForgetGateBias, kCellGateBias, kOutputGateBias};
constexpr int kGateLayerNorm[kNumGates] = {kInputLayerNorm, kForgetLayerNorm, kCellLayerNorm, kOutputLayerNorm};
const char* const kGateName[kNumGates] = {"input", "forget", "cell", "output"};

// sum_k a[k] * b[k] over int8 vectors, exact in int32 for any length we accept.
inline int32_t DotInt8(const int8_t* a, const int8_t* b, int n) {
  int k = 0;
  int32_t sum = 0;
#if defined(__AVX2__)
  __m256i acc = _mm256_setzero_si256();
  for (; k + 16 <= n; k += 16) {
    const __m256i va = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + k)));
    const __m256i vb = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + k)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(va, vb));
  }
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  sum = _mm_cvtsi128_si32(s);
#endif
  for (; k < n; ++k) sum += static_cast<int32_t>(a[k]) * b[k];
  return sum;
}

inline int16_t Clamp16(int32_t v) { return static_cast<int16_t>(std::clamp(v, -32768, 32767)); }
inline int8_t Clamp8(int32_t v) { return static_cast<int8_t>(std::clamp(v, -128, 127)); }
// Two's-complement wrap of int32 arithmetic (what TFLite's int32 code does on overflow).
inline int32_t WrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t WrapMul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// TFLite's GetInvSqrtQuantizedMultiplierExp with reverse_shift = -1:
// 1/sqrt(x) as a Q31 multiplier and a shift for MultiplyByQuantizedMultiplier.
QuantizedMultiplier InverseSqrtMultiplier(int32_t x) {
  QuantizedMultiplier m;
  if (x <= 1) {
    m.multiplier = INT32_MAX;
    m.shift = 0;
    return m;
  }
  int shift = 11;
  while (x >= (1 << 29)) {
    x /= 4;
    ++shift;
  }
  const int leading_zeros = __builtin_clz(static_cast<uint32_t>(x));
  const int pairs = (leading_zeros - 1) / 2 - 1;
  shift -= pairs;
  x <<= 2 * pairs;
  // Newton-Raphson in Q3.28 (gemmlowp FixedPoint<int32_t, 3>) from x = 1.
  auto mul = [](int32_t a, int32_t b) { return SaturatingRoundingDoublingHighMul(a, b); };
  auto rescale_from_6 = [](int32_t v) {  // Q6 -> Q3: multiply by 2^3, saturating
    if (v > (1 << 28) - 1) return INT32_MAX;
    if (v < -((1 << 28) - 1)) return INT32_MIN;
    return static_cast<int32_t>(static_cast<uint32_t>(v) << 3);
  };
  const int32_t input_q3 = x >> 1;
  const int32_t half_input = RoundingDivideByPOT(input_q3, 1);
  const int32_t half_three = (1 << 28) + (1 << 27);  // 1.5
  int32_t y = 1 << 28;                               // 1.0
  for (int i = 0; i < 5; ++i) {
    // y*y: Q3*Q3 = Q6; (y*y)*y: Q6*Q3 = Q9; Rescale<3> from Q9 multiplies by 2^6.
    const int32_t yy = mul(y, y);
    const int32_t yyy = mul(yy, y);
    int32_t y3;
    if (yyy > (1 << 25) - 1) {
      y3 = INT32_MAX;
    } else if (yyy < -((1 << 25) - 1)) {
      y3 = INT32_MIN;
    } else {
      y3 = static_cast<int32_t>(static_cast<uint32_t>(yyy) << 6);
    }
    // half_three * y: Q3*Q3 = Q6; half_input * y3: Q6; difference Q6; Rescale<3>.
    const int32_t diff = static_cast<int32_t>(static_cast<uint32_t>(mul(half_three, y)) -
                                              static_cast<uint32_t>(mul(half_input, y3)));
    y = rescale_from_6(diff);
  }
  constexpr int32_t kHalfSqrt2 = 1518500250;  // sqrt(2)/2 in Q0.31
  y = mul(y, kHalfSqrt2);                      // Q3 * Q0 = Q3
  if (shift < 0) {
    y = static_cast<int32_t>(static_cast<uint32_t>(y) << -shift);
    shift = 0;
  }
  m.multiplier = y;
  m.shift = -shift;
  return m;
}

// The gate nonlinearities as 64K-entry tables over every int16 input, each
// entry computed by the fixed-point algorithm itself (so exact by
// construction); built once per process, on first use.
class Int16Table {
 public:
  explicit Int16Table(lstm_fp::UnaryFn fn) : values_(new int16_t[65536]) {
    for (int v = INT16_MIN; v <= INT16_MAX; ++v) values_[static_cast<uint16_t>(v)] = fn(static_cast<int16_t>(v));
  }
  int16_t operator()(int16_t x) const { return values_[static_cast<uint16_t>(x)]; }

 private:
  std::unique_ptr<int16_t[]> values_;
};

const Int16Table& LogisticQ3Table() {
  static const Int16Table table(&lstm_fp::Logistic<3>);
  return table;
}

// tanh for 0..6 integer bits (3 is the cell gate's Q3.12).
const Int16Table& TanhTable(int integer_bits) {
  static std::once_flag once[7];
  static std::unique_ptr<Int16Table> tables[7];
  std::call_once(once[integer_bits], [integer_bits] {
    tables[integer_bits] = std::make_unique<Int16Table>(lstm_fp::TanhForIntegerBits(integer_bits));
  });
  return *tables[integer_bits];
}

struct GateParams {
  bool present = false;
  const int8_t* w_input = nullptr;      // [n_cell, n_input]
  const int8_t* w_recurrent = nullptr;  // [n_cell, n_output]
  std::vector<int32_t> input_bias;      // gate bias (unless layer norm) + input zero-point term
  std::vector<int32_t> recurrent_bias;  // output-state zero-point term
  QuantizedMultiplier input_scale, recurrent_scale;
  const int16_t* peephole = nullptr;  // [n_cell]
  QuantizedMultiplier peephole_scale;
  const int16_t* layer_norm = nullptr;  // [n_cell]
  const int32_t* layer_norm_bias = nullptr;
  QuantizedMultiplier layer_norm_scale;
  int32_t variance_guard = 1;
};

class QuantizedLstmKernel final : public Kernel {
 public:
  QuantizedLstmKernel(bool time_major, float cell_clip, float proj_clip, bool layer_norm)
      : time_major_(time_major), cell_clip_(cell_clip), proj_clip_(proj_clip), use_layer_norm_(layer_norm) {}

  Status Prepare(KernelContext& ctx) override;
  Status Eval(KernelContext& ctx) override;

 private:
  Status CheckInputs(KernelContext& ctx);
  void ComputeEffectiveBiases(KernelContext& ctx);
  void BindPointers(KernelContext& ctx);
  // One time step for `rows` batch rows stored contiguously (input rows of
  // n_input_, state rows of n_output_ / n_cell_).
  void Step(const int8_t* input, int rows, int8_t* output_state, int16_t* cell_state, int8_t* output,
            uint8_t* scratch) const;
  void ComputeGate(const GateParams& g, int gate, const int8_t* input, const int8_t* output_state,
                   const int16_t* cell_state, int rows, int16_t* out) const;
  void LayerNorm(const GateParams& g, int16_t* gate) const;
  size_t ScratchBytesPerRow() const;

  const bool time_major_;
  const float cell_clip_, proj_clip_;
  const bool use_layer_norm_;

  int n_batch_ = 0, n_time_ = 0, n_input_ = 0, n_cell_ = 0, n_output_ = 0;
  bool use_cifg_ = false, use_peephole_ = false, use_projection_ = false;
  bool constant_weights_ = false;
  GateParams gates_[kNumGates];
  const int8_t* w_projection_ = nullptr;
  std::vector<int32_t> projection_bias_;
  QuantizedMultiplier projection_scale_, hidden_scale_;
  int32_t hidden_zp_ = 0, output_state_zp_ = 0;
  int32_t input_zp_ = 0;
  int cell_scale_log2_ = -15;
  int16_t quantized_cell_clip_ = 0;
  int8_t quantized_proj_clip_ = 0;
  const Int16Table* cell_tanh_ = nullptr;  // tanh of the cell state (15 + log2 scale integer bits)
  const Int16Table* gate_tanh_ = nullptr;  // Q3.12
  const Int16Table* gate_logistic_ = nullptr;
  bool sequential_rows_ = false;  // time-major batch handled as one TFLite step (peephole quirk)
};

// Per-tensor scale of an input, with a clear error when it is missing or per-channel.
Status TensorScale(KernelContext& ctx, int index, const char* what, float* scale) {
  const Tensor& t = ctx.input(index);
  if (!t.quant.IsQuantized()) return ctx.Error(std::string(what) + " (input " + std::to_string(index) + ") has no quantization scale");
  if (t.quant.IsPerChannel()) {
    return ctx.Unsupported(std::string(what) + " (input " + std::to_string(index) +
                           ") is quantized per channel; TFLite's integer LSTM takes one scale per tensor");
  }
  *scale = t.quant.scale[0];
  return Status::Ok();
}

Status QuantizedLstmKernel::CheckInputs(KernelContext& ctx) {
  const Node& node = ctx.node();
  const Tensor& input = ctx.input(kInput);
  if (input.type != DataType::kInt8) {
    return ctx.Unsupported("integer LSTM needs an int8 input, got " + DataTypeName(input.type));
  }
  if (input.rank() != 3) return ctx.Error("input must be 3-D, got " + ShapeToString(input.shape));
  for (int i : {kInputToForget, kInputToCell, kInputToOutput, kRecurrentToForget, kRecurrentToCell, kRecurrentToOutput,
                kForgetGateBias, kCellGateBias, kOutputGateBias, kOutputState, kCellState}) {
    if (!ctx.has_input(i)) return ctx.Error("required input " + std::to_string(i) + " is absent");
  }
  auto check_type = [&](int i, DataType want, const char* what) -> Status {
    if (!ctx.has_input(i)) return Status::Ok();
    const DataType got = ctx.input(i).type;
    if (got != want) {
      return ctx.Error(std::string(what) + " (input " + std::to_string(i) + ") must be " + DataTypeName(want) +
                       " in the integer LSTM, got " + DataTypeName(got));
    }
    return Status::Ok();
  };
  for (int g = 0; g < kNumGates; ++g) {
    RELITE_RETURN_IF_ERROR(check_type(kGateInputWeights[g], DataType::kInt8, "input weights"));
    RELITE_RETURN_IF_ERROR(check_type(kGateRecurrentWeights[g], DataType::kInt8, "recurrent weights"));
    RELITE_RETURN_IF_ERROR(check_type(kGateBias[g], DataType::kInt32, "gate bias"));
    if (kGatePeephole[g] >= 0) RELITE_RETURN_IF_ERROR(check_type(kGatePeephole[g], DataType::kInt16, "peephole weights"));
    if (use_layer_norm_) RELITE_RETURN_IF_ERROR(check_type(kGateLayerNorm[g], DataType::kInt16, "layer norm weights"));
  }
  RELITE_RETURN_IF_ERROR(check_type(kProjectionWeights, DataType::kInt8, "projection weights"));
  RELITE_RETURN_IF_ERROR(check_type(kProjectionBias, DataType::kInt32, "projection bias"));
  RELITE_RETURN_IF_ERROR(check_type(kOutputState, DataType::kInt8, "output state"));
  RELITE_RETURN_IF_ERROR(check_type(kCellState, DataType::kInt16, "cell state"));
  if (ctx.output(0).type != DataType::kInt8) {
    return ctx.Error("output must be int8 in the integer LSTM, got " + DataTypeName(ctx.output(0).type));
  }
  for (int i : {kOutputState, kCellState}) {
    if (!ctx.input(i).is_variable) {
      return ctx.Error(std::string(i == kOutputState ? "output state" : "cell state") + " (input " + std::to_string(i) +
                       ") must be a variable tensor");
    }
  }
  (void)node;
  return Status::Ok();
}

Status QuantizedLstmKernel::Prepare(KernelContext& ctx) {
  RELITE_RETURN_IF_ERROR(CheckInputs(ctx));
  const Tensor& input = ctx.input(kInput);
  n_time_ = time_major_ ? input.dim(0) : input.dim(1);
  n_batch_ = time_major_ ? input.dim(1) : input.dim(0);
  n_input_ = input.dim(2);
  const Tensor& w_io = ctx.input(kInputToOutput);
  const Tensor& w_ro = ctx.input(kRecurrentToOutput);
  if (w_io.rank() != 2 || w_ro.rank() != 2) return ctx.Error("weights must be 2-D");
  n_cell_ = w_io.dim(0);
  n_output_ = w_ro.dim(1);
  if (n_time_ < 0 || n_batch_ < 0 || n_input_ <= 0 || n_cell_ <= 0 || n_output_ <= 0) {
    return ctx.Error("bad dimensions: input " + ShapeToString(input.shape) + ", input_to_output_weights " +
                     ShapeToString(w_io.shape) + ", recurrent_to_output_weights " + ShapeToString(w_ro.shape));
  }
  auto expect_shape = [&](int i, const Shape& want, const char* what) -> Status {
    if (!ctx.has_input(i)) return Status::Ok();
    if (ctx.input(i).shape != want) {
      return ctx.Error(std::string(what) + " (input " + std::to_string(i) + ") must have shape " + ShapeToString(want) +
                       ", got " + ShapeToString(ctx.input(i).shape));
    }
    return Status::Ok();
  };
  for (int g = 0; g < kNumGates; ++g) {
    RELITE_RETURN_IF_ERROR(expect_shape(kGateInputWeights[g], {n_cell_, n_input_}, "input weights"));
    RELITE_RETURN_IF_ERROR(expect_shape(kGateRecurrentWeights[g], {n_cell_, n_output_}, "recurrent weights"));
    RELITE_RETURN_IF_ERROR(expect_shape(kGateBias[g], {n_cell_}, "gate bias"));
    if (kGatePeephole[g] >= 0) RELITE_RETURN_IF_ERROR(expect_shape(kGatePeephole[g], {n_cell_}, "peephole weights"));
    if (use_layer_norm_) RELITE_RETURN_IF_ERROR(expect_shape(kGateLayerNorm[g], {n_cell_}, "layer norm weights"));
  }
  RELITE_RETURN_IF_ERROR(expect_shape(kProjectionWeights, {n_output_, n_cell_}, "projection weights"));
  RELITE_RETURN_IF_ERROR(expect_shape(kProjectionBias, {n_output_}, "projection bias"));

  use_cifg_ = !ctx.has_input(kInputToInput);
  if (ctx.has_input(kInputToInput) != ctx.has_input(kRecurrentToInput)) {
    return ctx.Error("input_to_input and recurrent_to_input weights must both be present or both absent (CIFG)");
  }
  if (use_cifg_ == ctx.has_input(kInputGateBias)) {
    return ctx.Error(use_cifg_ ? "CIFG LSTM (no input gate weights) must not have an input gate bias"
                               : "input gate bias is required when the input gate has weights");
  }
  use_peephole_ = ctx.has_input(kCellToOutput);
  const bool peephole_ok = (ctx.has_input(kCellToForget) == use_peephole_) &&
                           (use_cifg_ ? !ctx.has_input(kCellToInput) || use_peephole_
                                      : ctx.has_input(kCellToInput) == use_peephole_);
  if (!peephole_ok) return ctx.Error("peephole weights must be all present or all absent");
  use_projection_ = ctx.has_input(kProjectionWeights);
  if (!use_projection_ && ctx.has_input(kProjectionBias)) return ctx.Error("projection bias without projection weights");
  if (use_layer_norm_) {
    for (int g = kGateForget; g < kNumGates; ++g) {
      if (!ctx.has_input(kGateLayerNorm[g])) return ctx.Error(std::string("layer norm weights of the ") + kGateName[g] + " gate are absent");
    }
    if (use_cifg_ == ctx.has_input(kInputLayerNorm)) {
      return ctx.Error(use_cifg_ ? "CIFG LSTM must not have input layer norm weights"
                                 : "input layer norm weights are required with layer norm and an input gate");
    }
  }
  if (use_peephole_ && n_output_ > n_cell_) {
    // TFLite walks the peephole vector with the output size; larger than
    // n_cell it reads past the weights.
    return ctx.Unsupported("peephole weights with more outputs than cells (" + std::to_string(n_output_) + " > " +
                           std::to_string(n_cell_) + ")");
  }
  if (cell_clip_ < 0.f || proj_clip_ < 0.f) return ctx.Error("cell_clip and proj_clip must be >= 0");

  const Tensor& output_state = ctx.input(kOutputState);
  const Tensor& cell_state = ctx.input(kCellState);
  if (output_state.num_elements() != static_cast<int64_t>(n_batch_) * n_output_) {
    return ctx.Error("output state " + ShapeToString(output_state.shape) + " must hold batch * n_output = " +
                     std::to_string(static_cast<int64_t>(n_batch_) * n_output_) + " elements");
  }
  if (cell_state.num_elements() != static_cast<int64_t>(n_batch_) * n_cell_) {
    return ctx.Error("cell state " + ShapeToString(cell_state.shape) + " must hold batch * n_cell = " +
                     std::to_string(static_cast<int64_t>(n_batch_) * n_cell_) + " elements");
  }

  // Quantization parameters.
  const auto& intermediates = ctx.node().intermediates;
  if (intermediates.size() != 5) {
    return ctx.Error("the integer LSTM needs 5 intermediate tensors (gate scales and the hidden state), got " +
                     std::to_string(intermediates.size()));
  }
  float gate_scale[kNumGates];
  for (int g = 0; g < kNumGates; ++g) {
    if (use_layer_norm_) {
      const Tensor& t = ctx.intermediate(g);
      if (!t.quant.IsQuantized()) {
        return ctx.Error(std::string("intermediate ") + std::to_string(g) + " (" + kGateName[g] +
                         " gate) needs a quantization scale with layer norm");
      }
      gate_scale[g] = t.quant.scale[0];
    } else {
      gate_scale[g] = static_cast<float>(std::pow(2.0, -12));  // Q3.12
    }
  }
  const Tensor& hidden = ctx.intermediate(4);
  if (!hidden.quant.IsQuantized()) return ctx.Error("intermediate 4 (hidden state) has no quantization scale");
  const float hidden_scale = hidden.quant.scale[0];
  hidden_zp_ = static_cast<int32_t>(hidden.quant.zero_point.empty() ? 0 : hidden.quant.zero_point[0]);

  float input_scale, output_state_scale, cell_state_scale;
  RELITE_RETURN_IF_ERROR(TensorScale(ctx, kInput, "input", &input_scale));
  RELITE_RETURN_IF_ERROR(TensorScale(ctx, kOutputState, "output state", &output_state_scale));
  RELITE_RETURN_IF_ERROR(TensorScale(ctx, kCellState, "cell state", &cell_state_scale));
  input_zp_ = static_cast<int32_t>(input.quant.zero_point[0]);
  output_state_zp_ = static_cast<int32_t>(output_state.quant.zero_point[0]);
  {
    // The cell state scale must be a power of two (TFLite's CheckedLog2).
    const float log2_scale = std::log(cell_state_scale) * (1.0f / std::log(2.0f));
    const float rounded = std::round(log2_scale);
    if (std::abs(log2_scale - rounded) >= 1e-3f) {
      return ctx.Error("cell state scale " + std::to_string(cell_state_scale) + " is not a power of two");
    }
    cell_scale_log2_ = static_cast<int>(rounded);
  }
  if (lstm_fp::TanhForIntegerBits(15 + cell_scale_log2_) == nullptr) {
    return ctx.Unsupported("cell state scale 2^" + std::to_string(cell_scale_log2_) +
                           " is outside TFLite's range 2^-15 .. 2^-9");
  }
  cell_tanh_ = &TanhTable(15 + cell_scale_log2_);
  gate_tanh_ = &TanhTable(3);
  gate_logistic_ = &LogisticQ3Table();

  for (int g = 0; g < kNumGates; ++g) {
    GateParams& p = gates_[g];
    p = GateParams();
    p.present = !(g == kGateInput && use_cifg_);
    if (!p.present) continue;
    float w_in_scale, w_rec_scale;
    RELITE_RETURN_IF_ERROR(TensorScale(ctx, kGateInputWeights[g], "input weights", &w_in_scale));
    RELITE_RETURN_IF_ERROR(TensorScale(ctx, kGateRecurrentWeights[g], "recurrent weights", &w_rec_scale));
    const float eff_in = w_in_scale * input_scale / gate_scale[g];
    const float eff_rec = w_rec_scale * output_state_scale / gate_scale[g];
    p.input_scale = QuantizeMultiplier(eff_in);
    p.recurrent_scale = QuantizeMultiplier(eff_rec);
    if (use_peephole_ && kGatePeephole[g] >= 0) {
      float w_c_scale;
      RELITE_RETURN_IF_ERROR(TensorScale(ctx, kGatePeephole[g], "peephole weights", &w_c_scale));
      const float eff_c =
          static_cast<float>(std::pow(2.0, cell_scale_log2_) * static_cast<double>(w_c_scale) / gate_scale[g]);
      p.peephole_scale = QuantizeMultiplier(eff_c);
    }
    if (use_layer_norm_) {
      float ln_scale;
      RELITE_RETURN_IF_ERROR(TensorScale(ctx, kGateLayerNorm[g], "layer norm weights", &ln_scale));
      p.layer_norm_scale = QuantizeMultiplier(ln_scale);
      p.variance_guard = std::max(1, static_cast<int32_t>(10000 * ln_scale));
    }
  }
  {
    const double h = std::pow(2.0, -15) / static_cast<double>(hidden_scale) * std::pow(2.0, -15);
    hidden_scale_ = QuantizeMultiplier(static_cast<float>(h));
  }
  if (use_projection_) {
    float w_p_scale;
    RELITE_RETURN_IF_ERROR(TensorScale(ctx, kProjectionWeights, "projection weights", &w_p_scale));
    projection_scale_ = QuantizeMultiplier(w_p_scale * hidden_scale / output_state_scale);
  }
  quantized_cell_clip_ = cell_clip_ > 0.f
                             ? static_cast<int16_t>(std::min(32767.0f, std::max(-32768.0f, cell_clip_ / cell_state_scale)))
                             : int16_t{0};
  if (proj_clip_ > 0.f) {
    const Tensor& output = ctx.output(0);
    if (!output.quant.IsQuantized()) return ctx.Error("output has no quantization scale (needed for proj_clip)");
    quantized_proj_clip_ = static_cast<int8_t>(std::min(127.0f, std::max(-128.0f, proj_clip_ / output.quant.scale[0])));
  } else {
    quantized_proj_clip_ = 0;
  }

  Shape out_shape = input.shape;
  out_shape.back() = n_output_;
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));

  sequential_rows_ = time_major_ && use_peephole_ && n_output_ != n_cell_ && n_batch_ > 1;
  ctx.RequestScratch(ScratchBytesPerRow() * static_cast<size_t>(std::max(n_batch_, 1)));

  constant_weights_ = true;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (i == kOutputState || i == kCellState || !ctx.has_input(i)) continue;
    const Tensor& t = ctx.input(i);
    if (!t.is_constant() || t.data == nullptr) constant_weights_ = false;
  }
  if (constant_weights_) {
    BindPointers(ctx);
    ComputeEffectiveBiases(ctx);
  }
  return Status::Ok();
}

size_t QuantizedLstmKernel::ScratchBytesPerRow() const {
  // Four int16 gates, the int16 tanh of the cell, the int8 hidden state; each padded.
  const size_t gate_bytes = (static_cast<size_t>(n_cell_) * sizeof(int16_t) + 63) / 64 * 64;
  const size_t hidden_bytes = (static_cast<size_t>(n_cell_) + 63) / 64 * 64;
  return 5 * gate_bytes + hidden_bytes;
}

void QuantizedLstmKernel::BindPointers(KernelContext& ctx) {
  for (int g = 0; g < kNumGates; ++g) {
    GateParams& p = gates_[g];
    if (!p.present) continue;
    p.w_input = ctx.input(kGateInputWeights[g]).data_as<int8_t>();
    p.w_recurrent = ctx.input(kGateRecurrentWeights[g]).data_as<int8_t>();
    p.peephole = (use_peephole_ && kGatePeephole[g] >= 0) ? ctx.input(kGatePeephole[g]).data_as<int16_t>() : nullptr;
    p.layer_norm = use_layer_norm_ ? ctx.input(kGateLayerNorm[g]).data_as<int16_t>() : nullptr;
    p.layer_norm_bias = use_layer_norm_ ? ctx.input(kGateBias[g]).data_as<int32_t>() : nullptr;
  }
  w_projection_ = use_projection_ ? ctx.input(kProjectionWeights).data_as<int8_t>() : nullptr;
}

// bias + zero_point * row_sum(W), in wrapping int32 as TFLite computes it.
static void FoldZeroPoint(const int8_t* w, int rows, int cols, const int32_t* bias, int32_t zero_point,
                          std::vector<int32_t>* out) {
  out->assign(static_cast<size_t>(rows), 0);
  for (int r = 0; r < rows; ++r) {
    int32_t row_sum = 0;
    for (int c = 0; c < cols; ++c) row_sum += w[static_cast<size_t>(r) * cols + c];
    const int32_t b = bias != nullptr ? bias[r] : 0;
    (*out)[static_cast<size_t>(r)] = WrapAdd(b, WrapMul(row_sum, zero_point));
  }
}

void QuantizedLstmKernel::ComputeEffectiveBiases(KernelContext& ctx) {
  for (int g = 0; g < kNumGates; ++g) {
    GateParams& p = gates_[g];
    if (!p.present) continue;
    // With layer norm the gate bias is added after normalisation instead.
    const int32_t* bias = use_layer_norm_ ? nullptr : ctx.input(kGateBias[g]).data_as<int32_t>();
    FoldZeroPoint(p.w_input, n_cell_, n_input_, bias, -input_zp_, &p.input_bias);
    FoldZeroPoint(p.w_recurrent, n_cell_, n_output_, nullptr, -output_state_zp_, &p.recurrent_bias);
  }
  if (use_projection_) {
    const int32_t* bias = ctx.has_input(kProjectionBias) ? ctx.input(kProjectionBias).data_as<int32_t>() : nullptr;
    FoldZeroPoint(w_projection_, n_output_, n_cell_, bias, hidden_zp_, &projection_bias_);
  }
}

void QuantizedLstmKernel::LayerNorm(const GateParams& g, int16_t* gate) const {
  const int n = n_cell_;
  int64_t sum = 0, sum_sq = 0;
  for (int j = 0; j < n; ++j) {
    const int32_t v = gate[j];
    sum += v;
    sum_sq += v * v;
  }
  const auto mean = static_cast<int32_t>(sum * 1024 / n);
  const int32_t inv_n_q20 = (1 << 20) / n;
  const int64_t variance = sum_sq * inv_n_q20 - static_cast<int64_t>(mean) * mean;
  auto variance_q = static_cast<int32_t>(variance / (1 << 20));
  if (variance_q < 1) variance_q = g.variance_guard;
  const QuantizedMultiplier inv_stddev = InverseSqrtMultiplier(variance_q);
  QuantizedMultiplier out_scale = g.layer_norm_scale;
  out_scale.shift += 12;
  for (int j = 0; j < n; ++j) {
    const int32_t shifted = 1024 * static_cast<int32_t>(gate[j]) - mean;
    const int32_t rescaled = MultiplyByQuantizedMultiplier(shifted, inv_stddev);
    const int64_t weighted = WrapAdd(WrapMul(rescaled, g.layer_norm[j]), g.layer_norm_bias[j]);
    const auto rounded = static_cast<int32_t>((weighted > 0 ? weighted + 512 : weighted - 512) / 1024);
    gate[j] = Clamp16(MultiplyByQuantizedMultiplier(rounded, out_scale));
  }
}

void QuantizedLstmKernel::ComputeGate(const GateParams& g, int gate, const int8_t* input, const int8_t* output_state,
                                      const int16_t* cell_state, int rows, int16_t* out) const {
  const int nc = n_cell_;
  for (int b = 0; b < rows; ++b) {
    const int8_t* x = input + static_cast<size_t>(b) * n_input_;
    const int8_t* h = output_state + static_cast<size_t>(b) * n_output_;
    int16_t* o = out + static_cast<size_t>(b) * nc;
    for (int r = 0; r < nc; ++r) {
      const int32_t acc_x =
          WrapAdd(g.input_bias[static_cast<size_t>(r)], DotInt8(x, g.w_input + static_cast<size_t>(r) * n_input_, n_input_));
      const int16_t from_x = Clamp16(MultiplyByQuantizedMultiplier(acc_x, g.input_scale));
      const int32_t acc_h = WrapAdd(g.recurrent_bias[static_cast<size_t>(r)],
                                    DotInt8(h, g.w_recurrent + static_cast<size_t>(r) * n_output_, n_output_));
      o[r] = Clamp16(WrapAdd(MultiplyByQuantizedMultiplier(acc_h, g.recurrent_scale), from_x));
    }
  }
  if (g.peephole != nullptr) {
    // TFLite steps through the peephole vector and the flattened
    // [rows, n_cell] buffers with a stride of n_output (equal to n_cell
    // unless there is a projection).
    for (int b = 0; b < rows; ++b) {
      for (int v = 0; v < n_output_; ++v) {
        const size_t idx = static_cast<size_t>(b) * n_output_ + v;
        const int32_t prod = static_cast<int32_t>(g.peephole[v]) * cell_state[idx];
        out[idx] = Clamp16(WrapAdd(MultiplyByQuantizedMultiplier(prod, g.peephole_scale), out[idx]));
      }
    }
  }
  for (int b = 0; b < rows; ++b) {
    int16_t* o = out + static_cast<size_t>(b) * nc;
    if (g.layer_norm != nullptr) LayerNorm(g, o);
    const Int16Table& fn = gate == kGateCell ? *gate_tanh_ : *gate_logistic_;
    for (int r = 0; r < nc; ++r) o[r] = fn(o[r]);
  }
}

void QuantizedLstmKernel::Step(const int8_t* input, int rows, int8_t* output_state, int16_t* cell_state, int8_t* output,
                               uint8_t* scratch) const {
  const size_t n = static_cast<size_t>(rows) * n_cell_;
  const size_t gate_bytes = (n * sizeof(int16_t) + 63) / 64 * 64;
  int16_t* gate[kNumGates];
  for (int g = 0; g < kNumGates; ++g) gate[g] = reinterpret_cast<int16_t*>(scratch + g * gate_bytes);
  int16_t* cell_tanh = reinterpret_cast<int16_t*>(scratch + 4 * gate_bytes);
  int8_t* hidden = reinterpret_cast<int8_t*>(scratch + 5 * gate_bytes);

  for (int g = 0; g < kGateOutput; ++g) {
    if (gates_[g].present) ComputeGate(gates_[g], g, input, output_state, cell_state, rows, gate[g]);
  }
  // Cell update: c = f * c + i * g, saturating, then clipped.
  const int cell_shift = 30 + cell_scale_log2_;
  const int16_t* f = gate[kGateForget];
  const int16_t* gg = gate[kGateCell];
  for (size_t k = 0; k < n; ++k) {
    const auto kept = static_cast<int16_t>(RoundingDivideByPOT(static_cast<int32_t>(f[k]) * cell_state[k], 15));
    const int16_t i = use_cifg_ ? static_cast<int16_t>(32767 - f[k]) : gate[kGateInput][k];
    const auto added = static_cast<int16_t>(RoundingDivideByPOT(static_cast<int32_t>(i) * gg[k], cell_shift));
    int16_t c = Clamp16(static_cast<int32_t>(kept) + added);
    if (quantized_cell_clip_ > 0) c = std::clamp<int16_t>(c, static_cast<int16_t>(-quantized_cell_clip_), quantized_cell_clip_);
    cell_state[k] = c;
  }
  // The output gate's peephole sees the updated cell state.
  ComputeGate(gates_[kGateOutput], kGateOutput, input, output_state, cell_state, rows, gate[kGateOutput]);

  const int16_t* og = gate[kGateOutput];
  for (size_t k = 0; k < n; ++k) cell_tanh[k] = (*cell_tanh_)(cell_state[k]);
  // TFLite's convention, verified against LiteRT: without projection the
  // hidden state is written with +zp (it is the output state); the int8
  // vector fed to the projection is written with -zp, and the projection's
  // folded bias adds +zp * row_sum, which cancels it.
  int8_t* hidden_out = use_projection_ ? hidden : output_state;
  const int32_t hidden_out_zp = use_projection_ ? -hidden_zp_ : hidden_zp_;
  for (size_t k = 0; k < n; ++k) {
    const int32_t prod = static_cast<int32_t>(og[k]) * cell_tanh[k];
    hidden_out[k] = Clamp8(WrapAdd(MultiplyByQuantizedMultiplier(prod, hidden_scale_), hidden_out_zp));
  }
  if (use_projection_) {
    for (int b = 0; b < rows; ++b) {
      const int8_t* hb = hidden + static_cast<size_t>(b) * n_cell_;
      int8_t* ob = output_state + static_cast<size_t>(b) * n_output_;
      for (int o = 0; o < n_output_; ++o) {
        const int32_t acc = WrapAdd(projection_bias_[static_cast<size_t>(o)],
                                    DotInt8(hb, w_projection_ + static_cast<size_t>(o) * n_cell_, n_cell_));
        int32_t v = std::clamp(WrapAdd(MultiplyByQuantizedMultiplier(acc, projection_scale_), output_state_zp_), -128, 127);
        if (quantized_proj_clip_ > 0) v = std::clamp<int32_t>(v, -quantized_proj_clip_, quantized_proj_clip_);
        ob[o] = static_cast<int8_t>(v);
      }
    }
  }
  std::memcpy(output, output_state, static_cast<size_t>(rows) * n_output_);
}

Status QuantizedLstmKernel::Eval(KernelContext& ctx) {
  if (!constant_weights_) {
    BindPointers(ctx);
    ComputeEffectiveBiases(ctx);
  }
  if (n_batch_ == 0 || n_time_ == 0) return Status::Ok();
  const int8_t* input = ctx.input(kInput).data_as<int8_t>();
  int8_t* output = ctx.output(0).data_as<int8_t>();
  int8_t* output_state = ctx.input(kOutputState).data_as<int8_t>();
  int16_t* cell_state = ctx.input(kCellState).data_as<int16_t>();
  auto* scratch = static_cast<uint8_t*>(ctx.scratch());
  const size_t row_scratch = ScratchBytesPerRow();
  const size_t in_row = static_cast<size_t>(n_input_), out_row = static_cast<size_t>(n_output_);

  if (sequential_rows_) {
    // One step over the whole batch, exactly as TFLite groups it.
    for (int t = 0; t < n_time_; ++t) {
      Step(input + static_cast<size_t>(t) * n_batch_ * in_row, n_batch_, output_state, cell_state,
           output + static_cast<size_t>(t) * n_batch_ * out_row, scratch);
    }
    return Status::Ok();
  }
  // Every batch row is an independent recurrence.
  const int64_t work_per_row = static_cast<int64_t>(n_time_) * n_cell_ * (n_input_ + n_output_) * kNumGates;
  const int64_t min_rows = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(work_per_row, 1));
  ctx.ParallelFor(n_batch_, min_rows, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      uint8_t* s = scratch + static_cast<size_t>(b) * row_scratch;
      int8_t* h = output_state + static_cast<size_t>(b) * out_row;
      int16_t* c = cell_state + static_cast<size_t>(b) * n_cell_;
      for (int t = 0; t < n_time_; ++t) {
        const size_t row = time_major_ ? static_cast<size_t>(t) * n_batch_ + static_cast<size_t>(b)
                                       : static_cast<size_t>(b) * n_time_ + static_cast<size_t>(t);
        Step(input + row * in_row, 1, h, c, output + row * out_row, s);
      }
    }
  });
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedUnidirectionalSequenceLstm(const Node& node) {
  if (node.inputs.size() != 24 && node.inputs.size() != 20) {
    return InvalidArgumentError(node.Describe() + ": expected 24 inputs (or the legacy 20), got " +
                                std::to_string(node.inputs.size()));
  }
  if (node.outputs.size() != 1) {
    return InvalidArgumentError(node.Describe() + ": expected 1 output, got " + std::to_string(node.outputs.size()));
  }
  if (node.input_type(kInput) != DataType::kInt8) {
    return UnimplementedError(node.Describe() + ": LSTM with " + DataTypeName(node.input_type(kInput)) +
                              " input is not supported (the integer LSTM takes int8)");
  }
  const auto* options = GetOptions<tflite::UnidirectionalSequenceLSTMOptions>(node);
  const bool time_major = options != nullptr && options->time_major();
  const float cell_clip = options != nullptr ? options->cell_clip() : 0.f;
  const float proj_clip = options != nullptr ? options->proj_clip() : 0.f;
  if (options != nullptr && options->diagonal_recurrent_tensors()) {
    return UnimplementedError(node.Describe() + ": diagonal recurrent weights are not supported by the integer LSTM");
  }
  const bool layer_norm = node.inputs.size() == 24 && node.inputs[kForgetLayerNorm] >= 0;
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedLstmKernel>(time_major, cell_clip, proj_clip, layer_norm));
}

}  // namespace relite::cpu
