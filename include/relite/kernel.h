// The kernel interface: what a builtin or custom op implements.
//
// Lifecycle (as in XNNPACK's create / reshape / setup split):
//   factory(node)  once per node: parse options, validate what needs no shapes;
//   Prepare(ctx)   on every (re)allocation: check input types and shapes, set
//                  output shapes, request scratch; never touches tensor data
//                  unless the input is constant;
//   Eval(ctx)      per Invoke: compute; never allocates.
#pragma once

#include "relite/export.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "relite/status.h"
#include "relite/tensor.h"

namespace relite {

// One operator of a subgraph, as read from the model.
struct RELITE_API Node {
  int index = -1;                 // position in the subgraph's execution order
  int32_t builtin_code = 0;       // .tflite BuiltinOperator value (32 = CUSTOM)
  int version = 1;
  std::string op_name;            // "CONV_2D", or the custom op's name
  std::vector<int> inputs;        // tensor indices; -1 marks an absent optional input
  std::vector<int> outputs;
  std::vector<int> intermediates;
  // Element types of inputs/outputs (kNone-like absent inputs hold kFloat32);
  // fixed at load time, so a factory can choose its implementation by type.
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
  uint8_t builtin_options_type = 0;       // .tflite BuiltinOptions union tag
  const void* builtin_options = nullptr;  // the options table, or null when absent
  const uint8_t* custom_options = nullptr;
  size_t custom_options_size = 0;

  bool is_custom() const { return builtin_code == 32; }
  DataType input_type(int i) const {
    return i >= 0 && i < static_cast<int>(input_types.size()) ? input_types[static_cast<size_t>(i)] : DataType::kFloat32;
  }
  DataType output_type(int i) const {
    return i >= 0 && i < static_cast<int>(output_types.size()) ? output_types[static_cast<size_t>(i)] : DataType::kFloat32;
  }
  // "node 12 (CONV_2D v1)"
  std::string Describe() const;
};

class RELITE_API KernelContext {
 public:
  virtual ~KernelContext() = default;

  virtual const Node& node() const = 0;
  int num_inputs() const { return static_cast<int>(node().inputs.size()); }
  int num_outputs() const { return static_cast<int>(node().outputs.size()); }
  // False when input i is beyond the list or marked absent (-1).
  bool has_input(int i) const {
    return i >= 0 && i < num_inputs() && node().inputs[static_cast<size_t>(i)] >= 0;
  }
  virtual Tensor& input(int i) = 0;
  virtual Tensor& output(int i) = 0;
  virtual Tensor& intermediate(int i) = 0;

  // Sets output i's shape (Prepare). Data is allocated by the interpreter
  // after all nodes are prepared.
  virtual Status ResizeOutput(int i, Shape shape) = 0;

  // Scratch memory valid during this node's Eval only; request in Prepare.
  virtual void RequestScratch(size_t bytes) = 0;
  virtual void* scratch() = 0;

  // Runs fn(begin, end) over [0, n) split into at most num_threads() chunks of
  // at least min_chunk items each; returns when all chunks are done.
  virtual void ParallelFor(int64_t n, int64_t min_chunk,
                           const std::function<void(int64_t, int64_t)>& fn) = 0;
  virtual int num_threads() const = 0;

  // An InvalidArgument error prefixed with the node's description.
  Status Error(const std::string& message) const {
    return InvalidArgumentError(node().Describe() + ": " + message);
  }
  Status Unsupported(const std::string& message) const {
    return UnimplementedError(node().Describe() + ": " + message);
  }

  // Dynamic shapes. An op whose output shapes depend on the values of an
  // input (RESHAPE's shape, FILL's dims, WHERE's condition, ...) reads them
  // in Prepare when InputValuesReady(i): the input is a constant, or the
  // interpreter is preparing the node during Invoke, after the nodes before
  // it ran. Otherwise Prepare returns NeedInputValues(i): the interpreter
  // then prepares the node again at every Invoke, with the values, and its
  // outputs become dynamic (sized there, outside the memory plan; so are the
  // outputs of every node reading them). Where dynamic preparation is not
  // available, NeedInputValues is an Unimplemented error naming the input.
  virtual bool InputValuesReady(int i) { return has_input(i) && input(i).is_constant(); }
  virtual Status NeedInputValues(int i) {
    return Unsupported("the values of input " + std::to_string(i) +
                       " decide the output shape, and they are only known at Invoke (dynamic shapes are not "
                       "available here)");
  }
};

class RELITE_API Kernel {
 public:
  virtual ~Kernel() = default;
  virtual Status Prepare(KernelContext& ctx) = 0;
  virtual Status Eval(KernelContext& ctx) = 0;

  // Offered once, before the first Prepare, when the only consumer of this
  // node's single output is a clamp node (RELU, RELU6, RELU_N1_TO_1): return
  // true to apply the clamp [min, max] to the output in this kernel, and the
  // interpreter then skips the clamp node. One pass over memory instead of two.
  virtual bool FuseClamp(float min, float max) {
    (void)min;
    (void)max;
    return false;
  }

  // Offered once, after a first round of FuseClamp (a clamp node right
  // after this one is then already part of it) and before the first Prepare,
  // when the only consumer of this node's single float output is an ADD
  // whose other operand R is ready before this node runs and has the
  // output's shape, or fewer innermost channels (R then was channel-padded
  // with zeros by a PAD that the interpreter skips). Return true to compute
  // clamp(out + R, min, max) here: the interpreter appends R to the node's
  // inputs (after an absent slot for every optional input the node omitted,
  // up to `residual_input_index`) and skips the ADD. A later FuseClamp then
  // concerns the sum. The residual-block pattern of mobile CNNs, one pass
  // over memory instead of two or three.
  virtual bool FuseResidualAdd(int residual_input_index, float min, float max) {
    (void)residual_input_index;
    (void)min;
    (void)max;
    return false;
  }
  // Where a kernel wants the residual operand of a fused ADD (e.g. after
  // CONV_2D's optional bias); -1: this kernel never fuses one.
  virtual int residual_input_index() const { return -1; }

  // Offered once, after FuseResidualAdd and FuseClamp and before the first
  // Prepare, when the only consumer of this node's single float output is a
  // HARD_SWISH node: return true to apply x * relu6(x + 3) / 6 to the output
  // last (after this kernel's own clamp); the interpreter then skips the
  // HARD_SWISH node. MobileNet v3's convolution + h-swish in one pass.
  virtual bool FuseHardSwish() { return false; }
};

using KernelFactory = std::function<StatusOr<std::unique_ptr<Kernel>>(const Node& node)>;

}  // namespace relite
