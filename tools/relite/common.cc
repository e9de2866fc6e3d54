#include "tools/relite/common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

Status LoadModel(const std::string& path, int threads, bool build, Loaded* loaded, bool preserve_all_tensors,
                 const DelegateFlags& delegate) {
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
  builder.SetNumThreads(threads).SetPreserveAllTensors(preserve_all_tensors);
  if (loaded->delegate) builder.AddDelegate(loaded->delegate.get());
  auto interp = builder.Build();
  if (!interp.ok()) return interp.status();
  std::fflush(stdout);
  for (const DelegationReport& report : (*interp)->delegation_reports()) {
    for (const std::string& line : report.Lines()) std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (loaded->delegate) {
    const std::string summary = DelegateBuildSummary(*loaded->delegate);
    if (!summary.empty()) std::fprintf(stderr, "%s\n", summary.c_str());
  }
  std::fflush(stderr);
  Status s = (*interp)->AllocateTensors();
  if (!s.ok()) return s.WithContext("AllocateTensors");
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
