// PADV2: PAD with the fill value given by a scalar input of the input's
// dtype; see internal/pad_kernel.h.
#include "src/kernels/cpu/internal/pad_kernel.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreatePadV2(const Node&) { return MakePadKernel(); }

}  // namespace relite::cpu
