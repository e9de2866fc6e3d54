// The float transcendental and elementwise array functions of
// src/kernels/cpu/internal/vector_math.h, for one ISA.
#include "src/kernels/cpu/internal/vector_math.h"
#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {

void FillVmathKernels(CpuKernels* k) {
  k->exp_f32 = vmath::Apply<vmath::Exp>;
  k->logistic_f32 = vmath::Apply<vmath::Logistic>;
  k->tanh_f32 = vmath::Apply<vmath::Tanh>;
  k->hard_swish_f32 = vmath::Apply<vmath::HardSwish>;
  k->sqrt_f32 = vmath::Apply<vmath::Sqrt>;
  k->rsqrt_f32 = vmath::Apply<vmath::Rsqrt>;
}

}  // namespace relite::cpu::RELITE_ISA_NS
