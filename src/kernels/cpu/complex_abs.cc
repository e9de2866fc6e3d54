// COMPLEX_ABS: |z| of each complex element, by std::abs as TFLite (hypot:
// no overflow for large parts)
// (complex64 -> float32, complex128 -> float64).
#include <complex>
#include <memory>

#include "src/kernels/cpu/internal/complex_part.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct ComplexAbsPart {
  template <typename T>
  T operator()(const std::complex<T>& c) const {
    return std::abs(c);
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateComplexAbs(const Node&) { return MakeComplexPartKernel<ComplexAbsPart>(); }

}  // namespace relite::cpu
