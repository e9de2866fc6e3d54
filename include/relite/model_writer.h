// Writes .tflite files: a small graph-building API over a FlatBuffers builder
// (schema/tflite.fbs). The files follow the format's rules as TFLite's own
// converter writes them, so the reference runtime loads them too:
//  - buffer 0 is the empty sentinel, every constant tensor has its own buffer
//    (data 16-byte aligned), activations point at buffer 0;
//  - operator_codes carry both deprecated_builtin_code (min(code, 127)) and
//    builtin_code, one entry per (code, custom name, version);
//  - op versions follow the tensor types used (version 0 = work it out:
//    CONV_2D v1 float, v3 int8, DEQUANTIZE v3 float16, ...);
//  - file identifier "TFL3", schema version 3, one subgraph named "main",
//    no shape_signature.
//
// Nothing is checked while the graph is built; Finish() checks every index,
// data size and quantization table and returns an error naming the problem.
#pragma once

#include "relite/export.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "relite/status.h"
#include "relite/tensor.h"

namespace relite {

// The builtin operators the typed helpers know about; any other code can be
// passed as static_cast<BuiltinOp>(code) (values are the format's).
enum class BuiltinOp : int32_t {
  kAdd = 0,
  kAveragePool2D = 1,
  kConcatenation = 2,
  kConv2D = 3,
  kDepthwiseConv2D = 4,
  kDequantize = 6,
  kFullyConnected = 9,
  kLogistic = 14,
  kMaxPool2D = 17,
  kMul = 18,
  kRelu = 19,
  kRelu6 = 21,
  kReshape = 22,
  kResizeBilinear = 23,
  kSoftmax = 25,
  kTanh = 28,
  kCustom = 32,
  kPad = 34,
  kMean = 40,
  kSub = 41,
  kSqueeze = 43,
  kArgMax = 56,
  kSum = 74,
  kReduceProd = 81,
  kReduceMax = 82,
  kReduceMin = 89,
  kQuantize = 114,
  kHardSwish = 117,
};

namespace writer {

enum class Padding : int8_t { kSame = 0, kValid = 1 };
enum class Activation : int8_t { kNone = 0, kRelu = 1, kReluN1To1 = 2, kRelu6 = 3, kTanh = 4 };

struct Conv2DOptions {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  Activation activation = Activation::kNone;
  int32_t dilation_w = 1, dilation_h = 1;
};
struct DepthwiseConv2DOptions {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t depth_multiplier = 1;
  Activation activation = Activation::kNone;
  int32_t dilation_w = 1, dilation_h = 1;
};
struct Pool2DOptions {
  Padding padding = Padding::kValid;
  int32_t stride_w = 1, stride_h = 1;
  int32_t filter_w = 1, filter_h = 1;
  Activation activation = Activation::kNone;
};
struct FullyConnectedOptions {
  Activation activation = Activation::kNone;
  bool keep_num_dims = false;
};
struct SoftmaxOptions {
  float beta = 1.0f;
};
struct ConcatenationOptions {
  int32_t axis = 0;
  Activation activation = Activation::kNone;
};
// ADD, SUB, MUL.
struct ArithmeticOptions {
  Activation activation = Activation::kNone;
};
struct ReshapeOptions {
  std::vector<int32_t> new_shape;
};
struct ResizeBilinearOptions {
  bool align_corners = false;
  bool half_pixel_centers = false;
};
// MEAN, SUM, REDUCE_MAX, ...
struct ReducerOptions {
  bool keep_dims = false;
};
struct SqueezeOptions {
  std::vector<int32_t> squeeze_dims;
};
struct ArgMaxOptions {
  DataType output_type = DataType::kInt64;
};
// Any other options table: `union_type` is the BuiltinOptions union tag (the
// position in schema/tflite.fbs's union, 1-based) and `build` writes the table.
struct RawOptions {
  uint8_t union_type = 0;
  std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)> build;
};

using BuiltinOptions =
    std::variant<std::monostate, Conv2DOptions, DepthwiseConv2DOptions, Pool2DOptions, FullyConnectedOptions,
                 SoftmaxOptions, ConcatenationOptions, ArithmeticOptions, ReshapeOptions, ResizeBilinearOptions,
                 ReducerOptions, SqueezeOptions, ArgMaxOptions, RawOptions>;

}  // namespace writer

class RELITE_API ModelWriter {
 public:
  explicit ModelWriter(std::string description = "relite ModelWriter");

  // An activation (or graph input/output) tensor; no data.
  int AddTensor(DataType type, const Shape& shape, const std::string& name, const Quantization& quant = {});
  // A constant tensor holding `bytes` (little-endian, NumElements * size of
  // the type; float16 as raw IEEE half bits).
  int AddConstant(DataType type, const Shape& shape, const std::string& name, std::vector<uint8_t> bytes,
                  const Quantization& quant = {});
  template <typename T>
  int AddConstantOf(const Shape& shape, const std::string& name, const std::vector<T>& values,
                    const Quantization& quant = {}) {
    const auto* p = reinterpret_cast<const uint8_t*>(values.data());
    return AddConstant(DataTypeOf<T>(), shape, name, std::vector<uint8_t>(p, p + values.size() * sizeof(T)), quant);
  }
  // float32 values stored as float16 (round to nearest even).
  int AddFloat16Constant(const Shape& shape, const std::string& name, const std::vector<float>& values);

  // Returns the operator's index. version 0 = the version TFLite's converter
  // would give these tensor types and options.
  int AddOp(BuiltinOp code, const std::vector<int>& inputs, const std::vector<int>& outputs,
            writer::BuiltinOptions options = {}, int version = 0);
  // A CUSTOM op with raw (usually FlexBuffer) custom options.
  int AddCustomOp(const std::string& name, const std::vector<int>& inputs, const std::vector<int>& outputs,
                  std::vector<uint8_t> custom_options = {}, int version = 1);

  void SetInputs(const std::vector<int>& inputs) { inputs_ = inputs; }
  void SetOutputs(const std::vector<int>& outputs) { outputs_ = outputs; }
  void SetSubgraphName(const std::string& name) { subgraph_name_ = name; }
  // The tensor's shape_signature (-1: a dimension the model leaves free, so
  // ResizeInputTensor may change it under strict rules).
  void SetShapeSignature(int tensor, const Shape& signature) { shape_signatures_[tensor] = signature; }
  // A SignatureDef of the subgraph: its key and the names of its inputs and
  // outputs (tensor indices this writer returned).
  void AddSignature(const std::string& key, const std::vector<std::pair<std::string, int>>& inputs,
                    const std::vector<std::pair<std::string, int>>& outputs) {
    signatures_.push_back({key, inputs, outputs});
  }
  // Writes every scalar field, even one at its default value (TFLite's
  // converter leaves those out). Larger files, but every field is then in
  // place for a structure-aware fuzzer to rewrite (fuzz/model_mutator.h).
  void SetForceDefaults(bool force) { force_defaults_ = force; }

  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  // Type and shape of a tensor already added (index not checked: use
  // indices this writer returned).
  DataType tensor_type(int t) const { return tensors_[static_cast<size_t>(t)].type; }
  const Shape& tensor_shape(int t) const { return tensors_[static_cast<size_t>(t)].shape; }

  StatusOr<std::vector<uint8_t>> Finish() const;
  Status WriteFile(const std::string& path) const;

 private:
  struct TensorSpec {
    DataType type;
    Shape shape;
    std::string name;
    Quantization quant;
    bool constant = false;
    std::vector<uint8_t> data;
  };
  struct OpSpec {
    int32_t code;
    std::string custom_name;
    int version;
    std::vector<int> inputs, outputs;
    writer::BuiltinOptions options;
    std::vector<uint8_t> custom_options;
  };
  Status Check() const;
  int AutoVersion(const OpSpec& op) const;

  std::string description_;
  std::string subgraph_name_ = "main";
  bool force_defaults_ = false;
  std::map<int, Shape> shape_signatures_;
  struct SignatureSpec {
    std::string key;
    std::vector<std::pair<std::string, int>> inputs, outputs;
  };
  std::vector<SignatureSpec> signatures_;
  std::vector<TensorSpec> tensors_;
  std::vector<OpSpec> ops_;
  std::vector<int> inputs_, outputs_;
};

}  // namespace relite
