// The one table of CPU kernel variants (ARCHITECTURE.md §5): for each hot
// inner loop, the function compiled for the active ISA level. Op files hold
// the algorithm and call through Kernels(); the variants live in
// src/kernels/cpu/isa/multi/ (one source compiled per ISA) and
// src/kernels/cpu/isa/<isa>/ (hand-written for one ISA).
//
// This header is shared by baseline and per-ISA code, so it holds only plain
// structs and function pointers: no inline code that either side could emit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "src/kernels/cpu/isa/cpu_isa.h"

namespace relite::cpu {

// The depth (K) of a float product read from A as `count` runs of `length`
// consecutive floats, run s of a row starting `stride` floats after run s-1:
// a convolution's filter rows read in place from an NHWC image (stride = one
// image row), so the product needs no im2col copy.
struct GemmSegments {
  int count = 1;
  int length = 0;
  size_t stride = 0;
};

// `rows` rows of C (row stride ldc) times one packed weight panel of `width`
// (16, or 8 for a last panel) columns, over the depth steps of `depth`
// (segment s of row r at a + r * lda + s * depth.stride). `b` is the panel at
// the first depth step (width floats per step). The sums start from `bias`
// (width floats, or zero when null) unless `accumulate`, which adds to what
// C holds; `finalize` adds the residual (when not null: row r's `width`
// floats at residual + r * residual_stride, a fused ADD) and clamps to
// [lo, hi].
using GemmF32PanelFn = void (*)(int rows, int width, const GemmSegments& depth, const float* a, size_t lda,
                                const float* b, float* c, size_t ldc, const float* bias, bool accumulate,
                                bool finalize, float lo, float hi, const float* residual, size_t residual_stride);

// GemmF32PanelFn for a last panel of which only the first `valid` columns
// are C's (C holds just those; no residual): C is read and written masked.
// False, and nothing done, where the panel's layout has more than its last
// vector partial (the caller then goes through a full-width tile).
using GemmF32PanelPartialFn = bool (*)(int rows, int width, int valid, const GemmSegments& depth, const float* a,
                                       size_t lda, const float* b, float* c, size_t ldc, const float* bias,
                                       bool accumulate, bool finalize, float lo, float hi);

// GemmF32PanelFn over two adjacent full 16-column panels (width 32): the
// second panel's weights at b + panel_stride; C, bias and residual columns
// continue across. Only where registers hold a 12 x 32 tile (AVX-512).
using GemmF32PanelPairFn = void (*)(int rows, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                                    size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate,
                                    bool finalize, float lo, float hi, const float* residual, size_t residual_stride);

// Rows of C (row stride ldc, `cols` columns): c = clamp(c + r) in columns
// [0, residual_cols), clamp(c) in the rest; row i of r at r + i * r_stride.
using AddResidualClampF32Fn = void (*)(int rows, int cols, int residual_cols, const float* r, size_t r_stride,
                                       float lo, float hi, float* c, size_t ldc);

// y[i] = clamp(dot(W[i], x) + bias[i]) for i in [n_begin, n_end), W row-major
// with row stride `row_stride`; bias may be null.
using GemvF32Fn = void (*)(int k, const float* w, size_t row_stride, const float* x, const float* bias, float lo,
                           float hi, float* y, int n_begin, int n_end);

// One output row of a float DEPTHWISE_CONV_2D (NHWC), as the op kernel
// prepared it.
struct DepthwiseF32Job {
  const float* input = nullptr;
  const float* filter = nullptr;  // [1, KH, KW, Cout]
  const float* bias = nullptr;    // Cout floats
  float* output = nullptr;
  int in_h = 0, in_w = 0, in_c = 0;
  int out_h = 0, out_w = 0, out_c = 0;
  // Floats from one pixel to the next in the input, and in the output and
  // the filter's taps: in_c and out_c, except where a channel slice of a
  // wider tensor is computed (multiplier 1 only).
  int in_pixel = 0, out_pixel = 0;
  int filter_h = 0, filter_w = 0, multiplier = 1;
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0;
  // Output columns whose window lies inside the input horizontally.
  int interior_begin = 0, interior_end = 0;
  float act_min = 0, act_max = 0;
};
// Row `row` (batch * out_h + oy) of the output.
using DepthwiseF32RowFn = void (*)(const DepthwiseF32Job& job, int row);

// A float DEPTHWISE_CONV_2D with 5x5 windows (multiplier 1, no dilation,
// equal strides of 1 or 2) on one plane of channels: the kernel copies the
// plane's input rows with their zero padding into `plane`
// (CpuKernels::depthwise_plane_lanes floats a pixel), then computes output
// pixels [pixel_begin, pixel_end) of the image (oy * out_w + ox).
struct DepthwisePlaneJob {
  const float* input = nullptr;  // the image's first pixel, at the plane's first channel
  int in_h = 0, in_w = 0;
  size_t in_pixel = 0;  // floats from one input pixel to the next
  int lanes = 0;        // channels in the plane, 1 to depthwise_plane_lanes
  // Scratch of plane_h * plane_w pixels, 64-byte aligned. Plane row r is
  // image row image_row0 + r; plane column x is image column x - pad_left.
  float* plane = nullptr;
  int plane_h = 0, plane_w = 0, image_row0 = 0, pad_left = 0;
  int stride = 1;
  int first_out_row = 0;  // the output row whose window starts at plane row 0
  const float* filter = nullptr;  // tap t's channels at filter + t * filter_tap
  size_t filter_tap = 0;
  const float* bias = nullptr;
  float* output = nullptr;  // pixel q's channels at output + q * out_pixel
  size_t out_pixel = 0;
  int out_w = 0;
  int64_t pixel_begin = 0, pixel_end = 0;
  float act_min = 0, act_max = 0;
};
using DepthwiseF32PlaneFn = void (*)(const DepthwisePlaneJob& job);

// A QGemmWeights (src/kernels/cpu/internal/qgemm.h) as the 8-bit GEMM reads
// it: see there for the layout.
struct QGemmPanels {
  int n = 0, k = 0, pairs = 0, panels = 0;
  bool bytes = false, signed_bytes = false;
  const int16_t* packed = nullptr;
  const uint8_t* packed8 = nullptr;
  const int32_t* zp = nullptr;
  const int32_t* bias = nullptr;
  const float* scale = nullptr;
  // The quads layout (QGemmQuadsFn): per panel, per quad of k, 16 columns x
  // 4 int8 (uint8 where CpuKernels::qgemm_quads_unsigned_weights); sum_coef
  // (16 per panel, or null when all are zero) multiplies each row's byte sum.
  int quads = 0;
  const uint8_t* packed4 = nullptr;
  const int32_t* sum_coef = nullptr;
};
struct QGemmRequant {
  int32_t zero_point = 0;
  int32_t qmin = 0, qmax = 255;
  bool is_signed = false;  // int8 output (else uint8)
};
// QWidenRows, QGemm and QGemmAcc of qgemm.h.
using QWidenRowsFn = void (*)(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, int16_t* dst);
using QGemmFn = void (*)(int m, const int16_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out,
                         uint8_t* c, size_t ldc, int n_begin, int n_end);
using QGemmAccFn = void (*)(int m, const int16_t* a, size_t lda, const QGemmPanels& w, int32_t* c, size_t ldc,
                            int n_begin, int n_end);
// QGemm on byte rows (row stride lda bytes, k padded with zeros to quads)
// and quad-packed weights, for ISAs with a 4-byte dot product instruction.
using QGemmQuadsFn = void (*)(int m, const uint8_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out,
                              uint8_t* c, size_t ldc, int n_begin, int n_end);

// One output row of an 8-bit DEPTHWISE_CONV_2D (uint8, or int8 read with
// XOR 0x80 as 0..255), with the weights the op kernel packed (see
// src/kernels/cpu/quantized/depthwise_conv_2d.cc for the layouts).
struct QDepthwiseJob {
  const uint8_t* input = nullptr;
  uint8_t* output = nullptr;
  int in_h = 0, in_w = 0, in_c = 0;
  int out_h = 0, out_w = 0, out_c = 0, multiplier = 1;
  int filter_h = 0, filter_w = 0, taps = 0, tap_pairs = 0;
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0;
  int interior_begin = 0, interior_end = 0;
  uint8_t xor_mask = 0;
  bool is_signed = false;  // int8 output
  int32_t out_zero_point = 0, qmin = 0, qmax = 255;
  // Channels [0, vec_c) in 16-channel blocks, [vec_c, vec_c + 8) as one
  // 8-channel block when block8, the rest (and multiplier > 1) per channel.
  int vec_c = 0, vec_end = 0;
  bool block8 = false;
  const int16_t* wpacked = nullptr;  // per block, per tap pair, 32 int16 in lane order
  const int32_t* vbias = nullptr;
  const float* vscale = nullptr;
  const int16_t* w8 = nullptr;  // per tap pair, 16 int16
  const int32_t* bias8 = nullptr;
  const float* scale8 = nullptr;
  const int16_t* wplain = nullptr;  // [tap][out_c], w - w_zp
  const int32_t* bias = nullptr;    // out_c, the input zero point folded in
  const float* scale = nullptr;     // out_c
  const uint8_t* zp_row = nullptr;  // in_c bytes of the (XOR-ed) input zero point
  // 3x3 with CpuKernels::qdepthwise_quads: channels [0, quad_c) in 64-channel
  // blocks of 4-tap quads (taps 0-3, 4-7, 8 + three zero taps), per block
  // 3 quads x 4 groups x 64 int8, group g lane 4L + j holding channel
  // 16L + 4g + j; qbias/qscale/qcoef 64 per block in that order. The weight
  // bytes are W (int8) or W - 128 (uint8); qcoef (null when all are zero)
  // multiplies the sum of a channel's nine input bytes.
  int quad_c = 0;
  const uint8_t* wquads = nullptr;
  const int32_t* qbias = nullptr;
  const float* qscale = nullptr;
  const int32_t* qcoef = nullptr;
};
// Row oy of image b; `taps` is scratch for taps + 1 pointers.
using QDepthwiseRowFn = void (*)(const QDepthwiseJob& job, int b, int oy, const uint8_t** taps);

// Float MAX_POOL_2D / AVERAGE_POOL_2D (NHWC) output rows.
struct PoolF32Job {
  const float* input = nullptr;
  float* output = nullptr;
  int32_t in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  int32_t filter_h = 1, filter_w = 1, stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
  float act_min = 0, act_max = 0;
  bool clamp = false;
};
// Output rows [begin, end) of the batch (row = b * out_h + oy).
using PoolF32RowsFn = void (*)(const PoolF32Job& job, int64_t begin, int64_t end);

// XNNPACK's 8-bit ADD/SUB (src/core/ops/quantized_add.h) over two arrays of
// one shape: out = clamp(((bias + a * a_mul + b * b_mul) >> shift) + zp).
struct XnnAddArrayParams {
  uint32_t a_multiplier = 0, b_multiplier = 0, bias = 0;
  int shift = 0;
  int32_t zero_point = 0, qmin = 0, qmax = 0;
};
using XnnAddU8Fn = void (*)(const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n, const XnnAddArrayParams& p);
using XnnAddS8Fn = void (*)(const int8_t* a, const int8_t* b, int8_t* out, int64_t n, const XnnAddArrayParams& p);

// 8-bit RESIZE_BILINEAR in Q11 (src/kernels/cpu/quantized/resize_bilinear.cc):
// one input row interpolated along x, and two such rows blended along y.
template <typename T>
using QResizeRowFn = void (*)(const T* row, const int32_t* lo, const int32_t* hi, const int32_t* weight, int64_t out_w,
                              int64_t channels, int32_t* h);
template <typename T>
using QResizeBlendFn = void (*)(const int32_t* top, const int32_t* bottom, int32_t wy, int64_t n, T* out);

// One output row of a float RESIZE_BILINEAR (NHWC) between input rows `top`
// and `bottom` (src/kernels/cpu/resize_bilinear.cc has the coordinate rule).
struct ResizeF32Row {
  const float* top = nullptr;
  const float* bottom = nullptr;
  float dy = 0;
  int64_t channels = 0, out_w = 0;
  const int32_t* lower = nullptr;  // per output column: left and right input column, weight
  const int32_t* upper = nullptr;
  const float* weight = nullptr;
  // With few channels: the same per output value (x * channels + c), as
  // element offsets into a row; else null.
  const int32_t* flat_lower = nullptr;
  const int32_t* flat_upper = nullptr;
  const float* flat_weight = nullptr;
};
using ResizeF32RowFn = void (*)(const ResizeF32Row& r, float* out);

// out[i] = f(in[i]) for n floats (in == out allowed).
using FloatArrayFn = void (*)(const float* in, float* out, int64_t n);

struct NarrowConvGeometry;  // src/kernels/cpu/internal/narrow_conv.h
using NarrowConvRowsFn = void (*)(const NarrowConvGeometry& g, const float* input, const float* filter,
                                  const float* bias, float act_min, float act_max, float* output, int row_begin,
                                  int row_end);

struct CpuKernels {
  CpuIsa isa = CpuIsa::kPortable;
  // Rows of C the float GEMM computes per register tile; a row block that is
  // a multiple of it runs without a partial tile.
  int gemm_f32_tile_rows = 6;
  GemmF32PanelFn gemm_f32_panel = nullptr;
  GemmF32PanelPartialFn gemm_f32_panel_partial = nullptr;
  GemmF32PanelPairFn gemm_f32_panel_pair = nullptr;  // null: panels one at a time
  // The same arguments over four adjacent full panels (width 64), 6 rows a
  // tile: fewer broadcasts per multiply-add than the pair. Null: pairs.
  GemmF32PanelPairFn gemm_f32_panel_quad = nullptr;
  // The same arguments over a full panel and the 8-column last panel after
  // it (width 24; the second panel's weights 8 floats a depth step). Null:
  // one panel at a time.
  GemmF32PanelPairFn gemm_f32_panel_wide_narrow = nullptr;
  GemvF32Fn gemv_f32 = nullptr;
  AddResidualClampF32Fn add_residual_clamp_f32 = nullptr;
  DepthwiseF32RowFn depthwise_f32_row = nullptr;
  DepthwiseF32PlaneFn depthwise_f32_plane = nullptr;
  int depthwise_plane_lanes = 0;  // channels a plane holds: the ISA's widest float vector
  PoolF32RowsFn max_pool_f32_rows = nullptr, average_pool_f32_rows = nullptr;
  XnnAddU8Fn xnn_add_u8 = nullptr;
  XnnAddS8Fn xnn_add_s8 = nullptr;
  QResizeRowFn<uint8_t> q_resize_row_u8 = nullptr;
  QResizeRowFn<int8_t> q_resize_row_s8 = nullptr;
  QResizeBlendFn<uint8_t> q_resize_blend_u8 = nullptr;
  QResizeBlendFn<int8_t> q_resize_blend_s8 = nullptr;
  ResizeF32RowFn resize_f32_row = nullptr;
  NarrowConvRowsFn narrow_conv_f32_rows = nullptr;
  // src/kernels/cpu/internal/vector_math.h over arrays.
  FloatArrayFn exp_f32 = nullptr, logistic_f32 = nullptr, tanh_f32 = nullptr;
  FloatArrayFn hard_swish_f32 = nullptr, sqrt_f32 = nullptr, rsqrt_f32 = nullptr;
  QWidenRowsFn q_widen_rows = nullptr;
  QGemmFn qgemm = nullptr;
  QGemmAccFn qgemm_acc = nullptr;
  QGemmQuadsFn qgemm_quads = nullptr;  // null where the ISA has no byte dot product
  // Whether qgemm_quads multiplies unsigned weight bytes (Arm's udot) rather
  // than signed ones (x86's vpdpbusd): how QPackWeights stores them.
  bool qgemm_quads_unsigned_weights = false;
  QDepthwiseRowFn qdepthwise_row = nullptr;
  bool qdepthwise_quads = false;  // qdepthwise_row reads QDepthwiseJob::wquads (3x3)
};

// The variants for ActiveCpuIsa(), chosen on first use.
const CpuKernels& Kernels();
// The variants compiled for `isa`, or null when this build has none or the
// CPU cannot run them (tests compare every runnable level against portable).
const CpuKernels* KernelsFor(CpuIsa isa);
// Tests only: Kernels() returns `k` until reset with null. Not for use while
// an interpreter runs on another thread.
void SetKernelsForTesting(const CpuKernels* k);

// Fills in the variants compiled for one ISA (defined in each ISA's objects).
namespace isa_portable {
void FillKernels(CpuKernels* k);
}
#if defined(__x86_64__)
namespace isa_avx2 {
void FillKernels(CpuKernels* k);
}
namespace isa_avxvnni {
void FillKernels(CpuKernels* k);  // only the kernels it adds to avx2's
}
namespace isa_avx512 {
void FillKernels(CpuKernels* k);
}
namespace isa_avx512vnni {
void FillKernels(CpuKernels* k);
}
#endif
#if defined(__aarch64__)
namespace isa_dotprod {
void FillKernels(CpuKernels* k);
}
namespace isa_i8mm {
void FillKernels(CpuKernels* k);  // only the kernels it adds to dotprod's
}
#endif

}  // namespace relite::cpu
