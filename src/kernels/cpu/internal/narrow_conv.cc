#include "src/kernels/cpu/internal/narrow_conv.h"

#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {

void NarrowConvRows(const NarrowConvGeometry& g, const float* input, const float* filter, const float* bias,
                    float act_min, float act_max, float* output, int row_begin, int row_end) {
  Kernels().narrow_conv_f32_rows(g, input, filter, bias, act_min, act_max, output, row_begin, row_end);
}

}  // namespace relite::cpu
