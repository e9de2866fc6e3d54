// Graph partitioning for delegates, on an abstract execution plan: which
// supported nodes form one partition, which partitions the options keep, and
// the execution order once every kept partition is one node.
#pragma once

#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/status.h"

namespace relite {

// One entry of the execution plan as the partitioner sees it.
struct PlanEntry {
  std::vector<int> inputs;   // tensor indices (-1 ignored)
  std::vector<int> outputs;
  bool supported = false;
  double cost = 1.0;
};

// Maximal connected groups of supported entries (connected through tensors
// one writes and another reads) such that replacing each group by one node
// leaves the graph acyclic: a group never has a path leaving it and coming
// back through another entry. Greedy union in plan order; a union is refused
// when it would close a cycle. Each group lists plan positions in increasing
// order; groups are ordered by their first position.
std::vector<std::vector<int>> FormPartitions(const std::vector<PlanEntry>& plan);

struct PartitionSelection {
  std::vector<bool> kept;            // per group
  std::vector<std::string> reason;   // per group: why it was dropped ("" when kept)
};
// Applies min_nodes_per_partition, then keeps the max_delegated_partitions
// groups with the largest total cost (ties: more nodes, then earlier).
PartitionSelection SelectPartitions(const std::vector<PlanEntry>& plan, const std::vector<std::vector<int>>& groups,
                                    const DelegateOptions& options);

// The execution order after contraction. group_of[i] is the group of plan
// position i, or -1 when it stays a node of its own. Returns units in a valid
// topological order, as close to the original order as possible: a value
// v >= 0 is plan position v, a value v < 0 is group -(v + 1). An error when
// the contraction is cyclic (a bug in the caller's groups).
StatusOr<std::vector<int>> ContractedOrder(const std::vector<PlanEntry>& plan, const std::vector<int>& group_of,
                                           int num_groups);

}  // namespace relite
