// A oneDNN partition: the primitives of its nodes, built once when the
// delegate is applied, executed in order at each Invoke.
#pragma once

#include <oneapi/dnnl/dnnl.h>

#include <memory>
#include <string>

#include "relite/delegate.h"
#include "relite/kernel.h"
#include "src/delegates/onednn/dnnl_api.h"
#include "src/delegates/onednn/op_context.h"

namespace relite::onednn {

struct Engine {
  const DnnlApi* api = nullptr;
  dnnl_engine_t engine = nullptr;
  dnnl_data_type_t compute = dnnl_f32;
  int threads = 0;  // 0: the interpreter's
  ~Engine();
};

struct BuildStats {
  int primitives = 0, boundary_reorders = 0, fused_nodes = 0;
  double build_ms = 0, primitive_create_ms = 0, weight_reorder_ms = 0;
  uint64_t weight_bytes = 0;
};

// The support check of one node: runs its builder on plain layouts.
Status CheckNodeSupport(const std::shared_ptr<Engine>& engine, const DelegateGraph& graph, const Node& node);

// Builds the partition's primitives (JIT) and reorders its weights.
StatusOr<std::unique_ptr<Kernel>> BuildPartition(const std::shared_ptr<Engine>& engine, const DelegateGraph& graph,
                                                 const DelegatePartition& partition, BuildStats* stats);

}  // namespace relite::onednn
