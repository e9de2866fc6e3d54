// Each input pixel contributes in[iy][ix][:] x W[:, ky, kx, :] to output
// pixel (iy * sh - pad_top + ky, ix * sw - pad_left + kx). One GEMM per
// input row computes every contribution of the row ([in_w x Cin] times
// [Cin x KH*KW*Cout]) into a column buffer, which is then added into the
// output (col2im). Threads own bands of output rows, so no two threads add
// into the same pixel; the input rows feeding two bands are multiplied twice,
// but only for the filter rows that reach each band.
//
// When the stride equals the filter size (2x2 stride-2 upsampling heads) no
// two contributions meet: the GEMM adds the bias and clamps, and its columns
// are copied into place instead of added.
#include "src/kernels/cpu/internal/transpose_conv_core.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/conv_util.h"
#include "src/kernels/cpu/internal/gemm.h"

namespace relite::cpu {
namespace {

class TransposeConvKernel final : public Kernel {
 public:
  TransposeConvKernel(const TransposeConvLayout& layout, const TransposeConvParams& params)
      : layout_(layout), params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  Status Eval(KernelContext& ctx) override;

 private:
  struct EvalJob {
    const TransposeConvKernel* kernel;
    const float* input;
    const float* bias;
    const float* column_bias;  // disjoint_: bias per GEMM column (ky, kx, oc), or null
    float* output;
    char* scratch;
    int active_slots;  // slots sharing the tasks (at most slots_)
  };
  Status ComputeOutputShape(KernelContext& ctx, Shape* shape) const;
  // Reorders W [Cout][KH][KW][Cin] to rows (ky, kx, oc) of Cin and packs them.
  void PackFilter(const float* weights, float* reordered, float* packed) const;
  void RunSlot(const EvalJob& job, int slot) const;
  void RunBand(const EvalJob& job, int b, int oy0, int oy1, float* columns) const;
  // Output rows [oy0, oy1) of image b set to the activated bias.
  void FillBias(const EvalJob& job, float* image, int oy0, int oy1, bool activate) const;

  TransposeConvLayout layout_;
  TransposeConvParams params_;
  ActivationRange act_{};
  int batch_ = 0, in_h_ = 0, in_w_ = 0, in_c_ = 0;
  int out_h_ = 0, out_w_ = 0, out_c_ = 0;
  int filter_h_ = 0, filter_w_ = 0;
  int pad_top_ = 0, pad_left_ = 0;
  int columns_ = 0;  // KH * KW * Cout
  // Row stride of the column buffer: columns_ rounded up to whole 8-float
  // panels, so the GEMM stores whole panels (the padding columns have zero
  // weights and bias) instead of going through its partial-panel copy.
  int column_stride_ = 0;
  bool disjoint_ = false;  // stride == filter size: one contribution per output pixel at most
  int bands_ = 1;    // output row bands per image
  int slots_ = 1;
  size_t slot_bytes_ = 0;

  bool weights_constant_ = false;
  const void* packed_from_ = nullptr;
  AlignedFloatBuffer packed_;
  std::vector<float> reordered_;  // staging for a filter computed by the graph
};

Status TransposeConvKernel::ComputeOutputShape(KernelContext& ctx, Shape* shape) const {
  if (layout_.output_shape < 0) {
    auto size = [&](int in, int stride, int filter) -> int64_t {
      if (in == 0) return 0;
      return params_.padding == PaddingType::kSame ? int64_t{in} * stride : int64_t{in - 1} * stride + filter;
    };
    const int64_t h = size(in_h_, params_.stride_h, filter_h_);
    const int64_t w = size(in_w_, params_.stride_w, filter_w_);
    if (h > INT32_MAX || w > INT32_MAX) return ctx.Error("output size overflows int32");
    *shape = {batch_, static_cast<int32_t>(h), static_cast<int32_t>(w), out_c_};
    return Status::Ok();
  }
  if (!ctx.has_input(layout_.output_shape)) return ctx.Error("output_shape input is required");
  return ReadTransposeConvOutputShape(ctx, ctx.input(layout_.output_shape), batch_, out_c_, shape);
}


Status TransposeConvKernel::Prepare(KernelContext& ctx) {
  if (ctx.num_inputs() < layout_.min_inputs || ctx.num_inputs() > layout_.max_inputs) {
    return ctx.Error("expected " + std::to_string(layout_.min_inputs) +
                     (layout_.max_inputs != layout_.min_inputs ? " to " + std::to_string(layout_.max_inputs) : "") +
                     " inputs, got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expected 1 output, got " + std::to_string(ctx.num_outputs()));
  if (!ctx.has_input(layout_.input) || !ctx.has_input(layout_.weights)) {
    return ctx.Error("input and weights are required");
  }
  const Tensor& input = ctx.input(layout_.input);
  const Tensor& weights = ctx.input(layout_.weights);
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, input, "input"));
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, weights, "weights"));
  if (weights.sparsity != nullptr) return ctx.Unsupported("sparse weights are not supported");
  if (ctx.output(0).type != DataType::kFloat32) {
    return ctx.Unsupported("output type " + DataTypeName(ctx.output(0).type) + " is not supported (float32 only)");
  }
  if (input.rank() != 4) return ctx.Error("input must be 4-D [N,H,W,Cin], got " + ShapeToString(input.shape));
  if (weights.rank() != 4) {
    return ctx.Error("weights must be 4-D [Cout,KH,KW,Cin], got " + ShapeToString(weights.shape));
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
  if (layout_.bias >= 0 && ctx.has_input(layout_.bias)) {
    const Tensor& bias = ctx.input(layout_.bias);
    RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, bias, "bias"));
    if (bias.num_elements() != out_c_) {
      return ctx.Error("bias must have " + std::to_string(out_c_) + " elements, got " + ShapeToString(bias.shape));
    }
  }

  Shape out_shape;
  RELITE_RETURN_IF_ERROR(ComputeOutputShape(ctx, &out_shape));
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
  act_ = GetActivationRange(params_.activation);
  const int64_t columns = int64_t{filter_h_} * filter_w_ * out_c_;
  if (columns > INT32_MAX) return ctx.Unsupported("weights too large for 32-bit indexing");
  columns_ = static_cast<int>(columns);
  column_stride_ = (columns_ + 7) / 8 * 8;

  slots_ = std::max(1, ctx.num_threads());
  bands_ = slots_ == 1 ? 1 : std::clamp(CeilDiv(2 * slots_, std::max(batch_, 1)), 1, std::max(out_h_, 1));
  slot_bytes_ = static_cast<size_t>(in_w_) * column_stride_ * sizeof(float) + 64;
  disjoint_ = params_.stride_h == filter_h_ && params_.stride_w == filter_w_;

  const size_t packed_floats = PackedWeightsSize(columns_, in_c_);
  weights_constant_ = weights.is_constant() && weights.data != nullptr;
  if (packed_.size() != packed_floats || (weights_constant_ && packed_from_ != weights.data)) {
    packed_.Resize(packed_floats);
    if (packed_.data() == nullptr) {
      return InternalError(ctx.node().Describe() + ": out of memory packing the weights");
    }
    packed_from_ = nullptr;
  }
  if (weights_constant_) {
    if (packed_from_ != weights.data) {
      std::vector<float> reordered(static_cast<size_t>(columns_) * in_c_);
      PackFilter(weights.data_as<float>(), reordered.data(), packed_.data());
      packed_from_ = weights.data;
    }
    reordered_.clear();
  } else {
    packed_from_ = nullptr;
    reordered_.resize(static_cast<size_t>(columns_) * in_c_);
  }
  ctx.RequestScratch(static_cast<size_t>(slots_) * slot_bytes_ + 64 +
                     (disjoint_ ? static_cast<size_t>(column_stride_) * sizeof(float) + 64 : 0));
  return Status::Ok();
}

void TransposeConvKernel::PackFilter(const float* weights, float* reordered, float* packed) const {
  const size_t taps = static_cast<size_t>(filter_h_) * filter_w_;
  const size_t cin = static_cast<size_t>(in_c_);
  for (size_t oc = 0; oc < static_cast<size_t>(out_c_); ++oc) {
    for (size_t t = 0; t < taps; ++t) {
      const float* src = weights + (oc * taps + t) * cin;
      std::copy(src, src + cin, reordered + (t * out_c_ + oc) * cin);
    }
  }
  PackWeights(reordered, columns_, in_c_, cin, packed);
}

void TransposeConvKernel::FillBias(const EvalJob& job, float* image, int oy0, int oy1, bool activate) const {
  const size_t cout = static_cast<size_t>(out_c_);
  const size_t out_row_floats = static_cast<size_t>(out_w_) * cout;
  float value[kGemmPanelWidth];
  for (int oy = oy0; oy < oy1; ++oy) {
    float* row = image + static_cast<size_t>(oy) * out_row_floats;
    if (job.bias == nullptr) {
      std::fill(row, row + out_row_floats, activate ? std::min(std::max(0.f, act_.min), act_.max) : 0.f);
    } else if (cout <= kGemmPanelWidth) {
      for (size_t c = 0; c < cout; ++c) {
        value[c] = activate ? std::min(std::max(job.bias[c], act_.min), act_.max) : job.bias[c];
      }
      for (size_t i = 0; i < out_row_floats; i += cout) {
        for (size_t c = 0; c < cout; ++c) row[i + c] = value[c];
      }
    } else {
      for (int ox = 0; ox < out_w_; ++ox) std::copy(job.bias, job.bias + cout, row + ox * cout);
      if (activate) {
        for (size_t i = 0; i < out_row_floats; ++i) row[i] = std::min(std::max(row[i], act_.min), act_.max);
      }
    }
  }
}

// dst[i * count + j] = src[i * src_stride + j] for i < n, j < count: one
// filter row's outputs of every input pixel, consecutive in the output row.
// Sizes known at compile time copy without a loop per pixel; false when
// `count` is not one of them.
template <size_t kCount>
void CopyFixedRows(const float* src, size_t src_stride, float* dst, int n) {
  for (int i = 0; i < n; ++i, src += src_stride, dst += kCount) std::memcpy(dst, src, kCount * sizeof(float));
}
bool CopyTapRows(const float* src, size_t src_stride, float* dst, size_t count, int n) {
  switch (count) {
    case 1: CopyFixedRows<1>(src, src_stride, dst, n); return true;
    case 2: CopyFixedRows<2>(src, src_stride, dst, n); return true;
    case 3: CopyFixedRows<3>(src, src_stride, dst, n); return true;
    case 4: CopyFixedRows<4>(src, src_stride, dst, n); return true;
    case 6: CopyFixedRows<6>(src, src_stride, dst, n); return true;
    case 8: CopyFixedRows<8>(src, src_stride, dst, n); return true;
    case 16: CopyFixedRows<16>(src, src_stride, dst, n); return true;
    default: return false;
  }
}

void TransposeConvKernel::RunBand(const EvalJob& job, int b, int oy0, int oy1, float* columns) const {
  const size_t cout = static_cast<size_t>(out_c_);
  const size_t out_row_floats = static_cast<size_t>(out_w_) * cout;
  float* image = job.output + static_cast<size_t>(b) * out_h_ * out_row_floats;
  const int sh = params_.stride_h, sw = params_.stride_w;
  // Disjoint taps: the GEMM's columns are final (bias and clamp in its
  // epilogue) and are copied; only pixels no input reaches (padding, or an
  // output_shape past in * stride) need the bias beforehand. Otherwise the
  // band starts from the bias and every contribution is added.
  const bool covered = disjoint_ && pad_top_ == 0 && pad_left_ == 0 && int64_t{out_h_} == int64_t{in_h_} * sh &&
                       int64_t{out_w_} == int64_t{in_w_} * sw;
  if (!covered) FillBias(job, image, oy0, oy1, /*activate=*/disjoint_);
  // Input rows with some iy * sh - pad_top + ky in [oy0, oy1).
  const int iy_lo = std::max(0, CeilDiv(oy0 + pad_top_ - filter_h_ + 1, sh));
  const int iy_hi = std::min(in_h_ - 1, FloorDiv(oy1 - 1 + pad_top_, sh));
  const size_t tap_row_cols = static_cast<size_t>(filter_w_) * cout;
  const GemmEpilogue epilogue = disjoint_ ? GemmEpilogue{job.column_bias, act_.min, act_.max} : GemmEpilogue{};
  for (int iy = iy_lo; iy <= iy_hi; ++iy) {
    const int oy_base = iy * sh - pad_top_;
    const int ky_lo = std::max(0, oy0 - oy_base);
    const int ky_hi = std::min(filter_h_, oy1 - oy_base);
    if (ky_lo >= ky_hi) continue;
    // Only the filter rows reaching this band; the GEMM wants panel-aligned column starts.
    const int col_begin = static_cast<int>(ky_lo * tap_row_cols) / kGemmPanelWidth * kGemmPanelWidth;
    // All filter rows: the whole padded width (whole panels).
    const int col_end = ky_hi == filter_h_ ? column_stride_ : static_cast<int>(ky_hi * tap_row_cols);
    const float* in_row = job.input + (static_cast<size_t>(b) * in_h_ + iy) * in_w_ * in_c_;
    GemmPacked(in_w_, column_stride_, in_c_, in_row, static_cast<size_t>(in_c_), packed_.data(), epilogue, columns,
               static_cast<size_t>(column_stride_), col_begin, col_end);
    for (int ky = ky_lo; ky < ky_hi; ++ky) {
      float* out_row = image + static_cast<size_t>(oy_base + ky) * out_row_floats;
      if (covered && CopyTapRows(columns + ky * tap_row_cols, static_cast<size_t>(column_stride_), out_row, tap_row_cols,
                                 in_w_)) {
        continue;
      }
      for (int ix = 0; ix < in_w_; ++ix) {
        const int ox_base = ix * sw - pad_left_;
        const int kx_lo = std::max(0, -ox_base);
        const int kx_hi = std::min(filter_w_, out_w_ - ox_base);
        if (kx_lo >= kx_hi) continue;
        const float* src = columns + static_cast<size_t>(ix) * column_stride_ + ky * tap_row_cols + kx_lo * cout;
        float* dst = out_row + static_cast<size_t>(ox_base + kx_lo) * cout;
        // Taps kx_lo..kx_hi-1 of a filter row land on consecutive output pixels
        // whatever the stride, so the row's contributions are one contiguous run.
        const size_t count = static_cast<size_t>(kx_hi - kx_lo) * cout;
        if (disjoint_) {
          for (size_t i = 0; i < count; ++i) dst[i] = src[i];
        } else {
          for (size_t i = 0; i < count; ++i) dst[i] += src[i];
        }
      }
    }
  }
  if (!disjoint_ && params_.activation != Activation::kNone) {
    float* first = image + static_cast<size_t>(oy0) * out_row_floats;
    float* last = image + static_cast<size_t>(oy1) * out_row_floats;
    for (float* p = first; p < last; ++p) *p = std::min(std::max(*p, act_.min), act_.max);
  }
}

void TransposeConvKernel::RunSlot(const EvalJob& job, int slot) const {
  int begin, end;
  SlotTaskRange(batch_ * bands_, job.active_slots, slot, &begin, &end);
  float* columns = AlignFloats64(job.scratch + static_cast<size_t>(slot) * slot_bytes_);
  const int band_rows = CeilDiv(out_h_, bands_);
  for (int t = begin; t < end; ++t) {
    const int b = t / bands_;
    const int oy0 = (t % bands_) * band_rows;
    const int oy1 = std::min(out_h_, oy0 + band_rows);
    if (oy0 < oy1) RunBand(job, b, oy0, oy1, columns);
  }
}

Status TransposeConvKernel::Eval(KernelContext& ctx) {
  if (batch_ == 0 || out_h_ == 0 || out_w_ == 0) return Status::Ok();
  if (!weights_constant_) {
    PackFilter(ctx.input(layout_.weights).data_as<float>(), reordered_.data(), packed_.data());
  }
  const bool has_bias = layout_.bias >= 0 && ctx.has_input(layout_.bias);
  const float* bias = has_bias ? ctx.input(layout_.bias).data_as<float>() : nullptr;
  char* scratch = static_cast<char*>(ctx.scratch());
  float* column_bias = nullptr;
  if (disjoint_ && bias != nullptr) {
    column_bias = AlignFloats64(scratch + static_cast<size_t>(slots_) * slot_bytes_);
    for (int i = 0; i < columns_; ++i) column_bias[i] = bias[i % out_c_];
    for (int i = columns_; i < column_stride_; ++i) column_bias[i] = 0.f;
  }
  const EvalJob job{this,
                    ctx.input(layout_.input).data_as<float>(),
                    bias,
                    column_bias,
                    ctx.output(0).data_as<float>(),
                    scratch,
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

Status ReadTransposeConvOutputShape(const KernelContext& ctx, const Tensor& t, int32_t batch, int32_t out_c, Shape* shape) {
  if (t.type != DataType::kInt32) return ctx.Error("output_shape must be int32, got " + DataTypeName(t.type));
  if (t.num_elements() != 4) return ctx.Error("output_shape must hold 4 values, got " + ShapeToString(t.shape));
  if (!t.is_constant() || t.data == nullptr) return ctx.Unsupported("output_shape must be a constant tensor");
  const int32_t* v = t.data_as<int32_t>();
  if (v[0] != batch) {
    return ctx.Error("output_shape batch " + std::to_string(v[0]) + " differs from the input batch " + std::to_string(batch));
  }
  if (v[3] != out_c) {
    return ctx.Error("output_shape channels " + std::to_string(v[3]) + " differ from the weights' output channels " +
                     std::to_string(out_c));
  }
  if (v[1] < 0 || v[2] < 0) return ctx.Error("output_shape has a negative dimension");
  *shape = {v[0], v[1], v[2], v[3]};
  return Status::Ok();
}

std::unique_ptr<Kernel> MakeTransposeConvKernel(const TransposeConvLayout& layout, const TransposeConvParams& params) {
  return std::make_unique<TransposeConvKernel>(layout, params);
}

}  // namespace relite::cpu
