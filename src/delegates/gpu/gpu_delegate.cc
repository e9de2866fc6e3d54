#include "relite/gpu_delegate.h"

#include <set>

#include <fmt/format.h>

#include "src/delegates/gpu/cl/cl_backend.h"
#include "src/delegates/gpu/gpu_partition.h"
#include "src/delegates/gpu/ops/op_builder.h"

namespace relite {
namespace {

struct GpuNodePlan final : NodePlan {
  gpu::NodeProgram program;
};

class GpuDelegate final : public Delegate {
 public:
  GpuDelegate(const GpuDelegateOptions& options, std::shared_ptr<gpu::Backend> backend)
      : options_(options), backend_(std::move(backend)) {
    mutable_options().max_delegated_partitions = options.max_delegated_partitions;
    mutable_options().min_nodes_per_partition = options.min_nodes_per_partition;
  }

  std::string name() const override { return "gpu"; }
  std::string display_name() const override { return "GPU"; }
  const gpu::Backend& backend() const { return *backend_; }
  const GpuDelegateStats& stats() const { return stats_; }

  NodeSupport CheckNode(const DelegateGraph& graph, int node_index) override {
    const Node& node = graph.node(node_index);
    std::string reason;
    gpu::OpEmitter emit = gpu::FindEmitter(node, &reason);
    if (emit == nullptr) return NodeSupport::Unsupported(reason);
    gpu::OpBuilder builder(graph, node, backend_->precision());
    Status s = emit(builder);
    if (!s.ok()) return NodeSupport::Unsupported(s.message());
    auto plan = std::make_unique<GpuNodePlan>();
    plan->program = builder.Take();
    const double cost = plan->program.cost;
    return NodeSupport::Supported(std::move(plan), cost);
  }

  StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(const DelegateGraph& graph, DelegatePartition& partition) override {
    std::vector<gpu::PartitionNode> nodes;
    for (size_t i = 0; i < partition.nodes.size(); ++i) {
      auto* plan = dynamic_cast<GpuNodePlan*>(partition.plans[i].get());
      if (plan == nullptr) return InternalError("GPU delegate: a partition node has no GPU plan");
      nodes.push_back({partition.nodes[i], std::move(plan->program)});
    }
    const int adds = gpu::FuseResidualAdds(graph, partition, nodes);
    const int clamps = gpu::FuseClampNodes(graph, partition, nodes);
    int kernels = static_cast<int>(partition.outputs.size());
    std::set<int> reads;
    for (const gpu::PartitionNode& n : nodes) {
      kernels += static_cast<int>(n.program.launches.size());
      reads.insert(n.program.reads.begin(), n.program.reads.end());
    }
    for (int t : partition.inputs) kernels += (!graph.is_constant(t) && reads.count(t)) ? 1 : 0;
    auto kernel = gpu::CreateGpuPartitionKernel(backend_, graph, partition, std::move(nodes));
    if (kernel.ok()) {
      stats_.partitions += 1;
      stats_.nodes += static_cast<int>(partition.nodes.size());
      stats_.kernels += kernels;
      stats_.folded_clamps += clamps;
      stats_.folded_adds += adds;
    }
    return kernel;
  }

 private:
  GpuDelegateOptions options_;
  std::shared_ptr<gpu::Backend> backend_;
  GpuDelegateStats stats_;
};

}  // namespace

StatusOr<std::unique_ptr<Delegate>> CreateGpuDelegate(const GpuDelegateOptions& options) {
  if (options.experimental_flags & kGpuExperimentalQuantizedModels) {
    return UnimplementedError("GPU delegate: quantized-model support (kGpuExperimentalQuantizedModels) is not implemented yet");
  }
  if (options.experimental_flags & kGpuExperimentalSerialization) {
    return UnimplementedError("GPU delegate: kernel serialization (kGpuExperimentalSerialization) is not implemented yet");
  }
  if (options.experimental_flags & ~uint64_t{3}) {
    return InvalidArgumentError(fmt::format("GPU delegate: unknown experimental flags {:#x}", options.experimental_flags));
  }
  if (options.max_delegated_partitions < 0) return InvalidArgumentError("GPU delegate: max_delegated_partitions must be >= 0");
  if (options.min_nodes_per_partition < 1) return InvalidArgumentError("GPU delegate: min_nodes_per_partition must be >= 1");
  gpu::cl::ClDeviceChoice choice{options.device_index, options.device_name};
  const gpu::Precision precision = options.precision == GpuPrecision::kFp16 ? gpu::Precision::kFp16 : gpu::Precision::kFp32;
  auto backend = gpu::cl::CreateClBackend(choice, precision);
  if (!backend.ok()) return backend.status().WithContext("GPU delegate unavailable");
  return std::unique_ptr<Delegate>(std::make_unique<GpuDelegate>(options, std::shared_ptr<gpu::Backend>(std::move(*backend))));
}

StatusOr<std::vector<std::string>> ListGpuDevices() {
  RELITE_ASSIGN_OR_RETURN(std::vector<gpu::DeviceInfo> devices, gpu::cl::ListClDevices());
  std::vector<std::string> out;
  for (size_t i = 0; i < devices.size(); ++i) out.push_back(fmt::format("#{} {}", i, devices[i].Describe()));
  return out;
}

GpuDelegateStats GetGpuDelegateStats(const Delegate& delegate) {
  const auto* gpu = dynamic_cast<const GpuDelegate*>(&delegate);
  return gpu == nullptr ? GpuDelegateStats() : gpu->stats();
}

std::string GpuDelegateDevice(const Delegate& delegate) {
  const auto* gpu = dynamic_cast<const GpuDelegate*>(&delegate);
  return gpu == nullptr ? std::string() : gpu->backend().device().Describe();
}

}  // namespace relite
