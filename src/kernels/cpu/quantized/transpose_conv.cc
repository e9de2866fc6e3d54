// TRANSPOSE_CONV on quantized NHWC activations: inputs (output_shape int32[4],
// weights [Cout,KH,KW,Cin], input [N,H,W,Cin][, bias [Cout]]).
//
// The int32 (int64 for 16x8) accumulator of every output element is exact:
// one GEMM per input row ([in_w x Cin] times [Cin x KH*KW*Cout], on qgemm with
// the input zero point folded into the packed weights) gives every
// contribution of the row, which is added into an integer accumulator band
// (col2im); each output element is requantized once, bias added, when its
// band is complete.
//
// Arithmetic (verified against LiteRT 2.3.0, see the tests):
//  - XNNPACK's when TFLite's default delegate takes the node (8-bit, constant
//    weights and bias, a declared 4-D output shape consistent with the
//    padding):
//    out = clamp(round_half_even(float(acc) * s[c]) + zp), s[c] =
//    in_scale * w_scale[c] / out_scale in float32, activation bounds
//    lrintf(clamp(act / out_scale + zp)).
//  - TFLite's optimized builtin kernel otherwise (8-bit): acc + bias times the
//    Q31 multiplier of in_scale * w_scale[c] / out_scale (double), by its
//    vector code (see VectorRequantize) for int8 channels in whole groups of
//    8 and uint8 elements in whole groups of 16 (flat index), and by
//    MultiplyByQuantizedMultiplier for the rest; clamp to the fused
//    activation's range (round(act / out_scale) + zp).
//  - 16x8 (TFLite's reference kernel): int64 accumulator and bias, the Q31
//    multiplier reduced to 16 bits, one rounding shift.
// Weights must be constant; int8 weights symmetric (zero point 0).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/conv_util.h"
#include "src/kernels/cpu/internal/gemm.h"
#include "src/kernels/cpu/internal/qconv_util.h"
#include "src/kernels/cpu/internal/qgemm.h"
#include "src/kernels/cpu/internal/transpose_conv_core.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

constexpr int kOutputShapeInput = 0;
constexpr int kWeightsInput = 1;
constexpr int kDataInput = 2;
constexpr int kBiasInput = 3;
// Accumulator elements of one band (bounds the per-thread scratch).
constexpr int64_t kBandElements = int64_t{1} << 16;

inline size_t Align64(size_t bytes) { return (bytes + 63) / 64 * 64; }

// The vector requantization of TFLite's optimized TRANSPOSE_CONV (its NEON
// code, emulated on x86): a positive exponent shifts left first; a rounding
// doubling high multiply (halves up); a negative exponent then shifts right
// rounding half up: (hi + 2^(r-1)) >> r. Unlike MultiplyByQuantizedMultiplier,
// the final shift does not round halves away from zero.
inline int32_t VectorRequantize(int32_t x, QuantizedMultiplier m) {
  const int left = std::max(0, m.shift);
  const int right = std::max(0, -m.shift);
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  int64_t hi;
  if (shifted == INT32_MIN && m.multiplier == INT32_MIN) {
    hi = INT32_MAX;
  } else {
    hi = (int64_t{shifted} * m.multiplier * 2 + (int64_t{1} << 31)) >> 32;
  }
  if (right == 0) return static_cast<int32_t>(hi);
  return static_cast<int32_t>((hi + (int64_t{1} << (right - 1))) >> right);
}

class QuantizedTransposeConvKernel final : public Kernel {
 public:
  explicit QuantizedTransposeConvKernel(const TransposeConvParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  Status Eval(KernelContext& ctx) override;

 private:
  struct EvalJob {
    const QuantizedTransposeConvKernel* kernel;
    const uint8_t* input;  // bytes of the input (int16 for 16x8)
    const void* bias;      // int32 (int64 for 16x8) or null
    uint8_t* output;
    char* scratch;
    int active_slots;
  };

  Status CheckOutputShape(KernelContext& ctx, Shape* shape) const;
  bool XnnpackTakesNode(KernelContext& ctx, bool bias_constant) const;
  void RunSlot(const EvalJob& job, int slot) const;
  void RunBand8(const EvalJob& job, int b, int oy0, int oy1, char* scratch) const;
  void RunBand16(const EvalJob& job, int b, int oy0, int oy1, char* scratch) const;
  void Requantize8(const int32_t* acc, const int32_t* bias, int pixels, size_t flat_offset, uint8_t* out) const;

  TransposeConvParams params_;
  DataType type_ = DataType::kUInt8;
  QParams in_q_, out_q_;
  WeightQParams w_q_;
  bool xnnpack_ = false;
  bool output_shape_checked_ = false, output_declared_ = false;
  QuantizedRange range_{};
  std::vector<float> scales_;                     // XNNPACK
  std::vector<QuantizedMultiplier> multipliers_;  // TFLite builtin
  int batch_ = 0, in_h_ = 0, in_w_ = 0, in_c_ = 0;
  int out_h_ = 0, out_w_ = 0, out_c_ = 0;
  int filter_h_ = 0, filter_w_ = 0;
  int pad_top_ = 0, pad_left_ = 0;
  int columns_ = 0;  // KH * KW * Cout
  uint8_t xor_mask_ = 0;
  QGemmWeights packed_;
  std::vector<int16_t> weights16_;  // 16x8
  const void* packed_from_ = nullptr;
  DataType packed_type_ = DataType::kFloat32;
  int band_rows_ = 1, bands_ = 1, slots_ = 1;
  size_t widened_bytes_ = 0, columns_bytes_ = 0, acc_bytes_ = 0, slot_bytes_ = 0;
};

Status QuantizedTransposeConvKernel::CheckOutputShape(KernelContext& ctx, Shape* shape) const {
  return ReadTransposeConvOutputShape(ctx, ctx.input(kOutputShapeInput), batch_, out_c_, shape);
}

// The conditions under which TFLite's XNNPACK delegate takes a quantized
// TRANSPOSE_CONV (and so its arithmetic applies).
bool QuantizedTransposeConvKernel::XnnpackTakesNode(KernelContext& ctx, bool bias_constant) const {
  if (type_ != DataType::kUInt8 && type_ != DataType::kInt8) return false;
  if (!bias_constant || !output_declared_) return false;
  if (batch_ <= 0 || in_h_ <= 0 || in_w_ <= 0 || in_c_ <= 0) return false;
  // Quantization parameters the delegate's type checks accept.
  if (type_ == DataType::kUInt8 && ctx.input(kWeightsInput).quant.quantized_dimension != 0) return false;
  if (ctx.has_input(kBiasInput)) {
    const Quantization& bq = ctx.input(kBiasInput).quant;
    if (!bq.IsQuantized() || bq.quantized_dimension != 0) return false;
  }
  if (params_.padding == PaddingType::kValid) {
    if (filter_h_ > out_h_ || filter_w_ > out_w_) return false;
  } else {
    // The input size SAME padding implies must be the actual one, and the
    // kernel at least as large as the stride.
    if (CeilDiv(out_h_, params_.stride_h) != in_h_ || CeilDiv(out_w_, params_.stride_w) != in_w_) return false;
    if (filter_h_ < params_.stride_h || filter_w_ < params_.stride_w) return false;
  }
  return true;
}

Status QuantizedTransposeConvKernel::Prepare(KernelContext& ctx) {
  if (ctx.num_inputs() < 3 || ctx.num_inputs() > 4) {
    return ctx.Error("expected 3 or 4 inputs (output_shape, weights, input[, bias]), got " +
                     std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expected 1 output, got " + std::to_string(ctx.num_outputs()));
  if (!ctx.has_input(kOutputShapeInput) || !ctx.has_input(kWeightsInput) || !ctx.has_input(kDataInput)) {
    return ctx.Error("output_shape, weights and input are required");
  }
  if (params_.stride_h <= 0 || params_.stride_w <= 0) {
    return ctx.Error("strides must be positive, got " + std::to_string(params_.stride_h) + "x" +
                     std::to_string(params_.stride_w));
  }
  const Tensor& input = ctx.input(kDataInput);
  const Tensor& weights = ctx.input(kWeightsInput);
  const Tensor& output = ctx.output(0);
  type_ = input.type;
  if (!IsQuantizedIntType(type_)) return ctx.Unsupported("input type " + DataTypeName(type_) + " is not supported");
  const DataType want_w = type_ == DataType::kUInt8 ? DataType::kUInt8 : DataType::kInt8;
  if (weights.type != want_w || output.type != type_) {
    return ctx.Unsupported("input " + DataTypeName(type_) + " with " + DataTypeName(weights.type) + " weights and " +
                           DataTypeName(output.type) + " output is not supported");
  }
  if (weights.sparsity != nullptr) return ctx.Unsupported("sparse weights are not supported");
  if (input.rank() != 4) return ctx.Error("input must be 4-D [N,H,W,Cin], got " + ShapeToString(input.shape));
  if (weights.rank() != 4) {
    return ctx.Error("weights must be 4-D [Cout,KH,KW,Cin], got " + ShapeToString(weights.shape));
  }
  if (!weights.is_constant() || weights.data == nullptr) {
    return ctx.Unsupported("weights computed by the graph are not supported");
  }
  batch_ = input.dim(0);
  in_h_ = input.dim(1);
  in_w_ = input.dim(2);
  in_c_ = input.dim(3);
  out_c_ = weights.dim(0);
  filter_h_ = weights.dim(1);
  filter_w_ = weights.dim(2);
  if (out_c_ <= 0 || filter_h_ <= 0 || filter_w_ <= 0 || weights.dim(3) <= 0) {
    return ctx.Error("weights dimensions must be positive, got " + ShapeToString(weights.shape));
  }
  if (weights.dim(3) != in_c_) {
    return ctx.Error("weights input channels " + std::to_string(weights.dim(3)) + " differ from the input's " +
                     std::to_string(in_c_));
  }
  RELITE_RETURN_IF_ERROR(GetTensorQParams(ctx, input, "input", &in_q_));
  RELITE_RETURN_IF_ERROR(GetTensorQParams(ctx, output, "output", &out_q_));
  RELITE_RETURN_IF_ERROR(GetWeightQParams(ctx, weights, 0, out_c_, &w_q_));
  if (type_ == DataType::kUInt8 && w_q_.per_channel) {
    return ctx.Unsupported("uint8 weights must be quantized per tensor");
  }
  if (type_ != DataType::kUInt8) {
    for (int32_t zp : w_q_.zero_point) {
      if (zp != 0) return ctx.Unsupported("int8 weights must have zero point 0, got " + std::to_string(zp));
    }
  }
  if (type_ == DataType::kInt16 && (in_q_.zero_point != 0 || out_q_.zero_point != 0)) {
    return ctx.Error("int16 input and output must have zero point 0");
  }
  bool bias_constant = true;
  if (ctx.has_input(kBiasInput)) {
    const Tensor& bias = ctx.input(kBiasInput);
    const DataType want_b = type_ == DataType::kInt16 ? DataType::kInt64 : DataType::kInt32;
    if (bias.type != want_b) {
      return ctx.Error("bias must be " + DataTypeName(want_b) + " for " + DataTypeName(type_) + " input, got " +
                       DataTypeName(bias.type));
    }
    if (bias.num_elements() != out_c_) {
      return ctx.Error("bias must have " + std::to_string(out_c_) + " elements, got " + ShapeToString(bias.shape));
    }
    bias_constant = bias.is_constant() && bias.data != nullptr;
  }

  if (!output_shape_checked_) {
    // XNNPACK's delegate runs before shapes are inferred: it takes the node
    // only when the model declares a 4-D output shape of positive sizes.
    // Decided once, so that a later Prepare (after the first inferred
    // shape) keeps the same arithmetic.
    output_declared_ = output.rank() == 4;
    for (int i = 0; output_declared_ && i < 4; ++i) output_declared_ = output.dim(i) > 0;
    output_shape_checked_ = true;
  }
  Shape out_shape;
  RELITE_RETURN_IF_ERROR(CheckOutputShape(ctx, &out_shape));
  out_h_ = out_shape[1];
  out_w_ = out_shape[2];
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));
  // Padding is that of the forward convolution from the output back to the input.
  RELITE_RETURN_IF_ERROR(CheckTransposedWindow(ctx.node(), in_h_, out_h_, filter_h_, params_.stride_h));
  RELITE_RETURN_IF_ERROR(CheckTransposedWindow(ctx.node(), in_w_, out_w_, filter_w_, params_.stride_w));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pad_top_window, ComputeWindow(ctx.node(), params_.padding, out_h_, filter_h_, params_.stride_h, 1));

  pad_top_ = pad_top_window.pad_before;
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pad_left_window, ComputeWindow(ctx.node(), params_.padding, out_w_, filter_w_, params_.stride_w, 1));

  pad_left_ = pad_left_window.pad_before;
  const int64_t columns = int64_t{filter_h_} * filter_w_ * out_c_;
  if (columns > INT32_MAX / 2 || int64_t{out_w_} * out_c_ > INT32_MAX / 2) {
    return ctx.Unsupported("transposed convolution too large for 32-bit indexing");
  }
  columns_ = static_cast<int>(columns);

  xnnpack_ = XnnpackTakesNode(ctx, bias_constant);
  if (xnnpack_) {
    range_ = XnnActivationRange(params_.activation, type_, out_q_.scale, out_q_.zero_point);
    scales_ = XnnScales(in_q_.scale, w_q_.scale, out_q_.scale);
  } else {
    range_ = QuantizedActivationRange(params_.activation, type_, out_q_.scale, out_q_.zero_point);
    multipliers_ = TfliteMultipliers(in_q_.scale, w_q_.scale, out_q_.scale);
  }

  slots_ = std::max(1, ctx.num_threads());
  const int64_t row_elements = std::max<int64_t>(1, int64_t{out_w_} * out_c_);
  int64_t band_rows = std::clamp<int64_t>(kBandElements / row_elements, 1, std::max(out_h_, 1));
  if (slots_ > 1) {
    const int want_bands = CeilDiv(2 * slots_, std::max(batch_, 1));
    band_rows = std::min<int64_t>(band_rows, std::max(1, CeilDiv(std::max(out_h_, 1), want_bands)));
  }
  band_rows_ = static_cast<int>(band_rows);
  bands_ = CeilDiv(std::max(out_h_, 1), band_rows_);

  const size_t acc_size = type_ == DataType::kInt16 ? sizeof(int64_t) : sizeof(int32_t);
  acc_bytes_ = Align64(static_cast<size_t>(band_rows_) * row_elements * acc_size);
  if (type_ == DataType::kInt16) {
    widened_bytes_ = columns_bytes_ = 0;
  } else {
    widened_bytes_ = Align64(static_cast<size_t>(std::max(in_w_, 1)) * QGemmRowStride(in_c_) * sizeof(int16_t));
    columns_bytes_ = Align64(static_cast<size_t>(std::max(in_w_, 1)) * columns_ * sizeof(int32_t));
  }
  slot_bytes_ = widened_bytes_ + columns_bytes_ + acc_bytes_;
  ctx.RequestScratch(static_cast<size_t>(slots_) * slot_bytes_ + 64);

  if (type_ == DataType::kInt16) {
    // Taps-major int16 copy of the weights: [KH][KW][Cout][Cin].
    const size_t taps = static_cast<size_t>(filter_h_) * filter_w_;
    const size_t cin = static_cast<size_t>(in_c_);
    weights16_.resize(static_cast<size_t>(columns_) * cin);
    const auto* w = static_cast<const int8_t*>(weights.data);
    for (size_t oc = 0; oc < static_cast<size_t>(out_c_); ++oc) {
      for (size_t t = 0; t < taps; ++t) {
        const int8_t* src = w + (oc * taps + t) * cin;
        std::copy(src, src + cin, weights16_.data() + (t * out_c_ + oc) * cin);
      }
    }
    return Status::Ok();
  }
  xor_mask_ = QGemmInputBias(type_);
  if (packed_from_ != weights.data || packed_type_ != type_) {
    // Rows (ky, kx, oc) of Cin weights; the accumulators need no scale.
    const size_t taps = static_cast<size_t>(filter_h_) * filter_w_;
    const size_t cin = static_cast<size_t>(in_c_);
    std::vector<uint8_t> reordered(static_cast<size_t>(columns_) * cin);
    std::vector<int32_t> zero_points(static_cast<size_t>(columns_));
    const auto* w = static_cast<const uint8_t*>(weights.data);
    for (size_t oc = 0; oc < static_cast<size_t>(out_c_); ++oc) {
      for (size_t t = 0; t < taps; ++t) {
        const size_t row = t * out_c_ + oc;
        std::memcpy(reordered.data() + row * cin, w + (oc * taps + t) * cin, cin);
        zero_points[row] = w_q_.zero_point[oc];
      }
    }
    const int32_t a_zp = in_q_.zero_point + (type_ == DataType::kInt8 ? 128 : 0);
    const float unit_scale = 1.f;
    if (!QPackWeights(reordered.data(), weights.type, columns_, in_c_, cin, zero_points.data(), true, nullptr, a_zp,
                      &unit_scale, false, &packed_)) {
      return InternalError(ctx.node().Describe() + ": out of memory packing the weights");
    }
    packed_from_ = weights.data;
    packed_type_ = type_;
  }
  return Status::Ok();
}

void QuantizedTransposeConvKernel::Requantize8(const int32_t* acc, const int32_t* bias, int pixels,
                                               size_t flat_offset, uint8_t* out) const {
  const int cout = out_c_;
  const bool is_int8 = type_ == DataType::kInt8;
  const int32_t zp = out_q_.zero_point;
  if (xnnpack_) {
    for (int p = 0; p < pixels; ++p) {
      const int32_t* a = acc + static_cast<size_t>(p) * cout;
      uint8_t* o = out + static_cast<size_t>(p) * cout;
      int c = 0;
      for (; c < cout; ++c) {
        const int32_t v = a[c] + (bias != nullptr ? bias[c] : 0);
        o[c] = static_cast<uint8_t>(RequantizeFp32(v, scales_[static_cast<size_t>(c)], zp, range_.min, range_.max));
      }
    }
    return;
  }
  // TFLite's optimized kernel requantizes int8 per channel with its vector
  // code for the channels in whole groups of 8 and with
  // MultiplyByQuantizedMultiplier for the rest; uint8 with the vector code
  // for the elements of the output in whole groups of 16 (flat index) and
  // MultiplyByQuantizedMultiplier for the tail.
  const int vector_channels = is_int8 ? cout / 8 * 8 : 0;
  const size_t total = static_cast<size_t>(batch_) * out_h_ * out_w_ * cout;
  const size_t vector_end = is_int8 ? 0 : total / 16 * 16;
  for (int p = 0; p < pixels; ++p) {
    const int32_t* a = acc + static_cast<size_t>(p) * cout;
    uint8_t* o = out + static_cast<size_t>(p) * cout;
    const size_t flat = flat_offset + static_cast<size_t>(p) * cout;
    for (int c = 0; c < cout; ++c) {
      const int32_t v = a[c] + (bias != nullptr ? bias[c] : 0);
      const QuantizedMultiplier m = multipliers_[static_cast<size_t>(c)];
      const bool vector = is_int8 ? c < vector_channels : flat + static_cast<size_t>(c) < vector_end;
      const int64_t q = int64_t{vector ? VectorRequantize(v, m) : MultiplyByQuantizedMultiplier(v, m)} + zp;
      o[c] = static_cast<uint8_t>(std::clamp<int64_t>(q, range_.min, range_.max));
    }
  }
}

void QuantizedTransposeConvKernel::RunBand8(const EvalJob& job, int b, int oy0, int oy1, char* scratch) const {
  auto* widened = reinterpret_cast<int16_t*>(scratch);
  auto* columns = reinterpret_cast<int32_t*>(scratch + widened_bytes_);
  auto* acc = reinterpret_cast<int32_t*>(scratch + widened_bytes_ + columns_bytes_);
  const size_t cout = static_cast<size_t>(out_c_);
  const size_t out_row = static_cast<size_t>(out_w_) * cout;
  std::fill(acc, acc + static_cast<size_t>(oy1 - oy0) * out_row, 0);
  const int sh = params_.stride_h, sw = params_.stride_w;
  const int iy_lo = std::max(0, CeilDiv(oy0 + pad_top_ - filter_h_ + 1, sh));
  const int iy_hi = std::min(in_h_ - 1, FloorDiv(oy1 - 1 + pad_top_, sh));
  const size_t tap_row_cols = static_cast<size_t>(filter_w_) * cout;
  const size_t lda = QGemmRowStride(in_c_);
  for (int iy = iy_lo; iy <= iy_hi; ++iy) {
    const int oy_base = iy * sh - pad_top_;
    const int ky_lo = std::max(0, oy0 - oy_base);
    const int ky_hi = std::min(filter_h_, oy1 - oy_base);
    if (ky_lo >= ky_hi) continue;
    const int col_begin = static_cast<int>(ky_lo * tap_row_cols) / kQGemmPanelWidth * kQGemmPanelWidth;
    const int col_end = static_cast<int>(ky_hi * tap_row_cols);
    const uint8_t* in_row = job.input + (static_cast<size_t>(b) * in_h_ + iy) * in_w_ * in_c_;
    QWidenRows(in_row, static_cast<size_t>(in_c_), in_w_, in_c_, xor_mask_, widened);
    QGemmAcc(in_w_, widened, lda, packed_, columns + col_begin, static_cast<size_t>(columns_), col_begin, col_end);
    for (int ix = 0; ix < in_w_; ++ix) {
      const int ox_base = ix * sw - pad_left_;
      const int kx_lo = std::max(0, -ox_base);
      const int kx_hi = std::min(filter_w_, out_w_ - ox_base);
      if (kx_lo >= kx_hi) continue;
      const int32_t* src_pixel = columns + static_cast<size_t>(ix) * columns_;
      const size_t count = static_cast<size_t>(kx_hi - kx_lo) * cout;
      for (int ky = ky_lo; ky < ky_hi; ++ky) {
        int32_t* dst = acc + static_cast<size_t>(oy_base + ky - oy0) * out_row + static_cast<size_t>(ox_base + kx_lo) * cout;
        const int32_t* src = src_pixel + ky * tap_row_cols + kx_lo * cout;
        for (size_t i = 0; i < count; ++i) dst[i] += src[i];
      }
    }
  }
  const size_t flat_offset = (static_cast<size_t>(b) * out_h_ + oy0) * out_row;
  Requantize8(acc, static_cast<const int32_t*>(job.bias), (oy1 - oy0) * out_w_, flat_offset, job.output + flat_offset);
}

void QuantizedTransposeConvKernel::RunBand16(const EvalJob& job, int b, int oy0, int oy1, char* scratch) const {
  auto* acc = reinterpret_cast<int64_t*>(scratch);
  const size_t cout = static_cast<size_t>(out_c_);
  const size_t cin = static_cast<size_t>(in_c_);
  const size_t out_row = static_cast<size_t>(out_w_) * cout;
  std::fill(acc, acc + static_cast<size_t>(oy1 - oy0) * out_row, int64_t{0});
  const auto* input = reinterpret_cast<const int16_t*>(job.input);
  const int sh = params_.stride_h, sw = params_.stride_w;
  const int iy_lo = std::max(0, CeilDiv(oy0 + pad_top_ - filter_h_ + 1, sh));
  const int iy_hi = std::min(in_h_ - 1, FloorDiv(oy1 - 1 + pad_top_, sh));
  for (int iy = iy_lo; iy <= iy_hi; ++iy) {
    const int oy_base = iy * sh - pad_top_;
    const int ky_lo = std::max(0, oy0 - oy_base);
    const int ky_hi = std::min(filter_h_, oy1 - oy_base);
    for (int ix = 0; ix < in_w_; ++ix) {
      const int ox_base = ix * sw - pad_left_;
      const int kx_lo = std::max(0, -ox_base);
      const int kx_hi = std::min(filter_w_, out_w_ - ox_base);
      const int16_t* x = input + ((static_cast<size_t>(b) * in_h_ + iy) * in_w_ + ix) * cin;
      for (int ky = ky_lo; ky < ky_hi; ++ky) {
        for (int kx = kx_lo; kx < kx_hi; ++kx) {
          int64_t* dst = acc + static_cast<size_t>(oy_base + ky - oy0) * out_row + static_cast<size_t>(ox_base + kx) * cout;
          const int16_t* tap = weights16_.data() + (static_cast<size_t>(ky) * filter_w_ + kx) * cout * cin;
          for (size_t oc = 0; oc < cout; ++oc) {
            const int16_t* f = tap + oc * cin;
            // int32 partial sums of at most 2^8 products of magnitude <= 2^22.
            int64_t sum = 0;
            for (size_t c0 = 0; c0 < cin; c0 += 256) {
              const size_t c1 = std::min(cin, c0 + 256);
              int32_t part = 0;
              for (size_t c = c0; c < c1; ++c) part += int32_t{x[c]} * int32_t{f[c]};
              sum += part;
            }
            dst[oc] += sum;
          }
        }
      }
    }
  }
  const auto* bias = static_cast<const int64_t*>(job.bias);
  auto* out = reinterpret_cast<int16_t*>(job.output) + (static_cast<size_t>(b) * out_h_ + oy0) * out_row;
  const size_t n = static_cast<size_t>(oy1 - oy0) * out_row;
  for (size_t i = 0; i < n; ++i) {
    const size_t c = i % cout;
    const int64_t v = acc[i] + (bias != nullptr ? bias[c] : 0);
    const int32_t q = MultiplyByReducedMultiplier64(v, multipliers_[c]);
    out[i] = static_cast<int16_t>(std::clamp(q, range_.min, range_.max));
  }
}

void QuantizedTransposeConvKernel::RunSlot(const EvalJob& job, int slot) const {
  int begin, end;
  SlotTaskRange(batch_ * bands_, job.active_slots, slot, &begin, &end);
  char* scratch = reinterpret_cast<char*>(AlignFloats64(job.scratch)) + static_cast<size_t>(slot) * slot_bytes_;
  for (int t = begin; t < end; ++t) {
    const int b = t / bands_;
    const int oy0 = (t % bands_) * band_rows_;
    const int oy1 = std::min(out_h_, oy0 + band_rows_);
    if (oy0 >= oy1) continue;
    if (type_ == DataType::kInt16) {
      RunBand16(job, b, oy0, oy1, scratch);
    } else {
      RunBand8(job, b, oy0, oy1, scratch);
    }
  }
}

Status QuantizedTransposeConvKernel::Eval(KernelContext& ctx) {
  if (batch_ == 0 || out_h_ == 0 || out_w_ == 0) return Status::Ok();
  const bool has_bias = ctx.has_input(kBiasInput);
  const EvalJob job{this,
                    static_cast<const uint8_t*>(ctx.input(kDataInput).data),
                    has_bias ? ctx.input(kBiasInput).data : nullptr,
                    static_cast<uint8_t*>(ctx.output(0).data),
                    static_cast<char*>(ctx.scratch()),
                    std::min(slots_, batch_ * bands_)};
  if (job.active_slots <= 1) {
    RunSlot(job, 0);
    return Status::Ok();
  }
  ctx.ParallelFor(job.active_slots, 1, [&job](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s) job.kernel->RunSlot(job, static_cast<int>(s));
  });
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedTransposeConv(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(TransposeConvParams params, ParseTransposeConvParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedTransposeConvKernel>(params));
}

}  // namespace relite::cpu
