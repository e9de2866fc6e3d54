// PAD: pads each dimension with constant [before, after] counts from the
// paddings input ([rank, 2], int32 or int64); see internal/pad_kernel.h.
#include "src/kernels/cpu/internal/pad_kernel.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreatePad(const Node&) { return MakePadKernel(); }

}  // namespace relite::cpu
