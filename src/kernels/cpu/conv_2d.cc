// CONV_2D on float32 NHWC data, grouped convolution included.
//
// The convolution is a product [pixels x K] * [K x Cout_per_group] per group,
// K = KH * KW * Cin_per_group, in the order of the filter's [Cout, KH, KW,
// Cin/groups] layout. A 1x1 stride-1 convolution (and a filter that covers
// the whole unpadded input) reads its rows straight from the input; every
// other case gathers a block of rows (im2col) into per-thread scratch just
// before multiplying it, so the gathered block is still in cache.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "relite/kernel.h"
#include "src/core/ops/fusion.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/conv_util.h"
#include "src/kernels/cpu/internal/fused_residual.h"
#include "src/kernels/cpu/internal/gemm.h"
#include "src/kernels/cpu/internal/narrow_conv.h"
#include "src/kernels/cpu/internal/slot_tasks.h"
#include "src/kernels/cpu/internal/vec8f.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/internal/hybrid.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// Rows gathered per task: bounds the per-thread im2col block (rows * K floats).
constexpr int kMaxIm2colRows = 96;
constexpr size_t kIm2colBlockFloats = size_t{1} << 16;  // 256 KiB

// The gathered runs are short (a tap's channels, or a filter row of them):
// inline copies beat a libc call for those.
inline void CopyFloats(float* dst, const float* src, size_t n) {
  if (n >= 64) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  if (n >= 8) {
    // The last vector may overlap the one before it: same values, one store fewer than a scalar tail.
    for (size_t i = 0; i + 8 < n; i += 8) Store8(dst + i, Load8(src + i));
    Store8(dst + n - 8, Load8(src + n - 8));
    return;
  }
  for (size_t i = 0; i < n; ++i) dst[i] = src[i];
}

inline void ZeroFloats(float* dst, size_t n) {
  if (n >= 64) {
    std::memset(dst, 0, n * sizeof(float));
    return;
  }
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) Store8(dst + i, v8f{});
    Store8(dst + n - 8, v8f{});
    return;
  }
  for (size_t i = 0; i < n; ++i) dst[i] = 0.f;
}

// x * relu6(x + 3) / 6 in place over `rows` rows of `cols` floats (row stride ldc).
void HardSwishBlock(float* c, int rows, int cols, size_t ldc) {
  if (static_cast<size_t>(cols) == ldc) {
    Kernels().hard_swish_f32(c, c, int64_t{rows} * cols);
    return;
  }
  for (int r = 0; r < rows; ++r, c += ldc) Kernels().hard_swish_f32(c, c, cols);
}

class Conv2DKernel final : public Kernel, public PointwiseOutputSource {
 public:
  explicit Conv2DKernel(const Conv2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  bool FuseClamp(float min, float max) override {
    return !hard_swish_ && FuseClampInto(&params_.activation, min, max);
  }
  bool FuseHardSwish() override {
    hard_swish_ = true;
    return true;
  }
  bool FuseResidualAdd(int residual_input_index, float min, float max) override {
    // The clamp must follow the sum: only a convolution without its own activation.
    if (residual_input_index != kResidualInput || params_.activation != Activation::kNone || fused_residual_ ||
        hard_swish_) {
      return false;
    }
    if ((min != -std::numeric_limits<float>::infinity() || max != std::numeric_limits<float>::infinity()) &&
        !FuseClampInto(&params_.activation, min, max)) {
      return false;
    }
    fused_residual_ = true;
    return true;
  }
  int residual_input_index() const override { return kResidualInput; }
  bool PointwiseEpilogue(float* min, float* max, bool* residual) const override {
    if (hard_swish_ || !IsClampActivation(params_.activation)) return false;
    const ActivationRange range = GetActivationRange(params_.activation);
    *min = range.min;
    *max = range.max;
    *residual = fused_residual_;
    return true;
  }
  Status Eval(KernelContext& ctx) override;

 private:
  static constexpr int kResidualInput = 3;  // after the optional bias

  struct EvalJob {
    const Conv2DKernel* kernel;
    const float* input;
    const float* packed;
    const float* bias;
    const float* residual;  // fused ADD operand, or null
    float* output;
    char* scratch;
    int active_slots;  // slots sharing the tasks (at most slots_)
    SlotTasks* tasks;
  };

  // Gathers im2col rows [m0, m1) of group g into `rows` (K floats each).
  void Im2col(const float* input, int g, int m0, int m1, float* rows) const;
  void RunSlot(const EvalJob& job, int slot) const;
  // The segmented path: one output row per task.
  void RunSlotByRows(const EvalJob& job, int slot) const;
  // Output pixels [m0, m1) (all columns) from im2col rows, in blocks that fit the slot's scratch.
  void GatherAndMultiply(const EvalJob& job, int m0, int m1, float* rows) const;
  GemmEpilogue EpilogueFor(const EvalJob& job, int m0, int group) const;

  Conv2DParams params_;
  ActivationRange act_{};

  int batch_ = 0, in_h_ = 0, in_w_ = 0, in_c_ = 0;
  int out_h_ = 0, out_w_ = 0, out_c_ = 0;
  int filter_h_ = 0, filter_w_ = 0;
  int groups_ = 1, group_in_c_ = 0, group_out_c_ = 0;
  int depth_ = 0;  // K of the product
  int pad_top_ = 0, pad_left_ = 0;
  int rows_ = 0;  // M of the product: batch * out_h * out_w

  // At most kNarrowConvMaxOutputs output channels: dot products straight
  // from the input (narrow_conv.h), no packing and no im2col.
  bool narrow_ = false;
  // A fused residual ADD: input kResidualInput, residual_c_ channels per pixel.
  bool fused_residual_ = false;
  // A fused HARD_SWISH, applied to each finished block while it is in cache.
  bool hard_swish_ = false;
  int residual_c_ = 0;
  NarrowConvGeometry narrow_geometry_;

  // Direct: the input rows are the product's rows (row stride direct_lda_).
  bool direct_ = false;
  size_t direct_lda_ = 0;

  // Segmented (ungrouped, undilated, K <= kGemmMaxSegmentedDepth): output
  // pixels whose window lies inside the image read their filter rows in
  // place (GemmPackedSegmented); only the border pixels are gathered. It
  // removes the im2col copy that dominates first layers (K = 27 or 75).
  bool segmented_ = false;
  int inner_x_begin_ = 0, inner_x_end_ = 0;  // output columns with the window inside
  int inner_y_begin_ = 0, inner_y_end_ = 0;  // output rows likewise
  int gather_rows_ = 0;                      // border pixels gathered per block

  GemmPartition partition_;
  SlotTasks tasks_;  // reset by every Eval
  int slots_ = 1;
  size_t slot_floats_ = 0;  // im2col block per slot
  size_t packed_group_floats_ = 0;

  // Packed weights of a constant filter (packed in Prepare, once per filter).
  AlignedFloatBuffer packed_;
  const void* packed_from_ = nullptr;
  bool filter_constant_ = false;
};

Status Conv2DKernel::Prepare(KernelContext& ctx) {
  const int max_inputs = fused_residual_ ? kResidualInput + 1 : 3;
  if (ctx.num_inputs() < 2 || ctx.num_inputs() > max_inputs) {
    return ctx.Error("expected 2 or 3 inputs (input, filter[, bias]), got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expected 1 output, got " + std::to_string(ctx.num_outputs()));
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("input and filter are required");
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, input, "input"));
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, filter, "filter"));
  if (filter.sparsity != nullptr) return ctx.Unsupported("sparse filter is not supported");
  if (ctx.output(0).type != DataType::kFloat32) {
    return ctx.Unsupported("output type " + DataTypeName(ctx.output(0).type) + " is not supported (float32 only)");
  }
  if (input.rank() != 4) return ctx.Error("input must be 4-D [N,H,W,C], got " + ShapeToString(input.shape));
  if (filter.rank() != 4) return ctx.Error("filter must be 4-D [Cout,KH,KW,Cin], got " + ShapeToString(filter.shape));

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
    return ctx.Error("output channels " + std::to_string(out_c_) + " are not divisible into " +
                     std::to_string(groups_) + " groups");
  }
  group_out_c_ = out_c_ / groups_;

  if (ctx.has_input(2)) {
    const Tensor& bias = ctx.input(2);
    RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, bias, "bias"));
    if (bias.num_elements() != out_c_) {
      return ctx.Error("bias must have " + std::to_string(out_c_) + " elements, got " + ShapeToString(bias.shape));
    }
  }

  RELITE_ASSIGN_OR_RETURN(const PaddedDim ph, ComputeWindow(ctx.node(), params_.padding, in_h_, filter_h_, params_.stride_h, params_.dilation_h));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pw, ComputeWindow(ctx.node(), params_.padding, in_w_, filter_w_, params_.stride_w, params_.dilation_w));
  out_h_ = ph.out;
  out_w_ = pw.out;
  pad_top_ = ph.pad_before;
  pad_left_ = pw.pad_before;
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, {batch_, out_h_, out_w_, out_c_}));

  act_ = GetActivationRange(params_.activation);
  const int64_t depth = int64_t{filter_h_} * filter_w_ * group_in_c_;
  const int64_t rows = int64_t{batch_} * out_h_ * out_w_;
  if (depth > INT32_MAX || rows > INT32_MAX) return ctx.Unsupported("convolution too large for 32-bit indexing");
  depth_ = static_cast<int>(depth);
  rows_ = static_cast<int>(rows);

  if (fused_residual_) {
    RELITE_RETURN_IF_ERROR(
        CheckFusedResidualOperand(ctx, kResidualInput, batch_, out_h_, out_w_, out_c_, "convolution", &residual_c_));
  }
  narrow_ = groups_ == 1 && out_c_ <= kNarrowConvMaxOutputs && !fused_residual_;
  if (narrow_) {
    narrow_geometry_ = NarrowConvGeometry{.in_h = in_h_, .in_w = in_w_, .in_c = in_c_,
                                          .out_h = out_h_, .out_w = out_w_, .out_c = out_c_,
                                          .filter_h = filter_h_, .filter_w = filter_w_,
                                          .stride_h = params_.stride_h, .stride_w = params_.stride_w,
                                          .dilation_h = params_.dilation_h, .dilation_w = params_.dilation_w,
                                          .pad_top = pad_top_, .pad_left = pad_left_};
    packed_from_ = nullptr;
    return Status::Ok();
  }

  const bool pointwise = filter_h_ == 1 && filter_w_ == 1 && params_.stride_h == 1 && params_.stride_w == 1;
  const bool whole_image = groups_ == 1 && out_h_ == 1 && out_w_ == 1 && pad_top_ == 0 && pad_left_ == 0 &&
                           filter_h_ == in_h_ && filter_w_ == in_w_;
  direct_ = pointwise || whole_image;
  direct_lda_ = pointwise ? static_cast<size_t>(in_c_) : static_cast<size_t>(depth_);

  slots_ = std::max(1, ctx.num_threads());
  const int max_rows = direct_ ? (1 << 20)
                               : static_cast<int>(std::clamp<size_t>(kIm2colBlockFloats / static_cast<size_t>(depth_),
                                                                     kGemmTileRows, kMaxIm2colRows));
  // Groups are independent tasks already; each group is split for its share of the threads.
  partition_ =
      PartitionGemm(rows_, group_out_c_, depth_, std::max(1, slots_ / groups_), max_rows, kFloatGemmTasksPerThread);
  slot_floats_ = direct_ ? 0 : static_cast<size_t>(partition_.rows_per_task) * depth_;

  // Worth it when the rows are enough tasks to share and a tile's worth of
  // windows per row lies inside the unpadded image.
  const int sh = params_.stride_h, sw = params_.stride_w;
  inner_x_begin_ = std::min(out_w_, CeilDiv(pad_left_, sw));
  inner_x_end_ = in_w_ + pad_left_ >= filter_w_ ? std::min(out_w_, (in_w_ + pad_left_ - filter_w_) / sw + 1) : 0;
  inner_y_begin_ = std::min(out_h_, CeilDiv(pad_top_, sh));
  inner_y_end_ = in_h_ + pad_top_ >= filter_h_ ? std::min(out_h_, (in_h_ + pad_top_ - filter_h_) / sh + 1) : 0;
  segmented_ = !direct_ && groups_ == 1 && params_.dilation_h == 1 && params_.dilation_w == 1 &&
               depth_ <= kGemmMaxSegmentedDepth && inner_x_end_ - inner_x_begin_ >= kGemmTileRows &&
               inner_y_end_ > inner_y_begin_ && int64_t{batch_} * out_h_ >= 4 * int64_t{slots_};
  if (segmented_) {
    gather_rows_ = std::min(out_w_, max_rows);
    slot_floats_ = static_cast<size_t>(gather_rows_) * depth_;
  }

  packed_group_floats_ = PackedWeightsSize(group_out_c_, depth_);
  filter_constant_ = filter.is_constant() && filter.data != nullptr;
  size_t scratch_bytes = 0;
  if (!direct_) scratch_bytes += static_cast<size_t>(slots_) * (slot_floats_ * sizeof(float) + 64);
  if (filter_constant_) {
    if (packed_from_ != filter.data || packed_.size() != packed_group_floats_ * groups_) {
      packed_.Resize(packed_group_floats_ * groups_);
      if (packed_.data() == nullptr) {
        return InternalError(ctx.node().Describe() + ": out of memory packing the filter");
      }
      const float* w = filter.data_as<float>();
      for (int g = 0; g < groups_; ++g) {
        PackWeights(w + static_cast<size_t>(g) * group_out_c_ * depth_, group_out_c_, depth_, depth_,
                    packed_.data() + g * packed_group_floats_);
      }
      packed_from_ = filter.data;
    }
  } else {
    packed_from_ = nullptr;
    scratch_bytes += packed_group_floats_ * groups_ * sizeof(float) + 64;
  }
  if (scratch_bytes > 0) ctx.RequestScratch(scratch_bytes + 64);
  return Status::Ok();
}

void Conv2DKernel::Im2col(const float* input, int g, int m0, int m1, float* rows) const {
  const int sh = params_.stride_h, sw = params_.stride_w;
  const int dh = params_.dilation_h, dw = params_.dilation_w;
  const size_t row_pixels = static_cast<size_t>(in_w_);
  const size_t image_floats = static_cast<size_t>(in_h_) * in_w_ * in_c_;
  const size_t tap_floats = static_cast<size_t>(group_in_c_);
  const size_t filter_row_floats = static_cast<size_t>(filter_w_) * group_in_c_;
  // One division to find where the block starts, then walk.
  int ox = m0 % out_w_;
  int oy = (m0 / out_w_) % out_h_;
  int b = m0 / (out_w_ * out_h_);
  const float* channel_base = input + static_cast<size_t>(g) * group_in_c_;
  for (int m = m0; m < m1; ++m) {
    float* dst = rows + static_cast<size_t>(m - m0) * depth_;
    const float* image = channel_base + static_cast<size_t>(b) * image_floats;
    const int iy0 = oy * sh - pad_top_;
    const int ix0 = ox * sw - pad_left_;
    // Whole filter rows are contiguous in the input when nothing separates taps.
    const bool contiguous_row = groups_ == 1 && dw == 1 && ix0 >= 0 && ix0 + filter_w_ <= in_w_;
    for (int ky = 0; ky < filter_h_; ++ky, dst += filter_row_floats) {
      const int iy = iy0 + ky * dh;
      if (iy < 0 || iy >= in_h_) {
        ZeroFloats(dst, filter_row_floats);
        continue;
      }
      const float* src_row = image + static_cast<size_t>(iy) * row_pixels * in_c_;
      if (contiguous_row) {
        CopyFloats(dst, src_row + static_cast<size_t>(ix0) * in_c_, filter_row_floats);
        continue;
      }
      for (int kx = 0; kx < filter_w_; ++kx) {
        const int ix = ix0 + kx * dw;
        float* tap = dst + kx * tap_floats;
        if (ix < 0 || ix >= in_w_) {
          ZeroFloats(tap, tap_floats);
        } else {
          CopyFloats(tap, src_row + static_cast<size_t>(ix) * in_c_, tap_floats);
        }
      }
    }
    if (++ox == out_w_) {
      ox = 0;
      if (++oy == out_h_) {
        oy = 0;
        ++b;
      }
    }
  }
}

GemmEpilogue Conv2DKernel::EpilogueFor(const EvalJob& job, int m0, int g) const {
  GemmEpilogue epilogue{nullptr, act_.min, act_.max};
  if (job.bias != nullptr) epilogue.bias = job.bias + static_cast<size_t>(g) * group_out_c_;
  if (job.residual != nullptr) {
    const int first_channel = g * group_out_c_;
    epilogue.residual = job.residual + static_cast<size_t>(m0) * residual_c_ + std::min(first_channel, residual_c_);
    epilogue.residual_stride = static_cast<size_t>(residual_c_);
    epilogue.residual_columns = std::clamp(residual_c_ - first_channel, 0, group_out_c_);
  }
  return epilogue;
}

void Conv2DKernel::GatherAndMultiply(const EvalJob& job, int m0, int m1, float* rows) const {
  for (int b0 = m0; b0 < m1; b0 += gather_rows_) {
    const int b1 = std::min(m1, b0 + gather_rows_);
    Im2col(job.input, 0, b0, b1, rows);
    GemmPacked(b1 - b0, out_c_, depth_, rows, static_cast<size_t>(depth_), job.packed, EpilogueFor(job, b0, 0),
               job.output + static_cast<size_t>(b0) * out_c_, static_cast<size_t>(out_c_), 0, out_c_);
  }
}

void Conv2DKernel::RunSlotByRows(const EvalJob& job, int slot) const {
  float* rows = AlignFloats64(job.scratch + static_cast<size_t>(slot) * (slot_floats_ * sizeof(float) + 64));
  const size_t in_row_floats = static_cast<size_t>(in_w_) * in_c_;
  const GemmSegments segments{filter_h_, filter_w_ * in_c_, in_row_floats};
  const size_t lda = static_cast<size_t>(params_.stride_w) * in_c_;
  for (int t = job.tasks->Next(slot); t >= 0; t = job.tasks->Next(slot)) {
    const int b = t / out_h_, oy = t % out_h_;
    const int row_m0 = t * out_w_;
    if (oy < inner_y_begin_ || oy >= inner_y_end_) {
      GatherAndMultiply(job, row_m0, row_m0 + out_w_, rows);
      if (hard_swish_) HardSwishBlock(job.output + static_cast<size_t>(row_m0) * out_c_, 1, out_w_ * out_c_, 0);
      continue;
    }
    if (inner_x_begin_ > 0) GatherAndMultiply(job, row_m0, row_m0 + inner_x_begin_, rows);
    const int m0 = row_m0 + inner_x_begin_;
    const int iy0 = oy * params_.stride_h - pad_top_;
    const int ix0 = inner_x_begin_ * params_.stride_w - pad_left_;
    const float* a =
        job.input + (static_cast<size_t>(b) * in_h_ + iy0) * in_row_floats + static_cast<size_t>(ix0) * in_c_;
    GemmPackedSegmented(inner_x_end_ - inner_x_begin_, out_c_, a, lda, segments, job.packed, EpilogueFor(job, m0, 0),
                        job.output + static_cast<size_t>(m0) * out_c_, static_cast<size_t>(out_c_), 0, out_c_);
    if (inner_x_end_ < out_w_) GatherAndMultiply(job, row_m0 + inner_x_end_, row_m0 + out_w_, rows);
    if (hard_swish_) HardSwishBlock(job.output + static_cast<size_t>(row_m0) * out_c_, 1, out_w_ * out_c_, 0);
  }
}

void Conv2DKernel::RunSlot(const EvalJob& job, int slot) const {
  const int tasks_per_group = partition_.num_tasks();
  float* rows =
      direct_ ? nullptr : AlignFloats64(job.scratch + static_cast<size_t>(slot) * (slot_floats_ * sizeof(float) + 64));
  // Consecutive tasks of one row block (split by columns) share one gather.
  int gathered_group = -1, gathered_m0 = -1;
  for (int t = job.tasks->Next(slot); t >= 0; t = job.tasks->Next(slot)) {
    const int g = t / tasks_per_group;
    int m0, m1, n0, n1;
    partition_.Task(t % tasks_per_group, &m0, &m1, &n0, &n1);
    const GemmEpilogue epilogue = EpilogueFor(job, m0, g);
    const float* packed = job.packed + g * packed_group_floats_;
    float* c = job.output + static_cast<size_t>(m0) * out_c_ + static_cast<size_t>(g) * group_out_c_;
    const float* a;
    size_t lda;
    if (direct_) {
      a = job.input + static_cast<size_t>(m0) * direct_lda_ + static_cast<size_t>(g) * group_in_c_;
      lda = direct_lda_;
    } else {
      if (g != gathered_group || m0 != gathered_m0) {
        Im2col(job.input, g, m0, m1, rows);
        gathered_group = g;
        gathered_m0 = m0;
      }
      a = rows;
      lda = static_cast<size_t>(depth_);
    }
    GemmPacked(m1 - m0, group_out_c_, depth_, a, lda, packed, epilogue, c, static_cast<size_t>(out_c_), n0, n1);
    if (hard_swish_) {
      HardSwishBlock(c + n0, m1 - m0, std::min(n1, group_out_c_) - n0, static_cast<size_t>(out_c_));
    }
  }
}

Status Conv2DKernel::Eval(KernelContext& ctx) {
  if (rows_ == 0 || out_c_ == 0) return Status::Ok();
  if (narrow_) {
    const float* input = ctx.input(0).data_as<float>();
    const float* filter = ctx.input(1).data_as<float>();
    const float* bias = ctx.has_input(2) ? ctx.input(2).data_as<float>() : nullptr;
    float* output = ctx.output(0).data_as<float>();
    const int out_rows = batch_ * out_h_;
    // About 16K multiply-adds per chunk at least, so small layers stay on one thread.
    const int64_t row_work = int64_t{out_w_} * out_c_ * depth_;
    const int64_t min_rows = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(row_work, 1));
    ctx.ParallelFor(out_rows, min_rows, [&](int64_t begin, int64_t end) {
      NarrowConvRows(narrow_geometry_, input, filter, bias, act_.min, act_.max, output, static_cast<int>(begin),
                     static_cast<int>(end));
      if (hard_swish_) {
        const size_t row_floats = static_cast<size_t>(out_w_) * out_c_;
        HardSwishBlock(output + static_cast<size_t>(begin) * row_floats, static_cast<int>(end - begin),
                       static_cast<int>(row_floats), row_floats);
      }
    });
    return Status::Ok();
  }
  char* scratch = static_cast<char*>(ctx.scratch());
  EvalJob job{this,
              ctx.input(0).data_as<float>(),
              nullptr,
              ctx.has_input(2) ? ctx.input(2).data_as<float>() : nullptr,
              fused_residual_ ? ctx.input(kResidualInput).data_as<float>() : nullptr,
              ctx.output(0).data_as<float>(),
              scratch,
              1,
              nullptr};
  if (filter_constant_) {
    job.packed = packed_.data();
  } else {
    // A filter computed by the graph is packed on every run.
    char* after_slots = scratch + (direct_ ? 0 : static_cast<size_t>(slots_) * (slot_floats_ * sizeof(float) + 64));
    float* packed = AlignFloats64(after_slots);
    const float* w = ctx.input(1).data_as<float>();
    for (int g = 0; g < groups_; ++g) {
      PackWeights(w + static_cast<size_t>(g) * group_out_c_ * depth_, group_out_c_, depth_, depth_,
                  packed + g * packed_group_floats_);
    }
    job.packed = packed;
  }
  if (segmented_) {
    job.active_slots = slots_;
    tasks_.Reset(batch_ * out_h_, job.active_slots);
    job.tasks = &tasks_;
    ctx.ParallelFor(job.active_slots, 1, [&job](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) job.kernel->RunSlotByRows(job, static_cast<int>(s));
    });
    return Status::Ok();
  }
  job.active_slots = std::min(slots_, partition_.num_tasks() * groups_);
  tasks_.Reset(partition_.num_tasks() * groups_, job.active_slots);
  job.tasks = &tasks_;
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

std::unique_ptr<Kernel> MakeFloatConv2D(const Conv2DParams& params) { return std::make_unique<Conv2DKernel>(params); }

StatusOr<std::unique_ptr<Kernel>> CreateConv2D(const Node& node) {
  if (IsHybridNode(node)) return CreateHybridConv2D(node);
  RELITE_ASSIGN_OR_RETURN(Conv2DParams params, ParseConv2DParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  return std::unique_ptr<Kernel>(std::make_unique<Conv2DKernel>(params));
}

}  // namespace relite::cpu
