// The table entries written for this ISA alone.
#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu::RELITE_ISA_NS {

void FillQGemmKernels(CpuKernels* k);
void FillQDepthwiseKernels(CpuKernels* k);

void FillOwnKernels(CpuKernels* k) {
  FillQGemmKernels(k);
  FillQDepthwiseKernels(k);
}

}  // namespace relite::cpu::RELITE_ISA_NS
