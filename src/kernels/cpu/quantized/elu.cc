// Quantized ELU, int8, as TFLite's builtin kernel computes it: a 256-entry
// table built in Prepare (FillTfliteByteTable) of x < 0 ? e^x - 1 : x in
// float. TFLite has no uint8 ELU; uint8 and int16 are rejected.
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

float EluOf(float x) { return x < 0.0f ? std::expm1(x) : x; }

Status BuildEluTable(KernelContext& ctx, DataType type, ScaleZeroPoint in, ScaleZeroPoint out, ByteTable* table) {
  if (type != DataType::kInt8) {
    return ctx.Unsupported("quantized " + DataTypeName(type) + " input is not supported (int8)");
  }
  FillTfliteByteTable(type, in, out, &EluOf, table);
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedElu(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<ByteTableKernel>(&BuildEluTable));
}

}  // namespace relite::cpu
