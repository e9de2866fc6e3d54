// What one op's builder sees, the same code in both phases:
//  - the support check (CheckNode): inputs described in plain channels-last
//    layout; the builder creates its primitive descriptors, which is where
//    oneDNN says whether it implements the op, and nothing else;
//  - the partition build: inputs described as their producers left them
//    (blocked layouts inside a partition); the builder's descriptors become
//    primitives, its weights are reordered once, and its steps run in order
//    at each Invoke.
// So a node the check accepts is a node the build can create.
#pragma once

#include <oneapi/dnnl/dnnl.h>

#include <string>
#include <utility>
#include <vector>

#include "relite/delegate.h"
#include "relite/kernel.h"
#include "relite/status.h"
#include "relite/tensor.h"
#include "src/core/ops/params.h"
#include "src/delegates/onednn/dnnl_api.h"

namespace relite::onednn {

// A post-op the partition folded into a node: an eltwise op, or a binary op
// whose second operand is a tensor (a residual ADD).
struct PostOp {
  bool binary = false;
  dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
  float alpha = 0.0f, beta = 0.0f;
  int tensor = -1;  // binary: the operand
};

// What the partition folded into a node: post-ops after its own activation,
// and the tensor that then holds its result (the last folded node's output).
// A zero PAD of the spatial dims folded into the convolution reading it:
// the convolution reads the PAD's input with that much more padding.
struct PrePad {
  int node = -1;    // the PAD node; -1: none
  int source = -1;  // the PAD's input tensor
  int64_t top = 0, bottom = 0, left = 0, right = 0;
};

struct NodeFusion {
  std::vector<PostOp> post_ops;
  int output_tensor = -1;  // -1: node.outputs[0]
  std::vector<int> absorbed_nodes;
  PrePad pre_pad;
  // With a residual ADD whose operand is made after the producer: the
  // producer is built at the ADD's place (it feeds only the ADD), so that
  // the operand exists when the sum post-op needs it.
  int build_at = -1;
};

// The oneDNN counterpart of a fused activation; false for none the
// primitives can apply.
bool ActivationPostOp(Activation activation, PostOp* out);

// The channels-last view of a TFLite shape that oneDNN's logical NC(D)HW
// order describes: [N, H, W, C] becomes dims {N, C, H, W} in format nhwc
// (the same bytes). Ranks 1 to 5; a scalar is {1}.
int DnnlRank(const Shape& shape);
void DnnlDims(const Shape& shape, int rank, dnnl_dims_t dims);  // right-aligned to `rank` with 1s
dnnl_format_tag_t PlainTag(int rank);
// The oneDNN axis of TFLite axis `axis` (already non-negative) of a rank-`rank` tensor.
int DnnlAxis(int axis, int rank);

class OpContext {
 public:
  virtual ~OpContext() = default;

  virtual const Node& node() const = 0;
  virtual const DelegateGraph& graph() const = 0;
  virtual const DnnlApi& api() const = 0;
  virtual dnnl_engine_t engine() const = 0;
  // True in the support check: no memory, no primitives.
  virtual bool checking() const = 0;
  // The type of tensors the builder produces: f32, or bf16 in bf16 mode.
  virtual dnnl_data_type_t compute_type() const = 0;
  // What the partition folded into this node (empty in the check).
  virtual const NodeFusion& fusion() const = 0;

  int num_inputs() const { return static_cast<int>(node().inputs.size()); }
  bool has_input(int i) const { return i >= 0 && i < num_inputs() && node().inputs[static_cast<size_t>(i)] >= 0; }
  const Tensor& input(int i) const { return graph().tensor(node().inputs[static_cast<size_t>(i)]); }
  const Tensor& output(int j) const { return graph().tensor(node().outputs[static_cast<size_t>(j)]); }
  bool is_constant(int i) const { return has_input(i) && graph().is_constant(node().inputs[static_cast<size_t>(i)]); }

  // Unimplemented naming the node: why the delegate does not take it.
  Status Refuse(const std::string& why) const { return UnimplementedError(why); }
  // The node's float32 inputs [0, n) and output 0; Refuse otherwise.
  Status RequireFloat(std::initializer_list<int> inputs) const;
  // Inputs that must be constant (weights, shape operands).
  Status RequireConstant(int i, const char* what) const;
  // Output j's declared shape must be `computed` (what the op makes of its
  // inputs): the file's activation shapes are not trusted.
  Status RequireOutputShape(int j, const Shape& computed) const;
  // The values of a constant int32/int64 input (axes, paddings, shapes).
  StatusOr<std::vector<int64_t>> ConstantInts(int i, const char* what) const;

  // A plain (channels-last) descriptor of `shape` at `rank` (>= its rank).
  StatusOr<dnnl_memory_desc_t> PlainDesc(const Shape& shape, dnnl_data_type_t type, int rank = -1) const;
  // A descriptor with dims and format tag.
  StatusOr<dnnl_memory_desc_t> TagDesc(int rank, const dnnl_dims_t dims, dnnl_data_type_t type, dnnl_format_tag_t tag) const;
  StatusOr<dnnl_memory_desc_t> StridesDesc(int rank, const dnnl_dims_t dims, dnnl_data_type_t type,
                                          const dnnl_dims_t strides) const;
  // "Any layout": the primitive chooses.
  StatusOr<dnnl_memory_desc_t> AnyDesc(int rank, const dnnl_dims_t dims, dnnl_data_type_t type) const {
    return TagDesc(rank, dims, type, dnnl_format_tag_any);
  }

  // Input i as an operand of an elementwise primitive: as held for an
  // activation; plain in the compute type for a constant.
  StatusOr<dnnl_memory_desc_t> OperandDesc(int i) {
    if (is_constant(i)) return PlainDesc(input(i).shape, compute_type());
    return InputDesc(i);
  }
  // Input i's descriptor as it is held now (its producer's layout and type;
  // in the check and for constants: plain, in the compute type for
  // activations and float32 for constants).
  virtual StatusOr<dnnl_memory_desc_t> InputDesc(int i) = 0;
  // The descriptor of a tensor of the partition as held now.
  virtual StatusOr<dnnl_memory_desc_t> TensorDesc(int tensor) = 0;

  // Creates a primitive descriptor; Refuse with oneDNN's status when it has
  // no implementation. `what` names the primitive in the reason.
  StatusOr<dnnl_primitive_desc_t> CreatePd(const void* op_desc, const_dnnl_primitive_attr_t attr, const char* what) const;
  // A descriptor the primitive chose: dnnl_query_{src,weights,dst}_md.
  dnnl_memory_desc_t QueryMd(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int index = 0) const;

  // Primitive arguments, by memory id (-1 in the check):
  // input i (or a tensor) held in `md`, reordered once if it is held otherwise;
  virtual StatusOr<int> InputArg(int i, const dnnl_memory_desc_t& md) = 0;
  virtual StatusOr<int> TensorArg(int tensor, const dnnl_memory_desc_t& md) = 0;
  // constant bytes described by `user_md` (float32), reordered once into `md`
  // after the build: `data` must outlive it (the graph's constants), or
  // bytes a builder computed are handed over;
  virtual StatusOr<int> ConstantArg(const void* data, const dnnl_memory_desc_t& user_md, const dnnl_memory_desc_t& md) = 0;
  virtual StatusOr<int> OwnedConstantArg(std::vector<float> bytes, const dnnl_memory_desc_t& user_md,
                                         const dnnl_memory_desc_t& md) = 0;
  // output j (or, for output 0, fusion().output_tensor), a new memory in `md`;
  virtual StatusOr<int> OutputArg(int j, const dnnl_memory_desc_t& md) = 0;
  // output j as another descriptor of the bytes of memory `arg` (a reshape
  // of a plain layout: RESHAPE, a FULLY_CONNECTED with keep_num_dims...).
  virtual Status OutputView(int j, int arg, const dnnl_memory_desc_t& md) = 0;
  // Output 0 (or fusion().output_tensor) as `md`, holding the residual a
  // folded ADD's sum post-op accumulates onto: the residual's own memory
  // when it dies here and is held as `md` (no copy), else a new memory the
  // residual is copied into before the node's primitive runs.
  virtual StatusOr<int> OutputArgWithResidual(const dnnl_memory_desc_t& md) = 0;
  // A memory of the partition for the node's own use (not a tensor).
  virtual StatusOr<int> TempArg(const dnnl_memory_desc_t& md) = 0;
  // A memory of the partition filled with zeros once (the source PAD copies
  // into its border at each Invoke).
  virtual StatusOr<int> ZeroArg(const dnnl_memory_desc_t& md) = 0;
  // A view of memory `arg` as `md` (a sub-memory inside it).
  virtual StatusOr<int> ViewArg(int arg, const dnnl_memory_desc_t& md) = 0;

  // Appends a step; takes `pd` (destroyed here in the check).
  virtual Status Add(dnnl_primitive_desc_t pd, std::vector<std::pair<int, int>> args) = 0;
  // The step of a one-input op: input 0 held as `src`, output 0 a new
  // memory in the primitive's destination layout. Takes `pd`.
  Status AddUnary(dnnl_primitive_desc_t pd, const dnnl_memory_desc_t& src);
  // The same with output 0 written plain as `dst` into a memory of the
  // op's own, seen under the output's shape (a rank the op does not keep).
  Status AddUnaryToView(dnnl_primitive_desc_t pd, const dnnl_memory_desc_t& src, const dnnl_memory_desc_t& dst);

  // The attribute carrying `own` activation then the fused post-ops (a
  // residual ADD as oneDNN's sum post-op: the builder binds the destination
  // with OutputArgWithResidual). Null attribute when there are no post-ops.
  struct Attr {
    dnnl_primitive_attr_t attr = nullptr;
  };
  // `first`: post-ops of the op itself before its activation
  // (SQUARED_DIFFERENCE's square).
  StatusOr<Attr> MakeAttr(Activation own, bool with_fusion = true, const std::vector<PostOp>& first = {});
  void FreeAttr(Attr& a) const;
};

// One op's builder: runs in the check and in the build.
using OpBuild = Status (*)(OpContext& ctx);

// The builder for `node`, or null with the reason.
OpBuild FindOpBuild(const Node& node, std::string* reason);

}  // namespace relite::onednn
