// Quantized TANH (uint8, int8; int16 in internal/int16_sigmoid.h). uint8/int8:
// the XNNPACK delegate runs it (any output
// scale), through a 256-entry table built with float math:
//   out = clamp(lrintf(tanhf(float(q - in_zp) * in_scale) * (1 / out_scale)) + out_zp)
// (round half to even). tanhf is the C library's, as in XNNPACK: glibc's
// tanhf is not correctly rounded and a table built from double tanh differs
// in rare entries (tanh_test.cc has the numbers).
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/int16_sigmoid.h"
#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

Status BuildTanhTable(KernelContext&, DataType type, ScaleZeroPoint in, ScaleZeroPoint out, ByteTable* table) {
  const float inv_out_scale = 1.0f / out.scale;
  const auto lo = static_cast<float>(QuantizedTypeMin(type)), hi = static_cast<float>(QuantizedTypeMax(type));
  FillByteTable(
      type,
      [&](int32_t q) {
        const float x = static_cast<float>(q - in.zero_point) * in.scale;
        // std::tanh(float) is the C library's tanhf.
        const float r = std::nearbyint(std::tanh(x) * inv_out_scale) + static_cast<float>(out.zero_point);
        return static_cast<int32_t>(std::min(hi, std::max(lo, r)));
      },
      table);
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedTanh(const Node& node) {
  if (node.input_type(0) == DataType::kInt16) return std::unique_ptr<Kernel>(std::make_unique<Int16SigmoidKernel>(true));
  return std::unique_ptr<Kernel>(std::make_unique<ByteTableKernel>(&BuildTanhTable));
}

}  // namespace relite::cpu
