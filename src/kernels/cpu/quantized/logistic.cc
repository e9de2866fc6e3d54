// Quantized LOGISTIC (uint8, int8; int16 in internal/int16_sigmoid.h). uint8/int8:
// the XNNPACK delegate runs it (any output
// scale), through a 256-entry table built with float math:
//   x = float(q - in_zp) * in_scale
//   s = x < 0 (sign bit) ? 1 / (1 + expf(-x)) : 1 - 1 / (1 + expf(x))
//   out = clamp(lrintf(s * (1 / out_scale)) + out_zp)   (round half to even)
// expf is the C library's, as in XNNPACK (see logistic_test.cc for why the
// table never depends on its last ulp).
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/int16_sigmoid.h"
#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

Status BuildLogisticTable(KernelContext&, DataType type, ScaleZeroPoint in, ScaleZeroPoint out, ByteTable* table) {
  const float inv_out_scale = 1.0f / out.scale;
  const auto lo = static_cast<float>(QuantizedTypeMin(type)), hi = static_cast<float>(QuantizedTypeMax(type));
  FillByteTable(
      type,
      [&](int32_t q) {
        const float x = static_cast<float>(q - in.zero_point) * in.scale;
        const float s = std::signbit(x) ? 1.0f / (1.0f + std::exp(-x)) : 1.0f - 1.0f / (1.0f + std::exp(x));
        const float r = std::nearbyint(s * inv_out_scale) + static_cast<float>(out.zero_point);
        return static_cast<int32_t>(std::min(hi, std::max(lo, r)));
      },
      table);
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedLogistic(const Node& node) {
  if (node.input_type(0) == DataType::kInt16) return std::unique_ptr<Kernel>(std::make_unique<Int16SigmoidKernel>(false));
  return std::unique_ptr<Kernel>(std::make_unique<ByteTableKernel>(&BuildLogisticTable));
}

}  // namespace relite::cpu
