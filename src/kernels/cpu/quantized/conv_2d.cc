// CONV_2D on quantized NHWC activations (grouped convolution included).
//
//  - uint8 x uint8 per-tensor and int8 x int8 per-tensor or per-channel
//    weights: XNNPACK's arithmetic (TFLite's default delegate takes these):
//    out = clamp(round_half_even(float(acc) * scale[o]) + zp),
//    scale[o] = input_scale * filter_scale[o] / output_scale in float32, the
//    clamp being the fused activation quantized with lrintf(x / scale + zp).
//  - int16 activations with int8 weights (16x8): TFLite's reference kernel
//    (int64 accumulation, the bias type decides the multiplier).
//
// 8-bit: a product [pixels x K] * [K x Cout_per_group] per group on qgemm,
// K = KH * KW * Cin_per_group. A 1x1 stride-1 convolution widens its input
// rows in place; every other case gathers rows (im2col, padded taps holding
// the input zero point) straight into int16 per-thread scratch.
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
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

constexpr int kMaxRowsPerTask = 96;
constexpr size_t kBlockElements = size_t{1} << 16;  // int16 per im2col block

// dst[i] = src[i] ^ mask as int16, n values (plain loops: the compiler
// vectorises them for the baseline ISA).
inline void WidenBytes(const uint8_t* src, int n, uint8_t mask, int16_t* dst) {
  for (int i = 0; i < n; ++i) dst[i] = static_cast<int16_t>(static_cast<uint8_t>(src[i] ^ mask));
}

// The same as bytes (the quads layout's rows).
inline void WidenBytes(const uint8_t* src, int n, uint8_t mask, uint8_t* dst) { XorBytes(src, n, mask, dst); }

// 16 bytes XOR mask (first layers: a filter row of 3x3x3 or 3x3x1 bytes is
// copied as one 16-byte step). Vector extensions: SSE2 or NEON.
typedef uint8_t Bytes16 __attribute__((vector_size(16)));
inline void Copy16(const uint8_t* src, Bytes16 mask, uint8_t* dst) {
  Bytes16 v;
  std::memcpy(&v, src, 16);
  v ^= mask;
  std::memcpy(dst, &v, 16);
}

inline void FillValue(int16_t* dst, int n, int16_t v) {
  for (int i = 0; i < n; ++i) dst[i] = v;
}
// Whole 16-byte steps, up to 15 bytes past n (a padded tap of a few bytes
// would otherwise be a memset call). Im2col writes a row's taps in order and
// the rows in order, so what spills is written again afterwards (or lands in
// the scratch's slack).
inline void FillValue(uint8_t* dst, int n, uint8_t v) {
  const Bytes16 splat = Bytes16{} + v;
  for (int i = 0; i < n; i += 16) std::memcpy(dst + i, &splat, 16);
}

class QuantizedConv2DKernel final : public Kernel {
 public:
  explicit QuantizedConv2DKernel(const Conv2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  bool FuseClamp(float min, float max) override { return FuseClampInto(&params_.activation, min, max); }
  Status Eval(KernelContext& ctx) override;

 private:
  // Rows of int16 (pairs layouts) or of bytes (quads), row stride `row_stride`.
  template <typename T>
  void Im2col(const uint8_t* input, int g, int m0, int m1, size_t row_stride, T* rows) const;
  void RunSlot(const uint8_t* input, uint8_t* output, char* scratch, int active, int slot) const;
  void EvalInt16(KernelContext& ctx) const;

  Conv2DParams params_;
  DataType in_type_ = DataType::kUInt8;
  QParams in_q_, out_q_;
  WeightQParams w_q_;
  QuantizedRange range_{};
  int batch_ = 0, in_h_ = 0, in_w_ = 0, in_c_ = 0;
  int out_h_ = 0, out_w_ = 0, out_c_ = 0;
  int filter_h_ = 0, filter_w_ = 0;
  int groups_ = 1, group_in_c_ = 0, group_out_c_ = 0;
  int depth_ = 0, rows_ = 0;
  int pad_top_ = 0, pad_left_ = 0;
  bool pointwise_ = false;
  bool quads_ = false;         // weights packed as QGemmLayout::kQuads
  bool direct_rows_ = false;   // quads reading the input rows in place
  uint8_t xor_mask_ = 0;
  int16_t pad_value_ = 0;
  std::vector<QGemmWeights> packed_;  // one per group
  const void* packed_from_ = nullptr;
  std::vector<QuantizedMultiplier> multipliers_;  // 16x8
  GemmPartition partition_;
  int slots_ = 1;
  size_t slot_bytes_ = 0;
};

Status QuantizedConv2DKernel::Prepare(KernelContext& ctx) {
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
  if (filter.rank() != 4) return ctx.Error("filter must be 4-D [Cout,KH,KW,Cin], got " + ShapeToString(filter.shape));
  if (!filter.is_constant() || filter.data == nullptr) return ctx.Unsupported("a filter computed by the graph is not supported");
  batch_ = input.dim(0);
  in_h_ = input.dim(1);
  in_w_ = input.dim(2);
  in_c_ = input.dim(3);
  out_c_ = filter.dim(0);
  filter_h_ = filter.dim(1);
  filter_w_ = filter.dim(2);
  group_in_c_ = filter.dim(3);
  if (out_c_ <= 0 || filter_h_ <= 0 || filter_w_ <= 0 || group_in_c_ <= 0) {
    return ctx.Error("filter dimensions must be positive, got " + ShapeToString(filter.shape));
  }
  if (in_c_ % group_in_c_ != 0) {
    return ctx.Error("input channels " + std::to_string(in_c_) + " are not a multiple of the filter's input channels " +
                     std::to_string(group_in_c_));
  }
  groups_ = in_c_ / group_in_c_;
  if (groups_ == 0 || out_c_ % groups_ != 0) {
    return ctx.Error("output channels " + std::to_string(out_c_) + " are not divisible into " + std::to_string(groups_) +
                     " groups");
  }
  group_out_c_ = out_c_ / groups_;
  RELITE_RETURN_IF_ERROR(GetTensorQParams(ctx, input, "input", &in_q_));
  RELITE_RETURN_IF_ERROR(GetTensorQParams(ctx, output, "output", &out_q_));
  RELITE_RETURN_IF_ERROR(GetWeightQParams(ctx, filter, 0, out_c_, &w_q_));
  RELITE_RETURN_IF_ERROR(CheckConvBiasAndZeroPoints(ctx, in_type_, out_c_, in_q_, out_q_));
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;

  RELITE_ASSIGN_OR_RETURN(const PaddedDim ph, ComputeWindow(ctx.node(), params_.padding, in_h_, filter_h_, params_.stride_h, params_.dilation_h));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pw, ComputeWindow(ctx.node(), params_.padding, in_w_, filter_w_, params_.stride_w, params_.dilation_w));
  out_h_ = ph.out;
  out_w_ = pw.out;
  pad_top_ = ph.pad_before;
  pad_left_ = pw.pad_before;
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, {batch_, out_h_, out_w_, out_c_}));
  const int64_t depth = int64_t{filter_h_} * filter_w_ * group_in_c_;
  const int64_t rows = int64_t{batch_} * out_h_ * out_w_;
  if (depth > INT32_MAX / 2 || rows > INT32_MAX) return ctx.Unsupported("convolution too large for 32-bit indexing");
  depth_ = static_cast<int>(depth);
  rows_ = static_cast<int>(rows);

  if (in_type_ == DataType::kInt16) {
    range_ = QuantizedActivationRange(params_.activation, in_type_, out_q_.scale, out_q_.zero_point);
    multipliers_ = TfliteMultipliers(in_q_.scale, w_q_.scale, out_q_.scale);
    return Status::Ok();
  }
  range_ = XnnActivationRange(params_.activation, in_type_, out_q_.scale, out_q_.zero_point);
  xor_mask_ = QGemmInputBias(in_type_);
  const int32_t a_zp = in_q_.zero_point + (in_type_ == DataType::kInt8 ? 128 : 0);
  pad_value_ = static_cast<int16_t>(a_zp);
  pointwise_ = filter_h_ == 1 && filter_w_ == 1 && params_.stride_h == 1 && params_.stride_w == 1;

  slots_ = std::max(1, ctx.num_threads());
  const size_t row_stride = QGemmRowStride(depth_);
  const int max_rows = static_cast<int>(std::clamp<size_t>(kBlockElements / row_stride, kQGemmTileRows, kMaxRowsPerTask));
  partition_ = PartitionGemm(rows_, group_out_c_, depth_, std::max(1, slots_ / groups_), max_rows, kQGemmTasksPerThread);
  const QGemmLayout layout = QGemmLayoutFor(rows_);
  quads_ = layout == QGemmLayout::kQuads;
  direct_rows_ = quads_ && pointwise_ && groups_ == 1 && xor_mask_ == 0 && depth_ % 4 == 0;
  const size_t row_bytes = quads_ ? QGemmQuadRowStride(depth_) : row_stride * sizeof(int16_t);
  // + 64 for the alignment, + 32 for the last row's short-filter-row spill (Im2col).
  slot_bytes_ = direct_rows_ ? 0 : static_cast<size_t>(partition_.rows_per_task) * row_bytes + 64 + 32;
  ctx.RequestScratch(static_cast<size_t>(slots_) * slot_bytes_);

  if (packed_from_ != filter.data || packed_.empty() || packed_[0].layout != layout) {
    const std::vector<float> scales = XnnScales(in_q_.scale, w_q_.scale, out_q_.scale);
    packed_.resize(static_cast<size_t>(groups_));
    const auto* w = static_cast<const uint8_t*>(filter.data);
    const int32_t* b = bias != nullptr ? bias->data_as<int32_t>() : nullptr;
    for (int g = 0; g < groups_; ++g) {
      const size_t o0 = static_cast<size_t>(g) * group_out_c_;
      if (!QPackWeights(w + o0 * depth_, filter.type, group_out_c_, depth_, static_cast<size_t>(depth_),
                        w_q_.zero_point.data() + o0, true, b != nullptr ? b + o0 : nullptr, a_zp, scales.data() + o0,
                        true, &packed_[static_cast<size_t>(g)], layout)) {
        return InternalError(ctx.node().Describe() + ": out of memory packing the filter");
      }
    }
    packed_from_ = filter.data;
  }
  return Status::Ok();
}

template <typename T>
void QuantizedConv2DKernel::Im2col(const uint8_t* input, int g, int m0, int m1, size_t row_stride, T* rows) const {
  const int sh = params_.stride_h, sw = params_.stride_w;
  const int dh = params_.dilation_h, dw = params_.dilation_w;
  const T pad = static_cast<T>(pad_value_);
  const size_t image_bytes = static_cast<size_t>(in_h_) * in_w_ * in_c_;
  const int tap = group_in_c_;
  const int filter_row = filter_w_ * group_in_c_;
  int ox = m0 % out_w_;
  int oy = (m0 / out_w_) % out_h_;
  int b = m0 / (out_w_ * out_h_);
  const uint8_t* channel_base = input + static_cast<size_t>(g) * group_in_c_;
  const uint8_t* input_end = input + static_cast<size_t>(batch_) * image_bytes;
  // A filter row shorter than 16 bytes (e.g. 3x3 over 3 channels) is widened
  // as one 16-byte step; the extra lanes land where the next filter row (or
  // the next pixel's row, or the scratch's slack) is written afterwards.
  const bool short_rows = filter_row < 16;
  const size_t tap_row_bytes = static_cast<size_t>(dh) * in_w_ * in_c_;
  const Bytes16 mask16 = Bytes16{} + xor_mask_;
  for (int m = m0; m < m1; ++m) {
    T* const row = rows + static_cast<size_t>(m - m0) * row_stride;
    T* dst = row;
    const uint8_t* image = channel_base + static_cast<size_t>(b) * image_bytes;
    const int iy0 = oy * sh - pad_top_;
    const int ix0 = ox * sw - pad_left_;
    if constexpr (sizeof(T) == 1) {
      // A byte row whose window lies inside the image, its filter rows
      // shorter than 16 bytes: one 16-byte step per filter row, no checks.
      // Offsets, not pointers, until the window is known to be inside (and
      // its last 16-byte step inside the input).
      const bool inside = short_rows && groups_ == 1 && dw == 1 && iy0 >= 0 && iy0 + (filter_h_ - 1) * dh < in_h_ &&
                          ix0 >= 0 && ix0 + filter_w_ <= in_w_;
      const size_t at = inside ? static_cast<size_t>(image - input) +
                                     (static_cast<size_t>(iy0) * in_w_ + static_cast<size_t>(ix0)) * in_c_
                               : 0;
      if (inside && at + (filter_h_ - 1) * tap_row_bytes + 16 <= static_cast<size_t>(input_end - input)) {
        const uint8_t* src = input + at;
        for (int ky = 0; ky < filter_h_; ++ky) Copy16(src + ky * tap_row_bytes, mask16, dst + ky * filter_row);
        for (size_t i = static_cast<size_t>(depth_); i < row_stride; ++i) row[i] = 0;
        if (++ox == out_w_) {
          ox = 0;
          if (++oy == out_h_) {
            oy = 0;
            ++b;
          }
        }
        continue;
      }
    }
    const bool contiguous_row = groups_ == 1 && dw == 1 && ix0 >= 0 && ix0 + filter_w_ <= in_w_;
    for (int ky = 0; ky < filter_h_; ++ky, dst += filter_row) {
      const int iy = iy0 + ky * dh;
      if (iy < 0 || iy >= in_h_) {
        FillValue(dst, filter_row, pad);
        continue;
      }
      const uint8_t* src_row = image + static_cast<size_t>(iy) * in_w_ * in_c_;
      if (contiguous_row) {
        const uint8_t* src = src_row + static_cast<size_t>(ix0) * in_c_;
        if (short_rows && src + 16 <= input_end) {
          WidenBytes(src, 16, xor_mask_, dst);
        } else {
          WidenBytes(src, filter_row, xor_mask_, dst);
        }
        continue;
      }
      for (int kx = 0; kx < filter_w_; ++kx) {
        const int ix = ix0 + kx * dw;
        if (ix < 0 || ix >= in_w_) {
          FillValue(dst + kx * tap, tap, pad);
        } else {
          WidenBytes(src_row + static_cast<size_t>(ix) * in_c_, tap, xor_mask_, dst + kx * tap);
        }
      }
    }
    // After the rows (a short row's spill may cover it): the padding to the
    // next pair or quad is zero.
    for (size_t i = static_cast<size_t>(depth_); i < row_stride; ++i) row[i] = 0;
    if (++ox == out_w_) {
      ox = 0;
      if (++oy == out_h_) {
        oy = 0;
        ++b;
      }
    }
  }
}

void QuantizedConv2DKernel::RunSlot(const uint8_t* input, uint8_t* output, char* scratch, int active, int slot) const {
  const int tasks_per_group = partition_.num_tasks();
  int begin, end;
  SlotTaskRange(tasks_per_group * groups_, active, slot, &begin, &end);
  float* const slot_rows = AlignFloats64(scratch + static_cast<size_t>(slot) * slot_bytes_);
  auto* rows = reinterpret_cast<int16_t*>(slot_rows);
  auto* byte_rows = reinterpret_cast<uint8_t*>(slot_rows);
  const size_t row_stride = quads_ ? QGemmQuadRowStride(depth_) : QGemmRowStride(depth_);
  const QGemmOutput qout{in_type_, out_q_.zero_point, range_.min, range_.max};
  int gathered_group = -1, gathered_m0 = -1;
  for (int t = begin; t < end; ++t) {
    const int g = t / tasks_per_group;
    int m0, m1, n0, n1;
    partition_.Task(t % tasks_per_group, &m0, &m1, &n0, &n1);
    uint8_t* c = output + static_cast<size_t>(m0) * out_c_ + static_cast<size_t>(g) * group_out_c_;
    if (direct_rows_) {
      QGemmQuads(m1 - m0, input + static_cast<size_t>(m0) * in_c_, static_cast<size_t>(in_c_),
                 packed_[static_cast<size_t>(g)], qout, c, static_cast<size_t>(out_c_), n0, n1);
      continue;
    }
    if (g != gathered_group || m0 != gathered_m0) {
      const uint8_t* group_rows = input + static_cast<size_t>(m0) * in_c_ + static_cast<size_t>(g) * group_in_c_;
      if (pointwise_ && quads_) {
        QCopyRows(group_rows, static_cast<size_t>(in_c_), m1 - m0, depth_, xor_mask_, byte_rows);
      } else if (pointwise_) {
        QWidenRows(group_rows, static_cast<size_t>(in_c_), m1 - m0, depth_, xor_mask_, rows);
      } else if (quads_) {
        Im2col(input, g, m0, m1, row_stride, byte_rows);
      } else {
        Im2col(input, g, m0, m1, row_stride, rows);
      }
      gathered_group = g;
      gathered_m0 = m0;
    }
    if (quads_) {
      QGemmQuads(m1 - m0, byte_rows, row_stride, packed_[static_cast<size_t>(g)], qout, c,
                 static_cast<size_t>(out_c_), n0, n1);
      continue;
    }
    QGemm(m1 - m0, rows, row_stride, packed_[static_cast<size_t>(g)], qout, c, static_cast<size_t>(out_c_), n0, n1);
  }
}

void QuantizedConv2DKernel::EvalInt16(KernelContext& ctx) const {
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
          const int g = o / group_out_c_;
          int64_t acc = 0;
          for (int ky = 0; ky < filter_h_; ++ky) {
            const int iy = oy * params_.stride_h - pad_top_ + ky * params_.dilation_h;
            if (iy < 0 || iy >= in_h_) continue;
            for (int kx = 0; kx < filter_w_; ++kx) {
              const int ix = ox * params_.stride_w - pad_left_ + kx * params_.dilation_w;
              if (ix < 0 || ix >= in_w_) continue;
              const int16_t* x = in + ((static_cast<size_t>(b) * in_h_ + iy) * in_w_ + ix) * in_c_ +
                                 static_cast<size_t>(g) * group_in_c_;
              const int8_t* f = w + ((static_cast<size_t>(o) * filter_h_ + ky) * filter_w_ + kx) * group_in_c_;
              for (int c = 0; c < group_in_c_; ++c) acc += static_cast<int64_t>(x[c]) * f[c];
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

Status QuantizedConv2DKernel::Eval(KernelContext& ctx) {
  if (rows_ == 0 || out_c_ == 0) return Status::Ok();
  if (in_type_ == DataType::kInt16) {
    EvalInt16(ctx);
    return Status::Ok();
  }
  const auto* input = ctx.input(0).data_as<uint8_t>();
  auto* output = ctx.output(0).data_as<uint8_t>();
  char* scratch = static_cast<char*>(ctx.scratch());
  const int active = std::min(slots_, partition_.num_tasks() * groups_);
  if (active <= 1) {
    RunSlot(input, output, scratch, 1, 0);
    return Status::Ok();
  }
  ctx.ParallelFor(active, 1, [&](int64_t b, int64_t e) {
    for (int64_t s = b; s < e; ++s) RunSlot(input, output, scratch, active, static_cast<int>(s));
  });
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedConv2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(Conv2DParams params, ParseConv2DParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedConv2DKernel>(params));
}

}  // namespace relite::cpu
