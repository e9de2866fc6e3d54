// IMAG: the imaginary part of each complex element
// (complex64 -> float32, complex128 -> float64).
#include <complex>
#include <memory>

#include "src/kernels/cpu/internal/complex_part.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct ImagPart {
  template <typename T>
  T operator()(const std::complex<T>& c) const {
    return c.imag();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateImag(const Node&) { return MakeComplexPartKernel<ImagPart>(); }

}  // namespace relite::cpu
