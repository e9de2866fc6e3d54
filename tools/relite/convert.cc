// relite convert --dequantize: a quantized model rewritten as a float model
// with the same (dequantized) weights.
//
//  - weights (uint8/int8, per-tensor or per-channel) become (q - zp) * scale;
//  - int32 biases of CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED become
//    bias * input_scale * weight_scale (per channel when the weights are);
//  - 8/16-bit activations become float32 (graph inputs and outputs too);
//  - QUANTIZE and DEQUANTIZE become identities: their consumers read the
//    producer's tensor directly, so the ops disappear;
//  - options are kept (fused activations included); op versions are those of
//    the float ops;
//  - --weights float16 stores the float constants as float16, each read
//    through a DEQUANTIZE to float32 placed just before its first consumer
//    (MediaPipe's "float16 quantized" pattern).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "relite/model_writer.h"
#include "src/core/base/fp16.h"
#include "tflite_generated.h"
#include "tools/relite/common.h"
#include "tools/relite/convert.h"

namespace relite::cli {
namespace {

using namespace relite::writer;  // NOLINT: option structs

constexpr int32_t kQuantize = 114, kDequantize = 6, kCustom = 32;

int32_t OpCodeOf(const tflite::OperatorCode* c) {
  return std::max(static_cast<int32_t>(c->builtin_code()), static_cast<int32_t>(c->deprecated_builtin_code()));
}

Quantization QuantOf(const tflite::Tensor* t) {
  Quantization q;
  const auto* qp = t->quantization();
  if (qp == nullptr || qp->scale() == nullptr || qp->scale()->size() == 0) return q;
  q.scale.assign(qp->scale()->begin(), qp->scale()->end());
  if (qp->zero_point() != nullptr) q.zero_point.assign(qp->zero_point()->begin(), qp->zero_point()->end());
  q.zero_point.resize(q.scale.size(), 0);
  q.quantized_dimension = qp->quantized_dimension();
  return q;
}

Shape ShapeOf(const tflite::Tensor* t) {
  Shape s;
  if (t->shape() != nullptr) s.assign(t->shape()->begin(), t->shape()->end());
  return s;
}

// Element i's channel along `dim` for per-channel parameters (0 per-tensor).
std::vector<size_t> ChannelIndex(const Shape& shape, const Quantization& q, size_t n) {
  std::vector<size_t> ch(n, 0);
  if (!q.IsPerChannel()) return ch;
  const size_t dim = static_cast<size_t>(q.quantized_dimension);
  size_t inner = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
  const size_t channels = static_cast<size_t>(shape[dim]);
  for (size_t i = 0; i < n; ++i) ch[i] = (i / inner) % channels;
  return ch;
}

StatusOr<BuiltinOptions> ConvertOptionsOf(const tflite::Operator* op, const std::string& what) {
  using BO = tflite::BuiltinOptions;
  auto act = [](tflite::ActivationFunctionType a) { return static_cast<Activation>(a); };
  auto pad = [](tflite::Padding p) { return static_cast<Padding>(p); };
  const BO type = op->builtin_options_type();
  switch (type) {
    case BO::NONE: return BuiltinOptions{};
    case BO::Conv2DOptions: {
      const auto* o = op->builtin_options_as_Conv2DOptions();
      return BuiltinOptions{Conv2DOptions{pad(o->padding()), o->stride_w(), o->stride_h(),
                                          act(o->fused_activation_function()), o->dilation_w_factor(),
                                          o->dilation_h_factor()}};
    }
    case BO::DepthwiseConv2DOptions: {
      const auto* o = op->builtin_options_as_DepthwiseConv2DOptions();
      return BuiltinOptions{DepthwiseConv2DOptions{pad(o->padding()), o->stride_w(), o->stride_h(),
                                                   o->depth_multiplier(), act(o->fused_activation_function()),
                                                   o->dilation_w_factor(), o->dilation_h_factor()}};
    }
    case BO::Pool2DOptions: {
      const auto* o = op->builtin_options_as_Pool2DOptions();
      return BuiltinOptions{Pool2DOptions{pad(o->padding()), o->stride_w(), o->stride_h(), o->filter_width(),
                                          o->filter_height(), act(o->fused_activation_function())}};
    }
    case BO::FullyConnectedOptions: {
      const auto* o = op->builtin_options_as_FullyConnectedOptions();
      if (o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat::DEFAULT) {
        return UnimplementedError(what + ": shuffled FULLY_CONNECTED weights cannot be dequantized");
      }
      return BuiltinOptions{FullyConnectedOptions{act(o->fused_activation_function()), o->keep_num_dims()}};
    }
    case BO::SoftmaxOptions:
      return BuiltinOptions{SoftmaxOptions{op->builtin_options_as_SoftmaxOptions()->beta()}};
    case BO::ConcatenationOptions: {
      const auto* o = op->builtin_options_as_ConcatenationOptions();
      return BuiltinOptions{ConcatenationOptions{o->axis(), act(o->fused_activation_function())}};
    }
    case BO::AddOptions:
      return BuiltinOptions{ArithmeticOptions{act(op->builtin_options_as_AddOptions()->fused_activation_function())}};
    case BO::SubOptions:
      return BuiltinOptions{ArithmeticOptions{act(op->builtin_options_as_SubOptions()->fused_activation_function())}};
    case BO::MulOptions:
      return BuiltinOptions{ArithmeticOptions{act(op->builtin_options_as_MulOptions()->fused_activation_function())}};
    case BO::ReshapeOptions: {
      const auto* o = op->builtin_options_as_ReshapeOptions();
      ReshapeOptions r;
      if (o->new_shape() != nullptr) r.new_shape.assign(o->new_shape()->begin(), o->new_shape()->end());
      return BuiltinOptions{r};
    }
    case BO::ResizeBilinearOptions: {
      const auto* o = op->builtin_options_as_ResizeBilinearOptions();
      return BuiltinOptions{ResizeBilinearOptions{o->align_corners(), o->half_pixel_centers()}};
    }
    case BO::ReducerOptions:
      return BuiltinOptions{ReducerOptions{op->builtin_options_as_ReducerOptions()->keep_dims()}};
    case BO::SqueezeOptions: {
      const auto* o = op->builtin_options_as_SqueezeOptions();
      SqueezeOptions s;
      if (o->squeeze_dims() != nullptr) s.squeeze_dims.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
      return BuiltinOptions{s};
    }
    case BO::ArgMaxOptions:
      return BuiltinOptions{
          ArgMaxOptions{static_cast<DataType>(op->builtin_options_as_ArgMaxOptions()->output_type())}};
    // Tables without fields: written back empty under the same tag.
    case BO::PadOptions:
    case BO::PadV2Options:
    case BO::DequantizeOptions:
    case BO::QuantizeOptions:
    case BO::HardSwishOptions:
    case BO::MaximumMinimumOptions:
    case BO::TransposeOptions:
    case BO::ExpOptions:
    case BO::LogSoftmaxOptions:
    case BO::SquaredDifferenceOptions:
    case BO::AbsOptions:
    case BO::NegOptions:
    case BO::TileOptions:
    case BO::ExpandDimsOptions:
    case BO::SliceOptions:
    case BO::SpaceToBatchNDOptions:
    case BO::BatchToSpaceNDOptions:
      return BuiltinOptions{RawOptions{static_cast<uint8_t>(type), [](flatbuffers::FlatBufferBuilder& fbb) {
                                         const auto start = fbb.StartTable();
                                         return flatbuffers::Offset<void>(fbb.EndTable(start));
                                       }}};
    default:
      break;
  }
  return UnimplementedError(fmt::format("{}: options table {} is not supported by convert", what,
                                        tflite::EnumNameBuiltinOptions(type)));
}

class Dequantizer {
 public:
  Dequantizer(const Model& model, bool float16) : model_(model), float16_(float16) {}

  Status Run(ModelWriter* w) {
    const tflite::Model* fb = model_.fb();
    if (fb->subgraphs() == nullptr || fb->subgraphs()->size() != 1) {
      return UnimplementedError(fmt::format("{}: convert handles single-subgraph models (this one has {})",
                                            model_.name(), fb->subgraphs() ? fb->subgraphs()->size() : 0));
    }
    sg_ = fb->subgraphs()->Get(0);
    const size_t n = sg_->tensors()->size();
    alias_.resize(n);
    std::iota(alias_.begin(), alias_.end(), 0);
    new_index_.assign(n, -1);
    bias_scale_.assign(n, std::nullopt);
    const auto* ops = sg_->operators();
    const size_t num_ops = ops ? ops->size() : 0;

    // Pass 1: QUANTIZE / DEQUANTIZE become identities; biases learn their scale.
    for (size_t i = 0; i < num_ops; ++i) {
      const tflite::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(i));
      const int32_t code = OpCodeOf(fb->operator_codes()->Get(op->opcode_index()));
      if ((code == kQuantize || code == kDequantize) && op->inputs()->size() >= 1 && op->outputs()->size() == 1) {
        alias_[static_cast<size_t>(op->outputs()->Get(0))] = Find(op->inputs()->Get(0));
        continue;
      }
      const bool has_bias = code == static_cast<int32_t>(BuiltinOp::kConv2D) ||
                            code == static_cast<int32_t>(BuiltinOp::kDepthwiseConv2D) ||
                            code == static_cast<int32_t>(BuiltinOp::kFullyConnected);
      if (has_bias && op->inputs()->size() >= 3 && op->inputs()->Get(2) >= 0) {
        const Quantization in_q = QuantOf(Tensor(op->inputs()->Get(0)));
        const Quantization w_q = QuantOf(Tensor(op->inputs()->Get(1)));
        if (in_q.IsQuantized() && w_q.IsQuantized()) {
          std::vector<float> s(w_q.scale.size());
          for (size_t c = 0; c < s.size(); ++c) s[c] = in_q.scale[0] * w_q.scale[c];
          bias_scale_[static_cast<size_t>(op->inputs()->Get(2))] = std::move(s);
        }
      }
    }

    // Pass 2: the remaining ops, in order.
    for (size_t i = 0; i < num_ops; ++i) {
      const tflite::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(i));
      const tflite::OperatorCode* oc = fb->operator_codes()->Get(op->opcode_index());
      const int32_t code = OpCodeOf(oc);
      if ((code == kQuantize || code == kDequantize) && op->outputs()->size() == 1) continue;
      const std::string what = fmt::format("operator {} ({})", i,
                                           code == kCustom && oc->custom_code() ? oc->custom_code()->str()
                                                                                 : tflite::EnumNameBuiltinOperator(
                                                                                       static_cast<tflite::BuiltinOperator>(code)));
      std::vector<int> inputs, outputs;
      for (int32_t t : *op->inputs()) {
        if (t < 0) {
          inputs.push_back(-1);
          continue;
        }
        RELITE_ASSIGN_OR_RETURN(int nt, Map(w, t));
        inputs.push_back(nt);
      }
      for (int32_t t : *op->outputs()) {
        RELITE_ASSIGN_OR_RETURN(int nt, Map(w, t));
        outputs.push_back(nt);
      }
      if (code == kCustom) {
        std::vector<uint8_t> custom;
        if (op->custom_options() != nullptr) custom.assign(op->custom_options()->begin(), op->custom_options()->end());
        w->AddCustomOp(oc->custom_code() ? oc->custom_code()->str() : "", inputs, outputs, std::move(custom),
                       oc->version());
        continue;
      }
      RELITE_ASSIGN_OR_RETURN(BuiltinOptions options, ConvertOptionsOf(op, what));
      w->AddOp(static_cast<BuiltinOp>(code), inputs, outputs, std::move(options));
    }

    std::vector<int> gin, gout;
    for (int32_t t : *sg_->inputs()) {
      RELITE_ASSIGN_OR_RETURN(int nt, Map(w, t));
      gin.push_back(nt);
    }
    for (int32_t t : *sg_->outputs()) {
      RELITE_ASSIGN_OR_RETURN(int nt, Map(w, t));
      gout.push_back(nt);
    }
    w->SetInputs(gin);
    w->SetOutputs(gout);
    if (sg_->name() != nullptr && sg_->name()->size() > 0) w->SetSubgraphName(sg_->name()->str());
    return Status::Ok();
  }

  // How many constants were stored as float16 (each with its DEQUANTIZE).
  int float16_constants() const { return float16_count_; }

 private:
  const tflite::Tensor* Tensor(int32_t t) const { return sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t)); }
  int32_t Find(int32_t t) const {
    while (alias_[static_cast<size_t>(t)] != t) t = alias_[static_cast<size_t>(t)];
    return t;
  }

  // The new tensor for old tensor t (after aliasing), created on first use.
  StatusOr<int> Map(ModelWriter* w, int32_t old) {
    const int32_t t = Find(old);
    int& slot = new_index_[static_cast<size_t>(t)];
    if (slot >= 0) return slot;
    const tflite::Tensor* src = Tensor(t);
    const std::string name = src->name() ? src->name()->str() : fmt::format("t{}", t);
    const Shape shape = ShapeOf(src);
    const DataType type = static_cast<DataType>(src->type());
    const Quantization q = QuantOf(src);
    const auto [data, size] = model_.buffer(src->buffer());
    const bool constant = data != nullptr && size > 0;
    const size_t n = static_cast<size_t>(NumElements(shape));
    if (!constant) {
      const bool to_float = type == DataType::kUInt8 || type == DataType::kInt8 || type == DataType::kInt16 ||
                            type == DataType::kFloat16;
      slot = to_float ? w->AddTensor(DataType::kFloat32, shape, name) : w->AddTensor(type, shape, name);
      return slot;
    }
    if (size != n * DataTypeSize(type)) {
      return InvalidArgumentError(fmt::format("tensor {} ('{}'): {} bytes of data for {} {}", t, name, size,
                                              DataTypeName(type), ShapeToString(shape)));
    }
    std::optional<std::vector<float>> values;
    if ((type == DataType::kUInt8 || type == DataType::kInt8 || type == DataType::kInt16) && q.IsQuantized()) {
      const auto ch = ChannelIndex(shape, q, n);
      values.emplace(n);
      for (size_t i = 0; i < n; ++i) {
        int32_t v = 0;
        if (type == DataType::kUInt8) v = data[i];
        else if (type == DataType::kInt8) v = static_cast<int8_t>(data[i]);
        else {
          int16_t x;
          std::memcpy(&x, data + 2 * i, 2);
          v = x;
        }
        (*values)[i] = static_cast<float>(v - q.zero_point[ch[i]]) * q.scale[ch[i]];
      }
    } else if (type == DataType::kInt32 && (bias_scale_[static_cast<size_t>(t)] || q.IsQuantized())) {
      Quantization bq = q;
      if (bias_scale_[static_cast<size_t>(t)]) {
        bq.scale = *bias_scale_[static_cast<size_t>(t)];
        bq.zero_point.assign(bq.scale.size(), 0);
        bq.quantized_dimension = 0;
      }
      if (bq.scale.size() != 1 && (shape.size() != 1 || static_cast<size_t>(shape[0]) != bq.scale.size())) {
        return InvalidArgumentError(fmt::format("tensor {} ('{}'): bias {} does not match {} weight scales", t, name,
                                                ShapeToString(shape), bq.scale.size()));
      }
      values.emplace(n);
      for (size_t i = 0; i < n; ++i) {
        int32_t v;
        std::memcpy(&v, data + 4 * i, 4);
        const float s = bq.scale.size() == 1 ? bq.scale[0] : bq.scale[i];
        (*values)[i] = static_cast<float>(v) * s;  // bias zero point is 0 by the format's rules
      }
    } else if (type == DataType::kFloat16 || type == DataType::kFloat32) {
      values.emplace(n);
      for (size_t i = 0; i < n; ++i) {
        if (type == DataType::kFloat16) {
          uint16_t h;
          std::memcpy(&h, data + 2 * i, 2);
          (*values)[i] = HalfToFloat(h);
        } else {
          std::memcpy(&(*values)[i], data + 4 * i, 4);
        }
      }
    }
    if (!values) {  // int32 shapes, int64 axes, ...: copied unchanged
      slot = w->AddConstant(type, shape, name, std::vector<uint8_t>(data, data + size));
      return slot;
    }
    if (float16_) {
      const int half = w->AddFloat16Constant(shape, name + "_fp16", *values);
      slot = w->AddTensor(DataType::kFloat32, shape, name);
      w->AddOp(BuiltinOp::kDequantize, {half}, {slot});
      ++float16_count_;
      return slot;
    }
    slot = w->AddConstantOf<float>(shape, name, *values);
    return slot;
  }

  const Model& model_;
  bool float16_;
  const tflite::SubGraph* sg_ = nullptr;
  std::vector<int32_t> alias_;
  std::vector<int> new_index_;
  std::vector<std::optional<std::vector<float>>> bias_scale_;
  int float16_count_ = 0;
};

}  // namespace

int ConvertCommand(const ConvertOptions& options) {
  if (!options.dequantize) return ReportError("convert: nothing to do (the only conversion is --dequantize)");
  if (options.weights != "float32" && options.weights != "float16") {
    return ReportError(fmt::format("convert: --weights must be float32 or float16, not '{}'", options.weights));
  }
  auto model = Model::FromFile(options.model);
  if (!model.ok()) return ReportError(model.status());
  {
    // A model with nothing quantized would come out as a copy of itself.
    int quantized = 0, half = 0;
    const tflite::Model* fb = (*model)->fb();
    for (const tflite::SubGraph* sg : *fb->subgraphs()) {
      if (sg->tensors() == nullptr) continue;
      for (const tflite::Tensor* t : *sg->tensors()) {
        const bool q = t->quantization() && t->quantization()->scale() && t->quantization()->scale()->size() > 0;
        if (q && t->type() != tflite::TensorType::FLOAT32) ++quantized;
        if (t->type() == tflite::TensorType::FLOAT16) ++half;
      }
    }
    if (quantized == 0 && (half == 0 || options.weights == "float16")) {
      return ReportError(fmt::format(
          "convert: {} has no quantized tensors{}: it is already a float model, there is nothing to dequantize",
          options.model, half > 0 ? " (its weights are already float16)" : ""));
    }
  }
  ModelWriter w(fmt::format("relite convert --dequantize --weights {}", options.weights));
  Dequantizer d(**model, options.weights == "float16");
  if (Status s = d.Run(&w); !s.ok()) return ReportError(s.WithContext(options.model));
  if (Status s = w.WriteFile(options.out); !s.ok()) return ReportError(s);
  fmt::print("wrote {} (float, {} weights)\n", options.out, options.weights);
  return 0;
}

}  // namespace relite::cli
