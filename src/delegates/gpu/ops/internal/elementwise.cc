#include "src/delegates/gpu/ops/internal/elementwise.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/core/ops/params.h"
#include "src/core/ops/quantized_add.h"

namespace relite::gpu {
namespace {

constexpr const char* kUnarySource = R"CL(
KERNEL void unary(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int W, int H, int HB, int S, int C, float p) {
  int x_ = GLOBAL_ID(0), yb = GLOBAL_ID(1), s = GLOBAL_ID(2);
  if (x_ >= W || yb >= HB || s >= S) return;
  int i = (((yb / H) * S + s) * H + yb % H) * W + x_;
  float4 x = LOAD4(src, i);
  float4 r = OP;
  STORE4(dst, i, mask_tail(ACT(r), s, C));
}
)CL";

constexpr const char* kBinarySource = R"CL(
INLINE float4 read_operand(GLOBAL const STORAGE* p, int W, int H, int S, int B, int scalar_c, int x, int y, int b, int s) {
  int xx = W == 1 ? 0 : x;
  int yy = H == 1 ? 0 : y;
  int bb = B == 1 ? 0 : b;
  float4 v = LOAD4(p, ((bb * S + (scalar_c ? 0 : s)) * H + yy) * W + xx);
  return scalar_c ? F4(v.x) : v;
}
KERNEL void binary(GLOBAL const STORAGE* src_a, GLOBAL const STORAGE* src_b, GLOBAL STORAGE* dst,
                   int W, int H, int HB, int S, int C,
                   int aW, int aH, int aS, int aB, int a_scalar, int bW, int bH, int bS, int bB, int b_scalar) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), s = GLOBAL_ID(2);
  if (x >= W || yb >= HB || s >= S) return;
  int n = yb / H, y = yb - n * H;
  float4 a = read_operand(src_a, aW, aH, aS, aB, a_scalar, x, y, n, s);
  float4 b = read_operand(src_b, bW, bH, bS, bB, b_scalar, x, y, n, s);
  float4 r = OP;
  STORE4(dst, ((n * S + s) * H + y) * W + x, mask_tail(ACT(r), s, C));
}
)CL";

// The GPU shape an operand is read with after numpy-style broadcasting: its
// shape padded with leading 1s to the output's rank. It must equal the shape
// it is stored with (padding to a higher rank moves no dimension), e.g. a
// channel vector [C] against [1,H,W,C].
StatusOr<GpuShape> BroadcastOperand(const OpBuilder& b, int t, const Shape& out_shape) {
  const Shape& s = b.tensor(t).shape;
  if (s.size() > out_shape.size()) return NotOnGpu("an operand has a higher rank than the output");
  Shape padded(out_shape.size() - s.size(), 1);
  padded.insert(padded.end(), s.begin(), s.end());
  RELITE_ASSIGN_OR_RETURN(GpuShape read, ToGpuShape(padded));
  RELITE_ASSIGN_OR_RETURN(GpuShape stored, b.Shape(t));
  if (!(read == stored)) {
    return NotOnGpu(fmt::format("broadcasting {} against {} changes its layout", ShapeToString(s), ShapeToString(out_shape)));
  }
  return read;
}

}  // namespace

namespace {
Status EmitUnaryImpl(OpBuilder& b, const std::string& expr, float param, float lo, float hi, bool foldable);
}  // namespace

Status EmitUnary(OpBuilder& b, const std::string& expr, float param, float lo, float hi) {
  return EmitUnaryImpl(b, expr, param, lo, hi, false);
}

Status EmitFoldableUnary(OpBuilder& b, const std::string& expr) {
  return EmitUnaryImpl(b, expr, 0.f, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(), true);
}

namespace {
Status EmitUnaryImpl(OpBuilder& b, const std::string& expr, float param, float lo, float hi, bool foldable) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  RELITE_ASSIGN_OR_RETURN(GpuShape s, b.Shape(out));
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  if (!(s == si)) return NotOnGpu("the output shape differs from the input shape");
  KernelLaunch l;
  l.entry = "unary";
  l.source = kUnarySource;
  l.defines = fmt::format("#define OP ({})\n", expr);
  l.args = {b.Read(in), b.Write(out), KernelArg::Int(s.w), KernelArg::Int(s.h), KernelArg::Int(s.h * s.b),
            KernelArg::Int(s.slices()), KernelArg::Int(s.c), KernelArg::Float(param)};
  l.global = GridOf(s);
  l.act_min = lo;
  l.act_max = hi;
  l.fusable_output_arg = 1;
  l.pure_epilogue = expr == "x";
  if (foldable) l.unary_expr = expr;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(s.elements()));
  return Status::Ok();
}
}  // namespace

namespace {
Status EmitBinaryImpl(OpBuilder& b, const std::string& expr, bool fused_activation, DataType type, const IntegerAdd& integer_add);
}  // namespace

Status EmitBinary(OpBuilder& b, const std::string& expr, bool fused_activation, DataType type) {
  return EmitBinaryImpl(b, expr, fused_activation, type, IntegerAdd{});
}

Status EmitAddOrSub(OpBuilder& b, bool subtract) {
  const std::string expr = subtract ? "a - b" : "a + b";
  if (b.num_inputs() != 2 || !b.has_input(0) || !b.has_input(1) || b.node().outputs.size() != 1) {
    return EmitBinary(b, expr, true);  // reports the missing slot
  }
  const int ia = b.node().inputs[0], ib = b.node().inputs[1], io = b.node().outputs[0];
  if (!b.IsQuantized(ia) || !b.IsQuantized(ib) || !b.IsQuantized(io)) return EmitBinary(b, expr, true);
  const Tensor& ta = b.tensor(ia);
  const Tensor& tb = b.tensor(ib);
  const Tensor& to = b.tensor(io);
  const float sa = ta.quant.scale[0], sb = tb.quant.scale[0], so = to.quant.scale[0];
  if (ta.type != to.type || tb.type != to.type || !XnnAddRatioSupported(sa / so) || !XnnAddRatioSupported(sb / so)) {
    return EmitBinary(b, expr, true);  // the CPU's TFLite path: approximated in float
  }
  auto zp = [](const Tensor& t) { return static_cast<int32_t>(t.quant.zero_point.empty() ? 0 : t.quant.zero_point[0]); };
  const XnnAddParams x = MakeXnnAddParams(sa, sb, so, zp(ta), zp(tb), subtract);
  IntegerAdd p;
  p.enabled = true;
  p.a_inv_scale = 1.f / sa;
  p.b_inv_scale = 1.f / sb;
  p.out_scale = so;
  p.a_zero_point = zp(ta);
  p.b_zero_point = zp(tb);
  p.out_zero_point = zp(to);
  p.a_multiplier = x.a_multiplier;
  p.b_multiplier = x.b_multiplier;
  p.bias = x.bias;
  p.shift = x.shift;
  p.qmin = to.type == DataType::kUInt8 ? 0 : -128;
  p.qmax = to.type == DataType::kUInt8 ? 255 : 127;
  return EmitBinaryImpl(b, IntegerAddCall(p, "a", "b"), true, DataType::kFloat32, p);
}

namespace {
Status EmitBinaryImpl(OpBuilder& b, const std::string& expr, bool fused_activation, DataType type, const IntegerAdd& integer_add) {
  RELITE_ASSIGN_OR_RETURN(int in_a, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int in_b, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  for (int t : {in_a, in_b, out}) {
    const char* what = t == out ? "the output" : (t == in_a ? "input 0" : "input 1");
    if (type == DataType::kBool) {
      if (b.tensor(t).type != DataType::kBool) return NotOnGpu(fmt::format("{} must be bool", what));
    } else {
      RELITE_RETURN_IF_ERROR(b.RequireFloat(t, what));
    }
  }
  RELITE_ASSIGN_OR_RETURN(GpuShape s, b.Shape(out));
  const Shape& out_shape = b.tensor(out).shape;
  // The declared output must be what the CPU computes (numpy broadcasting of
  // the operands), not merely something they broadcast to.
  {
    const Shape& x = b.tensor(in_a).shape;
    const Shape& y = b.tensor(in_b).shape;
    Shape want(std::max(x.size(), y.size()), 1);
    for (size_t i = 0; i < want.size(); ++i) {
      const int32_t dx = i < want.size() - x.size() ? 1 : x[i - (want.size() - x.size())];
      const int32_t dy = i < want.size() - y.size() ? 1 : y[i - (want.size() - y.size())];
      if (dx != dy && dx != 1 && dy != 1) {
        return NotOnGpu(fmt::format("operands {} and {} do not broadcast", ShapeToString(x), ShapeToString(y)));
      }
      want[i] = dx == 1 ? dy : dx;
    }
    if (want != out_shape) {
      return NotOnGpu(fmt::format("the output shape {} is not the broadcast shape {} of the operands", ShapeToString(out_shape),
                                  ShapeToString(want)));
    }
  }
  RELITE_ASSIGN_OR_RETURN(GpuShape sa, BroadcastOperand(b, in_a, out_shape));
  RELITE_ASSIGN_OR_RETURN(GpuShape sb, BroadcastOperand(b, in_b, out_shape));
  for (const GpuShape* x : {&sa, &sb}) {
    if ((x->b != 1 && x->b != s.b) || (x->h != 1 && x->h != s.h) || (x->w != 1 && x->w != s.w) || (x->c != 1 && x->c != s.c)) {
      return NotOnGpu(fmt::format("operand {} does not broadcast to the output {}", GpuShapeToString(*x), GpuShapeToString(s)));
    }
  }
  KernelLaunch l;
  if (fused_activation) {
    RELITE_ASSIGN_OR_RETURN(Activation act, ParseFusedActivation(b.node()));
    RELITE_RETURN_IF_ERROR(RequireClampActivation(act));
    const ActivationRange r = GetActivationRange(act);
    l.act_min = r.min;
    l.act_max = r.max;
  }
  l.entry = "binary";
  l.source = kBinarySource;
  l.defines = fmt::format("#define OP ({})\n", expr);
  auto operand = [](const GpuShape& x, int c_out) {
    return std::vector<KernelArg>{KernelArg::Int(x.w), KernelArg::Int(x.h), KernelArg::Int(x.slices()), KernelArg::Int(x.b),
                                  KernelArg::Int(x.c == 1 && c_out != 1 ? 1 : 0)};
  };
  l.args = {b.Read(in_a), b.Read(in_b), b.Write(out), KernelArg::Int(s.w), KernelArg::Int(s.h), KernelArg::Int(s.h * s.b),
            KernelArg::Int(s.slices()), KernelArg::Int(s.c)};
  for (const KernelArg& a : operand(sa, s.c)) l.args.push_back(a);
  for (const KernelArg& a : operand(sb, s.c)) l.args.push_back(a);
  l.global = GridOf(s);
  l.fusable_output_arg = 2;
  l.integer_add = integer_add;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(s.elements()));
  return Status::Ok();
}
}  // namespace

}  // namespace relite::gpu
