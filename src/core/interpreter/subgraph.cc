#include "src/core/interpreter/subgraph.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "fmt/format.h"
#include "src/core/delegate/partitioner.h"
#include "src/core/interpreter/graph_table.h"
#include "src/core/interpreter/thread_pool.h"
#include "src/core/interpreter/work_estimate.h"
#include "src/core/memory/arena_planner.h"
#include "src/core/model/model_facts.h"
#include "src/core/model/verifier.h"
#include "src/core/ops/fusion.h"
#include "src/core/ops/params.h"
#include "tflite_generated.h"

namespace relite {
namespace {

constexpr ActivationRange kNoClamp{-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()};

std::string FormatBytes(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1 << 30));
  if (bytes >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  return fmt::format("{} bytes", bytes);
}

std::string TensorName(const Tensor& t, int index) {
  return t.name.empty() ? fmt::format("tensor {}", index) : fmt::format("tensor {} ('{}')", index, t.name);
}

std::shared_ptr<uint8_t> AllocateAligned(size_t bytes) {
  const size_t padded = std::max<size_t>(kArenaAlignment, (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment);
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kArenaAlignment, padded));
  if (p == nullptr) return nullptr;
  return std::shared_ptr<uint8_t>(p, std::free);
}

}  // namespace

// The view of the subgraph a kernel gets while it is prepared or evaluated.
class NodeContext final : public KernelContext {
 public:
  NodeContext(Subgraph& sg, int node_index) : sg_(sg), node_(sg.nodes_[static_cast<size_t>(node_index)]) {}

  const Node& node() const override { return node_; }
  Tensor& input(int i) override { return Get(node_.inputs, i); }
  Tensor& output(int i) override { return Get(node_.outputs, i); }
  Tensor& intermediate(int i) override { return Get(node_.intermediates, i); }

  Status ResizeOutput(int i, Shape shape) override {
    if (i < 0 || i >= num_outputs()) return InternalError(node_.Describe() + ": output index " + std::to_string(i) + " out of range");
    const int t = node_.outputs[static_cast<size_t>(i)];
    // The one place computed shapes enter: what the verifier checks for
    // declared shapes (no negative dimension, no element count past 2^40,
    // which no byte count can then overflow) plus the tensor size limit.
    int64_t elements = 1;
    for (int32_t d : shape) {
      if (d < 0) return Error("computed a negative dimension for output " + std::to_string(i) + ": " + ShapeToString(shape));
      if (__builtin_mul_overflow(elements, static_cast<int64_t>(d), &elements) || elements > kMaxTensorElements) {
        return ResourceExhaustedError(fmt::format("{}: output {} ({}) would have shape {}, more than 2^40 elements",
                                                  node_.Describe(), i, TensorName(sg_.tensors_[static_cast<size_t>(t)], t),
                                                  ShapeToString(shape)));
      }
    }
    Tensor& tensor = sg_.tensors_[static_cast<size_t>(t)];
    // A variable keeps its storage (and the model's initial value) across
    // Invokes: its shape is the declared one, and a node must produce that.
    if (tensor.is_variable && tensor.shape != shape) {
      return Error(fmt::format("output {} is the variable {} of shape {}, but the node computes shape {}", i,
                               TensorName(tensor, t), ShapeToString(tensor.shape), ShapeToString(shape)));
    }
    const Shape declared = std::move(tensor.shape);
    tensor.shape = std::move(shape);
    if (Status s = sg_.CheckTensorBytes(tensor, fmt::format("{}: output {} ({})", node_.Describe(), i, TensorName(tensor, t)));
        !s.ok()) {
      tensor.shape = declared;
      return s;
    }
    sg_.output_set_[static_cast<size_t>(t)] = 1;
    if (tensor.allocation == Allocation::kDynamic) return sg_.SizeDynamicTensor(t);
    return Status::Ok();
  }

  void RequestScratch(size_t bytes) override {
    auto& s = sg_.scratch_bytes_[static_cast<size_t>(node_.index)];
    s = std::max(s, bytes);
  }
  void* scratch() override { return sg_.scratch_ptr_[static_cast<size_t>(node_.index)]; }
  bool InputValuesReady(int i) override {
    return has_input(i) && (sg_.preparing_at_invoke_ || input(i).is_constant());
  }
  Status NeedInputValues(int i) override {
    if (sg_.preparing_at_invoke_) return InternalError(node_.Describe() + ": input " + std::to_string(i) + " still has no values");
    sg_.defer_requested_ = true;
    return UnimplementedError(node_.Describe() + ": prepared at Invoke (input " + std::to_string(i) + "'s values decide the output shape)");
  }

  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn) override {
    sg_.pool_->ParallelFor(n, min_chunk, fn);
  }
  int num_threads() const override { return sg_.pool_->size(); }

 private:
  Tensor& Get(const std::vector<int>& list, int i) {
    // Kernels check has_input() and counts in Prepare; an absent slot maps to
    // a shared empty tensor rather than out-of-bounds memory.
    if (i < 0 || static_cast<size_t>(i) >= list.size() || list[static_cast<size_t>(i)] < 0) {
      empty_ = Tensor();
      return empty_;
    }
    return sg_.tensors_[static_cast<size_t>(list[static_cast<size_t>(i)])];
  }

  Subgraph& sg_;
  const Node& node_;
  Tensor empty_;
};

Subgraph::Subgraph(const Model& model, int index, ThreadPool* pool, bool preserve_all_tensors, const ResourceLimits& limits,
                   GraphTable* graphs)
    : model_(model), index_(index), pool_(pool), graphs_(graphs), preserve_all_tensors_(preserve_all_tensors),
      limits_(limits) {}
Subgraph::~Subgraph() = default;

Status Subgraph::Fail(const std::string& message) const {
  return InvalidArgumentError(fmt::format("{}: subgraph {}: {}", model_.name(), index_, message));
}

Status Subgraph::CheckTensorBytes(const Tensor& tensor, const std::string& what) const {
  // Element counts are at most 2^40 and sizes at most 16 bytes: no overflow.
  const uint64_t bytes = static_cast<uint64_t>(tensor.num_elements()) * std::max<size_t>(DataTypeSize(tensor.type), 1);
  if (limits_.max_tensor_bytes == 0 || bytes <= limits_.max_tensor_bytes) return Status::Ok();
  return ResourceExhaustedError(fmt::format(
      "{} would hold {} ({} {}), over the limit of {} per tensor (ResourceLimits::max_tensor_bytes; relite CLI "
      "--max-tensor-bytes)",
      what, FormatBytes(bytes), ShapeToString(tensor.shape), DataTypeName(tensor.type),
      FormatBytes(limits_.max_tensor_bytes)));
}

Status Subgraph::AddWork(const Node& node) {
  double macs = EstimateNodeMacs(node, tensors_);
  const auto i = static_cast<size_t>(node.index);
  if (i < fused_pointwise_.size() && fused_pointwise_[i] >= 0) {
    // The fused 1x1 convolution: its input's elements x its outputs (its own
    // output tensor is never prepared, so its shape may be stale).
    const Node& conv = nodes_[static_cast<size_t>(fused_pointwise_[i])];
    macs += static_cast<double>(tensors_[static_cast<size_t>(conv.inputs[0])].num_elements()) *
            tensors_[static_cast<size_t>(conv.inputs[1])].dim(0);
  }
  if (i < fused_projection_.size() && fused_projection_[i] >= 0) {
    // The fused projection: the node's output (the convolution's) elements x
    // the convolution's depth.
    const Node& conv = nodes_[static_cast<size_t>(fused_projection_[i])];
    macs += static_cast<double>(tensors_[static_cast<size_t>(node.outputs[0])].num_elements()) *
            tensors_[static_cast<size_t>(conv.inputs[1])].dim(3);
  }
  estimated_macs_ += macs;
  if (limits_.max_macs <= 0 || estimated_macs_ <= limits_.max_macs) return Status::Ok();
  return ResourceExhaustedError(fmt::format(
      "{}: {}: the model would need about {:.3g} multiply-accumulates per Invoke ({:.3g} in this node), over the limit "
      "of {:.3g} (ResourceLimits::max_macs; relite CLI --max-macs)",
      model_.name(), node.Describe(), estimated_macs_, macs, limits_.max_macs));
}

Status Subgraph::Build(const OpResolver& resolver) {
  RELITE_RETURN_IF_ERROR(ReadTensors());
  RELITE_RETURN_IF_ERROR(ReadNodes(resolver));
  // A zero-element tensor that no operator writes and the caller does not
  // feed (e.g. an empty shape or axis list) is a constant with no bytes.
  std::vector<uint8_t> fed(tensors_.size(), 0);
  for (int t : inputs_) fed[static_cast<size_t>(t)] = 1;
  for (const Node& node : nodes_) {
    for (int t : node.outputs) fed[static_cast<size_t>(t)] = 1;
  }
  for (size_t t = 0; t < tensors_.size(); ++t) {
    Tensor& tensor = tensors_[t];
    if (!fed[t] && tensor.allocation == Allocation::kNone && !tensor.is_variable && !tensor.shape.empty() &&
        tensor.num_elements() == 0) {
      tensor.allocation = Allocation::kConstant;
    }
  }
  return Status::Ok();
}

Status Subgraph::ReadTensors() {
  const auto* sg = model_.fb()->subgraphs()->Get(static_cast<uint32_t>(index_));
  const std::vector<TensorFacts>& facts = model_.facts().subgraphs[static_cast<size_t>(index_)].tensors;
  const uint32_t n = sg->tensors() ? sg->tensors()->size() : 0;
  tensors_.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const auto* src = sg->tensors()->Get(i);
    const TensorFacts& fact = facts[i];
    Tensor& t = tensors_[i];
    t.name = src->name() ? src->name()->str() : std::string();
    t.type = static_cast<DataType>(src->type());
    if (src->shape()) t.shape.assign(src->shape()->begin(), src->shape()->end());
    if (src->shape_signature()) t.shape_signature.assign(src->shape_signature()->begin(), src->shape_signature()->end());
    t.is_variable = src->is_variable();
    if (const auto* q = src->quantization()) {
      if (q->scale()) t.quant.scale.assign(q->scale()->begin(), q->scale()->end());
      if (q->zero_point()) t.quant.zero_point.assign(q->zero_point()->begin(), q->zero_point()->end());
      if (t.quant.zero_point.empty() && !t.quant.scale.empty()) t.quant.zero_point.assign(t.quant.scale.size(), 0);
      t.quant.quantized_dimension = q->quantized_dimension();
    }
    t.sparsity = src->sparsity();
    if (fact.constant()) {
      if (reinterpret_cast<uintptr_t>(fact.data) % 16 == 0 && !t.is_variable) {
        t.data = const_cast<uint8_t*>(fact.data);  // read-only: the verifier proved no operator or caller writes it
        t.allocation = Allocation::kConstant;
      } else {
        // Misaligned constants (and variables, which are written) get their own copy.
        t.owned = AllocateAligned(fact.data_bytes);
        if (!t.owned) return Fail(fmt::format("out of memory copying tensor {}", i));
        std::memcpy(t.owned.get(), fact.data, fact.data_bytes);
        t.data = t.owned.get();
        t.allocation = Allocation::kPersistent;
      }
      t.bytes = fact.data_bytes;
    }
  }
  if (sg->inputs()) inputs_.assign(sg->inputs()->begin(), sg->inputs()->end());
  if (sg->outputs()) outputs_.assign(sg->outputs()->begin(), sg->outputs()->end());
  output_set_.assign(n, 0);
  return Status::Ok();
}

namespace {

// Every op of a subgraph that relite cannot run, so that one error names them
// all (op, version, nodes) instead of the first only.
struct UnsupportedOps {
  std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;  // what is missing -> its nodes
  std::vector<Status> refusals;  // factories that rejected their node (the message names it)

  void Add(const std::string& what, uint32_t node) {
    for (auto& [name, nodes] : groups) {
      if (name == what) {
        nodes.push_back(node);
        return;
      }
    }
    groups.push_back({what, {node}});
  }
  void AddRefusal(const Status& s) { refusals.push_back(s); }
  bool empty() const { return groups.empty() && refusals.empty(); }
  bool only_refusal() const { return groups.empty() && refusals.size() == 1; }

  std::string Message() const {
    size_t nodes = refusals.size();
    for (const auto& g : groups) nodes += g.second.size();
    std::string m = fmt::format("{} node{} cannot run: ", nodes, nodes == 1 ? "" : "s");
    bool first = true;
    for (const auto& [what, list] : groups) {
      // A long list is cut: the first nodes locate the op well enough.
      constexpr size_t kShown = 16;
      const size_t shown = std::min(list.size(), kShown);
      m += fmt::format("{}{} at node{} {}", first ? "" : "; ", what, list.size() == 1 ? "" : "s",
                       fmt::join(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(shown), ", "));
      if (shown < list.size()) m += fmt::format(" and {} more", list.size() - shown);
      first = false;
    }
    for (const Status& s : refusals) {
      m += (first ? "" : "; ") + s.message();
      first = false;
    }
    return m;
  }
};

}  // namespace

Status Subgraph::ReadNodes(const OpResolver& resolver) {
  UnsupportedOps gaps;
  const auto* sg = model_.fb()->subgraphs()->Get(static_cast<uint32_t>(index_));
  const uint32_t n = sg->operators() ? sg->operators()->size() : 0;
  nodes_.resize(n);
  kernels_.resize(n);
  folded_.assign(n, 0);
  fused_clamp_.assign(n, kNoClamp);
  scratch_bytes_.assign(n, 0);
  scratch_ptr_.assign(n, nullptr);
  model_node_count_ = n;
  execution_plan_.resize(n);
  for (uint32_t i = 0; i < n; ++i) execution_plan_[i] = static_cast<int>(i);
  for (uint32_t i = 0; i < n; ++i) {
    const auto* op = sg->operators()->Get(i);
    const auto* code = model_.fb()->operator_codes()->Get(op->opcode_index());
    Node& node = nodes_[i];
    node.index = static_cast<int>(i);
    node.builtin_code = GetBuiltinCode(code);
    node.version = code->version();
    node.op_name = node.is_custom() ? code->custom_code()->str() : BuiltinOpName(node.builtin_code);
    if (op->inputs()) node.inputs.assign(op->inputs()->begin(), op->inputs()->end());
    if (op->outputs()) node.outputs.assign(op->outputs()->begin(), op->outputs()->end());
    if (op->intermediates()) node.intermediates.assign(op->intermediates()->begin(), op->intermediates()->end());
    for (int t : node.inputs) node.input_types.push_back(t >= 0 ? tensors_[static_cast<size_t>(t)].type : DataType::kFloat32);
    for (int t : node.outputs) node.output_types.push_back(tensors_[static_cast<size_t>(t)].type);
    node.builtin_options_type = static_cast<uint8_t>(op->builtin_options_type());
    node.builtin_options = op->builtin_options();
    if (op->custom_options() && op->custom_options()->size() > 0) {
      node.custom_options = op->custom_options()->data();
      node.custom_options_size = op->custom_options()->size();
    } else if (op->large_custom_options_offset() > 1) {
      node.custom_options = model_.data() + op->large_custom_options_offset();
      node.custom_options_size = static_cast<size_t>(op->large_custom_options_size());
    }

    if (graphs_ != nullptr && IsCoreOp(node)) {
      // Control flow and resource variables: the interpreter's own kernels.
      auto kernel = CreateCoreKernel(node, *graphs_, index_);
      if (!kernel.ok()) {
        gaps.AddRefusal(kernel.status());
        continue;
      }
      kernels_[i] = std::move(kernel).value();
      continue;
    }
    const OpRegistration* reg = nullptr;
    if (node.is_custom()) {
      reg = resolver.FindCustom(node.op_name, node.version);
      if (reg == nullptr) {
        if (const auto* any = resolver.FindCustomAnyVersion(node.op_name)) {
          gaps.Add(fmt::format("custom op '{}' version {} is not supported (registered versions {}..{})", node.op_name,
                               node.version, any->min_version, any->max_version),
                   i);
        } else {
          gaps.Add(fmt::format("custom op '{}' has no registered kernel (relite does not implement it; an application "
                               "can register one with OpResolver::AddCustom(\"{}\", ...))",
                               node.op_name, node.op_name),
                   i);
        }
        continue;
      }
    } else {
      reg = resolver.FindBuiltin(node.builtin_code, node.version);
      if (reg == nullptr) {
        if (const auto* any = resolver.FindBuiltinAnyVersion(node.builtin_code)) {
          gaps.Add(fmt::format("op {} version {} is not supported (supported versions {}..{})", node.op_name,
                               node.version, any->min_version, any->max_version),
                   i);
        } else {
          gaps.Add(fmt::format("builtin op {} (code {}) is not supported by relite", node.op_name, node.builtin_code), i);
        }
        continue;
      }
    }
    auto kernel = reg->create(node);
    if (!kernel.ok()) {
      // A kernel that refuses its node (a type or option relite does not
      // implement, malformed options) is one more gap, reported together.
      gaps.AddRefusal(kernel.status());
      continue;
    }
    kernels_[i] = std::move(kernel).value();
    if (!kernels_[i]) return Fail(fmt::format("{}: kernel factory returned no kernel", node.Describe()));
  }
  if (!gaps.empty()) {
    // One refusal alone keeps its own code and words, as before.
    if (gaps.only_refusal()) return gaps.refusals[0].WithContext(fmt::format("{}: subgraph {}", model_.name(), index_));
    return Fail(gaps.Message());
  }
  return Status::Ok();
}

Status Subgraph::ResizeInput(int input_index, const Shape& shape) {
  if (input_index < 0 || input_index >= static_cast<int>(inputs_.size())) {
    return InvalidArgumentError(fmt::format("input index {} is out of range (the model has {} inputs)", input_index,
                                            inputs_.size()));
  }
  int64_t elements = 1;
  for (int32_t d : shape) {
    if (d < 0) return InvalidArgumentError(fmt::format("input {}: negative dimension in {}", input_index, ShapeToString(shape)));
    if (__builtin_mul_overflow(elements, static_cast<int64_t>(d), &elements) || elements > kMaxTensorElements) {
      return ResourceExhaustedError(fmt::format("input {}: shape {} has more than 2^40 elements", input_index, ShapeToString(shape)));
    }
  }
  const int index = inputs_[static_cast<size_t>(input_index)];
  Tensor& t = tensors_[static_cast<size_t>(index)];
  if (t.shape != shape) {
    Shape old = std::move(t.shape);
    t.shape = shape;
    if (Status s = CheckTensorBytes(t, fmt::format("input {} ({})", input_index, TensorName(t, index))); !s.ok()) {
      t.shape = std::move(old);
      return s;
    }
    allocated_ = false;
  }
  return Status::Ok();
}

Subgraph::TensorUses Subgraph::ComputeTensorUses() const {
  TensorUses uses{std::vector<int>(tensors_.size(), -1), std::vector<int>(tensors_.size(), 0)};
  for (int index : execution_plan_) {
    if (folded_[static_cast<size_t>(index)]) continue;  // e.g. an ADD fused by FuseResidualAdds
    const Node& node = nodes_[static_cast<size_t>(index)];
    for (int t : node.outputs) uses.writer[static_cast<size_t>(t)] = node.index;
    for (int t : node.inputs) {
      if (t >= 0) ++uses.readers[static_cast<size_t>(t)];
    }
  }
  for (int t : outputs_) ++uses.readers[static_cast<size_t>(t)];  // a graph output must keep its values
  return uses;
}

void Subgraph::FuseResidualAdds() {
  constexpr int32_t kAdd = 0, kPad = 34;
  TensorUses uses = ComputeTensorUses();
  std::vector<int>& writer = uses.writer;
  const std::vector<int>& readers = uses.readers;
  std::vector<int> position(nodes_.size(), -1);
  for (size_t i = 0; i < execution_plan_.size(); ++i) {
    position[static_cast<size_t>(execution_plan_[i])] = static_cast<int>(i);
  }
  // Ready before the node at plan position `pos` runs: a graph input, a
  // constant, or the output of an earlier node.
  auto ready_before = [&](int t, int pos) {
    const int w = writer[static_cast<size_t>(t)];
    return w < 0 || position[static_cast<size_t>(w)] < pos;
  };
  auto is_float = [&](int t) { return tensors_[static_cast<size_t>(t)].type == DataType::kFloat32; };
  // A PAD that only appends zero channels: the consumer can read its input instead.
  auto channel_pad_input = [&](int t) -> int {
    const int w = writer[static_cast<size_t>(t)];
    if (w < 0 || readers[static_cast<size_t>(t)] != 1) return -1;
    const Node& pad = nodes_[static_cast<size_t>(w)];
    if (pad.builtin_code != kPad || pad.inputs.size() != 2 || pad.outputs.size() != 1 || pad.inputs[0] < 0 ||
        pad.inputs[1] < 0 || folded_[static_cast<size_t>(w)]) {
      return -1;
    }
    const Tensor& in = tensors_[static_cast<size_t>(pad.inputs[0])];
    const Tensor& paddings = tensors_[static_cast<size_t>(pad.inputs[1])];
    if (in.type != DataType::kFloat32 || in.rank() != 4 || !paddings.is_constant() || paddings.data == nullptr ||
        paddings.num_elements() != 8) {
      return -1;
    }
    for (int i = 0; i < 8; ++i) {
      int64_t v;
      if (paddings.type == DataType::kInt32) {
        v = paddings.data_as<int32_t>()[i];
      } else if (paddings.type == DataType::kInt64) {
        v = paddings.data_as<int64_t>()[i];
      } else {
        return -1;
      }
      if (i != 7 ? v != 0 : v < 0) return -1;
    }
    return pad.inputs[0];
  };
  for (int index : execution_plan_) {
    Node& add = nodes_[static_cast<size_t>(index)];
    if (folded_[static_cast<size_t>(index)] || add.is_custom() || add.builtin_code != kAdd || add.inputs.size() != 2 ||
        add.outputs.size() != 1 || add.inputs[0] < 0 || add.inputs[1] < 0) {
      continue;
    }
    const Tensor& sum = tensors_[static_cast<size_t>(add.outputs[0])];
    if (!is_float(add.outputs[0]) || sum.is_variable || sum.rank() != 4) continue;
    const StatusOr<Activation> act = ParseFusedActivation(add);
    if (!act.ok() || !IsClampActivation(*act)) continue;
    // Its own activation, then a RELU that FuseClamps gave its kernel.
    const ActivationRange own = GetActivationRange(*act);
    const ActivationRange taken = fused_clamp_[static_cast<size_t>(index)];
    const ActivationRange range{std::max(own.min, taken.min), std::min(own.max, taken.max)};
    if (range.min > range.max) continue;
    for (int k = 0; k < 2; ++k) {
      const int a = add.inputs[static_cast<size_t>(k)], b = add.inputs[static_cast<size_t>(1 - k)];
      const int w = writer[static_cast<size_t>(a)];
      if (w < 0 || a == b || readers[static_cast<size_t>(a)] != 1 || !is_float(a) || !is_float(b)) continue;
      Node& producer = nodes_[static_cast<size_t>(w)];
      Kernel* kernel = kernels_[static_cast<size_t>(w)].get();
      const int slot = kernel->residual_input_index();
      if (slot < 0 || producer.outputs.size() != 1 || tensors_[static_cast<size_t>(a)].shape != sum.shape) continue;
      const int producer_pos = position[static_cast<size_t>(w)];
      // Prefer reading through a channel PAD: then the PAD need not run either.
      int residual = -1, skipped_pad = -1;
      const int pad_in = channel_pad_input(b);
      if (pad_in >= 0 && ready_before(pad_in, producer_pos)) {
        const Shape& x = tensors_[static_cast<size_t>(pad_in)].shape;
        if (x[0] == sum.shape[0] && x[1] == sum.shape[1] && x[2] == sum.shape[2] && x[3] <= sum.shape[3]) {
          residual = pad_in;
          skipped_pad = writer[static_cast<size_t>(b)];
        }
      }
      if (residual < 0 && tensors_[static_cast<size_t>(b)].shape == sum.shape && ready_before(b, producer_pos)) {
        residual = b;
      }
      if (residual < 0 || !kernel->FuseResidualAdd(slot, range.min, range.max)) continue;
      // The producer reads the operand and writes the ADD's output; the ADD
      // (and the channel PAD) no longer run.
      while (static_cast<int>(producer.inputs.size()) < slot) producer.inputs.push_back(-1);
      producer.inputs.push_back(residual);
      producer.input_types.resize(producer.inputs.size(), DataType::kFloat32);
      producer.outputs[0] = add.outputs[0];
      writer[static_cast<size_t>(add.outputs[0])] = producer.index;
      folded_[static_cast<size_t>(index)] = kFusedNode;
      if (skipped_pad >= 0) folded_[static_cast<size_t>(skipped_pad)] = kFusedNode;
      break;
    }
  }
}

void Subgraph::FuseClamps() {
  constexpr int32_t kRelu = 19, kReluN1To1 = 20, kRelu6 = 21;
  TensorUses uses = ComputeTensorUses();
  for (int index : execution_plan_) {
    const Node& clamp = nodes_[static_cast<size_t>(index)];
    if (folded_[static_cast<size_t>(index)]) continue;
    if (clamp.is_custom() || clamp.inputs.size() != 1 || clamp.outputs.size() != 1 || clamp.inputs[0] < 0) continue;
    float lo, hi;
    if (clamp.builtin_code == kRelu) {
      lo = 0.f, hi = std::numeric_limits<float>::infinity();
    } else if (clamp.builtin_code == kRelu6) {
      lo = 0.f, hi = 6.f;
    } else if (clamp.builtin_code == kReluN1To1) {
      lo = -1.f, hi = 1.f;
    } else {
      continue;
    }
    const auto mid = static_cast<size_t>(clamp.inputs[0]);
    const Tensor& in = tensors_[mid];
    const Tensor& out = tensors_[static_cast<size_t>(clamp.outputs[0])];
    if (in.type != out.type || out.is_variable) continue;
    if (in.type != DataType::kFloat32) {
      // A quantized clamp folds into its producer only when it does not
      // requantize: same scale and zero point on both sides.
      const bool int8ish = in.type == DataType::kUInt8 || in.type == DataType::kInt8 || in.type == DataType::kInt16;
      if (!int8ish || in.quant.IsPerChannel() || in.quant.scale != out.quant.scale ||
          in.quant.zero_point != out.quant.zero_point || !in.quant.IsQuantized())
        continue;
    }
    const int producer = AbsorbIntoProducer(index, uses, [&](Kernel& k) { return k.FuseClamp(lo, hi); });
    if (producer < 0) continue;
    // The node's options no longer tell its whole activation (FuseResidualAdds reads this).
    ActivationRange& taken = fused_clamp_[static_cast<size_t>(producer)];
    taken = {std::max(taken.min, lo), std::min(taken.max, hi)};
  }
}

int Subgraph::AbsorbIntoProducer(int index, TensorUses& uses, const std::function<bool(Kernel&)>& offer) {
  const Node& node = nodes_[static_cast<size_t>(index)];
  const auto mid = static_cast<size_t>(node.inputs[0]);
  if (uses.writer[mid] < 0 || uses.readers[mid] != 1) return -1;
  Node& producer = nodes_[static_cast<size_t>(uses.writer[mid])];
  if (producer.outputs.size() != 1 || !offer(*kernels_[static_cast<size_t>(producer.index)])) return -1;
  // The producer now writes the node's output; the tensor between them is unused.
  producer.outputs[0] = node.outputs[0];
  uses.writer[static_cast<size_t>(node.outputs[0])] = producer.index;
  folded_[static_cast<size_t>(index)] = kFusedNode;
  return producer.index;
}

// The GEMM a kernel fusing a 1x1 CONV_2D runs is the one CONV_2D runs for 1x1
// layers of more than four outputs (fewer take a dot-product kernel): the
// fusions take convolutions of at least this many outputs, for the same bits.
constexpr int kMinFusedPointwiseOutputs = 8;

bool Subgraph::ConstantOnceFolded(int t, const TensorUses& uses, const std::vector<uint8_t>& will_fold) const {
  const Tensor& tensor = tensors_[static_cast<size_t>(t)];
  const int writer = uses.writer[static_cast<size_t>(t)];
  return (tensor.is_constant() && tensor.data != nullptr) || (writer >= 0 && will_fold[static_cast<size_t>(writer)]);
}

bool Subgraph::IsFloatTensor(int t) const {
  return t >= 0 && tensors_[static_cast<size_t>(t)].type == DataType::kFloat32;
}

void Subgraph::FusePointwiseInputs() {
  constexpr int32_t kConv2D = 3, kDepthwiseConv2D = 4;
  // Below this the expanded tensor stays in a core's L2 between the two
  // kernels, and the unfused ones are as fast (they have tuned paths for
  // small maps).
  constexpr int64_t kMinExpandedBytes = int64_t{1} << 20;
  fused_pointwise_.assign(nodes_.size(), -1);
  TensorUses uses = ComputeTensorUses();
  // Weights behind a DEQUANTIZE (float16 files) are constant once folded,
  // which happens after this pass; the kernel checks them at Prepare.
  const std::vector<uint8_t> will_fold = WillFold();
  auto constant = [&](int t) { return ConstantOnceFolded(t, uses, will_fold); };
  auto float_tensor = [&](int t) { return IsFloatTensor(t); };
  for (int index : execution_plan_) {
    Node& dw = nodes_[static_cast<size_t>(index)];
    if (folded_[static_cast<size_t>(index)] || dw.is_custom() || dw.builtin_code != kDepthwiseConv2D ||
        dw.outputs.size() != 1 || dw.inputs.size() < 2 || dw.inputs.size() > 3 || dw.inputs[0] < 0) {
      continue;  // (more than 3 inputs: an ADD is fused into it already)
    }
    const int mid = dw.inputs[0];
    const int w = uses.writer[static_cast<size_t>(mid)];
    if (w < 0 || uses.readers[static_cast<size_t>(mid)] != 1 || folded_[static_cast<size_t>(w)]) continue;
    const Node& conv = nodes_[static_cast<size_t>(w)];
    if (conv.is_custom() || conv.builtin_code != kConv2D || conv.outputs.size() != 1 || conv.inputs.size() < 2 ||
        conv.inputs.size() > 3 || !float_tensor(conv.inputs[0]) || !float_tensor(conv.inputs[1]) || !float_tensor(mid)) {
      continue;
    }
    const int bias = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
    const Tensor& x = tensors_[static_cast<size_t>(conv.inputs[0])];
    const Tensor& filter = tensors_[static_cast<size_t>(conv.inputs[1])];
    const Tensor& expanded = tensors_[static_cast<size_t>(mid)];
    if (x.rank() != 4 || expanded.rank() != 4 || expanded.is_variable || !constant(conv.inputs[1]) ||
        filter.sparsity != nullptr || filter.rank() != 4 || filter.dim(1) != 1 || filter.dim(2) != 1 ||
        filter.dim(3) != x.dim(3) || filter.dim(0) < kMinFusedPointwiseOutputs || (bias >= 0 && !float_tensor(bias)) ||
        expanded.num_elements() * static_cast<int64_t>(sizeof(float)) < kMinExpandedBytes) {
      continue;
    }
    const StatusOr<Conv2DParams> params = ParseConv2DParams(conv);
    if (!params.ok() || params->stride_h != 1 || params->stride_w != 1 || !IsClampActivation(params->activation)) continue;
    auto* fusable = dynamic_cast<PointwiseInputFusable*>(kernels_[static_cast<size_t>(index)].get());
    if (fusable == nullptr) continue;
    const ActivationRange own = GetActivationRange(params->activation);
    const ActivationRange taken = fused_clamp_[static_cast<size_t>(w)];
    const ActivationRange range{std::max(own.min, taken.min), std::min(own.max, taken.max)};
    const int first = fusable->pointwise_input_index();
    if (range.min > range.max || first < static_cast<int>(dw.inputs.size()) ||
        !fusable->FusePointwiseInput(first, range.min, range.max)) {
      continue;
    }
    // The depthwise node reads the convolution's input, filter and bias; the
    // expanded tensor has no reader left and is never allocated.
    const int conv_input = conv.inputs[0], conv_filter = conv.inputs[1];
    dw.inputs.resize(static_cast<size_t>(first), -1);
    dw.inputs[0] = conv_input;
    dw.inputs.push_back(conv_filter);
    dw.inputs.push_back(bias);
    dw.input_types.resize(dw.inputs.size(), DataType::kFloat32);
    uses.readers[static_cast<size_t>(mid)] = 0;
    folded_[static_cast<size_t>(w)] = kFusedNode;
    fused_pointwise_[static_cast<size_t>(index)] = w;
  }
}

void Subgraph::FusePointwiseOutputs() {
  constexpr int32_t kConv2D = 3, kDepthwiseConv2D = 4;
  // Below this the depthwise output stays in a core's L2 between the two
  // kernels (hand_landmark_lite's 28x28x96, 300 KiB, gained nothing).
  constexpr int64_t kMinDepthwiseOutputBytes = int64_t{512} << 10;
  fused_projection_.assign(nodes_.size(), -1);
  TensorUses uses = ComputeTensorUses();
  const std::vector<uint8_t> will_fold = WillFold();
  auto constant = [&](int t) { return ConstantOnceFolded(t, uses, will_fold); };
  auto float_tensor = [&](int t) { return IsFloatTensor(t); };
  std::vector<int> position(nodes_.size(), -1);
  for (size_t i = 0; i < execution_plan_.size(); ++i) position[static_cast<size_t>(execution_plan_[i])] = static_cast<int>(i);
  const std::vector<int> plan = execution_plan_;  // the loop reorders execution_plan_
  for (int index : plan) {
    const Node& conv = nodes_[static_cast<size_t>(index)];
    if (folded_[static_cast<size_t>(index)] || conv.is_custom() || conv.builtin_code != kConv2D ||
        conv.outputs.size() != 1 || conv.inputs.size() < 2 || conv.inputs.size() > 4 || conv.inputs[0] < 0) {
      continue;
    }
    const int mid = conv.inputs[0];
    const int w = uses.writer[static_cast<size_t>(mid)];
    if (w < 0 || uses.readers[static_cast<size_t>(mid)] != 1 || folded_[static_cast<size_t>(w)] ||
        std::find(outputs_.begin(), outputs_.end(), mid) != outputs_.end()) {
      continue;
    }
    Node& dw = nodes_[static_cast<size_t>(w)];
    if (dw.is_custom() || dw.builtin_code != kDepthwiseConv2D || dw.outputs.size() != 1 || dw.inputs.size() < 2 ||
        dw.inputs[1] < 0 || !float_tensor(mid) || !float_tensor(conv.inputs[1]) || !float_tensor(conv.outputs[0])) {
      continue;
    }
    const int bias = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
    const int residual = conv.inputs.size() > 3 ? conv.inputs[3] : -1;
    const Tensor& between = tensors_[static_cast<size_t>(mid)];
    const Tensor& filter = tensors_[static_cast<size_t>(conv.inputs[1])];
    const Tensor& dw_filter = tensors_[static_cast<size_t>(dw.inputs[1])];
    // 3x3 windows: the depthwise kernel's row path (5x5 ones take channel planes).
    if (between.rank() != 4 || between.is_variable || !constant(conv.inputs[1]) || filter.sparsity != nullptr ||
        filter.rank() != 4 || filter.dim(1) != 1 || filter.dim(2) != 1 || filter.dim(3) != between.dim(3) ||
        filter.dim(0) < kMinFusedPointwiseOutputs || (bias >= 0 && !float_tensor(bias)) || dw_filter.rank() != 4 ||
        dw_filter.dim(1) != 3 || dw_filter.dim(2) != 3 ||
        between.num_elements() * static_cast<int64_t>(sizeof(float)) < kMinDepthwiseOutputBytes) {
      continue;
    }
    // The ADD's operand must be ready when the depthwise node runs.
    if (residual >= 0) {
      const int rw = uses.writer[static_cast<size_t>(residual)];
      if (!float_tensor(residual) || (rw >= 0 && position[static_cast<size_t>(rw)] >= position[static_cast<size_t>(w)])) {
        continue;
      }
    }
    // Weights behind a DEQUANTIZE (float16 files) fold when their node's
    // turn comes in the plan: one after the depthwise node moves before it,
    // so that they are constant when the depthwise kernel is prepared.
    std::vector<int> hoist;
    bool weights_ready = true;
    for (int t : {conv.inputs[1], bias}) {
      const int tw = t >= 0 ? uses.writer[static_cast<size_t>(t)] : -1;
      if (tw < 0 || position[static_cast<size_t>(tw)] < position[static_cast<size_t>(w)]) continue;
      bool raw_inputs = will_fold[static_cast<size_t>(tw)] != 0;
      for (int in : nodes_[static_cast<size_t>(tw)].inputs) {
        const Tensor* x = in >= 0 ? &tensors_[static_cast<size_t>(in)] : nullptr;
        if (x != nullptr && (!x->is_constant() || x->data == nullptr)) raw_inputs = false;
      }
      if (!raw_inputs) weights_ready = false;
      hoist.push_back(tw);
    }
    if (!weights_ready) continue;
    const StatusOr<Conv2DParams> params = ParseConv2DParams(conv);
    if (!params.ok() || params->stride_h != 1 || params->stride_w != 1) continue;
    auto* source = dynamic_cast<PointwiseOutputSource*>(kernels_[static_cast<size_t>(index)].get());
    auto* fusable = dynamic_cast<PointwiseOutputFusable*>(kernels_[static_cast<size_t>(w)].get());
    float lo = 0.f, hi = 0.f;
    bool with_residual = false;
    if (source == nullptr || fusable == nullptr || !source->PointwiseEpilogue(&lo, &hi, &with_residual) ||
        with_residual != (residual >= 0)) {
      continue;
    }
    const int first = fusable->pointwise_output_index();
    if (first < static_cast<int>(dw.inputs.size()) || !fusable->FusePointwiseOutput(first, lo, hi, with_residual)) {
      continue;
    }
    // The depthwise node writes the convolution's output and reads its
    // filter, bias and ADD operand; the tensor between them is never allocated.
    dw.inputs.resize(static_cast<size_t>(first), -1);
    dw.inputs.push_back(conv.inputs[1]);
    dw.inputs.push_back(bias);
    dw.inputs.push_back(residual);
    dw.input_types.resize(dw.inputs.size(), DataType::kFloat32);
    dw.outputs[0] = conv.outputs[0];
    uses.writer[static_cast<size_t>(conv.outputs[0])] = w;
    uses.readers[static_cast<size_t>(mid)] = 0;
    folded_[static_cast<size_t>(index)] = kFusedNode;
    fused_projection_[static_cast<size_t>(w)] = index;
    for (int node : hoist) {
      execution_plan_.erase(std::find(execution_plan_.begin(), execution_plan_.end(), node));
      execution_plan_.insert(std::find(execution_plan_.begin(), execution_plan_.end(), w), node);
    }
    if (!hoist.empty()) {
      for (size_t i = 0; i < execution_plan_.size(); ++i) {
        position[static_cast<size_t>(execution_plan_[i])] = static_cast<int>(i);
      }
    }
  }
}

void Subgraph::FuseHardSwishes() {
  constexpr int32_t kHardSwish = 117;
  TensorUses uses = ComputeTensorUses();
  for (int index : execution_plan_) {
    const Node& swish = nodes_[static_cast<size_t>(index)];
    if (folded_[static_cast<size_t>(index)] || swish.is_custom() || swish.builtin_code != kHardSwish) continue;
    if (swish.inputs.size() != 1 || swish.outputs.size() != 1 || swish.inputs[0] < 0) continue;
    const auto mid = static_cast<size_t>(swish.inputs[0]);
    const Tensor& in = tensors_[mid];
    const Tensor& out = tensors_[static_cast<size_t>(swish.outputs[0])];
    if (in.type != DataType::kFloat32 || out.type != DataType::kFloat32 || out.is_variable) continue;
    AbsorbIntoProducer(index, uses, [](Kernel& k) { return k.FuseHardSwish(); });
  }
}

namespace {

// Nodes that never fold although their inputs may be constant: control flow
// and resource variables have effects beyond their outputs. VAR_HANDLE is
// the exception: it has no inputs and always folds (its handle is fixed).
int FoldRule(const Node& node) {
  constexpr int32_t kVarHandle = 142;
  if (!IsCoreOp(node)) return 0;
  return node.builtin_code == kVarHandle ? 1 : -1;
}

}  // namespace

bool Subgraph::CanFold(int node_index) const {
  const Node& node = nodes_[static_cast<size_t>(node_index)];
  if (const int rule = FoldRule(node); rule != 0) return rule > 0;
  bool any_input = false;
  for (int t : node.inputs) {
    if (t < 0) continue;
    const Tensor& tensor = tensors_[static_cast<size_t>(t)];
    if (!tensor.is_constant()) return false;
    any_input = true;
  }
  for (int t : node.outputs) {
    if (tensors_[static_cast<size_t>(t)].is_variable) return false;
  }
  return any_input;
}

bool Subgraph::IsShapeOnly(int node_index) const {
  constexpr int32_t kShape = 77;
  const Node& node = nodes_[static_cast<size_t>(node_index)];
  if (node.is_custom() || node.builtin_code != kShape || node.inputs.empty() || node.inputs[0] < 0) return false;
  for (int t : node.outputs) {
    if (tensors_[static_cast<size_t>(t)].is_variable) return false;
  }
  return true;
}

Status Subgraph::PrepareNode(int node_index) {
  NodeContext ctx(*this, node_index);
  const Node& node = nodes_[static_cast<size_t>(node_index)];
  for (int t : node.outputs) output_set_[static_cast<size_t>(t)] = 0;
  scratch_bytes_[static_cast<size_t>(node_index)] = 0;
  defer_requested_ = false;
  Status s = kernels_[static_cast<size_t>(node_index)]->Prepare(ctx);
  if (!s.ok() && defer_requested_ && !preparing_at_invoke_) {
    // Output shapes from values known at Invoke: prepared there, every time.
    defer_requested_ = false;
    deferred_[static_cast<size_t>(node_index)] = 1;
    return Status::Ok();
  }
  if (!s.ok()) return s.WithContext(model_.name());
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (!output_set_[static_cast<size_t>(node.outputs[k])]) {
      return InternalError(fmt::format("{}: {}: kernel did not set the shape of output {}", model_.name(),
                                       node.Describe(), k));
    }
    Tensor& out = tensors_[static_cast<size_t>(node.outputs[k])];
    if (DataTypeSize(out.type) == 0) {
      return UnimplementedError(fmt::format("{}: {}: output {} has type {}, which relite cannot allocate",
                                            model_.name(), node.Describe(), k, DataTypeName(out.type)));
    }
  }
  return Status::Ok();
}

Status Subgraph::SizeDynamicTensor(int tensor_index) {
  Tensor& t = tensors_[static_cast<size_t>(tensor_index)];
  const size_t bytes = static_cast<size_t>(t.num_elements()) * DataTypeSize(t.type);
  size_t& capacity = dynamic_capacity_[static_cast<size_t>(tensor_index)];
  if (!t.owned || capacity < bytes) {
    t.owned = AllocateAligned(std::max<size_t>(bytes, 1));
    if (!t.owned) {
      return ResourceExhaustedError(fmt::format("{}: out of memory sizing the dynamic {} to {}", model_.name(),
                                                TensorName(t, tensor_index), ShapeToString(t.shape)));
    }
    capacity = bytes;
  }
  t.data = t.owned.get();
  t.bytes = bytes;
  return Status::Ok();
}

Status Subgraph::FoldNode(int node_index) {
  const Node& node = nodes_[static_cast<size_t>(node_index)];
  for (int t : node.outputs) {
    Tensor& out = tensors_[static_cast<size_t>(t)];
    out.bytes = static_cast<size_t>(out.num_elements()) * DataTypeSize(out.type);
    out.owned = AllocateAligned(out.bytes);
    if (!out.owned) return InternalError(fmt::format("{}: out of memory folding {}", model_.name(), node.Describe()));
    out.data = out.owned.get();
    out.allocation = Allocation::kPersistent;
  }
  std::shared_ptr<uint8_t> scratch;
  if (scratch_bytes_[static_cast<size_t>(node_index)] > 0) {
    scratch = AllocateAligned(scratch_bytes_[static_cast<size_t>(node_index)]);
    scratch_ptr_[static_cast<size_t>(node_index)] = scratch.get();
  }
  NodeContext ctx(*this, node_index);
  Status s = kernels_[static_cast<size_t>(node_index)]->Eval(ctx);
  scratch_ptr_[static_cast<size_t>(node_index)] = nullptr;
  if (!s.ok()) return s.WithContext(model_.name());
  folded_[static_cast<size_t>(node_index)] = kFoldedNode;
  return Status::Ok();
}

Status Subgraph::FoldConstants() {
  for (int i : execution_plan_) {
    if (folded_[static_cast<size_t>(i)] || !CanFold(i)) continue;
    RELITE_RETURN_IF_ERROR(PrepareNode(i));
    const double before = estimated_macs_;
    estimated_macs_ = folded_macs_;
    Status work = AddWork(nodes_[static_cast<size_t>(i)]);
    folded_macs_ = estimated_macs_;
    estimated_macs_ = before;
    RELITE_RETURN_IF_ERROR(work);
    RELITE_RETURN_IF_ERROR(FoldNode(i));
  }
  return Status::Ok();
}

Status Subgraph::AllocateTensors() {
  // Activations are re-planned from scratch; constants, variables and folded
  // outputs keep their persistent storage.
  for (Tensor& t : tensors_) {
    if (t.allocation == Allocation::kArena || t.allocation == Allocation::kDynamic) {
      t.allocation = Allocation::kNone;
      t.data = nullptr;
    }
  }
  deferred_.assign(nodes_.size(), 0);
  dynamic_capacity_.resize(tensors_.size(), 0);
  deferred_scratch_.resize(nodes_.size());
  deferred_scratch_capacity_.resize(nodes_.size(), 0);
  for (int in : inputs_) {
    const Tensor& t = tensors_[static_cast<size_t>(in)];
    if (DataTypeSize(t.type) == 0) {
      return UnimplementedError(fmt::format("{}: input tensor {} ('{}') has type {}, which relite cannot allocate",
                                            model_.name(), in, t.name, DataTypeName(t.type)));
    }
    RELITE_RETURN_IF_ERROR(CheckTensorBytes(t, fmt::format("{}: input {}", model_.name(), TensorName(t, in))));
  }
  if (!clamps_fused_) {
    // After delegation (delegates see the unfused graph), once: a kernel is
    // offered the fusion before its first Prepare.
    if (!preserve_all_tensors_) {
      FuseClamps();
      FuseResidualAdds();
      FuseClamps();
      FusePointwiseInputs();
      FuseHardSwishes();
      FusePointwiseOutputs();
    }
    clamps_fused_ = true;
  }
  // The work of one Invoke: the nodes a delegate runs (as the delegate sees
  // them: declared shapes), then every CPU node once prepared, folded ones
  // included (they run once, here). Checked before a node runs, so an
  // absurd folded node is refused before it computes.
  estimated_macs_ = folded_macs_;
  for (size_t i = 0; i < model_node_count_; ++i) {
    if (folded_[i] != kDelegatedNode) continue;
    const Node& node = nodes_[i];
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const int t = node.outputs[k];
      RELITE_RETURN_IF_ERROR(CheckTensorBytes(tensors_[static_cast<size_t>(t)],
                                              fmt::format("{}: {} (delegated): output {} ({})", model_.name(),
                                                          node.Describe(), k, TensorName(tensors_[static_cast<size_t>(t)], t))));
    }
    RELITE_RETURN_IF_ERROR(AddWork(node));
  }
  // Tensors whose value derives from an activation's shape (refolded below).
  std::vector<uint8_t> shape_derived(tensors_.size(), 0);
  for (int i : execution_plan_) {
    const uint8_t state = folded_[static_cast<size_t>(i)];
    if (state != 0 && state != kRefoldedNode) continue;
    const Node& prepared = nodes_[static_cast<size_t>(i)];
    bool dynamic_input = false;
    for (int t : prepared.inputs) dynamic_input |= t >= 0 && tensors_[static_cast<size_t>(t)].allocation == Allocation::kDynamic;
    if (!dynamic_input) RELITE_RETURN_IF_ERROR(PrepareNode(i));
    if (dynamic_input || deferred_[static_cast<size_t>(i)]) {
      // Prepared at Invoke; its outputs are sized there, outside the plan.
      deferred_[static_cast<size_t>(i)] = 1;
      folded_[static_cast<size_t>(i)] = 0;  // a refolded SHAPE now reads a dynamic tensor: it runs
      scratch_bytes_[static_cast<size_t>(i)] = 0;
      for (int t : prepared.outputs) {
        Tensor& out = tensors_[static_cast<size_t>(t)];
        if (out.is_variable) {
          return Fail(fmt::format("{}: the variable {} cannot have a dynamic shape", prepared.Describe(), TensorName(out, t)));
        }
        out.allocation = Allocation::kDynamic;
        out.data = nullptr;
        out.bytes = 0;
      }
      continue;
    }
    if (static_cast<size_t>(i) < model_node_count_) RELITE_RETURN_IF_ERROR(AddWork(nodes_[static_cast<size_t>(i)]));
    const Node& node = nodes_[static_cast<size_t>(i)];
    // Folded when its value is known now: every input constant or derived
    // from shapes. A RESHAPE of an activation by a computed shape reads
    // one known input and one that only exists at Invoke: it runs then.
    bool derived = state == kRefoldedNode || IsShapeOnly(i);
    if (!derived) {
      bool reads_derived = false, all_known = true;
      for (int t : node.inputs) {
        if (t < 0) continue;
        if (shape_derived[static_cast<size_t>(t)]) {
          reads_derived = true;
        } else if (!tensors_[static_cast<size_t>(t)].is_constant()) {
          all_known = false;
        }
      }
      derived = reads_derived && all_known;
    }
    if (!derived && !CanFold(i)) continue;
    RELITE_RETURN_IF_ERROR(FoldNode(i));
    if (derived) {
      folded_[static_cast<size_t>(i)] = kRefoldedNode;
      for (int t : node.outputs) shape_derived[static_cast<size_t>(t)] = 1;
    }
  }
  RELITE_RETURN_IF_ERROR(ResetVariableTensors());
  RELITE_RETURN_IF_ERROR(PlanMemory());
  allocated_ = true;
  return Status::Ok();
}

// Variable tensors (LSTM/RNN state) live outside the arena so that they
// persist across Invokes. As in TFLite, every (re)allocation resets the ones
// the model gives no data: int8 to its zero point, other types to 0; those
// with an initial value in the model get it back only from an explicit reset
// (`with_initial_values`: Interpreter::ResetVariableTensors).
Status Subgraph::ResetVariableTensors(bool with_initial_values) {
  const std::vector<TensorFacts>& facts = model_.facts().subgraphs[static_cast<size_t>(index_)].tensors;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    Tensor& t = tensors_[i];
    if (!t.is_variable) continue;
    if (facts[i].constant()) {  // initial value from the model (t owns a copy)
      if (with_initial_values && t.data != nullptr && t.bytes == facts[i].data_bytes) {
        std::memcpy(t.data, facts[i].data, t.bytes);
      }
      continue;
    }
    RELITE_RETURN_IF_ERROR(CheckTensorBytes(t, fmt::format("{}: variable {}", model_.name(), TensorName(t, static_cast<int>(i)))));
    const size_t bytes = static_cast<size_t>(t.num_elements()) * DataTypeSize(t.type);
    if (t.allocation != Allocation::kPersistent || t.bytes != bytes || !t.owned) {
      t.owned = AllocateAligned(std::max<size_t>(bytes, 1));
      if (!t.owned) return InternalError(fmt::format("{}: out of memory allocating variable tensor {}", model_.name(), i));
      t.data = t.owned.get();
      t.bytes = bytes;
      t.allocation = Allocation::kPersistent;
    }
    const int fill = t.type == DataType::kInt8 && !t.quant.zero_point.empty() ? static_cast<int>(t.quant.zero_point[0]) : 0;
    if (bytes > 0) std::memset(t.data, fill, bytes);
  }
  return Status::Ok();
}

Status Subgraph::PlanMemory() {
  const int steps = static_cast<int>(execution_plan_.size());
  std::vector<int> first(tensors_.size(), -1), last(tensors_.size(), -1);
  auto touch = [&](int t, int step) {
    if (t < 0) return;
    const Tensor& tensor = tensors_[static_cast<size_t>(t)];
    if (tensor.allocation == Allocation::kConstant || tensor.allocation == Allocation::kPersistent ||
        tensor.allocation == Allocation::kDynamic) {
      return;
    }
    auto& f = first[static_cast<size_t>(t)];
    if (f < 0 || step < f) f = step;
    last[static_cast<size_t>(t)] = std::max(last[static_cast<size_t>(t)], step);
  };
  for (int t : inputs_) touch(t, 0);
  for (int i = 0; i < steps; ++i) {
    const int index = execution_plan_[static_cast<size_t>(i)];
    if (folded_[static_cast<size_t>(index)]) continue;
    const Node& node = nodes_[static_cast<size_t>(index)];
    for (int t : node.inputs) touch(t, i);
    for (int t : node.outputs) touch(t, i);
    for (int t : node.intermediates) touch(t, i);
  }
  for (int t : outputs_) touch(t, std::max(steps - 1, 0)), last[static_cast<size_t>(t)] = steps;
  // Inputs keep their values for the whole Invoke and after it, as in
  // TFLite: a caller may set an input once and invoke again (a streaming
  // model's fixed inputs), so nothing planned later may reuse their bytes.
  for (int t : inputs_) {
    if (first[static_cast<size_t>(t)] >= 0) last[static_cast<size_t>(t)] = steps;
  }

  std::vector<BufferUse> uses;
  std::vector<int> owner;  // tensor index, or -(node + 1) for a node's scratch
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (first[t] < 0) continue;
    Tensor& tensor = tensors_[t];
    const int64_t elements = tensor.num_elements();
    tensor.bytes = static_cast<size_t>(elements) * DataTypeSize(tensor.type);
    if (preserve_all_tensors_) {
      uses.push_back({tensor.bytes, 0, steps});
    } else {
      uses.push_back({tensor.bytes, first[t], last[t]});
    }
    owner.push_back(static_cast<int>(t));
  }
  for (int i = 0; i < steps; ++i) {
    const int index = execution_plan_[static_cast<size_t>(i)];
    if (folded_[static_cast<size_t>(index)] || scratch_bytes_[static_cast<size_t>(index)] == 0) continue;
    uses.push_back({scratch_bytes_[static_cast<size_t>(index)], i, i});
    owner.push_back(-(index + 1));
  }
  const ArenaPlan plan = PlanArena(uses);
  if (limits_.max_arena_bytes > 0 && plan.arena_bytes > limits_.max_arena_bytes) {
    size_t largest = 0;
    for (size_t k = 1; k < uses.size(); ++k) {
      if (uses[k].bytes > uses[largest].bytes) largest = k;
    }
    const std::string biggest =
        owner.empty() ? std::string("nothing")
        : owner[largest] >= 0
            ? fmt::format("{} of {}", TensorName(tensors_[static_cast<size_t>(owner[largest])], owner[largest]),
                          FormatBytes(uses[largest].bytes))
            : fmt::format("the scratch of {} ({})", nodes_[static_cast<size_t>(-owner[largest] - 1)].Describe(),
                          FormatBytes(uses[largest].bytes));
    return ResourceExhaustedError(fmt::format(
        "{}: the activation arena would need {}, over the limit of {} (ResourceLimits::max_arena_bytes; relite CLI "
        "--max-arena-bytes); its largest buffer is {}",
        model_.name(), FormatBytes(plan.arena_bytes), FormatBytes(limits_.max_arena_bytes), biggest));
  }
  if (plan.arena_bytes > arena_capacity_) {
    arena_ = nullptr;  // the old one goes before its replacement is asked for
    arena_capacity_ = 0;
    for (Delegate* d : arena_providers_) {
      if ((arena_ = d->AllocateTensorArena(plan.arena_bytes)) == nullptr) continue;
      if (reinterpret_cast<uintptr_t>(arena_.get()) % kArenaAlignment != 0) {
        arena_ = nullptr;
        return InternalError(fmt::format("{}: delegate '{}' gave tensor arena memory not aligned to {} bytes", model_.name(),
                                         d->name(), kArenaAlignment));
      }
      break;
    }
    if (!arena_) arena_ = AllocateAligned(plan.arena_bytes);
    if (!arena_) {
      return InternalError(fmt::format("{}: cannot allocate a {}-byte tensor arena", model_.name(), plan.arena_bytes));
    }
    arena_capacity_ = plan.arena_bytes;
  }
  std::fill(scratch_ptr_.begin(), scratch_ptr_.end(), nullptr);
  for (size_t k = 0; k < uses.size(); ++k) {
    uint8_t* p = arena_ ? arena_.get() + plan.offsets[k] : nullptr;
    if (owner[k] >= 0) {
      Tensor& tensor = tensors_[static_cast<size_t>(owner[k])];
      tensor.data = tensor.bytes > 0 ? p : nullptr;
      tensor.allocation = Allocation::kArena;
    } else {
      scratch_ptr_[static_cast<size_t>(-owner[k] - 1)] = p;
    }
  }
  arena_bytes_ = plan.arena_bytes;
  unplanned_bytes_ = plan.unplanned_bytes;
  return Status::Ok();
}

Status Subgraph::Invoke() {
  if (!allocated_) {
    return FailedPreconditionError(model_.name() + ": Invoke called before AllocateTensors (or after an input resize)");
  }
  for (int index : execution_plan_) {
    const auto i = static_cast<size_t>(index);
    if (folded_[i]) continue;
    if (deferred_[i]) {
      // Dynamic shapes: the inputs' values (and shapes) are known now.
      preparing_at_invoke_ = true;
      Status prepared = PrepareNode(index);
      preparing_at_invoke_ = false;
      RELITE_RETURN_IF_ERROR(prepared);
      const size_t want = scratch_bytes_[i];
      if (want > deferred_scratch_capacity_[i]) {
        deferred_scratch_[i] = AllocateAligned(want);
        if (!deferred_scratch_[i]) return ResourceExhaustedError(fmt::format("{}: {}: out of memory for scratch", model_.name(), nodes_[i].Describe()));
        deferred_scratch_capacity_[i] = want;
      }
      scratch_ptr_[i] = deferred_scratch_[i].get();
    }
    NodeContext ctx(*this, index);
    const auto start = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    Status s = kernels_[i]->Eval(ctx);
    if (!s.ok()) return s.WithContext(model_.name());
    if (profiling_) {
      node_time_us_[i] += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    }
  }
  return Status::Ok();
}

std::vector<uint8_t> Subgraph::WillFold() const {
  std::vector<uint8_t> constant(tensors_.size(), 0), will(nodes_.size(), 0);
  for (size_t t = 0; t < tensors_.size(); ++t) constant[t] = tensors_[t].is_constant() ? 1 : 0;
  for (int index : execution_plan_) {
    const Node& node = nodes_[static_cast<size_t>(index)];
    const uint8_t state = folded_[static_cast<size_t>(index)];
    bool fold = state == kFoldedNode || state == kRefoldedNode;
    if (state == 0 && FoldRule(node) != 0) {
      fold = FoldRule(node) > 0;
    } else if (state == 0) {
      bool any_input = false, all_constant = true;
      for (int t : node.inputs) {
        if (t < 0) continue;
        any_input = true;
        if (!constant[static_cast<size_t>(t)]) all_constant = false;
      }
      bool variable_output = false;
      for (int t : node.outputs) variable_output |= tensors_[static_cast<size_t>(t)].is_variable;
      fold = any_input && all_constant && !variable_output;
    }
    if (!fold) continue;
    will[static_cast<size_t>(index)] = 1;
    for (int t : node.outputs) constant[static_cast<size_t>(t)] = 1;
  }
  return will;
}

namespace {

class SubgraphView final : public DelegateGraph {
 public:
  SubgraphView(const Model& model, const std::vector<Tensor>& tensors, const std::vector<Node>& nodes,
               std::vector<uint8_t> constant, const std::vector<int>& inputs, const std::vector<int>& outputs,
               int num_threads)
      : model_(model), tensors_(tensors), nodes_(nodes), constant_(std::move(constant)), num_threads_(num_threads) {
    role_.assign(tensors.size(), 0);
    for (int t : inputs) role_[static_cast<size_t>(t)] |= 1;
    for (int t : outputs) role_[static_cast<size_t>(t)] |= 2;
  }
  const Model& model() const override { return model_; }
  int num_tensors() const override { return static_cast<int>(tensors_.size()); }
  const Tensor& tensor(int i) const override { return tensors_[Clamp(i, tensors_.size())]; }
  bool is_constant(int i) const override { return InRange(i, tensors_.size()) && constant_[static_cast<size_t>(i)]; }
  bool is_graph_input(int i) const override { return InRange(i, tensors_.size()) && (role_[static_cast<size_t>(i)] & 1); }
  bool is_graph_output(int i) const override { return InRange(i, tensors_.size()) && (role_[static_cast<size_t>(i)] & 2); }
  int num_nodes() const override { return static_cast<int>(nodes_.size()); }
  const Node& node(int i) const override { return nodes_[Clamp(i, nodes_.size())]; }
  int num_threads() const override { return num_threads_; }

 private:
  static bool InRange(int i, size_t n) { return i >= 0 && static_cast<size_t>(i) < n; }
  static size_t Clamp(int i, size_t n) { return InRange(i, n) ? static_cast<size_t>(i) : 0; }
  const Model& model_;
  const std::vector<Tensor>& tensors_;
  const std::vector<Node>& nodes_;
  std::vector<uint8_t> constant_;
  std::vector<uint8_t> role_;
  int num_threads_;
};

}  // namespace

Status Subgraph::ApplyDelegate(Delegate& delegate, DelegationReport* report) {
  const std::string who = fmt::format("{}: delegate '{}'", model_.name(), delegate.name());
  if (clamps_fused_) {
    return FailedPreconditionError(who + ": delegates must be applied before the first AllocateTensors "
                                         "(or through InterpreterBuilder::AddDelegate)");
  }
  // Constants first: a delegate reads the outputs of folded nodes (float16
  // weights behind DEQUANTIZE) as constants. Computed now, they have the
  // shapes and bytes their kernels establish, not the shapes the file
  // declares for them, which nothing has checked (a delegate that trusted a
  // declared [24,65536,1,96] for a [24,1,1,96] filter read past its data).
  RELITE_RETURN_IF_ERROR(FoldConstants().WithContext(who));
  const size_t num_model_nodes = model_node_count_;
  const std::vector<uint8_t> will_fold = WillFold();
  std::vector<uint8_t> constant(tensors_.size(), 0);
  for (size_t t = 0; t < tensors_.size(); ++t) constant[t] = tensors_[t].is_constant() ? 1 : 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!will_fold[i]) continue;
    for (int t : nodes_[i].outputs) constant[static_cast<size_t>(t)] = 1;
  }
  SubgraphView view(model_, tensors_, nodes_, constant, inputs_, outputs_, pool_ != nullptr ? pool_->size() : 1);

  // Offered: the model nodes of the plan that will run at Invoke (not
  // folded, not already in a partition node).
  const size_t plan_size = execution_plan_.size();
  std::vector<PlanEntry> entries(plan_size);
  std::vector<NodeSupport> support(plan_size);
  const Status graph_check = delegate.CheckGraph(view);
  for (size_t k = 0; k < plan_size; ++k) {
    const int index = execution_plan_[k];
    const Node& node = nodes_[static_cast<size_t>(index)];
    entries[k].inputs = node.inputs;
    entries[k].outputs = node.outputs;
    if (static_cast<size_t>(index) >= num_model_nodes || will_fold[static_cast<size_t>(index)] ||
        folded_[static_cast<size_t>(index)])
      continue;
    support[k] = graph_check.ok() ? delegate.CheckNode(view, index) : NodeSupport::Unsupported(graph_check.message());
    entries[k].supported = support[k].supported();
    entries[k].cost = support[k].cost;
  }

  const std::vector<std::vector<int>> groups = FormPartitions(entries);
  const PartitionSelection selection = SelectPartitions(entries, groups, delegate.options());

  // Build every partition aside; nothing is modified until all succeeded.
  std::vector<int> group_of(plan_size, -1);
  std::vector<Node> new_nodes;
  std::vector<std::unique_ptr<Kernel>> new_kernels;
  std::vector<int> reads(tensors_.size(), 0);
  for (size_t k = 0; k < plan_size; ++k) {
    for (int t : nodes_[static_cast<size_t>(execution_plan_[k])].inputs) {
      if (t >= 0) ++reads[static_cast<size_t>(t)];
    }
  }
  std::vector<uint8_t> graph_output(tensors_.size(), 0);
  for (int t : outputs_) graph_output[static_cast<size_t>(t)] = 1;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (!selection.kept[g]) continue;
    const int id = static_cast<int>(new_nodes.size());
    DelegatePartition partition;
    partition.id = id;
    std::vector<uint8_t> produced(tensors_.size(), 0), listed(tensors_.size(), 0);
    std::vector<int> inside_reads(tensors_.size(), 0);
    for (int k : groups[g]) {
      group_of[static_cast<size_t>(k)] = id;
      const Node& node = nodes_[static_cast<size_t>(execution_plan_[static_cast<size_t>(k)])];
      partition.nodes.push_back(node.index);
      partition.plans.push_back(std::move(support[static_cast<size_t>(k)].plan));
      for (int t : node.inputs) {
        if (t < 0) continue;
        ++inside_reads[static_cast<size_t>(t)];
        if (!produced[static_cast<size_t>(t)] && !listed[static_cast<size_t>(t)]) {
          listed[static_cast<size_t>(t)] = 1;
          partition.inputs.push_back(t);
        }
      }
      for (int t : node.outputs) produced[static_cast<size_t>(t)] = 1;
    }
    for (int k : groups[g]) {
      const Node& node = nodes_[static_cast<size_t>(execution_plan_[static_cast<size_t>(k)])];
      for (int t : node.outputs) {
        const auto ts = static_cast<size_t>(t);
        if (graph_output[ts] || reads[ts] > inside_reads[ts] || preserve_all_tensors_ || tensors_[ts].is_variable) {
          partition.outputs.push_back(t);
        }
      }
    }
    Node pnode;
    pnode.index = static_cast<int>(nodes_.size() + new_nodes.size());
    pnode.builtin_code = 32;
    pnode.version = 1;
    pnode.op_name = "DELEGATE:" + delegate.name();
    pnode.inputs = partition.inputs;
    pnode.outputs = partition.outputs;
    for (int t : pnode.inputs) pnode.input_types.push_back(tensors_[static_cast<size_t>(t)].type);
    for (int t : pnode.outputs) pnode.output_types.push_back(tensors_[static_cast<size_t>(t)].type);
    auto kernel = delegate.CreatePartitionKernel(view, partition);
    if (!kernel.ok()) {
      return kernel.status().WithContext(fmt::format("{}: partition {} ({} nodes)", who, id, partition.nodes.size()));
    }
    if (*kernel == nullptr) return InternalError(fmt::format("{}: partition {}: no kernel was returned", who, id));
    new_nodes.push_back(std::move(pnode));
    new_kernels.push_back(std::move(kernel).value());
  }
  auto order = ContractedOrder(entries, group_of, static_cast<int>(new_nodes.size()));
  if (!order.ok()) return order.status().WithContext(who);

  // The report, from the decisions above.
  if (report != nullptr) {
    *report = DelegationReport();
    report->delegate_name = delegate.name();
    report->display_name = delegate.display_name();
    report->num_partitions = static_cast<int>(new_nodes.size());
    report->nodes.resize(num_model_nodes);
    for (size_t i = 0; i < num_model_nodes; ++i) {
      NodePlacement& p = report->nodes[i];
      p.node = static_cast<int>(i);
      p.builtin_code = nodes_[i].builtin_code;
      p.version = nodes_[i].version;
      p.op_name = nodes_[i].op_name;
      if (will_fold[i] || folded_[i] == kFoldedNode) {
        p.where = NodePlacement::Where::kFolded;
      } else if (folded_[i] == kDelegatedNode) {
        p.where = NodePlacement::Where::kOtherDelegate;
        ++report->num_other_delegates;
      }
      if (p.where != NodePlacement::Where::kFolded) ++report->num_operations;
    }
    std::vector<int> group_index_of(plan_size, -1);
    for (size_t g = 0; g < groups.size(); ++g) {
      for (int k : groups[g]) group_index_of[static_cast<size_t>(k)] = static_cast<int>(g);
    }
    for (size_t k = 0; k < plan_size; ++k) {
      const int index = execution_plan_[k];
      if (static_cast<size_t>(index) >= num_model_nodes) continue;
      NodePlacement& p = report->nodes[static_cast<size_t>(index)];
      if (p.where != NodePlacement::Where::kCpu) continue;
      if (group_of[k] >= 0) {
        p.where = NodePlacement::Where::kDelegate;
        p.partition = group_of[k];
        p.detail = support[k].detail;
        ++report->num_delegated;
      } else if (group_index_of[k] >= 0) {
        p.reason = selection.reason[static_cast<size_t>(group_index_of[k])];
      } else {
        p.reason = support[k].reason;
        p.op_unsupported = true;
      }
    }
  }

  // Commit: nothing below can fail.
  for (size_t k = 0; k < plan_size; ++k) {
    if (group_of[k] >= 0) folded_[static_cast<size_t>(execution_plan_[k])] = kDelegatedNode;
  }
  std::vector<int> plan;
  const int base = static_cast<int>(nodes_.size());
  for (int u : *order) plan.push_back(u >= 0 ? execution_plan_[static_cast<size_t>(u)] : base + (-u - 1));
  for (size_t k = 0; k < new_nodes.size(); ++k) {
    nodes_.push_back(std::move(new_nodes[k]));
    kernels_.push_back(std::move(new_kernels[k]));
    folded_.push_back(0);
    fused_clamp_.push_back(kNoClamp);
    scratch_bytes_.push_back(0);
    scratch_ptr_.push_back(nullptr);
  }
  execution_plan_ = std::move(plan);
  node_time_us_.resize(nodes_.size(), 0.0);
  if (!new_nodes.empty()) arena_providers_.push_back(&delegate);
  allocated_ = false;
  return Status::Ok();
}

void Subgraph::SetProfiling(bool enabled) {
  profiling_ = enabled;
  node_time_us_.resize(nodes_.size(), 0.0);
}

size_t Subgraph::persistent_bytes() const {
  size_t total = 0;
  for (const Tensor& t : tensors_) {
    if (t.allocation == Allocation::kPersistent) total += t.bytes;
  }
  return total;
}

}  // namespace relite
