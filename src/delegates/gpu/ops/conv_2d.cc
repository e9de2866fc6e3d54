// CONV_2D: direct convolution accumulating in float. Each work item computes
// BLOCK_X adjacent output pixels of a row for BLOCK_S slices of 4 output
// channels: every input float4 it loads serves BLOCK_S slices and every weight
// float4 serves BLOCK_X pixels. When the output has too few such items to keep
// a GPU busy, LANES work items of a work group split the input slices of one
// block and add their partial sums in local memory. ChooseBlock picks the
// variant from the shapes.
//
// Weights are repacked at build time so that for output slice `so`, tap
// (ky, kx) and input slice `si` the four float4s w0..w3 (one per input
// channel of the slice, each holding 4 output channels) are adjacent:
//   float4 index ((so * KH + ky) * KW + kx) * Si * 4 + si * 4 + k,
// with the output slices padded with zeros to a multiple of BLOCK_S.
#include <algorithm>

#include <fmt/format.h>

#include "src/core/ops/params.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/conv_weights.h"

namespace relite::gpu {
namespace {

constexpr const char* kConv2DSource = R"CL(
KERNEL void conv_2d(GLOBAL const STORAGE* src, GLOBAL const STORAGE* weights, GLOBAL const BIAS_STORAGE* bias,
                    GLOBAL STORAGE* dst, int srcW, int srcH, int srcS, int dstW, int dstH, int dstHB, int dstS,
                    int KH, int KW, int strideW, int strideH, int padW, int padH, int dilW, int dilH, int dstWB REQUANT_ARGS EXTRA_ARGS) {
#if LANES == 1
  int xb = GLOBAL_ID(0), yb = GLOBAL_ID(1), sb = GLOBAL_ID(2), lane = 0;
  if (xb >= dstWB || yb >= dstHB || sb * BLOCK_S >= dstS) return;
  int active = 1;
#else
  // Dimension 0 is the work group's LANES lanes, which share the input slices
  // of one pixel block; dimension 1 the pixel blocks.
  int lane = LOCAL_ID(0), pix = GLOBAL_ID(1), sb = GLOBAL_ID(2);
  int xb = pix % dstWB, yb = pix / dstWB;
  int active = yb < dstHB && sb * BLOCK_S < dstS;  // the others still reach the barrier
#endif
  int x = xb * BLOCK_X, so = sb * BLOCK_S;
  int n = yb / dstH, y = yb - n * dstH;
  float4 acc[BLOCK_S][BLOCK_X];
  for (int s = 0; s < BLOCK_S; ++s) {
    for (int p = 0; p < BLOCK_X; ++p) acc[s][p] = F4(0.0f);
  }
  int x0 = x * strideW - padW, y0 = y * strideH - padH;
  int plane = srcH * srcW;
  int slice_w = KH * KW * srcS * 4;  // float4s between two output slices' weights
  // KH_N, KW_N: the filter's size where the launch fixes it (the tap loops
  // unroll; see FilterSizeDefines).
#pragma unroll
  for (int ky = 0; ky < KH_N && active; ++ky) {
    int iy = y0 + ky * dilH;
    if (iy < 0 || iy >= srcH) continue;
    int row = (n * srcS * srcH + iy) * srcW;
#pragma unroll
    for (int kx = 0; kx < KW_N; ++kx) {
      int ix[BLOCK_X];
      int any = 0;
      for (int p = 0; p < BLOCK_X; ++p) {
        ix[p] = x0 + p * strideW + kx * dilW;
        any |= ix[p] >= 0 && ix[p] < srcW;
      }
      if (!any) continue;
      int w_tap = ((so * KH + ky) * KW + kx) * srcS * 4;
      for (int si = lane; si < srcS; si += LANES) {
        int i = row + si * plane;
        int w = w_tap + si * 4;
        float4 v[BLOCK_X];
        for (int p = 0; p < BLOCK_X; ++p) v[p] = ix[p] >= 0 && ix[p] < srcW ? LOADX(src, i + ix[p]) : F4(0.0f);
        for (int s = 0; s < BLOCK_S; ++s) {
          int ws = w + s * slice_w;
          float4 w0 = LOAD4(weights, ws), w1 = LOAD4(weights, ws + 1);
          float4 w2 = LOAD4(weights, ws + 2), w3 = LOAD4(weights, ws + 3);
          for (int p = 0; p < BLOCK_X; ++p) acc[s][p] += v[p].x * w0 + v[p].y * w1 + v[p].z * w2 + v[p].w * w3;
        }
      }
    }
  }
#if LANES > 1
  LOCAL_MEM float4 partial[MAX_GROUP_PIXELS * BLOCK_S * BLOCK_X * LANES];
  int base = LOCAL_ID(1) * BLOCK_S * BLOCK_X * LANES + lane;
  for (int s = 0; s < BLOCK_S; ++s) {
    for (int p = 0; p < BLOCK_X; ++p) partial[base + (s * BLOCK_X + p) * LANES] = acc[s][p];
  }
  BARRIER();
  if (lane != 0 || !active) return;
  for (int s = 0; s < BLOCK_S; ++s) {
    for (int p = 0; p < BLOCK_X; ++p) {
      for (int k = 1; k < LANES; ++k) acc[s][p] += partial[base + (s * BLOCK_X + p) * LANES + k];
    }
  }
#endif
  for (int s = 0; s < BLOCK_S; ++s) {
    if (so + s >= dstS) break;
    float4 b = LOAD_BIAS(bias, so + s);
    int o = ((n * dstS + so + s) * dstH + y) * dstW + x;
    for (int p = 0; p < BLOCK_X; ++p) {
      if (x + p < dstW) STORE4(dst, o + p, ACT(ADD_RESIDUAL(REQUANT(acc[s][p] + b, so + s), o + p)));
    }
  }
}
)CL";

// The tiled variant, an implicit GEMM for layers with enough channels: a
// work group of (WG_M, WG_N) items computes BM = WG_M * TP output pixels x
// BN = WG_N * TS output slices. Each step stages KS input slices of one
// filter tap for its BM pixels, and those slices' weights for its BN output
// slices, in local memory; every item then multiplies its TP pixels by its
// TS slices from there, so each value read from global memory serves BN or
// BM products. Item (tx, ty) owns pixels tx + i * WG_M and slices
// ty + j * WG_N (neighbouring items store neighbouring pixels). Weights are
// padded to whole BN blocks of slices.
// Deep layers with few output pixels (14x14x512 -> 512) have too few tiles
// to fill a GPU: SPLITS > 1 splits the steps (taps x input-slice chunks)
// over dimension 2 of the grid, each split writing float32 partial sums
// (exact for the 8-bit kernels' integer sums) that conv_2d_splitk_sum adds
// up with the bias and the epilogue.
constexpr const char* kConvTiledSource = R"CL(
#if SPLITS > 1
#define TILED_OUT GLOBAL float* partial
#else
#define TILED_OUT GLOBAL STORAGE* dst
#endif
KERNEL void conv_2d_tiled(GLOBAL const STORAGE* src, GLOBAL const STORAGE* weights, GLOBAL const BIAS_STORAGE* bias,
                          TILED_OUT, int srcW, int srcH, int srcS, int dstW, int dstH, int dstS, int M,
                          int KH, int KW, int strideW, int strideH, int padW, int padH, int dilW, int dilH
                          REQUANT_ARGS EXTRA_ARGS) {
  // On GPUs two buffers of each tile: step s is staged into buffer s % 2
  // while the items still multiply step s - 1 from the other, and its global
  // loads are issued before those multiply-adds (into registers, stored after
  // them), so their latency hides behind arithmetic; one barrier per step.
  // CPU devices (PoCL) keep one buffer and two barriers: values live across
  // a barrier cost them a copy per work item (4x slower there).
#if RELITE_GPU_DEVICE
#define TILE_BUFFERS 2
#else
#define TILE_BUFFERS 1
#endif
  // Tensor cores (CUDA on sm_80+, the prelude's RELITE_TENSOR_CORES) where
  // every product stays exact: half storage (fp16) and 8-bit codes have at
  // most 11 significant bits, as TF32 does, so the staged tiles are
  // multiplied by warps with mma.sync m16n8k8 on TF32 with float
  // accumulation. float32 data keeps the FMA loop: 3xTF32 (big*big +
  // big*small + small*big) ran it 2-17% faster on an H100 but moved
  // pose_landmark_lite's landmarks by up to 1.6e-3, outside the goldens'
  // 1e-3 + 1e-3*|b| (docs/PERFORMANCE.md, session 21).
#if defined(RELITE_TENSOR_CORES) && RELITE_TENSOR_CORES && (RELITE_FP16 || (defined(INTEGER_CONV) && INTEGER_CONV))
#define TILED_MMA 1
// Four warps as WARPS_M x WARPS_N, each over WTM pixels x WTN channels of
// the tile in MT x NT fragments of 16 x 8. A row of tile_w is padded by 8
// floats so that a warp's B fragment loads fall in 32 distinct banks.
#define WARPS_M (BM >= 32 ? 2 : 1)
#define WARPS_N (4 / WARPS_M)
#define WTM (BM / WARPS_M)
#define WTN (BN * 4 / WARPS_N)
#define MT (WTM / 16)
#define NT (WTN / 8)
#define BN_STRIDE (BN + 2)
#else
#define TILED_MMA 0
#define BN_STRIDE BN
#endif
  LOCAL_MEM float4 tile_in[TILE_BUFFERS][KS][BM];
  LOCAL_MEM float4 tile_w[TILE_BUFFERS][KS * 4][BN_STRIDE];
  int tx = LOCAL_ID(0), ty = LOCAL_ID(1);
  int tid = ty * WG_M + tx;
  int m0 = GROUP_ID(0) * BM, so0 = GROUP_ID(1) * BN;
  int plane_out = dstH * dstW, plane_in = srcH * srcW;
  // The pixel this item stages for every tap, and its rows of tile_in:
  // lk, lk + IN_STRIDE, ... below KS.
  int lp = tid % BM, lk = tid / BM;
  int lm = m0 + lp;
  int ln = lm / plane_out, lr = lm - ln * plane_out;
  int ly = lr / dstW, lx = lr - ly * dstW;
  int ly0 = ly * strideH - padH, lx0 = lx * strideW - padW;
  int w_so = KH * KW * srcS * 4;  // float4s between two output slices' weights
#define WG_ITEMS (WG_M * WG_N)
#define IN_STRIDE (WG_ITEMS / BM)
#define IN_LOADS ((KS + IN_STRIDE - 1) / IN_STRIDE)
#define W_LOADS ((KS * 4 * BN + WG_ITEMS - 1) / WG_ITEMS)
#if TILE_BUFFERS == 2
  float4 next_in[IN_LOADS], next_w[W_LOADS];
#endif
#if TILED_MMA
  // Lane (g, t) = (lane / 4, lane % 4) of the fragments (PTX ISA, mma.m16n8k8
  // .tf32): A rows g and g + 8, columns t and t + 4; B rows t and t + 4,
  // column g; C rows g and g + 8, columns 2t and 2t + 1.
  int warp = tid / 32, lane_g = (tid % 32) / 4, lane_t = tid % 4;
  int wm = (warp % WARPS_M) * WTM, wn = (warp / WARPS_M) * WTN;
  float acc[MT][NT][4];
  for (int i = 0; i < MT; ++i) {
    for (int j = 0; j < NT; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;
  }
#else
  float4 acc[TS][TP];
  for (int j = 0; j < TS; ++j) {
    for (int i = 0; i < TP; ++i) acc[j][i] = F4(0.0f);
  }
#endif
  int ksteps = (srcS + KS - 1) / KS;
  int steps = KH * KW * ksteps;
#if SPLITS > 1
  int split = GROUP_ID(2);
  int step0 = split * steps / SPLITS, step1 = (split + 1) * steps / SPLITS;
#else
  int step0 = 0, step1 = steps;
#endif
  // What step S reads: its tap and first input slice, the staged pixel's
  // input (at, inside the image or not) and the weights' offset (w_at).
#define STEP_POSITION(S)                                                  \
  int tap = (S) / ksteps, k0 = ((S) - tap * ksteps) * KS;                 \
  int ky = tap / KW, kx = tap - ky * KW;                                  \
  int iy = ly0 + ky * dilH, ix = lx0 + kx * dilW;                         \
  int inside = lm < M && iy >= 0 && iy < srcH && ix >= 0 && ix < srcW;    \
  int at = (ln * srcS * srcH + iy) * srcW + ix;                           \
  int w_at = tap * srcS * 4 + k0 * 4;
  // The multiply-adds of the step staged in buffer B.
#if TILED_MMA
// A step's products are summed in `part` and added to `acc` in float
// (round to nearest): the tensor cores truncate when they align a sum, and
// over a deep layer that bias would build up in the accumulators.
#define MULTIPLY_TILE(B)                                                                                \
  float part[MT][NT][4];                                                                                \
  for (int i = 0; i < MT; ++i) {                                                                        \
    for (int j = 0; j < NT; ++j) part[i][j][0] = part[i][j][1] = part[i][j][2] = part[i][j][3] = 0.0f;  \
  }                                                                                                     \
  for (int kk = 0; kk < KS * 4; kk += 8) {                                                              \
    const float* tin = (const float*)&tile_in[B][kk / 4][0];                                            \
    const float* tw = (const float*)&tile_w[B][kk][0];                                                  \
    uint a[MT][4], b[NT][2];                                                                            \
    for (int i = 0; i < MT; ++i) {                                                                      \
      int r = wm + i * 16 + lane_g;                                                                     \
      a[i][0] = relite_tf32(tin[r * 4 + lane_t]);                                                       \
      a[i][1] = relite_tf32(tin[(r + 8) * 4 + lane_t]);                                                 \
      a[i][2] = relite_tf32(tin[BM * 4 + r * 4 + lane_t]);                                              \
      a[i][3] = relite_tf32(tin[BM * 4 + (r + 8) * 4 + lane_t]);                                        \
    }                                                                                                   \
    for (int j = 0; j < NT; ++j) {                                                                      \
      int c = wn + j * 8 + lane_g;                                                                      \
      b[j][0] = relite_tf32(tw[lane_t * BN_STRIDE * 4 + c]);                                            \
      b[j][1] = relite_tf32(tw[(lane_t + 4) * BN_STRIDE * 4 + c]);                                      \
    }                                                                                                   \
    for (int i = 0; i < MT; ++i) {                                                                      \
      for (int j = 0; j < NT; ++j) relite_mma_tf32(part[i][j], a[i], b[j]);                             \
    }                                                                                                   \
  }                                                                                                     \
  for (int i = 0; i < MT; ++i) {                                                                        \
    for (int j = 0; j < NT; ++j) {                                                                      \
      for (int q = 0; q < 4; ++q) acc[i][j][q] += part[i][j][q];                                        \
    }                                                                                                   \
  }
#else
#define MULTIPLY_TILE(B)                                                                                  \
  for (int k = 0; k < KS; ++k) {                                                                          \
    float4 v[TP];                                                                                         \
    for (int i = 0; i < TP; ++i) v[i] = tile_in[B][k][tx + i * WG_M];                                     \
    for (int j = 0; j < TS; ++j) {                                                                        \
      float4 w0 = tile_w[B][k * 4][ty + j * WG_N], w1 = tile_w[B][k * 4 + 1][ty + j * WG_N];             \
      float4 w2 = tile_w[B][k * 4 + 2][ty + j * WG_N], w3 = tile_w[B][k * 4 + 3][ty + j * WG_N];         \
      for (int i = 0; i < TP; ++i) acc[j][i] += v[i].x * w0 + v[i].y * w1 + v[i].z * w2 + v[i].w * w3;  \
    }                                                                                                     \
  }
#endif
#if TILE_BUFFERS == 2
  // Iteration `step` loads step `step` and multiplies step `step - 1`.
  for (int step = step0; step <= step1; ++step) {
    int buf = (step - step0) & 1;
    if (step < step1) {
      STEP_POSITION(step)
      for (int i = 0; i < IN_LOADS; ++i) {
        int k = lk + i * IN_STRIDE, si = k0 + k;
        next_in[i] = inside && k < KS && si < srcS ? LOADX(src, at + si * plane_in) : F4(0.0f);
      }
      for (int i = 0; i < W_LOADS; ++i) {
        int e = tid + i * WG_ITEMS;
        int kc = e % (KS * 4), n = e / (KS * 4);
        next_w[i] = e < KS * 4 * BN && k0 + kc / 4 < srcS ? LOAD4(weights, (so0 + n) * w_so + w_at + kc) : F4(0.0f);
      }
    }
    if (step > step0) {
      MULTIPLY_TILE(buf ^ 1)
    }
    if (step < step1) {
      for (int i = 0; i < IN_LOADS; ++i) {
        int k = lk + i * IN_STRIDE;
        if (k < KS) tile_in[buf][k][lp] = next_in[i];
      }
      for (int i = 0; i < W_LOADS; ++i) {
        int e = tid + i * WG_ITEMS;
        if (e < KS * 4 * BN) tile_w[buf][e % (KS * 4)][e / (KS * 4)] = next_w[i];
      }
    }
    BARRIER();
  }
#else
  for (int step = step0; step < step1; ++step) {
    STEP_POSITION(step)
    for (int k = lk; k < KS; k += IN_STRIDE) {
      int si = k0 + k;
      tile_in[0][k][lp] = inside && si < srcS ? LOADX(src, at + si * plane_in) : F4(0.0f);
    }
    for (int e = tid; e < KS * 4 * BN; e += WG_ITEMS) {
      int kc = e % (KS * 4), n = e / (KS * 4);
      tile_w[0][kc][n] = k0 + kc / 4 < srcS ? LOAD4(weights, (so0 + n) * w_so + w_at + kc) : F4(0.0f);
    }
    BARRIER();
    MULTIPLY_TILE(0)
    BARRIER();
  }
#endif
  // Output pixel M_ of slice SO_ holds V_: a split's partial sum (BIAS_ is
  // not evaluated), or the finished value with the bias and the epilogue.
#if SPLITS > 1
#define STORE_TILE_OUTPUT(M_, SO_, V_, BIAS_) STOREF4(partial, (split * dstS + (SO_)) * M + (M_), (V_))
#else
#define STORE_TILE_OUTPUT(M_, SO_, V_, BIAS_)                                        \
  {                                                                                  \
    int n = (M_) / plane_out, r = (M_) - n * plane_out;                              \
    int o = (n * dstS + (SO_)) * plane_out + r;                                      \
    STORE4(dst, o, ACT(ADD_RESIDUAL(REQUANT((V_) + (BIAS_), (SO_)), o)));            \
  }
#endif
#if TILED_MMA
  // Lanes t and t ^ 1 swap halves so that each holds one pixel's 4 channels
  // of a slice: even t row g, odd t row g + 8, slice (wn + 8j) / 4 + t / 2.
  int odd = lane_t & 1;
  for (int i = 0; i < MT; ++i) {
    for (int j = 0; j < NT; ++j) {
      float r0 = __shfl_xor_sync(0xffffffffu, odd ? acc[i][j][0] : acc[i][j][2], 1);
      float r1 = __shfl_xor_sync(0xffffffffu, odd ? acc[i][j][1] : acc[i][j][3], 1);
      float4 v = odd ? make_float4(r0, r1, acc[i][j][2], acc[i][j][3]) : make_float4(acc[i][j][0], acc[i][j][1], r0, r1);
      int m = m0 + wm + i * 16 + lane_g + odd * 8;
      int so = so0 + (wn + j * 8) / 4 + lane_t / 2;
      if (m >= M || so >= dstS) continue;
      STORE_TILE_OUTPUT(m, so, v, LOAD_BIAS(bias, so));
    }
  }
#else
  for (int j = 0; j < TS; ++j) {
    int so = so0 + ty + j * WG_N;
    if (so >= dstS) break;
#if SPLITS == 1
    float4 b = LOAD_BIAS(bias, so);
#endif
    for (int i = 0; i < TP; ++i) {
      int m = m0 + tx + i * WG_M;
      if (m >= M) break;
      STORE_TILE_OUTPUT(m, so, acc[j][i], b);
    }
  }
#endif
}
)CL";

constexpr const char* kConvSplitSumSource = R"CL(
KERNEL void conv_2d_splitk_sum(GLOBAL const float* partial, GLOBAL const BIAS_STORAGE* bias, GLOBAL STORAGE* dst, int M,
                               int dstS, int plane_out REQUANT_ARGS EXTRA_ARGS) {
  int m = GLOBAL_ID(0), so = GLOBAL_ID(1);
  if (m >= M || so >= dstS) return;
  float4 acc = LOADF4(partial, so * M + m);
  for (int z = 1; z < SPLITS; ++z) acc += LOADF4(partial, (z * dstS + so) * M + m);
  int n = m / plane_out, r = m - n * plane_out;
  int o = (n * dstS + so) * plane_out + r;
  STORE4(dst, o, ACT(ADD_RESIDUAL(REQUANT(acc + LOAD_BIAS(bias, so), so), o)));
}
)CL";

struct Tiling {
  int tp = 0, ts = 0;  // pixels and slices per item; 0: the direct kernel
  int ks = 4;          // input slices per step
  int splits = 1;      // of the steps, over grid dimension 2
};
constexpr int kTileWgM = 16, kTileWgN = 8;

// The tiled kernel for layers of at least 4 input and 4 output slices and
// 32 input slices x taps (shallower layers are faster direct: a tile's few
// steps do not pay for its barriers; H200 timings): 4 pixels x 2 slices per
// item where the layer has them, 8 input slices per step where it has them;
// the steps split until there are about 2 work groups per multiprocessor of
// a large GPU (an H200 has 132), for layers of 8 steps or more (the sum is
// one more launch).
Tiling ChooseTiling(const GpuShape& in, const GpuShape& out, int taps) {
  if (in.slices() < 4 || out.slices() < 4 || static_cast<int64_t>(taps) * in.slices() < 32) return {};
  const int64_t m = static_cast<int64_t>(out.b) * out.h * out.w;
  Tiling t;
  t.tp = m >= 48 ? 4 : (m >= 24 ? 2 : 1);
  t.ts = out.slices() >= 16 ? 2 : 1;
  t.ks = in.slices() >= 8 ? 8 : 4;
  const int64_t groups = (m + kTileWgM * t.tp - 1) / (kTileWgM * t.tp) * ((out.slices() + kTileWgN * t.ts - 1) / (kTileWgN * t.ts));
  const int64_t steps = static_cast<int64_t>(taps) * ((in.slices() + t.ks - 1) / t.ks);
  constexpr int64_t kTargetGroups = 264, kMaxSplits = 16;
  const int64_t want = (kTargetGroups + groups - 1) / groups;
  // Fewer than 8 steps: not worth the extra launch. Deeper: splits of at
  // least 2 steps (14x14x512 -> 512 on an H200: 8 splits 12 us, 4 splits 15 us).
  t.splits = steps < 8 ? 1 : static_cast<int>(std::max<int64_t>(1, std::min({want, steps / 2, kMaxSplits})));
  return t;
}

struct Block {
  int x = 1, s = 1;  // output pixels along a row, output slices
  int lanes = 1;     // work items sharing one block's input slices
};

// The lanes are dimension 0 of a work group of (kSplitLanes, kMaxGroupPixels, 1):
// 8 is also the dimension 0 the OpenCL backend fixes on CPU devices (PoCL:
// (8, 2, 1)), and 64 work items stay within any GPU's work-group limit, which
// the backend would otherwise meet by shrinking the group.
constexpr int kSplitLanes = 8;
constexpr int kMaxGroupPixels = 8;

// Chosen from kernel timings on an NVIDIA H200 (mobilenet/deeplab-sized
// layers, fp32 and fp16). The kernel is latency-bound while the grid is
// small, so:
//  - few output items (deep, small layers such as 7x7x1024): 8 lanes split the
//    input slices, 2 pixels per item share the weight loads (7x7x1024: 4x);
//  - many items with many input slices (65x65x320): 4 slices x 2 pixels per
//    item while at least kMinItems remain (1.1-1.4x);
//  - in between, 2 pixels per item when there is enough work per item;
//  - otherwise (few input slices) one pixel and one slice per item.
Block ChooseBlock(const GpuShape& in, const GpuShape& out, int taps) {
  constexpr int64_t kMinItems = 32768;
  auto items = [&](int bx, int bs) {
    return static_cast<int64_t>((out.w + bx - 1) / bx) * out.h * out.b * ((out.slices() + bs - 1) / bs);
  };
  const int64_t work = static_cast<int64_t>(taps) * in.slices();
  Block b;
  if (items(1, 1) < kMinItems) {
    if (in.slices() >= 2 * kSplitLanes) {
      b.lanes = kSplitLanes;
      b.x = out.w >= 2 ? 2 : 1;
    }
  } else if (items(1, 1) >= 4 * kMinItems && in.slices() >= 32) {
    for (int bs : {2, 4}) {
      if (out.slices() >= bs && items(b.x, bs) >= kMinItems) b.s = bs;
    }
    if (out.w >= 2 && items(2, b.s) >= kMinItems) b.x = 2;
  } else if (items(1, 1) < 4 * kMinItems && work >= 32 && out.w >= 2) {
    b.x = 2;
  }
  return b;
}

}  // namespace

Status EmitConv2D(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int filter, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  const int bias = b.has_input(2) ? b.node().inputs[2] : -1;
  RELITE_ASSIGN_OR_RETURN(Conv2DParams p, ParseConv2DParams(b.node()));
  RELITE_RETURN_IF_ERROR(b.RequireConstantWeights(in, out, filter, "filter", bias));
  RELITE_RETURN_IF_ERROR(RequireClampActivation(p.activation));
  const Shape& fs = b.tensor(filter).shape;
  const Shape& is = b.tensor(in).shape;
  if (is.size() != 4 || fs.size() != 4 || b.tensor(out).shape.size() != 4) return NotOnGpu("input, filter and output must be 4-D");
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  const int cout = fs[0], kh = fs[1], kw = fs[2], cin = fs[3];
  if (cin != si.c) return NotOnGpu(fmt::format("grouped convolution (filter depth {} vs {} input channels) is not supported", cin, si.c));
  if (cout != so.c) return InvalidArgumentError(fmt::format("{}: filter has {} outputs, output has {} channels", b.node().Describe(), cout, so.c));
  if (bias >= 0 && b.tensor(bias).num_elements() != cout) {
    return InvalidArgumentError(fmt::format("{}: bias has {} values for {} output channels", b.node().Describe(), b.tensor(bias).num_elements(), cout));
  }
  RELITE_ASSIGN_OR_RETURN(const PaddedDim ph, ComputeWindow(b.node(), p.padding, si.h, kh, p.stride_h, p.dilation_h));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pw, ComputeWindow(b.node(), p.padding, si.w, kw, p.stride_w, p.dilation_w));
  if (ph.out != so.h || pw.out != so.w || si.b != so.b) {
    return InvalidArgumentError(fmt::format("{}: output shape {} does not match the convolution of {}", b.node().Describe(),
                                            GpuShapeToString(so), GpuShapeToString(si)));
  }
  const Block block = ChooseBlock(si, so, kh * kw);
  const Tiling tiling = ChooseTiling(si, so, kh * kw);
  const int slice_block = tiling.tp > 0 ? kTileWgN * tiling.ts : block.s;
  // Weights and bias padded to whole blocks of slices (zeros), so the kernel
  // reads them without bounds checks.
  const int padded_cout = (so.slices() + slice_block - 1) / slice_block * slice_block * 4;
  const IntegerConv exact = PlanIntegerConv(b, in, out, filter, 0, padded_cout);
  const int w_const = b.AddConstant(PackedConvWeightsCount(padded_cout, kh, kw, cin), [=](const ConstantTensors& t, float* dst) {
    PackConvWeights(exact.WeightValues(t, filter, 0).data(), cout, kh, kw, cin, dst);
  });
  const int b_const = b.AddConstant(
      static_cast<size_t>(padded_cout),
      [=](const ConstantTensors& t, float* dst) {
        if (bias >= 0) {
          const std::vector<float> v = exact.BiasValues(t, bias);
          for (int c = 0; c < cout; ++c) dst[c] = v[c];
        }
      },
      exact.enabled);
  const ActivationRange r = GetActivationRange(p.activation);
  if (tiling.tp > 0) {
    const int64_t m = static_cast<int64_t>(so.b) * so.h * so.w;
    const int bm = kTileWgM * tiling.tp, bn = kTileWgN * tiling.ts;
    const std::string defines = fmt::format("#define SPLITS {}\n", tiling.splits) + exact.Defines();
    KernelLaunch l;
    l.entry = "conv_2d_tiled";
    l.source = kConvTiledSource;
    l.defines = fmt::format("#define WG_M {}\n#define WG_N {}\n#define TP {}\n#define TS {}\n#define BM {}\n#define BN {}\n"
                            "#define KS {}\n",
                            kTileWgM, kTileWgN, tiling.tp, tiling.ts, bm, bn, tiling.ks) +
                defines;
    const int partial = tiling.splits > 1 ? b.AddTemp({1, 1, static_cast<int32_t>(m) * tiling.splits, so.slices() * 4}, true) : -1;
    l.args = {b.Read(in), KernelArg::Constant(w_const), KernelArg::Constant(b_const),
              partial >= 0 ? KernelArg::Temp(partial) : b.Write(out),
              KernelArg::Int(si.w), KernelArg::Int(si.h), KernelArg::Int(si.slices()),
              KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.slices()), KernelArg::Int(static_cast<int32_t>(m)),
              KernelArg::Int(kh), KernelArg::Int(kw), KernelArg::Int(p.stride_w), KernelArg::Int(p.stride_h),
              KernelArg::Int(pw.pad_before), KernelArg::Int(ph.pad_before), KernelArg::Int(p.dilation_w), KernelArg::Int(p.dilation_h)};
    exact.AddArgs(l);  // LOADX reads codes with in_inv_scale
    l.global = {static_cast<size_t>((m + bm - 1) / bm * kTileWgM), static_cast<size_t>((so.slices() + bn - 1) / bn * kTileWgN),
                static_cast<size_t>(tiling.splits)};
    l.local = {static_cast<size_t>(kTileWgM), static_cast<size_t>(kTileWgN), 1};
    if (partial < 0) {
      l.act_min = r.min;
      l.act_max = r.max;
      l.fusable_output_arg = 3;
      l.residual_fusable = true;
      b.Launch(std::move(l));
    } else {
      b.Launch(std::move(l));
      KernelLaunch sum;
      sum.entry = "conv_2d_splitk_sum";
      sum.source = kConvSplitSumSource;
      sum.defines = defines;
      sum.act_min = r.min;
      sum.act_max = r.max;
      sum.args = {KernelArg::Temp(partial), KernelArg::Constant(b_const), b.Write(out), KernelArg::Int(static_cast<int32_t>(m)),
                  KernelArg::Int(so.slices()), KernelArg::Int(so.h * so.w)};
      exact.AddArgs(sum);
      sum.global = {static_cast<size_t>(m), static_cast<size_t>(so.slices()), 1};
      sum.fusable_output_arg = 2;
      sum.residual_fusable = true;
      b.Launch(std::move(sum));
    }
    b.SetCost(static_cast<double>(so.elements()) * kh * kw * cin);
    return Status::Ok();
  }
  const int x_blocks = (so.w + block.x - 1) / block.x;
  KernelLaunch l;
  l.entry = "conv_2d";
  l.source = kConv2DSource;
  l.defines = fmt::format("#define BLOCK_X {}\n#define BLOCK_S {}\n#define LANES {}\n#define MAX_GROUP_PIXELS {}\n", block.x,
                          block.s, block.lanes, kMaxGroupPixels) + FilterSizeDefines(kh, kw) + exact.Defines();
  l.act_min = r.min;
  l.act_max = r.max;
  l.args = {b.Read(in), KernelArg::Constant(w_const), KernelArg::Constant(b_const), b.Write(out),
            KernelArg::Int(si.w), KernelArg::Int(si.h), KernelArg::Int(si.slices()),
            KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.h * so.b), KernelArg::Int(so.slices()),
            KernelArg::Int(kh), KernelArg::Int(kw), KernelArg::Int(p.stride_w), KernelArg::Int(p.stride_h),
            KernelArg::Int(pw.pad_before), KernelArg::Int(ph.pad_before), KernelArg::Int(p.dilation_w), KernelArg::Int(p.dilation_h),
            KernelArg::Int(x_blocks)};
  exact.AddArgs(l);
  const size_t rows = static_cast<size_t>(so.h) * static_cast<size_t>(so.b);
  const size_t slice_blocks = static_cast<size_t>((so.slices() + block.s - 1) / block.s);
  if (block.lanes == 1) {
    l.global = {static_cast<size_t>(x_blocks), rows, slice_blocks};
  } else {
    // The lanes must be one work group's dimension 0 and the group's pixel
    // blocks fit the kernel's local array: fix the local size.
    const size_t pixels = static_cast<size_t>(x_blocks) * rows;
    l.global = {static_cast<size_t>(block.lanes), pixels, slice_blocks};
    l.local = {static_cast<size_t>(block.lanes), std::min<size_t>(pixels, kMaxGroupPixels), 1};
  }
  l.fusable_output_arg = 3;
  l.residual_fusable = true;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(so.elements()) * kh * kw * cin);
  return Status::Ok();
}

}  // namespace relite::gpu
