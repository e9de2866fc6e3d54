// The kernel that runs one GPU partition: boundary conversions, the nodes'
// launches on one in-order queue, one wait at the end.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/kernel.h"
#include "src/delegates/gpu/backend.h"
#include "src/delegates/gpu/cache/kernel_cache.h"
#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {

struct PartitionNode {
  int node = -1;
  NodeProgram program;
};

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
};

// Folds RELU/RELU6/RELU_N1_TO_1 nodes into the launch producing their input
// when that tensor is used by nothing else; returns the nodes folded away.
// Folds an ADD of two same-shape tensors into the launch producing one of
// them (a convolution and its residual connection) when that launch supports
// it, the folded tensor has no other use, and the other operand is ready
// before it; returns the nodes folded away.
int FuseResidualAdds(const DelegateGraph& graph, const DelegatePartition& partition, std::vector<PartitionNode>& nodes);

int FuseClampNodes(const DelegateGraph& graph, const DelegatePartition& partition, std::vector<PartitionNode>& nodes);

StatusOr<std::unique_ptr<Kernel>> CreateGpuPartitionKernel(std::shared_ptr<Backend> backend, const DelegateGraph& graph,
                                                           const DelegatePartition& partition,
                                                           std::vector<PartitionNode> nodes, PartitionEnv env = {});

}  // namespace relite::gpu
