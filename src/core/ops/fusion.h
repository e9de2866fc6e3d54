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

// A kernel that can run the 1x1, stride-1 float CONV_2D that is the only
// reader of its output (an inverted-residual block's projection after its
// depthwise convolution): its output rows are then made a few at a time in
// the kernel's scratch and multiplied while in L1, instead of written whole
// to memory and read back. The interpreter (Subgraph::FusePointwiseOutputs)
// offers it before the first Prepare; on acceptance the node writes the
// convolution's output, its inputs [first_input, first_input + 3) are the
// convolution's filter, optional bias and optional fused ADD operand (-1:
// none), and the convolution no longer runs.
class PointwiseOutputFusable {
 public:
  virtual ~PointwiseOutputFusable() = default;
  // [min, max]: the clamp after the convolution (and after its fused ADD,
  // when `residual`). Returns false where the kernel cannot take it.
  virtual bool FusePointwiseOutput(int first_input, float min, float max, bool residual) = 0;
  // Where the convolution's filter goes among this node's inputs.
  virtual int pointwise_output_index() const = 0;
};

// The float CONV_2D's side of that fusion: what its output gets after the
// product, which the kernel taking it over must apply alike.
class PointwiseOutputSource {
 public:
  virtual ~PointwiseOutputSource() = default;
  // The clamp applied last (its activation, fused clamps, a fused ADD's) and
  // whether a fused ADD's operand is its input 3. False where it applies more
  // than that (a fused HARD_SWISH, an activation that is not a clamp).
  virtual bool PointwiseEpilogue(float* min, float* max, bool* residual) const = 0;
};

}  // namespace relite
