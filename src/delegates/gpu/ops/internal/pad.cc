#include "src/delegates/gpu/ops/internal/pad.h"

#include <fmt/format.h>

#include "src/delegates/gpu/ops/internal/remap.h"

namespace relite::gpu {

Status EmitPadCommon(OpBuilder& b, bool has_value_input) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int paddings_t, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  RELITE_RETURN_IF_ERROR(b.Shape(in).status());
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  const Shape& in_shape = b.tensor(in).shape;
  const Shape& out_shape = b.tensor(out).shape;
  const int rank = static_cast<int>(in_shape.size());
  if (rank == 0) return NotOnGpu("padding a scalar is not supported");
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, b.ConstantInts(paddings_t, "the paddings"));
  const Shape& ps = b.tensor(paddings_t).shape;
  if (ps.size() != 2 || ps[0] != rank || ps[1] != 2) {
    return InvalidArgumentError(fmt::format("{}: paddings must have shape [{},2], got {}", b.node().Describe(), rank, ShapeToString(ps)));
  }
  Remap m;
  if (has_value_input && b.has_input(2)) {
    const int v = b.node().inputs[2];
    RELITE_RETURN_IF_ERROR(b.RequireFloat(v, "the padding value"));
    const Tensor& t = b.tensor(v);
    if (!b.IsConstant(v) || t.data == nullptr) {  // folded outputs have no data before allocation
      return NotOnGpu("the padding value must be a constant of the model");
    }
    if (t.num_elements() != 1) return InvalidArgumentError(fmt::format("{}: the padding value must hold one value", b.node().Describe()));
    m.fill = OpBuilder::RealValues(t)[0];  // the real value of a quantized padding value
  }
  if (static_cast<int>(out_shape.size()) != rank) return InvalidArgumentError(fmt::format("{}: output rank differs from the input's", b.node().Describe()));
  for (int d = 0; d < rank; ++d) {
    const int64_t before = pads[static_cast<size_t>(2 * d)], after = pads[static_cast<size_t>(2 * d + 1)];
    if (before < 0 || after < 0) return NotOnGpu(fmt::format("negative paddings ({}, {}) are not supported", before, after));
    if (in_shape[static_cast<size_t>(d)] + before + after != out_shape[static_cast<size_t>(d)]) {
      return InvalidArgumentError(fmt::format("{}: output shape {} does not match padding {} along dimension {}", b.node().Describe(),
                                              ShapeToString(out_shape), ShapeToString(in_shape), d));
    }
    m.begin[static_cast<size_t>(GpuAxis(rank, d))] = static_cast<int32_t>(-before);
  }
  m.walk = so;
  RELITE_RETURN_IF_ERROR(EmitRemap(b, in, out, m));
  // Zeros appended to the channels of one image whose channels fill whole
  // slices: in the GPU layout the output is the input followed by zeros (a
  // residual branch widened to its block's channels, as in BlazeFace).
  bool channels_only = rank == 4 && in_shape[0] == 1 && in_shape[3] % 4 == 0 && m.fill == 0.f && pads[6] == 0;
  for (int k = 0; k < 6; ++k) channels_only = channels_only && pads[static_cast<size_t>(k)] == 0;
  if (channels_only && b.SameValues(in, out)) {
    RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
    b.SetChannelPadOf(in, si.elements4());
  }
  return Status::Ok();
}

}  // namespace relite::gpu
