// The kernel that runs one GPU partition: boundary conversions, the nodes'
// launches on one in-order queue, one wait at the end.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/kernel.h"
#include "src/delegates/gpu/backend.h"
#include "src/delegates/gpu/cache/kernel_cache.h"
#include "src/delegates/gpu/gpu_fusion.h"
#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {


// The on-disk cache entry of one model, shared by that model's partitions:
// loaded once, written again whenever a partition added to it.
struct ModelCache {
  const KernelCache* cache = nullptr;
  CacheKey key;
  CacheEntry entry;
};

// What a partition reports to its delegate while it is built.
struct PartitionEnv {
  std::shared_ptr<ModelCache> cache;                      // null: no cache
  std::function<void(const std::string&)> warn;           // once-per-message warnings
  std::function<void(int done, int total)> progress;      // while launches are tuned
  std::shared_ptr<double> upload_ms;                      // weight upload time, summed
  // The launches per Invoke the delegate counted for its statistics (< 0:
  // none); the build checks that it queues exactly these many.
  int expected_launches = -1;
  // Partition outputs whose GPU bytes another tensor holds (FoldAliasNodes):
  // output -> that tensor, converted or copied at the boundary in its place.
  std::map<int, int> output_sources;
};

StatusOr<std::unique_ptr<Kernel>> CreateGpuPartitionKernel(std::shared_ptr<Backend> backend, const DelegateGraph& graph,
                                                           const DelegatePartition& partition,
                                                           std::vector<PartitionNode> nodes, PartitionEnv env = {});

}  // namespace relite::gpu
