// A delegate for tests: supports a configurable set of ops (by op name, e.g.
// "ADD" or a custom op's name) and runs each partition by executing the CPU
// kernels of its nodes inside the partition kernel, with its own memory for
// the partition's internal tensors. Outputs therefore equal the undelegated
// run exactly, while the runtime's partitioning, boundary tensors, memory
// planning and report are exercised for real.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/op_resolver.h"

namespace relite::testing {

class TestDelegate : public Delegate {
 public:
  // `resolver` must outlive the delegate and its kernels.
  TestDelegate(const OpResolver& resolver, std::set<std::string> ops, std::string name = "test",
               std::string display_name = "TEST");

  std::string name() const override { return name_; }
  std::string display_name() const override { return display_name_; }
  NodeSupport CheckNode(const DelegateGraph& graph, int node_index) override;
  StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(const DelegateGraph& graph,
                                                         DelegatePartition& partition) override;

  // Estimated benefit per node index (default 1 per node).
  void SetNodeCost(int node_index, double cost) { cost_[node_index] = cost; }
  // CreatePartitionKernel fails for the partition with this id (-1: never).
  void FailPartition(int id) { fail_partition_ = id; }

  // What CreatePartitionKernel was given, in call order.
  struct Seen {
    std::vector<int> nodes, inputs, outputs;
  };
  const std::vector<Seen>& partitions() const { return seen_; }
  // Partition kernels' Eval calls so far (all partitions of this delegate).
  int evals() const { return evals_; }

 private:
  const OpResolver& resolver_;
  std::set<std::string> ops_;
  std::string name_, display_name_;
  std::map<int, double> cost_;
  int fail_partition_ = -1;
  std::vector<Seen> seen_;
  int evals_ = 0;
};

}  // namespace relite::testing
