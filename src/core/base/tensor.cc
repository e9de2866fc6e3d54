#include "relite/tensor.h"

#include <cstdint>
#include <string>

namespace relite {

std::string DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat32: return "float32";
    case DataType::kFloat16: return "float16";
    case DataType::kInt32: return "int32";
    case DataType::kUInt8: return "uint8";
    case DataType::kInt64: return "int64";
    case DataType::kString: return "string";
    case DataType::kBool: return "bool";
    case DataType::kInt16: return "int16";
    case DataType::kComplex64: return "complex64";
    case DataType::kInt8: return "int8";
    case DataType::kFloat64: return "float64";
    case DataType::kComplex128: return "complex128";
    case DataType::kUInt64: return "uint64";
    case DataType::kResource: return "resource";
    case DataType::kVariant: return "variant";
    case DataType::kUInt32: return "uint32";
    case DataType::kUInt16: return "uint16";
    case DataType::kInt4: return "int4";
  }
  return "unknown(" + std::to_string(static_cast<int>(type)) + ")";
}

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kFloat32: return 4;
    case DataType::kFloat16: return 2;
    case DataType::kInt32: return 4;
    case DataType::kUInt8: return 1;
    case DataType::kInt64: return 8;
    case DataType::kBool: return 1;
    case DataType::kInt16: return 2;
    case DataType::kComplex64: return 8;
    case DataType::kInt8: return 1;
    case DataType::kFloat64: return 8;
    case DataType::kComplex128: return 16;
    case DataType::kUInt64: return 8;
    case DataType::kUInt32: return 4;
    case DataType::kUInt16: return 2;
    case DataType::kResource: return 4;  // an int32 handle (resource variables)
    default: return 0;
  }
}

int64_t NumElements(const Shape& shape) {
  // Every shape relite holds was checked when it was set (the verifier,
  // ResizeOutput, ResizeInputTensor), so this never saturates in practice;
  // it still must not wrap (undefined behaviour) on a shape nobody checked.
  int64_t n = 1;
  for (int32_t d : shape) {
    if (d < 0) return 0;
    if (__builtin_mul_overflow(n, static_cast<int64_t>(d), &n)) return INT64_MAX;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace relite
