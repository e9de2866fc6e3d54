// Shared pieces of the relite CLI subcommands.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "relite/relite.h"
#include "tools/relite/delegates.h"

namespace relite::cli {

constexpr const char* kVersion = "0.1.0";

// The interpreter's options shared by run, inspect, bench and diff:
// --max-arena-bytes, --max-tensor-bytes (sizes: 4096, 512M, 4G; binary
// multiples) and --max-macs (2e11, 200G; decimal), where "0" lifts a bound
// and an empty string keeps the library default (ResourceLimits); and
// --keep-denormals (InterpreterOptions::flush_denormals = false).
struct InterpreterFlags {
  std::string arena_bytes, tensor_bytes, macs;
  bool keep_denormals = false;
};
StatusOr<ResourceLimits> ParseLimits(const InterpreterFlags& flags);

struct RunOptions {
  std::string model;
  std::vector<std::string> inputs;
  std::string output_dir;
  int threads = 0;
  std::string labels;
  int top = 5;
  bool top_given = false;
  std::string float_range = "-1,1";
  bool save_inputs = false;
  std::string dump_tensors;
  DelegateFlags delegate;
  InterpreterFlags interpreter;
};
struct InspectOptions {
  std::string model;
  int threads = 0;
  DelegateFlags delegate;
  InterpreterFlags interpreter;
};
struct BenchOptions {
  std::string model;
  int threads = 0;
  int runs = 50;
  int warmup = 5;
  bool json = false;
  bool profile = false;  // per-op time table after the timed runs
  int profile_nodes = 0;  // also list this many slowest nodes (implies profile)
  DelegateFlags delegate;
  InterpreterFlags interpreter;
};

// Each returns the process exit code; errors are printed with ReportError.
int RunCommand(const RunOptions& options);
int InspectCommand(const InspectOptions& options);
int BenchCommand(const BenchOptions& options);
// relite cache DIR [--clear]: the GPU kernel cache's entries (or removes them).
int CacheCommand(const std::string& dir, bool clear);
// Markdown table of every builtin op and the versions relite runs (docs/OPS.md).
int OpsCommand(bool missing_only);

// One per hardware core (at least 1).
int DefaultThreads();

// Prints exactly one line "error: <message>" to stderr; returns 1.
int ReportError(const std::string& message);
int ReportError(const Status& status);

// A loaded model with a built interpreter (destroyed in the right order:
// the interpreter references the model and the resolver).
struct Loaded {
  std::unique_ptr<Model> model;
  std::unique_ptr<BuiltinOpResolver> resolver;
  std::unique_ptr<Delegate> delegate;  // outlives the interpreter
  std::unique_ptr<Interpreter> interpreter;
};
// Loads `path`; builds and allocates the interpreter unless `build` is false.
// On a build error `*loaded` keeps the model so callers can still describe it.
// A non-empty `delegate.name` names a registered delegate (tools/relite/delegates.h),
// applied before allocation; its placement report goes to stderr. A delegate
// that is unavailable on this machine (no OpenCL) is a warning: the model runs
// on the CPU.
Status LoadModel(const std::string& path, int threads, bool build, Loaded* loaded, bool preserve_all_tensors = false,
                 const DelegateFlags& delegate = {}, const InterpreterFlags& interpreter = {});
// A name (tensor, op, subgraph, description) read from a model file, safe to
// print: control bytes and invalid UTF-8 as \xNN (EscapeUntrusted).
inline std::string Safe(const std::string& bytes) { return EscapeUntrusted(bytes); }

// "none", "scale=0.0078125 zp=128", "per-channel(32) dim=3 scale=[0.001..0.02]".
std::string QuantSummary(const Quantization& q);
// Number formatting for summaries: integers without decimals, else %.6g.
std::string FormatNumber(double v);
std::string JsonEscape(const std::string& s);

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double ElapsedMs() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace relite::cli
