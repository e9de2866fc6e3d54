#include "tools/relite/delegates.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace relite::cli {
namespace {

std::map<std::string, DelegateEntry>& Registry() {
  static std::map<std::string, DelegateEntry> registry;
  return registry;
}

}  // namespace

void RegisterDelegate(const std::string& name, const std::string& description, DelegateFactory factory) {
  Registry()[name] = {name, description, std::move(factory)};
}

std::vector<DelegateEntry> RegisteredDelegates() {
  std::vector<DelegateEntry> out;
  for (const auto& [name, entry] : Registry()) out.push_back(entry);
  return out;
}

StatusOr<std::unique_ptr<Delegate>> CreateDelegate(const DelegateFlags& flags) {
  auto it = Registry().find(flags.name);
  if (it == Registry().end()) {
    std::string available;
    for (const auto& [name, entry] : Registry()) available += (available.empty() ? "" : ", ") + name;
    if (available.empty()) available = "none (this build of relite has no delegates yet)";
    return NotFoundError(fmt::format("unknown delegate '{}' (available: {})", flags.name, available));
  }
  auto delegate = it->second.create(flags);
  if (!delegate.ok()) return delegate.status().WithContext(fmt::format("delegate '{}'", flags.name));
  if (*delegate == nullptr) return InternalError(fmt::format("delegate '{}': the factory returned nothing", flags.name));
  return delegate;
}

void RegisterBuiltinDelegates() {
  // One line per delegate this build ships, e.g.
  //   RegisterDelegate("gpu", "OpenCL GPU delegate (fp32/fp16)", CreateGpuDelegateFromFlags);
}

}  // namespace relite::cli
