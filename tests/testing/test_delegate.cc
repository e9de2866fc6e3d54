#include "tests/testing/test_delegate.h"

#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "fmt/format.h"

namespace relite::testing {
namespace {

// The support check creates the CPU kernel; the partition kernel runs it.
struct CpuPlan : NodePlan {
  std::unique_ptr<Kernel> kernel;
};

std::shared_ptr<uint8_t> Aligned(size_t bytes) {
  constexpr size_t kAlign = 64;
  const size_t padded = std::max<size_t>(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
  return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(std::aligned_alloc(kAlign, padded)), std::free);
}

class PartitionKernel final : public Kernel {
 public:
  struct Inner {
    Node node;
    std::unique_ptr<Kernel> kernel;
    size_t scratch_bytes = 0;
    std::shared_ptr<uint8_t> scratch;
  };

  PartitionKernel(std::vector<Inner> inner, const DelegatePartition& partition, const DelegateGraph& graph, int* evals)
      : inner_(std::move(inner)), evals_(evals) {
    for (size_t i = 0; i < partition.inputs.size(); ++i) slot_[partition.inputs[i]] = {false, static_cast<int>(i)};
    for (size_t i = 0; i < partition.outputs.size(); ++i) slot_[partition.outputs[i]] = {true, static_cast<int>(i)};
    for (const Inner& in : inner_) {
      for (const auto* list : {&in.node.outputs, &in.node.intermediates}) {
        for (int t : *list) {
          if (t < 0 || slot_.count(t)) continue;
          Tensor copy;
          const Tensor& src = graph.tensor(t);
          copy.name = src.name;
          copy.type = src.type;
          copy.shape = src.shape;
          copy.quant = src.quant;
          internal_[t] = copy;
        }
      }
    }
  }

  Status Prepare(KernelContext& outer) override {
    outer_ = &outer;
    for (size_t k = 0; k < inner_.size(); ++k) {
      inner_[k].scratch_bytes = 0;
      Context ctx(*this, k);
      RELITE_RETURN_IF_ERROR(inner_[k].kernel->Prepare(ctx));
    }
    // The partition's own memory: internal tensors and scratch.
    for (auto& [t, tensor] : internal_) {
      tensor.bytes = static_cast<size_t>(tensor.num_elements()) * DataTypeSize(tensor.type);
      memory_[t] = Aligned(tensor.bytes);
      tensor.data = memory_[t].get();
      tensor.allocation = Allocation::kArena;
    }
    for (Inner& in : inner_) in.scratch = in.scratch_bytes > 0 ? Aligned(in.scratch_bytes) : nullptr;
    outer_ = nullptr;
    return Status::Ok();
  }

  Status Eval(KernelContext& outer) override {
    outer_ = &outer;
    ++*evals_;
    for (size_t k = 0; k < inner_.size(); ++k) {
      Context ctx(*this, k);
      Status s = inner_[k].kernel->Eval(ctx);
      if (!s.ok()) {
        outer_ = nullptr;
        return s;
      }
    }
    outer_ = nullptr;
    return Status::Ok();
  }

 private:
  class Context final : public KernelContext {
   public:
    Context(PartitionKernel& p, size_t k) : p_(p), in_(p.inner_[k]) {}
    const Node& node() const override { return in_.node; }
    Tensor& input(int i) override { return Get(in_.node.inputs, i); }
    Tensor& output(int i) override { return Get(in_.node.outputs, i); }
    Tensor& intermediate(int i) override { return Get(in_.node.intermediates, i); }
    Status ResizeOutput(int i, Shape shape) override {
      if (i < 0 || i >= num_outputs()) return InternalError(in_.node.Describe() + ": output index out of range");
      const int t = in_.node.outputs[static_cast<size_t>(i)];
      auto slot = p_.slot_.find(t);
      if (slot != p_.slot_.end() && slot->second.first) return p_.outer_->ResizeOutput(slot->second.second, std::move(shape));
      p_.internal_[t].shape = std::move(shape);
      return Status::Ok();
    }
    void RequestScratch(size_t bytes) override { in_.scratch_bytes = std::max(in_.scratch_bytes, bytes); }
    void* scratch() override { return in_.scratch.get(); }
    void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn) override {
      p_.outer_->ParallelFor(n, min_chunk, fn);
    }
    int num_threads() const override { return p_.outer_->num_threads(); }

   private:
    Tensor& Get(const std::vector<int>& list, int i) {
      if (i < 0 || static_cast<size_t>(i) >= list.size() || list[static_cast<size_t>(i)] < 0) {
        empty_ = Tensor();
        return empty_;
      }
      const int t = list[static_cast<size_t>(i)];
      auto slot = p_.slot_.find(t);
      if (slot != p_.slot_.end()) {
        return slot->second.first ? p_.outer_->output(slot->second.second) : p_.outer_->input(slot->second.second);
      }
      return p_.internal_[t];
    }
    PartitionKernel& p_;
    Inner& in_;
    Tensor empty_;
  };

  std::vector<Inner> inner_;
  std::unordered_map<int, std::pair<bool, int>> slot_;  // tensor -> (is output, slot)
  std::unordered_map<int, Tensor> internal_;
  std::unordered_map<int, std::shared_ptr<uint8_t>> memory_;
  KernelContext* outer_ = nullptr;
  int* evals_;
};

}  // namespace

TestDelegate::TestDelegate(const OpResolver& resolver, std::set<std::string> ops, std::string name,
                           std::string display_name)
    : resolver_(resolver), ops_(std::move(ops)), name_(std::move(name)), display_name_(std::move(display_name)) {}

NodeSupport TestDelegate::CheckNode(const DelegateGraph& graph, int node_index) {
  const Node& node = graph.node(node_index);
  if (!ops_.count(node.op_name)) return NodeSupport::Unsupported(fmt::format("{} is not in the test delegate's op list", node.op_name));
  const OpRegistration* reg =
      node.is_custom() ? resolver_.FindCustom(node.op_name, node.version) : resolver_.FindBuiltin(node.builtin_code, node.version);
  if (reg == nullptr) return NodeSupport::Unsupported("no CPU kernel is registered for it");
  auto kernel = reg->create(node);
  if (!kernel.ok()) return NodeSupport::Unsupported(kernel.status().message());
  auto plan = std::make_unique<CpuPlan>();
  plan->kernel = std::move(kernel).value();
  auto cost = cost_.find(node_index);
  return NodeSupport::Supported(std::move(plan), cost == cost_.end() ? 1.0 : cost->second);
}

StatusOr<std::unique_ptr<Kernel>> TestDelegate::CreatePartitionKernel(const DelegateGraph& graph,
                                                                     DelegatePartition& partition) {
  seen_.push_back({partition.nodes, partition.inputs, partition.outputs});
  if (partition.id == fail_partition_) {
    return InternalError(fmt::format("test delegate: simulated failure creating partition {}", partition.id));
  }
  std::vector<PartitionKernel::Inner> inner(partition.nodes.size());
  for (size_t k = 0; k < partition.nodes.size(); ++k) {
    auto* plan = dynamic_cast<CpuPlan*>(partition.plans[k].get());
    if (plan == nullptr) return InternalError("test delegate: a partition node has no plan of this delegate");
    inner[k].node = graph.node(partition.nodes[k]);
    inner[k].kernel = std::move(plan->kernel);
  }
  return std::unique_ptr<Kernel>(new PartitionKernel(std::move(inner), partition, graph, &evals_));
}

}  // namespace relite::testing
