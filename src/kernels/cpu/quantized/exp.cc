// Quantized EXP, int8, as TFLite's builtin kernel computes it: a 256-entry
// table built in Prepare from the input and output quantization
// (FillTfliteByteTable: e^x in float, std::exp(float) being the C library's
// expf). TFLite has no uint8 EXP; uint8 and int16 are rejected.
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

Status BuildExpTable(KernelContext& ctx, DataType type, ScaleZeroPoint in, ScaleZeroPoint out, ByteTable* table) {
  if (type != DataType::kInt8) {
    return ctx.Unsupported("quantized " + DataTypeName(type) + " input is not supported (int8)");
  }
  FillTfliteByteTable(type, in, out, [](float x) { return std::exp(x); }, table);
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedExp(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<ByteTableKernel>(&BuildExpTable));
}

}  // namespace relite::cpu
