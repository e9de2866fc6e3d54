// Shared emitter of the data-movement ops that only re-index elements
// (RESHAPE, PAD/PADV2, STRIDED_SLICE): every output element is read from one
// input coordinate, or is a constant fill where that coordinate lies outside
// the input.
#pragma once

#include <array>
#include <cstdint>

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {

// Output element e (row-major BHWC order of the output's real elements) is
// element e of the 4-D `walk` (B, H, W, C, row-major); walk coordinate p
// reads input coordinate begin + p * stride in each of B, H, W, C, or
// `fill` when that is outside the input. E.g. RESHAPE: walk = input shape;
// PAD: walk = output shape, begin = -pad_before; STRIDED_SLICE: walk = the
// slice's extents, begin/stride its first index and step.
struct Remap {
  GpuShape walk;
  std::array<int32_t, 4> begin{0, 0, 0, 0};
  std::array<int32_t, 4> stride{1, 1, 1, 1};
  float fill = 0.f;
};

// Records the launch reading `in` and writing `out` (float tensors whose GPU
// shapes the caller has validated). InvalidArgument when the walk's element
// count differs from the output's.
Status EmitRemap(OpBuilder& b, int in, int out, const Remap& m);

}  // namespace relite::gpu
