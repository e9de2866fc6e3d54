// Tensors as the interpreter and kernels see them.
#pragma once

#include "relite/export.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace relite {

// Values equal the .tflite TensorType enum, so a model's type converts by cast.
enum class DataType : int8_t {
  kFloat32 = 0,
  kFloat16 = 1,
  kInt32 = 2,
  kUInt8 = 3,
  kInt64 = 4,
  kString = 5,
  kBool = 6,
  kInt16 = 7,
  kComplex64 = 8,
  kInt8 = 9,
  kFloat64 = 10,
  kComplex128 = 11,
  kUInt64 = 12,
  kResource = 13,
  kVariant = 14,
  kUInt32 = 15,
  kUInt16 = 16,
  kInt4 = 17,
};

// "float32", "uint8", ...; "unknown(N)" for values outside the enum.
RELITE_API std::string DataTypeName(DataType type);
// Bytes per element; 0 for types without a fixed size (string, int4). A
// resource tensor holds a 4-byte handle.
RELITE_API size_t DataTypeSize(DataType type);

template <typename T> constexpr DataType DataTypeOf();
template <> constexpr DataType DataTypeOf<float>() { return DataType::kFloat32; }
template <> constexpr DataType DataTypeOf<int32_t>() { return DataType::kInt32; }
template <> constexpr DataType DataTypeOf<uint8_t>() { return DataType::kUInt8; }
template <> constexpr DataType DataTypeOf<int64_t>() { return DataType::kInt64; }
template <> constexpr DataType DataTypeOf<bool>() { return DataType::kBool; }
template <> constexpr DataType DataTypeOf<int16_t>() { return DataType::kInt16; }
template <> constexpr DataType DataTypeOf<int8_t>() { return DataType::kInt8; }
template <> constexpr DataType DataTypeOf<double>() { return DataType::kFloat64; }
template <> constexpr DataType DataTypeOf<uint16_t>() { return DataType::kFloat16; }  // raw fp16 bits

using Shape = std::vector<int32_t>;

// Product of the dimensions; saturates at INT64_MAX instead of wrapping
// (and is 0 for a negative dimension).
RELITE_API int64_t NumElements(const Shape& shape);
// "[1,224,224,3]"
RELITE_API std::string ShapeToString(const Shape& shape);

// Affine quantization: real = scale * (q - zero_point); one entry per tensor,
// or one per slice along quantized_dimension (per-channel).
struct Quantization {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;

  bool IsQuantized() const { return !scale.empty(); }
  bool IsPerChannel() const { return scale.size() > 1; }
};

// Where a tensor's bytes live.
enum class Allocation : uint8_t {
  kNone,        // not allocated yet, or optional and absent
  kArena,       // in the interpreter's planned arena (activations)
  kConstant,    // points into the model file (read-only weights)
  kPersistent,  // owned by the tensor: folded constants, variables
  kDynamic,     // owned by the tensor, sized at every Invoke: its shape depends on values the graph computes
};

struct Tensor {
  std::string name;
  DataType type = DataType::kFloat32;
  Shape shape;
  // The file's shape_signature: -1 marks a dimension the model leaves free
  // (what ResizeInputTensor may change under strict rules); empty when the
  // file has none (then every dimension is as `shape` declares).
  Shape shape_signature;
  Quantization quant;
  bool is_variable = false;

  void* data = nullptr;
  size_t bytes = 0;
  Allocation allocation = Allocation::kNone;
  // Backing store when allocation == kPersistent.
  std::shared_ptr<uint8_t> owned;
  // The model's SparsityParameters table when the constant is stored sparse
  // (read by DENSIFY); null for dense tensors.
  const void* sparsity = nullptr;

  int rank() const { return static_cast<int>(shape.size()); }
  int32_t dim(int i) const { return shape[static_cast<size_t>(i)]; }
  int64_t num_elements() const { return NumElements(shape); }
  bool is_constant() const { return allocation == Allocation::kConstant || (allocation == Allocation::kPersistent && !is_variable); }

  template <typename T> T* data_as() { return static_cast<T*>(data); }
  template <typename T> const T* data_as() const { return static_cast<const T*>(data); }
};

}  // namespace relite
