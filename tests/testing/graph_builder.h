// Writes small multi-op .tflite files for loader and interpreter tests,
// including deliberately malformed ones (indices are not checked here).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relite/tensor.h"

namespace relite::testing {

class GraphBuilder {
 public:
  GraphBuilder();
  // Returns the buffer index; buffer 0 is the empty sentinel.
  int AddBuffer(const std::vector<uint8_t>& bytes);
  template <typename T>
  int AddBufferOf(const std::vector<T>& values) {
    const auto* p = reinterpret_cast<const uint8_t*>(values.data());
    return AddBuffer(std::vector<uint8_t>(p, p + values.size() * sizeof(T)));
  }
  int AddTensor(DataType type, const Shape& shape, int buffer = 0, const std::string& name = "",
                bool is_variable = false);
  // builtin_code 32 = CUSTOM with `custom_name`. `deprecated_code_only`
  // writes the code in the old 8-bit field only, as old converters did.
  int AddOpCode(int32_t builtin_code, const std::string& custom_name = "", int version = 1,
                bool deprecated_code_only = false);
  // Writes a QuantizationParameters table on tensor `tensor` (values are not
  // checked: tests use this to write invalid ones too).
  void SetQuantization(int tensor, const std::vector<float>& scale, const std::vector<int64_t>& zero_point,
                       int quantized_dimension = 0);
  void AddOp(int opcode_index, const std::vector<int>& inputs, const std::vector<int>& outputs,
             const std::vector<uint8_t>& custom_options = {});
  void SetInputs(const std::vector<int>& inputs) { inputs_ = inputs; }
  void SetOutputs(const std::vector<int>& outputs) { outputs_ = outputs; }
  std::vector<uint8_t> Finish(uint32_t schema_version = 3) const;

 private:
  struct TensorSpec {
    DataType type;
    Shape shape;
    int buffer;
    std::string name;
    bool is_variable;
    bool quantized = false;
    std::vector<float> scale;
    std::vector<int64_t> zero_point;
    int quantized_dimension = 0;
  };
  struct OpCodeSpec {
    int32_t code;
    std::string custom;
    int version;
    bool deprecated_only;
  };
  struct OpSpec {
    int opcode;
    std::vector<int> inputs, outputs;
    std::vector<uint8_t> custom_options;
  };
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<TensorSpec> tensors_;
  std::vector<OpCodeSpec> opcodes_;
  std::vector<OpSpec> ops_;
  std::vector<int> inputs_, outputs_;
};

}  // namespace relite::testing
