// A float DEPTHWISE_CONV_2D with 5x5 windows on one channel plane: the
// plane's channels (one vector's worth) of the input rows copied with their
// zero padding into scratch, one vector a pixel, then swept with every tap
// a constant offset from one row pointer.
//
// Why a plane: in NHWC a 16-channel vector of one pixel is one cache line
// out of C / 16, so a 5x5 window's 25 loads touch 25 lines and the tap
// offsets depend on C (runtime registers: GCC ran out of general registers
// and reloaded offsets from the stack in the old sweep). In a plane the
// window is 5 runs of 5 adjacent vectors, the offsets are displacements,
// and a 14x14 map's plane (18 x 18 x 64 bytes) sits in L1 while it is swept.
// With 32 vector registers the 25 weight vectors stay in registers.
#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/simd.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

constexpr int kTaps = 25;

inline VecF LoadLanes(const float* p, int lanes) { return lanes == kLanes ? Load<VecF>(p) : LoadFirst<VecF>(p, lanes); }

// Rows [0, job.plane_h) of the plane: image rows from job.image_row0, the
// columns shifted right by pad_left, zeros outside the image and in the
// lanes past job.lanes.
void FillPlane(const DepthwisePlaneJob& job) {
  const size_t plane_row = static_cast<size_t>(job.plane_w) * kLanes;
  const VecF zero{};
  for (int r = 0; r < job.plane_h; ++r) {
    float* out = job.plane + r * plane_row;
    const int iy = job.image_row0 + r;
    if (iy < 0 || iy >= job.in_h) {
      for (int x = 0; x < job.plane_w; ++x) Store<VecF>(out + x * kLanes, zero);
      continue;
    }
    const float* in = job.input + static_cast<size_t>(iy) * job.in_w * job.in_pixel;
    int x = 0;
    for (; x < job.pad_left; ++x) Store<VecF>(out + x * kLanes, zero);
    const int inside_end = MinI(job.plane_w, job.pad_left + job.in_w);
    for (; x < inside_end; ++x) {
      Store<VecF>(out + x * kLanes, LoadLanes(in + static_cast<size_t>(x - job.pad_left) * job.in_pixel, job.lanes));
    }
    for (; x < job.plane_w; ++x) Store<VecF>(out + x * kLanes, zero);
  }
}

inline void StoreLanes(float* p, VecF v, int lanes) {
  if (lanes == kLanes) {
    Store<VecF>(p, v);
  } else if constexpr (kMaskedTails) {
    StoreFirst<VecF>(p, v, lanes);
  } else {
    float part[kLanes];
    Store<VecF>(part, v);
    for (int i = 0; i < lanes && i < kLanes; ++i) p[i] = part[i];
  }
}

// Output pixels [x0, x1) of one row: `in` is the plane at the window of
// pixel x0, `out` its output. Three pixels at a time, each pixel's taps
// split over two accumulators (six independent chains).
template <int kStride>
inline void SweepRow(const float* in, size_t plane_row, const VecF (&wt)[kTaps], VecF bias, float* out, size_t out_pixel,
                     int pixels, VecF lo, VecF hi, int lanes) {
  constexpr int kStep = kStride * kLanes;  // plane floats from one output pixel to the next
  int p = 0;
  for (; p + 3 <= pixels; p += 3, in += 3 * kStep, out += 3 * out_pixel) {
    VecF a0 = bias, a1{}, b0 = bias, b1{}, d0 = bias, d1{};
#pragma GCC unroll 5
    for (int ky = 0; ky < 5; ++ky) {
      const float* r = in + ky * plane_row;
#pragma GCC unroll 5
      for (int kx = 0; kx < 5; ++kx) {
        const VecF w = wt[ky * 5 + kx];
        if ((ky * 5 + kx) % 2 == 0) {
          a0 += Load<VecF>(r + kx * kLanes) * w;
          b0 += Load<VecF>(r + kStep + kx * kLanes) * w;
          d0 += Load<VecF>(r + 2 * kStep + kx * kLanes) * w;
        } else {
          a1 += Load<VecF>(r + kx * kLanes) * w;
          b1 += Load<VecF>(r + kStep + kx * kLanes) * w;
          d1 += Load<VecF>(r + 2 * kStep + kx * kLanes) * w;
        }
      }
    }
    StoreLanes(out, Clamp(a0 + a1, lo, hi), lanes);
    StoreLanes(out + out_pixel, Clamp(b0 + b1, lo, hi), lanes);
    StoreLanes(out + 2 * out_pixel, Clamp(d0 + d1, lo, hi), lanes);
  }
  for (; p < pixels; ++p, in += kStep, out += out_pixel) {
    VecF a0 = bias, a1{};
#pragma GCC unroll 5
    for (int ky = 0; ky < 5; ++ky) {
#pragma GCC unroll 5
      for (int kx = 0; kx < 5; ++kx) {
        if ((ky * 5 + kx) % 2 == 0) {
          a0 += Load<VecF>(in + ky * plane_row + kx * kLanes) * wt[ky * 5 + kx];
        } else {
          a1 += Load<VecF>(in + ky * plane_row + kx * kLanes) * wt[ky * 5 + kx];
        }
      }
    }
    StoreLanes(out, Clamp(a0 + a1, lo, hi), lanes);
  }
}

template <int kStride>
void SweepPlane(const DepthwisePlaneJob& job) {
  const size_t plane_row = static_cast<size_t>(job.plane_w) * kLanes;
  // The weights one vector a tap (the filter's taps are C floats apart),
  // zero in the lanes past job.lanes: registers with AVX-512's or NEON's
  // 32, else a contiguous copy in L1.
  VecF wt[kTaps];
#pragma GCC unroll 25
  for (int t = 0; t < kTaps; ++t) wt[t] = LoadLanes(job.filter + static_cast<size_t>(t) * job.filter_tap, job.lanes);
  const VecF bias = LoadLanes(job.bias, job.lanes);
  const VecF lo = Splat<VecF>(job.act_min), hi = Splat<VecF>(job.act_max);
  for (int64_t q = job.pixel_begin; q < job.pixel_end;) {
    const int oy = static_cast<int>(q / job.out_w);
    const int x0 = static_cast<int>(q - int64_t{oy} * job.out_w);
    const int64_t left = job.pixel_end - q;
    const int x1 = left < job.out_w - x0 ? x0 + static_cast<int>(left) : job.out_w;
    const float* in = job.plane + static_cast<size_t>(oy - job.first_out_row) * kStride * plane_row +
                      static_cast<size_t>(x0) * kStride * kLanes;
    SweepRow<kStride>(in, plane_row, wt, bias, job.output + static_cast<size_t>(q) * job.out_pixel, job.out_pixel,
                      x1 - x0, lo, hi, job.lanes);
    q += x1 - x0;
  }
}

}  // namespace

const int kDepthwisePlaneLanes = kLanes;

void DepthwiseF32Plane(const DepthwisePlaneJob& job) {
  FillPlane(job);
  if (job.stride == 1) {
    SweepPlane<1>(job);
  } else {
    SweepPlane<2>(job);
  }
}

}  // namespace relite::cpu::RELITE_ISA_NS
