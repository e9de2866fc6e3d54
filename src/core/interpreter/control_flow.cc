// IF, WHILE and CALL_ONCE: kernels that run other subgraphs of the model.
//
// A called subgraph's inputs alias the caller's tensors (its input tensors
// point at the caller's memory while it runs: no copy in); its outputs are
// copied out once, since they live in its own arena. The callee is allocated
// for the caller's input shapes at Prepare. Where that does not fix the
// output shapes (branches that give different shapes, a loop variable that
// changes shape, a callee whose outputs are sized at its own Invoke), the
// node is dynamic: it is prepared at Invoke, runs its callee there (a loop
// re-sizing its condition and body at each iteration whose shapes changed),
// sizes its outputs from what came out, and Eval copies them.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "src/core/interpreter/graph_table.h"
#include "src/core/interpreter/subgraph.h"
#include "src/core/ops/options.h"
#include "tflite_generated.h"

namespace relite {

StatusOr<std::unique_ptr<Kernel>> CreateResourceKernel(const Node& node, GraphTable& graphs);

namespace {

std::string Callee(int index) { return fmt::format("subgraph {}", index); }

// Allocates `sg` for inputs shaped like the caller's tensors `from` (its
// inputs in order); checks counts and types. `what` names the role ("then
// branch", "loop body").
Status PrepareCallee(KernelContext& ctx, Subgraph& sg, const char* what, const std::vector<const Tensor*>& from,
                     size_t outputs) {
  if (sg.inputs().size() != from.size() || sg.outputs().size() != outputs) {
    return ctx.Error(fmt::format("the {} ({}) takes {} inputs and gives {} outputs; the node needs {} and {}", what,
                                 Callee(sg.index()), sg.inputs().size(), sg.outputs().size(), from.size(), outputs));
  }
  for (size_t i = 0; i < from.size(); ++i) {
    const Tensor& in = sg.tensors()[static_cast<size_t>(sg.inputs()[i])];
    if (in.type != from[i]->type) {
      return ctx.Error(fmt::format("the {} ({}) input {} is {}, the node passes {}", what, Callee(sg.index()), i,
                                   DataTypeName(in.type), DataTypeName(from[i]->type)));
    }
    if (in.shape != from[i]->shape) RELITE_RETURN_IF_ERROR(sg.ResizeInput(static_cast<int>(i), from[i]->shape));
  }
  if (!sg.allocated()) {
    Status s = sg.AllocateTensors();
    if (!s.ok()) return s.WithContext(fmt::format("{}: {} ({})", ctx.node().Describe(), what, Callee(sg.index())));
  }
  return Status::Ok();
}

// Points the callee's inputs at the caller's tensors.
void AliasInputs(Subgraph& sg, const std::vector<Tensor*>& from) {
  for (size_t i = 0; i < from.size(); ++i) {
    Tensor& in = sg.tensors()[static_cast<size_t>(sg.inputs()[i])];
    in.data = from[i]->data;
  }
}

Status Run(KernelContext& ctx, Subgraph& sg, const char* what) {
  Status s = sg.Invoke();
  return s.ok() ? s : s.WithContext(fmt::format("{}: {} ({})", ctx.node().Describe(), what, Callee(sg.index())));
}

void CopyTensor(const Tensor& from, Tensor& to) {
  if (from.data != to.data && to.bytes > 0) std::memmove(to.data, from.data, std::min(from.bytes, to.bytes));
}

bool ReadCondition(const Tensor& t) {
  return t.data != nullptr && t.num_elements() > 0 && static_cast<const uint8_t*>(t.data)[0] != 0;
}

const Tensor& CalleeOutput(Subgraph& sg, int k) {
  return sg.tensors()[static_cast<size_t>(sg.outputs()[static_cast<size_t>(k)])];
}

// A dynamic node runs its callee in Prepare, at Invoke, once every input
// has its values; NeedInputValues defers it there.
Status RequireInputValues(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i) && !ctx.InputValuesReady(i)) return ctx.NeedInputValues(i);
  }
  return Status::Ok();
}

// A value held by the kernel between iterations of a dynamic loop.
struct HeldValue {
  Shape shape;
  std::vector<uint8_t> bytes;
  void Take(const Tensor& t) {
    shape = t.shape;
    bytes.resize(t.bytes);
    if (t.bytes > 0) std::memcpy(bytes.data(), t.data, t.bytes);
  }
};

// Sizes `sg`'s inputs for `values` (re-allocating it when a shape changed)
// and points them at the values' bytes.
Status BindHeld(KernelContext& ctx, Subgraph& sg, const char* what, std::vector<HeldValue>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    const Tensor& in = sg.tensors()[static_cast<size_t>(sg.inputs()[i])];
    if (in.shape != values[i].shape) RELITE_RETURN_IF_ERROR(sg.ResizeInput(static_cast<int>(i), values[i].shape));
  }
  if (!sg.allocated()) {
    Status s = sg.AllocateTensors();
    if (!s.ok()) return s.WithContext(fmt::format("{}: {} ({})", ctx.node().Describe(), what, Callee(sg.index())));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    sg.tensors()[static_cast<size_t>(sg.inputs()[i])].data = values[i].bytes.empty() ? nullptr : values[i].bytes.data();
  }
  return Status::Ok();
}

class IfKernel final : public Kernel {
 public:
  IfKernel(Subgraph* then_branch, Subgraph* else_branch) : branches_{then_branch, else_branch} {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() < 1 || !ctx.has_input(0)) return ctx.Error("expects a condition input");
    const Tensor& cond = ctx.input(0);
    if (cond.type != DataType::kBool || cond.num_elements() != 1) {
      return ctx.Error("the condition must be one bool value, got " + DataTypeName(cond.type) + " " +
                       ShapeToString(cond.shape));
    }
    std::vector<const Tensor*> args;
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) return ctx.Error("input " + std::to_string(i) + " is absent");
      args.push_back(&ctx.input(i));
    }
    const char* names[2] = {"then branch", "else branch"};
    for (int b = 0; b < 2; ++b) {
      RELITE_RETURN_IF_ERROR(PrepareCallee(ctx, *branches_[b], names[b], args, static_cast<size_t>(ctx.num_outputs())));
    }
    ran_ = false;
    bool dynamic = false;
    for (int k = 0; k < ctx.num_outputs(); ++k) {
      const Tensor& a = CalleeOutput(*branches_[0], k);
      const Tensor& b = CalleeOutput(*branches_[1], k);
      if (a.type != b.type || a.type != ctx.output(k).type) {
        return ctx.Error(fmt::format("output {}: the then branch gives {}, the else branch {}, the node declares {}", k,
                                     DataTypeName(a.type), DataTypeName(b.type), DataTypeName(ctx.output(k).type)));
      }
      dynamic |= a.shape != b.shape || a.allocation == Allocation::kDynamic || b.allocation == Allocation::kDynamic;
    }
    if (!dynamic) {
      for (int k = 0; k < ctx.num_outputs(); ++k) RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(k, CalleeOutput(*branches_[0], k).shape));
      return Status::Ok();
    }
    // The output shapes are those of the branch the condition picks (or of
    // its run): it runs now, at Invoke.
    RELITE_RETURN_IF_ERROR(RequireInputValues(ctx));
    RELITE_ASSIGN_OR_RETURN(Subgraph * branch, RunBranch(ctx));
    for (int k = 0; k < ctx.num_outputs(); ++k) RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(k, CalleeOutput(*branch, k).shape));
    ran_ = true;
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    Subgraph* branch = branches_[ReadCondition(ctx.input(0)) ? 0 : 1];
    if (ran_) {
      ran_ = false;  // a dynamic IF ran its branch in this Invoke's Prepare
    } else {
      RELITE_ASSIGN_OR_RETURN(branch, RunBranch(ctx));
    }
    for (int k = 0; k < ctx.num_outputs(); ++k) CopyTensor(CalleeOutput(*branch, k), ctx.output(k));
    return Status::Ok();
  }

 private:
  StatusOr<Subgraph*> RunBranch(KernelContext& ctx) {
    Subgraph& branch = *branches_[ReadCondition(ctx.input(0)) ? 0 : 1];
    std::vector<Tensor*> args;
    for (int i = 1; i < ctx.num_inputs(); ++i) args.push_back(&ctx.input(i));
    AliasInputs(branch, args);
    RELITE_RETURN_IF_ERROR(Run(ctx, branch, &branch == branches_[0] ? "then branch" : "else branch"));
    return &branch;
  }

  Subgraph* branches_[2];
  bool ran_ = false;
};

class WhileKernel final : public Kernel {
 public:
  WhileKernel(Subgraph* cond, Subgraph* body) : cond_(cond), body_(body) {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != ctx.num_outputs()) {
      return ctx.Error(fmt::format("has {} inputs and {} outputs; the loop variables must match", ctx.num_inputs(),
                                   ctx.num_outputs()));
    }
    std::vector<const Tensor*> vars;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) return ctx.Error("input " + std::to_string(i) + " is absent");
      vars.push_back(&ctx.input(i));
      if (ctx.input(i).type != ctx.output(i).type) {
        return ctx.Error(fmt::format("loop variable {} is {} in and {} out", i, DataTypeName(ctx.input(i).type),
                                     DataTypeName(ctx.output(i).type)));
      }
    }
    RELITE_RETURN_IF_ERROR(PrepareCallee(ctx, *cond_, "condition", vars, 1));
    const Tensor& c = cond_->tensors()[static_cast<size_t>(cond_->outputs()[0])];
    if (c.type != DataType::kBool || c.num_elements() != 1) {
      return ctx.Error(fmt::format("the condition ({}) must give one bool value, it gives {} {}", Callee(cond_->index()),
                                   DataTypeName(c.type), ShapeToString(c.shape)));
    }
    RELITE_RETURN_IF_ERROR(PrepareCallee(ctx, *body_, "loop body", vars, vars.size()));
    ran_ = false;
    bool dynamic = false;
    for (size_t k = 0; k < vars.size(); ++k) {
      const Tensor& o = CalleeOutput(*body_, static_cast<int>(k));
      if (o.type != vars[k]->type) {
        return ctx.Error(fmt::format("loop variable {} enters the body as {} and leaves it as {}", k,
                                     DataTypeName(vars[k]->type), DataTypeName(o.type)));
      }
      dynamic |= o.shape != vars[k]->shape || o.allocation == Allocation::kDynamic;
    }
    if (dynamic) {
      // A loop variable changes shape (or the body sizes it at its Invoke):
      // the loop runs now, at Invoke, and the outputs take the final shapes.
      RELITE_RETURN_IF_ERROR(RequireInputValues(ctx));
      RELITE_RETURN_IF_ERROR(RunDynamicLoop(ctx));
      for (int k = 0; k < ctx.num_outputs(); ++k) {
        RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(k, held_[static_cast<size_t>(k)].shape));
      }
      ran_ = true;
      return Status::Ok();
    }
    passthrough_.assign(vars.size(), -1);
    for (size_t k = 0; k < vars.size(); ++k) {
      const int out = body_->outputs()[k];
      // A body output that is one of its inputs reads the caller's memory,
      // which this iteration's copies overwrite: staged first.
      const auto& ins = body_->inputs();
      const auto it = std::find(ins.begin(), ins.end(), out);
      if (it != ins.end()) passthrough_[k] = static_cast<int>(it - ins.begin());
    }
    for (int k = 0; k < ctx.num_outputs(); ++k) RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(k, vars[static_cast<size_t>(k)]->shape));
    size_t staging = 0;
    for (size_t k = 0; k < vars.size(); ++k) {
      if (passthrough_[k] >= 0) staging += static_cast<size_t>(vars[k]->num_elements()) * DataTypeSize(vars[k]->type);
    }
    staging_.resize(staging);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    if (ran_) {
      // A dynamic loop ran in this Invoke's Prepare.
      ran_ = false;
      for (int k = 0; k < ctx.num_outputs(); ++k) {
        const HeldValue& v = held_[static_cast<size_t>(k)];
        Tensor& out = ctx.output(k);
        if (out.bytes > 0) std::memcpy(out.data, v.bytes.data(), std::min(out.bytes, v.bytes.size()));
      }
      return Status::Ok();
    }
    std::vector<Tensor*> vars;
    for (int k = 0; k < ctx.num_outputs(); ++k) {
      CopyTensor(ctx.input(k), ctx.output(k));  // the outputs hold the loop state
      vars.push_back(&ctx.output(k));
    }
    double work = 0;
    for (;;) {
      AliasInputs(*cond_, vars);
      RELITE_RETURN_IF_ERROR(Run(ctx, *cond_, "condition"));
      if (!ReadCondition(cond_->tensors()[static_cast<size_t>(cond_->outputs()[0])])) break;
      RELITE_RETURN_IF_ERROR(CountIteration(ctx, &work));
      AliasInputs(*body_, vars);
      RELITE_RETURN_IF_ERROR(Run(ctx, *body_, "loop body"));
      // Pass-through values first (they alias the state being rewritten).
      size_t offset = 0;
      for (size_t k = 0; k < vars.size(); ++k) {
        if (passthrough_[k] < 0) continue;
        const Tensor& from = *vars[static_cast<size_t>(passthrough_[k])];
        if (from.bytes > 0) std::memcpy(staging_.data() + offset, from.data, from.bytes);
        offset += from.bytes;
      }
      for (size_t k = 0; k < vars.size(); ++k) {
        if (passthrough_[k] >= 0) continue;
        CopyTensor(body_->tensors()[static_cast<size_t>(body_->outputs()[k])], *vars[k]);
      }
      offset = 0;
      for (size_t k = 0; k < vars.size(); ++k) {
        if (passthrough_[k] < 0) continue;
        if (vars[k]->bytes > 0) std::memcpy(vars[k]->data, staging_.data() + offset, vars[k]->bytes);
        offset += vars[k]->bytes;
      }
    }
    return Status::Ok();
  }

 private:
  // An untrusted model may loop forever: the loop's work counts against
  // ResourceLimits::max_macs like any Invoke's (each iteration at least
  // kMinIterationWork, so an empty body is bounded too).
  Status CountIteration(KernelContext& ctx, double* work) const {
    constexpr double kMinIterationWork = 1e4;
    const double limit = body_->limits().max_macs;
    const double per_iteration = std::max(kMinIterationWork, cond_->estimated_macs() + body_->estimated_macs());
    *work += per_iteration;
    if (limit > 0 && *work > limit) {
      return ResourceExhaustedError(fmt::format(
          "{}: the loop has run past {:.3g} multiply-accumulates ({:.3g} per iteration), over the limit of {:.3g} "
          "(ResourceLimits::max_macs; relite CLI --max-macs)",
          ctx.node().Describe(), *work, per_iteration, limit));
    }
    return Status::Ok();
  }

  // The loop state lives in held_ (each iteration's outputs copied into
  // `next_`, then swapped: pass-through and swapped variables need no
  // staging); condition and body are re-sized whenever a shape changed.
  Status RunDynamicLoop(KernelContext& ctx) {
    const size_t n = static_cast<size_t>(ctx.num_inputs());
    held_.resize(n);
    next_.resize(n);
    for (size_t k = 0; k < n; ++k) held_[k].Take(ctx.input(static_cast<int>(k)));
    double work = 0;
    for (;;) {
      RELITE_RETURN_IF_ERROR(BindHeld(ctx, *cond_, "condition", held_));
      RELITE_RETURN_IF_ERROR(Run(ctx, *cond_, "condition"));
      const Tensor& c = CalleeOutput(*cond_, 0);
      if (c.type != DataType::kBool || c.num_elements() != 1) {
        return ctx.Error(fmt::format("the condition ({}) must give one bool value, it gives {} {}", Callee(cond_->index()),
                                     DataTypeName(c.type), ShapeToString(c.shape)));
      }
      if (!ReadCondition(c)) break;
      RELITE_RETURN_IF_ERROR(CountIteration(ctx, &work));
      RELITE_RETURN_IF_ERROR(BindHeld(ctx, *body_, "loop body", held_));
      RELITE_RETURN_IF_ERROR(Run(ctx, *body_, "loop body"));
      for (size_t k = 0; k < n; ++k) {
        const Tensor& o = CalleeOutput(*body_, static_cast<int>(k));
        if (o.type != ctx.input(static_cast<int>(k)).type) {
          return ctx.Error(fmt::format("loop variable {} leaves the body as {}", k, DataTypeName(o.type)));
        }
        next_[k].Take(o);
      }
      held_.swap(next_);
    }
    return Status::Ok();
  }

  Subgraph* cond_;
  Subgraph* body_;
  std::vector<int> passthrough_;  // per output: the body input it passes through, or -1
  std::vector<uint8_t> staging_;
  std::vector<HeldValue> held_, next_;  // a dynamic loop's state
  bool ran_ = false;
};

// Runs its initializer subgraph once. That happens at the first Prepare (not
// the first Invoke, as in TFLite): the initializer only sets resource
// variables, and their shapes must be known when the READ_VARIABLE nodes
// after it are prepared.
class CallOnceKernel final : public Kernel {
 public:
  CallOnceKernel(GraphTable& graphs, Subgraph* init) : graphs_(graphs), init_(init) {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 0 || ctx.num_outputs() != 0) return ctx.Error("takes no inputs and gives no outputs");
    if (graphs_.InitializerRan(init_->index())) return Status::Ok();
    if (!init_->inputs().empty() || !init_->outputs().empty()) {
      return ctx.Error(fmt::format("the initializer ({}) must take no inputs and give no outputs", Callee(init_->index())));
    }
    RELITE_RETURN_IF_ERROR(PrepareCallee(ctx, *init_, "initializer", {}, 0));
    RELITE_RETURN_IF_ERROR(Run(ctx, *init_, "initializer"));
    graphs_.RecordInitializer(init_->index());
    return Status::Ok();
  }
  Status Eval(KernelContext&) override { return Status::Ok(); }

 private:
  GraphTable& graphs_;
  Subgraph* init_;
};

}  // namespace

bool IsCoreOp(const Node& node) {
  if (node.is_custom()) return false;
  switch (static_cast<tflite::BuiltinOperator>(node.builtin_code)) {
#define RELITE_CORE_OP(code, lo, hi) case tflite::BuiltinOperator::code:
#include "src/core/interpreter/core_ops.inc"
#undef RELITE_CORE_OP
      return true;
    default:
      return false;
  }
}

StatusOr<std::unique_ptr<Kernel>> CreateCoreKernel(const Node& node, GraphTable& graphs, int subgraph_index) {
  int lo = 1, hi = 1;
  switch (static_cast<tflite::BuiltinOperator>(node.builtin_code)) {
#define RELITE_CORE_OP(code, min_version, max_version) \
  case tflite::BuiltinOperator::code:                  \
    lo = min_version;                                  \
    hi = max_version;                                  \
    break;
#include "src/core/interpreter/core_ops.inc"
#undef RELITE_CORE_OP
    default:
      return InternalError(node.Describe() + ": not an interpreter op");
  }
  if (node.version < lo || node.version > hi) {
    return UnimplementedError(fmt::format("{}: version {} is not supported (supported versions {}..{})", node.Describe(),
                                          node.version, lo, hi));
  }
  const std::string caller = fmt::format("subgraph {}: {}", subgraph_index, node.Describe());
  switch (static_cast<tflite::BuiltinOperator>(node.builtin_code)) {
    case tflite::BuiltinOperator::IF: {
      const auto* o = GetOptions<tflite::IfOptions>(node);
      if (o == nullptr) return InvalidArgumentError(node.Describe() + ": IfOptions are missing");
      RELITE_ASSIGN_OR_RETURN(Subgraph * then_branch, graphs.Get(o->then_subgraph_index(), caller + " (then branch)"));
      RELITE_ASSIGN_OR_RETURN(Subgraph * else_branch, graphs.Get(o->else_subgraph_index(), caller + " (else branch)"));
      return std::unique_ptr<Kernel>(std::make_unique<IfKernel>(then_branch, else_branch));
    }
    case tflite::BuiltinOperator::WHILE: {
      const auto* o = GetOptions<tflite::WhileOptions>(node);
      if (o == nullptr) return InvalidArgumentError(node.Describe() + ": WhileOptions are missing");
      RELITE_ASSIGN_OR_RETURN(Subgraph * cond, graphs.Get(o->cond_subgraph_index(), caller + " (condition)"));
      RELITE_ASSIGN_OR_RETURN(Subgraph * body, graphs.Get(o->body_subgraph_index(), caller + " (body)"));
      return std::unique_ptr<Kernel>(std::make_unique<WhileKernel>(cond, body));
    }
    case tflite::BuiltinOperator::CALL_ONCE: {
      const auto* o = GetOptions<tflite::CallOnceOptions>(node);
      if (o == nullptr) return InvalidArgumentError(node.Describe() + ": CallOnceOptions are missing");
      RELITE_ASSIGN_OR_RETURN(Subgraph * init, graphs.Get(o->init_subgraph_index(), caller + " (initializer)"));
      return std::unique_ptr<Kernel>(std::make_unique<CallOnceKernel>(graphs, init));
    }
    default:
      return CreateResourceKernel(node, graphs);
  }
}

}  // namespace relite
