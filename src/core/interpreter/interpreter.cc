#include "relite/interpreter.h"

#include <thread>

#include "fmt/format.h"
#include "src/core/base/exception_guard.h"
#include "src/core/interpreter/denormal_mode.h"
#include "src/core/interpreter/graph_table.h"
#include "src/core/interpreter/subgraph.h"
#include "src/core/interpreter/thread_pool.h"

namespace relite {

Interpreter::Interpreter(const Model& model, int num_threads, bool flush_denormals)
    : model_(model), flush_denormals_(flush_denormals),
      pool_(std::make_unique<ThreadPool>(num_threads, flush_denormals)) {}

Interpreter::~Interpreter() = default;

// Every public entry point that can allocate runs behind CatchExceptions.
Status Interpreter::AllocateTensors() {
  return CatchExceptions("AllocateTensors", [&] { return main_->AllocateTensors(); });
}
Status Interpreter::ResizeInputTensor(int input_index, const Shape& shape) {
  return CatchExceptions("ResizeInputTensor", [&] { return main_->ResizeInput(input_index, shape); });
}
Status Interpreter::ResizeInputTensorStrict(int input_index, const Shape& shape) {
  return CatchExceptions("ResizeInputTensorStrict", [&]() -> Status {
    const Tensor* t = input_tensor(input_index);
    if (t == nullptr) {
      return InvalidArgumentError(fmt::format("input index {} is out of range (the model has {} inputs)", input_index,
                                              num_inputs()));
    }
    const Shape& signature = t->shape_signature.empty() ? t->shape : t->shape_signature;
    bool allowed = signature.size() == shape.size();
    for (size_t d = 0; allowed && d < shape.size(); ++d) allowed = signature[d] == -1 || signature[d] == shape[d];
    if (!allowed) {
      return InvalidArgumentError(fmt::format(
          "input {} ('{}'): shape {} is not allowed by its shape signature {} (only dimensions marked -1 may change)",
          input_index, t->name, ShapeToString(shape), ShapeToString(signature)));
    }
    return main_->ResizeInput(input_index, shape);
  });
}

Status Interpreter::Invoke() {
  const ScopedFlushDenormals denormals(flush_denormals_);
  return CatchExceptions("Invoke", [&] { return main_->Invoke(); });
}

Status Interpreter::ResetVariableTensors() {
  const ScopedFlushDenormals denormals(flush_denormals_);  // CALL_ONCE initializers run kernels
  return CatchExceptions("ResetVariableTensors", [&]() -> Status {
    for (int i = 0; i < graphs_->num_subgraphs(); ++i) {
      if (Subgraph* sg = graphs_->built(i)) RELITE_RETURN_IF_ERROR(sg->ResetVariables());
    }
    return graphs_->ResetResources();
  });
}

int Interpreter::num_subgraphs_built() const {
  int n = 0;
  for (int i = 0; i < graphs_->num_subgraphs(); ++i) n += graphs_->built(i) != nullptr ? 1 : 0;
  return n;
}

int Interpreter::num_inputs() const { return static_cast<int>(main_->inputs().size()); }
int Interpreter::num_outputs() const { return static_cast<int>(main_->outputs().size()); }

Tensor* Interpreter::input_tensor(int i) {
  if (i < 0 || i >= num_inputs()) return nullptr;
  return &main_->tensors()[static_cast<size_t>(main_->inputs()[static_cast<size_t>(i)])];
}
Tensor* Interpreter::output_tensor(int i) {
  if (i < 0 || i >= num_outputs()) return nullptr;
  return &main_->tensors()[static_cast<size_t>(main_->outputs()[static_cast<size_t>(i)])];
}

int Interpreter::tensors_size() const { return static_cast<int>(main_->tensors().size()); }
Tensor* Interpreter::tensor(int i) {
  if (i < 0 || i >= tensors_size()) return nullptr;
  return &main_->tensors()[static_cast<size_t>(i)];
}
int Interpreter::nodes_size() const { return static_cast<int>(main_->nodes().size()); }
const Node& Interpreter::node(int i) const { return main_->nodes()[static_cast<size_t>(i)]; }
const std::vector<int>& Interpreter::inputs() const { return main_->inputs(); }
const std::vector<int>& Interpreter::outputs() const { return main_->outputs(); }
bool Interpreter::node_is_folded(int i) const { return i >= 0 && i < nodes_size() && main_->folded(i); }
bool Interpreter::node_is_fused(int i) const { return i >= 0 && i < nodes_size() && main_->fused(i); }
size_t Interpreter::arena_bytes() const { return main_->arena_bytes(); }
size_t Interpreter::unplanned_bytes() const { return main_->unplanned_bytes(); }
size_t Interpreter::persistent_bytes() const { return main_->persistent_bytes(); }
double Interpreter::estimated_macs() const { return main_->estimated_macs(); }
int Interpreter::num_threads() const { return pool_->size(); }
Status Interpreter::ModifyGraphWithDelegate(Delegate* delegate) {
  if (delegate == nullptr) return InvalidArgumentError("ModifyGraphWithDelegate: the delegate is null");
  return CatchExceptions("ModifyGraphWithDelegate", [&]() -> Status {
    DelegationReport report;
    RELITE_RETURN_IF_ERROR(main_->ApplyDelegate(*delegate, &report));
    reports_.push_back(std::move(report));
    return Status::Ok();
  });
}
const std::vector<int>& Interpreter::execution_plan() const { return main_->execution_plan(); }
bool Interpreter::node_is_delegated(int i) const { return i >= 0 && i < nodes_size() && main_->delegated(i); }
void Interpreter::SetProfiling(bool enabled) { main_->SetProfiling(enabled); }
const std::vector<double>& Interpreter::node_time_us() const { return main_->node_time_us(); }
void Interpreter::ResetProfile() { main_->ResetProfile(); }

InterpreterBuilder::InterpreterBuilder(const Model& model, const OpResolver& resolver)
    : model_(model), resolver_(resolver) {}

InterpreterBuilder& InterpreterBuilder::SetNumThreads(int num_threads) {
  options_.num_threads = num_threads;
  return *this;
}

InterpreterBuilder& InterpreterBuilder::SetPreserveAllTensors(bool preserve) {
  options_.preserve_all_tensors = preserve;
  return *this;
}

InterpreterBuilder& InterpreterBuilder::SetResourceLimits(const ResourceLimits& limits) {
  options_.limits = limits;
  return *this;
}

InterpreterBuilder& InterpreterBuilder::SetFlushDenormals(bool flush) {
  options_.flush_denormals = flush;
  return *this;
}

InterpreterBuilder& InterpreterBuilder::AddDelegate(Delegate* delegate) {
  delegates_.push_back(delegate);
  return *this;
}

StatusOr<std::unique_ptr<Interpreter>> InterpreterBuilder::Build() {
  return CatchExceptions("InterpreterBuilder::Build", [&]() -> StatusOr<std::unique_ptr<Interpreter>> {
    int threads = options_.num_threads;
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::unique_ptr<Interpreter> interp(new Interpreter(model_, threads, options_.flush_denormals));
    interp->graphs_ = std::make_unique<GraphTable>(model_, resolver_, interp->pool_.get(), options_);
    RELITE_RETURN_IF_ERROR(interp->graphs_->BuildMain());
    interp->main_ = interp->graphs_->main();
    for (Delegate* delegate : delegates_) RELITE_RETURN_IF_ERROR(interp->ModifyGraphWithDelegate(delegate));
    return interp;
  });
}

}  // namespace relite
