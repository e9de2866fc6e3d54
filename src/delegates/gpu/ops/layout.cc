#include "src/delegates/gpu/ops/layout.h"

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {
namespace {

constexpr const char* kLayoutSource = R"CL(
KERNEL void to_gpu_layout(GLOBAL const SRC_T* src, GLOBAL STORAGE* dst, int W, int H, int HB, int C, int S) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), s = GLOBAL_ID(2);
  if (x >= W || yb >= HB || s >= S) return;
  int b = yb / H, y = yb - b * H;
  int base = (yb * W + x) * C + s * 4;
  int left = C - s * 4;
  float4 v = F4(0.0f);
  v.x = (float)src[base];
  if (left > 1) v.y = (float)src[base + 1];
  if (left > 2) v.z = (float)src[base + 2];
  if (left > 3) v.w = (float)src[base + 3];
  STORE4(dst, ((b * S + s) * H + y) * W + x, v);
}
KERNEL void from_gpu_layout(GLOBAL const STORAGE* src, GLOBAL DST_T* dst, int W, int H, int HB, int C, int S) {
  int x = GLOBAL_ID(0), yb = GLOBAL_ID(1), s = GLOBAL_ID(2);
  if (x >= W || yb >= HB || s >= S) return;
  int b = yb / H, y = yb - b * H;
  float4 v = LOAD4(src, ((b * S + s) * H + y) * W + x);
  int base = (yb * W + x) * C + s * 4;
  int left = C - s * 4;
  dst[base] = CONVERT(v.x);
  if (left > 1) dst[base + 1] = CONVERT(v.y);
  if (left > 2) dst[base + 2] = CONVERT(v.z);
  if (left > 3) dst[base + 3] = CONVERT(v.w);
}
)CL";

std::vector<KernelArg> ShapeArgs(const GpuShape& s) {
  return {KernelArg::Int(s.w), KernelArg::Int(s.h), KernelArg::Int(s.h * s.b), KernelArg::Int(s.c), KernelArg::Int(s.slices())};
}

}  // namespace

KernelLaunch ToGpuLayout(const GpuShape& shape, DataType type, KernelArg src, KernelArg dst) {
  KernelLaunch l;
  l.entry = "to_gpu_layout";
  l.source = kLayoutSource;
  l.defines = type == DataType::kBool ? "#define SRC_T uchar\n#define DST_T uchar\n#define CONVERT(v) (v)\n"
                                      : "#define SRC_T float\n#define DST_T float\n#define CONVERT(v) (v)\n";
  l.args = {src, dst};
  for (const KernelArg& a : ShapeArgs(shape)) l.args.push_back(a);
  l.global = GridOf(shape);
  return l;
}

KernelLaunch FromGpuLayout(const GpuShape& shape, DataType type, KernelArg src, KernelArg dst) {
  KernelLaunch l;
  l.entry = "from_gpu_layout";
  l.source = kLayoutSource;
  l.defines = type == DataType::kBool ? "#define SRC_T uchar\n#define DST_T uchar\n#define CONVERT(v) ((v) != 0.0f ? 1 : 0)\n"
                                      : "#define SRC_T float\n#define DST_T float\n#define CONVERT(v) (v)\n";
  l.args = {src, dst};
  for (const KernelArg& a : ShapeArgs(shape)) l.args.push_back(a);
  l.global = GridOf(shape);
  return l;
}

}  // namespace relite::gpu
