// A real one-op .tflite built in memory, loaded through the verifier and run
// by the interpreter, so every op test also exercises the whole runtime.
//
//   SingleOpModel m;
//   int in = m.AddInput(DataType::kFloat32, {1, 4, 4, 3});
//   int w = m.AddConstInput<float>(DataType::kFloat32, {8, 3, 3, 3}, weights);
//   int b = m.AddConstInput<float>(DataType::kFloat32, {8}, bias);
//   int out = m.AddOutput(DataType::kFloat32);
//   m.SetBuiltinOp(tflite::BuiltinOperator::CONV_2D, 1, tflite::BuiltinOptions::Conv2DOptions,
//                  tflite::CreateConv2DOptions(m.fbb(), tflite::Padding::SAME, 1, 1).Union());
//   ASSERT_TRUE(m.Build().ok());
//   m.SetInput<float>(in, data);
//   ASSERT_TRUE(m.Invoke().ok());
//   std::vector<float> y = m.GetOutput<float>(out);
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "relite/relite.h"
#include "tflite_generated.h"

namespace relite::testing {

// The bytes of a constant string tensor in TFLite's layout: int32 count N,
// N + 1 int32 offsets from the buffer's start, then the characters.
std::vector<uint8_t> StringTensorBytes(const std::vector<std::string>& strings);

class SingleOpModel {
 public:
  SingleOpModel();
  ~SingleOpModel();

  // Each Add*Input appends one operator input, in order; returns the tensor index.
  int AddInput(DataType type, const Shape& shape, const Quantization& quant = {});
  template <typename T>
  int AddConstInput(DataType type, const Shape& shape, const std::vector<T>& values, const Quantization& quant = {}) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return AddConstInputBytes(type, shape, bytes, quant);
  }
  int AddConstInputBytes(DataType type, const Shape& shape, const std::vector<uint8_t>& bytes,
                         const Quantization& quant = {});
  // An absent optional input (index -1 in the operator's input list).
  void AddOptionalInput();
  // A variable (is_variable) operator input without data, not a graph input:
  // state that the op keeps across Invokes (LSTM, SVDF), zeroed at allocation.
  int AddVariableInput(DataType type, const Shape& shape, const Quantization& quant = {});
  // Output shapes are inferred by the kernel; `shape` is only what the model
  // file declares.
  int AddOutput(DataType type, const Shape& shape = {}, const Quantization& quant = {});

  // Small multi-op graphs: the operators added with AddPrecedingOp run, in
  // order, before the main op (the one the Add*Input / AddOutput calls and
  // SetBuiltinOp describe). Their tensors: graph inputs that are no input of
  // the main op, plain (intermediate) tensors, constants that are no input of
  // the main op, and an existing tensor appended to the main op's inputs.
  int AddGraphInput(DataType type, const Shape& shape, const Quantization& quant = {});
  int AddTensor(DataType type, const Shape& shape = {}, const Quantization& quant = {});
  template <typename T>
  int AddConstTensor(DataType type, const Shape& shape, const std::vector<T>& values, const Quantization& quant = {}) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return AddConstTensorBytes(type, shape, bytes, quant);
  }
  int AddConstTensorBytes(DataType type, const Shape& shape, const std::vector<uint8_t>& bytes,
                          const Quantization& quant = {});
  void AddExistingInput(int tensor);
  void AddPrecedingOp(tflite::BuiltinOperator op, int version, const std::vector<int>& inputs,
                      const std::vector<int>& outputs, tflite::BuiltinOptions options_type = tflite::BuiltinOptions::NONE,
                      flatbuffers::Offset<void> options = 0);

  // Builder of the model being written, for option tables.
  flatbuffers::FlatBufferBuilder& fbb();
  void SetBuiltinOp(tflite::BuiltinOperator op, int version, tflite::BuiltinOptions options_type = tflite::BuiltinOptions::NONE,
                    flatbuffers::Offset<void> options = 0);
  void SetCustomOp(const std::string& name, const std::vector<uint8_t>& custom_options, int version = 1);

  // Writes the file, loads it with Model::FromBuffer, builds the interpreter
  // with BuiltinOpResolver (or `resolver`) and allocates tensors.
  Status Build(int num_threads = 1, const OpResolver* resolver = nullptr);
  Status Invoke();
  // InterpreterOptions::flush_denormals for the next Build (default true).
  void SetFlushDenormals(bool flush) { flush_denormals_ = flush; }

  template <typename T>
  void SetInput(int tensor_index, const std::vector<T>& values) {
    Tensor* t = interpreter_->tensor(tensor_index);
    const size_t bytes = std::min(t->bytes, values.size() * sizeof(T));
    if (bytes > 0) std::memcpy(t->data, values.data(), bytes);
  }
  template <typename T>
  std::vector<T> GetOutput(int tensor_index) {
    Tensor* t = interpreter_->tensor(tensor_index);
    std::vector<T> out(t->bytes / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), t->data, t->bytes);
    return out;
  }
  Shape GetOutputShape(int tensor_index) { return interpreter_->tensor(tensor_index)->shape; }

  Interpreter& interpreter() { return *interpreter_; }
  const std::vector<uint8_t>& model_bytes() const { return bytes_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<uint8_t> bytes_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<BuiltinOpResolver> resolver_;
  std::unique_ptr<Interpreter> interpreter_;
  bool flush_denormals_ = true;
};

}  // namespace relite::testing
