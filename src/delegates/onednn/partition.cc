#include "src/delegates/onednn/partition.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <system_error>
#include <thread>

#include <sys/mman.h>

#include <fmt/format.h>

namespace relite::onednn {

StatusOr<std::unique_ptr<Kernel>> BuildPartitionImpl(const std::shared_ptr<Engine>& engine, const DelegateGraph& graph,
                                                     const DelegatePartition& partition, BuildStats* stats);

namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The support check: plain layouts, descriptors only.
class CheckContext final : public OpContext {
 public:
  CheckContext(const std::shared_ptr<Engine>& engine, const DelegateGraph& graph, const Node& node,
               NodeFusion fusion = {})
      : engine_(engine), graph_(graph), node_(node), fusion_(std::move(fusion)) {}

  const Node& node() const override { return node_; }
  const DelegateGraph& graph() const override { return graph_; }
  const DnnlApi& api() const override { return *engine_->api; }
  dnnl_engine_t engine() const override { return engine_->engine; }
  bool checking() const override { return true; }
  dnnl_data_type_t compute_type() const override { return engine_->compute; }
  const NodeFusion& fusion() const override { return fusion_; }

  StatusOr<dnnl_memory_desc_t> InputDesc(int i) override { return TensorDesc(node_.inputs[static_cast<size_t>(i)]); }
  StatusOr<dnnl_memory_desc_t> TensorDesc(int tensor) override {
    const Tensor& t = graph_.tensor(tensor);
    return PlainDesc(t.shape, graph_.is_constant(tensor) ? dnnl_f32 : engine_->compute);
  }
  StatusOr<int> InputArg(int, const dnnl_memory_desc_t&) override { return -1; }
  StatusOr<int> TensorArg(int, const dnnl_memory_desc_t&) override { return -1; }
  StatusOr<int> ConstantArg(const void*, const dnnl_memory_desc_t&, const dnnl_memory_desc_t&) override { return -1; }
  StatusOr<int> OwnedConstantArg(std::vector<float>, const dnnl_memory_desc_t&, const dnnl_memory_desc_t&) override {
    return -1;
  }
  StatusOr<int> OutputArg(int, const dnnl_memory_desc_t&) override { return -1; }
  Status OutputView(int, int, const dnnl_memory_desc_t&) override { return Status::Ok(); }
  StatusOr<int> TempArg(const dnnl_memory_desc_t&) override { return -1; }
  StatusOr<int> OutputArgWithResidual(const dnnl_memory_desc_t&) override { return -1; }
  StatusOr<int> ZeroArg(const dnnl_memory_desc_t&) override { return -1; }
  StatusOr<int> ViewArg(int, const dnnl_memory_desc_t&) override { return -1; }
  Status Add(dnnl_primitive_desc_t pd, std::vector<std::pair<int, int>>) override {
    api().dnnl_primitive_desc_destroy(pd);
    return Status::Ok();
  }

 private:
  std::shared_ptr<Engine> engine_;
  const DelegateGraph& graph_;
  const Node& node_;
  NodeFusion fusion_;
};

// A memory of the partition: oneDNN-allocated, or a boundary tensor's CPU
// buffer (its handle set at each Invoke), or a view of another memory.
struct Memory {
  dnnl_memory_t mem = nullptr;
  dnnl_memory_desc_t md{};
  int input_slot = -1, output_slot = -1;  // boundary
  int parent = -1;                        // a view of memory `parent`
};

// The partition's reordered weights, carved from a few large blocks mapped on
// 2 MiB boundaries and offered to transparent huge pages: one page fault per
// 2 MiB instead of per 4 KiB. Inception V3's 46 MiB of bf16 weights took 11k
// faults one allocation each, a third of the delegate's start-up.
class WeightArena {
 public:
  WeightArena() = default;
  WeightArena(const WeightArena&) = delete;
  WeightArena& operator=(const WeightArena&) = delete;
  ~WeightArena() {
    for (const Block& b : blocks_) munmap(b.map, b.map_bytes);
  }

  // 64-byte aligned, never freed before the arena; nullptr if the system
  // has no memory left.
  void* Allocate(size_t bytes) {
    bytes = (bytes + 63) & ~size_t{63};
    if (blocks_.empty() || blocks_.back().size - blocks_.back().used < bytes) {
      // Blocks double from 2 MiB up to 32 MiB, so a small model does not pay
      // for a large block.
      const size_t grow = blocks_.empty() ? kHugePage : std::min<size_t>(blocks_.back().size * 2, 16 * kHugePage);
      if (!NewBlock(std::max(grow, RoundUp(bytes, kHugePage)))) return nullptr;
    }
    Block& b = blocks_.back();
    void* p = b.base + b.used;
    b.used += bytes;
    return p;
  }

 private:
  static constexpr size_t kHugePage = size_t{2} << 20;
  static size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }
  struct Block {
    void* map = nullptr;
    size_t map_bytes = 0;
    char* base = nullptr;
    size_t size = 0, used = 0;
  };
  bool NewBlock(size_t size) {
    const size_t map_bytes = size + kHugePage;  // room to align the start
    void* map = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return false;
    const uintptr_t start = RoundUp(reinterpret_cast<uintptr_t>(map), kHugePage);
    char* base = reinterpret_cast<char*>(start);
#ifdef MADV_HUGEPAGE
    madvise(base, size, MADV_HUGEPAGE);  // advice only: without it, 4 KiB pages
#endif
    blocks_.push_back({map, map_bytes, base, size, 0});
    return true;
  }
  std::vector<Block> blocks_;
};

struct Step {
  dnnl_primitive_t primitive = nullptr;
  dnnl_primitive_desc_t pending = nullptr;  // created after the build, in parallel
  std::vector<dnnl_exec_arg_t> args;
  std::string what;  // "CONV_2D node 3" for errors
};

// A constant whose float32 bytes are reordered into its weight memory after
// the build, beside the primitive creation.
struct PendingWeights {
  const void* data = nullptr;  // the graph's bytes, or owned.data()
  std::vector<float> owned;    // bytes a builder computed
  dnnl_memory_desc_t user_md{};
  int memory = -1;
  size_t bytes = 0;
  std::string what;
};

class PartitionKernel final : public Kernel {
 public:
  PartitionKernel(std::shared_ptr<Engine> engine, int id) : engine_(std::move(engine)), id_(id) {}
  ~PartitionKernel() override {
    const DnnlApi& api = *engine_->api;
    for (Step& s : steps_) {
      if (s.primitive != nullptr) api.dnnl_primitive_destroy(s.primitive);
      if (s.pending != nullptr) api.dnnl_primitive_desc_destroy(s.pending);
    }
    for (Memory& m : memories_) {
      if (m.mem != nullptr) api.dnnl_memory_destroy(m.mem);
    }
    if (stream_ != nullptr) api.dnnl_stream_destroy(stream_);
  }

  Status Prepare(KernelContext& ctx) override {
    for (size_t i = 0; i < input_shapes_.size(); ++i) {
      const Tensor& x = ctx.input(static_cast<int>(i));
      if (x.shape != input_shapes_[i]) {
        return UnimplementedError(fmt::format(
            "oneDNN partition {}: input tensor {} has shape {}, but the partition was built for {}; resize inputs "
            "before applying the oneDNN delegate",
            id_, ctx.node().inputs[i], ShapeToString(x.shape), ShapeToString(input_shapes_[i])));
      }
    }
    for (size_t j = 0; j < output_shapes_.size(); ++j) {
      RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(static_cast<int>(j), output_shapes_[j]));
    }
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const DnnlApi& api = *engine_->api;
    for (Memory& m : memories_) {
      const int boundary = m.input_slot >= 0 || m.output_slot >= 0 ? static_cast<int>(&m - memories_.data())
                           : (m.parent >= 0 && IsBoundary(m.parent)) ? m.parent
                                                                     : -1;
      if (boundary < 0) continue;
      if (api.dnnl_memory_set_data_handle(m.mem, BoundaryHandle(ctx, boundary)) != dnnl_success) {
        return InternalError(fmt::format("oneDNN partition {}: cannot bind a boundary tensor", id_));
      }
    }
    if (api.omp_set_num_threads != nullptr) {
      api.omp_set_num_threads(engine_->threads > 0 ? engine_->threads : std::max(1, ctx.num_threads()));
    }
    for (const Step& s : steps_) {
      const dnnl_status_t st =
          api.dnnl_primitive_execute(s.primitive, stream_, static_cast<int>(s.args.size()), s.args.data());
      if (st != dnnl_success) {
        return InternalError(fmt::format("oneDNN partition {}: {} failed: {}", id_, s.what, DnnlStatusName(st)));
      }
    }
    const dnnl_status_t st = api.dnnl_stream_wait(stream_);
    if (st != dnnl_success) return InternalError(fmt::format("oneDNN partition {}: {}", id_, DnnlStatusName(st)));
    return Status::Ok();
  }

  bool IsBoundary(int m) const {
    const Memory& x = memories_[static_cast<size_t>(m)];
    return x.input_slot >= 0 || x.output_slot >= 0;
  }
  void* BoundaryHandle(KernelContext& ctx, int m) const {
    const Memory& x = memories_[static_cast<size_t>(m)];
    if (x.input_slot >= 0) return const_cast<void*>(static_cast<const void*>(ctx.input(x.input_slot).data));
    return ctx.output(x.output_slot).data;
  }

  std::shared_ptr<Engine> engine_;
  int id_;
  dnnl_stream_t stream_ = nullptr;
  std::vector<Memory> memories_;
  std::vector<Step> steps_;
  std::vector<Shape> input_shapes_, output_shapes_;
  WeightArena weights_;  // the constants' bytes; the destructor's body releases their memories first
};

// The partition build: actual layouts, memories and primitives.
class BuildContext final : public OpContext {
 public:
  BuildContext(const std::shared_ptr<Engine>& engine, const DelegateGraph& graph, PartitionKernel& kernel,
               BuildStats& stats)
      : engine_(engine), graph_(graph), k_(kernel), stats_(stats) {}

  void SetNode(const Node* node, const NodeFusion* fusion) {
    node_ = node;
    fusion_ = fusion;
  }

  const Node& node() const override { return *node_; }
  const DelegateGraph& graph() const override { return graph_; }
  const DnnlApi& api() const override { return *engine_->api; }
  dnnl_engine_t engine() const override { return engine_->engine; }
  bool checking() const override { return false; }
  dnnl_data_type_t compute_type() const override { return engine_->compute; }
  const NodeFusion& fusion() const override { return *fusion_; }

  // The memories of tensor t at its own rank: the first as produced, then
  // reordered copies and views.
  std::map<int, std::vector<int>>& values() { return values_; }
  const dnnl_memory_desc_t& md(int m) const { return k_.memories_[static_cast<size_t>(m)].md; }

  StatusOr<dnnl_memory_desc_t> InputDesc(int i) override { return TensorDesc(node_->inputs[static_cast<size_t>(i)]); }
  StatusOr<dnnl_memory_desc_t> TensorDesc(int tensor) override {
    auto it = values_.find(tensor);
    if (it != values_.end()) return md(it->second.front());
    const Tensor& t = graph_.tensor(tensor);
    if (graph_.is_constant(tensor)) return PlainDesc(t.shape, dnnl_f32);
    return InternalError(fmt::format("oneDNN partition: tensor {} ('{}') has no producer in the partition", tensor, t.name));
  }

  StatusOr<int> InputArg(int i, const dnnl_memory_desc_t& want) override {
    return TensorArg(node_->inputs[static_cast<size_t>(i)], want);
  }

  StatusOr<int> TensorArg(int tensor, const dnnl_memory_desc_t& want) override {
    const Tensor& t = graph_.tensor(tensor);
    auto it = values_.find(tensor);
    if (it == values_.end()) {
      if (!graph_.is_constant(tensor)) {
        return InternalError(fmt::format("oneDNN partition: tensor {} ('{}') has no producer", tensor, t.name));
      }
      // A constant: its bytes reordered once into each layout asked for.
      std::vector<int>& cached = constants_[tensor];
      for (int m : cached) {
        if (api().dnnl_memory_desc_equal(&md(m), &want)) return m;
      }
      RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t user, PlainDesc(t.shape, dnnl_f32, want.ndims));
      RELITE_ASSIGN_OR_RETURN(int m, ConstantArg(t.data, user, want));
      constants_[tensor].push_back(m);
      return m;
    }
    for (int m : it->second) {
      if (api().dnnl_memory_desc_equal(&md(m), &want)) return m;
    }
    int from = it->second.front();
    if (md(from).ndims != want.ndims) {
      // Broadcast to a higher rank: the plain bytes at the tensor's own
      // rank, viewed at the other (the same bytes), then as asked.
      RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t plain, PlainDesc(t.shape, want.data_type));
      RELITE_ASSIGN_OR_RETURN(int p, TensorArg(tensor, plain));
      RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t wide, PlainDesc(t.shape, want.data_type, want.ndims));
      RELITE_ASSIGN_OR_RETURN(int v, ViewArg(p, wide));
      if (api().dnnl_memory_desc_equal(&wide, &want)) return v;
      from = v;
    }
    // Held otherwise: a reorder step, once, shared by every consumer.
    RELITE_ASSIGN_OR_RETURN(int to, NewMemory(want));
    RELITE_RETURN_IF_ERROR(AddReorder(from, to, fmt::format("reorder of tensor {}", tensor)));
    const Memory& src = k_.memories_[static_cast<size_t>(from)];
    if (k_.IsBoundary(from) || (src.parent >= 0 && k_.IsBoundary(src.parent))) ++stats_.boundary_reorders;
    if (want.ndims == md(it->second.front()).ndims) values_[tensor].push_back(to);
    return to;
  }

  // The weight memory is allocated now; its bytes are reordered after the
  // build (FinishBuild), so `data` must live as long as the graph.
  StatusOr<int> ConstantArg(const void* data, const dnnl_memory_desc_t& user_md, const dnnl_memory_desc_t& want) override {
    return DeferConstant(data, {}, user_md, want);
  }
  StatusOr<int> OwnedConstantArg(std::vector<float> bytes, const dnnl_memory_desc_t& user_md,
                                 const dnnl_memory_desc_t& want) override {
    const void* data = bytes.data();
    return DeferConstant(data, std::move(bytes), user_md, want);
  }

  std::vector<PendingWeights>& pending_weights() { return pending_weights_; }

  StatusOr<int> OutputArg(int j, const dnnl_memory_desc_t& want) override {
    RELITE_ASSIGN_OR_RETURN(int m, NewMemory(want));
    values_[OutputTensor(j)] = {m};
    return m;
  }

  Status OutputView(int j, int arg, const dnnl_memory_desc_t& want) override {
    RELITE_ASSIGN_OR_RETURN(int m, ViewArg(arg, want));
    values_[OutputTensor(j)] = {m};
    return Status::Ok();
  }

  StatusOr<int> TempArg(const dnnl_memory_desc_t& want) override { return NewMemory(want); }

  // What decides whether a residual dies at a sum post-op: the nodes that
  // read each tensor (the whole graph), and those whose steps exist.
  void SetReaders(std::map<int, std::vector<int>> readers) { readers_ = std::move(readers); }
  void MarkBuilt(int node) { built_.insert(node); }

  // The residual is read by no step still to be built: every reader but
  // the folded ADD itself has its step already (a reader outside the
  // partition makes it a boundary output).
  bool ResidualDies(int tensor) const {
    if (graph_.is_graph_output(tensor) || graph_.is_constant(tensor)) return false;
    auto r = readers_.find(tensor);
    if (r == readers_.end()) return false;
    for (int n : r->second) {
      const bool folded_here = std::find(fusion_->absorbed_nodes.begin(), fusion_->absorbed_nodes.end(), n) !=
                               fusion_->absorbed_nodes.end();
      if (!folded_here && !built_.count(n)) return false;
    }
    return true;
  }

  StatusOr<int> OutputArgWithResidual(const dnnl_memory_desc_t& want) override {
    const PostOp* residual = nullptr;
    for (const PostOp& p : fusion_->post_ops) {
      if (p.binary) residual = &p;
    }
    if (residual == nullptr) return OutputArg(0, want);
    if (!boundary_outputs_.count(residual->tensor) && ResidualDies(residual->tensor)) {
      // Accumulate in place: the residual's memory becomes the output's
      // when it is held as `want`, owns its bytes and stands for no other
      // tensor (a view, or viewed by one, would see the sum).
      auto it = values_.find(residual->tensor);
      if (it != values_.end()) {
        for (int m : it->second) {
          if (api().dnnl_memory_desc_equal(&md(m), &want) && OwnedBySingleTensor(m, residual->tensor)) {
            values_.erase(residual->tensor);  // read by no later step
            values_[OutputTensor(0)] = {m};
            return m;
          }
        }
      }
    }
    RELITE_ASSIGN_OR_RETURN(int y, OutputArg(0, want));
    RELITE_ASSIGN_OR_RETURN(int from, TensorArg(residual->tensor, want));
    RELITE_RETURN_IF_ERROR(AddReorder(from, y, fmt::format("copy of tensor {} for a sum post-op", residual->tensor)));
    return y;
  }

  // Memory m owns its bytes, is no boundary, and no memory of another
  // tensor is m or a view of it.
  bool OwnedBySingleTensor(int m, int tensor) const {
    const Memory& x = k_.memories_[static_cast<size_t>(m)];
    if (x.parent >= 0 || k_.IsBoundary(m)) return false;
    for (const auto& [t, ms] : values_) {
      if (t == tensor) continue;
      for (int other : ms) {
        if (other == m || k_.memories_[static_cast<size_t>(other)].parent == m) return false;
      }
    }
    return true;
  }

  StatusOr<int> ZeroArg(const dnnl_memory_desc_t& want) override {
    RELITE_ASSIGN_OR_RETURN(int m, NewMemory(want));
    void* p = nullptr;
    api().dnnl_memory_get_data_handle(k_.memories_[static_cast<size_t>(m)].mem, &p);
    if (p != nullptr) std::memset(p, 0, api().dnnl_memory_desc_get_size(&want));
    return m;
  }

  StatusOr<int> ViewArg(int arg, const dnnl_memory_desc_t& want) override {
    // Views are of a memory that owns its bytes (or a boundary one).
    while (k_.memories_[static_cast<size_t>(arg)].parent >= 0) arg = k_.memories_[static_cast<size_t>(arg)].parent;
    void* handle = nullptr;
    if (!k_.IsBoundary(arg)) api().dnnl_memory_get_data_handle(k_.memories_[static_cast<size_t>(arg)].mem, &handle);
    Memory m;
    m.md = want;
    m.parent = arg;
    if (api().dnnl_memory_create(&m.mem, &want, engine(), handle) != dnnl_success) {
      return InternalError("oneDNN: cannot create a view of a memory");
    }
    k_.memories_.push_back(m);
    return static_cast<int>(k_.memories_.size() - 1);
  }

  // The primitive itself (its JIT code) is created by CreatePendingPrimitives.
  Status Add(dnnl_primitive_desc_t pd, std::vector<std::pair<int, int>> args) override {
    Step step;
    step.pending = pd;
    for (const auto& [index, m] : args) step.args.push_back({index, k_.memories_[static_cast<size_t>(m)].mem});
    step.what = node_->Describe();
    k_.steps_.push_back(std::move(step));
    ++stats_.primitives;
    return Status::Ok();
  }

  StatusOr<int> NewMemory(const dnnl_memory_desc_t& want) {
    Memory m;
    m.md = want;
    if (api().dnnl_memory_create(&m.mem, &want, engine(), DNNL_MEMORY_ALLOCATE) != dnnl_success) {
      return ResourceExhaustedError(fmt::format("oneDNN: cannot allocate {} bytes", api().dnnl_memory_desc_get_size(&want)));
    }
    k_.memories_.push_back(m);
    return static_cast<int>(k_.memories_.size() - 1);
  }

  // A constant's weight memory, its reorder queued for FinishBuild.
  StatusOr<int> DeferConstant(const void* data, std::vector<float> owned, const dnnl_memory_desc_t& user_md,
                              const dnnl_memory_desc_t& want) {
    RELITE_ASSIGN_OR_RETURN(int m, NewWeightMemory(want));
    PendingWeights w;
    w.data = data;
    w.owned = std::move(owned);  // a vector's move keeps its buffer: `data` stays valid
    w.user_md = user_md;
    w.memory = m;
    w.bytes = api().dnnl_memory_desc_get_size(&want);
    w.what = node_ != nullptr ? node_->Describe() : std::string("a constant");
    stats_.weight_bytes += w.bytes;
    pending_weights_.push_back(std::move(w));
    return m;
  }

  // A constant's memory, in the partition's weight arena.
  StatusOr<int> NewWeightMemory(const dnnl_memory_desc_t& want) {
    const size_t bytes = api().dnnl_memory_desc_get_size(&want);
    void* data = k_.weights_.Allocate(std::max<size_t>(bytes, 1));
    if (data == nullptr) return ResourceExhaustedError(fmt::format("oneDNN: cannot allocate {} bytes of weights", bytes));
    Memory m;
    m.md = want;
    if (api().dnnl_memory_create(&m.mem, &want, engine(), data) != dnnl_success) {
      return InternalError("oneDNN: cannot describe a weight tensor");
    }
    k_.memories_.push_back(m);
    return static_cast<int>(k_.memories_.size() - 1);
  }

  StatusOr<int> NewBoundary(const dnnl_memory_desc_t& want, int input_slot, int output_slot) {
    Memory m;
    m.md = want;
    m.input_slot = input_slot;
    m.output_slot = output_slot;
    if (api().dnnl_memory_create(&m.mem, &want, engine(), DNNL_MEMORY_NONE) != dnnl_success) {
      return InternalError("oneDNN: cannot describe a boundary tensor");
    }
    k_.memories_.push_back(m);
    return static_cast<int>(k_.memories_.size() - 1);
  }

  Status AddReorder(int from, int to, const std::string& what) {
    const auto start = std::chrono::steady_clock::now();
    dnnl_primitive_desc_t pd = nullptr;
    Step step;
    dnnl_status_t st = api().dnnl_reorder_primitive_desc_create(&pd, &md(from), engine(), &md(to), engine(), nullptr);
    if (st == dnnl_success) st = api().dnnl_primitive_create(&step.primitive, pd);
    if (pd != nullptr) api().dnnl_primitive_desc_destroy(pd);
    stats_.primitive_create_ms += MsSince(start);
    if (st != dnnl_success) return InternalError(fmt::format("oneDNN: {}: no reorder ({})", what, DnnlStatusName(st)));
    step.args = {{DNNL_ARG_FROM, k_.memories_[static_cast<size_t>(from)].mem},
                 {DNNL_ARG_TO, k_.memories_[static_cast<size_t>(to)].mem}};
    step.what = what;
    k_.steps_.push_back(std::move(step));
    ++stats_.primitives;
    return Status::Ok();
  }

 private:
  int OutputTensor(int j) const {
    if (j == 0 && fusion_->output_tensor >= 0) return fusion_->output_tensor;
    return node_->outputs[static_cast<size_t>(j)];
  }

  std::shared_ptr<Engine> engine_;
  const DelegateGraph& graph_;
  PartitionKernel& k_;
  BuildStats& stats_;
  const Node* node_ = nullptr;
  const NodeFusion* fusion_ = nullptr;
  std::map<int, std::vector<int>> values_;
  std::map<int, std::vector<int>> constants_;
  std::vector<PendingWeights> pending_weights_;  // reordered by FinishBuild
  std::map<int, std::vector<int>> readers_;
  std::set<int> built_;

 public:
  std::set<int> boundary_outputs_;
};

// Producers that take a residual ADD and activations as post-ops:
// convolutions, and FULLY_CONNECTED with a 2-D result (its destination is
// described at that rank). Not transposed convolutions: oneDNN 2.6's
// deconvolution with a few output channels (selfie's last layer) ran 10x
// slower with a post-op.
bool TakesResidual(const DelegateGraph& graph, const Node& n) {
  if (n.outputs.size() != 1) return false;
  return n.op_name == "CONV_2D" || n.op_name == "DEPTHWISE_CONV_2D" ||
         (n.op_name == "FULLY_CONNECTED" && graph.tensor(n.outputs[0]).shape.size() == 2);
}

// Producers that take activations only: the binary elementwise ops.
bool TakesActivations(const DelegateGraph& graph, const Node& n) {
  if (TakesResidual(graph, n)) return true;
  if (n.outputs.size() != 1) return false;
  return n.op_name == "ADD" || n.op_name == "SUB" || n.op_name == "MUL" || n.op_name == "DIV" ||
         n.op_name == "MAXIMUM" || n.op_name == "MINIMUM";
}

// The eltwise post-op that stands for an activation node, if any.
bool ActivationNodePostOp(const Node& n, PostOp* out) {
  *out = PostOp();
  if (n.inputs.size() != 1 || n.outputs.size() != 1) return false;
  if (n.op_name == "RELU") return ActivationPostOp(Activation::kRelu, out);
  if (n.op_name == "RELU6") return ActivationPostOp(Activation::kRelu6, out);
  if (n.op_name == "RELU_N1_TO_1") return ActivationPostOp(Activation::kReluN1To1, out);
  if (n.op_name == "TANH") return ActivationPostOp(Activation::kTanh, out);
  if (n.op_name == "LOGISTIC") {
    out->alg = dnnl_eltwise_logistic;
    return true;
  }
  if (n.op_name == "HARD_SWISH") {
    out->alg = dnnl_eltwise_hardswish;
    return true;
  }
  return false;
}

// Plans post-op fusion: a convolution (or FC) whose result only one node
// reads takes a following residual ADD (a sum post-op) and activation nodes
// (eltwise post-ops), chained; a binary elementwise op takes activations;
// a convolution takes the zero PAD in front of it.
// Tensor -> the nodes that read it, in the whole graph (each node once).
std::map<int, std::vector<int>> ReadersOf(const DelegateGraph& graph) {
  std::map<int, std::vector<int>> readers;
  for (int n = 0; n < graph.num_nodes(); ++n) {
    for (int t : graph.node(n).inputs) {
      if (t >= 0 && (readers[t].empty() || readers[t].back() != n)) readers[t].push_back(n);
    }
  }
  return readers;
}

std::map<int, NodeFusion> PlanFusion(const DelegateGraph& graph, const DelegatePartition& partition,
                                     const std::map<int, std::vector<int>>& reader_lists) {
  const auto readers_of = [&](int t) -> size_t {
    auto it = reader_lists.find(t);
    return it == reader_lists.end() ? 0 : it->second.size();
  };
  std::map<int, size_t> position;  // node -> its place in the partition
  for (size_t i = 0; i < partition.nodes.size(); ++i) position[partition.nodes[i]] = i;
  std::set<int> boundary_out(partition.outputs.begin(), partition.outputs.end());
  std::map<int, int> producer, reader_of;  // inside the partition
  for (int n : partition.nodes) {
    for (int t : graph.node(n).outputs) producer[t] = n;
    for (int t : graph.node(n).inputs) {
      if (t >= 0) reader_of[t] = n;
    }
  }
  std::map<int, NodeFusion> plan;
  std::set<int> absorbed;
  for (int p : partition.nodes) {
    if (absorbed.count(p) || !TakesActivations(graph, graph.node(p))) continue;
    const bool residual_ok = TakesResidual(graph, graph.node(p));
    NodeFusion f;
    int t = graph.node(p).outputs[0];
    bool took_add = false;
    while (true) {
      if (readers_of(t) != 1 || boundary_out.count(t) || graph.is_graph_output(t)) break;
      auto r = reader_of.find(t);
      if (r == reader_of.end() || absorbed.count(r->second)) break;
      const Node& next = graph.node(r->second);
      if (next.outputs.size() != 1 || graph.tensor(next.outputs[0]).type != DataType::kFloat32) break;
      PostOp op;
      if (next.op_name == "ADD" && residual_ok && !took_add && next.inputs.size() == 2) {
        const int other = next.inputs[0] == t ? next.inputs[1] : next.inputs[0];
        if (other == t || other < 0 || graph.tensor(other).shape != graph.tensor(t).shape ||
            graph.tensor(other).type != DataType::kFloat32) {
          break;
        }
        // The operand must exist when the producer runs: made outside the
        // partition, a constant, or by an earlier node; else the producer
        // (which feeds only this ADD) runs at the ADD's place.
        auto made = producer.find(other);
        if (made != producer.end() && position[made->second] > position[p]) f.build_at = r->second;
        auto act = ParseFusedActivation(next);
        if (!act.ok()) break;
        PostOp act_op;
        const bool has_act = *act != Activation::kNone;
        if (has_act && !ActivationPostOp(*act, &act_op)) break;
        op.binary = true;
        op.alg = dnnl_binary_add;
        op.tensor = other;
        f.post_ops.push_back(op);
        if (has_act) f.post_ops.push_back(act_op);
        took_add = true;
      } else if (ActivationNodePostOp(next, &op) && next.inputs[0] == t) {
        f.post_ops.push_back(op);
      } else {
        break;
      }
      f.absorbed_nodes.push_back(r->second);
      absorbed.insert(r->second);
      t = next.outputs[0];
    }
    if (!f.absorbed_nodes.empty()) {
      f.output_tensor = t;
      plan[p] = std::move(f);
    }
  }
  // A zero PAD of H and W whose only reader is a convolution: the
  // convolution pads instead (no padded copy).
  for (int n : partition.nodes) {
    const Node& pad = graph.node(n);
    if ((pad.op_name != "PAD" && pad.op_name != "PADV2") || pad.inputs.size() < 2 || pad.outputs.size() != 1) continue;
    const int t = pad.outputs[0];
    if (readers_of(t) != 1 || boundary_out.count(t) || graph.is_graph_output(t)) continue;
    auto r = reader_of.find(t);
    if (r == reader_of.end() || absorbed.count(r->second)) continue;
    const Node& conv = graph.node(r->second);
    if ((conv.op_name != "CONV_2D" && conv.op_name != "DEPTHWISE_CONV_2D") || conv.inputs.empty() || conv.inputs[0] != t) continue;
    if (pad.op_name == "PADV2" && pad.inputs.size() > 2 && pad.inputs[2] >= 0) {
      const Tensor& v = graph.tensor(pad.inputs[2]);
      if (!graph.is_constant(pad.inputs[2]) || v.type != DataType::kFloat32 || v.data == nullptr ||
          *static_cast<const float*>(v.data) != 0.0f) {
        continue;
      }
    }
    const Tensor& pads = graph.tensor(pad.inputs[1]);
    if (!graph.is_constant(pad.inputs[1]) || pads.type != DataType::kInt32 || pads.shape != Shape{4, 2} || pads.data == nullptr) {
      continue;
    }
    const int32_t* v = static_cast<const int32_t*>(pads.data);
    if (v[0] != 0 || v[1] != 0 || v[6] != 0 || v[7] != 0 || v[2] < 0 || v[3] < 0 || v[4] < 0 || v[5] < 0) continue;
    NodeFusion& f = plan[r->second];
    f.pre_pad.node = n;
    f.pre_pad.source = pad.inputs[0];
    f.pre_pad.top = v[2], f.pre_pad.bottom = v[3], f.pre_pad.left = v[4], f.pre_pad.right = v[5];
  }
  return plan;
}

// Reorders one constant into its weight memory, on the calling thread.
dnnl_status_t ReorderWeights(const DnnlApi& api, dnnl_engine_t engine, dnnl_stream_t stream, const PendingWeights& w,
                             const Memory& to) {
  dnnl_memory_t user = nullptr;
  dnnl_status_t st = api.dnnl_memory_create(&user, &w.user_md, engine, const_cast<void*>(w.data));
  if (st != dnnl_success) return st;
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t reorder = nullptr;
  st = api.dnnl_reorder_primitive_desc_create(&pd, &w.user_md, engine, &to.md, engine, nullptr);
  if (st == dnnl_success) st = api.dnnl_primitive_create(&reorder, pd);
  if (st == dnnl_success) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, to.mem}};
    st = api.dnnl_primitive_execute(reorder, stream, 2, args);
    if (st == dnnl_success) st = api.dnnl_stream_wait(stream);
  }
  if (reorder != nullptr) api.dnnl_primitive_destroy(reorder);
  if (pd != nullptr) api.dnnl_primitive_desc_destroy(pd);
  api.dnnl_memory_destroy(user);
  return st;
}

// The build's last phase, on up to `threads` threads: creating the
// primitives it left pending and reordering the weights, as one queue of
// single-threaded tasks. On AMX hosts generating a primitive's code is most
// of the delegate's start-up (Inception V3 bf16: 60-70 ms of 100 on one
// thread) and oneDNN's primitive creation is thread-safe; a reorder run as
// its own OpenMP region on every thread waits at a barrier per constant
// (~200 for Inception V3), which a busy host makes expensive. Largest
// reorders first, then the primitives, so the queue ends on short tasks.
Status FinishBuild(const Engine& engine, PartitionKernel& kernel, std::vector<PendingWeights>& weights, int threads,
                   BuildStats& stats) {
  const DnnlApi& api = *engine.api;
  std::vector<Step>& steps = kernel.steps_;
  std::vector<size_t> pending;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].pending != nullptr) pending.push_back(i);
  }
  std::vector<size_t> order(weights.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return weights[x].bytes > weights[y].bytes; });
  const size_t tasks = weights.size() + pending.size();
  std::vector<dnnl_status_t> status(tasks, dnnl_success);
  std::atomic<size_t> next{0};
  std::mutex mu;
  auto work = [&] {
    double create_ms = 0, reorder_ms = 0;
    dnnl_stream_t stream = nullptr;
    bool single = false;  // this thread's OpenMP regions set to one thread
    for (size_t k = next.fetch_add(1); k < tasks; k = next.fetch_add(1)) {
      const auto start = std::chrono::steady_clock::now();
      if (k < weights.size()) {
        if (!single && api.omp_set_num_threads != nullptr) api.omp_set_num_threads(1);
        single = true;
        dnnl_status_t st = stream != nullptr ? dnnl_success
                                             : api.dnnl_stream_create(&stream, engine.engine, dnnl_stream_default_flags);
        const PendingWeights& w = weights[order[k]];
        if (st == dnnl_success) st = ReorderWeights(api, engine.engine, stream, w, kernel.memories_[static_cast<size_t>(w.memory)]);
        status[k] = st;
        reorder_ms += MsSince(start);
      } else {
        Step& step = steps[pending[k - weights.size()]];
        status[k] = api.dnnl_primitive_create(&step.primitive, step.pending);
        create_ms += MsSince(start);
      }
    }
    if (stream != nullptr) api.dnnl_stream_destroy(stream);
    std::lock_guard<std::mutex> lock(mu);
    stats.primitive_create_ms += create_ms;
    stats.weight_reorder_ms += reorder_ms;
  };
  const int workers = std::clamp(threads, 1, static_cast<int>(std::max<size_t>(tasks, 1)));
  std::vector<std::thread> helpers;
  for (int w = 1; w < workers; ++w) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: the caller's thread does the rest
    }
  }
  work();
  for (std::thread& t : helpers) t.join();
  // The caller's thread may have run reorders on one OpenMP thread: back to
  // the interpreter's count (not the workers, fewer when tasks were few).
  if (api.omp_set_num_threads != nullptr) api.omp_set_num_threads(std::max(1, threads));
  Status first = Status::Ok();
  for (size_t k = 0; k < weights.size(); ++k) {
    if (status[k] != dnnl_success && first.ok()) {
      first = InternalError(fmt::format("{}: oneDNN could not reorder its weights: {}", weights[order[k]].what,
                                        DnnlStatusName(status[k])));
    }
  }
  for (size_t j = 0; j < pending.size(); ++j) {
    Step& step = steps[pending[j]];
    api.dnnl_primitive_desc_destroy(step.pending);
    step.pending = nullptr;
    const dnnl_status_t st = status[weights.size() + j];
    if (st != dnnl_success) {
      step.primitive = nullptr;
      if (first.ok()) {
        first = InternalError(fmt::format("{}: oneDNN could not create its primitive: {}", step.what, DnnlStatusName(st)));
      }
    }
  }
  weights.clear();  // owned bytes are no longer needed
  return first;
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> BuildPartitionImpl(const std::shared_ptr<Engine>& engine, const DelegateGraph& graph,
                                                     const DelegatePartition& partition, BuildStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  const DnnlApi& api = *engine->api;
  auto kernel = std::make_unique<PartitionKernel>(engine, partition.id);
  if (api.dnnl_stream_create(&kernel->stream_, engine->engine, dnnl_stream_default_flags) != dnnl_success) {
    return InternalError("oneDNN: cannot create a stream");
  }
  // The interpreter's thread count from the start: the weight reorders run
  // as OpenMP regions too, and under OpenMP's default (every core) each of
  // ~200 small regions waits for every core. With 1 interpreter thread on a
  // 2-core VM whose cores were busy, Inception V3's reorders took 140-540 ms
  // that way and 28-71 ms on one thread.
  const int threads = engine->threads > 0 ? engine->threads : graph.num_threads();
  if (api.omp_set_num_threads != nullptr) api.omp_set_num_threads(std::max(1, threads));
  BuildStats local;
  BuildContext ctx(engine, graph, *kernel, local);
  // Boundary inputs: the CPU's float32 buffers, plain.
  for (size_t i = 0; i < partition.inputs.size(); ++i) {
    const int t = partition.inputs[i];
    kernel->input_shapes_.push_back(graph.tensor(t).shape);
    if (graph.is_constant(t)) continue;  // reordered from its bytes where used
    RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t md, ctx.PlainDesc(graph.tensor(t).shape, dnnl_f32));
    RELITE_ASSIGN_OR_RETURN(int m, ctx.NewBoundary(md, static_cast<int>(i), -1));
    ctx.values()[t] = {m};
  }
  std::map<int, std::vector<int>> readers = ReadersOf(graph);
  std::map<int, NodeFusion> fusion = PlanFusion(graph, partition, readers);
  const NodeFusion none;
  std::set<int> skip;
  std::map<int, int> pad_reader;  // PAD node -> the convolution that takes its padding
  std::map<int, int> deferred;    // residual ADD node -> the producer built at its place
  for (const auto& [p, f] : fusion) {
    skip.insert(f.absorbed_nodes.begin(), f.absorbed_nodes.end());
    if (f.pre_pad.node >= 0) pad_reader[f.pre_pad.node] = p;
    if (f.build_at >= 0) deferred[f.build_at] = p;
  }
  ctx.SetReaders(std::move(readers));
  ctx.boundary_outputs_.insert(partition.outputs.begin(), partition.outputs.end());
  std::vector<int> order;  // the nodes in the order their steps are built
  for (int n : partition.nodes) {
    auto d = deferred.find(n);
    if (d != deferred.end()) order.push_back(d->second);
    if (auto f = fusion.find(n); f != fusion.end() && f->second.build_at >= 0) continue;
    order.push_back(n);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const int n = order[k];
    if (skip.count(n)) continue;
    const Node& node = graph.node(n);
    std::string reason;
    if (auto pr = pad_reader.find(n); pr != pad_reader.end()) {
      // The PAD runs first, so whether its reader takes the padding is
      // asked now, of the reader's own builder on plain layouts.
      NodeFusion& rf = fusion[pr->second];
      const Node& reader = graph.node(pr->second);
      OpBuild reader_build = FindOpBuild(reader, &reason);
      NodeFusion trial;
      trial.pre_pad = rf.pre_pad;
      CheckContext check(engine, graph, reader, trial);
      if (reader_build != nullptr && reader_build(check).ok()) {
        ++local.fused_nodes;
        continue;
      }
      rf.pre_pad = PrePad();
    }
    OpBuild build = FindOpBuild(node, &reason);
    if (build == nullptr) return InternalError(fmt::format("{}: {}", node.Describe(), reason));
    auto f = fusion.find(n);
    ctx.SetNode(&node, f != fusion.end() ? &f->second : &none);
    Status s = build(ctx);
    if (!s.ok() && s.code() == StatusCode::kUnimplemented && f != fusion.end() && !f->second.post_ops.empty()) {
      // The primitive refused the post-ops: build it without them (a
      // folded PAD stays: it was checked alone) and its followers on their
      // own.
      NodeFusion pad_only;
      pad_only.pre_pad = f->second.pre_pad;
      // The followers then build on their own. A deferred producer is
      // built at its ADD's place, which comes next in `order`: followers
      // before that ADD in the chain (whose places have passed) come now.
      const std::vector<int> followers = f->second.absorbed_nodes;
      const int deferred_to = f->second.build_at;
      for (int a : followers) skip.erase(a);
      f->second = pad_only;
      ctx.SetNode(&node, &f->second);
      s = build(ctx);
      if (s.ok() && deferred_to >= 0) {
        std::vector<int> now;
        for (int a : followers) {
          if (a == deferred_to) break;
          now.push_back(a);
        }
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(k) + 1, now.begin(), now.end());
      }
    }
    if (!s.ok()) return s.WithContext(node.Describe());
    ctx.MarkBuilt(n);
    if (auto done = fusion.find(n); done != fusion.end()) {
      for (int a : done->second.absorbed_nodes) ctx.MarkBuilt(a);
      if (done->second.pre_pad.node >= 0) ctx.MarkBuilt(done->second.pre_pad.node);
    }
  }
  for (const auto& [p, f] : fusion) local.fused_nodes += static_cast<int>(f.absorbed_nodes.size());
  // Boundary outputs: reordered (or copied) into the CPU's buffers.
  for (size_t j = 0; j < partition.outputs.size(); ++j) {
    const int t = partition.outputs[j];
    kernel->output_shapes_.push_back(graph.tensor(t).shape);
    auto it = ctx.values().find(t);
    if (it == ctx.values().end()) return InternalError(fmt::format("oneDNN partition: output tensor {} is never produced", t));
    RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t md, ctx.PlainDesc(graph.tensor(t).shape, dnnl_f32));
    RELITE_ASSIGN_OR_RETURN(int m, ctx.NewBoundary(md, -1, static_cast<int>(j)));
    RELITE_RETURN_IF_ERROR(ctx.AddReorder(it->second.front(), m, fmt::format("output tensor {}", t)));
    ++local.boundary_reorders;
  }
  RELITE_RETURN_IF_ERROR(FinishBuild(*engine, *kernel, ctx.pending_weights(), threads, local));
  local.build_ms = MsSince(start);
  if (stats != nullptr) {
    stats->primitives += local.primitives;
    stats->boundary_reorders += local.boundary_reorders;
    stats->fused_nodes += local.fused_nodes;
    stats->build_ms += local.build_ms;
    stats->primitive_create_ms += local.primitive_create_ms;
    stats->weight_reorder_ms += local.weight_reorder_ms;
    stats->weight_bytes += local.weight_bytes;
  }
  return std::unique_ptr<Kernel>(std::move(kernel));
}

StatusOr<std::unique_ptr<Kernel>> BuildPartition(const std::shared_ptr<Engine>& engine, const DelegateGraph& graph,
                                                 const DelegatePartition& partition, BuildStats* stats) {
  return BuildPartitionImpl(engine, graph, partition, stats);
}

Status CheckNodeSupport(const std::shared_ptr<Engine>& engine, const DelegateGraph& graph, const Node& node) {
  std::string reason;
  OpBuild build = FindOpBuild(node, &reason);
  if (build == nullptr) return UnimplementedError(reason);
  // oneDNN describes no empty tensor, and the builders divide by extents:
  // a declared 0 or -1 anywhere keeps the node on the CPU, whose kernels
  // check shapes at Prepare.
  for (const std::vector<int>* list : {&node.inputs, &node.outputs}) {
    for (int t : *list) {
      if (t < 0) continue;
      const Shape& shape = graph.tensor(t).shape;
      if (std::any_of(shape.begin(), shape.end(), [](int32_t d) { return d <= 0; })) {
        return UnimplementedError(fmt::format("tensor {} has an empty or unknown dimension ({})", t, ShapeToString(shape)));
      }
    }
  }
  CheckContext ctx(engine, graph, node);
  return build(ctx);
}

Engine::~Engine() {
  if (engine != nullptr && api != nullptr) api->dnnl_engine_destroy(engine);
}

}  // namespace relite::onednn
