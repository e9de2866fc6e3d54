// VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE: resource variables, values
// that persist across Invokes (streaming models keep their state in them)
// and are shared by every subgraph through the GraphTable.
//
// A resource tensor holds the variable's int32 handle. VAR_HANDLE depends on
// nothing but its names, so it is folded at allocation: its output is then a
// constant, and the READ/ASSIGN nodes after it know their variable when they
// are prepared (a handle passed from another subgraph defers them to
// Invoke). Shapes are static: the first ASSIGN_VARIABLE prepared
// declares a variable's type and shape (usually in a CALL_ONCE initializer),
// READ_VARIABLE gives that shape.
#include <cstring>
#include <memory>
#include <string>

#include "fmt/format.h"
#include "src/core/interpreter/graph_table.h"
#include "src/core/ops/options.h"
#include "tflite_generated.h"

namespace relite {
namespace {

StatusOr<ResourceVariable*> VariableOf(KernelContext& ctx, GraphTable& graphs) {
  if (ctx.num_inputs() < 1 || !ctx.has_input(0)) return ctx.Error("expects a resource input");
  const Tensor& handle = ctx.input(0);
  if (handle.type != DataType::kResource) return ctx.Error("input 0 must be a resource, got " + DataTypeName(handle.type));
  // A handle made by a VAR_HANDLE of this subgraph is a constant; one passed
  // in from another subgraph (a loop variable, a branch argument) is known
  // at Invoke: the node is then prepared there.
  if (!ctx.InputValuesReady(0)) return ctx.NeedInputValues(0);
  if (handle.data == nullptr || handle.bytes < sizeof(int32_t)) return ctx.Error("the resource handle has no value");
  int32_t id;
  std::memcpy(&id, handle.data, sizeof(id));
  ResourceVariable* v = graphs.Variable(id);
  if (v == nullptr) return ctx.Error(fmt::format("resource handle {} names no variable", id));
  return v;
}

class VarHandleKernel final : public Kernel {
 public:
  explicit VarHandleKernel(int32_t handle) : handle_(handle) {}
  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 0 || ctx.num_outputs() != 1) return ctx.Error("takes no inputs and gives one resource");
    if (ctx.output(0).type != DataType::kResource) {
      return ctx.Error("the output must be a resource tensor, got " + DataTypeName(ctx.output(0).type));
    }
    return ctx.ResizeOutput(0, {});
  }
  Status Eval(KernelContext& ctx) override {
    std::memcpy(ctx.output(0).data, &handle_, sizeof(handle_));
    return Status::Ok();
  }

 private:
  int32_t handle_;
};

class ReadVariableKernel final : public Kernel {
 public:
  explicit ReadVariableKernel(GraphTable& graphs) : graphs_(graphs) {}
  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 1 || ctx.num_outputs() != 1) return ctx.Error("takes a resource and gives its value");
    RELITE_ASSIGN_OR_RETURN(variable_, VariableOf(ctx, graphs_));
    if (!variable_->declared) {
      return ctx.Error(fmt::format("reads variable '{}' before anything assigns it (no initializer or earlier "
                                   "ASSIGN_VARIABLE gives its shape)",
                                   variable_->name));
    }
    if (ctx.output(0).type != variable_->type) {
      return ctx.Error(fmt::format("variable '{}' holds {}, the output is {}", variable_->name,
                                   DataTypeName(variable_->type), DataTypeName(ctx.output(0).type)));
    }
    return ctx.ResizeOutput(0, variable_->shape);
  }
  Status Eval(KernelContext& ctx) override {
    Tensor& out = ctx.output(0);
    if (variable_->bytes.size() != out.bytes) {
      return ctx.Error(fmt::format("variable '{}' changed shape to {} since this node was prepared", variable_->name,
                                   ShapeToString(variable_->shape)));
    }
    if (out.bytes > 0) std::memcpy(out.data, variable_->bytes.data(), out.bytes);
    return Status::Ok();
  }

 private:
  GraphTable& graphs_;
  ResourceVariable* variable_ = nullptr;
};

class AssignVariableKernel final : public Kernel {
 public:
  explicit AssignVariableKernel(GraphTable& graphs) : graphs_(graphs) {}
  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 2 || ctx.num_outputs() != 0 || !ctx.has_input(1)) {
      return ctx.Error("takes a resource and a value and gives nothing");
    }
    RELITE_ASSIGN_OR_RETURN(variable_, VariableOf(ctx, graphs_));
    const Tensor& value = ctx.input(1);
    if (DataTypeSize(value.type) == 0) return ctx.Error("cannot hold values of type " + DataTypeName(value.type));
    if (variable_->declared && (variable_->type != value.type || variable_->shape != value.shape)) {
      return ctx.Unsupported(fmt::format("assigns {} {} to variable '{}', which holds {} {}: a variable that changes "
                                         "type or shape needs dynamic shapes, not supported yet",
                                         DataTypeName(value.type), ShapeToString(value.shape), variable_->name,
                                         DataTypeName(variable_->type), ShapeToString(variable_->shape)));
    }
    if (!variable_->declared) {
      variable_->declared = true;
      variable_->type = value.type;
      variable_->shape = value.shape;
      variable_->bytes.assign(static_cast<size_t>(value.num_elements()) * DataTypeSize(value.type), 0);
    }
    return Status::Ok();
  }
  Status Eval(KernelContext& ctx) override {
    const Tensor& value = ctx.input(1);
    if (value.bytes != variable_->bytes.size()) return ctx.Error("the value's size changed since Prepare");
    if (value.bytes > 0) std::memcpy(variable_->bytes.data(), value.data, value.bytes);
    return Status::Ok();
  }

 private:
  GraphTable& graphs_;
  ResourceVariable* variable_ = nullptr;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateResourceKernel(const Node& node, GraphTable& graphs) {
  switch (static_cast<tflite::BuiltinOperator>(node.builtin_code)) {
    case tflite::BuiltinOperator::VAR_HANDLE: {
      const auto* o = GetOptions<tflite::VarHandleOptions>(node);
      const std::string container = o && o->container() ? o->container()->str() : "";
      const std::string shared_name = o && o->shared_name() ? o->shared_name()->str() : "";
      return std::unique_ptr<Kernel>(std::make_unique<VarHandleKernel>(graphs.HandleFor(container, shared_name)));
    }
    case tflite::BuiltinOperator::READ_VARIABLE:
      return std::unique_ptr<Kernel>(std::make_unique<ReadVariableKernel>(graphs));
    case tflite::BuiltinOperator::ASSIGN_VARIABLE:
      return std::unique_ptr<Kernel>(std::make_unique<AssignVariableKernel>(graphs));
    default:
      return InternalError(node.Describe() + ": not a resource op");
  }
}

}  // namespace relite
