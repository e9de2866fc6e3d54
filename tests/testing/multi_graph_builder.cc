#include "tests/testing/multi_graph_builder.h"

#include <algorithm>

namespace relite::testing {

MultiGraphBuilder::MultiGraphBuilder() { buffers_.emplace_back(); }

int MultiGraphBuilder::AddBuffer(const std::vector<uint8_t>& bytes) {
  buffers_.push_back(bytes);
  return static_cast<int>(buffers_.size()) - 1;
}

int MultiGraphBuilder::AddSubgraph(const std::string& name) {
  subgraphs_.push_back({name, {}, {}, {}, {}});
  current_ = static_cast<int>(subgraphs_.size()) - 1;
  return current_;
}

int MultiGraphBuilder::AddTensor(DataType type, const Shape& shape, int buffer, const std::string& name, bool is_variable) {
  auto& t = subgraphs_[static_cast<size_t>(current_)].tensors;
  std::string label = name;
  if (label.empty()) label = std::string("t") += std::to_string(t.size());  // (GCC 12's -Wrestrict misfires on "t" + s)
  t.push_back({type, shape, buffer, label, is_variable});
  return static_cast<int>(t.size()) - 1;
}

int MultiGraphBuilder::AddOpCode(tflite::BuiltinOperator code, int version) {
  opcodes_.emplace_back(code, version);
  return static_cast<int>(opcodes_.size()) - 1;
}

void MultiGraphBuilder::AddOp(int opcode, const std::vector<int>& inputs, const std::vector<int>& outputs, Options options) {
  subgraphs_[static_cast<size_t>(current_)].ops.push_back({opcode, inputs, outputs, std::move(options)});
}

void MultiGraphBuilder::SetInputs(const std::vector<int>& inputs) { subgraphs_[static_cast<size_t>(current_)].inputs = inputs; }
void MultiGraphBuilder::SetOutputs(const std::vector<int>& outputs) {
  subgraphs_[static_cast<size_t>(current_)].outputs = outputs;
}

std::vector<uint8_t> MultiGraphBuilder::Finish() const {
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
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes;
  for (const auto& [code, version] : opcodes_) {
    codes.push_back(tflite::CreateOperatorCode(fbb, static_cast<int8_t>(std::min(static_cast<int>(code), 127)), 0,
                                               version, code));
  }
  std::vector<flatbuffers::Offset<tflite::SubGraph>> subgraphs;
  for (const SubgraphSpec& sg : subgraphs_) {
    std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
    for (const auto& t : sg.tensors) {
      tensors.push_back(tflite::CreateTensor(fbb, fbb.CreateVector(t.shape), static_cast<tflite::TensorType>(t.type),
                                             static_cast<uint32_t>(t.buffer), fbb.CreateString(t.name), 0,
                                             t.is_variable));
    }
    std::vector<flatbuffers::Offset<tflite::Operator>> ops;
    for (const auto& o : sg.ops) {
      tflite::BuiltinOptions type = tflite::BuiltinOptions::NONE;
      flatbuffers::Offset<void> options = 0;
      if (o.options) std::tie(type, options) = o.options(fbb);
      ops.push_back(tflite::CreateOperator(fbb, static_cast<uint32_t>(o.opcode), fbb.CreateVector(o.inputs),
                                           fbb.CreateVector(o.outputs), type, options));
    }
    subgraphs.push_back(tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(sg.inputs),
                                               fbb.CreateVector(sg.outputs), fbb.CreateVector(ops),
                                               fbb.CreateString(sg.name)));
  }
  auto model = tflite::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(subgraphs),
                                   fbb.CreateString("relite MultiGraphBuilder"), fbb.CreateVector(buffers));
  tflite::FinishModelBuffer(fbb, model);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace relite::testing
