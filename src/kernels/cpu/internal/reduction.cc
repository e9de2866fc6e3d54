#include "src/kernels/cpu/internal/reduction.h"

#include <string>

#include "src/core/ops/options.h"

namespace relite::cpu {

Status PlanReduction(const KernelContext& ctx, const Shape& input_shape, const Tensor& axis, bool keep_dims,
                     ReductionPlan* plan) {
  const int rank = static_cast<int>(input_shape.size());
  const int64_t num_axes = axis.num_elements();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t k = 0; k < num_axes; ++k) {
    const int64_t a = axis.type == DataType::kInt32 ? axis.data_as<int32_t>()[k] : axis.data_as<int64_t>()[k];
    if (a < -rank || a >= rank) {
      return ctx.Error("axis " + std::to_string(a) + " is out of range for input of rank " + std::to_string(rank));
    }
    reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }

  plan->output_shape.clear();
  plan->passes.clear();
  plan->reduced_count = 1;
  for (int d = 0; d < rank; ++d) {
    const int32_t dim = input_shape[static_cast<size_t>(d)];
    if (reduced[static_cast<size_t>(d)]) {
      plan->reduced_count *= dim;
      if (keep_dims) plan->output_shape.push_back(1);
    } else {
      plan->output_shape.push_back(dim);
    }
  }
  plan->output_elements = NumElements(plan->output_shape);

  // Collapse: axes of extent 1 change nothing, and adjacent axes of the same
  // kind (both reduced or both kept) act as one.
  std::vector<int64_t> dims;
  std::vector<bool> kinds;
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input_shape[static_cast<size_t>(d)];
    const bool r = reduced[static_cast<size_t>(d)];
    if (dim == 1) continue;
    if (!dims.empty() && kinds.back() == r) {
      dims.back() *= dim;
    } else {
      dims.push_back(dim);
      kinds.push_back(r);
    }
  }

  // Reduce the innermost run of reduced axes first; once it is gone, the kept
  // runs on either side of it merge.
  plan->buffer_elements[0] = plan->buffer_elements[1] = 0;
  while (true) {
    int j = -1;
    for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
      if (kinds[static_cast<size_t>(i)]) {
        j = i;
        break;
      }
    }
    if (j < 0) break;
    ReductionPass pass;
    for (int i = 0; i < j; ++i) pass.outer *= dims[static_cast<size_t>(i)];
    pass.reduced = dims[static_cast<size_t>(j)];
    for (size_t i = static_cast<size_t>(j) + 1; i < dims.size(); ++i) pass.inner *= dims[i];
    plan->passes.push_back(pass);
    dims.erase(dims.begin() + j);
    kinds.erase(kinds.begin() + j);
    if (j > 0 && static_cast<size_t>(j) < dims.size()) {
      dims[static_cast<size_t>(j) - 1] *= dims[static_cast<size_t>(j)];
      dims.erase(dims.begin() + j);
      kinds.erase(kinds.begin() + j);
    }
  }
  for (size_t k = 0; k + 1 < plan->passes.size(); ++k) {
    int64_t& slot = plan->buffer_elements[k % 2];
    slot = std::max(slot, plan->passes[k].output_elements());
  }
  return Status::Ok();
}

ReduceKernelBase::ReduceKernelBase(const Node& node, const char* op_name) : op_name_(op_name) {
  if (const auto* o = GetOptions<tflite::ReducerOptions>(node)) keep_dims_ = o->keep_dims();
}

Status ReduceKernelBase::Prepare(KernelContext& ctx) {
  if (ctx.num_inputs() != 2 || !ctx.has_input(0) || !ctx.has_input(1)) {
    return ctx.Error(std::string(op_name_) + " expects 2 inputs (data, axis), got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
  const Tensor& input = ctx.input(0);
  const Tensor& axis = ctx.input(1);
  Tensor& output = ctx.output(0);
  RELITE_RETURN_IF_ERROR(CheckType(ctx, input.type));
  if (output.type != input.type) {
    return ctx.Error("output type " + DataTypeName(output.type) + " differs from input type " +
                     DataTypeName(input.type));
  }
  if (axis.type != DataType::kInt32 && axis.type != DataType::kInt64) {
    return ctx.Error("axis must be int32 or int64, got " + DataTypeName(axis.type));
  }
  if (axis.rank() > 1) return ctx.Error("axis must be a scalar or a vector, got shape " + ShapeToString(axis.shape));
  if (axis.num_elements() > 0) {
    if (!axis.is_constant()) return ctx.Unsupported("axis must be a constant tensor");
    if (axis.data == nullptr) return ctx.Error("axis tensor has no data");
  }
  RELITE_RETURN_IF_ERROR(PlanReduction(ctx, input.shape, axis, keep_dims_, &plan_));
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, plan_.output_shape));

  constexpr size_t kWidest = 8;  // pass buffers hold at most 8-byte values
  extra_offset_ = reduce_internal::PassBufferBytes(plan_, kWidest);
  const size_t extra = ExtraScratchBytes(plan_, input.type);
  const size_t total = extra_offset_ + reduce_internal::AlignUp(extra);
  if (total > 0) ctx.RequestScratch(total);
  return Status::Ok();
}

}  // namespace relite::cpu
