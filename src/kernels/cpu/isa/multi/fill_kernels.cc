// The table entries of one ISA build of src/kernels/cpu/isa/multi.
#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {

void FillKernels(CpuKernels* k) {
  k->gemm_f32_tile_rows = kGemmF32TileRows;
  k->gemm_f32_panel = GemmF32Panel;
  k->gemm_f32_panel_partial = GemmF32PanelPartial;
#if defined(__AVX512F__)
  k->gemm_f32_panel_pair = GemmF32PanelPair;
  k->gemm_f32_panel_quad = GemmF32PanelQuad;
  k->gemm_f32_panel_wide_narrow = GemmF32PanelWideNarrow;
#endif
  k->gemv_f32 = GemvF32;
  k->add_residual_clamp_f32 = AddResidualClampF32;
  k->depthwise_f32_row = DepthwiseF32Row;
  k->depthwise_f32_plane = DepthwiseF32Plane;
  k->depthwise_plane_lanes = kDepthwisePlaneLanes;
  FillVmathKernels(k);
  FillPoolKernels(k);
  FillXnnAddKernels(k);
  FillResizeQ11Kernels(k);
  FillResizeF32Kernels(k);
  FillNarrowConvKernels(k);
  k->q_widen_rows = QWidenRows;
  k->qgemm = QGemm;
  k->qgemm_acc = QGemmAcc;
  k->qdepthwise_row = QDepthwiseRow;
#if defined(RELITE_ISA_AVX512VNNI)
  k->qgemm_quads = QGemmQuads;
  k->qdepthwise_quads = true;
#endif
#if defined(RELITE_ISA_DOTPROD)
  k->qgemm_quads = QGemmQuads;  // udot: the weights packed as unsigned bytes
  k->qgemm_quads_unsigned_weights = true;
#endif
}

}  // namespace relite::cpu::RELITE_ISA_NS
