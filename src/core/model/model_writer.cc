// ModelWriter: the graph is collected in plain structs and serialised in
// Finish() after every index, size and quantization table has been checked.
#include "relite/model_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "fmt/format.h"
#include "src/core/base/fp16.h"
#include "tflite_generated.h"

namespace relite {

namespace {

using namespace relite::writer;  // NOLINT: the option structs

std::string OpName(int32_t code) {
  if (code >= 0 && code <= static_cast<int32_t>(tflite::BuiltinOperator::MAX)) {
    const char* n = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(code));
    if (n != nullptr && n[0] != '\0') return n;
  }
  return fmt::format("builtin {}", code);
}

tflite::Padding ToFb(writer::Padding p) { return static_cast<tflite::Padding>(p); }
tflite::ActivationFunctionType ToFb(writer::Activation a) { return static_cast<tflite::ActivationFunctionType>(a); }

// Which options struct each builtin code takes (variant index), -1 = none
// needed (monostate or RawOptions), -2 = any (no typed struct is required).
int ExpectedOptions(int32_t code) {
  switch (static_cast<BuiltinOp>(code)) {
    case BuiltinOp::kConv2D: return 1;
    case BuiltinOp::kDepthwiseConv2D: return 2;
    case BuiltinOp::kAveragePool2D:
    case BuiltinOp::kMaxPool2D: return 3;
    case BuiltinOp::kFullyConnected: return 4;
    case BuiltinOp::kSoftmax: return 5;
    case BuiltinOp::kConcatenation: return 6;
    case BuiltinOp::kAdd:
    case BuiltinOp::kSub:
    case BuiltinOp::kMul: return 7;
    case BuiltinOp::kResizeBilinear: return 9;
    case BuiltinOp::kMean:
    case BuiltinOp::kSum:
    case BuiltinOp::kReduceProd:
    case BuiltinOp::kReduceMax:
    case BuiltinOp::kReduceMin: return 10;
    case BuiltinOp::kSqueeze: return 11;
    case BuiltinOp::kArgMax: return 12;
    default: return -2;
  }
}

}  // namespace

ModelWriter::ModelWriter(std::string description) : description_(std::move(description)) {}

int ModelWriter::AddTensor(DataType type, const Shape& shape, const std::string& name, const Quantization& quant) {
  tensors_.push_back({type, shape, name, quant, false, {}});
  return static_cast<int>(tensors_.size() - 1);
}

int ModelWriter::AddConstant(DataType type, const Shape& shape, const std::string& name, std::vector<uint8_t> bytes,
                             const Quantization& quant) {
  tensors_.push_back({type, shape, name, quant, true, std::move(bytes)});
  return static_cast<int>(tensors_.size() - 1);
}

int ModelWriter::AddFloat16Constant(const Shape& shape, const std::string& name, const std::vector<float>& values) {
  std::vector<uint16_t> half(values.size());
  for (size_t i = 0; i < values.size(); ++i) half[i] = FloatToHalf(values[i]);
  return AddConstantOf<uint16_t>(shape, name, half);
}

int ModelWriter::AddOp(BuiltinOp code, const std::vector<int>& inputs, const std::vector<int>& outputs,
                       writer::BuiltinOptions options, int version) {
  ops_.push_back({static_cast<int32_t>(code), "", version, inputs, outputs, std::move(options), {}});
  return static_cast<int>(ops_.size() - 1);
}

int ModelWriter::AddCustomOp(const std::string& name, const std::vector<int>& inputs, const std::vector<int>& outputs,
                             std::vector<uint8_t> custom_options, int version) {
  ops_.push_back({static_cast<int32_t>(BuiltinOp::kCustom), name, version, inputs, outputs, {},
                  std::move(custom_options)});
  return static_cast<int>(ops_.size() - 1);
}

// The version TFLite's converter gives an op with these tensor types and
// options (the format's op-versioning rules, for the ops relite writes).
int ModelWriter::AutoVersion(const OpSpec& op) const {
  auto type_of = [&](const std::vector<int>& v, size_t i) {
    return i < v.size() && v[i] >= 0 ? tensors_[static_cast<size_t>(v[i])].type : DataType::kString;
  };
  const DataType in = type_of(op.inputs, 0);
  const DataType w = type_of(op.inputs, 1);
  const DataType out = type_of(op.outputs, 0);
  const bool int8 = in == DataType::kInt8;
  const bool int16 = in == DataType::kInt16;
  switch (static_cast<BuiltinOp>(op.code)) {
    case BuiltinOp::kConv2D: {
      if (int16) return 4;
      if (int8) return 3;
      if (in == DataType::kFloat32 && w == DataType::kInt8) {
        return tensors_[static_cast<size_t>(op.inputs[1])].quant.IsPerChannel() ? 5 : 2;  // hybrid
      }
      return 1;
    }
    case BuiltinOp::kDepthwiseConv2D: {
      if (int16) return 5;
      if (in == DataType::kFloat32 && w == DataType::kInt8) return 6;  // hybrid
      if (int8) return 3;
      const auto* o = std::get_if<DepthwiseConv2DOptions>(&op.options);
      if (o != nullptr && (o->dilation_w != 1 || o->dilation_h != 1)) return 2;
      return 1;
    }
    case BuiltinOp::kFullyConnected: {
      if (op.inputs.size() == 2) return 6;
      const auto* o = std::get_if<FullyConnectedOptions>(&op.options);
      if (o != nullptr && o->keep_num_dims) return 5;
      if (int16) return 7;
      if (int8) return 4;
      if (in == DataType::kFloat32 && w == DataType::kInt8) return 3;  // hybrid
      return 1;
    }
    case BuiltinOp::kResizeBilinear: {
      const auto* o = std::get_if<ResizeBilinearOptions>(&op.options);
      if (int16) return 4;
      if (o != nullptr && o->half_pixel_centers) return 3;
      if (int8) return 2;
      return 1;
    }
    case BuiltinOp::kDequantize: {
      if (in == DataType::kInt16 || in == DataType::kFloat16) return 3;
      if (int8) return tensors_[static_cast<size_t>(op.inputs[0])].quant.IsPerChannel() ? 5 : 2;
      return 1;
    }
    case BuiltinOp::kQuantize:
      return out == DataType::kInt16 ? 2 : 1;
    case BuiltinOp::kAveragePool2D:
    case BuiltinOp::kMaxPool2D:
    case BuiltinOp::kSoftmax:
    case BuiltinOp::kConcatenation:
    case BuiltinOp::kAdd:
    case BuiltinOp::kSub:
    case BuiltinOp::kMul:
    case BuiltinOp::kMean:
    case BuiltinOp::kLogistic:
    case BuiltinOp::kTanh:
    case BuiltinOp::kRelu:
    case BuiltinOp::kRelu6:
      if (int16) return 3;
      return int8 ? 2 : 1;
    case BuiltinOp::kPad:
    case BuiltinOp::kArgMax:
      return int8 ? 2 : 1;
    default:
      return 1;
  }
}

Status ModelWriter::Check() const {
  const int n = static_cast<int>(tensors_.size());
  for (const SignatureSpec& sig : signatures_) {
    for (const auto* list : {&sig.inputs, &sig.outputs}) {
      for (const auto& [name, index] : *list) {
        if (index < 0 || index >= n) {
          return InvalidArgumentError(fmt::format("signature '{}': '{}' refers to tensor {}, out of range", sig.key, name, index));
        }
      }
    }
  }
  for (const auto& [index, signature] : shape_signatures_) {
    if (index < 0 || index >= n || signature.size() != tensors_[static_cast<size_t>(index)].shape.size()) {
      return InvalidArgumentError(fmt::format("shape signature of tensor {}: no such tensor, or a different rank", index));
    }
  }
  for (int i = 0; i < n; ++i) {
    const TensorSpec& t = tensors_[static_cast<size_t>(i)];
    const std::string what = fmt::format("tensor {} ('{}')", i, t.name);
    for (int32_t d : t.shape) {
      if (d < 0) return InvalidArgumentError(fmt::format("{}: negative dimension in {}", what, ShapeToString(t.shape)));
    }
    if (t.constant) {
      const size_t elem = DataTypeSize(t.type);
      if (elem == 0) return InvalidArgumentError(fmt::format("{}: constants of type {} are not supported", what,
                                                             DataTypeName(t.type)));
      const size_t want = static_cast<size_t>(NumElements(t.shape)) * elem;
      if (t.data.size() != want) {
        return InvalidArgumentError(fmt::format("{}: {} bytes of data for {} {} (expected {})", what, t.data.size(),
                                                DataTypeName(t.type), ShapeToString(t.shape), want));
      }
    }
    const Quantization& q = t.quant;
    if (!q.scale.empty() || !q.zero_point.empty()) {
      if (q.scale.size() != q.zero_point.size()) {
        return InvalidArgumentError(fmt::format("{}: {} scales but {} zero points", what, q.scale.size(),
                                                q.zero_point.size()));
      }
      if (q.scale.size() > 1) {
        if (q.quantized_dimension < 0 || q.quantized_dimension >= static_cast<int32_t>(t.shape.size()) ||
            t.shape[static_cast<size_t>(q.quantized_dimension)] != static_cast<int32_t>(q.scale.size())) {
          return InvalidArgumentError(fmt::format("{}: {} per-channel scales do not match dimension {} of {}", what,
                                                  q.scale.size(), q.quantized_dimension, ShapeToString(t.shape)));
        }
      }
      for (float s : q.scale) {
        if (!(s > 0.0f)) return InvalidArgumentError(fmt::format("{}: quantization scale {} is not positive", what, s));
      }
    }
  }
  auto check_list = [&](const std::vector<int>& v, const std::string& what, bool allow_optional) -> Status {
    for (int t : v) {
      if (allow_optional && t == -1) continue;
      if (t < 0 || t >= n) return InvalidArgumentError(fmt::format("{}: tensor index {} out of range (0..{})", what, t, n - 1));
    }
    return Status::Ok();
  };
  RELITE_RETURN_IF_ERROR(check_list(inputs_, "graph inputs", false));
  RELITE_RETURN_IF_ERROR(check_list(outputs_, "graph outputs", false));
  if (outputs_.empty()) return InvalidArgumentError("the graph has no outputs (SetOutputs)");
  for (int t : inputs_) {
    if (tensors_[static_cast<size_t>(t)].constant) {
      return InvalidArgumentError(fmt::format("graph input tensor {} ('{}') is a constant", t,
                                              tensors_[static_cast<size_t>(t)].name));
    }
  }
  std::vector<int> producer(static_cast<size_t>(n), -1);
  for (size_t i = 0; i < ops_.size(); ++i) {
    const OpSpec& op = ops_[i];
    const std::string what =
        fmt::format("operator {} ({})", i, op.code == static_cast<int32_t>(BuiltinOp::kCustom) ? op.custom_name
                                                                                                : OpName(op.code));
    RELITE_RETURN_IF_ERROR(check_list(op.inputs, what + " inputs", true));
    RELITE_RETURN_IF_ERROR(check_list(op.outputs, what + " outputs", false));
    if (op.outputs.empty()) return InvalidArgumentError(what + ": no outputs");
    for (int t : op.outputs) {
      if (tensors_[static_cast<size_t>(t)].constant) {
        return InvalidArgumentError(fmt::format("{}: output tensor {} is a constant", what, t));
      }
      if (producer[static_cast<size_t>(t)] >= 0) {
        return InvalidArgumentError(fmt::format("{}: tensor {} is already written by operator {}", what, t,
                                                producer[static_cast<size_t>(t)]));
      }
      producer[static_cast<size_t>(t)] = static_cast<int>(i);
    }
    if (op.code == static_cast<int32_t>(BuiltinOp::kCustom) && op.custom_name.empty()) {
      return InvalidArgumentError(what + ": custom op without a name");
    }
    if (op.version < 0) return InvalidArgumentError(fmt::format("{}: negative version {}", what, op.version));
    const int expected = ExpectedOptions(op.code);
    const int have = static_cast<int>(op.options.index());
    if (const auto* raw = std::get_if<RawOptions>(&op.options)) {
      if (!raw->build || raw->union_type == 0) {
        return InvalidArgumentError(what + ": RawOptions without a union type or build callback");
      }
    } else if (expected >= 0 && have != expected) {
      return InvalidArgumentError(fmt::format("{}: needs its typed options struct (got variant alternative {})", what, have));
    } else if (expected == -2 && have != 0 && static_cast<BuiltinOp>(op.code) != BuiltinOp::kReshape) {
      return InvalidArgumentError(what + ": these typed options do not belong to this operator");
    }
  }
  return Status::Ok();
}

StatusOr<std::vector<uint8_t>> ModelWriter::Finish() const {
  RELITE_RETURN_IF_ERROR(Check());
  flatbuffers::FlatBufferBuilder fbb(1024 * 1024);
  fbb.ForceDefaults(force_defaults_);

  // Buffers: 0 = empty sentinel, then one per constant tensor.
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers;
  buffers.push_back(tflite::CreateBuffer(fbb));
  std::vector<uint32_t> buffer_of(tensors_.size(), 0);
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const TensorSpec& t = tensors_[i];
    if (!t.constant) continue;
    fbb.ForceVectorAlignment(t.data.size(), 1, 16);
    auto data = fbb.CreateVector(t.data);
    buffer_of[i] = static_cast<uint32_t>(buffers.size());
    buffers.push_back(tflite::CreateBuffer(fbb, data));
  }

  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const TensorSpec& t = tensors_[i];
    flatbuffers::Offset<tflite::QuantizationParameters> quant = 0;
    if (t.quant.IsQuantized()) {
      quant = tflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(t.quant.scale),
                                                   fbb.CreateVector(t.quant.zero_point),
                                                   tflite::QuantizationDetails::NONE, 0, t.quant.quantized_dimension);
    }
    auto shape = fbb.CreateVector(t.shape);
    auto name = fbb.CreateString(t.name);
    flatbuffers::Offset<flatbuffers::Vector<int32_t>> signature = 0;
    if (auto it = shape_signatures_.find(static_cast<int>(i)); it != shape_signatures_.end()) {
      signature = fbb.CreateVector(it->second);
    }
    tensors.push_back(tflite::CreateTensor(fbb, shape, static_cast<tflite::TensorType>(t.type), buffer_of[i], name,
                                           quant, false, 0, signature));
  }

  // Operator codes: one per (code, custom name, version), in first-use order.
  struct CodeKey {
    int32_t code;
    std::string custom;
    int version;
  };
  std::vector<CodeKey> codes;
  std::vector<uint32_t> opcode_index;
  for (const OpSpec& op : ops_) {
    const int version = op.version > 0 ? op.version : AutoVersion(op);
    size_t k = 0;
    while (k < codes.size() &&
           !(codes[k].code == op.code && codes[k].custom == op.custom_name && codes[k].version == version)) {
      ++k;
    }
    if (k == codes.size()) codes.push_back({op.code, op.custom_name, version});
    opcode_index.push_back(static_cast<uint32_t>(k));
  }
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> code_tables;
  for (const CodeKey& c : codes) {
    auto custom = c.custom.empty() ? flatbuffers::Offset<flatbuffers::String>() : fbb.CreateString(c.custom);
    code_tables.push_back(tflite::CreateOperatorCode(fbb, static_cast<int8_t>(std::min(c.code, 127)), custom,
                                                     c.version, static_cast<tflite::BuiltinOperator>(c.code)));
  }

  std::vector<flatbuffers::Offset<tflite::Operator>> ops;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const OpSpec& op = ops_[i];
    tflite::BuiltinOptions type = tflite::BuiltinOptions::NONE;
    flatbuffers::Offset<void> options = 0;
    std::visit(
        [&](const auto& o) {
          using T = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<T, Conv2DOptions>) {
            type = tflite::BuiltinOptions::Conv2DOptions;
            options = tflite::CreateConv2DOptions(fbb, ToFb(o.padding), o.stride_w, o.stride_h, ToFb(o.activation),
                                                  o.dilation_w, o.dilation_h)
                          .Union();
          } else if constexpr (std::is_same_v<T, DepthwiseConv2DOptions>) {
            type = tflite::BuiltinOptions::DepthwiseConv2DOptions;
            options = tflite::CreateDepthwiseConv2DOptions(fbb, ToFb(o.padding), o.stride_w, o.stride_h,
                                                           o.depth_multiplier, ToFb(o.activation), o.dilation_w,
                                                           o.dilation_h)
                          .Union();
          } else if constexpr (std::is_same_v<T, Pool2DOptions>) {
            type = tflite::BuiltinOptions::Pool2DOptions;
            options = tflite::CreatePool2DOptions(fbb, ToFb(o.padding), o.stride_w, o.stride_h, o.filter_w,
                                                  o.filter_h, ToFb(o.activation))
                          .Union();
          } else if constexpr (std::is_same_v<T, FullyConnectedOptions>) {
            type = tflite::BuiltinOptions::FullyConnectedOptions;
            options = tflite::CreateFullyConnectedOptions(fbb, ToFb(o.activation),
                                                          tflite::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                                          o.keep_num_dims)
                          .Union();
          } else if constexpr (std::is_same_v<T, SoftmaxOptions>) {
            type = tflite::BuiltinOptions::SoftmaxOptions;
            options = tflite::CreateSoftmaxOptions(fbb, o.beta).Union();
          } else if constexpr (std::is_same_v<T, ConcatenationOptions>) {
            type = tflite::BuiltinOptions::ConcatenationOptions;
            options = tflite::CreateConcatenationOptions(fbb, o.axis, ToFb(o.activation)).Union();
          } else if constexpr (std::is_same_v<T, ArithmeticOptions>) {
            switch (static_cast<BuiltinOp>(op.code)) {
              case BuiltinOp::kSub:
                type = tflite::BuiltinOptions::SubOptions;
                options = tflite::CreateSubOptions(fbb, ToFb(o.activation)).Union();
                break;
              case BuiltinOp::kMul:
                type = tflite::BuiltinOptions::MulOptions;
                options = tflite::CreateMulOptions(fbb, ToFb(o.activation)).Union();
                break;
              default:
                type = tflite::BuiltinOptions::AddOptions;
                options = tflite::CreateAddOptions(fbb, ToFb(o.activation)).Union();
                break;
            }
          } else if constexpr (std::is_same_v<T, ReshapeOptions>) {
            type = tflite::BuiltinOptions::ReshapeOptions;
            options = tflite::CreateReshapeOptions(fbb, fbb.CreateVector(o.new_shape)).Union();
          } else if constexpr (std::is_same_v<T, ResizeBilinearOptions>) {
            type = tflite::BuiltinOptions::ResizeBilinearOptions;
            options = tflite::CreateResizeBilinearOptions(fbb, o.align_corners, o.half_pixel_centers).Union();
          } else if constexpr (std::is_same_v<T, ReducerOptions>) {
            type = tflite::BuiltinOptions::ReducerOptions;
            options = tflite::CreateReducerOptions(fbb, o.keep_dims).Union();
          } else if constexpr (std::is_same_v<T, SqueezeOptions>) {
            type = tflite::BuiltinOptions::SqueezeOptions;
            options = tflite::CreateSqueezeOptions(fbb, fbb.CreateVector(o.squeeze_dims)).Union();
          } else if constexpr (std::is_same_v<T, ArgMaxOptions>) {
            type = tflite::BuiltinOptions::ArgMaxOptions;
            options = tflite::CreateArgMaxOptions(fbb, static_cast<tflite::TensorType>(o.output_type)).Union();
          } else if constexpr (std::is_same_v<T, RawOptions>) {
            type = static_cast<tflite::BuiltinOptions>(o.union_type);
            options = o.build(fbb);
          } else {
            // No options given: the empty tables TFLite's converter writes.
            switch (static_cast<BuiltinOp>(op.code)) {
              case BuiltinOp::kPad:
                type = tflite::BuiltinOptions::PadOptions;
                options = tflite::CreatePadOptions(fbb).Union();
                break;
              case BuiltinOp::kDequantize:
                type = tflite::BuiltinOptions::DequantizeOptions;
                options = tflite::CreateDequantizeOptions(fbb).Union();
                break;
              case BuiltinOp::kQuantize:
                type = tflite::BuiltinOptions::QuantizeOptions;
                options = tflite::CreateQuantizeOptions(fbb).Union();
                break;
              case BuiltinOp::kHardSwish:
                type = tflite::BuiltinOptions::HardSwishOptions;
                options = tflite::CreateHardSwishOptions(fbb).Union();
                break;
              default:
                break;
            }
          }
        },
        op.options);
    auto inputs = fbb.CreateVector(op.inputs);
    auto outputs = fbb.CreateVector(op.outputs);
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> custom = 0;
    if (!op.custom_options.empty()) custom = fbb.CreateVector(op.custom_options);
    ops.push_back(tflite::CreateOperator(fbb, opcode_index[i], inputs, outputs, type, options, custom));
  }

  auto sg = tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(inputs_),
                                   fbb.CreateVector(outputs_), fbb.CreateVector(ops), fbb.CreateString(subgraph_name_));
  std::vector<flatbuffers::Offset<tflite::SignatureDef>> signature_defs;
  for (const SignatureSpec& sig : signatures_) {
    auto maps = [&](const std::vector<std::pair<std::string, int>>& list) {
      std::vector<flatbuffers::Offset<tflite::TensorMap>> out;
      for (const auto& [name, index] : list) {
        out.push_back(tflite::CreateTensorMap(fbb, fbb.CreateString(name), static_cast<uint32_t>(index)));
      }
      return fbb.CreateVector(out);
    };
    auto in = maps(sig.inputs);
    auto out = maps(sig.outputs);
    signature_defs.push_back(tflite::CreateSignatureDef(fbb, in, out, fbb.CreateString(sig.key), 0));
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<tflite::SignatureDef>>> signatures = 0;
  if (!signature_defs.empty()) signatures = fbb.CreateVector(signature_defs);
  auto model = tflite::CreateModel(fbb, 3, fbb.CreateVector(code_tables), fbb.CreateVector(&sg, 1),
                                   fbb.CreateString(description_), fbb.CreateVector(buffers), 0, 0, signatures);
  tflite::FinishModelBuffer(fbb, model);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

Status ModelWriter::WriteFile(const std::string& path) const {
  RELITE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, Finish());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return IoError(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  const int err = errno;
  if (std::fclose(f) != 0 || written != bytes.size()) {
    return IoError(fmt::format("{}: write failed: {}", path, std::strerror(err)));
  }
  return Status::Ok();
}

}  // namespace relite
