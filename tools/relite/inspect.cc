// relite inspect: what is in a model and how relite plans it.
#include <algorithm>
#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "tflite_generated.h"
#include "src/core/model/model_facts.h"
#include "tools/relite/common.h"

namespace relite::cli {
namespace {

constexpr int32_t kCustomCode = 32;

// Left-aligned text table; the last column is not padded.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void Print(const std::string& indent = "  ") const {
    std::vector<size_t> width;
    for (const auto& r : rows_)
      for (size_t c = 0; c < r.size(); ++c) {
        if (width.size() <= c) width.push_back(0);
        width[c] = std::max(width[c], r[c].size());
      }
    for (const auto& r : rows_) {
      std::string line = indent;
      for (size_t c = 0; c < r.size(); ++c) {
        line += r[c];
        if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      fmt::print("{}\n", line);
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string IndexList(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

template <typename T>
std::vector<int> ToVector(const flatbuffers::Vector<T>* v) {
  std::vector<int> out;
  if (v != nullptr)
    for (auto x : *v) out.push_back(static_cast<int>(x));
  return out;
}

std::string Bytes(size_t b) {
  if (b >= 1024 * 1024) return fmt::format("{} ({:.2f} MiB)", b, static_cast<double>(b) / (1024.0 * 1024.0));
  if (b >= 1024) return fmt::format("{} ({:.1f} KiB)", b, static_cast<double>(b) / 1024.0);
  return fmt::format("{}", b);
}

// A tensor as the model file describes it, completed with the interpreter's
// view when one was built.
struct TensorInfo {
  std::string name;
  DataType type = DataType::kFloat32;
  Shape shape;
  Quantization quant;
  bool is_variable = false;
  bool has_data = false;  // constant buffer in the file
  bool sparse = false;
  size_t bytes = 0;
  size_t file_bytes = 0;  // bytes of the constant buffer in the file
  bool bytes_known = true;
  std::string kind;
};

std::vector<TensorInfo> ReadTensors(const Model& model, const tflite::SubGraph* sg, Interpreter* interp) {
  std::vector<TensorInfo> out;
  if (sg == nullptr || sg->tensors() == nullptr) return out;
  for (flatbuffers::uoffset_t i = 0; i < sg->tensors()->size(); ++i) {
    const tflite::Tensor* ft = sg->tensors()->Get(i);
    TensorInfo t;
    t.name = ft->name() ? Safe(ft->name()->str()) : "";
    t.type = static_cast<DataType>(ft->type());
    if (ft->shape())
      for (int32_t d : *ft->shape()) t.shape.push_back(d);
    if (const auto* q = ft->quantization()) {
      if (q->scale())
        for (float s : *q->scale()) t.quant.scale.push_back(s);
      if (q->zero_point())
        for (int64_t z : *q->zero_point()) t.quant.zero_point.push_back(z);
      t.quant.quantized_dimension = q->quantized_dimension();
    }
    t.is_variable = ft->is_variable();
    t.sparse = ft->sparsity() != nullptr;
    // Sizes from what the verifier established (checked element counts).
    const TensorFacts& fact = model.facts().subgraphs[0].tensors[i];
    t.has_data = fact.constant();
    if (t.has_data) {
      t.bytes = t.file_bytes = fact.data_bytes;
    } else {
      size_t elem = DataTypeSize(t.type);
      t.bytes_known = elem > 0;
      t.bytes = t.bytes_known ? static_cast<size_t>(fact.elements) * elem : 0;
    }
    t.kind = t.has_data ? "constant" : t.is_variable ? "variable" : "arena";
    if (interp != nullptr && static_cast<int>(i) < interp->tensors_size()) {
      if (const Tensor* rt = interp->tensor(static_cast<int>(i))) {
        t.shape = rt->shape;
        t.bytes = rt->bytes;
        t.bytes_known = true;
        switch (rt->allocation) {
          case Allocation::kNone: t.kind = "none"; break;
          case Allocation::kArena: t.kind = "arena"; break;
          case Allocation::kConstant: t.kind = "constant"; break;
          case Allocation::kPersistent: t.kind = rt->is_variable ? "variable" : "persistent"; break;
          case Allocation::kDynamic: t.kind = "dynamic"; break;
        }
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

struct OpInfo {
  std::string name;
  int version = 1;
  std::vector<int> inputs, outputs;
  std::string folded = "?";
  std::string missing;  // why relite's CPU kernels cannot run it; empty when they can
};

// What BuiltinOpResolver lacks for this op code and version, or "".
std::string MissingKernel(const OpResolver& resolver, int32_t builtin, const std::string& custom_name, int version) {
  if (builtin == kCustomCode) {
    if (resolver.FindCustom(custom_name, version) != nullptr) return "";
    const OpRegistration* any = resolver.FindCustomAnyVersion(custom_name);
    return any ? fmt::format("version {} (relite has {}..{})", version, any->min_version, any->max_version)
               : "no kernel (custom op)";
  }
  if (resolver.FindBuiltin(builtin, version) != nullptr) return "";
  switch (static_cast<tflite::BuiltinOperator>(builtin)) {  // the interpreter's own kernels
#define RELITE_CORE_OP(code, lo, hi) \
  case tflite::BuiltinOperator::code: \
    return version >= lo && version <= hi ? "" : fmt::format("version {} (relite has {}..{})", version, lo, hi);
#include "src/core/interpreter/core_ops.inc"
#undef RELITE_CORE_OP
    default:
      break;
  }
  const OpRegistration* any = resolver.FindBuiltinAnyVersion(builtin);
  return any ? fmt::format("version {} (relite has {}..{})", version, any->min_version, any->max_version)
             : "no kernel";
}

std::vector<OpInfo> ReadOps(const tflite::Model* fb, const tflite::SubGraph* sg, Interpreter* interp) {
  std::vector<OpInfo> out;
  if (interp != nullptr) {
    for (int i = 0; i < interp->nodes_size(); ++i) {
      const Node& n = interp->node(i);
      out.push_back({Safe(n.op_name), n.version, n.inputs, n.outputs, interp->node_is_folded(i) ? "yes" : (interp->node_is_fused(i) ? "fused" : "no"), ""});
    }
    return out;
  }
  if (sg == nullptr || sg->operators() == nullptr) return out;
  const BuiltinOpResolver resolver;
  for (const tflite::Operator* op : *sg->operators()) {
    OpInfo info;
    const tflite::OperatorCode* code = nullptr;
    if (fb->operator_codes() && op->opcode_index() < fb->operator_codes()->size())
      code = fb->operator_codes()->Get(op->opcode_index());
    if (code == nullptr) {
      info.name = fmt::format("<bad opcode index {}>", op->opcode_index());
    } else {
      int32_t builtin =
          std::max(static_cast<int32_t>(code->deprecated_builtin_code()), static_cast<int32_t>(code->builtin_code()));
      info.version = code->version();
      const std::string custom = code->custom_code() ? code->custom_code()->str() : "";
      if (builtin == kCustomCode)
        info.name = code->custom_code() ? Safe(custom) : "CUSTOM(unnamed)";
      else
        info.name = BuiltinOpName(builtin);
      info.missing = MissingKernel(resolver, builtin, custom, info.version);
    }
    info.inputs = ToVector(op->inputs());
    info.outputs = ToVector(op->outputs());
    out.push_back(std::move(info));
  }
  return out;
}

void PrintIo(const char* title, const std::vector<int>& indices, const std::vector<TensorInfo>& tensors) {
  fmt::print("{} ({}):\n", title, indices.size());
  Table t({"#", "tensor", "dtype", "shape", "quantization", "name"});
  for (size_t i = 0; i < indices.size(); ++i) {
    int ti = indices[i];
    if (ti < 0 || static_cast<size_t>(ti) >= tensors.size()) {
      t.Add({std::to_string(i), std::to_string(ti), "?", "?", "?", "<invalid tensor index>"});
      continue;
    }
    const TensorInfo& x = tensors[static_cast<size_t>(ti)];
    t.Add({std::to_string(i), std::to_string(ti), DataTypeName(x.type), ShapeToString(x.shape), QuantSummary(x.quant),
           x.name});
  }
  t.Print();
}

}  // namespace

int InspectCommand(const InspectOptions& o) {
  const int threads = o.threads > 0 ? o.threads : DefaultThreads();
  Loaded loaded;
  Status build_status = LoadModel(o.model, threads, /*build=*/true, &loaded, /*preserve_all_tensors=*/false, o.delegate, o.interpreter);
  if (loaded.model == nullptr) return ReportError(build_status);
  // A delegate that cannot be created (unknown name) is an error, not a
  // model to describe without it.
  if (!o.delegate.name.empty() && loaded.delegate == nullptr && !build_status.ok()) return ReportError(build_status);
  const Model& model = *loaded.model;
  Interpreter* interp = loaded.interpreter.get();
  const tflite::Model* fb = model.fb();
  if (fb == nullptr) return ReportError(fmt::format("'{}': no flatbuffer root", o.model));

  const int num_subgraphs = fb->subgraphs() ? static_cast<int>(fb->subgraphs()->size()) : 0;
  const tflite::SubGraph* sg = num_subgraphs > 0 ? fb->subgraphs()->Get(0) : nullptr;

  fmt::print("model: {} ({} bytes)\n", o.model, model.size());
  fmt::print("description: {}\n", fb->description() ? Safe(fb->description()->str()) : "(none)");
  fmt::print("schema version: {}\n", fb->version());
  fmt::print("subgraphs: {}\n", num_subgraphs);
  for (int s = 0; s < num_subgraphs; ++s) {
    const tflite::SubGraph* g = fb->subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(s));
    fmt::print("  [{}] {}{}: {} tensors, {} operators\n", s, g->name() ? Safe(g->name()->str()) : "(unnamed)",
               s == 0 ? " (main)" : "", g->tensors() ? g->tensors()->size() : 0,
               g->operators() ? g->operators()->size() : 0);
  }
  if (interp != nullptr) fmt::print("threads: {}\n", interp->num_threads());
  fmt::print("\n");

  std::vector<TensorInfo> tensors = ReadTensors(model, sg, interp);
  std::vector<int> inputs = sg ? ToVector(sg->inputs()) : std::vector<int>{};
  std::vector<int> outputs = sg ? ToVector(sg->outputs()) : std::vector<int>{};
  PrintIo("inputs", inputs, tensors);
  PrintIo("outputs", outputs, tensors);
  fmt::print("\n");

  // SignatureDefs: the names a caller (e.g. TFLite's signature runner) uses.
  if (!model.signatures().empty()) {
    fmt::print("signatures ({}):\n", model.signatures().size());
    Table t({"key", "subgraph", "inputs (name: tensor)", "outputs (name: tensor)"});
    for (const Signature& sig : model.signatures()) {
      auto list = [](const std::vector<std::pair<std::string, int>>& v) {
        std::string out;
        for (const auto& [name, index] : v) out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", Safe(name), index);
        return out.empty() ? std::string("-") : out;
      };
      t.Add({Safe(sig.key), std::to_string(sig.subgraph), list(sig.inputs), list(sig.outputs)});
    }
    t.Print();
    fmt::print("\n");
  }

  std::vector<OpInfo> ops = ReadOps(fb, sg, interp);
  fmt::print("operators ({}):\n", ops.size());
  {
    Table t({"#", "op", "version", "folded", "inputs", "outputs"});
    for (size_t i = 0; i < ops.size(); ++i)
      t.Add({std::to_string(i), ops[i].name, std::to_string(ops[i].version), ops[i].folded, IndexList(ops[i].inputs),
             IndexList(ops[i].outputs)});
    t.Print();
  }
  fmt::print("\n");

  // Without an interpreter, every op the CPU kernels lack, all at once.
  std::map<std::string, std::vector<size_t>> missing;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].missing.empty()) missing[fmt::format("{} v{}: {}", ops[i].name, ops[i].version, ops[i].missing)].push_back(i);
  }
  if (!missing.empty()) {
    fmt::print("not supported by relite ({} kind{}):\n", missing.size(), missing.size() == 1 ? "" : "s");
    Table t({"op", "nodes"});
    for (const auto& [what, nodes] : missing) t.Add({what, fmt::format("{}", fmt::join(nodes, ", "))});
    t.Print();
    fmt::print("\n");
  }

  size_t constant_bytes = 0;
  fmt::print("tensors ({}):\n", tensors.size());
  {
    Table t({"#", "dtype", "shape", "bytes", "kind", "format", "quantization", "name"});
    for (size_t i = 0; i < tensors.size(); ++i) {
      const TensorInfo& x = tensors[i];
      std::string format = "-";
      if (x.has_data) {
        constant_bytes += x.file_bytes;
        format = x.sparse ? "sparse " + DataTypeName(x.type) : DataTypeName(x.type);
      } else if (x.kind == "persistent") {
        format = DataTypeName(x.type) + " (folded)";
      }
      t.Add({std::to_string(i), DataTypeName(x.type), ShapeToString(x.shape), x.bytes_known ? std::to_string(x.bytes) : "?",
             x.kind, format, QuantSummary(x.quant), x.name});
    }
    t.Print();
  }
  fmt::print("\n");

  fmt::print("memory:\n");
  fmt::print("  weights in file: {}\n", Bytes(constant_bytes));
  if (interp != nullptr) {
    size_t arena = interp->arena_bytes(), unplanned = interp->unplanned_bytes();
    double saving = unplanned > 0 ? 100.0 * (1.0 - static_cast<double>(arena) / static_cast<double>(unplanned)) : 0.0;
    fmt::print("  arena: {}\n", Bytes(arena));
    fmt::print("  without reuse: {} (arena saves {}, {:.1f}%)\n", Bytes(unplanned),
               Bytes(unplanned > arena ? unplanned - arena : 0), saving);
    fmt::print("  persistent: {}\n", Bytes(interp->persistent_bytes()));
    size_t largest = 0;
    for (int i = 0; i < interp->tensors_size(); ++i) largest = std::max(largest, interp->tensor(i)->bytes);
    fmt::print("  largest tensor: {}\n", Bytes(largest));
    fmt::print("  estimated work: {:.3g} multiply-accumulates per invoke\n", interp->estimated_macs());
  } else {
    fmt::print("  arena plan: unavailable (the interpreter could not be built)\n");
  }
  fmt::print("\n");

  if (interp != nullptr) {
    for (const DelegationReport& report : interp->delegation_reports()) {
      fmt::print("placement ({} delegate):\n", report.display_name);
      Table t({"node", "op", "placement", "reason or note (e.g. a fake-quant epilogue)"});
      for (const NodePlacement& p : report.nodes) {
        std::string where = DelegationReport::PlacementName(p, report.display_name);
        if (p.where == NodePlacement::Where::kCpu && interp->node_is_fused(p.node)) where = "CPU (fused into its producer)";
        std::string note = p.reason.empty() ? (p.detail.empty() ? "-" : Safe(p.detail)) : Safe(p.reason);
        t.Add({std::to_string(p.node), fmt::format("{} v{}", Safe(p.op_name), p.version), where, note});
      }
      t.Print();
      fmt::print("{}\n\n", report.Summary());
    }
  }

  std::map<std::string, int> counts;
  for (const OpInfo& op : ops) ++counts[op.name];
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  fmt::print("operator counts ({} kinds, {} ops):\n", sorted.size(), ops.size());
  {
    Table t({"op", "count"});
    for (const auto& [name, n] : sorted) t.Add({name, std::to_string(n)});
    t.Print();
  }

  if (!build_status.ok()) {
    std::fflush(stdout);
    return ReportError(build_status);
  }
  return 0;
}

}  // namespace relite::cli
