// relite bench: init time, first inference, steady-state latency, peak RSS.
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "relite/gpu_delegate.h"
#include "relite/onednn_delegate.h"
#include "tools/relite/common.h"
#include "tools/relite/tensor_io.h"

namespace relite::cli {
namespace {

// Peak resident set size in MiB: VmHWM from /proc, else getrusage.
double PeakRssMb() {
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long kb = -1;
    while (std::fgets(line, sizeof(line), f) != nullptr) {
      if (std::strncmp(line, "VmHWM:", 6) == 0) {
        kb = std::strtol(line + 6, nullptr, 10);
        break;
      }
    }
    std::fclose(f);
    if (kb >= 0) return static_cast<double>(kb) / 1024.0;
  }
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) == 0) return static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
  return 0.0;
}

struct Stats {
  double median = 0, min = 0, max = 0, p90 = 0, mean = 0;
};

Stats Summarise(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  // Nearest-rank percentile.
  size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90 = v[std::clamp<size_t>(rank, 1, n) - 1];
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  return s;
}

// Per-node time of every timed run. The table reports each node's median
// over the runs rather than its mean: on a shared machine a few disturbed
// runs would otherwise decide which op looks expensive.
class NodeProfile {
 public:
  void Record(const Interpreter& interp) {
    const auto& t = interp.node_time_us();
    if (samples_.size() < t.size()) samples_.resize(t.size());
    for (size_t i = 0; i < t.size(); ++i) samples_[i].push_back(t[i]);
  }
  double MedianUs(int node) const {
    if (node < 0 || static_cast<size_t>(node) >= samples_.size() || samples_[node].empty()) return 0.0;
    return Summarise(samples_[static_cast<size_t>(node)]).median;
  }

 private:
  std::vector<std::vector<double>> samples_;
};

std::string ShapeText(const Tensor* t) { return t == nullptr ? "-" : ShapeToString(t->shape); }

// Time per op type (the sum of its nodes' medians), most expensive first;
// then the `top_nodes` slowest nodes.
void PrintProfile(Interpreter& interp, const NodeProfile& profile, int runs, int top_nodes) {
  struct Row {
    std::string op;
    int count = 0;
    double us = 0;
  };
  std::vector<Row> rows;
  std::vector<std::pair<double, int>> nodes;
  double total = 0;
  for (int i = 0; i < interp.nodes_size(); ++i) {
    if (interp.node_is_folded(i) || interp.node_is_fused(i) || interp.node_is_delegated(i)) continue;
    const std::string op = Safe(interp.node(i).op_name);
    const double us = profile.MedianUs(i);
    auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.op == op; });
    if (it == rows.end()) it = rows.insert(rows.end(), Row{op});
    it->count++;
    it->us += us;
    total += us;
    nodes.emplace_back(us, i);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.us > b.us; });
  fmt::print("\nper-op profile (median per node over {} runs, summed per op):\n", runs);
  fmt::print("  {:<32} {:>6} {:>10} {:>7}\n", "op", "nodes", "us", "share");
  for (const Row& r : rows) {
    fmt::print("  {:<32} {:>6} {:>10.1f} {:>6.1f}%\n", r.op, r.count, r.us, total > 0 ? 100.0 * r.us / total : 0.0);
  }
  fmt::print("  {:<32} {:>6} {:>10.1f}\n", "total", "", total);
  if (top_nodes <= 0) return;
  std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (static_cast<int>(nodes.size()) > top_nodes) nodes.resize(static_cast<size_t>(top_nodes));
  fmt::print("\nslowest {} nodes (median us):\n", nodes.size());
  fmt::print("  {:>5} {:<26} {:>9} {:>7}  {:<20} {}\n", "node", "op", "us", "share", "input 0", "output 0");
  for (const auto& [us, i] : nodes) {
    const Node& n = interp.node(i);
    const Tensor* in = !n.inputs.empty() && n.inputs[0] >= 0 ? interp.tensor(n.inputs[0]) : nullptr;
    const Tensor* out = !n.outputs.empty() ? interp.tensor(n.outputs[0]) : nullptr;
    fmt::print("  {:>5} {:<26} {:>9.1f} {:>6.1f}%  {:<20} {}\n", i, Safe(n.op_name), us, total > 0 ? 100.0 * us / total : 0.0,
               ShapeText(in), ShapeText(out));
  }
}

// How the GPU partitions moved their inputs and outputs: "direct" (DMA from
// and to the pinned tensor arena), "staged" (through staging buffers),
// "mixed", or "none".
const char* HostCopies(const GpuDelegateStats& g) {
  if (g.host_bytes_direct > 0) return g.host_bytes_staged > 0 ? "mixed" : "direct";
  return g.host_bytes_staged > 0 ? "staged" : "none";
}

// The GPU delegate's init parts and cache outcome, as JSON fields (empty
// without a GPU partition).
std::string GpuJson(const Loaded& loaded) {
  if (!loaded.delegate) return "";
  if (const OnednnDelegateStats o = GetOnednnDelegateStats(*loaded.delegate); o.partitions > 0) {
    return fmt::format(
        ", \"onednn\": {{\"partitions\": {}, \"primitives\": {}, \"build_ms\": {:.3f}, \"primitive_create_ms\": {:.3f}, "
        "\"weight_reorder_ms\": {:.3f}, \"isa\": \"{}\", \"precision\": \"{}\"}}",
        o.partitions, o.primitives, o.build_ms, o.primitive_create_ms, o.weight_reorder_ms, JsonEscape(o.isa), o.precision);
  }
  const GpuDelegateStats g = GetGpuDelegateStats(*loaded.delegate);
  if (g.partitions == 0) return "";
  return fmt::format(
      ", \"gpu\": {{\"kernels\": {}, \"context_ms\": {:.3f}, \"compile_ms\": {:.3f}, \"cache_load_ms\": {:.3f}, "
      "\"tuning_ms\": {:.3f}, \"upload_ms\": {:.3f}, \"programs_compiled\": {}, \"programs_from_cache\": {}, "
      "\"launches_tuned\": {}, \"launches_tuned_cached\": {}, \"cache\": \"{}\", \"backend\": \"{}\", "
      "\"device\": \"{}\", \"peak_device_mb\": {:.3f}, \"host_copies\": \"{}\"}}",
      g.kernels, g.context_ms, g.compile_ms, g.cache_load_ms, g.tuning_ms, g.upload_ms, g.programs_compiled,
      g.programs_from_cache, g.launches_tuned, g.launches_tuned_cached,
      !g.cache_enabled ? "off" : (g.cache_hits > 0 ? "hit" : "miss"), GpuDelegateBackend(*loaded.delegate),
      JsonEscape(GpuDelegateDevice(*loaded.delegate)), static_cast<double>(g.peak_device_bytes) / (1024.0 * 1024.0),
      HostCopies(g));
}

Status Bench(const BenchOptions& o) {
  if (o.runs < 1) return InvalidArgumentError(fmt::format("--runs must be >= 1, got {}", o.runs));
  if (o.warmup < 0) return InvalidArgumentError(fmt::format("--warmup must be >= 0, got {}", o.warmup));
  const int threads = o.threads > 0 ? o.threads : DefaultThreads();

  Loaded loaded;
  Stopwatch init_sw;
  RELITE_RETURN_IF_ERROR(LoadModel(o.model, threads, /*build=*/true, &loaded, /*preserve_all_tensors=*/false, o.delegate, o.interpreter));
  const double init_ms = init_sw.ElapsedMs();
  Interpreter& interp = *loaded.interpreter;

  for (int i = 0; i < interp.num_inputs(); ++i) {
    Tensor* t = interp.input_tensor(i);
    if (t == nullptr) return InternalError(fmt::format("input {} is missing", i));
    FillPseudoRandom(*t, static_cast<uint64_t>(i));
  }

  Stopwatch first_sw;
  Status s = interp.Invoke();
  const double first_ms = first_sw.ElapsedMs();
  if (!s.ok()) return s.WithContext("Invoke (first run)");
  for (int i = 0; i < o.warmup; ++i) {
    s = interp.Invoke();
    if (!s.ok()) return s.WithContext(fmt::format("Invoke (warm-up run {})", i + 1));
  }
  const bool profiling = o.profile || o.profile_nodes > 0;
  interp.SetProfiling(profiling);
  NodeProfile profile;
  std::vector<double> times;
  times.reserve(static_cast<size_t>(o.runs));
  for (int i = 0; i < o.runs; ++i) {
    Stopwatch sw;
    s = interp.Invoke();
    times.push_back(sw.ElapsedMs());
    if (!s.ok()) return s.WithContext(fmt::format("Invoke (timed run {})", i + 1));
    if (profiling) {
      profile.Record(interp);
      interp.ResetProfile();
    }
  }
  const Stats st = Summarise(times);
  const double rss_mb = PeakRssMb();
  const double arena_mb = static_cast<double>(interp.arena_bytes()) / (1024.0 * 1024.0);

  if (o.json) {
    fmt::print(
        "{{\"model\": \"{}\", \"threads\": {}, \"cpu_isa\": \"{}\", \"runs\": {}, \"warmup\": {}, \"init_ms\": {:.4f}, "
        "\"first_ms\": {:.4f}, \"median_ms\": {:.4f}, \"min_ms\": {:.4f}, \"max_ms\": {:.4f}, \"p90_ms\": {:.4f}, "
        "\"mean_ms\": {:.4f}, \"peak_rss_mb\": {:.3f}, \"arena_mb\": {:.3f}{}}}\n",
        JsonEscape(o.model), threads, JsonEscape(CpuKernelLevel()), o.runs, o.warmup, init_ms, first_ms, st.median, st.min, st.max, st.p90, st.mean,
        rss_mb, arena_mb, GpuJson(loaded));
  } else {
    fmt::print("model:        {}\n", o.model);
    fmt::print("threads:      {}\n", threads);
    fmt::print("cpu kernels:  {}\n", CpuKernelLevel());
    fmt::print("init:         {:.3f} ms (load + build + allocate)\n", init_ms);
    if (loaded.delegate) {
      if (const std::string device = GpuDelegateDevice(*loaded.delegate); !device.empty()) {
        fmt::print("gpu:          {} backend on {}\n", GpuDelegateBackend(*loaded.delegate), device);
      }
      const std::string parts = DelegateInitBreakdown(*loaded.delegate);
      if (!parts.empty()) fmt::print("  {}\n", parts);
      const GpuDelegateStats g = GetGpuDelegateStats(*loaded.delegate);
      if (g.cache_enabled) fmt::print("  cache:      {}\n", g.cache_hits > 0 ? "hit" : "miss");
    }
    fmt::print("first run:    {:.3f} ms\n", first_ms);
    fmt::print("warm-up runs: {}\n", o.warmup);
    fmt::print("timed runs:   {}\n", o.runs);
    fmt::print("  median      {:.3f} ms\n", st.median);
    fmt::print("  min         {:.3f} ms\n", st.min);
    fmt::print("  max         {:.3f} ms\n", st.max);
    fmt::print("  p90         {:.3f} ms\n", st.p90);
    fmt::print("  mean        {:.3f} ms\n", st.mean);
    fmt::print("arena:        {:.3f} MiB\n", arena_mb);
    fmt::print("peak RSS:     {:.1f} MiB\n", rss_mb);
    if (loaded.delegate) {
      const GpuDelegateStats g = GetGpuDelegateStats(*loaded.delegate);
      if (g.partitions > 0) {
        fmt::print("peak device:  {:.1f} MiB\n", static_cast<double>(g.peak_device_bytes) / (1024.0 * 1024.0));
        fmt::print("host copies:  {}\n", HostCopies(g));
      }
    }
  }
  if (profiling) PrintProfile(interp, profile, o.runs, o.profile_nodes);
  return Status::Ok();
}

}  // namespace

int BenchCommand(const BenchOptions& options) {
  Status s = Bench(options);
  if (!s.ok()) return ReportError(s);
  return 0;
}

}  // namespace relite::cli
