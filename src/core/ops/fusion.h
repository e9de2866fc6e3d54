// Fusions the interpreter offers to relite's own kernels only (the public
// Kernel interface has the clamp, residual ADD and HARD_SWISH ones, which
// any kernel may take).
#pragma once

namespace relite {

// A kernel that can compute its input 0 itself from a 1x1, stride-1 float
// CONV_2D that only it reads (an inverted-residual block's expansion feeding
// its depthwise convolution): the expanded tensor is then produced a band of
// rows at a time in the kernel's scratch instead of written whole to memory
// and read back. The interpreter (Subgraph::FusePointwiseInputs) offers it
// before the first Prepare; on acceptance the node's input 0 becomes the
// convolution's input and inputs [first_input, first_input + 2) its filter
// and optional bias (-1: none), and the convolution no longer runs.
class PointwiseInputFusable {
 public:
  virtual ~PointwiseInputFusable() = default;
  // [min, max]: the convolution's clamp (its own activation and any clamp
  // fused into it). Returns false where the kernel cannot take it.
  virtual bool FusePointwiseInput(int first_input, float min, float max) = 0;
  // Where the convolution's filter goes among this node's inputs.
  virtual int pointwise_input_index() const = 0;
};

}  // namespace relite
