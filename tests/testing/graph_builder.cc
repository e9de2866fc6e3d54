#include "tests/testing/graph_builder.h"

#include <algorithm>

#include "flatbuffers/flatbuffers.h"
#include "fmt/format.h"
#include "tflite_generated.h"

namespace relite::testing {

GraphBuilder::GraphBuilder() { buffers_.emplace_back(); }

int GraphBuilder::AddBuffer(const std::vector<uint8_t>& bytes) {
  buffers_.push_back(bytes);
  return static_cast<int>(buffers_.size() - 1);
}

int GraphBuilder::AddTensor(DataType type, const Shape& shape, int buffer, const std::string& name, bool is_variable) {
  // fmt rather than string concatenation: g++ 12 at -O3 raises a false
  // -Wrestrict on short literal + string (GCC PR 105651).
  TensorSpec t;
  t.type = type;
  t.shape = shape;
  t.buffer = buffer;
  t.name = name.empty() ? fmt::format("t{}", tensors_.size()) : name;
  t.is_variable = is_variable;
  tensors_.push_back(std::move(t));
  return static_cast<int>(tensors_.size() - 1);
}

int GraphBuilder::AddOpCode(int32_t builtin_code, const std::string& custom_name, int version,
                            bool deprecated_code_only) {
  opcodes_.push_back({builtin_code, custom_name, version, deprecated_code_only});
  return static_cast<int>(opcodes_.size() - 1);
}

void GraphBuilder::AddOp(int opcode_index, const std::vector<int>& inputs, const std::vector<int>& outputs,
                         const std::vector<uint8_t>& custom_options) {
  ops_.push_back({opcode_index, inputs, outputs, custom_options});
}

std::vector<uint8_t> GraphBuilder::Finish(uint32_t schema_version) const {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers;
  for (const auto& b : buffers_) {
    if (b.empty()) {
      buffers.push_back(tflite::CreateBuffer(fbb));
    } else {
      fbb.ForceVectorAlignment(b.size(), 1, 16);
      buffers.push_back(tflite::CreateBuffer(fbb, fbb.CreateVector(b)));
    }
  }
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  for (const auto& t : tensors_) {
    flatbuffers::Offset<tflite::QuantizationParameters> quant = 0;
    if (t.quantized) {
      quant = tflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(t.scale), fbb.CreateVector(t.zero_point),
                                                   tflite::QuantizationDetails::NONE, 0, t.quantized_dimension);
    }
    tensors.push_back(tflite::CreateTensor(fbb, fbb.CreateVector(t.shape), static_cast<tflite::TensorType>(t.type),
                                           static_cast<uint32_t>(t.buffer), fbb.CreateString(t.name), quant,
                                           t.is_variable));
  }
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes;
  for (const auto& c : opcodes_) {
    const auto name = c.custom.empty() ? 0 : fbb.CreateString(c.custom);
    codes.push_back(tflite::CreateOperatorCode(fbb, static_cast<int8_t>(std::min(c.code, 127)), name, c.version,
                                               static_cast<tflite::BuiltinOperator>(c.deprecated_only ? 0 : c.code)));
  }
  std::vector<flatbuffers::Offset<tflite::Operator>> ops;
  for (const auto& o : ops_) {
    ops.push_back(tflite::CreateOperator(fbb, static_cast<uint32_t>(o.opcode), fbb.CreateVector(o.inputs),
                                         fbb.CreateVector(o.outputs), tflite::BuiltinOptions::NONE, 0,
                                         o.custom_options.empty() ? 0 : fbb.CreateVector(o.custom_options)));
  }
  auto sg = tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(inputs_),
                                   fbb.CreateVector(outputs_), fbb.CreateVector(ops), fbb.CreateString("main"));
  auto model = tflite::CreateModel(fbb, schema_version, fbb.CreateVector(codes), fbb.CreateVector(&sg, 1),
                                   fbb.CreateString("relite GraphBuilder"), fbb.CreateVector(buffers));
  tflite::FinishModelBuffer(fbb, model);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace relite::testing

namespace relite::testing {

void GraphBuilder::SetQuantization(int tensor, const std::vector<float>& scale, const std::vector<int64_t>& zero_point,
                                   int quantized_dimension) {
  TensorSpec& t = tensors_[static_cast<size_t>(tensor)];
  t.quantized = true;
  t.scale = scale;
  t.zero_point = zero_point;
  t.quantized_dimension = quantized_dimension;
}

}  // namespace relite::testing
