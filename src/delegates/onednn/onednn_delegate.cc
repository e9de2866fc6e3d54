#include "relite/onednn_delegate.h"

#include <algorithm>

#include <fmt/format.h>

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
// layer on average, 1.25-1.3x faster on AVX-512 and AMX hosts) and loses on
// mobile models whose layers have 8-32 channels and per-primitive overhead
// dominates (the MediaPipe models, 1-3 M a layer: up to 1.5x slower; the
// MobileNets and DeepLab, 6-20 M: at par or slower). docs/ONEDNN_DELEGATE.md
// has the measurements.
constexpr double kFp32MinMacsPerLayer = 30e6;

// The multiply-accumulates of a convolution, matrix product or transposed
// convolution from its declared shapes (an estimate for the gain check only;
// the builders check every shape they use).
double LayerMacs(const DelegateGraph& graph, const Node& node) {
  auto elements = [&](int input, bool output) -> double {
    const std::vector<int>& list = output ? node.outputs : node.inputs;
    if (input < 0 || static_cast<size_t>(input) >= list.size() || list[static_cast<size_t>(input)] < 0) return 0;
    double n = 1;
    for (int32_t d : graph.tensor(list[static_cast<size_t>(input)]).shape) n *= std::max<int32_t>(d, 0);
    return n;
  };
  auto dim = [&](int input, int axis) -> double {
    if (static_cast<size_t>(input) >= node.inputs.size() || node.inputs[static_cast<size_t>(input)] < 0) return 0;
    const Shape& s = graph.tensor(node.inputs[static_cast<size_t>(input)]).shape;
    const int a = axis < 0 ? static_cast<int>(s.size()) + axis : axis;
    return a >= 0 && a < static_cast<int>(s.size()) ? std::max<int32_t>(s[static_cast<size_t>(a)], 0) : 0;
  };
  const std::string& op = node.op_name;
  if (op == "CONV_2D") return elements(0, true) * dim(1, 1) * dim(1, 2) * dim(1, 3);
  if (op == "DEPTHWISE_CONV_2D") return elements(0, true) * dim(1, 1) * dim(1, 2);
  if (op == "FULLY_CONNECTED") return elements(0, true) * dim(1, -1);
  if (op == "BATCH_MATMUL") return elements(0, true) * dim(0, -1);
  if (op == "TRANSPOSE_CONV") return elements(2, false) * dim(1, 0) * dim(1, 1) * dim(1, 2);
  if (op == "Convolution2DTransposeBias") return elements(0, false) * dim(1, 0) * dim(1, 1) * dim(1, 2);
  return -1;  // not a weighted layer
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
    double macs = 0;
    int layers = 0;
    for (int i = 0; i < graph.num_nodes(); ++i) {
      const double m = LayerMacs(graph, graph.node(i));
      if (m < 0) continue;
      macs += m;
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
