#include "src/delegates/gpu/ops/internal/remap.h"

#include <fmt/format.h>

namespace relite::gpu {
namespace {

// MODE 0: the walk's B/H/W follow the output pixel, channels lane by lane
// (channel steps or offsets that are not whole slices).
// MODE 1: as 0, but each output slice is one input slice (channel step 1,
// offset a multiple of 4): one float4 load.
// MODE 2: the walk's channels differ from the output's (a reshape that moves
// elements across pixels): each lane's walk coordinate comes from its linear
// index.
constexpr const char* kRemapSource = R"CL(
INLINE int inside(int v, int n) { return v >= 0 && v < n; }
KERNEL void remap(GLOBAL const STORAGE* src, GLOBAL STORAGE* dst, int W, int H, int HB, int S, int C,
                  int inW, int inH, int inB, int inS, int inC, int pH, int pW, int pC,
                  int b0, int y0, int x0, int c0, int sb, int sy, int sx, int sc, float fill) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), s = GLOBAL_ID(2);
  if (x >= W || yb >= HB || s >= S) return;
  int n = yb / H, y = yb - n * H;
  float4 r = F4(fill);
#if MODE == 2
  float v[4];
  for (int k = 0; k < 4; ++k) {
    int c = s * 4 + k;
    v[k] = fill;
    if (c >= C) continue;
    int l = ((n * H + y) * W + x) * C + c;
    int pc = l % pC;
    l /= pC;
    int px = l % pW;
    l /= pW;
    int py = l % pH, pb = l / pH;
    int ib = b0 + pb * sb, iy = y0 + py * sy, ix = x0 + px * sx, ic = c0 + pc * sc;
    if (inside(ib, inB) && inside(iy, inH) && inside(ix, inW) && inside(ic, inC)) {
      v[k] = LOAD1(src, (((ib * inS + ic / 4) * inH + iy) * inW + ix) * 4 + (ic & 3));
    }
  }
  r.x = v[0];
  r.y = v[1];
  r.z = v[2];
  r.w = v[3];
#else
  int p = (n * H + y) * W + x;
  int px = p % pW;
  p /= pW;
  int py = p % pH, pb = p / pH;
  int ib = b0 + pb * sb, iy = y0 + py * sy, ix = x0 + px * sx;
  if (inside(ib, inB) && inside(iy, inH) && inside(ix, inW)) {
#if MODE == 1
    int si = s + c0 / 4;
    if (inside(si, inS)) {
      r = LOAD4(src, ((ib * inS + si) * inH + iy) * inW + ix);
      int left = inC - si * 4;  // lanes past the input's channels are fill
      if (left < 4) {
        r.w = fill;
        if (left < 3) r.z = fill;
        if (left < 2) r.y = fill;
      }
    }
#else
    float v[4];
    int base = (ib * inS * inH + iy) * inW + ix;
    for (int k = 0; k < 4; ++k) {
      int ic = c0 + (s * 4 + k) * sc;
      v[k] = inside(ic, inC) ? LOAD1(src, (base + (ic / 4) * inH * inW) * 4 + (ic & 3)) : fill;
    }
    r.x = v[0];
    r.y = v[1];
    r.z = v[2];
    r.w = v[3];
#endif
  }
#endif
  STORE4(dst, ((n * S + s) * H + y) * W + x, mask_tail(ACT(r), s, C));
}
)CL";

}  // namespace

Status EmitRemap(OpBuilder& b, int in, int out, const Remap& m) {
  RELITE_ASSIGN_OR_RETURN(GpuShape si, b.Shape(in));
  RELITE_ASSIGN_OR_RETURN(GpuShape so, b.Shape(out));
  if (m.walk.elements() != so.elements()) {
    return InvalidArgumentError(fmt::format("{}: output shape {} has {} elements, the op produces {}", b.node().Describe(),
                                            GpuShapeToString(so), so.elements(), m.walk.elements()));
  }
  // The CPU moves 8-bit codes unchanged: the output must be on the input's grid.
  RELITE_RETURN_IF_ERROR(b.RequireSameGrid(in, out, "the op copies values"));
  int mode = 0;
  if (m.walk.c != so.c) {
    mode = 2;
  } else if (m.stride[3] == 1 && m.begin[3] % 4 == 0) {
    mode = 1;
  }
  KernelLaunch l;
  l.entry = "remap";
  l.source = kRemapSource;
  l.defines = fmt::format("#define MODE {}\n", mode);
  l.args = {b.Read(in), b.Write(out), KernelArg::Int(so.w), KernelArg::Int(so.h), KernelArg::Int(so.h * so.b),
            KernelArg::Int(so.slices()), KernelArg::Int(so.c), KernelArg::Int(si.w), KernelArg::Int(si.h),
            KernelArg::Int(si.b), KernelArg::Int(si.slices()), KernelArg::Int(si.c), KernelArg::Int(m.walk.h),
            KernelArg::Int(m.walk.w), KernelArg::Int(m.walk.c)};
  for (int32_t v : m.begin) l.args.push_back(KernelArg::Int(v));
  for (int32_t v : m.stride) l.args.push_back(KernelArg::Int(v));
  l.args.push_back(KernelArg::Float(m.fill));
  l.global = GridOf(so);
  l.fusable_output_arg = 1;
  b.Launch(std::move(l));
  b.SetCost(static_cast<double>(so.elements()));
  return Status::Ok();
}

}  // namespace relite::gpu
