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
  OpBuilder(const DelegateGraph& graph, const Node& node, Precision precision)
      : graph_(graph), node_(node), precision_(precision) {}

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
  // float32 and not quantized: what GPU tensors hold.
  Status RequireFloat(int t, const std::string& what) const;
  // Values of an int32/int64 tensor that is a constant in the model file
  // (known at check time: paddings, axes, shapes, sizes).
  StatusOr<std::vector<int64_t>> ConstantInts(int t, const std::string& what) const;
  // The checks every weighted op (convolutions, fully connected) makes:
  // float input and output, constant dense float weights (`weights_name`,
  // e.g. "filter"), an optional (bias < 0: absent) constant float bias.
  Status RequireConstantWeights(int in, int out, int weights, const std::string& weights_name, int bias) const;
  // Float values of a constant tensor, read when constants are filled.
  static const float* ConstantFloats(const ConstantTensors& tensors, int t) { return tensors(t).data_as<float>(); }

  // Kernel arguments that read/write GPU tensors (recorded in reads/writes).
  KernelArg Read(int t);
  KernelArg Write(int t);
  int AddConstant(size_t count, std::function<void(const ConstantTensors&, float*)> fill, bool fp32 = false);
  int AddTemp(const GpuShape& shape);
  void Launch(KernelLaunch launch) { program_.launches.push_back(std::move(launch)); }
  void SetCost(double cost) { program_.cost = cost; }

  NodeProgram Take() { return std::move(program_); }

 private:
  const DelegateGraph& graph_;
  const Node& node_;
  Precision precision_;
  NodeProgram program_;
};

// Unimplemented carrying the reason the GPU cannot run a node.
inline Status NotOnGpu(std::string reason) { return UnimplementedError(std::move(reason)); }

// Ok for the clamp-style fused activations (NONE, RELU, RELU_N1_TO_1,
// RELU6), which the templates apply as ACT; the reason otherwise.
Status RequireClampActivation(Activation activation);

// Global size for a launch over a GPU tensor: (W, H * B, slices).
inline std::array<size_t, 3> GridOf(const GpuShape& s) {
  return {static_cast<size_t>(s.w), static_cast<size_t>(s.h) * static_cast<size_t>(s.b), static_cast<size_t>(s.slices())};
}

using OpEmitter = Status (*)(OpBuilder& b);
// The emitter for the node's op and version, or null with *reason set.
OpEmitter FindEmitter(const Node& node, std::string* reason);
// "ADD, AVERAGE_POOL_2D, ..." for documentation and messages.
std::vector<std::string> SupportedOpNames();

}  // namespace relite::gpu
