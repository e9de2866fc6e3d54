// The subgraphs of one interpreter and what they share: control flow (IF,
// WHILE, CALL_ONCE) runs subgraphs by index, and resource variables
// (VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE) live here, keyed by
// (container, shared_name), so every subgraph sees the same values and the
// values persist across Invokes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "relite/interpreter.h"
#include "relite/kernel.h"
#include "relite/model.h"
#include "relite/op_resolver.h"

namespace relite {

class Subgraph;
class ThreadPool;

struct ResourceVariable {
  std::string name;  // "container/shared_name", for messages
  bool declared = false;  // type and shape known (an ASSIGN_VARIABLE was prepared)
  DataType type = DataType::kFloat32;
  Shape shape;
  std::vector<uint8_t> bytes;  // the value
};

class GraphTable {
 public:
  GraphTable(const Model& model, const OpResolver& resolver, ThreadPool* pool, const InterpreterOptions& options);
  ~GraphTable();

  // Subgraph 0, built by the interpreter's builder.
  Subgraph* main() { return subgraphs_[0].get(); }
  int num_subgraphs() const { return static_cast<int>(subgraphs_.size()); }
  // Builds subgraph `index` (and, through its control-flow nodes, the ones it
  // calls) on first use. `caller` names the node for errors. A subgraph that
  // is still being built when it is asked for again calls itself through
  // others: a cycle, refused.
  StatusOr<Subgraph*> Get(int index, const std::string& caller);
  Status BuildMain();
  // Subgraph `index` if it was built, else null.
  Subgraph* built(int index) { return index >= 0 && index < num_subgraphs() ? subgraphs_[static_cast<size_t>(index)].get() : nullptr; }

  // Resource variables: the handle of (container, shared_name), created on
  // first use; handles are stable for the interpreter's life.
  int32_t HandleFor(const std::string& container, const std::string& shared_name);
  ResourceVariable* Variable(int32_t handle);

  // CALL_ONCE initializers that have run, in order: Reset runs them again.
  bool InitializerRan(int subgraph) const;
  void RecordInitializer(int subgraph) { initializers_.push_back(subgraph); }
  // Every resource variable back to zeros, then the initializers again: the
  // state of a fresh interpreter.
  Status ResetResources();

 private:
  const Model& model_;
  const OpResolver& resolver_;
  ThreadPool* pool_;
  InterpreterOptions options_;
  std::vector<std::unique_ptr<Subgraph>> subgraphs_;
  std::vector<uint8_t> building_;  // per subgraph: its Build is on the stack
  std::map<std::pair<std::string, std::string>, int32_t> handles_;
  std::vector<ResourceVariable> variables_;
  std::vector<int> initializers_;
};

// The kernels the interpreter itself implements (they run subgraphs or use
// the resource table), or null when `node` is not one of them.
bool IsCoreOp(const Node& node);
StatusOr<std::unique_ptr<Kernel>> CreateCoreKernel(const Node& node, GraphTable& graphs, int subgraph_index);

}  // namespace relite
