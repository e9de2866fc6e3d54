#include "tools/relite/common.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "tools/relite/delegates.h"

namespace relite::cli {

int DefaultThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

int ReportError(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  while (!line.empty() && line.back() == ' ') line.pop_back();
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", line.c_str());
  std::fflush(stderr);
  return 1;
}

int ReportError(const Status& status) {
  return ReportError(status.message().empty() ? status.ToString() : status.message());
}

namespace {

// "4096", "512M", "4G", "1.5e9", "0": a non-negative number with an optional
// K/M/G/T suffix (multiples of `unit`: 1024 for bytes, 1000 for MACs).
StatusOr<double> ParseAmount(const std::string& flag, const std::string& text, double unit) {
  if (text.empty()) return InvalidArgumentError(flag + " needs a value");
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return InvalidArgumentError(fmt::format("{} '{}' is not a number", flag, text));
  }
  std::string rest = text.substr(used);
  double mult = 1;
  if (rest.size() == 1) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(rest[0])));
    const std::string suffixes = "KMGT";
    const size_t k = suffixes.find(c);
    if (k == std::string::npos) return InvalidArgumentError(fmt::format("{} '{}': unknown suffix '{}' (use K, M, G or T)", flag, text, rest));
    mult = std::pow(unit, static_cast<double>(k + 1));
  } else if (!rest.empty()) {
    return InvalidArgumentError(fmt::format("{} '{}' is not a number with an optional K/M/G/T suffix", flag, text));
  }
  v *= mult;
  if (!std::isfinite(v) || v < 0) return InvalidArgumentError(fmt::format("{} must be >= 0, got '{}'", flag, text));
  return v;
}

}  // namespace

StatusOr<ResourceLimits> ParseLimits(const InterpreterFlags& flags) {
  ResourceLimits limits;
  auto bytes = [](double v) { return v >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(v); };
  if (!flags.arena_bytes.empty()) {
    RELITE_ASSIGN_OR_RETURN(double v, ParseAmount("--max-arena-bytes", flags.arena_bytes, 1024));
    limits.max_arena_bytes = bytes(v);
  }
  if (!flags.tensor_bytes.empty()) {
    RELITE_ASSIGN_OR_RETURN(double v, ParseAmount("--max-tensor-bytes", flags.tensor_bytes, 1024));
    limits.max_tensor_bytes = bytes(v);
  }
  if (!flags.macs.empty()) {
    RELITE_ASSIGN_OR_RETURN(double v, ParseAmount("--max-macs", flags.macs, 1000));
    limits.max_macs = v;
  }
  return limits;
}

Status LoadModel(const std::string& path, int threads, bool build, Loaded* loaded, bool preserve_all_tensors,
                 const DelegateFlags& delegate, const InterpreterFlags& interpreter_flags) {
  RELITE_ASSIGN_OR_RETURN(ResourceLimits limits, ParseLimits(interpreter_flags));
  if (!delegate.name.empty()) {
    // An unknown name or device is an error before any work; a delegate this
    // machine cannot run (no OpenCL) leaves the model on the CPU.
    auto d = CreateDelegate(delegate);
    if (!d.ok() && d.status().code() == StatusCode::kUnavailable) {
      std::fprintf(stderr, "WARNING: %s; running on the CPU\n", d.status().message().c_str());
    } else if (!d.ok()) {
      return d.status();
    } else {
      loaded->delegate = std::move(*d);
    }
  }
  auto model = Model::FromFile(path);
  if (!model.ok()) {
    Status s = model.status();
    // Make sure the message names the file.
    if (s.message().find(path) == std::string::npos) s = s.WithContext(path);
    return s;
  }
  loaded->model = std::move(*model);
  if (!build) return Status::Ok();
  loaded->resolver = std::make_unique<BuiltinOpResolver>();
  InterpreterBuilder builder(*loaded->model, *loaded->resolver);
  builder.SetNumThreads(threads)
      .SetPreserveAllTensors(preserve_all_tensors)
      .SetFlushDenormals(!interpreter_flags.keep_denormals)
      .SetResourceLimits(limits);
  if (loaded->delegate) builder.AddDelegate(loaded->delegate.get());
  auto interp = builder.Build();
  if (!interp.ok()) return interp.status();
  std::fflush(stdout);
  for (const DelegationReport& report : (*interp)->delegation_reports()) {
    for (const std::string& line : report.Lines()) std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
  Status s = (*interp)->AllocateTensors();
  if (!s.ok()) return s.WithContext("AllocateTensors");
  if (loaded->delegate) {  // the partitions are built (compiled, or loaded from the cache) by now
    const std::string summary = DelegateBuildSummary(*loaded->delegate);
    if (!summary.empty()) std::fprintf(stderr, "%s\n", summary.c_str());
    std::fflush(stderr);
  }
  loaded->interpreter = std::move(*interp);
  return Status::Ok();
}

std::string FormatNumber(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:.6g}", v);
}

std::string QuantSummary(const Quantization& q) {
  if (!q.IsQuantized()) return "none";
  if (!q.IsPerChannel()) {
    int64_t zp = q.zero_point.empty() ? 0 : q.zero_point[0];
    return fmt::format("scale={:.8g} zp={}", q.scale[0], zp);
  }
  auto [lo, hi] = std::minmax_element(q.scale.begin(), q.scale.end());
  bool zero_zp = std::all_of(q.zero_point.begin(), q.zero_point.end(), [](int64_t z) { return z == 0; });
  return fmt::format("per-channel({}) dim={} scale=[{:.3g}..{:.3g}]{}", q.scale.size(), q.quantized_dimension, *lo,
                     *hi, zero_zp ? "" : " zp=mixed");
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else
          out += c;
    }
  }
  return out;
}

}  // namespace relite::cli
