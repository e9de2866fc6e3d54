// Shared by SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: the block shape and the
// [M, 2] paddings/crops inputs, both constant int32 or int64.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/data_movement.h"

namespace relite::cpu {

struct SpaceBatchParams {
  int spatial = 0;                 // M: dimensions 1..M are spatial
  int64_t block[kMaxCopyRank] = {};
  int64_t before[kMaxCopyRank] = {};  // paddings / crops at the start
  int64_t after[kMaxCopyRank] = {};
  int64_t block_size = 1;             // product of the block shape
};

// Reads block_shape (input 1, [M], every entry >= 1) and input 2 ([M, 2],
// entries >= 0, named `edges_name`) for an input of `rank`, which must be at
// least M + 1 and at most 8.
Status ReadSpaceBatchParams(KernelContext& ctx, int rank, const std::string& edges_name, SpaceBatchParams* p);

}  // namespace relite::cpu
