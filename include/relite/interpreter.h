// Runs a model: build from (model, resolver), allocate, fill inputs, invoke.
//
//   auto model = relite::Model::FromFile("m.tflite");
//   relite::BuiltinOpResolver resolver;
//   auto interp = relite::InterpreterBuilder(**model, resolver).SetNumThreads(2).Build();
//   (*interp)->AllocateTensors();
//   float* in = (*interp)->typed_input<float>(0);  ...
//   (*interp)->Invoke();
//   const float* out = (*interp)->typed_output<float>(0);
#pragma once

#include "relite/export.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/kernel.h"
#include "relite/model.h"
#include "relite/op_resolver.h"
#include "relite/status.h"
#include "relite/tensor.h"

namespace relite {

class ThreadPool;
class Subgraph;
class GraphTable;

// Bounds on what a model may demand: a .tflite file is untrusted input, and
// a few edited bytes can declare tensors of gigabytes or minutes of work.
// Exceeding one makes AllocateTensors (or ModifyGraphWithDelegate, for a
// delegate's tensors) fail with ResourceExhausted naming the tensor or node.
// 0 disables a bound. The defaults leave every model relite was tested with
// a wide margin (docs/SECURITY.md lists the largest figures).
struct ResourceLimits {
  uint64_t max_arena_bytes = uint64_t{4} << 30;   // the planned activation arena
  uint64_t max_tensor_bytes = uint64_t{1} << 30;  // any one tensor: activations, inputs, folded constants, variables
  // Estimated multiply-accumulates of one Invoke (convolutions, matrix
  // products; one per element moved for other ops), folded nodes included.
  double max_macs = 2e11;
};

struct InterpreterOptions {
  // Worker threads for kernels; <= 0 means one per hardware core.
  int num_threads = -1;
  // Gives every tensor its own memory instead of sharing the arena, so all
  // intermediate values can be read after Invoke (for debugging and diffing
  // tools; costs memory).
  bool preserve_all_tensors = false;
  ResourceLimits limits;
  // CPU kernels take subnormal floats (|x| < 1.2e-38) as zero while Invoke
  // runs: x86 MXCSR FTZ + DAZ, AArch64 FPCR.FZ, on the calling thread (put
  // back after) and on the worker threads. An operation on a subnormal costs
  // about a hundred cycles on x86, and models that multiply by sigmoids of
  // large negative values make many (selfie_segmentation: 2.42 -> 1.74 ms
  // on one thread). Only results that would be subnormal change; false
  // keeps IEEE subnormals.
  bool flush_denormals = true;
};

class RELITE_API Interpreter {
 public:
  ~Interpreter();

  // Plans memory and prepares every node for the current input shapes.
  Status AllocateTensors();
  // Changes graph input `input_index`'s shape; call AllocateTensors next.
  Status ResizeInputTensor(int input_index, const Shape& shape);
  // The same, allowed only within the input's shape signature: same rank,
  // and only the dimensions the signature marks -1 may change (TFLite's
  // ResizeInputTensorStrict). An input without a signature is fixed.
  Status ResizeInputTensorStrict(int input_index, const Shape& shape);
  Status Invoke();
  // Variable tensors (recurrent state kept across Invokes) back to their
  // initial values: the model's, else zero (int8: the zero point). Resource
  // variables (VAR_HANDLE / ASSIGN_VARIABLE state, e.g. of a streaming
  // model) likewise: zeroed, then the model's CALL_ONCE initializers run
  // again, as in a fresh interpreter.
  Status ResetVariableTensors();
  // Subgraphs the model runs: the main one and those its IF / WHILE /
  // CALL_ONCE nodes call (built on load; others are never read).
  int num_subgraphs_built() const;
  // The model's SignatureDefs (Model::signatures()).
  const std::vector<Signature>& signatures() const { return model_.signatures(); }

  int num_inputs() const;
  int num_outputs() const;
  Tensor* input_tensor(int input_index);
  Tensor* output_tensor(int output_index);
  // Typed data of an input/output; null when the index is out of range, the
  // dtype differs or tensors are not allocated.
  template <typename T> T* typed_input(int i) { return Typed<T>(input_tensor(i)); }
  template <typename T> const T* typed_output(int i) { return Typed<T>(output_tensor(i)); }

  // Subgraph 0 (the main graph) introspection.
  int tensors_size() const;
  Tensor* tensor(int tensor_index);
  int nodes_size() const;
  const Node& node(int node_index) const;
  const std::vector<int>& inputs() const;   // tensor indices
  const std::vector<int>& outputs() const;  // tensor indices
  // True when the node's inputs are all constant and it was computed once at
  // allocation time (it is skipped by Invoke).
  bool node_is_folded(int node_index) const;
  // True when the node (a RELU-style clamp) was merged into the node that
  // produces its input; that node then writes this node's output.
  bool node_is_fused(int node_index) const;

  // Bytes of the activation arena of the current plan, and what the same
  // tensors would need without reuse.
  size_t arena_bytes() const;
  size_t unplanned_bytes() const;
  // Bytes owned by tensors outside the arena (folded constants, variables).
  size_t persistent_bytes() const;
  int num_threads() const;
  const Model& model() const { return model_; }
  // The estimated multiply-accumulates of one Invoke (what limits.max_macs
  // bounds), from the last AllocateTensors.
  double estimated_macs() const;

  // Hands the nodes `delegate` supports to it (see relite/delegate.h): each
  // partition becomes one node, the rest keeps its CPU kernels. Returns an
  // error and leaves the interpreter unchanged when a partition kernel cannot
  // be created. Must come before the first AllocateTensors (FailedPrecondition
  // otherwise). The delegate must outlive the interpreter.
  Status ModifyGraphWithDelegate(Delegate* delegate);
  // One report per delegate applied, in order.
  const std::vector<DelegationReport>& delegation_reports() const { return reports_; }
  // Node indices in Invoke order: model nodes, then partition nodes (indices
  // >= the model's operator count) in place of the nodes they absorbed.
  const std::vector<int>& execution_plan() const;
  // True for a model node absorbed into a delegate partition.
  bool node_is_delegated(int node_index) const;

  // Per-node wall time, accumulated over the Invokes made while profiling is
  // on (the benchmark tool's per-op profile). Folded nodes stay at zero.
  void SetProfiling(bool enabled);
  const std::vector<double>& node_time_us() const;
  void ResetProfile();

 private:
  friend class InterpreterBuilder;
  Interpreter(const Model& model, int num_threads, bool flush_denormals);
  template <typename T> static T* Typed(Tensor* t) {
    if (t == nullptr || t->data == nullptr || t->type != DataTypeOf<T>()) return nullptr;
    return static_cast<T*>(t->data);
  }

  const Model& model_;
  bool flush_denormals_ = true;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<GraphTable> graphs_;
  Subgraph* main_ = nullptr;
  std::vector<DelegationReport> reports_;
};

class RELITE_API InterpreterBuilder {
 public:
  // The model and resolver must outlive the interpreter.
  InterpreterBuilder(const Model& model, const OpResolver& resolver);
  InterpreterBuilder& SetNumThreads(int num_threads);
  InterpreterBuilder& SetPreserveAllTensors(bool preserve);
  InterpreterBuilder& SetResourceLimits(const ResourceLimits& limits);
  // InterpreterOptions::flush_denormals (default true).
  InterpreterBuilder& SetFlushDenormals(bool flush);
  // Applied in order by Build (as ModifyGraphWithDelegate); a delegate that
  // fails makes Build fail. Each delegate must outlive the interpreter.
  InterpreterBuilder& AddDelegate(Delegate* delegate);
  // Resolves every operator of the main subgraph to a kernel; errors name the
  // operator (e.g. a custom op with no registration).
  StatusOr<std::unique_ptr<Interpreter>> Build();

 private:
  const Model& model_;
  const OpResolver& resolver_;
  InterpreterOptions options_;
  std::vector<Delegate*> delegates_;
};

}  // namespace relite
