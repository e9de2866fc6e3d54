// The GPU delegate over a backend the caller made (tests: a backend that
// only compiles, to check every template against a language's compiler on
// machines without that GPU).
#pragma once

#include <memory>

#include "relite/gpu_delegate.h"
#include "src/delegates/gpu/backend.h"

namespace relite::gpu {

std::unique_ptr<Delegate> CreateGpuDelegateOnBackend(const GpuDelegateOptions& options, std::shared_ptr<Backend> backend);

}  // namespace relite::gpu
