// The delegate API: hand the parts of a graph an accelerator supports to it,
// run the rest on the CPU kernels.
//
// A delegate answers, per node, "supported" with a plan, or "not supported"
// with a reason. The runtime partitions the execution plan into maximal
// connected subsets of supported nodes that keep a valid topological order,
// applies the delegate's options, and asks the delegate for one Kernel per
// subset (a partition), built from the plans its own check produced. The
// partition kernel is then an ordinary node of the execution plan whose
// inputs/outputs are the partition's boundary tensors.
//
//   MyDelegate delegate(options);
//   auto interp = InterpreterBuilder(*model, resolver).AddDelegate(&delegate).Build();
//   // or, before the first AllocateTensors:
//   Status s = (*interp)->ModifyGraphWithDelegate(&delegate);   // all or nothing
//   for (const std::string& line : (*interp)->delegation_reports().back().Lines()) ...
//
// Order of passes (Subgraph): read nodes and create every CPU kernel; fold
// the nodes whose inputs are all constant (computed once on the CPU, when the
// first delegate is applied or else at the first allocation; never offered
// to a delegate; their outputs are constants to it, with the shapes and data
// the CPU kernels computed); apply delegates in the order given, each seeing the nodes the previous ones
// left (delegate nodes are never offered); at the first AllocateTensors, fuse
// RELU-style clamps into their CPU producers (a partition kernel is offered
// the fusion like any kernel); plan memory over the final execution plan.
#pragma once

#include "relite/export.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "relite/model.h"
#include "relite/status.h"
#include "relite/tensor.h"

namespace relite {

// Read-only view of a subgraph given to a delegate: nodes, tensors, model.
class RELITE_API DelegateGraph {
 public:
  virtual ~DelegateGraph() = default;
  virtual const Model& model() const = 0;
  virtual int num_tensors() const = 0;
  // Types, shapes, quantization: as the model declares them, except for
  // constants (weights, and folded outputs: computed before the delegate is
  // asked), whose shape and bytes are what verification and folding
  // established. Activation shapes are the file's word only: a delegate must
  // check them against its inputs as a kernel's Prepare would.
  virtual const Tensor& tensor(int tensor_index) const = 0;
  // True for weights and for outputs of folded nodes; their data may be read
  // during CheckNode and in the partition kernel.
  virtual bool is_constant(int tensor_index) const = 0;
  virtual bool is_graph_input(int tensor_index) const = 0;
  virtual bool is_graph_output(int tensor_index) const = 0;
  virtual int num_nodes() const = 0;
  virtual const Node& node(int node_index) const = 0;
  // The interpreter's thread count: what a delegate's own CPU threads
  // follow, when it builds its partitions as when they run.
  virtual int num_threads() const { return 1; }
};

// What a delegate keeps from the support check of one node to build it later
// (parsed options, chosen kernel variant, converted weights...). Opaque to the
// runtime; handed back to CreatePartitionKernel.
class RELITE_API NodePlan {
 public:
  virtual ~NodePlan() = default;
};

// The answer of Delegate::CheckNode.
struct RELITE_API NodeSupport {
  // Non-null exactly when the node is supported.
  std::unique_ptr<NodePlan> plan;
  // Why not, when unsupported ("fused activation TANH is not supported").
  std::string reason;
  // Estimated benefit of running the node on the delegate (MACs, bytes moved:
  // any unit, consistently per delegate); partitions are ranked by their sum.
  double cost = 1.0;
  // What the delegate notes about a node it takes, for reports ("fake quant
  // uint8 scale 0.0235 zero point 0"); may be empty.
  std::string detail;

  bool supported() const { return plan != nullptr; }
  static NodeSupport Supported(std::unique_ptr<NodePlan> plan, double cost = 1.0);
  static NodeSupport Unsupported(std::string reason);
};

// One subset of nodes given to a delegate.
struct DelegatePartition {
  int id = 0;                 // 0, 1, ... in execution order
  std::vector<int> nodes;     // node indices, in a valid execution order
  // One per entry of `nodes`: the plan the delegate's CheckNode returned.
  std::vector<std::unique_ptr<NodePlan>> plans;
  // Boundary tensors: every tensor a node of the partition reads that is not
  // produced inside it (graph inputs, outputs of other nodes, constants), in
  // order of first use; and every tensor produced inside that is read outside
  // or is a graph output (all produced tensors when the interpreter preserves
  // all tensors). They become the partition node's inputs and outputs.
  // Tensors produced and consumed only inside need no CPU memory: the
  // delegate owns them.
  std::vector<int> inputs;
  std::vector<int> outputs;
};

struct DelegateOptions {
  // At most this many partitions (those with the largest estimated benefit,
  // the sum of their nodes' NodeSupport::cost); <= 0 means no limit.
  int max_delegated_partitions = 0;
  // Partitions with fewer nodes stay on the CPU.
  int min_nodes_per_partition = 1;
};

class RELITE_API Delegate {
 public:
  virtual ~Delegate() = default;
  // Short identifier ("gpu"): used for the partition nodes' names and the CLI.
  virtual std::string name() const = 0;
  // How reports name it ("GPU"): "... will run on the GPU ...".
  virtual std::string display_name() const { return name(); }
  const DelegateOptions& options() const { return options_; }
  DelegateOptions& mutable_options() { return options_; }

  // Whether the delegate can run node `node_index`. A supported node must be
  // buildable: CreatePartitionKernel consumes the plan and must not reject a
  // node its check accepted (it may still fail for reasons outside the node,
  // e.g. out of device memory; the interpreter then stays unmodified).
  virtual NodeSupport CheckNode(const DelegateGraph& graph, int node_index) = 0;

  // Asked once per graph before any CheckNode: a delegate that would bring
  // this graph no gain as a whole (its layers too small for the device, say)
  // returns why; every node then stays on the CPU with that reason and
  // CheckNode is not called. The default takes every graph.
  virtual Status CheckGraph(const DelegateGraph& graph) {
    (void)graph;
    return Status::Ok();
  }

  // Memory for the tensor arena of a subgraph this delegate took partitions
  // of (the CPU memory of every activation, the partitions' boundary tensors
  // among them), or nullptr for ordinary memory. A GPU delegate returns
  // page-locked host memory, which its device reads and writes by DMA, so a
  // partition needs no staging copy of its inputs and outputs. Asked at each
  // (re)allocation of the arena, by the first delegate applied that returns
  // memory; aligned to at least 64 bytes; it may outlive the delegate (its
  // deleter must not need it).
  virtual std::shared_ptr<uint8_t> AllocateTensorArena(size_t bytes) {
    (void)bytes;
    return nullptr;
  }
  // Builds the kernel that runs `partition`. Its KernelContext's node() is the
  // partition node: input(i) is partition.inputs[i], output(i) is
  // partition.outputs[i]. Prepare must set every output's shape.
  virtual StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(const DelegateGraph& graph,
                                                                 DelegatePartition& partition) = 0;

 private:
  DelegateOptions options_;
};

// Where one node of the graph runs after a delegate was applied.
struct NodePlacement {
  enum class Where : uint8_t {
    kCpu,            // a CPU kernel at every Invoke
    kFolded,         // computed once on the CPU at allocation (constant inputs)
    kDelegate,       // in a partition of this delegate
    kOtherDelegate,  // taken earlier by another delegate
  };
  int node = -1;
  int32_t builtin_code = 0;
  int version = 1;
  std::string op_name;
  Where where = Where::kCpu;
  int partition = -1;      // kDelegate: the partition id
  std::string reason;      // kCpu: why the delegate did not take it
  std::string detail;      // kDelegate: what the delegate noted (NodeSupport::detail)
  bool op_unsupported = false;  // kCpu: the delegate's check said no (vs. dropped by options)
};

// What applying one delegate did, for people and programs.
struct RELITE_API DelegationReport {
  std::string delegate_name;
  std::string display_name;
  std::vector<NodePlacement> nodes;  // one per node of the model, by node index
  int num_partitions = 0;
  int num_delegated = 0;   // nodes in this delegate's partitions
  int num_operations = 0;  // nodes that run at Invoke (not folded)
  int num_other_delegates = 0;  // nodes earlier delegates took

  // "WARNING: op code #42 (NAME v1) cannot be handled by the GPU delegate: <reason>",
  // once per distinct (op, version, reason), in node order; then
  // "N of M operations will run on the GPU in P partition(s); the rest on the CPU."
  std::vector<std::string> Lines() const;
  std::string Summary() const;
  // Lines() joined with newlines (each line terminated).
  std::string ToString() const;
  // "CPU", "GPU partition 0", "CPU (folded at allocation)", "other delegate".
  static std::string PlacementName(const NodePlacement& p, const std::string& display_name);
};

}  // namespace relite
