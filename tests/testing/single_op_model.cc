#include "tests/testing/single_op_model.h"

#include "fmt/format.h"

namespace relite::testing {

std::vector<uint8_t> StringTensorBytes(const std::vector<std::string>& strings) {
  std::vector<int32_t> header = {static_cast<int32_t>(strings.size())};
  int32_t offset = static_cast<int32_t>(4 * (strings.size() + 2));
  header.push_back(offset);
  for (const std::string& s : strings) header.push_back(offset += static_cast<int32_t>(s.size()));
  std::vector<uint8_t> bytes(header.size() * 4);
  std::memcpy(bytes.data(), header.data(), bytes.size());
  for (const std::string& s : strings) bytes.insert(bytes.end(), s.begin(), s.end());
  return bytes;
}

struct SingleOpModel::Impl {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers;
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  std::vector<int32_t> op_inputs, op_outputs, graph_inputs;
  tflite::BuiltinOperator op = tflite::BuiltinOperator::ADD;
  int version = 1;
  std::string custom_name;
  std::vector<uint8_t> custom_options;
  tflite::BuiltinOptions options_type = tflite::BuiltinOptions::NONE;
  flatbuffers::Offset<void> options = 0;
  struct PrecedingOp {
    tflite::BuiltinOperator op;
    int version;
    std::vector<int32_t> inputs, outputs;
    tflite::BuiltinOptions options_type;
    flatbuffers::Offset<void> options;
  };
  std::vector<PrecedingOp> preceding;

  Impl() { buffers.push_back(tflite::CreateBuffer(fbb)); }  // buffer 0: the empty sentinel

  int AddTensor(DataType type, const Shape& shape, uint32_t buffer, const Quantization& q, bool is_variable = false) {
    flatbuffers::Offset<tflite::QuantizationParameters> qp = 0;
    if (q.IsQuantized()) {
      qp = tflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(q.scale), fbb.CreateVector(q.zero_point),
                                                tflite::QuantizationDetails::NONE, 0, q.quantized_dimension);
    }
    const int index = static_cast<int>(tensors.size());
    const std::string name = fmt::format("t{}", index);  // not "t" + ...: g++ 12 false -Wrestrict
    tensors.push_back(tflite::CreateTensor(fbb, fbb.CreateVector(shape), static_cast<tflite::TensorType>(type), buffer,
                                           fbb.CreateString(name), qp, is_variable));
    return index;
  }
};

SingleOpModel::SingleOpModel() : impl_(std::make_unique<Impl>()) {}
SingleOpModel::~SingleOpModel() = default;

flatbuffers::FlatBufferBuilder& SingleOpModel::fbb() { return impl_->fbb; }

int SingleOpModel::AddInput(DataType type, const Shape& shape, const Quantization& quant) {
  const int t = impl_->AddTensor(type, shape, 0, quant);
  impl_->op_inputs.push_back(t);
  impl_->graph_inputs.push_back(t);
  return t;
}

int SingleOpModel::AddConstInputBytes(DataType type, const Shape& shape, const std::vector<uint8_t>& bytes,
                                      const Quantization& quant) {
  const int t = AddConstTensorBytes(type, shape, bytes, quant);
  impl_->op_inputs.push_back(t);
  return t;
}

int SingleOpModel::AddConstTensorBytes(DataType type, const Shape& shape, const std::vector<uint8_t>& bytes,
                                       const Quantization& quant) {
  impl_->fbb.ForceVectorAlignment(bytes.size(), 1, 16);
  const auto data = impl_->fbb.CreateVector(bytes);
  impl_->buffers.push_back(tflite::CreateBuffer(impl_->fbb, data));
  return impl_->AddTensor(type, shape, static_cast<uint32_t>(impl_->buffers.size() - 1), quant);
}

int SingleOpModel::AddGraphInput(DataType type, const Shape& shape, const Quantization& quant) {
  const int t = impl_->AddTensor(type, shape, 0, quant);
  impl_->graph_inputs.push_back(t);
  return t;
}

int SingleOpModel::AddTensor(DataType type, const Shape& shape, const Quantization& quant) {
  return impl_->AddTensor(type, shape, 0, quant);
}

void SingleOpModel::AddExistingInput(int tensor) { impl_->op_inputs.push_back(tensor); }

void SingleOpModel::AddPrecedingOp(tflite::BuiltinOperator op, int version, const std::vector<int>& inputs,
                                   const std::vector<int>& outputs, tflite::BuiltinOptions options_type,
                                   flatbuffers::Offset<void> options) {
  impl_->preceding.push_back({op, version, std::vector<int32_t>(inputs.begin(), inputs.end()),
                              std::vector<int32_t>(outputs.begin(), outputs.end()), options_type, options});
}

void SingleOpModel::AddOptionalInput() { impl_->op_inputs.push_back(-1); }

int SingleOpModel::AddVariableInput(DataType type, const Shape& shape, const Quantization& quant) {
  const int t = impl_->AddTensor(type, shape, 0, quant, /*is_variable=*/true);
  impl_->op_inputs.push_back(t);
  return t;
}

int SingleOpModel::AddOutput(DataType type, const Shape& shape, const Quantization& quant) {
  const int t = impl_->AddTensor(type, shape, 0, quant);
  impl_->op_outputs.push_back(t);
  return t;
}

void SingleOpModel::SetBuiltinOp(tflite::BuiltinOperator op, int version, tflite::BuiltinOptions options_type,
                                 flatbuffers::Offset<void> options) {
  impl_->op = op;
  impl_->version = version;
  impl_->options_type = options_type;
  impl_->options = options;
  impl_->custom_name.clear();
}

void SingleOpModel::SetCustomOp(const std::string& name, const std::vector<uint8_t>& custom_options, int version) {
  impl_->op = tflite::BuiltinOperator::CUSTOM;
  impl_->version = version;
  impl_->custom_name = name;
  impl_->custom_options = custom_options;
}

Status SingleOpModel::Build(int num_threads, const OpResolver* resolver) {
  auto& fbb = impl_->fbb;
  const bool custom = impl_->op == tflite::BuiltinOperator::CUSTOM;
  const int32_t code = static_cast<int32_t>(impl_->op);
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> opcodes;
  std::vector<flatbuffers::Offset<tflite::Operator>> ops;
  // One operator code per preceding op (codes may repeat; the format allows it).
  for (const auto& p : impl_->preceding) {
    const int32_t c = static_cast<int32_t>(p.op);
    opcodes.push_back(tflite::CreateOperatorCode(fbb, static_cast<int8_t>(std::min(c, 127)), 0, p.version, p.op));
    ops.push_back(tflite::CreateOperator(fbb, static_cast<uint32_t>(opcodes.size() - 1), fbb.CreateVector(p.inputs),
                                         fbb.CreateVector(p.outputs), p.options_type, p.options));
  }
  opcodes.push_back(tflite::CreateOperatorCode(fbb, static_cast<int8_t>(std::min(code, 127)),
                                               custom ? fbb.CreateString(impl_->custom_name) : 0, impl_->version,
                                               impl_->op));
  ops.push_back(tflite::CreateOperator(fbb, static_cast<uint32_t>(opcodes.size() - 1),
                                       fbb.CreateVector(impl_->op_inputs), fbb.CreateVector(impl_->op_outputs),
                                       impl_->options_type, impl_->options,
                                       custom ? fbb.CreateVector(impl_->custom_options) : 0));
  auto subgraph = tflite::CreateSubGraph(fbb, fbb.CreateVector(impl_->tensors), fbb.CreateVector(impl_->graph_inputs),
                                         fbb.CreateVector(impl_->op_outputs), fbb.CreateVector(ops),
                                         fbb.CreateString("main"));
  auto model = tflite::CreateModel(fbb, 3, fbb.CreateVector(opcodes), fbb.CreateVector(&subgraph, 1),
                                   fbb.CreateString("relite SingleOpModel"), fbb.CreateVector(impl_->buffers));
  tflite::FinishModelBuffer(fbb, model);
  bytes_.assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());

  RELITE_ASSIGN_OR_RETURN(model_, Model::FromBuffer(bytes_.data(), bytes_.size(), "single_op_model"));
  if (resolver == nullptr) {
    resolver_ = std::make_unique<BuiltinOpResolver>();
    resolver = resolver_.get();
  }
  RELITE_ASSIGN_OR_RETURN(interpreter_, InterpreterBuilder(*model_, *resolver)
                                            .SetNumThreads(num_threads)
                                            .SetFlushDenormals(flush_denormals_)
                                            .Build());
  return interpreter_->AllocateTensors();
}

Status SingleOpModel::Invoke() { return interpreter_->Invoke(); }

}  // namespace relite::testing
