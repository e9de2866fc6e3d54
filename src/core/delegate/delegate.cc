#include "relite/delegate.h"

#include <set>
#include <tuple>

#include "fmt/format.h"

namespace relite {

NodeSupport NodeSupport::Supported(std::unique_ptr<NodePlan> plan, double cost) {
  NodeSupport s;
  s.plan = std::move(plan);
  s.cost = cost;
  if (!s.plan) s.reason = "the delegate accepted the node without a plan";
  return s;
}

NodeSupport NodeSupport::Unsupported(std::string reason) {
  NodeSupport s;
  s.reason = reason.empty() ? std::string("no reason given") : std::move(reason);
  return s;
}

std::string DelegationReport::Summary() const {
  std::string rest = "the rest on the CPU";
  if (num_other_delegates > 0) rest = fmt::format("{} on earlier delegates, the rest on the CPU", num_other_delegates);
  return fmt::format("{} of {} operations will run on the {} in {} partition(s); {}.", num_delegated, num_operations,
                     display_name, num_partitions, rest);
}

std::vector<std::string> DelegationReport::Lines() const {
  std::vector<std::string> lines;
  std::set<std::tuple<int32_t, std::string, int, std::string>> seen;
  for (const NodePlacement& p : nodes) {
    if (p.where != NodePlacement::Where::kCpu || !p.op_unsupported) continue;
    if (!seen.insert({p.builtin_code, p.op_name, p.version, p.reason}).second) continue;
    // Names and reasons carry bytes from the model file: escaped for the terminal.
    lines.push_back(fmt::format("WARNING: op code #{} ({} v{}) cannot be handled by the {} delegate: {}", p.builtin_code,
                                EscapeUntrusted(p.op_name), p.version, display_name, EscapeUntrusted(p.reason)));
  }
  lines.push_back(Summary());
  return lines;
}

std::string DelegationReport::ToString() const {
  std::string out;
  for (const std::string& line : Lines()) out += line + "\n";
  return out;
}

std::string DelegationReport::PlacementName(const NodePlacement& p, const std::string& display_name) {
  switch (p.where) {
    case NodePlacement::Where::kCpu: return "CPU";
    case NodePlacement::Where::kFolded: return "CPU (folded at allocation)";
    case NodePlacement::Where::kDelegate: return fmt::format("{} partition {}", display_name, p.partition);
    case NodePlacement::Where::kOtherDelegate: return "earlier delegate";
  }
  return "CPU";
}

}  // namespace relite
