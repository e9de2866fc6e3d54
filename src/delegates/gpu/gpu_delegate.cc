#include "relite/gpu_delegate.h"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <set>

#include <fmt/format.h>

#include "src/delegates/gpu/cache/kernel_cache.h"
#include "src/delegates/gpu/cl/cl_backend.h"
#include "src/delegates/gpu/cuda/cuda_backend.h"
#include "src/delegates/gpu/gpu_delegate_internal.h"
#include "src/delegates/gpu/gpu_partition.h"
#include "src/delegates/gpu/ops/layout.h"
#include "src/delegates/gpu/ops/op_builder.h"

namespace relite {
namespace {

struct GpuNodePlan final : NodePlan {
  gpu::NodeProgram program;
};

class GpuDelegate final : public Delegate {
 public:
  GpuDelegate(const GpuDelegateOptions& options, std::shared_ptr<gpu::Backend> backend)
      : options_(options), backend_(std::move(backend)), upload_ms_(std::make_shared<double>(0.0)) {
    mutable_options().max_delegated_partitions = options.max_delegated_partitions;
    mutable_options().min_nodes_per_partition = options.min_nodes_per_partition;
    backend_->SetTuning(options.inference_preference == GpuInferencePreference::kSustainedSpeed);
    const char* pinned = std::getenv("RELITE_GPU_PINNED_ARENA");
    pinned_arena_ = options.pinned_tensor_arena && !(pinned != nullptr && std::string(pinned) == "0");
    if (options.experimental_flags & kGpuExperimentalSerialization) {
      std::string warning;
      cache_ = gpu::KernelCache::Open(options.serialization_dir, options.serialization_max_bytes, &warning);
      if (!warning.empty()) Warn(warning);
      stats_.cache_enabled = cache_->enabled();
    }
  }

  std::string name() const override { return "gpu"; }
  std::string display_name() const override { return "GPU"; }
  const gpu::Backend& backend() const { return *backend_; }
  GpuDelegateStats stats() const {
    GpuDelegateStats s = stats_;
    const gpu::BackendTimings& t = backend_->timings();
    s.context_ms = t.context_ms;
    s.compile_ms = t.compile_ms;
    s.cache_load_ms = t.cache_load_ms;
    s.tuning_ms = t.tuning_ms;
    s.upload_ms = *upload_ms_;
    s.programs_compiled = t.programs_compiled;
    s.programs_from_cache = t.programs_from_cache;
    s.launches_tuned = t.launches_tuned;
    s.launches_tuned_cached = t.launches_tuned_cached;
    s.device_bytes = backend_->device_bytes();
    s.peak_device_bytes = backend_->peak_device_bytes();
    s.host_bytes_staged = t.staged_bytes;
    s.host_bytes_direct = t.direct_bytes;
    return s;
  }

  // Page-locked memory from the backend (CUDA), which keeps the backend (and
  // its context) alive until the interpreter gives the memory back.
  std::shared_ptr<uint8_t> AllocateTensorArena(size_t bytes) override {
    constexpr size_t kMaxPinnedArena = size_t{1} << 30;
    if (!pinned_arena_ || bytes > kMaxPinnedArena) return nullptr;
    void* p = backend_->AllocateHost(bytes);
    if (p == nullptr) return nullptr;
    return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [backend = backend_](uint8_t* q) { backend->FreeHost(q); });
  }

  NodeSupport CheckNode(const DelegateGraph& graph, int node_index) override {
    const Node& node = graph.node(node_index);
    std::string reason;
    gpu::OpEmitter emit = gpu::FindEmitter(node, &reason);
    if (emit == nullptr) return NodeSupport::Unsupported(reason);
    gpu::OpBuilder builder(graph, node, backend_->precision(),
                           (options_.experimental_flags & kGpuExperimentalQuantizedModels) != 0);
    Status s = emit(builder);
    std::string detail;
    if (s.ok()) s = builder.Finish(&detail);  // fake quants of the 8-bit outputs
    if (!s.ok()) return NodeSupport::Unsupported(s.message());
    auto plan = std::make_unique<GpuNodePlan>();
    plan->program = builder.Take();
    const double cost = plan->program.cost;
    NodeSupport support = NodeSupport::Supported(std::move(plan), cost);
    support.detail = std::move(detail);
    return support;
  }

  StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(const DelegateGraph& graph, DelegatePartition& partition) override {
    std::vector<gpu::PartitionNode> nodes;
    for (size_t i = 0; i < partition.nodes.size(); ++i) {
      auto* plan = dynamic_cast<GpuNodePlan*>(partition.plans[i].get());
      if (plan == nullptr) return InternalError("GPU delegate: a partition node has no GPU plan");
      nodes.push_back({partition.nodes[i], std::move(plan->program)});
    }
    const int adds = gpu::FuseResidualAdds(graph, partition, nodes);
    const int pads = gpu::FoldResidualPads(partition, nodes);
    const int pools = gpu::FoldResidualPools(partition, nodes);
    const int clamps = gpu::FuseClampNodes(graph, partition, nodes);
    const int unaries = gpu::FoldUnaryNodes(graph, partition, nodes);
    std::map<int, int> output_sources;
    const int reshapes = gpu::FoldAliasNodes(partition, nodes, output_sources);
    int kernels = 0;
    for (int t : partition.outputs) {  // a conversion each, unless its GPU buffer already holds the model's bytes
      const Tensor& x = graph.tensor(t);
      auto src = output_sources.find(t);
      StatusOr<gpu::GpuShape> shape = gpu::ToGpuShape(src == output_sources.end() ? x.shape : graph.tensor(src->second).shape);
      kernels += shape.ok() && gpu::GpuLayoutIsModelLayout(*shape, x.type, x.quant, backend_->precision()) ? 0 : 1;
    }
    std::set<int> reads;
    for (const gpu::PartitionNode& n : nodes) {
      kernels += static_cast<int>(n.program.launches.size());
      reads.insert(n.program.reads.begin(), n.program.reads.end());
    }
    for (int t : partition.inputs) kernels += (!graph.is_constant(t) && reads.count(t)) ? 1 : 0;
    gpu::PartitionEnv env;
    env.cache = ModelCacheFor(graph.model());
    env.warn = [this](const std::string& w) { Warn(w); };
    env.progress = options_.tuning_progress;
    env.upload_ms = upload_ms_;
    env.expected_launches = kernels;
    env.output_sources = std::move(output_sources);
    auto kernel = gpu::CreateGpuPartitionKernel(backend_, graph, partition, std::move(nodes), std::move(env));
    if (kernel.ok()) {
      stats_.partitions += 1;
      stats_.nodes += static_cast<int>(partition.nodes.size());
      stats_.kernels += kernels;
      stats_.folded_clamps += clamps;
      stats_.folded_adds += adds;
      stats_.folded_reshapes += reshapes;
      stats_.folded_pads += pads;
      stats_.folded_pools += pools;
      stats_.folded_unaries += unaries;
    }
    return kernel;
  }

 private:
  // The cache entry of `model` (its content fingerprint is the identity, so
  // two Model objects of the same file share one), loaded on first use.
  std::shared_ptr<gpu::ModelCache> ModelCacheFor(const Model& model) {
    if (cache_ == nullptr || !cache_->enabled()) return nullptr;
    const std::string fingerprint = gpu::Fingerprint(model.data(), model.size());
    auto& slot = model_caches_[fingerprint];
    if (slot == nullptr) {
      slot = std::make_shared<gpu::ModelCache>();
      slot->cache = cache_.get();
      slot->key = {options_.model_token.empty() ? fingerprint : options_.model_token, fingerprint,
                   backend_->CacheConfig()};
      bool hit = false;
      std::string warning;
      slot->entry = cache_->Load(slot->key, &hit, &warning);
      if (!warning.empty()) Warn(warning);
      ++(hit ? stats_.cache_hits : stats_.cache_misses);
    }
    return slot;
  }

  void Warn(const std::string& message) {
    if (std::find(stats_.cache_warnings.begin(), stats_.cache_warnings.end(), message) != stats_.cache_warnings.end()) return;
    stats_.cache_warnings.push_back(message);
    std::fprintf(stderr, "WARNING: %s\n", EscapeUntrusted(message).c_str());
  }

  GpuDelegateOptions options_;
  std::shared_ptr<gpu::Backend> backend_;
  bool pinned_arena_ = true;
  GpuDelegateStats stats_;
  std::unique_ptr<gpu::KernelCache> cache_;
  std::map<std::string, std::shared_ptr<gpu::ModelCache>> model_caches_;
  std::shared_ptr<double> upload_ms_;
};

}  // namespace

StatusOr<std::unique_ptr<Delegate>> CreateGpuDelegate(const GpuDelegateOptions& options) {
  if ((options.experimental_flags & kGpuExperimentalSerialization) && options.serialization_dir.empty()) {
    return InvalidArgumentError("GPU delegate: kGpuExperimentalSerialization needs serialization_dir");
  }
  if (options.experimental_flags & ~uint64_t{3}) {
    return InvalidArgumentError(fmt::format("GPU delegate: unknown experimental flags {:#x}", options.experimental_flags));
  }
  if (options.max_delegated_partitions < 0) return InvalidArgumentError("GPU delegate: max_delegated_partitions must be >= 0");
  if (options.min_nodes_per_partition < 1) return InvalidArgumentError("GPU delegate: min_nodes_per_partition must be >= 1");
  const gpu::Precision precision = options.precision == GpuPrecision::kFp16 ? gpu::Precision::kFp16 : gpu::Precision::kFp32;
  GpuBackend which = options.backend;
  if (which == GpuBackend::kAuto) {
    if (const char* env = std::getenv("RELITE_GPU_BACKEND"); env != nullptr && *env != '\0') {
      if (!ParseGpuBackend(env, &which)) {
        return InvalidArgumentError(fmt::format("RELITE_GPU_BACKEND={} is not auto, opencl or cuda", EscapeUntrusted(env)));
      }
    }
  }
  auto open_cuda = [&] {
    return gpu::cuda::CreateCudaBackend({options.device_index, options.device_name}, precision);
  };
  auto open_cl = [&] { return gpu::cl::CreateClBackend({options.device_index, options.device_name}, precision); };
  StatusOr<std::unique_ptr<gpu::Backend>> backend = UnavailableError("no backend");
  if (which == GpuBackend::kCuda) {
    backend = open_cuda();
  } else if (which == GpuBackend::kOpenCl) {
    backend = open_cl();
  } else {
    // Auto: CUDA where its driver, NVRTC and a matching device are there
    // (an NVIDIA GPU), else OpenCL; when both fail, both reasons.
    backend = open_cuda();
    if (!backend.ok()) {
      const Status cuda_reason = backend.status();
      backend = open_cl();
      if (!backend.ok()) {
        return Status(backend.status().code(), "GPU delegate unavailable: " + backend.status().message() +
                                                   " (and CUDA: " + cuda_reason.message() + ")");
      }
    }
  }
  if (!backend.ok()) return backend.status().WithContext("GPU delegate unavailable");
  return std::unique_ptr<Delegate>(std::make_unique<GpuDelegate>(options, std::shared_ptr<gpu::Backend>(std::move(*backend))));
}

namespace gpu {
std::unique_ptr<Delegate> CreateGpuDelegateOnBackend(const GpuDelegateOptions& options, std::shared_ptr<Backend> backend) {
  return std::make_unique<GpuDelegate>(options, std::move(backend));
}
}  // namespace gpu

const char* GpuBackendName(GpuBackend backend) {
  switch (backend) {
    case GpuBackend::kAuto: return "auto";
    case GpuBackend::kOpenCl: return "opencl";
    case GpuBackend::kCuda: return "cuda";
  }
  return "auto";
}

bool ParseGpuBackend(const std::string& name, GpuBackend* backend) {
  for (GpuBackend b : {GpuBackend::kAuto, GpuBackend::kOpenCl, GpuBackend::kCuda}) {
    if (name == GpuBackendName(b)) {
      *backend = b;
      return true;
    }
  }
  return false;
}

StatusOr<std::vector<std::string>> ListGpuDevices() {
  std::vector<std::string> out;
  auto cl = gpu::cl::ListClDevices();
  if (cl.ok()) {
    for (size_t i = 0; i < cl->size(); ++i) out.push_back(fmt::format("#{} {}", i, (*cl)[i].Describe()));
  }
  auto cuda = gpu::cuda::ListCudaDevices();
  if (cuda.ok()) {
    for (size_t i = 0; i < cuda->size(); ++i) out.push_back(fmt::format("cuda#{} {}", i, (*cuda)[i].Describe()));
  }
  if (out.empty()) {
    return UnavailableError(fmt::format("no GPU device: OpenCL: {}; CUDA: {}", cl.status().message(), cuda.status().message()));
  }
  return out;
}

Status ClearGpuDelegateCache(const std::string& dir, int* removed) { return gpu::KernelCache::Clear(dir, removed); }

GpuDelegateStats GetGpuDelegateStats(const Delegate& delegate) {
  const auto* gpu = dynamic_cast<const GpuDelegate*>(&delegate);
  return gpu == nullptr ? GpuDelegateStats() : gpu->stats();
}

std::string GpuDelegateDevice(const Delegate& delegate) {
  const auto* gpu = dynamic_cast<const GpuDelegate*>(&delegate);
  return gpu == nullptr ? std::string() : gpu->backend().device().Describe();
}

std::string GpuDelegateBackend(const Delegate& delegate) {
  const auto* gpu = dynamic_cast<const GpuDelegate*>(&delegate);
  return gpu == nullptr ? std::string() : gpu->backend().device().backend;
}

}  // namespace relite
