// CONCATENATION: one launch per input, each writing the input's box of the
// output (inputs may be constants). Along B, H or W, and along channels at
// offsets that are whole slices, a work item copies one slice. At other
// channel offsets an input's lanes straddle output slices: a work item
// builds one output slice from the input's lanes, keeping the lanes earlier
// launches wrote (the queue runs launches in order); lanes of later inputs
// are overwritten by their launches. The node's fused clamp is applied by
// every launch, so a following clamp node is not folded into it.
#include <array>

#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/core/ops/params.h"
#include "src/delegates/gpu/ops/emitters.h"

namespace relite::gpu {
namespace {

constexpr const char* kConcatSource = R"CL(
KERNEL void concat_part(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int W, int H, int S, int C,
                        int inW, int inH, int inHB, int inS, int inC, int gridS, int ob, int oy, int ox, int oc) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), g = GLOBAL_ID(2);
  if (x >= inW || yb >= inHB || g >= gridS) return;
  int n = yb / inH, y = yb - n * inH;
#if ALIGNED
  int so = g + oc / 4;
  float4 r = LOAD4(src, ((n * inS + g) * inH + y) * inW + x);
#else
  // Output slice `so` takes input channels so * 4 + k - oc where in range.
  int so = g + oc / 4;
  int d = ((n + ob) * S + so) * H + (y + oy);
  float4 old = LOAD4(dst, d * W + x + ox);
  float v[4];
  v[0] = old.x;
  v[1] = old.y;
  v[2] = old.z;
  v[3] = old.w;
  int base = (n * inS * inH + y) * inW + x;
  for (int k = 0; k < 4; ++k) {
    int ic = so * 4 + k - oc;
    if (ic >= 0 && ic < inC) v[k] = LOAD1(src, (base + (ic / 4) * inH * inW) * 4 + (ic & 3));
  }
  float4 r = F4(0.0f);
  r.x = v[0];
  r.y = v[1];
  r.z = v[2];
  r.w = v[3];
#endif
  STORE4(dst, (((n + ob) * S + so) * H + (y + oy)) * W + x + ox, mask_tail(ACT(r), so, C));
}
)CL";

}  // namespace

Status EmitConcatenation(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  RELITE_ASSIGN_OR_RETURN(Activation act, ParseFusedActivation(b.node()));
  RELITE_RETURN_IF_ERROR(RequireClampActivation(act));
  int32_t axis = 0;
  if (const auto* o = GetOptions<tflite::ConcatenationOptions>(b.node())) axis = o->axis();
  const Shape& out_shape = b.tensor(out).shape;
  const int rank = static_cast<int>(out_shape.size());
  const std::string where = b.node().Describe();
  if (rank == 0) return InvalidArgumentError(fmt::format("{}: cannot concatenate scalars", where));
  if (axis < -rank || axis >= rank) return InvalidArgumentError(fmt::format("{}: axis {} is out of range for rank {}", where, axis, rank));
  if (axis < 0) axis += rank;
  if (b.num_inputs() < 1) return InvalidArgumentError(fmt::format("{}: no inputs", where));
  std::vector<int> inputs;
  std::vector<GpuShape> shapes;
  int64_t total = 0;
  for (int i = 0; i < b.num_inputs(); ++i) {
    RELITE_ASSIGN_OR_RETURN(int t, b.Input(i));
    RELITE_RETURN_IF_ERROR(b.RequireFloat(t, fmt::format("input {}", i)));
    RELITE_ASSIGN_OR_RETURN(GpuShape s, b.Shape(t));
    const Shape& is = b.tensor(t).shape;
    if (static_cast<int>(is.size()) != rank) return InvalidArgumentError(fmt::format("{}: input {} has rank {}, the output {}", where, i, is.size(), rank));
    for (int d = 0; d < rank; ++d) {
      if (d != axis && is[static_cast<size_t>(d)] != out_shape[static_cast<size_t>(d)]) {
        return InvalidArgumentError(fmt::format("{}: input {} shape {} does not match the output {} outside axis {}", where, i,
                                                ShapeToString(is), ShapeToString(out_shape), axis));
      }
    }
    total += is[static_cast<size_t>(axis)];
    inputs.push_back(t);
    shapes.push_back(s);
  }
  if (total != out_shape[static_cast<size_t>(axis)]) {
    return InvalidArgumentError(fmt::format("{}: inputs add up to {} along axis {}, the output has {}", where, total, axis,
                                            out_shape[static_cast<size_t>(axis)]));
  }
  const int gaxis = GpuAxis(rank, axis);
  const ActivationRange range = GetActivationRange(act);
  int32_t offset = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const GpuShape& s = shapes[i];
    std::array<int32_t, 4> o{0, 0, 0, 0};
    o[static_cast<size_t>(gaxis)] = offset;
    const bool aligned = o[3] % 4 == 0;
    // Unaligned: the output slices the input's channels [oc, oc + C) touch.
    const int grid_s = aligned ? s.slices() : (o[3] + s.c + 3) / 4 - o[3] / 4;
    KernelLaunch l;
    l.entry = "concat_part";
    l.source = kConcatSource;
    l.defines = fmt::format("#define ALIGNED {}\n", aligned ? 1 : 0);
    l.act_min = range.min;
    l.act_max = range.max;
    l.act_output_arg = 1;  // each piece stores through ACT (and its fake quant)
    l.args = {b.Read(inputs[i]), b.Write(out), KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.slices()),
              KernelArg::Int(so.c), KernelArg::Int(s.w), KernelArg::Int(s.h), KernelArg::Int(s.h * s.b),
              KernelArg::Int(s.slices()), KernelArg::Int(s.c), KernelArg::Int(grid_s)};
    for (int32_t v : o) l.args.push_back(KernelArg::Int(v));
    l.global = {static_cast<size_t>(s.w), static_cast<size_t>(s.h) * static_cast<size_t>(s.b), static_cast<size_t>(grid_s)};
    b.Launch(std::move(l));
    offset += (gaxis == 0 ? s.b : gaxis == 1 ? s.h : gaxis == 2 ? s.w : s.c);
  }
  b.SetCost(static_cast<double>(so.elements()));
  return Status::Ok();
}

}  // namespace relite::gpu
