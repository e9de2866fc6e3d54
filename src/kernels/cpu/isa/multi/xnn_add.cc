// XNNPACK's 8-bit ADD/SUB over two same-shape arrays, for one ISA: plain
// integer loops the compiler vectorises with the ISA's instructions (the
// baseline x86-64 has no 32-bit vector multiply). Bit-exact everywhere.
#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

template <typename T>
void XnnAdd(const T* a, const T* b, T* out, int64_t n, const XnnAddArrayParams& p) {
  const uint32_t am = p.a_multiplier, bm = p.b_multiplier, bias = p.bias;
  const int shift = p.shift;
  const int32_t zo = p.zero_point, lo = p.qmin, hi = p.qmax;
  for (int64_t i = 0; i < n; ++i) {
    // Two's-complement wrap like XNNPACK's int32 lanes; the true sum fits.
    const auto acc = static_cast<int32_t>(bias + static_cast<uint32_t>(static_cast<int32_t>(a[i])) * am +
                                          static_cast<uint32_t>(static_cast<int32_t>(b[i])) * bm);
    int32_t v = (acc >> shift) + zo;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    out[i] = static_cast<T>(v);
  }
}

}  // namespace

void FillXnnAddKernels(CpuKernels* k) {
  k->xnn_add_u8 = XnnAdd<uint8_t>;
  k->xnn_add_s8 = XnnAdd<int8_t>;
}

}  // namespace relite::cpu::RELITE_ISA_NS
