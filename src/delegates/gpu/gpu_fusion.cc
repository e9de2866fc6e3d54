#include "src/delegates/gpu/gpu_fusion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace relite::gpu {
namespace {

// A producer that took a clamp, a unary function or a residual no longer
// stores a plain copy of its input: what its program said about that (a
// layout-keeping RESHAPE, a channel PAD, a 2x2 maximum) stops holding.
void OutputChanged(NodeProgram& p) {
  p.alias_input = -1;
  p.channel_pad_of = -1;
  p.max_pool_2x2_of = -1;
}

}  // namespace

int FuseResidualAdds(const DelegateGraph& graph, const DelegatePartition& partition, std::vector<PartitionNode>& nodes) {
  constexpr int32_t kAdd = 0;
  std::set<int> outputs(partition.outputs.begin(), partition.outputs.end());
  std::map<int, int> readers;
  for (const PartitionNode& n : nodes) {
    for (int t : n.program.reads) ++readers[t];
  }
  // Position of the node writing `t` among the first `limit`, or -1.
  auto producer_of = [&](int t, size_t limit) {
    for (size_t i = 0; i < limit; ++i) {
      const auto& w = nodes[i].program.writes;
      if (std::find(w.begin(), w.end(), t) != w.end()) return static_cast<int>(i);
    }
    return -1;
  };
  int fused = 0;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& node = graph.node(nodes[k].node);
    if (node.builtin_code != kAdd || node.inputs.size() != 2 || node.outputs.size() != 1 ||
        nodes[k].program.launches.size() != 1 || node.inputs[0] == node.inputs[1]) {
      continue;
    }
    const int out = node.outputs[0];
    for (int side = 0; side < 2; ++side) {
      const int t = node.inputs[static_cast<size_t>(side)], other = node.inputs[static_cast<size_t>(1 - side)];
      int p = producer_of(t, k);
      if (p < 0 || outputs.count(t) || readers[t] != 1) continue;
      if (graph.tensor(t).shape != graph.tensor(out).shape || graph.tensor(other).shape != graph.tensor(out).shape) continue;
      const KernelLaunch& candidate = nodes[static_cast<size_t>(p)].program.launches.back();
      if (!candidate.residual_fusable || candidate.residual || candidate.fusable_output_arg < 0 ||
          !std::isinf(candidate.act_min) || !std::isinf(candidate.act_max) || !candidate.pre_residual_fake_quant.empty() ||
          !candidate.post_op.empty()) {
        continue;
      }
      const KernelArg& o = candidate.args[static_cast<size_t>(candidate.fusable_output_arg)];
      if (o.kind != KernelArg::Kind::kTensor || o.id != t) continue;
      const int q = producer_of(other, k);
      if (q > p) {
        // `other` is computed after t's producer runs. Its producer can move
        // just before it when everything it reads is ready by then (a
        // residual branch's PAD or pooling of the block input): nothing in
        // between reads its outputs, since they come after it.
        bool movable = true;
        for (int r : nodes[static_cast<size_t>(q)].program.reads) movable = movable && producer_of(r, k) < p;
        if (!movable) continue;
        std::rotate(nodes.begin() + p, nodes.begin() + q, nodes.begin() + q + 1);
        ++p;
      }
      NodeProgram& prod = nodes[static_cast<size_t>(p)].program;
      KernelLaunch& last = prod.launches.back();
      last.args[static_cast<size_t>(last.fusable_output_arg)] = KernelArg::Tensor(out);
      last.args.push_back(KernelArg::Tensor(other));
      last.residual = true;
      last.act_min = nodes[k].program.launches[0].act_min;
      last.act_max = nodes[k].program.launches[0].act_max;
      // Quantized: the producer's output is put on its grid before the
      // residual is added, the sum on the ADD's.
      last.pre_residual_fake_quant = std::move(last.fake_quant);
      last.fake_quant = nodes[k].program.launches[0].fake_quant;
      // An exact 8-bit ADD stays exact: t (the producer's value) is operand `side`.
      const IntegerAdd& add = nodes[k].program.launches[0].integer_add;
      last.residual_add = add.enabled && side == 1 ? add.Swapped() : add;
      std::replace(prod.writes.begin(), prod.writes.end(), t, out);
      prod.reads.push_back(other);
      OutputChanged(prod);
      nodes[k].program = NodeProgram();
      ++fused;
      break;
    }
  }
  std::erase_if(nodes, [](const PartitionNode& n) { return n.program.launches.empty() && n.program.writes.empty(); });
  return fused;
}

namespace {

// Folds each node of one launch, one input and one output for which
// `foldable(node)` holds into the last launch of the node producing that
// input, where that launch stores the input through ACT, nothing else reads
// it, it is not a partition output, and `take(launch, node's launch)`
// accepts (changing the launch's epilogue; false: it cannot, untouched).
template <typename Foldable, typename Take>
int FoldIntoProducers(const DelegatePartition& partition, std::vector<PartitionNode>& nodes, Foldable foldable, Take take) {
  const std::set<int> outputs(partition.outputs.begin(), partition.outputs.end());
  std::map<int, int> producer;  // tensor -> position in nodes
  std::map<int, int> readers;
  for (const PartitionNode& n : nodes) {
    for (int t : n.program.reads) ++readers[t];
  }
  int folded = 0;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const NodeProgram& me = nodes[k].program;
    if (me.launches.size() == 1 && me.reads.size() == 1 && me.writes.size() == 1 && foldable(me)) {
      const int in = me.reads[0];
      auto p = producer.find(in);
      if (p != producer.end() && !outputs.count(in) && readers[in] == 1) {
        NodeProgram& prod = nodes[static_cast<size_t>(p->second)].program;
        KernelLaunch& last = prod.launches.back();
        const int arg = last.fusable_output_arg;
        if (arg >= 0 && last.args[static_cast<size_t>(arg)].kind == KernelArg::Kind::kTensor &&
            last.args[static_cast<size_t>(arg)].id == in && take(last, me.launches[0])) {
          const int out = me.writes[0];
          last.args[static_cast<size_t>(arg)] = KernelArg::Tensor(out);
          std::replace(prod.writes.begin(), prod.writes.end(), in, out);
          OutputChanged(prod);
          nodes[k].program = NodeProgram();
          producer[out] = p->second;
          ++folded;
          continue;
        }
      }
    }
    for (int t : nodes[k].program.writes) producer[t] = static_cast<int>(k);
  }
  std::erase_if(nodes, [](const PartitionNode& n) { return n.program.launches.empty() && n.program.writes.empty(); });
  return folded;
}

}  // namespace

int FuseClampNodes(const DelegateGraph& graph, const DelegatePartition& partition, std::vector<PartitionNode>& nodes) {
  (void)graph;
  // A node that only applies an epilogue to its input (RELU, RELU6,
  // RELU_N1_TO_1, QUANTIZE, DEQUANTIZE: launches marked pure_epilogue).
  return FoldIntoProducers(
      partition, nodes, [](const NodeProgram& me) { return me.launches[0].pure_epilogue; },
      [](KernelLaunch& last, const KernelLaunch& epi) {
        // After a folded unary function the clamp is that function's.
        float& lo = last.post_op.empty() ? last.act_min : last.post_act_min;
        float& hi = last.post_op.empty() ? last.act_max : last.post_act_max;
        lo = std::max(lo, epi.act_min);
        hi = std::min(hi, epi.act_max);
        for (const FakeQuant& q : epi.fake_quant) {
          if (last.fake_quant.empty() || !(last.fake_quant.back() == q)) last.fake_quant.push_back(q);  // idempotent
        }
        return true;
      });
}

int FoldUnaryNodes(const DelegateGraph& graph, const DelegatePartition& partition, std::vector<PartitionNode>& nodes) {
  return FoldIntoProducers(
      partition, nodes,
      [&graph](const NodeProgram& me) {
        if (me.launches[0].unary_expr.empty() || !me.launches[0].fake_quant.empty()) return false;
        // Lanes past the channels hold zeros that f(0) need not keep: whole slices only.
        StatusOr<GpuShape> shape = ToGpuShape(graph.tensor(me.reads[0]).shape);
        return shape.ok() && shape->c % 4 == 0;
      },
      [](KernelLaunch& last, const KernelLaunch& unary) {
        if ((last.act_output_arg >= 0 && last.act_output_arg != last.fusable_output_arg) || !last.post_op.empty() ||
            !last.fake_quant.empty() || !last.pre_residual_fake_quant.empty()) {
          return false;
        }
        last.post_op = unary.unary_expr;
        last.post_act_min = unary.act_min;
        last.post_act_max = unary.act_max;
        return true;
      });
}

namespace {

// Folds into each launch that took a residual the node producing that
// residual, where `source_of` names the one input that node's output is a
// view of (-1: none) and `read_through(launch, node)` teaches the launch to
// read the view from it (false: it cannot).
template <typename SourceOf, typename ReadThrough>
int FoldResidualViews(const DelegatePartition& partition, std::vector<PartitionNode>& nodes, SourceOf source_of,
                      ReadThrough read_through) {
  const std::set<int> outputs(partition.outputs.begin(), partition.outputs.end());
  std::map<int, int> readers, view_node;  // tensor -> reading nodes; view -> its node
  for (size_t k = 0; k < nodes.size(); ++k) {
    const NodeProgram& p = nodes[k].program;
    for (int t : p.reads) ++readers[t];
    const int src = source_of(p);
    if (src >= 0 && p.writes.size() == 1 && p.reads.size() == 1 && p.reads[0] == src) view_node[p.writes[0]] = static_cast<int>(k);
  }
  int folded = 0;
  for (PartitionNode& n : nodes) {
    if (n.program.launches.empty()) continue;
    KernelLaunch& l = n.program.launches.back();
    if (!l.residual || l.args.empty() || l.args.back().kind != KernelArg::Kind::kTensor) continue;  // the residual is last
    const int r = l.args.back().id;
    auto view = view_node.find(r);
    if (view == view_node.end() || outputs.count(r) || readers[r] != 1) continue;
    NodeProgram& q = nodes[static_cast<size_t>(view->second)].program;
    if (q.launches.empty() || !read_through(l, q)) continue;
    const int src = source_of(q);
    l.args.back() = KernelArg::Tensor(src);
    std::replace(n.program.reads.begin(), n.program.reads.end(), r, src);
    q = NodeProgram();
    ++folded;
  }
  std::erase_if(nodes, [](const PartitionNode& n) { return n.program.launches.empty() && n.program.writes.empty(); });
  return folded;
}

}  // namespace

int FoldResidualPads(const DelegatePartition& partition, std::vector<PartitionNode>& nodes) {
  return FoldResidualViews(
      partition, nodes, [](const NodeProgram& p) { return p.channel_pad_of; },
      [](KernelLaunch& l, const NodeProgram& pad) {
        if (l.residual_elements >= 0) return false;
        l.residual_elements = pad.channel_pad_elements4;
        return true;
      });
}

int FoldResidualPools(const DelegatePartition& partition, std::vector<PartitionNode>& nodes) {
  return FoldResidualViews(
      partition, nodes, [](const NodeProgram& p) { return p.max_pool_2x2_of; },
      [](KernelLaunch& l, const NodeProgram& pool) {
        if (l.residual_pool_in_h > 0) return false;
        l.residual_pool_in_h = pool.max_pool_in_h;
        l.residual_pool_in_w = pool.max_pool_in_w;
        return true;
      });
}

int FoldAliasNodes(const DelegatePartition& partition, std::vector<PartitionNode>& nodes,
                   std::map<int, int>& output_sources) {
  const std::set<int> outputs(partition.outputs.begin(), partition.outputs.end());
  const std::set<int> inputs(partition.inputs.begin(), partition.inputs.end());
  std::map<int, int> source;  // renamed tensor -> the tensor holding its bytes
  auto resolve = [&](int t) {
    auto it = source.find(t);
    return it == source.end() ? t : it->second;
  };
  int folded = 0;
  for (PartitionNode& n : nodes) {
    NodeProgram& p = n.program;
    // Reads of tensors renamed before this node go to their sources.
    for (int& t : p.reads) t = resolve(t);
    for (KernelLaunch& l : p.launches) {
      for (KernelArg& a : l.args) {
        if (a.kind == KernelArg::Kind::kTensor) a.id = resolve(a.id);
      }
    }
    if (p.alias_input < 0) continue;
    const int from = resolve(p.alias_input);
    if (p.writes.size() != 1 || p.reads.size() != 1 || p.reads[0] != from) continue;
    const int to = p.writes[0];
    // The boundary would have nothing to convert from on the GPU.
    if (outputs.count(to) && inputs.count(from)) continue;
    source[to] = from;
    p = NodeProgram();
    ++folded;
  }
  for (int t : partition.outputs) {
    if (source.count(t)) output_sources[t] = source.at(t);
  }
  std::erase_if(nodes, [](const PartitionNode& n) { return n.program.launches.empty() && n.program.writes.empty(); });
  return folded;
}

}  // namespace relite::gpu
