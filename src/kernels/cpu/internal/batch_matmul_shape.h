// The shape rules of BATCH_MATMUL shared by its float and quantized kernels:
// x [..., M, K], y [..., K, N] (transposed under adj_x / adj_y), batch
// dimensions broadcast (rank 2..5 as in TFLite), and per output batch the
// x and y matrices it multiplies.
#pragma once

#include <cstdint>
#include <vector>

#include "relite/kernel.h"

namespace relite::cpu {

struct BatchMatMulShape {
  int m = 0, n = 0, k = 0;
  Shape output;                         // batch dims, M, N
  std::vector<int64_t> x_index, y_index;  // per output batch
  int64_t y_matrices = 0;               // matrices y holds
};

// Checks ranks and K, broadcasts the batches and fills `shape`; errors name
// the node.
Status PlanBatchMatMul(KernelContext& ctx, const Tensor& x, const Tensor& y, bool adj_x, bool adj_y,
                       BatchMatMulShape* shape);

}  // namespace relite::cpu
