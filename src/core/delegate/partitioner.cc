#include "src/core/delegate/partitioner.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <unordered_map>

#include "fmt/format.h"

namespace relite {
namespace {

// successors[i]: plan positions that read a tensor position i writes, and the
// writer of a (variable) tensor that position i reads before it is written:
// that read must see the old value, so it stays before the write (sorted,
// unique; the plan order is a valid order of this graph).
std::vector<std::vector<int>> Successors(const std::vector<PlanEntry>& plan) {
  std::unordered_map<int, int> producer;
  for (size_t i = 0; i < plan.size(); ++i) {
    for (int t : plan[i].outputs) {
      if (t >= 0) producer[t] = static_cast<int>(i);
    }
  }
  std::vector<std::vector<int>> succ(plan.size());
  for (size_t j = 0; j < plan.size(); ++j) {
    for (int t : plan[j].inputs) {
      if (t < 0) continue;
      auto it = producer.find(t);
      if (it == producer.end() || it->second == static_cast<int>(j)) continue;
      if (it->second < static_cast<int>(j)) {
        succ[static_cast<size_t>(it->second)].push_back(static_cast<int>(j));
      } else {
        succ[j].push_back(it->second);
      }
    }
  }
  for (auto& s : succ) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return succ;
}

class Groups {
 public:
  explicit Groups(size_t n) : parent_(n), members_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
    for (size_t i = 0; i < n; ++i) members_[i] = {static_cast<int>(i)};
  }
  int Find(int x) {
    while (parent_[static_cast<size_t>(x)] != x) {
      parent_[static_cast<size_t>(x)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(x)])];
      x = parent_[static_cast<size_t>(x)];
    }
    return x;
  }
  void Union(int a, int b) {
    a = Find(a), b = Find(b);
    if (a == b) return;
    if (members_[static_cast<size_t>(a)].size() < members_[static_cast<size_t>(b)].size()) std::swap(a, b);
    parent_[static_cast<size_t>(b)] = a;
    auto& ma = members_[static_cast<size_t>(a)];
    auto& mb = members_[static_cast<size_t>(b)];
    ma.insert(ma.end(), mb.begin(), mb.end());
    mb.clear();
  }
  const std::vector<int>& Members(int root) const { return members_[static_cast<size_t>(root)]; }

 private:
  std::vector<int> parent_;
  std::vector<std::vector<int>> members_;
};

// Would merging groups a and b close a cycle in the contracted graph? Only a
// path that leaves a∪b and comes back can: search from a∪b's successors
// outside it, moving through whole groups (a group is one node once merged).
bool MergeMakesCycle(Groups& groups, int a, int b, const std::vector<std::vector<int>>& succ) {
  const size_t n = succ.size();
  std::vector<uint8_t> inside(n, 0), seen(n, 0);
  for (int r : {a, b}) {
    for (int m : groups.Members(r)) inside[static_cast<size_t>(m)] = 1;
  }
  std::vector<int> stack;
  for (int r : {a, b}) {
    for (int m : groups.Members(r)) {
      for (int s : succ[static_cast<size_t>(m)]) {
        if (!inside[static_cast<size_t>(s)] && !seen[static_cast<size_t>(s)]) {
          seen[static_cast<size_t>(s)] = 1;
          stack.push_back(s);
        }
      }
    }
  }
  while (!stack.empty()) {
    const int x = stack.back();
    stack.pop_back();
    auto visit = [&](int y) {
      if (seen[static_cast<size_t>(y)]) return;
      seen[static_cast<size_t>(y)] = 1;
      stack.push_back(y);
    };
    for (int s : succ[static_cast<size_t>(x)]) {
      if (inside[static_cast<size_t>(s)]) return true;
      visit(s);
    }
    for (int m : groups.Members(groups.Find(x))) visit(m);  // the rest of x's group
  }
  return false;
}

}  // namespace

std::vector<std::vector<int>> FormPartitions(const std::vector<PlanEntry>& plan) {
  const auto succ = Successors(plan);
  Groups groups(plan.size());
  // Entry j joins the group of each supported producer of its inputs, in plan
  // order, unless that would create a cycle.
  for (size_t p = 0; p < plan.size(); ++p) {
    if (!plan[p].supported) continue;
    for (int j : succ[p]) {
      if (!plan[static_cast<size_t>(j)].supported) continue;
      const int a = groups.Find(static_cast<int>(p)), b = groups.Find(j);
      if (a == b || MergeMakesCycle(groups, a, b, succ)) continue;
      groups.Union(a, b);
    }
  }
  std::vector<std::vector<int>> out;
  std::vector<uint8_t> done(plan.size(), 0);
  for (size_t i = 0; i < plan.size(); ++i) {
    if (!plan[i].supported) continue;
    const int root = groups.Find(static_cast<int>(i));
    if (done[static_cast<size_t>(root)]) continue;
    done[static_cast<size_t>(root)] = 1;
    std::vector<int> members = groups.Members(root);
    std::sort(members.begin(), members.end());
    out.push_back(std::move(members));
  }
  return out;
}

PartitionSelection SelectPartitions(const std::vector<PlanEntry>& plan, const std::vector<std::vector<int>>& groups,
                                    const DelegateOptions& options) {
  PartitionSelection sel;
  sel.kept.assign(groups.size(), true);
  sel.reason.assign(groups.size(), std::string());
  const int min_nodes = std::max(1, options.min_nodes_per_partition);
  std::vector<double> cost(groups.size(), 0.0);
  std::vector<size_t> candidates;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int i : groups[g]) cost[g] += plan[static_cast<size_t>(i)].cost;
    if (static_cast<int>(groups[g].size()) < min_nodes) {
      sel.kept[g] = false;
      sel.reason[g] = fmt::format("its partition has {} node(s), fewer than min_nodes_per_partition ({})",
                                  groups[g].size(), min_nodes);
    } else {
      candidates.push_back(g);
    }
  }
  const int max_parts = options.max_delegated_partitions;
  if (max_parts > 0 && static_cast<int>(candidates.size()) > max_parts) {
    std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
      if (cost[a] != cost[b]) return cost[a] > cost[b];
      return groups[a].size() > groups[b].size();
    });
    for (size_t k = static_cast<size_t>(max_parts); k < candidates.size(); ++k) {
      const size_t g = candidates[k];
      sel.kept[g] = false;
      sel.reason[g] = fmt::format(
          "max_delegated_partitions ({}) kept partitions of larger estimated benefit (this one: {:g})", max_parts,
          cost[g]);
    }
  }
  return sel;
}

StatusOr<std::vector<int>> ContractedOrder(const std::vector<PlanEntry>& plan, const std::vector<int>& group_of,
                                           int num_groups) {
  const auto succ = Successors(plan);
  const int n = static_cast<int>(plan.size());
  // Unit ids: groups first (0..num_groups-1), then singletons num_groups + position.
  auto unit_of = [&](int i) { return group_of[static_cast<size_t>(i)] >= 0 ? group_of[static_cast<size_t>(i)] : num_groups + i; };
  const int units = num_groups + n;
  std::vector<int> first(static_cast<size_t>(units), -1), indegree(static_cast<size_t>(units), 0);
  std::vector<uint8_t> present(static_cast<size_t>(units), 0);
  std::vector<std::vector<int>> edges(static_cast<size_t>(units));
  for (int i = 0; i < n; ++i) {
    const int u = unit_of(i);
    present[static_cast<size_t>(u)] = 1;
    if (first[static_cast<size_t>(u)] < 0) first[static_cast<size_t>(u)] = i;
    for (int j : succ[static_cast<size_t>(i)]) {
      const int v = unit_of(j);
      if (v != u) edges[static_cast<size_t>(u)].push_back(v);
    }
  }
  for (auto& e : edges) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    for (int v : e) ++indegree[static_cast<size_t>(v)];
  }
  using Item = std::pair<int, int>;  // (first position, unit)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  int total = 0;
  for (int u = 0; u < units; ++u) {
    if (!present[static_cast<size_t>(u)]) continue;
    ++total;
    if (indegree[static_cast<size_t>(u)] == 0) ready.push({first[static_cast<size_t>(u)], u});
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int u = ready.top().second;
    ready.pop();
    order.push_back(u < num_groups ? -(u + 1) : u - num_groups);
    for (int v : edges[static_cast<size_t>(u)]) {
      if (--indegree[static_cast<size_t>(v)] == 0) ready.push({first[static_cast<size_t>(v)], v});
    }
  }
  if (static_cast<int>(order.size()) != total) {
    return InternalError("delegate partitioning produced a cyclic graph (a partition has a path leaving and re-entering it)");
  }
  return order;
}

}  // namespace relite
