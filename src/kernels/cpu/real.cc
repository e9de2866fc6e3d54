// REAL: the real part of each complex element
// (complex64 -> float32, complex128 -> float64).
#include <complex>
#include <memory>

#include "src/kernels/cpu/internal/complex_part.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct RealPart {
  template <typename T>
  T operator()(const std::complex<T>& c) const {
    return c.real();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateReal(const Node&) { return MakeComplexPartKernel<RealPart>(); }

}  // namespace relite::cpu
