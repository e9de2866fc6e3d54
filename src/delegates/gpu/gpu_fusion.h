// Graph passes over a partition's node programs before it is built: each
// removes launches (a partition's time on a GPU is dominated by its kernel
// count) and keeps the partition's results exactly what they were.
#pragma once

#include <map>
#include <vector>

#include "relite/delegate.h"
#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {

struct PartitionNode {
  int node = -1;
  NodeProgram program;
};

// Folds an ADD of two same-shape tensors into the launch producing one of
// them (a convolution and its residual connection) when that launch supports
// it, the folded tensor has no other use, and the other operand is ready
// before it; returns the nodes folded away.
int FuseResidualAdds(const DelegateGraph& graph, const DelegatePartition& partition, std::vector<PartitionNode>& nodes);

// Folds RELU/RELU6/RELU_N1_TO_1 (and QUANTIZE/DEQUANTIZE: launches that only
// apply an epilogue) into the launch producing their input when that tensor
// is used by nothing else; returns the nodes folded away.
int FuseClampNodes(const DelegateGraph& graph, const DelegatePartition& partition, std::vector<PartitionNode>& nodes);

// Folds a unary node of `x` alone (KernelLaunch::unary_expr: LOGISTIC,
// HARD_SWISH, TANH, EXP) of float tensors whose channels fill whole slices
// into the launch producing its input, when nothing else reads that: ACT
// applies it after the producer's clamp. Runs after FuseClampNodes; returns
// the nodes folded away.
int FoldUnaryNodes(const DelegateGraph& graph, const DelegatePartition& partition, std::vector<PartitionNode>& nodes);

// Where a folded residual is a channel PAD's output (NodeProgram::
// channel_pad_of) read by nothing else, the launch reads the PAD's input and
// zeros past it, and the PAD node goes. Runs after FuseResidualAdds; returns
// the nodes folded away.
int FoldResidualPads(const DelegatePartition& partition, std::vector<PartitionNode>& nodes);

// Where a folded residual is a 2x2, stride 2 MAX_POOL_2D's output
// (NodeProgram::max_pool_2x2_of) read by nothing else, the launch takes the
// maxima from the pool's input itself and the pool node goes. Runs after
// FoldResidualPads (a pooled and padded residual folds both); returns the
// nodes folded away.
int FoldResidualPools(const DelegatePartition& partition, std::vector<PartitionNode>& nodes);

// Drops the nodes that only rename a tensor (NodeProgram::alias_input: a
// RESHAPE that keeps the GPU layout): later launches read the renamed
// tensor's source instead. A partition output made that way is recorded in
// `output_sources` (output -> the tensor holding its GPU bytes), read from
// there at the boundary; one whose source is a partition input keeps its
// node. Runs after the other passes. Returns the nodes dropped.
int FoldAliasNodes(const DelegatePartition& partition, std::vector<PartitionNode>& nodes,
                   std::map<int, int>& output_sources);

}  // namespace relite::gpu
