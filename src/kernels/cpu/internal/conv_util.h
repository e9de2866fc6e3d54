// Checks shared by the conv-group kernels.
#pragma once

#include <string>

#include "relite/kernel.h"

namespace relite::cpu {

// float32 passes. Quantized and half types are valid models that relite does
// not run yet (Unimplemented); anything else is a malformed model.
inline Status CheckFloatTensor(const KernelContext& ctx, const Tensor& t, const char* what) {
  switch (t.type) {
    case DataType::kFloat32:
      return Status::Ok();
    case DataType::kUInt8:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kFloat16:
    case DataType::kInt4:
      return ctx.Unsupported(std::string(what) + " type " + DataTypeName(t.type) + " is not supported (float32 only)");
    default:
      return ctx.Error(std::string(what) + " must be float32, got " + DataTypeName(t.type));
  }
}

// Floor and ceiling of a / b for b > 0 and any sign of a.
inline int FloorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
inline int CeilDiv(int a, int b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace relite::cpu
