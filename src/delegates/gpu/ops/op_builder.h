// What an op emitter sees: the node, its tensors, and a recorder for the
// NodeProgram it runs. One emitter per op (ops/<op>.cc), registered in
// ops/op_list.inc. An emitter returns Unimplemented with a reason a user can
// act on ("dilation 2 is not supported") for a node the GPU cannot run; it
// never touches a device.
#pragma once

#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/status.h"
#include "src/core/ops/params.h"
#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {

class OpBuilder {
 public:
  // `quantized_models`: 8-bit tensors are accepted (GpuDelegateOptions'
  // kGpuExperimentalQuantizedModels); the GPU holds their real values.
  OpBuilder(const DelegateGraph& graph, const Node& node, Precision precision, bool quantized_models = true)
      : graph_(graph), node_(node), precision_(precision), quantized_models_(quantized_models) {}

  const DelegateGraph& graph() const { return graph_; }
  const Node& node() const { return node_; }
  Precision precision() const { return precision_; }

  int num_inputs() const { return static_cast<int>(node_.inputs.size()); }
  bool has_input(int i) const { return i >= 0 && i < num_inputs() && node_.inputs[static_cast<size_t>(i)] >= 0; }
  // Tensor index of input/output i; errors name the slot when absent.
  StatusOr<int> Input(int i) const;
  StatusOr<int> Output(int i) const;
  const Tensor& tensor(int t) const { return graph_.tensor(t); }
  bool IsConstant(int t) const { return graph_.is_constant(t); }

  // The tensor's GPU shape (rank <= 4, every dimension >= 1).
  StatusOr<GpuShape> Shape(int t) const;
  // What a GPU tensor can hold: float32, or (with quantized models on) a
  // uint8/int8 tensor with one scale and zero point, held as its real values
  // and kept on its grid by a fake-quant epilogue (Finish adds them).
  Status RequireFloat(int t, const std::string& what) const;
  // float32 only (ops whose quantized kernels have no float equivalent).
  Status RequireFloat32(int t, const std::string& what) const;
  // True for a tensor the GPU holds as the dequantized values of 8-bit data.
  bool IsQuantized(int t) const;
  // For ops whose CPU kernel moves or pools 8-bit codes without rescaling
  // (`what_cpu_does`, e.g. "the op copies values"): the output must have the
  // input's type and quantization, else a real-valued GPU result differs.
  Status RequireSameGrid(int in, int out, const std::string& what_cpu_does) const;
  // Same type and quantization: a copy of one tensor's values is the other's.
  bool SameValues(int a, int b) const;
  // Values of an int32/int64 tensor that is a constant in the model file
  // (known at check time: paddings, axes, shapes, sizes).
  StatusOr<std::vector<int64_t>> ConstantInts(int t, const std::string& what) const;
  // The checks every weighted op (convolutions, fully connected) makes:
  // input and output as RequireFloat, constant dense weights (`weights_name`,
  // e.g. "filter"): float32, or 8-bit per-tensor or per-channel along
  // `channel_axis` (a quantized model's, or int8 weights of a dynamic-range
  // model feeding a float op); an optional (bias < 0: absent) constant bias,
  // float32 or int32 quantized.
  Status RequireConstantWeights(int in, int out, int weights, const std::string& weights_name, int bias,
                                int channel_axis = 0) const;
  // The real values of a constant tensor (float32 as stored; 8/16/32-bit
  // integers dequantized with their scale and zero point, per channel where
  // they have several), read when constants are filled.
  static std::vector<float> ConstantFloats(const ConstantTensors& tensors, int t) { return RealValues(tensors(t)); }
  static std::vector<float> RealValues(const Tensor& t);

  // Kernel arguments that read/write GPU tensors (recorded in reads/writes).
  KernelArg Read(int t);
  KernelArg Write(int t);
  int AddConstant(size_t count, std::function<void(const ConstantTensors&, float*)> fill, bool fp32 = false);
  int AddTemp(const GpuShape& shape, bool fp32 = false);
  void Launch(KernelLaunch launch) { program_.launches.push_back(std::move(launch)); }
  void SetCost(double cost) { program_.cost = cost; }
  // The node's output holds exactly the GPU bytes of tensor `in` (see
  // NodeProgram::alias_input); its launches stay for where it cannot fold.
  void SetAliasInput(int in) { program_.alias_input = in; }
  // The node's output is `in` with zero channels appended (NodeProgram::channel_pad_of).
  // The node's output is the 2x2, stride 2 maximum of `in` (h x w cells).
  void SetMaxPool2x2Of(int in, int32_t h, int32_t w) {
    program_.max_pool_2x2_of = in;
    program_.max_pool_in_h = h;
    program_.max_pool_in_w = w;
  }
  void SetChannelPadOf(int in, int64_t elements4) {
    program_.channel_pad_of = in;
    program_.channel_pad_elements4 = elements4;
  }

  // Gives every quantized tensor the program writes its fake quant, in the
  // ACT of each launch that stores it (none can then leave the grid);
  // `fake_quants` (optional) receives a line per tensor for reports.
  Status Finish(std::string* fake_quants = nullptr);

  NodeProgram Take() { return std::move(program_); }

 private:
  const DelegateGraph& graph_;
  const Node& node_;
  Precision precision_;
  bool quantized_models_;
  NodeProgram program_;
};

// Exact 8-bit arithmetic for CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED
// of a full-integer model (input, weights and output 8-bit). The kernels read
// each input back as its code minus the zero point (exact from float32 or
// float16 storage), multiply by the weights' codes minus theirs, add the
// int32 bias and requantize per output channel as the CPU does:
// round half to even of acc * S[c], S[c] = in_s * w_s[c] / out_s in float32.
// Integers below 2^24 are exact in float32, so while |acc| stays below that
// (always for depthwise 3x3: 9 * 255 * 255) the codes are the CPU's, bit for
// bit; a fake quant on the real values instead would round the few values
// within float error of a half step differently, and a deep model amplifies
// those into whole-step differences of its outputs.
struct IntegerConv {
  bool enabled = false;
  float input_inv_scale = 1.f, output_scale = 1.f;
  int requant_const = -1;  // fp32 constant: S per output channel (zeros past them)
  std::string Defines() const { return enabled ? "#define INTEGER_CONV 1\n" : ""; }
  // Appends REQUANT_ARGS (requant, in_inv_scale, out_scale) to the launch.
  void AddArgs(KernelLaunch& l) const;
  // The weights as the kernel multiplies them: codes minus the zero point of
  // their channel along `channel_axis` when enabled, else real values.
  std::vector<float> WeightValues(const ConstantTensors& t, int weights, int channel_axis) const;
  // The bias: int32 codes when enabled, else real values.
  std::vector<float> BiasValues(const ConstantTensors& t, int bias) const;
};
// Enabled when `in`, `out` and `weights` are 8-bit quantized and the bias (if
// any) int32; `padded_channels` >= the output channels (the kernel's reads).
IntegerConv PlanIntegerConv(OpBuilder& b, int in, int out, int weights, int channel_axis, int padded_channels);

// The fake quant of an 8-bit per-tensor quantized tensor.
FakeQuant FakeQuantOf(const Tensor& t);

// Unimplemented carrying the reason the GPU cannot run a node.
inline Status NotOnGpu(std::string reason) { return UnimplementedError(std::move(reason)); }

// Ok for the clamp-style fused activations (NONE, RELU, RELU_N1_TO_1,
// RELU6), which the templates apply as ACT; the reason otherwise.
Status RequireClampActivation(Activation activation);

// Global size for a launch over a GPU tensor: (W, H * B, slices).
inline std::array<size_t, 3> GridOf(const GpuShape& s) {
  return {static_cast<size_t>(s.w), static_cast<size_t>(s.h) * static_cast<size_t>(s.b), static_cast<size_t>(s.slices())};
}

// "#define KH_N 3\n#define KW_N 3\n": a filter's size fixed in the program
// for the templates' tap loops, so they unroll; filters over 7x7 keep the
// run-time KH and KW (KH_N KH).
inline std::string FilterSizeDefines(int kh, int kw) {
  if (kh > 7 || kw > 7) return "#define KH_N KH\n#define KW_N KW\n";
  return "#define KH_N " + std::to_string(kh) + "\n#define KW_N " + std::to_string(kw) + "\n";
}

using OpEmitter = Status (*)(OpBuilder& b);
// The emitter for the node's op and version, or null with *reason set.
OpEmitter FindEmitter(const Node& node, std::string* reason);
// "ADD, AVERAGE_POOL_2D, ..." for documentation and messages.
std::vector<std::string> SupportedOpNames();

}  // namespace relite::gpu
