// What every backend puts before an op template: the precision, the
// template's own defines, and the epilogue macros of the launch (ACT: the
// folded clamp and fake quants; ADD_RESIDUAL/EXTRA_ARGS: a folded residual
// ADD). The backends' preludes then spell KERNEL, LOAD4, clamp, ... for their
// language; the program text is
//   LaunchDefines(launch) + prelude + launch.source.
#pragma once

#include <string>

#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {

std::string LaunchDefines(const KernelLaunch& launch, Precision precision);

}  // namespace relite::gpu
