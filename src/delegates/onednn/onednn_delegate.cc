#include "relite/onednn_delegate.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/core/interpreter/work_estimate.h"
#include "src/delegates/onednn/dnnl_api.h"
#include "src/delegates/onednn/partition.h"

namespace relite {
namespace {

struct OnednnNodePlan final : NodePlan {};

const char* PrecisionName(OnednnPrecision p) { return p == OnednnPrecision::kBf16 ? "bf16" : "fp32"; }

bool HasIsa(dnnl_cpu_isa_t have, dnnl_cpu_isa_t want) {
  return (static_cast<unsigned>(have) & static_cast<unsigned>(want)) == static_cast<unsigned>(want);
}

// In fp32 oneDNN runs on the same AVX-512 FMA units as relite's own kernels;
// it wins where layers are large (Inception v3: 60 M multiply-accumulates a
// layer on average, 1.3-1.7x faster on AVX-512 and AMX hosts) and loses on
// mobile models whose layers have 8-32 channels and per-primitive overhead
// dominates (the MediaPipe models, 1-3 M a layer: up to 1.5x slower; the
// MobileNets and DeepLab, 6-20 M: at par or slower). docs/PERFORMANCE.md
// has the measurements.
constexpr double kFp32MinMacsPerLayer = 30e6;

// The layers the gain check averages: those oneDNN would run as
// convolutions or matrix products.
bool IsOnednnLayer(const Node& node) {
  const std::string& op = node.op_name;
  return op == "CONV_2D" || op == "DEPTHWISE_CONV_2D" || op == "FULLY_CONNECTED" || op == "BATCH_MATMUL" ||
         op == "TRANSPOSE_CONV" || op == "Convolution2DTransposeBias";
}

class OnednnDelegate final : public Delegate {
 public:
  explicit OnednnDelegate(const OnednnDelegateOptions& options) : options_(options) {
    mutable_options().max_delegated_partitions = options.max_delegated_partitions;
    mutable_options().min_nodes_per_partition = options.min_nodes_per_partition;
    stats_.precision = PrecisionName(options.precision);
    availability_ = Open();
  }

  std::string name() const override { return "onednn"; }
  std::string display_name() const override { return "oneDNN"; }
  const Status& availability() const { return availability_; }
  const OnednnDelegateStats& stats() const { return stats_; }

  // fp32 on a model of small layers brings no gain (kFp32MinMacsPerLayer);
  // bf16 (twice the multiply rate, AMX tiles) and `force` take any model.
  Status CheckGraph(const DelegateGraph& graph) override {
    if (!availability_.ok() || options_.force || options_.precision != OnednnPrecision::kFp32) return Status::Ok();
    // The interpreter's work estimate, from the declared shapes (a guess for
    // this check only; the builders check every shape they use).
    const TensorLookup tensor = [&](int t) -> const Tensor* {
      return t >= 0 && t < graph.num_tensors() ? &graph.tensor(t) : nullptr;
    };
    double macs = 0;
    int layers = 0;
    for (int i = 0; i < graph.num_nodes(); ++i) {
      const Node& node = graph.node(i);
      if (!IsOnednnLayer(node)) continue;
      macs += std::max(0.0, EstimateWeightedMacs(node, tensor));
      ++layers;
    }
    const double mean = layers > 0 ? macs / layers : 0;
    if (mean >= kFp32MinMacsPerLayer) return Status::Ok();
    return FailedPreconditionError(fmt::format(
        "no gain for this model in fp32: its {} convolution and matrix layers average {:.2g} M multiply-accumulates, "
        "below the {:.0f} M where oneDNN's fp32 kernels beat relite's own on this CPU (precision bf16, or force, "
        "delegates it anyway)",
        layers, mean / 1e6, kFp32MinMacsPerLayer / 1e6));
  }

  NodeSupport CheckNode(const DelegateGraph& graph, int node_index) override {
    if (!availability_.ok()) return NodeSupport::Unsupported(availability_.message());
    const Node& node = graph.node(node_index);
    Status s = onednn::CheckNodeSupport(engine_, graph, node);
    if (!s.ok()) return NodeSupport::Unsupported(s.message());
    return NodeSupport::Supported(std::make_unique<OnednnNodePlan>());
  }

  StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(const DelegateGraph& graph, DelegatePartition& partition) override {
    if (!availability_.ok()) return availability_;
    onednn::BuildStats b;
    auto kernel = onednn::BuildPartition(engine_, graph, partition, &b);
    if (!kernel.ok()) return kernel.status().WithContext(fmt::format("oneDNN partition {}", partition.id));
    stats_.partitions += 1;
    stats_.nodes += static_cast<int>(partition.nodes.size());
    stats_.primitives += b.primitives;
    stats_.boundary_reorders += b.boundary_reorders;
    stats_.fused_nodes += b.fused_nodes;
    stats_.build_ms += b.build_ms;
    stats_.primitive_create_ms += b.primitive_create_ms;
    stats_.weight_reorder_ms += b.weight_reorder_ms;
    stats_.weight_bytes += b.weight_bytes;
    return kernel;
  }

 private:
  // Loads oneDNN and checks the CPU: the reason it takes no node, if any.
  Status Open() {
    auto api = onednn::LoadDnnlApi();
    if (!api.ok()) return UnavailableError("oneDNN delegate unavailable: " + api.status().message());
    const dnnl_version_t* v = (*api)->dnnl_version();
    stats_.library = fmt::format("{} (oneDNN {}.{}.{})", (*api)->library, v->major, v->minor, v->patch);
    const dnnl_cpu_isa_t isa = (*api)->dnnl_get_effective_cpu_isa();
    stats_.isa = onednn::CpuIsaName(isa);
    // relite's own kernels have AVX2 and AVX-512 paths: below AVX-512,
    // oneDNN's JIT brings no gain over them.
    if (!HasIsa(isa, dnnl_cpu_isa_avx512_core) && !options_.force) {
      return FailedPreconditionError(fmt::format(
          "no gain on this CPU: oneDNN's best ISA here is {}, and relite's own kernels are as fast below AVX-512 "
          "(force the delegate to use it anyway)",
          stats_.isa));
    }
    if (options_.precision == OnednnPrecision::kBf16 && !HasIsa(isa, dnnl_cpu_isa_avx512_core_bf16)) {
      return FailedPreconditionError(fmt::format(
          "bf16 needs AVX-512 BF16 or AMX, and oneDNN's best ISA here is {} (fp32 runs the delegate without them)",
          stats_.isa));
    }
    auto engine = std::make_shared<onednn::Engine>();
    engine->api = *api;
    engine->compute = options_.precision == OnednnPrecision::kBf16 ? dnnl_bf16 : dnnl_f32;
    engine->threads = options_.threads;
    const dnnl_status_t st = (*api)->dnnl_engine_create(&engine->engine, dnnl_cpu, 0);
    if (st != dnnl_success) {
      return UnavailableError("oneDNN delegate unavailable: no CPU engine (" + onednn::DnnlStatusName(st) + ")");
    }
    engine_ = std::move(engine);
    return Status::Ok();
  }

  OnednnDelegateOptions options_;
  Status availability_;
  std::shared_ptr<onednn::Engine> engine_;
  OnednnDelegateStats stats_;
};

}  // namespace

StatusOr<std::unique_ptr<Delegate>> CreateOnednnDelegate(const OnednnDelegateOptions& options) {
  if (options.threads < 0) return InvalidArgumentError("oneDNN delegate: threads must be >= 0");
  if (options.max_delegated_partitions < 0) return InvalidArgumentError("oneDNN delegate: max_delegated_partitions must be >= 0");
  if (options.min_nodes_per_partition < 1) return InvalidArgumentError("oneDNN delegate: min_nodes_per_partition must be >= 1");
  if (options.precision != OnednnPrecision::kFp32 && options.precision != OnednnPrecision::kBf16) {
    return InvalidArgumentError("oneDNN delegate: unknown precision");
  }
  return std::unique_ptr<Delegate>(std::make_unique<OnednnDelegate>(options));
}

Status OnednnDelegateAvailability(const Delegate& delegate) {
  const auto* d = dynamic_cast<const OnednnDelegate*>(&delegate);
  if (d == nullptr) return InvalidArgumentError("not a oneDNN delegate");
  return d->availability();
}

OnednnDelegateStats GetOnednnDelegateStats(const Delegate& delegate) {
  const auto* d = dynamic_cast<const OnednnDelegate*>(&delegate);
  return d == nullptr ? OnednnDelegateStats() : d->stats();
}

}  // namespace relite
