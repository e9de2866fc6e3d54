#include "src/delegates/gpu/ops/layout.h"

#include <fmt/format.h>

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
  v.x = READ_SRC(src[base]);
  if (left > 1) v.y = READ_SRC(src[base + 1]);
  if (left > 2) v.z = READ_SRC(src[base + 2]);
  if (left > 3) v.w = READ_SRC(src[base + 3]);
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



// The element type and conversions of a boundary buffer.
std::string TypeDefines(const Quantization& quant, DataType type, bool to_gpu) {
  if (type == DataType::kBool) {
    return to_gpu ? "#define SRC_T uchar\n#define READ_SRC(x) ((float)(x))\n"
                  : "#define DST_T uchar\n#define CONVERT(v) ((v) != 0.0f ? 1 : 0)\n";
  }
  if ((type == DataType::kUInt8 || type == DataType::kInt8) && quant.IsQuantized()) {
    const bool u8 = type == DataType::kUInt8;
    const float scale = quant.scale[0];
    const float zp = quant.zero_point.empty() ? 0.f : static_cast<float>(quant.zero_point[0]);
    if (to_gpu) {
      return fmt::format("#define SRC_T {}\n#define READ_SRC(x) (((float)(x) - ({})) * ({}))\n", u8 ? "uchar" : "schar",
                         KernelFloatLiteral(zp), KernelFloatLiteral(scale));
    }
    return fmt::format("#define DST_T {0}\n#define CONVERT(v) (({0})clamp(rint((v) / ({1})) + ({2}), {3}.0f, {4}.0f))\n",
                       u8 ? "uchar" : "schar", KernelFloatLiteral(scale), KernelFloatLiteral(zp), u8 ? 0 : -128, u8 ? 255 : 127);
  }
  return to_gpu ? "#define SRC_T float\n#define READ_SRC(x) (x)\n" : "#define DST_T float\n#define CONVERT(v) (v)\n";
}

}  // namespace

KernelLaunch ToGpuLayout(const GpuShape& shape, const Quantization& quant, DataType type, KernelArg src, KernelArg dst) {
  KernelLaunch l;
  l.entry = "to_gpu_layout";
  l.source = kLayoutSource;
  l.defines = TypeDefines(quant, type, true) + TypeDefines({}, DataType::kFloat32, false);
  l.args = {src, dst};
  for (const KernelArg& a : ShapeArgs(shape)) l.args.push_back(a);
  l.global = GridOf(shape);
  return l;
}

bool GpuLayoutIsModelLayout(const GpuShape& shape, DataType type, const Quantization& quant, Precision precision) {
  if (precision != Precision::kFp32 || type != DataType::kFloat32 || quant.IsQuantized()) return false;
  // Element (b, y, x, c) is at ((b * S + c / 4) * H + y) * W + x float4s, lane
  // c % 4; in BHWC at ((b * H + y) * W + x) * C + c floats.
  if (shape.c == 4) return true;
  return shape.h == 1 && shape.w == 1 && (shape.b == 1 || shape.c % 4 == 0);
}

KernelLaunch FromGpuLayout(const GpuShape& shape, const Quantization& quant, DataType type, KernelArg src, KernelArg dst) {
  KernelLaunch l;
  l.entry = "from_gpu_layout";
  l.source = kLayoutSource;
  l.defines = TypeDefines({}, DataType::kFloat32, true) + TypeDefines(quant, type, false);
  l.args = {src, dst};
  for (const KernelArg& a : ShapeArgs(shape)) l.args.push_back(a);
  l.global = GridOf(shape);
  return l;
}

}  // namespace relite::gpu
