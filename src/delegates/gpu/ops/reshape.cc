// RESHAPE: the output's elements in row-major order are the input's. The GPU
// layout puts channels in slices of 4, so unless the last dimension stays
// the same each output lane is gathered from its linear index (see
// internal/remap.h); equal layouts copy whole slices.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/core/ops/options.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/remap.h"

namespace relite::gpu {

Status EmitReshape(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  // The GPU uses the declared output shape; it must be the one the CPU
  // kernel resolves from the (constant) shape input or the options.
  std::vector<int64_t> requested;
  const auto* o = GetOptions<tflite::ReshapeOptions>(b.node());
  if (b.has_input(1) && b.tensor(b.node().inputs[1]).shape.size() == 1) {
    RELITE_ASSIGN_OR_RETURN(requested, b.ConstantInts(b.node().inputs[1], "the shape input"));
  } else if (o != nullptr && o->new_shape() != nullptr) {
    requested.assign(o->new_shape()->begin(), o->new_shape()->end());
  } else {
    return NotOnGpu("the new shape must come from a 1-D constant shape input or the options");
  }
  const Shape& out_shape = b.tensor(out).shape;
  bool match = requested.size() == out_shape.size();
  for (size_t i = 0; match && i < requested.size(); ++i) match = requested[i] == -1 || requested[i] == out_shape[i];
  if (!match || si.elements() != so.elements()) {
    return InvalidArgumentError(fmt::format("{}: declared output shape {} does not match reshaping {} to [{}]", b.node().Describe(),
                                            ShapeToString(out_shape), ShapeToString(b.tensor(in).shape), fmt::join(requested, ",")));
  }
  Remap m;
  m.walk = si;
  RELITE_RETURN_IF_ERROR(EmitRemap(b, in, out, m));
  // The GPU layout orders a batch item's elements by slice, then row-major
  // pixel: a reshape that keeps the batch and the channels and only
  // regroups the pixels (e.g. [1,48,48,16] -> [1,2304,16], or
  // [1,1,1,1001] -> [1,1001]) leaves every byte where it was.
  if (b.SameValues(in, out) && si.b == so.b && si.c == so.c && int64_t{si.h} * si.w == int64_t{so.h} * so.w) b.SetAliasInput(in);
  return Status::Ok();
}

}  // namespace relite::gpu
