// Quantized GELU, int8 and uint8, as TFLite's builtin kernel computes it: a
// 256-entry table built in Prepare (FillTfliteByteTable) of the float GELU,
// in the form the options pick (GeluOptions.approximate):
//   exact:        0.5 x erfc(-x / sqrt 2)
//   approximate:  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
// each step in float (std::erfc / std::tanh of a float are the C library's
// erfcf / tanhf), the constants rounded to float.
#include <cmath>
#include <memory>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

float GeluExact(float x) {
  constexpr auto kMinusSqrtHalf = static_cast<float>(-0.70710678118654752440);
  return 0.5f * x * std::erfc(x * kMinusSqrtHalf);
}

float GeluTanh(float x) {
  constexpr auto kSqrt2OverPi = static_cast<float>(1.12837916709551257390 * 0.70710678118654752440);
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

template <bool kApproximate>
Status BuildGeluTable(KernelContext& ctx, DataType type, ScaleZeroPoint in, ScaleZeroPoint out, ByteTable* table) {
  if (type != DataType::kInt8 && type != DataType::kUInt8) {
    return ctx.Unsupported("quantized " + DataTypeName(type) + " input is not supported (int8, uint8)");
  }
  FillTfliteByteTable(type, in, out, kApproximate ? &GeluTanh : &GeluExact, table);
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedGelu(const Node& node) {
  const tflite::GeluOptions* options = GetOptions<tflite::GeluOptions>(node);
  const bool approximate = options != nullptr && options->approximate();
  return std::unique_ptr<Kernel>(
      std::make_unique<ByteTableKernel>(approximate ? &BuildGeluTable<true> : &BuildGeluTable<false>));
}

}  // namespace relite::cpu
