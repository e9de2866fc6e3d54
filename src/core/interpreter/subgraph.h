// One subgraph's tensors, nodes and kernels, its memory plan and execution.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/interpreter.h"
#include "relite/kernel.h"
#include "relite/model.h"
#include "relite/op_resolver.h"
#include "relite/tensor.h"
#include "src/core/ops/params.h"

namespace relite {

class ThreadPool;
class GraphTable;

class Subgraph {
 public:
  // `graphs` (the interpreter's subgraphs and resource variables) is what
  // control-flow and resource-variable nodes use; without it they are
  // unsupported.
  Subgraph(const Model& model, int index, ThreadPool* pool, bool preserve_all_tensors = false,
           const ResourceLimits& limits = ResourceLimits(), GraphTable* graphs = nullptr);
  ~Subgraph();

  // Reads tensors and operators and creates every node's kernel.
  Status Build(const OpResolver& resolver);
  Status AllocateTensors();
  Status ResizeInput(int input_index, const Shape& shape);
  Status Invoke();
  int index() const { return index_; }
  const ResourceLimits& limits() const { return limits_; }
  // AllocateTensors ran and no input was resized since.
  bool allocated() const { return allocated_; }
  // Variables back to their initial values (the model's, else zero).
  Status ResetVariables() { return allocated_ ? ResetVariableTensors(/*with_initial_values=*/true) : Status::Ok(); }

  // Replaces the subsets of nodes `delegate` supports by partition nodes (see
  // relite/delegate.h). All or nothing: on error the subgraph is unchanged.
  // Only before the first AllocateTensors (clamp fusion happens there).
  Status ApplyDelegate(Delegate& delegate, DelegationReport* report);
  // Node indices in the order Invoke runs them (partition nodes replace the
  // nodes they absorbed; folded and fused nodes stay listed and are skipped).
  const std::vector<int>& execution_plan() const { return execution_plan_; }
  // True for a model node that a delegate partition absorbed.
  bool delegated(int node) const { return folded_[static_cast<size_t>(node)] == kDelegatedNode; }

  std::vector<Tensor>& tensors() { return tensors_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<int>& inputs() const { return inputs_; }
  const std::vector<int>& outputs() const { return outputs_; }
  // Skipped by Invoke: computed once at allocation (folded), or merged into
  // the node before it (fused clamp).
  bool folded(int node) const {
    const uint8_t state = folded_[static_cast<size_t>(node)];
    return state == kFoldedNode || state == kRefoldedNode;
  }
  bool fused(int node) const { return folded_[static_cast<size_t>(node)] == kFusedNode; }
  size_t arena_bytes() const { return arena_bytes_; }
  size_t unplanned_bytes() const { return unplanned_bytes_; }
  size_t persistent_bytes() const;
  double estimated_macs() const { return estimated_macs_; }
  ThreadPool& pool() { return *pool_; }
  void SetProfiling(bool enabled);
  const std::vector<double>& node_time_us() const { return node_time_us_; }
  void ResetProfile() { std::fill(node_time_us_.begin(), node_time_us_.end(), 0.0); }

 private:
  friend class NodeContext;
  Status ReadTensors();
  Status ReadNodes(const OpResolver& resolver);
  Status PrepareNode(int node_index);
  Status FoldNode(int node_index);
  bool CanFold(int node_index) const;
  // Prepares and folds every node whose inputs are all constant (in plan
  // order, so chains fold too), counting their work.
  Status FoldConstants();
  Status ResetVariableTensors(bool with_initial_values = false);
  Status PlanMemory();
  // Residual ADDs (and the channel PADs feeding them) into the producing
  // kernel (Kernel::FuseResidualAdd). Between two FuseClamps passes: the
  // first gives a producer its own RELU (a depthwise + RELU then takes the
  // ADD), the second adds a RELU after the ADD to the same kernel.
  void FuseResidualAdds();
  // Per tensor: the node writing it (-1: none) and how many nodes (and graph
  // outputs) read it, over the nodes of the plan that still run.
  struct TensorUses {
    std::vector<int> writer, readers;
  };
  TensorUses ComputeTensorUses() const;
  // Tensor t is constant now or will be once folded (WillFold's result:
  // weights behind a DEQUANTIZE fold after the fusion passes).
  bool ConstantOnceFolded(int t, const TensorUses& uses, const std::vector<uint8_t>& will_fold) const;
  bool IsFloatTensor(int t) const;  // t >= 0 and float32
  void FuseClamps();
  // A 1x1, stride-1 float CONV_2D whose output only a DEPTHWISE_CONV_2D reads,
  // into the depthwise kernel (PointwiseInputFusable, src/core/ops/fusion.h),
  // where the expanded tensor is large enough to leave the cache between the
  // two. After FuseClamps (the convolution's clamp comes along) and before
  // FuseHardSwishes.
  void FusePointwiseInputs();
  // HARD_SWISH after a kernel that takes it (Kernel::FuseHardSwish); before
  // FusePointwiseOutputs, because the kernel applies it after every other
  // fused operation of its own output.
  void FuseHardSwishes();
  // A 1x1, stride-1 float CONV_2D that alone reads a 3x3 DEPTHWISE_CONV_2D's
  // output, into the depthwise kernel (PointwiseOutputFusable,
  // src/core/ops/fusion.h), where the depthwise output is large enough to
  // leave a core's L1 and L2 between the two. Last: the convolution comes
  // with everything fused into it (clamps, its ADD).
  void FusePointwiseOutputs();
  // Node `index` (one input, one output, checked by the caller) runs inside
  // the kernel writing its input when that tensor has no other reader and
  // `offer` (the kernel's Fuse* call) accepts: the producer then writes the
  // node's output and the node is skipped. Returns the producer, or -1.
  int AbsorbIntoProducer(int index, TensorUses& uses, const std::function<bool(Kernel&)>& offer);
  static constexpr uint8_t kFoldedNode = 1;
  static constexpr uint8_t kFusedNode = 2;
  static constexpr uint8_t kDelegatedNode = 3;
  // Folded anew at every AllocateTensors: its value derives from the shape of
  // an activation (SHAPE of a graph input, and what folds from it), which a
  // resized input changes.
  static constexpr uint8_t kRefoldedNode = 4;
  // A SHAPE node: its output depends on its input's shape only, known once
  // the nodes before it are prepared, so it folds even over an activation.
  bool IsShapeOnly(int node_index) const;
  // Per node: its inputs are constant once earlier nodes are folded (what
  // AllocateTensors will fold), computed without running anything.
  std::vector<uint8_t> WillFold() const;
  Status Fail(const std::string& message) const;
  // ResourceExhausted when `bytes` for `what` exceed limits_.max_tensor_bytes.
  Status CheckTensorBytes(const Tensor& tensor, const std::string& what) const;
  // Adds the node's estimated work to estimated_macs_ against limits_.max_macs.
  Status AddWork(const Node& node);

  const Model& model_;
  const int index_;
  ThreadPool* pool_;
  GraphTable* graphs_;
  std::vector<Tensor> tensors_;
  std::vector<Node> nodes_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
  std::vector<int> inputs_, outputs_;
  std::vector<uint8_t> folded_;  // per node: 0 runs; kFoldedNode, kFusedNode, kDelegatedNode, kRefoldedNode are skipped
  std::vector<int> execution_plan_;
  size_t model_node_count_ = 0;  // nodes_[0, model_node_count_) are the model's; partition nodes follow
  // Per node: the clamp FuseClamps fused into its kernel ([-inf, inf]: none).
  std::vector<ActivationRange> fused_clamp_;
  // Per node: the CONV_2D FusePointwiseInputs fused into it (-1: none).
  std::vector<int> fused_pointwise_;
  // Per node: the CONV_2D FusePointwiseOutputs fused into it (-1: none).
  std::vector<int> fused_projection_;
  bool clamps_fused_ = false;  // FuseClamps ran (first AllocateTensors)
  std::vector<uint8_t> output_set_;      // per tensor: shape set by its producer in this Prepare pass
  // Dynamic shapes: per node, prepared again at every Invoke (its output
  // shapes depend on values the graph computes, or it reads such a tensor).
  std::vector<uint8_t> deferred_;
  bool preparing_at_invoke_ = false;  // input values are ready (NodeContext::InputValuesReady)
  bool defer_requested_ = false;      // the kernel being prepared called NeedInputValues
  std::vector<size_t> dynamic_capacity_;                    // per tensor: bytes its kDynamic storage holds
  std::vector<std::shared_ptr<uint8_t>> deferred_scratch_;  // per node, for deferred nodes
  std::vector<size_t> deferred_scratch_capacity_;
  // Gives a kDynamic tensor storage for its current shape.
  Status SizeDynamicTensor(int tensor_index);
  std::vector<size_t> scratch_bytes_;   // per node
  std::vector<void*> scratch_ptr_;      // per node
  std::shared_ptr<uint8_t> arena_;
  // Delegates that took partitions of this subgraph, in the order applied:
  // asked for the arena's memory (Delegate::AllocateTensorArena).
  std::vector<Delegate*> arena_providers_;
  size_t arena_capacity_ = 0;
  size_t arena_bytes_ = 0;
  size_t unplanned_bytes_ = 0;
  bool allocated_ = false;
  const bool preserve_all_tensors_;
  const ResourceLimits limits_;
  double estimated_macs_ = 0.0;
  double folded_macs_ = 0.0;  // work of the nodes FoldConstants folded before the first AllocateTensors
  bool profiling_ = false;
  std::vector<double> node_time_us_;
};

}  // namespace relite
