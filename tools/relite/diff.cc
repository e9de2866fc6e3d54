// relite diff: one model (or two) in two configurations on the same inputs,
// and how far their outputs (or, with --per-layer, every tensor in execution
// order) differ. The question asked when fp16, a delegate or a conversion
// changes an answer: how much, and where it starts.
#include "tools/relite/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/relite/common.h"
#include "tools/relite/tensor_io.h"

namespace relite::cli {
namespace {

struct Side {
  std::string model;
  DelegateFlags delegate;
  int threads = 0;
  Loaded loaded;
};

struct Difference {
  std::string what;   // "output 0 ('scores')" or "tensor 12 ('conv1')"
  int64_t count = 0;  // values compared
  double max_abs = 0, mean_abs = 0, max_rel = 0;
  int64_t over = 0;   // values past atol + rtol * |reference|
  int64_t first_over = -1;
  bool comparable = true;
  std::string note;
};

// Real value of element i: dequantized for 8/16-bit quantized tensors, so
// two configurations whose quantization differs still compare meaningfully.
double RealValue(const Tensor& t, int64_t i) {
  const double v = ElementAsDouble(t, i);
  // Per-channel parameters belong to weights, which no node writes: raw values then.
  if (t.quant.IsQuantized() && !t.quant.IsPerChannel() && t.type != DataType::kFloat32 && t.type != DataType::kInt32 &&
      t.type != DataType::kInt64) {
    return t.quant.scale[0] * (v - static_cast<double>(t.quant.zero_point.empty() ? 0 : t.quant.zero_point[0]));
  }
  return v;
}

Difference Compare(const std::string& what, const Tensor& test, const Tensor& ref, double atol, double rtol) {
  Difference d;
  d.what = what;
  if (test.shape != ref.shape) {
    d.comparable = false;
    d.note = fmt::format("shapes differ: {} vs {}", ShapeToString(test.shape), ShapeToString(ref.shape));
    return d;
  }
  if (!IsNumeric(test.type) || !IsNumeric(ref.type) || test.data == nullptr || ref.data == nullptr) {
    d.comparable = false;
    d.note = test.data == nullptr || ref.data == nullptr ? "no data" : "not numeric";
    return d;
  }
  d.count = test.num_elements();
  double sum = 0;
  for (int64_t i = 0; i < d.count; ++i) {
    const double a = RealValue(test, i), b = RealValue(ref, i);
    double err = std::fabs(a - b);
    if (std::isnan(a) != std::isnan(b)) err = std::numeric_limits<double>::infinity();
    if (std::isnan(a) && std::isnan(b)) err = 0;
    sum += std::isfinite(err) ? err : 0;
    d.max_abs = std::max(d.max_abs, err);
    d.max_rel = std::max(d.max_rel, err / std::max(std::fabs(b), 1e-12));
    if (!(err <= atol + rtol * std::fabs(b))) {
      if (d.over++ == 0) d.first_over = i;
    }
  }
  d.mean_abs = d.count > 0 ? sum / static_cast<double>(d.count) : 0;
  return d;
}

std::string Label(const char* kind, int index, const Tensor& t) {
  return t.name.empty() ? fmt::format("{} {}", kind, index) : fmt::format("{} {} ('{}')", kind, index, Safe(t.name));
}

std::string SideName(const Side& s) {
  std::string name = s.delegate.name.empty() ? "cpu" : s.delegate.name;
  if (!s.delegate.name.empty() && s.delegate.precision != "fp32") name += " " + s.delegate.precision;
  return fmt::format("{} {} thread{}", name, s.threads, s.threads == 1 ? "" : "s");
}

std::string Json(const Difference& d) {
  return fmt::format(
      "{{\"tensor\": \"{}\", \"comparable\": {}, \"values\": {}, \"max_abs\": {}, \"mean_abs\": {}, \"max_rel\": {}, "
      "\"over_bound\": {}{}}}",
      JsonEscape(d.what), d.comparable ? "true" : "false", d.count, FormatNumber(d.max_abs), FormatNumber(d.mean_abs),
      std::isfinite(d.max_rel) ? FormatNumber(d.max_rel) : "null", d.over,
      d.comparable ? "" : fmt::format(", \"note\": \"{}\"", JsonEscape(d.note)));
}

Status Diff(const DiffOptions& o) {
  if (!(o.atol >= 0) || !(o.rtol >= 0)) return InvalidArgumentError("--atol and --rtol must be >= 0");
  Side test{o.model, o.delegate, o.threads > 0 ? o.threads : DefaultThreads(), {}};
  Side ref{o.ref_model.empty() ? o.model : o.ref_model, o.ref_delegate, o.ref_threads > 0 ? o.ref_threads : test.threads,
           {}};
  for (Side* s : {&test, &ref}) {
    RELITE_RETURN_IF_ERROR(LoadModel(s->model, s->threads, /*build=*/true, &s->loaded,
                                    /*preserve_all_tensors=*/o.per_layer, s->delegate, o.interpreter)
                               .WithContext(s == &test ? "test configuration" : "reference configuration"));
  }
  Interpreter& a = *test.loaded.interpreter;
  Interpreter& b = *ref.loaded.interpreter;
  if (a.num_inputs() != b.num_inputs() || a.num_outputs() != b.num_outputs()) {
    return InvalidArgumentError(fmt::format("the models differ: {} inputs / {} outputs vs {} / {}", a.num_inputs(),
                                            a.num_outputs(), b.num_inputs(), b.num_outputs()));
  }
  if (!o.inputs.empty() && static_cast<int>(o.inputs.size()) != a.num_inputs()) {
    return InvalidArgumentError(fmt::format("the model has {} inputs but {} --input files were given", a.num_inputs(),
                                            o.inputs.size()));
  }
  for (int i = 0; i < a.num_inputs(); ++i) {
    Tensor& ta = *a.input_tensor(i);
    Tensor& tb = *b.input_tensor(i);
    if (ta.type != tb.type || ta.shape != tb.shape) {
      return InvalidArgumentError(fmt::format("input {} differs between the models: {} {} vs {} {}", i,
                                              DataTypeName(ta.type), ShapeToString(ta.shape), DataTypeName(tb.type),
                                              ShapeToString(tb.shape)));
    }
    if (o.inputs.empty()) {
      FillPseudoRandom(ta, static_cast<uint64_t>(i) + o.seed * 1000);
    } else {
      RELITE_RETURN_IF_ERROR(FillInputFromFile(o.inputs[static_cast<size_t>(i)], i, ta, FloatRange::kMinusOneToOne));
    }
    if (ta.bytes != tb.bytes) return InternalError(fmt::format("input {}: sizes differ", i));
    std::copy_n(static_cast<const uint8_t*>(ta.data), ta.bytes, static_cast<uint8_t*>(tb.data));
  }
  RELITE_RETURN_IF_ERROR(a.Invoke().WithContext("test configuration: Invoke"));
  RELITE_RETURN_IF_ERROR(b.Invoke().WithContext("reference configuration: Invoke"));

  std::vector<Difference> outputs;
  for (int i = 0; i < a.num_outputs(); ++i) {
    outputs.push_back(Compare(Label("output", i, *a.output_tensor(i)), *a.output_tensor(i), *b.output_tensor(i), o.atol, o.rtol));
  }
  // --per-layer: the tensors each node writes, in execution order; the
  // reference's tensor of the same name (or index, when names repeat or are
  // absent) is the counterpart.
  std::vector<Difference> layers;
  const Difference* first_bad = nullptr;
  int first_bad_node = -1, first_bad_index = -1;
  if (o.per_layer) {
    std::map<std::string, int> by_name;
    for (int t = 0; t < b.tensors_size(); ++t) {
      const std::string& n = b.tensor(t)->name;
      if (!n.empty()) by_name[n] = by_name.count(n) ? -1 : t;
    }
    for (int node = 0; node < a.nodes_size(); ++node) {
      const Node& n = a.node(node);
      if (n.op_name.rfind("DELEGATE:", 0) == 0) continue;  // partition nodes: their model nodes are listed
      for (int t : n.outputs) {
        const Tensor& ta = *a.tensor(t);
        int u = t;
        if (!ta.name.empty() && by_name.count(ta.name) && by_name[ta.name] >= 0) u = by_name[ta.name];
        if (u < 0 || u >= b.tensors_size()) continue;
        Difference d = Compare(fmt::format("{} written by node {} ({})", Label("tensor", t, ta), node, Safe(n.op_name)),
                               ta, *b.tensor(u), o.atol, o.rtol);
        if (d.comparable && d.over > 0 && first_bad_index < 0) {
          first_bad_index = static_cast<int>(layers.size());
          first_bad_node = node;
        }
        layers.push_back(d);
      }
    }
    if (first_bad_index >= 0) first_bad = &layers[static_cast<size_t>(first_bad_index)];
  }

  if (o.json) {
    std::string s = fmt::format("{{\"model\": \"{}\", \"test\": \"{}\", \"reference\": \"{}\", \"atol\": {}, \"rtol\": {}, \"outputs\": [",
                                JsonEscape(o.model), JsonEscape(SideName(test)), JsonEscape(SideName(ref)),
                                FormatNumber(o.atol), FormatNumber(o.rtol));
    for (size_t i = 0; i < outputs.size(); ++i) s += (i ? ", " : "") + Json(outputs[i]);
    s += "]";
    if (o.per_layer) {
      s += ", \"layers\": [";
      for (size_t i = 0; i < layers.size(); ++i) s += (i ? ", " : "") + Json(layers[i]);
      s += "], \"first_over_bound\": " + (first_bad ? fmt::format("\"{}\"", JsonEscape(first_bad->what)) : std::string("null"));
    }
    fmt::print("{}}}\n", s);
    return Status::Ok();
  }
  fmt::print("model: {}{}\n", o.model, o.ref_model.empty() ? "" : " vs " + o.ref_model);
  fmt::print("test: {}   reference: {}   bound: {} + {} * |reference|\n", SideName(test), SideName(ref),
             FormatNumber(o.atol), FormatNumber(o.rtol));
  auto row = [](const Difference& d) {
    if (!d.comparable) return fmt::format("  {:<48} {}\n", d.what, d.note);
    return fmt::format("  {:<48} max |a-b| {:<11.4g} mean {:<11.4g} max rel {:<11.4g} {} of {} past the bound\n", d.what,
                       d.max_abs, d.mean_abs, d.max_rel, d.over, d.count);
  };
  fmt::print("outputs:\n");
  for (const Difference& d : outputs) fmt::print("{}", row(d));
  if (o.per_layer) {
    fmt::print("layers ({} tensors, in execution order):\n", layers.size());
    for (const Difference& d : layers) {
      if (o.verbose || (d.comparable && d.over > 0) || !d.comparable) fmt::print("{}", row(d));
    }
    if (first_bad != nullptr) {
      fmt::print("first tensor past the bound: {} (node {})\n", first_bad->what, first_bad_node);
    } else {
      fmt::print("every tensor is within the bound\n");
    }
  }
  return Status::Ok();
}

}  // namespace

int DiffCommand(const DiffOptions& options) {
  Status s = Diff(options);
  if (!s.ok()) {
    std::fflush(stdout);
    return ReportError(s);
  }
  return 0;
}

}  // namespace relite::cli
