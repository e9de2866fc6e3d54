// The delegate partitioner on abstract plans: grouping, cycle avoidance,
// option handling and the order after contraction.
#include "src/core/delegate/partitioner.h"

#include <gtest/gtest.h>

namespace relite {
namespace {

using Groups = std::vector<std::vector<int>>;

PlanEntry E(std::vector<int> in, std::vector<int> out, bool supported, double cost = 1.0) {
  PlanEntry e;
  e.inputs = std::move(in);
  e.outputs = std::move(out);
  e.supported = supported;
  e.cost = cost;
  return e;
}

// Is `order` (units) a valid topological order of the contracted plan?
bool ValidOrder(const std::vector<PlanEntry>& plan, const std::vector<int>& group_of, const std::vector<int>& order) {
  std::vector<int> pos_of_entry(plan.size(), -1);
  for (size_t k = 0; k < order.size(); ++k) {
    for (size_t i = 0; i < plan.size(); ++i) {
      const bool here = order[k] >= 0 ? static_cast<int>(i) == order[k] : group_of[i] == -order[k] - 1;
      if (here) pos_of_entry[i] = static_cast<int>(k);
    }
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    if (pos_of_entry[i] < 0) return false;
    for (size_t j = 0; j < plan.size(); ++j) {
      for (int t : plan[j].inputs) {
        for (int o : plan[i].outputs) {
          if (t == o && pos_of_entry[i] > pos_of_entry[j]) return false;
        }
      }
    }
  }
  return true;
}

TEST(Partitioner, ChainOfSupportedNodesIsOneGroup) {
  const std::vector<PlanEntry> plan = {E({0}, {1}, true), E({1}, {2}, true), E({2}, {3}, true)};
  EXPECT_EQ(FormPartitions(plan), (Groups{{0, 1, 2}}));
}

TEST(Partitioner, UnsupportedNodeSplitsTheChain) {
  const std::vector<PlanEntry> plan = {E({0}, {1}, true), E({1}, {2}, true), E({2}, {3}, false), E({3}, {4}, true)};
  EXPECT_EQ(FormPartitions(plan), (Groups{{0, 1}, {3}}));
}

TEST(Partitioner, DiamondThroughAnUnsupportedNodeIsNotMergedIntoACycle) {
  // 0 -> 1 (unsupported) -> 3 ; 0 -> 2 -> 3. Grouping {0, 2, 3} would need
  // node 1 both after and before the group.
  const std::vector<PlanEntry> plan = {E({0}, {1}, true), E({1}, {2}, false), E({1}, {3}, true),
                                       E({2, 3}, {4}, true)};
  const Groups groups = FormPartitions(plan);
  ASSERT_EQ(groups, (Groups{{0, 2}, {3}}));
  std::vector<int> group_of = {0, -1, 0, 1};
  auto order = ContractedOrder(plan, group_of, 2);
  ASSERT_TRUE(order.ok()) << order.status().ToString();
  EXPECT_EQ(*order, (std::vector<int>{-1, 1, -2}));
  EXPECT_TRUE(ValidOrder(plan, group_of, *order));
  // A hand-made cyclic grouping is rejected, not run.
  EXPECT_FALSE(ContractedOrder(plan, {0, -1, 0, 0}, 1).ok());
}

TEST(Partitioner, IndirectCycleThroughAnotherGroupIsAvoided) {
  // 0 -> 1(u) -> 2 -> 3 ; 0 -> 3 ; 2 supported too: {0} and {2,3} may not join
  // because 0 -> 1 -> 2 leaves and re-enters.
  const std::vector<PlanEntry> plan = {E({0}, {1}, true), E({1}, {2}, false), E({2}, {3}, true),
                                       E({3, 1}, {4}, true)};
  const Groups groups = FormPartitions(plan);
  std::vector<int> group_of(plan.size(), -1);
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int i : groups[g]) group_of[static_cast<size_t>(i)] = static_cast<int>(g);
  }
  EXPECT_EQ(groups, (Groups{{0}, {2, 3}}));
  auto order = ContractedOrder(plan, group_of, static_cast<int>(groups.size()));
  ASSERT_TRUE(order.ok());
  EXPECT_TRUE(ValidOrder(plan, group_of, *order));
}

TEST(Partitioner, IndependentBranchesAreSeparateGroupsAndJoinThroughASupportedNode) {
  // Two chains from the input, joined by a supported node: one group.
  const std::vector<PlanEntry> joined = {E({0}, {1}, true), E({0}, {2}, true), E({1, 2}, {3}, true)};
  EXPECT_EQ(FormPartitions(joined), (Groups{{0, 1, 2}}));
  // Not joined: two connected components, two groups.
  const std::vector<PlanEntry> apart = {E({0}, {1}, true), E({0}, {2}, true)};
  EXPECT_EQ(FormPartitions(apart), (Groups{{0}, {1}}));
}

TEST(Partitioner, SelectionByBenefitAndSize) {
  // Groups: {0} cost 100, {2,3} cost 2, {5,6,7} cost 3.
  const std::vector<PlanEntry> plan = {E({0}, {1}, true, 100), E({1}, {2}, false), E({2}, {3}, true),
                                       E({3}, {4}, true),      E({4}, {5}, false), E({5}, {6}, true),
                                       E({6}, {7}, true),      E({7}, {8}, true)};
  const Groups groups = FormPartitions(plan);
  ASSERT_EQ(groups, (Groups{{0}, {2, 3}, {5, 6, 7}}));
  DelegateOptions one;
  one.max_delegated_partitions = 1;
  auto sel = SelectPartitions(plan, groups, one);
  EXPECT_EQ(sel.kept, (std::vector<bool>{true, false, false})) << "the costliest, not the largest";
  EXPECT_NE(sel.reason[2].find("max_delegated_partitions (1)"), std::string::npos) << sel.reason[2];
  DelegateOptions two_nodes;
  two_nodes.min_nodes_per_partition = 2;
  two_nodes.max_delegated_partitions = 1;
  sel = SelectPartitions(plan, groups, two_nodes);
  EXPECT_EQ(sel.kept, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(sel.reason[0], "its partition has 1 node(s), fewer than min_nodes_per_partition (2)");
  DelegateOptions all;
  sel = SelectPartitions(plan, groups, all);
  EXPECT_EQ(sel.kept, (std::vector<bool>{true, true, true}));
}

TEST(Partitioner, ContractionKeepsOriginalOrderWhereValid) {
  // Group {0, 2}; node 1 (unsupported) is independent: it may run before or after.
  const std::vector<PlanEntry> plan = {E({0}, {1}, true), E({9}, {10}, false), E({1}, {2}, true),
                                       E({2, 10}, {3}, false)};
  const Groups groups = FormPartitions(plan);
  ASSERT_EQ(groups, (Groups{{0, 2}}));
  auto order = ContractedOrder(plan, {0, -1, 0, -1}, 1);
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order, (std::vector<int>{-1, 1, 3}));
}

}  // namespace
}  // namespace relite
