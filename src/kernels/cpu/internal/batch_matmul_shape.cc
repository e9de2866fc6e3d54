#include "src/kernels/cpu/internal/batch_matmul_shape.h"

#include <string>

#include "src/kernels/cpu/internal/broadcast.h"

namespace relite::cpu {

Status PlanBatchMatMul(KernelContext& ctx, const Tensor& x, const Tensor& y, bool adj_x, bool adj_y,
                       BatchMatMulShape* shape) {
  constexpr int kMaxRank = 5;
  if (x.rank() < 2 || y.rank() < 2 || x.rank() > kMaxRank || y.rank() > kMaxRank) {
    return ctx.Error("operands must have rank 2.." + std::to_string(kMaxRank) + ", got " + ShapeToString(x.shape) +
                     " and " + ShapeToString(y.shape));
  }
  const int xr = x.rank(), yr = y.rank();
  const int64_t m = adj_x ? x.dim(xr - 1) : x.dim(xr - 2);
  const int64_t k = adj_x ? x.dim(xr - 2) : x.dim(xr - 1);
  const int64_t ky = adj_y ? y.dim(yr - 1) : y.dim(yr - 2);
  const int64_t n = adj_y ? y.dim(yr - 2) : y.dim(yr - 1);
  if (k != ky) {
    return ctx.Error("inner dimensions differ: lhs " + ShapeToString(x.shape) + (adj_x ? " (adj_x)" : "") +
                     " has K = " + std::to_string(k) + ", rhs " + ShapeToString(y.shape) + (adj_y ? " (adj_y)" : "") +
                     " has K = " + std::to_string(ky));
  }
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return ctx.Unsupported("matrices too large for 32-bit indexing");
  shape->m = static_cast<int>(m);
  shape->n = static_cast<int>(n);
  shape->k = static_cast<int>(k);

  const Shape xb(x.shape.begin(), x.shape.end() - 2), yb(y.shape.begin(), y.shape.end() - 2);
  Shape batch;
  if (!BroadcastShapes(xb, yb, &batch)) {
    return ctx.Error("batch dimensions of " + ShapeToString(x.shape) + " and " + ShapeToString(y.shape) +
                     " do not broadcast");
  }
  const int64_t batches = NumElements(batch);
  shape->x_index.assign(static_cast<size_t>(batches), 0);
  shape->y_index.assign(static_cast<size_t>(batches), 0);
  const int br = static_cast<int>(batch.size());
  for (int64_t b = 0; b < batches; ++b) {
    // Row-major coordinates of batch b, mapped to each operand (extent 1 broadcasts).
    int64_t rest = b, xi = 0, yi = 0, xs = 1, ys = 1;
    for (int d = br - 1; d >= 0; --d) {
      const int64_t coord = rest % batch[static_cast<size_t>(d)];
      rest /= batch[static_cast<size_t>(d)];
      const int xd = d - (br - static_cast<int>(xb.size())), yd = d - (br - static_cast<int>(yb.size()));
      if (xd >= 0) {
        const int64_t ext = xb[static_cast<size_t>(xd)];
        xi += (ext == 1 ? 0 : coord) * xs;
        xs *= ext;
      }
      if (yd >= 0) {
        const int64_t ext = yb[static_cast<size_t>(yd)];
        yi += (ext == 1 ? 0 : coord) * ys;
        ys *= ext;
      }
    }
    shape->x_index[static_cast<size_t>(b)] = xi;
    shape->y_index[static_cast<size_t>(b)] = yi;
  }
  shape->y_matrices = NumElements(yb);
  shape->output = batch;
  shape->output.push_back(shape->m);
  shape->output.push_back(shape->n);
  return Status::Ok();
}

}  // namespace relite::cpu
