// The kernels each per-ISA build of src/kernels/cpu/isa/multi defines, in
// its own namespace (RELITE_ISA_NS: isa_portable, isa_avx2, isa_avx512).
#pragma once

#include "src/kernels/cpu/isa/kernel_table.h"

#ifndef RELITE_ISA_NS
#error "variants.h is for the per-ISA kernel sources, built with RELITE_ISA_NS set"
#endif

namespace relite::cpu::RELITE_ISA_NS {

// Small helpers of the per-ISA sources (no <algorithm> there: its inline
// templates would be emitted per ISA outside this namespace).
inline int MinI(int a, int b) { return a < b ? a : b; }
inline int MaxI(int a, int b) { return a < b ? b : a; }
// The 8-bit GEMM's panels are 16 columns; a widened row holds k rounded up
// to whole pairs (QGemmRowStride in qgemm.h).
inline constexpr int kQPanelWidth = 16;
inline size_t QRowStride(int k) { return static_cast<size_t>((k + 1) / 2) * 2; }

extern const int kGemmF32TileRows;
void GemmF32Panel(int rows, int width, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                  float* c, size_t ldc, const float* bias, bool accumulate, bool finalize, float lo, float hi,
                  const float* residual, size_t residual_stride);
bool GemmF32PanelPartial(int rows, int width, int valid, const GemmSegments& depth, const float* a, size_t lda,
                         const float* b, float* c, size_t ldc, const float* bias, bool accumulate, bool finalize,
                         float lo, float hi);
#if defined(__AVX512F__)
void GemmF32PanelPair(int rows, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                      size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate, bool finalize,
                      float lo, float hi, const float* residual, size_t residual_stride);
void GemmF32PanelQuad(int rows, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                      size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate, bool finalize,
                      float lo, float hi, const float* residual, size_t residual_stride);
void GemmF32PanelWideNarrow(int rows, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                            size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate,
                            bool finalize, float lo, float hi, const float* residual, size_t residual_stride);
#endif
void GemvF32(int k, const float* w, size_t row_stride, const float* x, const float* bias, float lo, float hi, float* y,
             int n_begin, int n_end);
void AddResidualClampF32(int rows, int cols, int residual_cols, const float* r, size_t r_stride, float lo, float hi,
                         float* c, size_t ldc);
void DepthwiseF32Row(const DepthwiseF32Job& job, int row);
void DepthwiseF32Plane(const DepthwisePlaneJob& job);
extern const int kDepthwisePlaneLanes;

void FillVmathKernels(CpuKernels* k);
void FillPoolKernels(CpuKernels* k);
void FillXnnAddKernels(CpuKernels* k);
void FillResizeQ11Kernels(CpuKernels* k);
void FillResizeF32Kernels(CpuKernels* k);
void FillNarrowConvKernels(CpuKernels* k);

// Written for this ISA alone (src/kernels/cpu/isa/<portable|x86|x86_avx2|
// x86_avx512>/; the ARM64 dotprod build takes portable/'s): the 8-bit GEMM
// (QWidenRowsFn, QGemmFn, QGemmAccFn) and depthwise rows.
void QWidenRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, int16_t* dst);
void QGemm(int m, const int16_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out, uint8_t* c, size_t ldc,
           int n_begin, int n_end);
void QGemmAcc(int m, const int16_t* a, size_t lda, const QGemmPanels& w, int32_t* c, size_t ldc, int n_begin,
              int n_end);
void QDepthwiseRow(const QDepthwiseJob& j, int b, int oy, const uint8_t** taps);
#if defined(RELITE_ISA_AVX512VNNI)
void QGemmQuads(int m, const uint8_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out, uint8_t* c,
                size_t ldc, int n_begin, int n_end);  // x86_avx512vnni/
#endif
#if defined(RELITE_ISA_DOTPROD) || defined(RELITE_ISA_I8MM)
void QGemmQuads(int m, const uint8_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out, uint8_t* c,
                size_t ldc, int n_begin, int n_end);  // arm_dotprod/
#endif

}  // namespace relite::cpu::RELITE_ISA_NS
