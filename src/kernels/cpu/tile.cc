// TILE: repeats the input multiples[d] times along every dimension d
// (multiples: int32 or int64 [rank], constant). Output dimension d is
// input.dim(d) * multiples[d]. The output is a strided view of the input:
// dimension d splits into (multiples[d], stride 0) x (input.dim(d), stride
// of d), which the shared strided copy walks row by row.
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class TileKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, input, "input", output, "output"));
    std::vector<int64_t> multiples;
    RELITE_RETURN_IF_ERROR(ReadShapeInput(ctx, 1, "multiples", &multiples));
    const int rank = input.rank();
    const Tensor& m = ctx.input(1);
    if (m.rank() != 1 || m.dim(0) != rank) {
      return ctx.Error("multiples must have shape [" + std::to_string(rank) + "], got " + ShapeToString(m.shape));
    }
    Shape out_shape(static_cast<size_t>(rank));
    const std::vector<int64_t> strides = RowMajorStrides(input.shape);
    // (size, stride) pairs outermost first, size-1 entries left out and
    // neighbours merged where the outer one steps over the whole inner one.
    std::vector<std::pair<int64_t, int64_t>> dims;
    bool empty = false;
    auto push = [&](int64_t size, int64_t stride) {
      if (size == 1) return;
      if (!dims.empty() && dims.back().second == stride * size) {
        dims.back() = {dims.back().first * size, stride};
        return;
      }
      dims.emplace_back(size, stride);
    };
    for (int d = 0; d < rank; ++d) {
      const int64_t k = multiples[static_cast<size_t>(d)];
      if (k < 0) return ctx.Error("multiples[" + std::to_string(d) + "] is negative (" + std::to_string(k) + ")");
      const int64_t n = input.dim(d);
      if (k != 0 && n > std::numeric_limits<int32_t>::max() / k) {
        return ctx.Error("tiled dimension " + std::to_string(d) + " (" + std::to_string(n) + " x " +
                         std::to_string(k) + ") does not fit a dimension (at most 2^31-1)");
      }
      out_shape[static_cast<size_t>(d)] = static_cast<int32_t>(n * k);
      empty = empty || n * k == 0;
      push(k, 0);
      push(n, strides[static_cast<size_t>(d)]);
    }
    view_ = StridedView{};
    if (!empty) {
      if (static_cast<int>(dims.size()) > kMaxCopyRank) {
        return ctx.Unsupported("tiling needs " + std::to_string(dims.size()) +
                               " strided dimensions after merging (at most 8)");
      }
      view_.rank = static_cast<int>(dims.size());
      for (size_t i = 0; i < dims.size(); ++i) {
        view_.size[i] = dims[i].first;
        view_.stride[i] = dims[i].second;
      }
    }
    empty_ = empty;
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    if (empty_) return Status::Ok();
    const Tensor& input = ctx.input(0);
    CopyStridedView(ctx, view_, DataTypeSize(input.type), static_cast<const uint8_t*>(input.data),
                    static_cast<uint8_t*>(ctx.output(0).data));
    return Status::Ok();
  }

 private:
  StridedView view_;
  bool empty_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateTile(const Node&) { return std::unique_ptr<Kernel>(std::make_unique<TileKernel>()); }

}  // namespace relite::cpu
