// DEPTHWISE_CONV_2D on float32 NHWC data.
//
// The op checks shapes, fuses what follows it and spreads rows over the
// threads; the rows themselves are computed by the ISA's variant
// (src/kernels/cpu/isa/multi/depthwise_f32.cc). It can also take the 1x1
// convolution that feeds it (an inverted-residual block's expansion, see
// src/core/ops/fusion.h): the expanded rows are then made a band at a time
// in per-thread scratch, with the GEMM that CONV_2D runs, and never reach
// memory whole. Likewise the 1x1 convolution that reads it (the block's
// projection): this node's output rows are made a few at a time in scratch
// and multiplied there, and the node writes the projection's output.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/core/ops/fusion.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/conv_util.h"
#include "src/kernels/cpu/internal/fused_residual.h"
#include "src/kernels/cpu/internal/gemm.h"
#include "src/kernels/cpu/internal/slot_tasks.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/internal/hybrid.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class DepthwiseConv2DKernel final : public Kernel, public PointwiseInputFusable, public PointwiseOutputFusable {
 public:
  explicit DepthwiseConv2DKernel(const DepthwiseConv2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  bool FuseClamp(float min, float max) override {
    if (hard_swish_ || projection_) return false;
    if (!residual_.active()) return FuseClampInto(&params_.activation, min, max);
    return residual_.TakeClamp(min, max);
  }
  bool FuseHardSwish() override {
    if (projection_) return false;
    hard_swish_ = true;
    return true;
  }
  // ADD(depthwise output, R): the row is finished, then R is added and the
  // ADD's clamp applied while the row is in L1. The depthwise output is
  // complete (own activation included) before the sum, so any activation of
  // this node is fine.
  bool FuseResidualAdd(int residual_input_index, float min, float max) override {
    return residual_input_index == kResidualInput && !hard_swish_ && !pointwise_ && !projection_ &&
           residual_.Take(min, max);
  }
  int residual_input_index() const override { return kResidualInput; }
  // The expansion before it (a HARD_SWISH fused later still applies to this
  // node's output); not with a fused ADD, whose rows would need their
  // place in the whole output.
  bool FusePointwiseInput(int first_input, float min, float max) override {
    if (first_input != kPointwiseInput || residual_.active() || hard_swish_ || pointwise_ || projection_) return false;
    pointwise_ = true;
    pointwise_act_ = {min, max};
    return true;
  }
  int pointwise_input_index() const override { return kPointwiseInput; }
  // The projection after it (a fused HARD_SWISH of this node's own output
  // still applies before the product); not with a fused ADD of its own.
  bool FusePointwiseOutput(int first_input, float min, float max, bool residual) override {
    if (first_input != kProjectionInput || residual_.active() || projection_) return false;
    projection_ = true;
    projection_act_ = {min, max};
    projection_residual_ = residual;
    return true;
  }
  int pointwise_output_index() const override { return kProjectionInput; }
  Status Eval(KernelContext& ctx) override;

 private:
  // A row, then the fused ADD and HARD_SWISH while the row is still in L1.
  void RunRowAndFinish(const DepthwiseF32Job& job, const float* residual, int row) const {
    Kernels().depthwise_f32_row(job, row);
    float* out_row = job.output + static_cast<size_t>(row) * out_w_ * out_c_;
    if (residual_.active()) {
      residual_.AddToRow(residual + static_cast<size_t>(row) * out_w_ * residual_.residual_channels(), out_row,
                         out_w_);
    }
    if (hard_swish_) Kernels().hard_swish_f32(out_row, out_row, int64_t{out_w_} * out_c_);
  }

  // With a fused expansion (pointwise_): checks its filter and bias, sets
  // in_c_ to its outputs, packs its weights.
  Status PreparePointwise(KernelContext& ctx);
  // With a fused projection (projection_): checks its filter, bias and ADD
  // operand, packs its weights, plans the rows made at once.
  Status PrepareProjection(KernelContext& ctx);
  // What the projection's product reads besides the rows.
  struct ProjectionIo {
    const float* bias = nullptr;
    const float* residual = nullptr;  // the fused ADD's operand, or null
    float* output = nullptr;          // the node's output
  };
  ProjectionIo ProjectionInputs(KernelContext& ctx) const;
  // Output rows [0, rows) of `part` (a job of one image's consecutive rows;
  // its row 0 starts at pixel first_pixel of the whole output; its output
  // pointer is set here): computed straight into the node's output, or,
  // with a fused projection, projection_rows_ at a time into
  // `rows_scratch` and multiplied from there into the projection's output.
  void FinishRows(const DepthwiseF32Job& part, int rows, size_t first_pixel, const ProjectionIo& io,
                  float* rows_scratch) const;
  // The plain path's runs: rows [r0, r1) of batch * out_h_.
  void RunRows(const DepthwiseF32Job& job, const float* residual, int r0, int r1, const ProjectionIo& io,
               float* rows_scratch) const;
  // One thread's rows of depthwise output before the projection.
  size_t projection_slot_bytes() const { return projection_ ? projection_floats_ * sizeof(float) + 64 : 0; }
  // The band height and the scratch it needs, once the geometry is known.
  void PlanPointwiseBands(KernelContext& ctx);
  // Input rows one output row's window spans.
  int window_rows() const { return (filter_h_ - 1) * params_.dilation_h + 1; }
  // One thread's share of the scratch: its band, and room to align it.
  size_t band_slot_bytes() const { return band_floats_ * sizeof(float) + 64; }
  // A thread's slot on the expansion path: its band, then its projection rows.
  size_t pointwise_slot_bytes() const { return band_slot_bytes() + projection_slot_bytes(); }
  void EvalPointwise(KernelContext& ctx, const DepthwiseF32Job& job);
  // Which expanded rows a thread's band holds: rows [lo, hi) of image b.
  struct BandRows {
    int b = -1, lo = 0, hi = 0;
  };
  // Output rows [r0, r1) (batch * out_h + oy) from the expansion's input,
  // a band of output rows at a time, in `band` (band_floats_), keeping the
  // rows `held` says the band has from the thread's previous call.
  void RunPointwiseRows(const DepthwiseF32Job& job, const float* x, const float* pw_bias, float* band, BandRows& held,
                        int r0, int r1, const ProjectionIo& io, float* rows_scratch) const;

  DepthwiseConv2DParams params_;
  ActivationRange act_{};
  bool hard_swish_ = false;  // a HARD_SWISH node fused after the clamp
  static constexpr int kResidualInput = 3;  // after the optional bias
  FusedRowResidual residual_;               // a fused ADD, read from input kResidualInput
  // A fused 1x1 convolution: input 0 is its input (pw_depth_ channels), its
  // filter and optional bias are inputs kPointwiseInput and kPointwiseInput + 1.
  static constexpr int kPointwiseInput = kResidualInput + 1;
  bool pointwise_ = false;
  ActivationRange pointwise_act_{};
  int pw_depth_ = 0;
  AlignedFloatBuffer pw_packed_;
  const void* pw_packed_from_ = nullptr;
  // A fused 1x1 convolution after it: its filter, optional bias and
  // optional ADD operand are inputs kProjectionInput, + 1 and + 2.
  static constexpr int kProjectionInput = kPointwiseInput + 2;
  bool projection_ = false;
  ActivationRange projection_act_{};
  bool projection_residual_ = false;
  int projection_c_ = 0;            // its output channels
  int projection_residual_c_ = 0;   // the ADD operand's channels (<= projection_c_)
  AlignedFloatBuffer projection_packed_;
  const void* projection_packed_from_ = nullptr;
  int projection_rows_ = 0;         // depthwise output rows made at once
  size_t projection_floats_ = 0;    // projection_rows_ of them
  int band_out_rows_ = 0;   // output rows per band
  size_t band_floats_ = 0;  // one thread's band of expanded rows
  int batch_ = 0, in_h_ = 0, in_w_ = 0, in_c_ = 0;
  int out_h_ = 0, out_w_ = 0, out_c_ = 0;
  int filter_h_ = 0, filter_w_ = 0, multiplier_ = 1;
  int pad_top_ = 0, pad_left_ = 0;
  // Output columns whose window lies inside the input horizontally.
  int interior_begin_ = 0, interior_end_ = 0;
  // 5x5 windows (multiplier 1, no dilation, strides 1 or 2) run on
  // channel planes (src/kernels/cpu/isa/multi/depthwise_plane_f32.cc): a
  // vector's worth of channels of a band of input rows copied with its
  // zero padding into scratch, one vector a pixel, and swept there. Every
  // pixel then takes the 5x5 interior kernel, border or not (on a 14x14 or
  // 7x7 map half to four fifths of the pixels touch the border), and the
  // window's 25 loads come from one L1-resident plane instead of 25 cache
  // lines C floats apart.
  bool padded_ = false;
  int padded_w_ = 0;       // plane columns: the padding on both sides included
  int plane_lanes_ = 0;    // channels a plane holds (the ISA's vector)
  int planes_ = 0;         // CeilDiv(in_c_, plane_lanes_)
  int chunk_out_rows_ = 0; // output rows a plane is filled for at once
  // Each thread takes its even share of the output pixels, in order (the
  // rows the same thread of the kernel before wrote, and those of the
  // kernel after reads: a row handed between cores costs about four times
  // an L2 read on the hosts measured), plane after plane. Where the windows
  // of a share reach most of the map, the threads split the planes instead
  // (see PlanPaddedBands).
  void PlanPaddedBands(KernelContext& ctx);
  void EvalPaddedBands(KernelContext& ctx, const DepthwiseF32Job& job, const float* residual);
  // Output pixels [p0, p1) (of batch * out_h * out_w, in order), planes
  // [plane0, plane1). A thread's share is an even share of the pixels, not
  // of the rows, as the GEMMs before and after split them (a 14x14 map's
  // 98 + 98 pixels, not 7 + 7 rows of uneven tasks).
  void RunPaddedPixels(const DepthwiseF32Job& job, const float* residual, int64_t p0, int64_t p1, int plane0,
                       int plane1, float* scratch) const;
  bool split_channels_ = false;  // threads take planes, not pixels
  size_t band_slot_floats_ = 0;  // one thread's plane rows
  std::vector<float> zero_bias_;
  SlotTasks tasks_;  // reset by every Eval
};

// The outputs [begin, end) of one dimension whose window lies inside the
// input: o * stride - pad >= 0 and o * stride - pad + (K - 1) * dilation <= in - 1.
struct InteriorRange {
  int begin = 0, end = 0;
};
InteriorRange InteriorOutputs(int pad_before, int in, int filter, int dilation, int stride, int out) {
  InteriorRange r;
  r.begin = std::min(out, CeilDiv(pad_before, stride));
  const int last_start = in - 1 - (filter - 1) * dilation + pad_before;
  r.end = last_start < 0 ? 0 : std::min(out, FloorDiv(last_start, stride) + 1);
  if (r.end < r.begin) r.end = r.begin;
  return r;
}

Status DepthwiseConv2DKernel::Prepare(KernelContext& ctx) {
  const int max_inputs = projection_          ? kProjectionInput + 3
                         : pointwise_         ? kPointwiseInput + 2
                         : residual_.active() ? kResidualInput + 1
                                              : 3;
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
  if (filter.rank() != 4 || filter.dim(0) != 1) {
    return ctx.Error("filter must be 4-D [1,KH,KW,Cout], got " + ShapeToString(filter.shape));
  }
  batch_ = input.dim(0);
  in_h_ = input.dim(1);
  in_w_ = input.dim(2);
  in_c_ = input.dim(3);
  if (pointwise_) RELITE_RETURN_IF_ERROR(PreparePointwise(ctx));
  filter_h_ = filter.dim(1);
  filter_w_ = filter.dim(2);
  out_c_ = filter.dim(3);
  if (filter_h_ <= 0 || filter_w_ <= 0 || out_c_ <= 0) {
    return ctx.Error("filter dimensions must be positive, got " + ShapeToString(filter.shape));
  }
  if (in_c_ <= 0 || out_c_ % in_c_ != 0) {
    return ctx.Error("filter channels " + std::to_string(out_c_) + " are not a multiple of the input channels " +
                     std::to_string(in_c_));
  }
  // The shapes decide; the option is 0 or stale in some converted models.
  multiplier_ = out_c_ / in_c_;

  if (ctx.has_input(2)) {
    const Tensor& bias = ctx.input(2);
    RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, bias, "bias"));
    if (bias.num_elements() != out_c_) {
      return ctx.Error("bias must have " + std::to_string(out_c_) + " elements, got " + ShapeToString(bias.shape));
    }
  } else {
    zero_bias_.assign(static_cast<size_t>(out_c_), 0.f);
  }

  RELITE_ASSIGN_OR_RETURN(const PaddedDim ph, ComputeWindow(ctx.node(), params_.padding, in_h_, filter_h_, params_.stride_h, params_.dilation_h));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pw, ComputeWindow(ctx.node(), params_.padding, in_w_, filter_w_, params_.stride_w, params_.dilation_w));
  out_h_ = ph.out;
  out_w_ = pw.out;
  pad_top_ = ph.pad_before;
  pad_left_ = pw.pad_before;
  if (projection_) RELITE_RETURN_IF_ERROR(PrepareProjection(ctx));
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, {batch_, out_h_, out_w_, projection_ ? projection_c_ : out_c_}));

  act_ = GetActivationRange(params_.activation);
  if (residual_.active()) {
    RELITE_RETURN_IF_ERROR(
        residual_.Prepare(ctx, kResidualInput, batch_, out_h_, out_w_, out_c_, "depthwise convolution"));
  }
  const int sw = params_.stride_w;
  const InteriorRange columns = InteriorOutputs(pad_left_, in_w_, filter_w_, params_.dilation_w, sw, out_w_);
  interior_begin_ = columns.begin;
  interior_end_ = columns.end;

  padded_ = false;
  const int sh = params_.stride_h;
  const bool planes_fit = multiplier_ == 1 && params_.dilation_h == 1 && params_.dilation_w == 1 &&
                          filter_h_ == 5 && filter_w_ == 5 && sh == sw && (sh == 1 || sh == 2);
  if (planes_fit && !pointwise_ && !projection_) {
    padded_w_ = std::max(in_w_ + pad_left_, (out_w_ - 1) * sw + filter_w_);
    // With stride 2 the copy is a quarter of the pixels' work, not one
    // twenty-fifth: worth it only where the border path would take a large
    // share of the pixels (14x14 -> 7x7). relite_kernel_bench and
    // pose_landmark_lite's nodes, 1 thread, Zen 4, old path -> planes:
    // 14x14x384 5x5 75 -> 51 us, 7x7x672 42 -> 24, 28x28x144 100 -> 75,
    // 32x32x144 118 -> 102, but 68x68x96 stride 2 (VALID) 81 -> 138 and
    // 20x20x336 stride 2 (VALID) 22 -> 31.
    bool worth = sh == 1;
    if (sh == 2) {
      const InteriorRange rows = InteriorOutputs(pad_top_, in_h_, filter_h_, 1, sh, out_h_);
      const int64_t interior = int64_t{rows.end - rows.begin} * (interior_end_ - interior_begin_);
      const int64_t pixels = int64_t{out_h_} * out_w_;
      worth = 5 * (pixels - interior) >= 2 * pixels;
    }
    // A plane row of a very wide map would not leave room in L1 for the
    // window's five rows.
    padded_ = worth && int64_t{padded_w_} * 64 <= 16 * 1024;
    if (padded_) PlanPaddedBands(ctx);
  }
  if (pointwise_) {
    PlanPointwiseBands(ctx);
  } else if (projection_) {
    ctx.RequestScratch(static_cast<size_t>(std::max(1, ctx.num_threads())) * projection_slot_bytes());
  }
  return Status::Ok();
}

Status DepthwiseConv2DKernel::PrepareProjection(KernelContext& ctx) {
  if (!ctx.has_input(kProjectionInput)) return ctx.Error("the fused 1x1 convolution after it has no filter");
  const Tensor& filter = ctx.input(kProjectionInput);
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, filter, "fused 1x1 convolution filter"));
  if (filter.rank() != 4 || filter.dim(1) != 1 || filter.dim(2) != 1 || filter.dim(3) != out_c_ || filter.dim(0) <= 0) {
    return ctx.Error("the fused 1x1 convolution's filter must be [Cout,1,1," + std::to_string(out_c_) + "], got " +
                     ShapeToString(filter.shape));
  }
  if (!filter.is_constant() || filter.data == nullptr) {
    return ctx.Error("the fused 1x1 convolution's filter must be constant");
  }
  projection_c_ = filter.dim(0);
  if (ctx.has_input(kProjectionInput + 1)) {
    const Tensor& bias = ctx.input(kProjectionInput + 1);
    RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, bias, "fused 1x1 convolution bias"));
    if (bias.num_elements() != projection_c_) {
      return ctx.Error("the fused 1x1 convolution's bias must have " + std::to_string(projection_c_) +
                       " elements, got " + ShapeToString(bias.shape));
    }
  }
  projection_residual_c_ = 0;
  if (projection_residual_) {
    RELITE_RETURN_IF_ERROR(CheckFusedResidualOperand(ctx, kProjectionInput + 2, batch_, out_h_, out_w_, projection_c_,
                                                     "fused 1x1 convolution", &projection_residual_c_));
  }
  if (projection_packed_from_ != filter.data ||
      projection_packed_.size() != PackedWeightsSize(projection_c_, out_c_)) {
    projection_packed_.Resize(PackedWeightsSize(projection_c_, out_c_));
    if (projection_packed_.data() == nullptr) {
      return InternalError(ctx.node().Describe() + ": out of memory packing the fused 1x1 convolution's filter");
    }
    PackWeights(filter.data_as<float>(), projection_c_, out_c_, static_cast<size_t>(out_c_), projection_packed_.data());
    projection_packed_from_ = filter.data;
  }
  // About 24 KiB of depthwise output at once: made and multiplied while in
  // L1, next to the weights.
  constexpr size_t kRowsBytes = size_t{24} << 10;
  const size_t row_bytes = std::max<size_t>(1, static_cast<size_t>(out_w_) * out_c_ * sizeof(float));
  projection_rows_ = static_cast<int>(std::clamp<size_t>(kRowsBytes / row_bytes, 1, static_cast<size_t>(std::max(1, out_h_))));
  projection_floats_ = static_cast<size_t>(projection_rows_) * out_w_ * out_c_;
  return Status::Ok();
}

DepthwiseConv2DKernel::ProjectionIo DepthwiseConv2DKernel::ProjectionInputs(KernelContext& ctx) const {
  ProjectionIo io;
  io.output = ctx.output(0).data_as<float>();
  if (!projection_) return io;
  if (ctx.has_input(kProjectionInput + 1)) io.bias = ctx.input(kProjectionInput + 1).data_as<float>();
  if (projection_residual_) io.residual = ctx.input(kProjectionInput + 2).data_as<float>();
  return io;
}

void DepthwiseConv2DKernel::FinishRows(const DepthwiseF32Job& part, int rows, size_t first_pixel,
                                       const ProjectionIo& io, float* rows_scratch) const {
  if (!projection_) {
    DepthwiseF32Job direct = part;
    direct.output = io.output + first_pixel * out_c_;
    for (int i = 0; i < rows; ++i) RunRowAndFinish(direct, nullptr, i);
    return;
  }
  const int sh = params_.stride_h;
  for (int i0 = 0; i0 < rows; i0 += projection_rows_) {
    const int n = std::min(projection_rows_, rows - i0);
    DepthwiseF32Job chunk = part;
    chunk.pad_top = part.pad_top - i0 * sh;
    chunk.out_h = n;
    chunk.output = rows_scratch;
    for (int i = 0; i < n; ++i) RunRowAndFinish(chunk, nullptr, i);
    const size_t pixel = first_pixel + static_cast<size_t>(i0) * out_w_;
    GemmEpilogue epilogue{io.bias, projection_act_.min, projection_act_.max};
    if (io.residual != nullptr) {
      epilogue.residual = io.residual + pixel * projection_residual_c_;
      epilogue.residual_stride = static_cast<size_t>(projection_residual_c_);
      epilogue.residual_columns = projection_residual_c_;
    }
    GemmPacked(n * out_w_, projection_c_, out_c_, rows_scratch, static_cast<size_t>(out_c_), projection_packed_.data(),
               epilogue, io.output + pixel * projection_c_, static_cast<size_t>(projection_c_), 0, projection_c_);
  }
}

void DepthwiseConv2DKernel::RunRows(const DepthwiseF32Job& job, const float* residual, int r0, int r1,
                                    const ProjectionIo& io, float* rows_scratch) const {
  if (!projection_) {
    for (int r = r0; r < r1; ++r) RunRowAndFinish(job, residual, r);
    return;
  }
  // Rows of one image at a time, as a job of their own (row i is output row oy0 + i).
  const int sh = params_.stride_h;
  for (int r = r0; r < r1;) {
    const int b = r / out_h_, oy0 = r % out_h_;
    const int oy1 = std::min(out_h_, oy0 + (r1 - r));
    DepthwiseF32Job part = job;
    part.input = job.input + static_cast<size_t>(b) * in_h_ * in_w_ * in_c_;
    part.pad_top = pad_top_ - oy0 * sh;
    part.out_h = oy1 - oy0;
    FinishRows(part, oy1 - oy0, (static_cast<size_t>(b) * out_h_ + oy0) * out_w_, io, rows_scratch);
    r += oy1 - oy0;
  }
}

Status DepthwiseConv2DKernel::PreparePointwise(KernelContext& ctx) {
  if (!ctx.has_input(kPointwiseInput)) return ctx.Error("the fused 1x1 convolution has no filter");
  const Tensor& filter = ctx.input(kPointwiseInput);
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, filter, "fused 1x1 convolution filter"));
  if (filter.rank() != 4 || filter.dim(1) != 1 || filter.dim(2) != 1 || filter.dim(3) != in_c_ || filter.dim(0) <= 0) {
    return ctx.Error("the fused 1x1 convolution's filter must be [Cout,1,1," + std::to_string(in_c_) + "], got " +
                     ShapeToString(filter.shape));
  }
  if (!filter.is_constant() || filter.data == nullptr) return ctx.Error("the fused 1x1 convolution's filter must be constant");
  pw_depth_ = in_c_;
  in_c_ = filter.dim(0);
  if (ctx.has_input(kPointwiseInput + 1)) {
    const Tensor& bias = ctx.input(kPointwiseInput + 1);
    RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, bias, "fused 1x1 convolution bias"));
    if (bias.num_elements() != in_c_) {
      return ctx.Error("the fused 1x1 convolution's bias must have " + std::to_string(in_c_) + " elements, got " +
                       ShapeToString(bias.shape));
    }
  }
  if (pw_packed_from_ != filter.data || pw_packed_.size() != PackedWeightsSize(in_c_, pw_depth_)) {
    pw_packed_.Resize(PackedWeightsSize(in_c_, pw_depth_));
    if (pw_packed_.data() == nullptr) return InternalError(ctx.node().Describe() + ": out of memory packing the filter");
    PackWeights(filter.data_as<float>(), in_c_, pw_depth_, static_cast<size_t>(pw_depth_), pw_packed_.data());
    pw_packed_from_ = filter.data;
  }
  return Status::Ok();
}

// Output rows [0, rows) in `parts` runs of nearly equal length, in order:
// run i is [rows * i / parts, rows * (i + 1) / parts). With parts a
// multiple of the threads, SlotTasks gives thread t the rows
// [rows * t / threads, rows * (t + 1) / threads), the share every row-split
// kernel gives it.
int RunBegin(int rows, int parts, int i) { return static_cast<int>(int64_t{rows} * i / parts); }

void DepthwiseConv2DKernel::PlanPaddedBands(KernelContext& ctx) {
  const int threads = std::max(1, ctx.num_threads());
  const int sh = params_.stride_h;
  plane_lanes_ = Kernels().depthwise_plane_lanes;
  planes_ = CeilDiv(in_c_, plane_lanes_);
  // A thread's pixels within one image span at most this many output rows
  // (a share that starts and ends inside a row spans one more), and their
  // windows this many input rows.
  const int64_t pixels = int64_t{batch_} * out_h_ * out_w_;
  const int64_t share = (pixels + threads - 1) / threads;
  const int band_rows = static_cast<int>(std::min<int64_t>(out_h_, share / std::max(1, out_w_) + 2));
  const int padded_h = (out_h_ - 1) * sh + filter_h_;
  const int band_in_rows = std::min(padded_h, (band_rows - 1) * sh + filter_h_);
  // Where a share's windows reach most of the map (7x7 under 5x5 windows:
  // each of two threads reads six of the seven rows), splitting the
  // channels moves less between cores: each thread reads and writes half.
  // Not with a fused ADD or HARD_SWISH, which finish whole pixels.
  split_channels_ = threads > 1 && planes_ >= threads && !residual_.active() && !hard_swish_ &&
                    5 * band_in_rows > 4 * padded_h;
  // A plane is filled for a chunk of output rows at a time, about 20 KiB of
  // plane rows, so that it is swept while still in L1; at least four output
  // rows, so that the window's halo rows are not copied again and again.
  const size_t plane_row_bytes = static_cast<size_t>(padded_w_) * plane_lanes_ * sizeof(float);
  const int fit_rows = static_cast<int>((20 * 1024) / plane_row_bytes);
  chunk_out_rows_ = std::clamp((fit_rows - filter_h_) / sh + 1, std::min(4, out_h_), out_h_);
  const int chunk_in_rows = (chunk_out_rows_ - 1) * sh + filter_h_;
  // Whole cache lines a slot, so every thread's plane is 64-byte aligned.
  band_slot_floats_ = (static_cast<size_t>(chunk_in_rows) * padded_w_ * plane_lanes_ + 15) / 16 * 16;
  ctx.RequestScratch((static_cast<size_t>(threads) * band_slot_floats_ + 16) * sizeof(float));  // + alignment
}

void DepthwiseConv2DKernel::RunPaddedPixels(const DepthwiseF32Job& job, const float* residual, int64_t p0, int64_t p1,
                                            int plane0, int plane1, float* scratch) const {
  const int sh = params_.stride_h;
  const int64_t image_pixels = int64_t{out_h_} * out_w_;
  const DepthwiseF32PlaneFn sweep = Kernels().depthwise_f32_plane;
  DepthwisePlaneJob plane;
  plane.in_h = in_h_, plane.in_w = in_w_;
  plane.in_pixel = static_cast<size_t>(in_c_);
  plane.plane = scratch;
  plane.plane_w = padded_w_;
  plane.pad_left = pad_left_;
  plane.stride = sh;
  plane.filter_tap = static_cast<size_t>(out_c_);
  plane.out_pixel = static_cast<size_t>(out_c_);
  plane.out_w = out_w_;
  plane.act_min = job.act_min, plane.act_max = job.act_max;
  while (p0 < p1) {
    // Pixels [q0, q1) of image b, output rows [oy0, oy1).
    const int b = static_cast<int>(p0 / image_pixels);
    const int q0 = static_cast<int>(p0 - b * image_pixels);
    const int q1 = static_cast<int>(std::min(p1 - b * image_pixels, image_pixels));
    const int oy0 = q0 / out_w_, oy1 = (q1 - 1) / out_w_ + 1;
    const float* image = job.input + static_cast<size_t>(b) * in_h_ * in_w_ * in_c_;
    float* out_image = job.output + static_cast<size_t>(b) * image_pixels * out_c_;
    for (int i = plane0; i < plane1; ++i) {
      const int c = i * plane_lanes_;
      plane.input = image + c;
      plane.lanes = std::min(plane_lanes_, in_c_ - c);
      plane.filter = job.filter + c;
      plane.bias = job.bias + c;
      plane.output = out_image + c;
      for (int ya = oy0; ya < oy1; ya += chunk_out_rows_) {
        const int yb = std::min(oy1, ya + chunk_out_rows_);
        plane.first_out_row = ya;
        plane.image_row0 = ya * sh - pad_top_;
        plane.plane_h = (yb - 1 - ya) * sh + filter_h_;
        plane.pixel_begin = std::max<int64_t>(q0, int64_t{ya} * out_w_);
        plane.pixel_end = std::min<int64_t>(q1, int64_t{yb} * out_w_);
        sweep(plane);
      }
    }
    if (residual != nullptr || hard_swish_) {
      for (int oy = oy0; oy < oy1; ++oy) {
        const int x0 = oy == oy0 ? q0 - oy * out_w_ : 0;
        const int x1 = oy == oy1 - 1 ? q1 - oy * out_w_ : out_w_;
        const size_t pixel = static_cast<size_t>(b) * image_pixels + static_cast<size_t>(oy) * out_w_ + x0;
        float* out = job.output + pixel * out_c_;
        if (residual != nullptr) residual_.AddToRow(residual + pixel * residual_.residual_channels(), out, x1 - x0);
        if (hard_swish_) Kernels().hard_swish_f32(out, out, int64_t{x1 - x0} * out_c_);
      }
    }
    p0 += q1 - q0;
  }
}

void DepthwiseConv2DKernel::EvalPaddedBands(KernelContext& ctx, const DepthwiseF32Job& job, const float* residual) {
  float* scratch = AlignFloats64(ctx.scratch());
  const int64_t pixels = int64_t{batch_} * out_h_ * out_w_;
  const int64_t parts = split_channels_ ? planes_ : pixels;
  const int workers = static_cast<int>(std::min<int64_t>(std::max(1, ctx.num_threads()), parts));
  if (workers <= 1) {
    RunPaddedPixels(job, residual, 0, pixels, 0, planes_, scratch);
    return;
  }
  ctx.ParallelFor(workers, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      float* slot = scratch + static_cast<size_t>(t) * band_slot_floats_;
      if (split_channels_) {
        RunPaddedPixels(job, residual, 0, pixels, static_cast<int>(planes_ * t / workers),
                        static_cast<int>(planes_ * (t + 1) / workers), slot);
      } else {
        RunPaddedPixels(job, residual, pixels * t / workers, pixels * (t + 1) / workers, 0, planes_, slot);
      }
    }
  });
}

void DepthwiseConv2DKernel::PlanPointwiseBands(KernelContext& ctx) {
  // About 256 KiB of expanded rows per thread: the band, the input rows it
  // is made from and the output rows stay in L2 between the GEMM and the
  // depthwise pass.
  constexpr size_t kBandBytes = size_t{256} << 10;
  // (An input resized to no columns has empty rows: one row per band then;
  // Eval returns before any band is made.)
  const size_t row_floats = static_cast<size_t>(in_w_) * in_c_;
  const int window = window_rows();
  const int fit = static_cast<int>(std::clamp<size_t>(kBandBytes / (std::max<size_t>(1, row_floats) * sizeof(float)), 1,
                                                      static_cast<size_t>(std::numeric_limits<int>::max())));
  band_out_rows_ = std::clamp((fit - window) / params_.stride_h + 1, 1, std::max(1, out_h_));
  // With threads, bands no taller than a quarter of a thread's rows, so
  // that the tasks (a band each) balance: 56 rows in bands of 10 made
  // three tasks of 20, 20 and 16 rows for two threads. A thread's
  // consecutive bands share their rows, so smaller bands make no row twice.
  const int threads = std::max(1, ctx.num_threads());
  if (threads > 1) {
    const int64_t rows = int64_t{batch_} * out_h_;
    band_out_rows_ = static_cast<int>(std::clamp<int64_t>((rows + 4 * threads - 1) / (4 * threads), 1, band_out_rows_));
  }
  const int band_in_rows =
      static_cast<int>(std::min<int64_t>(in_h_, int64_t{band_out_rows_ - 1} * params_.stride_h + window));
  band_floats_ = static_cast<size_t>(std::max(band_in_rows, 1)) * row_floats;
  ctx.RequestScratch(static_cast<size_t>(threads) * pointwise_slot_bytes());
}

Status DepthwiseConv2DKernel::Eval(KernelContext& ctx) {
  const int rows = batch_ * out_h_;
  if (rows == 0 || out_w_ == 0 || out_c_ == 0) return Status::Ok();
  DepthwiseF32Job job;
  job.input = ctx.input(0).data_as<float>();
  job.filter = ctx.input(1).data_as<float>();
  job.bias = ctx.has_input(2) ? ctx.input(2).data_as<float>() : zero_bias_.data();
  job.output = ctx.output(0).data_as<float>();
  job.in_h = in_h_, job.in_w = in_w_, job.in_c = in_c_;
  job.out_h = out_h_, job.out_w = out_w_, job.out_c = out_c_;
  job.filter_h = filter_h_, job.filter_w = filter_w_, job.multiplier = multiplier_;
  job.stride_h = params_.stride_h, job.stride_w = params_.stride_w;
  job.dilation_h = params_.dilation_h, job.dilation_w = params_.dilation_w;
  job.pad_top = pad_top_, job.pad_left = pad_left_;
  job.interior_begin = interior_begin_, job.interior_end = interior_end_;
  job.act_min = act_.min, job.act_max = act_.max;
  job.in_pixel = in_c_, job.out_pixel = out_c_;
  if (pointwise_) {
    EvalPointwise(ctx, job);
    return Status::Ok();
  }
  const float* residual = residual_.active() ? ctx.input(kResidualInput).data_as<float>() : nullptr;
  if (padded_) {
    EvalPaddedBands(ctx, job, residual);
    return Status::Ok();
  }
  const int64_t row_work = static_cast<int64_t>(out_w_) * out_c_ * filter_h_ * filter_w_;
  const int64_t min_chunk = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, row_work));
  const ProjectionIo io = ProjectionInputs(ctx);
  // A thread's rows before the projection (none without one).
  auto rows_scratch = [&](int64_t slot) {
    return projection_ ? AlignFloats64(static_cast<char*>(ctx.scratch()) + static_cast<size_t>(slot) * projection_slot_bytes())
                       : nullptr;
  };
  if (ctx.num_threads() <= 1 || rows <= min_chunk) {
    RunRows(job, residual, 0, rows, io, rows_scratch(0));
    return Status::Ok();
  }
  // Runs of rows (four per thread) in SlotTasks: each thread starts on its
  // own share of the image and then helps with the others'.
  const int workers = static_cast<int>(std::min<int64_t>(ctx.num_threads(), rows / min_chunk));
  const int runs = std::min(rows, 4 * workers);
  tasks_.Reset(runs, workers);
  ctx.ParallelFor(workers, 1, [&](int64_t begin, int64_t end) {
    for (int64_t slot = begin; slot < end; ++slot) {
      for (int t = tasks_.Next(static_cast<int>(slot)); t >= 0; t = tasks_.Next(static_cast<int>(slot))) {
        RunRows(job, residual, RunBegin(rows, runs, t), RunBegin(rows, runs, t + 1), io, rows_scratch(slot));
      }
    }
  });
  return Status::Ok();
}

void DepthwiseConv2DKernel::RunPointwiseRows(const DepthwiseF32Job& job, const float* x, const float* pw_bias,
                                             float* band, BandRows& held, int r0, int r1, const ProjectionIo& io,
                                             float* rows_scratch) const {
  const int sh = params_.stride_h;
  const int window = window_rows();
  const size_t row_floats = static_cast<size_t>(in_w_) * in_c_;
  const GemmEpilogue epilogue{pw_bias, pointwise_act_.min, pointwise_act_.max};
  for (int r = r0; r < r1;) {
    const int b = r / out_h_, oy0 = r % out_h_;
    const int oy1 = std::min({out_h_, oy0 + band_out_rows_, r1 - b * out_h_});
    // The expanded rows these output rows read (rows outside the image are padding).
    const int lo = std::clamp(oy0 * sh - pad_top_, 0, in_h_);
    const int hi = std::clamp((oy1 - 1) * sh - pad_top_ + window, lo, in_h_);
    int have = lo;  // rows [lo, have) are in place
    if (held.b == b && held.lo <= lo && lo < held.hi) {
      // The windows of consecutive bands overlap: keep the rows already made.
      const int keep = std::min(held.hi, hi) - lo;
      std::memmove(band, band + static_cast<size_t>(lo - held.lo) * row_floats, static_cast<size_t>(keep) * row_floats * sizeof(float));
      have = lo + keep;
    }
    if (hi > have) {
      const float* a = x + (static_cast<size_t>(b) * in_h_ + have) * in_w_ * pw_depth_;
      GemmPacked((hi - have) * in_w_, in_c_, pw_depth_, a, static_cast<size_t>(pw_depth_), pw_packed_.data(), epilogue,
                 band + static_cast<size_t>(have - lo) * row_floats, static_cast<size_t>(in_c_), 0, in_c_);
    }
    held = {b, lo, hi};
    // The band as a small image of its own: output row oy0 + i is its row i.
    DepthwiseF32Job part = job;
    part.input = band;
    part.in_h = hi - lo;
    part.pad_top = pad_top_ + lo - oy0 * sh;
    part.out_h = oy1 - oy0;
    FinishRows(part, oy1 - oy0, (static_cast<size_t>(b) * out_h_ + oy0) * out_w_, io, rows_scratch);
    r += oy1 - oy0;
  }
}

void DepthwiseConv2DKernel::EvalPointwise(KernelContext& ctx, const DepthwiseF32Job& job) {
  const float* x = ctx.input(0).data_as<float>();
  const float* pw_bias = ctx.has_input(kPointwiseInput + 1) ? ctx.input(kPointwiseInput + 1).data_as<float>() : nullptr;
  char* scratch = static_cast<char*>(ctx.scratch());
  const int rows = batch_ * out_h_;
  // Tasks of a band, about four per thread, in SlotTasks: a thread takes
  // the consecutive tasks of its own run of rows first, so each band reuses
  // the rows the one before made, then helps with the others' (a task taken
  // from another run makes its window's first rows again).
  const int workers = static_cast<int>(std::clamp<int64_t>(rows / (2 * band_out_rows_), 1, std::max(1, ctx.num_threads())));
  const ProjectionIo io = ProjectionInputs(ctx);
  // A thread's slot: its band, then its rows before the projection.
  auto rows_scratch = [&](char* slot) { return projection_ ? AlignFloats64(slot + band_slot_bytes()) : nullptr; };
  if (workers == 1) {
    BandRows held;
    RunPointwiseRows(job, x, pw_bias, AlignFloats64(scratch), held, 0, rows, io, rows_scratch(scratch));
    return;
  }
  // Runs of at most a band each, their count a multiple of the threads so
  // that a thread's own runs are its even share of the rows.
  const int num_tasks = std::min(rows, CeilDiv(CeilDiv(rows, band_out_rows_), workers) * workers);
  tasks_.Reset(num_tasks, workers);
  ctx.ParallelFor(workers, 1, [&](int64_t begin, int64_t end) {
    for (int64_t w = begin; w < end; ++w) {
      char* slot = scratch + static_cast<size_t>(w) * pointwise_slot_bytes();
      float* band = AlignFloats64(slot);
      BandRows held;
      for (int t = tasks_.Next(static_cast<int>(w)); t >= 0; t = tasks_.Next(static_cast<int>(w))) {
        RunPointwiseRows(job, x, pw_bias, band, held, RunBegin(rows, num_tasks, t), RunBegin(rows, num_tasks, t + 1),
                         io, rows_scratch(slot));
      }
    }
  });
}

}  // namespace

std::unique_ptr<Kernel> MakeFloatDepthwiseConv2D(const DepthwiseConv2DParams& params) {
  return std::make_unique<DepthwiseConv2DKernel>(params);
}

StatusOr<std::unique_ptr<Kernel>> CreateDepthwiseConv2D(const Node& node) {
  if (IsHybridNode(node)) return CreateHybridDepthwiseConv2D(node);
  RELITE_ASSIGN_OR_RETURN(DepthwiseConv2DParams params, ParseDepthwiseConv2DParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  return std::unique_ptr<Kernel>(std::make_unique<DepthwiseConv2DKernel>(params));
}

}  // namespace relite::cpu
