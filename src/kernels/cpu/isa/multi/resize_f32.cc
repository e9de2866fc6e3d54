// One output row of a float RESIZE_BILINEAR (NHWC), for one ISA. Every
// path sums the same four terms in the same order, so the vector widths
// change nothing but speed.
#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/simd.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

template <typename V>
void RowOfVectors(const ResizeF32Row& r, float* o) {
  constexpr int kL = static_cast<int>(sizeof(V) / sizeof(float));
  const float dy = r.dy;
  const int64_t channels = r.channels;
  for (int64_t ox = 0; ox < r.out_w; ++ox, o += channels) {
    const float dx = r.weight[ox];
    const V w00 = Splat<V>((1.f - dy) * (1.f - dx)), w01 = Splat<V>((1.f - dy) * dx);
    const V w10 = Splat<V>(dy * (1.f - dx)), w11 = Splat<V>(dy * dx);
    const float* p00 = r.top + r.lower[ox] * channels;
    const float* p01 = r.top + r.upper[ox] * channels;
    const float* p10 = r.bottom + r.lower[ox] * channels;
    const float* p11 = r.bottom + r.upper[ox] * channels;
    for (int64_t c = 0; c < channels; c += kL) {
      Store<V>(o + c, Load<V>(p00 + c) * w00 + Load<V>(p10 + c) * w10 + Load<V>(p01 + c) * w01 + Load<V>(p11 + c) * w11);
    }
  }
}

}  // namespace

void ResizeF32RowKernel(const ResizeF32Row& r, float* __restrict o) {
  const float dy = r.dy;
  const float* top = r.top;
  const float* bottom = r.bottom;
  if (r.flat_lower != nullptr) {
    const int64_t n = r.out_w * r.channels;
    for (int64_t j = 0; j < n; ++j) {
      const float dx = r.flat_weight[j];
      o[j] = top[r.flat_lower[j]] * ((1.f - dy) * (1.f - dx)) + bottom[r.flat_lower[j]] * (dy * (1.f - dx)) +
             top[r.flat_upper[j]] * ((1.f - dy) * dx) + bottom[r.flat_upper[j]] * (dy * dx);
    }
    return;
  }
  if (r.channels % kLanes == 0) return RowOfVectors<VecF>(r, o);
  if (r.channels % 8 == 0) return RowOfVectors<V8>(r, o);
  const int64_t channels = r.channels;
  for (int64_t ox = 0; ox < r.out_w; ++ox, o += channels) {
    const float dx = r.weight[ox];
    const float w00 = (1.f - dy) * (1.f - dx), w01 = (1.f - dy) * dx;
    const float w10 = dy * (1.f - dx), w11 = dy * dx;
    const float* __restrict p00 = top + r.lower[ox] * channels;
    const float* __restrict p01 = top + r.upper[ox] * channels;
    const float* __restrict p10 = bottom + r.lower[ox] * channels;
    const float* __restrict p11 = bottom + r.upper[ox] * channels;
    for (int64_t c = 0; c < channels; ++c) o[c] = p00[c] * w00 + p10[c] * w10 + p01[c] * w01 + p11[c] * w11;
  }
}

void FillResizeF32Kernels(CpuKernels* k) { k->resize_f32_row = ResizeF32RowKernel; }

}  // namespace relite::cpu::RELITE_ISA_NS
