#include "src/kernels/cpu/internal/select.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/internal/elementwise.h"

namespace relite::cpu {
namespace {

constexpr int kMaxSelectRank = 16;
constexpr int kOperands = 3;  // condition, x, y

// The output walked as merged dims (outer to inner) with each operand's
// element stride per dim (0 where it is broadcast).
struct SelectPlan {
  int rank = 0;
  int64_t dims[kMaxSelectRank] = {};
  int64_t stride[kOperands][kMaxSelectRank] = {};
  int64_t num_elements = 0;
};

// `shapes` are right-aligned against `out` and broadcast to it. False when
// the merged rank is beyond kMaxSelectRank.
bool MakePlan(const Shape& out, const Shape* const shapes[kOperands], SelectPlan* plan) {
  *plan = SelectPlan();
  const int rank = static_cast<int>(out.size());
  struct Dim {
    int64_t size;
    int64_t stride[kOperands];
  };
  std::vector<Dim> dims;  // inner to outer, size-1 dims dropped
  int64_t contiguous[kOperands] = {1, 1, 1};
  int64_t total = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t size = out[static_cast<size_t>(d)];
    total *= size;
    Dim dim{size, {0, 0, 0}};
    for (int k = 0; k < kOperands; ++k) {
      const Shape& s = *shapes[k];
      const int offset = rank - static_cast<int>(s.size());
      const int64_t dk = d < offset ? 1 : s[static_cast<size_t>(d - offset)];
      dim.stride[k] = dk == 1 ? 0 : contiguous[k];
      contiguous[k] *= dk;
    }
    if (size != 1) dims.push_back(dim);
  }
  plan->num_elements = total;
  if (total == 0) return true;
  if (dims.empty()) dims.push_back({1, {0, 0, 0}});
  // Merge an outer dim into the inner run when every operand continues it.
  std::vector<Dim> merged{dims[0]};
  for (size_t i = 1; i < dims.size(); ++i) {
    Dim& inner = merged.back();
    bool continues = true;
    for (int k = 0; k < kOperands; ++k) continues = continues && dims[i].stride[k] == inner.stride[k] * inner.size;
    if (continues) {
      inner.size *= dims[i].size;
    } else {
      merged.push_back(dims[i]);
    }
  }
  if (merged.size() > static_cast<size_t>(kMaxSelectRank)) return false;
  plan->rank = static_cast<int>(merged.size());
  for (int i = 0; i < plan->rank; ++i) {
    const Dim& d = merged[merged.size() - 1 - static_cast<size_t>(i)];
    plan->dims[i] = d.size;
    for (int k = 0; k < kOperands; ++k) plan->stride[k][i] = d.stride[k];
  }
  return true;
}

// Output elements [begin, end) of `plan`; T is a same-size stand-in for the
// element type.
template <typename T>
void SelectRange(const SelectPlan& plan, const uint8_t* cond, const T* x, const T* y, T* out, int64_t begin,
                 int64_t end) {
  const int last = plan.rank - 1;
  const int64_t inner = plan.dims[last];
  const int64_t cs = plan.stride[0][last];
  const int64_t xs = plan.stride[1][last];
  const int64_t ys = plan.stride[2][last];
  int64_t counter[kMaxSelectRank] = {};
  int64_t offset[kOperands] = {0, 0, 0};
  int64_t row = begin / inner;
  int64_t col = begin % inner;
  for (int d = last - 1; d >= 0; --d) {
    counter[d] = row % plan.dims[d];
    row /= plan.dims[d];
    for (int k = 0; k < kOperands; ++k) offset[k] += counter[d] * plan.stride[k][d];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t n = std::min(inner - col, end - pos);
    const uint8_t* c = cond + offset[0] + col * cs;
    const T* xp = x + offset[1] + col * xs;
    const T* yp = y + offset[2] + col * ys;
    T* o = out + pos;
    for (int64_t j = 0; j < n; ++j) o[j] = c[j * cs] != 0 ? xp[j * xs] : yp[j * ys];
    pos += n;
    col = 0;
    for (int d = last - 1; d >= 0; --d) {
      for (int k = 0; k < kOperands; ++k) offset[k] += plan.stride[k][d];
      if (++counter[d] < plan.dims[d]) break;
      for (int k = 0; k < kOperands; ++k) offset[k] -= plan.stride[k][d] * plan.dims[d];
      counter[d] = 0;
    }
  }
}

bool IsSelectType(DataType type) {
  switch (type) {
    case DataType::kBool:
    case DataType::kFloat32:
    case DataType::kUInt8:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUInt32:
      return true;
    default:
      return false;
  }
}

class SelectKernel final : public Kernel {
 public:
  explicit SelectKernel(SelectShapes shapes) : shapes_(shapes) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 1));
    const Tensor& cond = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    RELITE_RETURN_IF_ERROR(CheckType(ctx, cond, "condition", DataType::kBool));
    if (x.type != y.type) {
      return ctx.Error("x '" + x.name + "' is " + DataTypeName(x.type) + " but y '" + y.name + "' is " +
                       DataTypeName(y.type));
    }
    if (!IsSelectType(x.type)) return ctx.Error("type " + DataTypeName(x.type) + " is not valid for this op");
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, x.type));
    for (const Tensor* t : {&cond, &x, &y}) {
      for (int32_t d : t->shape) {
        if (d < 0) return ctx.Error("input '" + t->name + "' has a negative dimension: " + ShapeToString(t->shape));
      }
    }
    Shape out_shape;
    Shape cond_shape = cond.shape;
    if (shapes_ == SelectShapes::kRankOneCondition) {
      if (x.shape != y.shape) {
        return ctx.Error("x " + ShapeToString(x.shape) + " and y " + ShapeToString(y.shape) + " differ in shape");
      }
      if (cond.shape != x.shape) {
        const bool scalar = cond.rank() == 0;
        const bool per_row = cond.rank() == 1 && x.rank() >= 1 && cond.dim(0) == x.dim(0);
        if (!scalar && !per_row) {
          return ctx.Error("condition " + ShapeToString(cond.shape) + " is neither x's shape " +
                           ShapeToString(x.shape) + ", a scalar nor a vector of x's first dimension");
        }
        // One choice per row: the condition as [rows, 1, ..., 1].
        if (per_row) cond_shape.resize(static_cast<size_t>(x.rank()), 1);
      }
      out_shape = x.shape;
    } else {
      Shape xy;
      if (!BroadcastShapes(x.shape, y.shape, &xy) || !BroadcastShapes(cond.shape, xy, &out_shape)) {
        return ctx.Error("condition " + ShapeToString(cond.shape) + ", x " + ShapeToString(x.shape) + " and y " +
                         ShapeToString(y.shape) + " are not broadcastable");
      }
    }
    const Shape* shapes[kOperands] = {&cond_shape, &x.shape, &y.shape};
    if (!MakePlan(out_shape, shapes, &plan_)) {
      return ctx.Unsupported("selecting over " + ShapeToString(out_shape) + " needs more than " +
                             std::to_string(kMaxSelectRank) + " dimensions");
    }
    element_size_ = DataTypeSize(x.type);
    return ctx.ResizeOutput(0, out_shape);
  }

  Status Eval(KernelContext& ctx) override {
    switch (element_size_) {
      case 1: return Run<uint8_t>(ctx);
      case 2: return Run<uint16_t>(ctx);
      case 4: return Run<uint32_t>(ctx);
      case 8: return Run<uint64_t>(ctx);
      default: return ctx.Error("unexpected element size " + std::to_string(element_size_));
    }
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx) {
    if (plan_.num_elements == 0) return Status::Ok();
    const uint8_t* cond = ctx.input(0).data_as<uint8_t>();
    const T* x = ctx.input(1).data_as<T>();
    const T* y = ctx.input(2).data_as<T>();
    T* out = ctx.output(0).data_as<T>();
    ParallelChunks(ctx, plan_.num_elements, kDefaultMinChunk,
                   [&](int64_t begin, int64_t end) { SelectRange(plan_, cond, x, y, out, begin, end); });
    return Status::Ok();
  }

  SelectShapes shapes_;
  SelectPlan plan_;
  size_t element_size_ = 4;
};

}  // namespace

std::unique_ptr<Kernel> MakeSelectKernel(SelectShapes shapes) { return std::make_unique<SelectKernel>(shapes); }

}  // namespace relite::cpu
