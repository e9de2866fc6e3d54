#include "src/delegates/onednn/op_context.h"

#include <fmt/format.h>

namespace relite::onednn {

bool ActivationPostOp(Activation activation, PostOp* out) {
  *out = PostOp();
  switch (activation) {
    case Activation::kRelu: out->alg = dnnl_eltwise_relu; return true;
    case Activation::kRelu6: out->alg = dnnl_eltwise_clip; out->alpha = 0.0f; out->beta = 6.0f; return true;
    case Activation::kReluN1To1: out->alg = dnnl_eltwise_clip; out->alpha = -1.0f; out->beta = 1.0f; return true;
    case Activation::kTanh: out->alg = dnnl_eltwise_tanh; return true;
    default: return false;
  }
}

int DnnlRank(const Shape& shape) { return shape.empty() ? 1 : static_cast<int>(shape.size()); }

void DnnlDims(const Shape& shape, int rank, dnnl_dims_t dims) {
  // Right-align to `rank` (broadcasting), then move the last (channel) axis
  // to position 1.
  std::vector<int64_t> full(static_cast<size_t>(rank), 1);
  const int r = static_cast<int>(shape.size());
  for (int i = 0; i < r && i < rank; ++i) full[static_cast<size_t>(rank - 1 - i)] = shape[static_cast<size_t>(r - 1 - i)];
  if (rank <= 2) {
    for (int i = 0; i < rank; ++i) dims[i] = full[static_cast<size_t>(i)];
    return;
  }
  dims[0] = full[0];
  dims[1] = full[static_cast<size_t>(rank - 1)];
  for (int i = 1; i < rank - 1; ++i) dims[i + 1] = full[static_cast<size_t>(i)];
}

dnnl_format_tag_t PlainTag(int rank) {
  switch (rank) {
    case 1: return dnnl_a;
    case 2: return dnnl_ab;
    case 3: return dnnl_acb;
    case 4: return dnnl_acdb;
    case 5: return dnnl_acdeb;
    default: return dnnl_format_tag_undef;
  }
}

int DnnlAxis(int axis, int rank) {
  if (rank <= 2) return axis;
  if (axis == 0) return 0;
  if (axis == rank - 1) return 1;
  return axis + 1;
}

Status OpContext::RequireFloat(std::initializer_list<int> inputs) const {
  for (int i : inputs) {
    if (!has_input(i)) continue;
    if (input(i).type != DataType::kFloat32) {
      return Refuse(fmt::format("input {} is {}; the oneDNN delegate takes float32 (8-bit nodes stay on relite's "
                                "bit-exact CPU kernels)",
                                i, DataTypeName(input(i).type)));
    }
  }
  for (size_t j = 0; j < node().outputs.size(); ++j) {
    if (output(static_cast<int>(j)).type != DataType::kFloat32) {
      return Refuse(fmt::format("output {} is {}; the oneDNN delegate takes float32", j,
                                DataTypeName(output(static_cast<int>(j)).type)));
    }
  }
  return Status::Ok();
}

Status OpContext::RequireConstant(int i, const char* what) const {
  if (!has_input(i)) return Refuse(fmt::format("{} (input {}) is missing", what, i));
  if (!is_constant(i)) return Refuse(fmt::format("{} (input {}) is computed by the graph; it must be constant", what, i));
  const Tensor& t = input(i);
  const size_t need = static_cast<size_t>(NumElements(t.shape)) * DataTypeSize(t.type);
  if (t.data == nullptr || t.bytes < need || t.sparsity != nullptr) {
    return Refuse(fmt::format("{} (input {}) has no dense data", what, i));
  }
  return Status::Ok();
}

Status OpContext::RequireOutputShape(int j, const Shape& computed) const {
  const Shape& declared = output(j).shape;
  if (declared != computed) {
    return Refuse(fmt::format("output {} is declared {}, but the op computes {} from its inputs", j,
                              ShapeToString(declared), ShapeToString(computed)));
  }
  return Status::Ok();
}

StatusOr<std::vector<int64_t>> OpContext::ConstantInts(int i, const char* what) const {
  // The type before RequireConstant's byte check and the allocation: a
  // string tensor (element size 0) may declare 2^31 elements in 8 bytes, as
  // in fuzz/regressions/gpu_string_axes_huge_shape.tflite (the GPU op
  // library's twin of this reader made a 16 GiB vector for it).
  if (has_input(i) && input(i).type != DataType::kInt32 && input(i).type != DataType::kInt64) {
    return Refuse(fmt::format("{} (input {}) is {}; int32 or int64 expected", what, i, DataTypeName(input(i).type)));
  }
  RELITE_RETURN_IF_ERROR(RequireConstant(i, what));
  const Tensor& t = input(i);
  const int64_t n = NumElements(t.shape);
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (t.type == DataType::kInt32) {
    for (int64_t k = 0; k < n; ++k) out[static_cast<size_t>(k)] = static_cast<const int32_t*>(t.data)[k];
  } else {
    for (int64_t k = 0; k < n; ++k) out[static_cast<size_t>(k)] = static_cast<const int64_t*>(t.data)[k];
  }
  return out;
}

StatusOr<dnnl_memory_desc_t> OpContext::TagDesc(int rank, const dnnl_dims_t dims, dnnl_data_type_t type,
                                                dnnl_format_tag_t tag) const {
  dnnl_memory_desc_t md;
  const dnnl_status_t s = api().dnnl_memory_desc_init_by_tag(&md, rank, dims, type, tag);
  if (s != dnnl_success) return Refuse(fmt::format("oneDNN cannot describe a rank-{} tensor: {}", rank, DnnlStatusName(s)));
  return md;
}

StatusOr<dnnl_memory_desc_t> OpContext::StridesDesc(int rank, const dnnl_dims_t dims, dnnl_data_type_t type,
                                                    const dnnl_dims_t strides) const {
  dnnl_memory_desc_t md;
  const dnnl_status_t s = api().dnnl_memory_desc_init_by_strides(&md, rank, dims, type, strides);
  if (s != dnnl_success) return Refuse(fmt::format("oneDNN cannot describe a strided tensor: {}", DnnlStatusName(s)));
  return md;
}

StatusOr<dnnl_memory_desc_t> OpContext::PlainDesc(const Shape& shape, dnnl_data_type_t type, int rank) const {
  if (rank < 0) rank = DnnlRank(shape);
  if (rank > 5 || static_cast<int>(shape.size()) > rank) {
    return Refuse(fmt::format("rank {} tensors are not supported (at most 5)", shape.size()));
  }
  for (int64_t d : shape) {
    if (d <= 0) return Refuse(fmt::format("shape {} has an empty or unknown dimension", ShapeToString(shape)));
  }
  dnnl_dims_t dims;
  DnnlDims(shape, rank, dims);
  return TagDesc(rank, dims, type, PlainTag(rank));
}

StatusOr<dnnl_primitive_desc_t> OpContext::CreatePd(const void* op_desc, const_dnnl_primitive_attr_t attr,
                                                    const char* what) const {
  dnnl_primitive_desc_t pd = nullptr;
  const dnnl_status_t s = api().dnnl_primitive_desc_create(&pd, op_desc, attr, engine(), nullptr);
  if (s != dnnl_success) return Refuse(fmt::format("oneDNN has no {} for this case ({})", what, DnnlStatusName(s)));
  return pd;
}

dnnl_memory_desc_t OpContext::QueryMd(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int index) const {
  const dnnl_memory_desc_t* md = api().dnnl_primitive_desc_query_md(pd, what, index);
  dnnl_memory_desc_t out{};
  if (md != nullptr) out = *md;
  return out;
}

StatusOr<OpContext::Attr> OpContext::MakeAttr(Activation own, bool with_fusion, const std::vector<PostOp>& first) {
  std::vector<PostOp> ops = first;
  if (own != Activation::kNone) {
    PostOp p;
    if (!ActivationPostOp(own, &p)) return Refuse(fmt::format("fused activation {} is not supported", ActivationName(own)));
    ops.push_back(p);
  }
  if (with_fusion) ops.insert(ops.end(), fusion().post_ops.begin(), fusion().post_ops.end());
  Attr out;
  if (ops.empty()) return out;
  dnnl_post_ops_t po = nullptr;
  if (api().dnnl_post_ops_create(&po) != dnnl_success) return InternalError("oneDNN: cannot create post-ops");
  Status status;
  for (size_t k = 0; k < ops.size() && status.ok(); ++k) {
    const PostOp& p = ops[k];
    if (!p.binary) {
      if (api().dnnl_post_ops_append_eltwise(po, 1.0f, p.alg, p.alpha, p.beta) != dnnl_success) {
        status = Refuse("oneDNN rejects an eltwise post-op");
      }
      continue;
    }
    // dst += the residual, which OutputArgWithResidual put in dst:
    // oneDNN's optimized convolutions take a sum post-op where a binary
    // one over a whole tensor would send them to the reference kernel.
    if (p.alg != dnnl_binary_add || api().dnnl_post_ops_append_sum(po, 1.0f) != dnnl_success) {
      status = Refuse("oneDNN rejects a sum post-op");
    }
  }
  if (status.ok()) {
    if (api().dnnl_primitive_attr_create(&out.attr) != dnnl_success ||
        api().dnnl_primitive_attr_set_post_ops(out.attr, po) != dnnl_success) {
      status = InternalError("oneDNN: cannot create a primitive attribute");
    }
  }
  api().dnnl_post_ops_destroy(po);
  if (!status.ok()) {
    FreeAttr(out);
    return status;
  }
  return out;
}

Status OpContext::AddUnary(dnnl_primitive_desc_t pd, const dnnl_memory_desc_t& src) {
  auto x = InputArg(0, src);
  auto y = x.ok() ? OutputArg(0, QueryMd(pd, dnnl_query_dst_md)) : x;
  if (!y.ok()) {
    api().dnnl_primitive_desc_destroy(pd);
    return y.status();
  }
  return Add(pd, {{DNNL_ARG_SRC, *x}, {DNNL_ARG_DST, *y}});
}

Status OpContext::AddUnaryToView(dnnl_primitive_desc_t pd, const dnnl_memory_desc_t& src, const dnnl_memory_desc_t& dst) {
  auto x = InputArg(0, src);
  auto y = x.ok() ? TempArg(dst) : x;
  auto view = y.ok() ? PlainDesc(output(0).shape, dst.data_type) : y.status();
  Status s = view.ok() ? OutputView(0, *y, *view) : view.status();
  if (!s.ok()) {
    api().dnnl_primitive_desc_destroy(pd);
    return s;
  }
  return Add(pd, {{DNNL_ARG_SRC, *x}, {DNNL_ARG_DST, *y}});
}

void OpContext::FreeAttr(Attr& a) const {
  if (a.attr != nullptr) api().dnnl_primitive_attr_destroy(a.attr);
  a.attr = nullptr;
}

}  // namespace relite::onednn
