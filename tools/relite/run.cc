// relite run: one inference on given or pseudo-random inputs.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "tools/relite/common.h"
#include "tools/relite/labels.h"
#include "tools/relite/tensor_io.h"

namespace relite::cli {
namespace {

std::string TensorLine(int index, const Tensor& t) {
  return fmt::format("  [{}] {}  {} {}", index, t.name.empty() ? "(unnamed)" : Safe(t.name), DataTypeName(t.type),
                     ShapeToString(t.shape));
}

Status WriteTensorFiles(const std::string& dir, const std::string& stem, const Tensor& t) {
  namespace fs = std::filesystem;
  RELITE_RETURN_IF_ERROR(WriteTensorBin((fs::path(dir) / (stem + ".bin")).string(), t));
  return WriteTensorNpy((fs::path(dir) / (stem + ".npy")).string(), t);
}

Status Run(const RunOptions& o) {
  FloatRange range;
  if (o.float_range == "-1,1")
    range = FloatRange::kMinusOneToOne;
  else if (o.float_range == "0,1")
    range = FloatRange::kZeroToOne;
  else
    return InvalidArgumentError(fmt::format("--float-range must be -1,1 or 0,1, got '{}'", o.float_range));
  if (o.top_given && o.top <= 0) return InvalidArgumentError(fmt::format("--top must be >= 1, got {}", o.top));
  if (o.top_given && o.labels.empty()) {
    return InvalidArgumentError("--top needs --labels FILE (the class names to rank output 0 by)");
  }
  if (o.save_inputs && o.output_dir.empty()) return InvalidArgumentError("--save-inputs needs --output-dir");

  // Read the labels before the (possibly slow) model work so a typo fails fast.
  std::vector<std::string> labels;
  if (!o.labels.empty()) {
    auto l = ReadLabels(o.labels);
    if (!l.ok()) return l.status();
    labels = std::move(*l);
    if (labels.empty()) return InvalidArgumentError(fmt::format("labels file '{}' holds no labels (it is empty)", o.labels));
  }

  const int threads = o.threads > 0 ? o.threads : DefaultThreads();
  Loaded loaded;
  RELITE_RETURN_IF_ERROR(LoadModel(o.model, threads, /*build=*/true, &loaded, /*preserve_all_tensors=*/!o.dump_tensors.empty(),
                                  o.delegate, o.interpreter));
  Interpreter& interp = *loaded.interpreter;

  const int num_inputs = interp.num_inputs();
  if (!o.inputs.empty() && static_cast<int>(o.inputs.size()) != num_inputs)
    return InvalidArgumentError(fmt::format("the model has {} input{} but {} --input file{} given (one per input, in order)",
                                            num_inputs, num_inputs == 1 ? "" : "s", o.inputs.size(),
                                            o.inputs.size() == 1 ? " was" : "s were"));

  // An .npy input of another shape resizes its input where the model's shape
  // signature leaves that dimension free.
  RELITE_RETURN_IF_ERROR(ResizeInputsToNpy(interp, o.inputs));

  // Inputs are all read before anything is printed, so that a bad input
  // file gives just the error line.
  std::string summary = fmt::format("model: {}\ninputs:\n", o.model);
  for (int i = 0; i < num_inputs; ++i) {
    Tensor* t = interp.input_tensor(i);
    if (t == nullptr) return InternalError(fmt::format("input {} is missing", i));
    std::string how;
    if (o.inputs.empty()) {
      FillPseudoRandom(*t, static_cast<uint64_t>(i));
      how = "pseudo-random";
    } else {
      RELITE_RETURN_IF_ERROR(FillInputFromFile(o.inputs[static_cast<size_t>(i)], i, *t, range, &how));
      how = o.inputs[static_cast<size_t>(i)] + " (" + how + ")";
    }
    summary += fmt::format("{}  <- {}\n", TensorLine(i, *t), how);
  }

  if (!o.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.output_dir, ec);
    if (ec) return IoError(fmt::format("cannot create output directory '{}': {}", o.output_dir, ec.message()));
    if (o.save_inputs) {
      for (int i = 0; i < num_inputs; ++i)
        RELITE_RETURN_IF_ERROR(WriteTensorFiles(o.output_dir, fmt::format("input_{}", i), *interp.input_tensor(i)));
    }
  }

  fmt::print("{}", summary);
  std::fflush(stdout);

  Stopwatch sw;
  Status s = interp.Invoke();
  const double invoke_ms = sw.ElapsedMs();
  if (!s.ok()) return s.WithContext("Invoke");

  fmt::print("outputs:\n");
  for (int i = 0; i < interp.num_outputs(); ++i) {
    Tensor* t = interp.output_tensor(i);
    if (t == nullptr) return InternalError(fmt::format("output {} is missing", i));
    std::string line = TensorLine(i, *t);
    TensorStats st = ComputeStats(*t);
    if (st.numeric && st.count > 0) {
      line += fmt::format("  min {} max {} mean {:.6g}", FormatNumber(st.min), FormatNumber(st.max), st.mean);
      if (st.nan > 0) line += fmt::format(" nan {}", st.nan);
    }
    if (t->quant.IsQuantized()) line += "  quant " + QuantSummary(t->quant);
    fmt::print("{}\n", line);
    if (!o.output_dir.empty()) RELITE_RETURN_IF_ERROR(WriteTensorFiles(o.output_dir, fmt::format("output_{}", i), *t));
  }
  if (!o.dump_tensors.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.dump_tensors, ec);
    if (ec) return IoError(fmt::format("cannot create directory '{}': {}", o.dump_tensors, ec.message()));
    int written = 0;
    for (int i = 0; i < interp.tensors_size(); ++i) {
      const Tensor* t = interp.tensor(i);
      if (t->data == nullptr || DataTypeSize(t->type) == 0) continue;
      RELITE_RETURN_IF_ERROR(WriteTensorNpy(fmt::format("{}/tensor_{}.npy", o.dump_tensors, i), *t));
      ++written;
    }
    fmt::print("wrote {} tensors to {}/tensor_<index>.npy\n", written, o.dump_tensors);
  }
  fmt::print("invoke: {:.3f} ms ({} thread{})\n", invoke_ms, threads, threads == 1 ? "" : "s");
  if (!o.output_dir.empty())
    fmt::print("wrote {} output{} to {}/output_K.{{bin,npy}}\n", interp.num_outputs(),
               interp.num_outputs() == 1 ? "" : "s", o.output_dir);

  if (!o.labels.empty() || o.top_given) {
    if (interp.num_outputs() < 1) return InvalidArgumentError("the model has no outputs to rank");
    const Tensor& out = *interp.output_tensor(0);
    if (!IsNumeric(out.type))
      return InvalidArgumentError(fmt::format("output 0 is {}: cannot rank classes", DataTypeName(out.type)));
    if (static_cast<int64_t>(labels.size()) != out.num_elements() / std::max<int64_t>(1, out.shape.empty() ? 1 : out.shape[0])) {
      std::fflush(stdout);
      std::fprintf(stderr, "WARNING: %s has %zu labels but output 0 has %lld classes\n", o.labels.c_str(), labels.size(),
                   static_cast<long long>(out.num_elements() / std::max<int64_t>(1, out.shape.empty() ? 1 : out.shape[0])));
    }
    fmt::print("top-{} of output 0:\n", o.top);
    for (const TopEntry& e : TopK(out, o.top)) {
      std::string label = e.index < static_cast<int64_t>(labels.size()) ? labels[static_cast<size_t>(e.index)] : "";
      fmt::print("{:.5f}  {}{}\n", e.score, e.index, label.empty() ? "" : "  " + Safe(label));
    }
  }
  return Status::Ok();
}

}  // namespace

int RunCommand(const RunOptions& options) {
  Status s = Run(options);
  if (!s.ok()) {
    std::fflush(stdout);
    return ReportError(s);
  }
  return 0;
}

}  // namespace relite::cli
