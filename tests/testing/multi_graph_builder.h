// Writes .tflite files with several subgraphs and builtin options (control
// flow, resource variables) for interpreter tests. Indices are not checked:
// tests write malformed models with it too.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "relite/tensor.h"
#include "tflite_generated.h"

namespace relite::testing {

class MultiGraphBuilder {
 public:
  using Options = std::function<std::pair<tflite::BuiltinOptions, flatbuffers::Offset<void>>(flatbuffers::FlatBufferBuilder&)>;

  MultiGraphBuilder();
  int AddBuffer(const std::vector<uint8_t>& bytes);
  template <typename T>
  int AddBufferOf(const std::vector<T>& values) {
    const auto* p = reinterpret_cast<const uint8_t*>(values.data());
    return AddBuffer(std::vector<uint8_t>(p, p + values.size() * sizeof(T)));
  }
  // Starts subgraph `index` (0, 1, ... in order) and makes it the current one.
  int AddSubgraph(const std::string& name);
  void Select(int subgraph) { current_ = subgraph; }
  int AddTensor(DataType type, const Shape& shape, int buffer = 0, const std::string& name = "", bool is_variable = false);
  template <typename T>
  int AddConstant(DataType type, const Shape& shape, const std::vector<T>& values) {
    return AddTensor(type, shape, AddBufferOf(values));
  }
  int AddOpCode(tflite::BuiltinOperator code, int version = 1);
  void AddOp(int opcode, const std::vector<int>& inputs, const std::vector<int>& outputs, Options options = nullptr);
  void SetInputs(const std::vector<int>& inputs);
  void SetOutputs(const std::vector<int>& outputs);
  std::vector<uint8_t> Finish() const;

 private:
  struct TensorSpec {
    DataType type;
    Shape shape;
    int buffer;
    std::string name;
    bool is_variable;
  };
  struct OpSpec {
    int opcode;
    std::vector<int> inputs, outputs;
    Options options;
  };
  struct SubgraphSpec {
    std::string name;
    std::vector<TensorSpec> tensors;
    std::vector<OpSpec> ops;
    std::vector<int> inputs, outputs;
  };
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<std::pair<tflite::BuiltinOperator, int>> opcodes_;
  std::vector<SubgraphSpec> subgraphs_;
  int current_ = 0;
};

}  // namespace relite::testing
