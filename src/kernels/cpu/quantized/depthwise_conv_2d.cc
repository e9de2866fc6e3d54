// DEPTHWISE_CONV_2D on quantized NHWC activations.
//
//  - uint8 x uint8 per-tensor and int8 x int8 per-tensor or per-channel:
//    XNNPACK's arithmetic (what TFLite runs by default):
//    out = clamp(round_half_even(float(acc) * scale[c]) + zp),
//    scale[c] = input_scale * filter_scale[c] / output_scale in float32.
//  - int16 activations with int8 weights (16x8): TFLite's reference kernel.
//
// acc = bias[c] + sum_taps (x - x_zp) * (w - w_zp[c]) is exact: activations
// are read as 0..255 (int8 XOR 0x80), the zero-point term is folded into the
// bias once, and a tap outside the image reads a row of the input zero point,
// so it adds nothing. Two taps are interleaved per vpmaddwd (16 channels per
// step, int16 products summed in int32); weights, bias and scales are stored
// in the lane order that interleaving produces. A remaining block of 8
// channels (8, 24, 40 ... channels) takes the same steps on 128-bit vectors.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/qconv_util.h"
#include "src/kernels/cpu/internal/qgemm.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedDepthwiseConv2DKernel final : public Kernel {
 public:
  explicit QuantizedDepthwiseConv2DKernel(const DepthwiseConv2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  bool FuseClamp(float min, float max) override { return FuseClampInto(&params_.activation, min, max); }
  Status Eval(KernelContext& ctx) override;

 private:
  void EvalInt16(KernelContext& ctx) const;

  DepthwiseConv2DParams params_;
  DataType in_type_ = DataType::kUInt8;
  QParams in_q_, out_q_;
  WeightQParams w_q_;
  QuantizedRange range_{};
  int batch_ = 0, in_h_ = 0, in_w_ = 0, in_c_ = 0;
  int out_h_ = 0, out_w_ = 0, out_c_ = 0, mult_ = 1;
  int filter_h_ = 0, filter_w_ = 0, taps_ = 0, tap_pairs_ = 0;
  int pad_top_ = 0, pad_left_ = 0;
  // Output columns whose window lies inside the input horizontally.
  int interior_begin_ = 0, interior_end_ = 0;
  uint8_t xor_mask_ = 0;
  int vec_c_ = 0;  // channels handled 16 at a time (multiplier 1)
  bool block8_ = false;  // channels [vec_c_, vec_c_ + 8) as one 8-channel block
  int vec_end_ = 0;      // first channel of the scalar tail
  // Vector part: per 16-channel block, per tap pair, 32 int16 in lane order.
  AlignedArray<int16_t> wpacked_;
  AlignedArray<int32_t> vbias_;
  AlignedArray<float> vscale_;
  // The 8-channel block: per tap pair, 16 int16 (channels 0-3, then 4-7, each
  // as tap pairs); bias and scales in channel order.
  AlignedArray<int16_t> w8_;
  AlignedArray<int32_t> bias8_;
  AlignedArray<float> scale8_;
  // 3x3 on kernels with the byte dot product: 64-channel blocks of 4-tap
  // quads (QDepthwiseJob::wquads).
  int quad_c_ = 0;
  AlignedArray<uint8_t> wquads_;
  AlignedArray<int32_t> qbias_, qcoef_;
  AlignedArray<float> qscale_;
  bool qcoef_used_ = false;
  // Scalar part (channel tail, multiplier > 1): plain per-channel arrays.
  std::vector<int16_t> wplain_;  // [tap][out_c], w - w_zp
  std::vector<int32_t> bias_;    // folded
  std::vector<float> scale_;
  std::vector<uint8_t> zp_row_;  // in_c bytes of the input zero point
  std::vector<QuantizedMultiplier> multipliers_;
  const void* packed_from_ = nullptr;
};

Status QuantizedDepthwiseConv2DKernel::Prepare(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || ctx.num_inputs() > 3) {
    return ctx.Error("expected 2 or 3 inputs (input, filter[, bias]), got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expected 1 output, got " + std::to_string(ctx.num_outputs()));
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("input and filter are required");
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  const Tensor& output = ctx.output(0);
  in_type_ = input.type;
  if (filter.sparsity != nullptr) return ctx.Unsupported("sparse filter is not supported");
  const DataType want_w = in_type_ == DataType::kUInt8 ? DataType::kUInt8 : DataType::kInt8;
  if (filter.type != want_w || output.type != in_type_) {
    return ctx.Unsupported("input " + DataTypeName(in_type_) + " with " + DataTypeName(filter.type) + " filter and " +
                           DataTypeName(output.type) + " output is not supported");
  }
  if (input.rank() != 4) return ctx.Error("input must be 4-D [N,H,W,C], got " + ShapeToString(input.shape));
  if (filter.rank() != 4 || filter.dim(0) != 1) {
    return ctx.Error("filter must be 4-D [1,KH,KW,Cout], got " + ShapeToString(filter.shape));
  }
  if (!filter.is_constant() || filter.data == nullptr) return ctx.Unsupported("a filter computed by the graph is not supported");
  batch_ = input.dim(0);
  in_h_ = input.dim(1);
  in_w_ = input.dim(2);
  in_c_ = input.dim(3);
  filter_h_ = filter.dim(1);
  filter_w_ = filter.dim(2);
  out_c_ = filter.dim(3);
  if (filter_h_ <= 0 || filter_w_ <= 0 || out_c_ <= 0 || in_c_ <= 0) {
    return ctx.Error("filter and input dimensions must be positive");
  }
  if (out_c_ % in_c_ != 0) {
    return ctx.Error("output channels " + std::to_string(out_c_) + " are not a multiple of input channels " +
                     std::to_string(in_c_));
  }
  mult_ = out_c_ / in_c_;
  if (params_.depth_multiplier > 0 && params_.depth_multiplier != mult_) {
    return ctx.Error("depth_multiplier " + std::to_string(params_.depth_multiplier) + " does not match the shapes");
  }
  RELITE_RETURN_IF_ERROR(GetTensorQParams(ctx, input, "input", &in_q_));
  RELITE_RETURN_IF_ERROR(GetTensorQParams(ctx, output, "output", &out_q_));
  RELITE_RETURN_IF_ERROR(GetWeightQParams(ctx, filter, 3, out_c_, &w_q_));
  RELITE_RETURN_IF_ERROR(CheckConvBiasAndZeroPoints(ctx, in_type_, out_c_, in_q_, out_q_));
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  RELITE_ASSIGN_OR_RETURN(const PaddedDim ph, ComputeWindow(ctx.node(), params_.padding, in_h_, filter_h_, params_.stride_h, params_.dilation_h));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pw, ComputeWindow(ctx.node(), params_.padding, in_w_, filter_w_, params_.stride_w, params_.dilation_w));
  out_h_ = ph.out;
  out_w_ = pw.out;
  pad_top_ = ph.pad_before;
  pad_left_ = pw.pad_before;
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, {batch_, out_h_, out_w_, out_c_}));
  taps_ = filter_h_ * filter_w_;
  tap_pairs_ = (taps_ + 1) / 2;
  interior_begin_ = std::min(out_w_, (pad_left_ + params_.stride_w - 1) / params_.stride_w);
  {
    const int last_start = in_w_ - 1 - (filter_w_ - 1) * params_.dilation_w + pad_left_;
    interior_end_ = last_start < 0 ? 0 : std::min(out_w_, last_start / params_.stride_w + 1);
    interior_end_ = std::max(interior_end_, interior_begin_);
  }

  if (in_type_ == DataType::kInt16) {
    range_ = QuantizedActivationRange(params_.activation, in_type_, out_q_.scale, out_q_.zero_point);
    multipliers_ = TfliteMultipliers(in_q_.scale, w_q_.scale, out_q_.scale);
    return Status::Ok();
  }
  range_ = XnnActivationRange(params_.activation, in_type_, out_q_.scale, out_q_.zero_point);
  xor_mask_ = QGemmInputBias(in_type_);
  const int32_t a_zp = in_q_.zero_point + (in_type_ == DataType::kInt8 ? 128 : 0);
  zp_row_.assign(static_cast<size_t>(in_c_), static_cast<uint8_t>(a_zp ^ xor_mask_));
  const bool quads = Kernels().qdepthwise_quads && mult_ == 1 && filter_h_ == 3 && filter_w_ == 3 && out_c_ >= 64;
  if (packed_from_ == filter.data && quads == (quad_c_ > 0)) return Status::Ok();

  const auto* w = static_cast<const uint8_t*>(filter.data);
  const bool is_signed = filter.type == DataType::kInt8;
  const int32_t* b = bias != nullptr ? bias->data_as<int32_t>() : nullptr;
  const std::vector<float> scales = XnnScales(in_q_.scale, w_q_.scale, out_q_.scale);
  wplain_.resize(static_cast<size_t>(taps_) * out_c_);
  bias_.resize(static_cast<size_t>(out_c_));
  scale_ = scales;
  for (int o = 0; o < out_c_; ++o) {
    int64_t sum = 0;
    for (int t = 0; t < taps_; ++t) {
      const uint8_t raw = w[static_cast<size_t>(t) * out_c_ + o];
      const int32_t v = (is_signed ? static_cast<int8_t>(raw) : static_cast<int32_t>(raw)) - w_q_.zero_point[static_cast<size_t>(o)];
      wplain_[static_cast<size_t>(t) * out_c_ + o] = static_cast<int16_t>(v);
      sum += v;
    }
    const int64_t folded = (b != nullptr ? b[o] : 0) - static_cast<int64_t>(a_zp) * sum;
    bias_[static_cast<size_t>(o)] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(folded)));
  }
  vec_c_ = mult_ == 1 ? out_c_ / 16 * 16 : 0;
  block8_ = mult_ == 1 && out_c_ - vec_c_ >= 8;
  vec_end_ = mult_ == 1 ? vec_c_ + (block8_ ? 8 : 0) : 0;
  const int blocks = vec_c_ / 16;
  wpacked_.Resize(static_cast<size_t>(std::max(blocks, 1)) * tap_pairs_ * 32);
  vbias_.Resize(static_cast<size_t>(std::max(blocks, 1)) * 16);
  vscale_.Resize(static_cast<size_t>(std::max(blocks, 1)) * 16);
  w8_.Resize(static_cast<size_t>(tap_pairs_) * 16);
  bias8_.Resize(8);
  scale8_.Resize(8);
  if (wpacked_.data() == nullptr || vbias_.data() == nullptr || vscale_.data() == nullptr || w8_.data() == nullptr ||
      bias8_.data() == nullptr || scale8_.data() == nullptr) {
    return InternalError(ctx.node().Describe() + ": out of memory packing the filter");
  }
  // Lane order of a 16-channel step after unpacklo/hi_epi16 + vpmaddwd:
  // accumulator A holds channels 0-3 and 8-11, B holds 4-7 and 12-15.
  static constexpr int kLaneA[8] = {0, 1, 2, 3, 8, 9, 10, 11};
  static constexpr int kLaneB[8] = {4, 5, 6, 7, 12, 13, 14, 15};
  for (int blk = 0; blk < blocks; ++blk) {
    const int c0 = blk * 16;
    for (int i = 0; i < 8; ++i) {
      vbias_.data()[blk * 16 + i] = bias_[static_cast<size_t>(c0 + kLaneA[i])];
      vbias_.data()[blk * 16 + 8 + i] = bias_[static_cast<size_t>(c0 + kLaneB[i])];
      vscale_.data()[blk * 16 + i] = scale_[static_cast<size_t>(c0 + kLaneA[i])];
      vscale_.data()[blk * 16 + 8 + i] = scale_[static_cast<size_t>(c0 + kLaneB[i])];
    }
    for (int p = 0; p < tap_pairs_; ++p) {
      int16_t* dst = wpacked_.data() + (static_cast<size_t>(blk) * tap_pairs_ + p) * 32;
      for (int half = 0; half < 2; ++half) {
        const int* lanes = half == 0 ? kLaneA : kLaneB;
        for (int i = 0; i < 8; ++i) {
          const int c = c0 + lanes[i];
          const int t0 = 2 * p, t1 = 2 * p + 1;
          dst[half * 16 + 2 * i] = wplain_[static_cast<size_t>(t0) * out_c_ + c];
          dst[half * 16 + 2 * i + 1] = t1 < taps_ ? wplain_[static_cast<size_t>(t1) * out_c_ + c] : 0;
        }
      }
    }
  }
  if (block8_) {
    for (int i = 0; i < 8; ++i) {
      bias8_.data()[i] = bias_[static_cast<size_t>(vec_c_ + i)];
      scale8_.data()[i] = scale_[static_cast<size_t>(vec_c_ + i)];
    }
    for (int p = 0; p < tap_pairs_; ++p) {
      for (int i = 0; i < 8; ++i) {
        const int c = vec_c_ + i, t0 = 2 * p, t1 = 2 * p + 1;
        int16_t* dst = w8_.data() + static_cast<size_t>(p) * 16 + 2 * i;
        dst[0] = wplain_[static_cast<size_t>(t0) * out_c_ + c];
        dst[1] = t1 < taps_ ? wplain_[static_cast<size_t>(t1) * out_c_ + c] : 0;
      }
    }
  }
  quad_c_ = quads ? out_c_ / 64 * 64 : 0;
  if (quad_c_ > 0) {
    const int quad_blocks = quad_c_ / 64;
    wquads_.Resize(static_cast<size_t>(quad_blocks) * 3 * 4 * 64);
    qbias_.Resize(static_cast<size_t>(quad_c_));
    qscale_.Resize(static_cast<size_t>(quad_c_));
    qcoef_.Resize(static_cast<size_t>(quad_c_));
    if (wquads_.data() == nullptr || qbias_.data() == nullptr || qscale_.data() == nullptr ||
        qcoef_.data() == nullptr) {
      return InternalError(ctx.node().Describe() + ": out of memory packing the filter");
    }
    std::memset(wquads_.data(), 0, wquads_.size());
    qcoef_used_ = false;
    for (int blk = 0; blk < quad_blocks; ++blk) {
      for (int g = 0; g < 4; ++g) {
        for (int lane = 0; lane < 16; ++lane) {
          // Group g, dword `lane` (128-bit lane L = lane / 4, j = lane % 4).
          const int c = blk * 64 + 16 * (lane / 4) + 4 * g + lane % 4;
          const size_t at = static_cast<size_t>(blk) * 64 + g * 16 + lane;
          const int32_t zp = w_q_.zero_point[static_cast<size_t>(c)];
          const int32_t coef = is_signed ? -zp : 128 - zp;
          qbias_.data()[at] = bias_[static_cast<size_t>(c)];
          qscale_.data()[at] = scale_[static_cast<size_t>(c)];
          qcoef_.data()[at] = coef;
          qcoef_used_ = qcoef_used_ || coef != 0;
          for (int t = 0; t < 9; ++t) {
            const uint8_t raw = w[static_cast<size_t>(t) * out_c_ + c];
            wquads_.data()[(static_cast<size_t>(blk) * 12 + (t / 4) * 4 + g) * 64 + lane * 4 + t % 4] =
                is_signed ? raw : static_cast<uint8_t>(raw ^ 0x80);  // uint8: W - 128 as int8
          }
        }
      }
    }
  }
  packed_from_ = filter.data;
  return Status::Ok();
}

void QuantizedDepthwiseConv2DKernel::EvalInt16(KernelContext& ctx) const {
  const int16_t* in = ctx.input(0).data_as<int16_t>();
  const int8_t* w = ctx.input(1).data_as<int8_t>();
  int16_t* out = ctx.output(0).data_as<int16_t>();
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const bool bias64 = bias != nullptr && bias->type == DataType::kInt64;
  ctx.ParallelFor(int64_t{batch_} * out_h_, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int b = static_cast<int>(r / out_h_), oy = static_cast<int>(r % out_h_);
      for (int ox = 0; ox < out_w_; ++ox) {
        for (int o = 0; o < out_c_; ++o) {
          const int c = o / mult_;
          int64_t acc = 0;
          for (int ky = 0; ky < filter_h_; ++ky) {
            const int iy = oy * params_.stride_h - pad_top_ + ky * params_.dilation_h;
            if (iy < 0 || iy >= in_h_) continue;
            for (int kx = 0; kx < filter_w_; ++kx) {
              const int ix = ox * params_.stride_w - pad_left_ + kx * params_.dilation_w;
              if (ix < 0 || ix >= in_w_) continue;
              acc += static_cast<int64_t>(in[((static_cast<size_t>(b) * in_h_ + iy) * in_w_ + ix) * in_c_ + c]) *
                     w[(static_cast<size_t>(ky) * filter_w_ + kx) * out_c_ + o];
            }
          }
          // TFLite's 16x8 convolutions accumulate in int64 whatever the bias type.
          if (bias != nullptr) acc += bias64 ? bias->data_as<int64_t>()[o] : bias->data_as<int32_t>()[o];
          const int32_t v = MultiplyByReducedMultiplier64(acc, multipliers_[static_cast<size_t>(o)]);
          out[((static_cast<size_t>(b) * out_h_ + oy) * out_w_ + ox) * out_c_ + o] =
              static_cast<int16_t>(std::clamp(v, range_.min, range_.max));
        }
      }
    }
  });
}

Status QuantizedDepthwiseConv2DKernel::Eval(KernelContext& ctx) {
  if (int64_t{batch_} * out_h_ * out_w_ * out_c_ == 0) return Status::Ok();
  if (in_type_ == DataType::kInt16) {
    EvalInt16(ctx);
    return Status::Ok();
  }
  QDepthwiseJob job;
  job.input = ctx.input(0).data_as<uint8_t>();
  job.output = ctx.output(0).data_as<uint8_t>();
  job.in_h = in_h_, job.in_w = in_w_, job.in_c = in_c_;
  job.out_h = out_h_, job.out_w = out_w_, job.out_c = out_c_, job.multiplier = mult_;
  job.filter_h = filter_h_, job.filter_w = filter_w_, job.taps = taps_, job.tap_pairs = tap_pairs_;
  job.stride_h = params_.stride_h, job.stride_w = params_.stride_w;
  job.dilation_h = params_.dilation_h, job.dilation_w = params_.dilation_w;
  job.pad_top = pad_top_, job.pad_left = pad_left_;
  job.interior_begin = interior_begin_, job.interior_end = interior_end_;
  job.xor_mask = xor_mask_;
  job.is_signed = in_type_ == DataType::kInt8;
  job.out_zero_point = out_q_.zero_point, job.qmin = range_.min, job.qmax = range_.max;
  job.vec_c = vec_c_, job.vec_end = vec_end_, job.block8 = block8_;
  job.wpacked = wpacked_.data(), job.vbias = vbias_.data(), job.vscale = vscale_.data();
  job.w8 = w8_.data(), job.bias8 = bias8_.data(), job.scale8 = scale8_.data();
  job.wplain = wplain_.data(), job.bias = bias_.data(), job.scale = scale_.data(), job.zp_row = zp_row_.data();
  if (quad_c_ > 0) {
    job.quad_c = quad_c_;
    job.wquads = wquads_.data(), job.qbias = qbias_.data(), job.qscale = qscale_.data();
    job.qcoef = qcoef_used_ ? qcoef_.data() : nullptr;
  }
  const QDepthwiseRowFn row = Kernels().qdepthwise_row;
  const int rows = batch_ * out_h_;
  const int64_t work = int64_t{out_w_} * out_c_ * taps_;
  const int64_t min_rows = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(work, 1));
  ctx.ParallelFor(rows, min_rows, [&](int64_t begin, int64_t end) {
    const uint8_t* taps[64];
    std::vector<const uint8_t*> heap;
    const uint8_t** tp = taps;
    if (taps_ + 1 > 64) {
      heap.resize(static_cast<size_t>(taps_) + 1);
      tp = heap.data();
    }
    for (int64_t r = begin; r < end; ++r) row(job, static_cast<int>(r / out_h_), static_cast<int>(r % out_h_), tp);
  });
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedDepthwiseConv2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(DepthwiseConv2DParams params, ParseDepthwiseConv2DParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedDepthwiseConv2DKernel>(params));
}

}  // namespace relite::cpu
