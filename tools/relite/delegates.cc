#include "tools/relite/delegates.h"

#include <algorithm>
#include <map>

#include <unistd.h>

#include <fmt/format.h>

#include "relite/gpu_delegate.h"
#include "relite/onednn_delegate.h"

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
  if (!delegate.ok()) {
    // "GPU delegate unavailable: ..." already names the delegate.
    if (delegate.status().code() == StatusCode::kUnavailable) return delegate.status();
    return delegate.status().WithContext(fmt::format("delegate '{}'", flags.name));
  }
  if (*delegate == nullptr) return InternalError(fmt::format("delegate '{}': the factory returned nothing", flags.name));
  return delegate;
}

namespace {

StatusOr<std::unique_ptr<Delegate>> CreateGpuDelegateFromFlags(const DelegateFlags& flags) {
  GpuDelegateOptions options;
  if (!ParseGpuBackend(flags.gpu_backend, &options.backend)) {
    return InvalidArgumentError(fmt::format("--gpu-backend must be auto, opencl or cuda, got '{}'", flags.gpu_backend));
  }
  if (flags.precision == "fp16") {
    options.precision = GpuPrecision::kFp16;
  } else if (flags.precision != "fp32") {
    return InvalidArgumentError(fmt::format("--precision for the GPU delegate must be fp32 or fp16, got '{}'", flags.precision));
  }
  if (!flags.device.empty()) {
    const bool numeric = std::all_of(flags.device.begin(), flags.device.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (numeric && flags.device.size() < 6) {
      options.device_index = std::stoi(flags.device);
    } else {
      options.device_name = flags.device;
    }
  }
  if (flags.preference == "sustained") {
    options.inference_preference = GpuInferencePreference::kSustainedSpeed;
    // A progress line while kernels are tuned (on a terminal, one line redrawn).
    options.tuning_progress = [tty = isatty(2) != 0](int done, int total) {
      if (tty) {
        std::fprintf(stderr, "\rtuning GPU kernels: %d/%d%s", done, total, done == total ? "\n" : "");
      } else if (done == total) {
        std::fprintf(stderr, "tuning GPU kernels: %d/%d\n", done, total);
      }
    };
  } else if (flags.preference != "fast") {
    return InvalidArgumentError(fmt::format("--inference-preference must be fast or sustained, got '{}'", flags.preference));
  }
  if (!flags.serialization_dir.empty()) {
    options.experimental_flags |= kGpuExperimentalSerialization;
    options.serialization_dir = flags.serialization_dir;
    options.model_token = flags.model_token;
  } else if (!flags.model_token.empty()) {
    return InvalidArgumentError("--model-token needs --serialization-dir");
  }
  auto delegate = CreateGpuDelegate(options);
  if (delegate.ok()) {
    std::fprintf(stderr, "INFO: GPU delegate on %s, %s backend, %s\n", GpuDelegateDevice(**delegate).c_str(),
                 GpuDelegateBackend(**delegate) == "cuda" ? "CUDA" : "OpenCL", flags.precision.c_str());
  }
  return delegate;
}

StatusOr<std::unique_ptr<Delegate>> CreateOnednnDelegateFromFlags(const DelegateFlags& flags) {
  OnednnDelegateOptions options;
  if (flags.precision == "bf16") {
    options.precision = OnednnPrecision::kBf16;
  } else if (flags.precision != "fp32") {
    return InvalidArgumentError(fmt::format("--precision for the oneDNN delegate must be fp32 or bf16, got '{}'", flags.precision));
  }
  options.force = flags.force;
  auto delegate = CreateOnednnDelegate(options);
  if (delegate.ok()) {
    const OnednnDelegateStats s = GetOnednnDelegateStats(**delegate);
    const Status available = OnednnDelegateAvailability(**delegate);
    if (available.ok()) {
      std::fprintf(stderr, "INFO: oneDNN delegate: %s, ISA %s, %s\n", s.library.c_str(), s.isa.c_str(), s.precision.c_str());
    } else {
      std::fprintf(stderr, "INFO: %s; every node stays on the CPU\n", available.message().c_str());
    }
  }
  return delegate;
}

}  // namespace

std::string DelegateBuildSummary(const Delegate& delegate) {
  if (const OnednnDelegateStats o = GetOnednnDelegateStats(delegate); o.partitions > 0) {
    return fmt::format("INFO: oneDNN: {} partition(s), {} primitives per Invoke for {} nodes ({} folded as post-ops, {} "
                       "boundary reorders), ISA {}",
                       o.partitions, o.primitives, o.nodes, o.fused_nodes, o.boundary_reorders, o.isa);
  }
  const GpuDelegateStats s = GetGpuDelegateStats(delegate);
  if (s.partitions == 0) return "";
  std::string line = fmt::format(
      "INFO: GPU: {} partition(s), {} kernels per Invoke for {} nodes ({} RELU-style, {} other unary, {} ADD, {} PAD and {} "
      "MAX_POOL_2D nodes folded, {} RESHAPE nodes read in place)",
      s.partitions, s.kernels, s.nodes, s.folded_clamps, s.folded_unaries, s.folded_adds, s.folded_pads, s.folded_pools,
      s.folded_reshapes);
  if (s.cache_enabled) {
    line += fmt::format("; kernel cache {} ({} programs loaded, {} compiled)", s.cache_hits > 0 ? "hit" : "miss",
                        s.programs_from_cache, s.programs_compiled);
  }
  return line;  // after AllocateTensors: the partitions are built by then
}

std::string DelegateInitBreakdown(const Delegate& delegate) {
  if (const OnednnDelegateStats o = GetOnednnDelegateStats(delegate); o.partitions > 0) {
    return fmt::format("oneDNN: build {:.1f} ms; thread time of primitive creation (JIT) {:.1f} ms and of weight reorders "
                       "{:.1f} ms ({:.1f} MiB of weights), side by side",
                       o.build_ms, o.primitive_create_ms, o.weight_reorder_ms,
                       static_cast<double>(o.weight_bytes) / (1024.0 * 1024.0));
  }
  const GpuDelegateStats s = GetGpuDelegateStats(delegate);
  if (s.partitions == 0) return "";
  return fmt::format("GPU: context {:.1f} ms, compile {:.1f} ms ({} programs), cache load {:.1f} ms ({} programs), tuning {:.1f} ms "
                     "({} launches tuned, {} from the cache), weight upload {:.1f} ms",
                     s.context_ms, s.compile_ms, s.programs_compiled, s.cache_load_ms, s.programs_from_cache, s.tuning_ms,
                     s.launches_tuned, s.launches_tuned_cached, s.upload_ms);
}

void RegisterBuiltinDelegates() {
  RegisterDelegate("gpu", "GPU delegate on CUDA or OpenCL (fp32, or fp16 storage with --precision fp16)", CreateGpuDelegateFromFlags);
  RegisterDelegate("onednn", "oneDNN delegate on the CPU (fp32, or bf16 with --precision bf16 on AVX-512 BF16/AMX)",
                   CreateOnednnDelegateFromFlags);
}

}  // namespace relite::cli
