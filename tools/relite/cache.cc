// relite cache DIR [--clear]: what the GPU delegate's kernel cache holds.
#include <fmt/format.h>

#include "relite/gpu_delegate.h"
#include "src/delegates/gpu/cache/kernel_cache.h"
#include "tools/relite/common.h"

namespace relite::cli {

int CacheCommand(const std::string& dir, bool clear) {
  if (clear) {
    int removed = 0;
    if (Status s = ClearGpuDelegateCache(dir, &removed); !s.ok()) return ReportError(s);
    fmt::print("removed {} cache entr{} from {}\n", removed, removed == 1 ? "y" : "ies", dir);
    return 0;
  }
  const auto files = gpu::KernelCache::List(dir);
  uint64_t total = 0;
  for (const auto& f : files) {
    fmt::print("{:>10}  {}\n", f.bytes, Safe(f.path));
    total += f.bytes;
  }
  fmt::print("{} entr{}, {} bytes (least recently used first)\n", files.size(), files.size() == 1 ? "y" : "ies", total);
  return 0;
}

}  // namespace relite::cli
