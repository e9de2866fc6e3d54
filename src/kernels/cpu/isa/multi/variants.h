// The kernels each per-ISA build of src/kernels/cpu/isa/multi defines, in
// its own namespace (RELITE_ISA_NS: isa_portable, isa_avx2, isa_avx512).
#pragma once

#include "src/kernels/cpu/isa/kernel_table.h"

#ifndef RELITE_ISA_NS
#error "variants.h is for the per-ISA kernel sources, built with RELITE_ISA_NS set"
#endif

namespace relite::cpu::RELITE_ISA_NS {

extern const int kGemmF32TileRows;
void GemmF32Panel(int rows, int width, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                  float* c, size_t ldc, const float* bias, bool accumulate, bool finalize, float lo, float hi);
void GemvF32(int k, const float* w, size_t row_stride, const float* x, const float* bias, float lo, float hi, float* y,
             int n_begin, int n_end);
void AddResidualClampF32(int rows, int cols, int residual_cols, const float* r, size_t r_stride, float lo, float hi,
                         float* c, size_t ldc);
void DepthwiseF32Row(const DepthwiseF32Job& job, int row);

void FillVmathKernels(CpuKernels* k);
void FillPoolKernels(CpuKernels* k);
void FillXnnAddKernels(CpuKernels* k);
void FillResizeQ11Kernels(CpuKernels* k);
void FillResizeF32Kernels(CpuKernels* k);
void FillNarrowConvKernels(CpuKernels* k);

// The entries of the sources written for this ISA alone
// (src/kernels/cpu/isa/<portable|x86_avx2|x86_avx512>/).
void FillOwnKernels(CpuKernels* k);

}  // namespace relite::cpu::RELITE_ISA_NS
