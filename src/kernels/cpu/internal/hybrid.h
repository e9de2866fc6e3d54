// Hybrid ("dynamic-range") quantization: float activations, int8 weights
// (symmetric, per tensor or per output channel). As TFLite's hybrid kernels
// do, each run quantizes the float input to int8 on the fly, per batch:
//   symmetric:  s = max|x| / 127,             q = clamp(round(x / s), -127, 127)
//   asymmetric: s = (max(x,0) - min(x,0)) / 255, a nudged zero point z,
//               q = clamp(round(x / s) + z, -128, 127)
// multiplies the int8 values exactly, and scales the integer sums back:
//   out = bias + float(sum (q - z) * w) * (s * weight_scale[channel]).
//
// relite runs the integer product on its float kernels: q - z and w are
// integers held exactly as floats, so the float convolution / GEMM computes
// the same sums (exactly while they stay below 2^24, within a few ulps
// beyond). The float kernel runs inside a KernelContext that hands it the
// quantized input and the integer weights in place of the model's tensors,
// without the bias; the hybrid kernel then applies scale, bias and
// activation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/core/ops/params.h"

namespace relite::cpu {

// True when the node is float activations over int8 weights (input 1).
bool IsHybridNode(const Node& node);

// Quantizes n floats as TFLite's hybrid kernels do and writes q - z as
// floats; returns the scale s (1 for an all-zero input).
float QuantizeSymmetricAsFloats(const float* x, int64_t n, float* out);
float QuantizeAsymmetricAsFloats(const float* x, int64_t n, float* out);
// The same quantization as int8 values q, with the zero point z in
// *zero_point (0 when symmetric), for kernels that multiply int8 by int8 and
// correct with the weights' row sums: sum w * (q - z) = w . q - z * sum w.
float QuantizeToInt8(const float* x, int64_t n, bool asymmetric, int8_t* q, int32_t* zero_point);

// Runs an inner float kernel with inputs 0 and 1 replaced and the bias
// (input 2) hidden; everything else goes to the real context.
class SubstitutedContext final : public KernelContext {
 public:
  SubstitutedContext(KernelContext& outer, Tensor* input, Tensor* weights);
  const Node& node() const override { return node_; }
  Tensor& input(int i) override;
  Tensor& output(int i) override { return outer_.output(i); }
  Tensor& intermediate(int i) override { return outer_.intermediate(i); }
  Status ResizeOutput(int i, Shape shape) override { return outer_.ResizeOutput(i, std::move(shape)); }
  void RequestScratch(size_t bytes) override { outer_.RequestScratch(bytes); }
  void* scratch() override { return outer_.scratch(); }
  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn) override {
    outer_.ParallelFor(n, min_chunk, fn);
  }
  int num_threads() const override { return outer_.num_threads(); }

 private:
  KernelContext& outer_;
  Node node_;
  Tensor* input_;
  Tensor* weights_;
};

// The shared part of the hybrid kernels: the integer weights as floats, their
// scales per output channel, the per-batch quantized input, and the inner
// float kernel (built without activation and bias).
// How the input is quantized: TFLite's FULLY_CONNECTED follows its
// asymmetric_quantize_inputs option; its convolutions quantize symmetrically
// for a per-tensor filter and asymmetrically for a per-channel one.
enum class HybridInputQuantization { kSymmetric, kAsymmetric, kAsymmetricIfPerChannel };

class HybridKernelBase : public Kernel {
 public:
  // `channel_axis`: the weights' output-channel dimension (0 for
  // FULLY_CONNECTED and CONV_2D, 3 for DEPTHWISE_CONV_2D).
  HybridKernelBase(std::unique_ptr<Kernel> inner, Activation activation, int channel_axis,
                   HybridInputQuantization quantization)
      : inner_(std::move(inner)), activation_(activation), channel_axis_(channel_axis), quantization_(quantization) {}

  Status Prepare(KernelContext& ctx) override;
  Status Eval(KernelContext& ctx) override;

 protected:
  // Input elements quantized together (one scale each): the whole of a
  // batch for convolutions, one row for FULLY_CONNECTED.
  virtual int64_t QuantizationGroup(const Tensor& input) const = 0;

 private:
  std::unique_ptr<Kernel> inner_;
  Activation activation_;
  int channel_axis_;
  HybridInputQuantization quantization_;
  bool asymmetric_ = false;
  Tensor weights_;   // integer-valued float copy of the int8 weights (persistent)
  Tensor quantized_;  // q - z of the current input, as floats (the kernel's own buffer)
  std::vector<float> input_buffer_;
  std::vector<float> channel_scales_;  // one per output channel
  std::vector<float> group_scales_;    // one per quantization group, per run
  const void* weights_from_ = nullptr;
  int64_t group_ = 1;
};

// CONV_2D / DEPTHWISE_CONV_2D: each batch's input is quantized as a whole.
class HybridPerBatchKernel final : public HybridKernelBase {
 public:
  using HybridKernelBase::HybridKernelBase;

 protected:
  int64_t QuantizationGroup(const Tensor& input) const override {
    return input.rank() > 0 && input.dim(0) > 0 ? input.num_elements() / input.dim(0) : 1;
  }
};

// The float kernels the hybrid ones run inside (defined in their op files).
std::unique_ptr<Kernel> MakeFloatConv2D(const Conv2DParams& params);
std::unique_ptr<Kernel> MakeFloatDepthwiseConv2D(const DepthwiseConv2DParams& params);
std::unique_ptr<Kernel> MakeFloatFullyConnected(const FullyConnectedParams& params);
std::unique_ptr<Kernel> MakeFloatBatchMatMul(bool adj_x, bool adj_y);

}  // namespace relite::cpu

namespace relite::cpu {
// Factories of the hybrid kernels (hybrid/*.cc), chosen by the float
// factories when IsHybridNode.
StatusOr<std::unique_ptr<Kernel>> CreateHybridFullyConnected(const Node& node);
StatusOr<std::unique_ptr<Kernel>> CreateHybridConv2D(const Node& node);
StatusOr<std::unique_ptr<Kernel>> CreateHybridDepthwiseConv2D(const Node& node);
StatusOr<std::unique_ptr<Kernel>> CreateHybridBatchMatMul(const Node& node);
// Chosen by CreateUnidirectionalSequenceLstm for float input over int8
// input_to_output weights (TFLite's IsHybridOp test).
StatusOr<std::unique_ptr<Kernel>> CreateHybridUnidirectionalSequenceLstm(const Node& node);
}  // namespace relite::cpu
