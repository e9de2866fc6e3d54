#include "src/delegates/gpu/ops/op_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace relite::gpu {

namespace {

// Quantization parameters of an 8-bit activation the GPU can hold exactly
// (weights are dequantized on the host, in float, and need none of this): the verifier already
// refuses zero, negative and non-finite scales and zero points outside the
// type's range; on top of that a GPU flushes subnormal floats to zero (a
// subnormal scale would divide by zero in the fake quant), and float16
// storage must hold the tensor's whole real range and resolve one step.
Status CheckQuantParams(const Tensor& x, const std::string& what, Precision precision) {
  const int64_t lo = x.type == DataType::kUInt8 ? 0 : -128, hi = x.type == DataType::kUInt8 ? 255 : 127;
  for (size_t c = 0; c < x.quant.scale.size(); ++c) {
    const float scale = x.quant.scale[c];
    const int64_t zp = c < x.quant.zero_point.size() ? x.quant.zero_point[c] : 0;
    if (!(scale >= std::numeric_limits<float>::min()) || !std::isfinite(scale)) {
      return NotOnGpu(fmt::format("{} has quantization scale {:.6g}, which a GPU cannot hold (subnormal, zero or "
                                  "not finite)", what, scale));
    }
    if (zp < lo || zp > hi) {
      return NotOnGpu(fmt::format("{} has zero point {}, outside the {} range", what, zp, DataTypeName(x.type)));
    }
    if (precision == Precision::kFp16) {
      const double largest = static_cast<double>(scale) * static_cast<double>(std::max(hi - zp, zp - lo));
      if (largest > 65504.0) {
        return NotOnGpu(fmt::format("{} reaches {:.6g} (scale {:.6g}), beyond float16's range; use fp32 precision",
                                    what, largest, scale));
      }
      if (scale < 0x1p-22f) {
        return NotOnGpu(fmt::format("{} has quantization scale {:.6g}, finer than float16 resolves; use fp32 precision",
                                    what, scale));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<GpuShape> ToGpuShape(const Shape& shape) {
  for (int32_t d : shape) {
    if (d < 1) return NotOnGpu(fmt::format("shape {} has an empty or unknown dimension", ShapeToString(shape)));
    // Bounded before anything multiplies: slices() rounds c up by 3.
    if (d > (1 << 30)) return NotOnGpu(fmt::format("tensor {} is too large", ShapeToString(shape)));
  }
  GpuShape s;
  switch (shape.size()) {
    case 0:
      break;
    case 1:
      s.c = shape[0];
      break;
    case 2:
      s.b = shape[0];
      s.c = shape[1];
      break;
    case 3:
      s.b = shape[0];
      s.w = shape[1];
      s.c = shape[2];
      break;
    case 4:
      s.b = shape[0];
      s.h = shape[1];
      s.w = shape[2];
      s.c = shape[3];
      break;
    default:
      return NotOnGpu(fmt::format("rank {} tensors are not supported (at most 4)", shape.size()));
  }
  if (s.elements4() * 4 > (int64_t{1} << 31)) return NotOnGpu(fmt::format("tensor {} is too large", ShapeToString(shape)));
  return s;
}

int GpuAxis(int rank, int axis) {
  switch (rank) {
    case 1:
      return 3;
    case 2:
      return axis == 0 ? 0 : 3;
    case 3:
      return axis == 0 ? 0 : (axis == 1 ? 2 : 3);
    default:
      return axis;
  }
}

std::string GpuShapeToString(const GpuShape& s) { return fmt::format("[{},{},{},{}]", s.b, s.h, s.w, s.c); }

StatusOr<int> OpBuilder::Input(int i) const {
  if (!has_input(i)) return InvalidArgumentError(fmt::format("{}: input {} is missing", node_.Describe(), i));
  return node_.inputs[static_cast<size_t>(i)];
}

StatusOr<int> OpBuilder::Output(int i) const {
  if (i < 0 || i >= static_cast<int>(node_.outputs.size()) || node_.outputs[static_cast<size_t>(i)] < 0) {
    return InvalidArgumentError(fmt::format("{}: output {} is missing", node_.Describe(), i));
  }
  return node_.outputs[static_cast<size_t>(i)];
}

StatusOr<GpuShape> OpBuilder::Shape(int t) const {
  auto s = ToGpuShape(tensor(t).shape);
  if (!s.ok()) return NotOnGpu(fmt::format("tensor {} ('{}'): {}", t, tensor(t).name, s.status().message()));
  return s;
}

Status OpBuilder::RequireSameGrid(int in, int out, const std::string& what_cpu_does) const {
  if (SameValues(in, out)) return Status::Ok();
  const Tensor& ti = tensor(in);
  const Tensor& to = tensor(out);
  auto describe = [](const Tensor& t) {
    if (!t.quant.IsQuantized()) return DataTypeName(t.type);
    return fmt::format("{} scale {:.6g} zero point {}", DataTypeName(t.type), t.quant.scale[0],
                       t.quant.zero_point.empty() ? 0 : t.quant.zero_point[0]);
  };
  return NotOnGpu(fmt::format("the output ({}) differs from the input ({}) in type or quantization; {}", describe(to),
                              describe(ti), what_cpu_does));
}

bool OpBuilder::SameValues(int a, int b) const {
  const Tensor& ta = tensor(a);
  const Tensor& tb = tensor(b);
  return ta.type == tb.type && ta.quant.scale == tb.quant.scale && ta.quant.zero_point == tb.quant.zero_point;
}

bool OpBuilder::IsQuantized(int t) const {
  const Tensor& x = tensor(t);
  return (x.type == DataType::kUInt8 || x.type == DataType::kInt8) && x.quant.IsQuantized();
}

Status OpBuilder::RequireFloat32(int t, const std::string& what) const {
  const Tensor& x = tensor(t);
  if (x.type == DataType::kFloat32 && !x.quant.IsQuantized()) return Status::Ok();
  return NotOnGpu(fmt::format("{} is {}{}; this op runs on the GPU in float32 only", what, DataTypeName(x.type),
                              x.quant.IsQuantized() ? " quantized" : ""));
}

Status OpBuilder::RequireFloat(int t, const std::string& what) const {
  const Tensor& x = tensor(t);
  if (x.type == DataType::kFloat32 && !x.quant.IsQuantized()) return Status::Ok();
  if (x.type == DataType::kUInt8 || x.type == DataType::kInt8) {
    if (!x.quant.IsQuantized()) return NotOnGpu(fmt::format("{} is {} without quantization parameters", what, DataTypeName(x.type)));
    if (!quantized_models_) {
      return NotOnGpu(fmt::format("{} is {} quantized and quantized models on the GPU are off "
                                  "(kGpuExperimentalQuantizedModels cleared)",
                                  what, DataTypeName(x.type)));
    }
    if (x.quant.IsPerChannel()) return NotOnGpu(fmt::format("{} has per-channel quantization (only weights may)", what));
    return CheckQuantParams(x, what, precision_);
  }
  if (x.type == DataType::kInt16 && x.quant.IsQuantized()) {
    return NotOnGpu(fmt::format("{} is int16 quantized (16x8 models stay on the CPU)", what));
  }
  return NotOnGpu(fmt::format("{} is {}; the GPU delegate computes in float32/float16", what, DataTypeName(x.type)));
}

StatusOr<std::vector<int64_t>> OpBuilder::ConstantInts(int t, const std::string& what) const {
  const Tensor& x = tensor(t);
  if (!IsConstant(t) || x.data == nullptr) {  // folded outputs have no data before allocation
    return NotOnGpu(fmt::format("{} must be a constant of the model", what));
  }
  // The type first: a string tensor (no fixed element size) of a declared
  // 2^31 elements passed the byte check below and had a 16 GiB vector made
  // for it (fuzz/regressions/gpu_string_axes_huge_shape.tflite).
  if (x.type != DataType::kInt32 && x.type != DataType::kInt64) {
    return NotOnGpu(fmt::format("{} must be int32 or int64, got {}", what, DataTypeName(x.type)));
  }
  const int64_t n = x.num_elements();
  if (x.sparsity != nullptr || x.bytes < static_cast<size_t>(n) * DataTypeSize(x.type)) {
    return NotOnGpu(fmt::format("{} holds {} bytes, fewer than its shape {} needs", what, x.bytes, ShapeToString(x.shape)));
  }
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)] = x.type == DataType::kInt32 ? x.data_as<int32_t>()[i] : x.data_as<int64_t>()[i];
  }
  return out;
}

Status OpBuilder::RequireConstantWeights(int in, int out, int weights, const std::string& weights_name, int bias,
                                         int channel_axis) const {
  RELITE_RETURN_IF_ERROR(RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(RequireFloat(out, "the output"));
  const Tensor& w = tensor(weights);
  if (!IsConstant(weights)) return NotOnGpu("the " + weights_name + " must be constant");
  if (w.sparsity != nullptr) {
    return NotOnGpu(fmt::format("sparse {} are not supported", weights_name == "weights" ? weights_name : weights_name + "s"));
  }
  if (w.type == DataType::kUInt8 || w.type == DataType::kInt8) {
    // Dequantized once, when the partition is built.
    if (!w.quant.IsQuantized()) return NotOnGpu("the " + weights_name + " is " + DataTypeName(w.type) + " without quantization");
    if (!quantized_models_) {
      return NotOnGpu("the " + weights_name + " is " + DataTypeName(w.type) +
                      " quantized and quantized models on the GPU are off (kGpuExperimentalQuantizedModels cleared)");
    }
    if (w.quant.IsPerChannel() && w.quant.quantized_dimension != channel_axis) {
      return NotOnGpu(fmt::format("the {} is quantized per channel along dimension {}, not {} (its output channels)",
                                  weights_name, w.quant.quantized_dimension, channel_axis));
    }
  } else if (w.type != DataType::kFloat32 || w.quant.IsQuantized()) {
    return NotOnGpu(fmt::format("the {} is {}", weights_name, DataTypeName(w.type)));
  }
  if (bias >= 0) {
    const Tensor& b = tensor(bias);
    if (!IsConstant(bias)) return NotOnGpu("the bias must be constant");
    if (b.type == DataType::kInt32) {
      if (!b.quant.IsQuantized()) return NotOnGpu("the bias is int32 without quantization parameters");
      if (b.quant.IsPerChannel() && b.quant.quantized_dimension != 0) return NotOnGpu("the bias is quantized along a dimension other than 0");
    } else if (b.type != DataType::kFloat32 || b.quant.IsQuantized()) {
      return NotOnGpu("the bias is " + DataTypeName(b.type));
    }
  }
  return Status::Ok();
}

std::vector<float> OpBuilder::RealValues(const Tensor& t) {
  const int64_t n = t.num_elements();
  std::vector<float> out(static_cast<size_t>(std::max<int64_t>(n, 0)));
  if (t.type == DataType::kFloat32 || t.data == nullptr) {
    if (t.data != nullptr && t.bytes >= out.size() * 4) std::memcpy(out.data(), t.data, out.size() * 4);
    return out;
  }
  // Per-channel parameters apply along quantized_dimension: the channel of
  // flat index i is (i / inner) % channels.
  const Quantization& q = t.quant;
  const size_t channels = std::max<size_t>(1, q.scale.size());
  int64_t inner = 1;
  if (q.IsPerChannel()) {
    for (int d = q.quantized_dimension + 1; d < t.rank(); ++d) inner *= t.dim(d);
  }
  auto value = [&](int64_t i) -> double {
    switch (t.type) {
      case DataType::kUInt8: return t.data_as<uint8_t>()[i];
      case DataType::kInt8: return t.data_as<int8_t>()[i];
      case DataType::kInt16: return t.data_as<int16_t>()[i];
      case DataType::kInt32: return t.data_as<int32_t>()[i];
      case DataType::kInt64: return static_cast<double>(t.data_as<int64_t>()[i]);
      case DataType::kBool: return t.data_as<bool>()[i] ? 1.0 : 0.0;
      default: return 0.0;
    }
  };
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = q.IsPerChannel() ? static_cast<size_t>((i / std::max<int64_t>(inner, 1)) % static_cast<int64_t>(channels)) : 0;
    const double scale = q.IsQuantized() ? q.scale[c] : 1.0;
    const double zp = q.IsQuantized() && c < q.zero_point.size() ? static_cast<double>(q.zero_point[c]) : 0.0;
    out[static_cast<size_t>(i)] = static_cast<float>((value(i) - zp) * scale);
  }
  return out;
}

IntegerConv PlanIntegerConv(OpBuilder& b, int in, int out, int weights, int channel_axis, int padded_channels) {
  IntegerConv ic;
  const Tensor& w = b.tensor(weights);
  const int bias = b.has_input(2) ? b.node().inputs[2] : -1;
  if (!b.IsQuantized(in) || !b.IsQuantized(out) || !b.IsQuantized(weights)) return ic;
  if (bias >= 0 && b.tensor(bias).type != DataType::kInt32) return ic;
  const float in_s = b.tensor(in).quant.scale[0], out_s = b.tensor(out).quant.scale[0];
  const int rank = w.rank();
  if (channel_axis < 0 || channel_axis >= rank) return ic;
  const int channels = w.dim(channel_axis);
  std::vector<float> requant(static_cast<size_t>(std::max(padded_channels, channels)), 0.f);
  for (int c = 0; c < channels; ++c) {
    const float w_s = w.quant.scale[w.quant.IsPerChannel() ? static_cast<size_t>(c) : 0];
    requant[static_cast<size_t>(c)] = in_s * w_s / out_s;  // left to right in float, as the CPU
  }
  ic.enabled = true;
  ic.input_inv_scale = 1.f / in_s;
  ic.output_scale = out_s;
  ic.requant_const = b.AddConstant(
      requant.size(), [requant](const ConstantTensors&, float* dst) { std::copy(requant.begin(), requant.end(), dst); },
      /*fp32=*/true);
  return ic;
}

void IntegerConv::AddArgs(KernelLaunch& l) const {
  if (!enabled) return;
  l.args.push_back(KernelArg::Constant(requant_const));
  l.args.push_back(KernelArg::Float(input_inv_scale));
  l.args.push_back(KernelArg::Float(output_scale));
}

std::vector<float> IntegerConv::WeightValues(const ConstantTensors& tensors, int weights, int channel_axis) const {
  const Tensor& t = tensors(weights);
  if (!enabled) return OpBuilder::RealValues(t);
  const int64_t n = t.num_elements();
  std::vector<float> out(static_cast<size_t>(std::max<int64_t>(n, 0)));
  if (t.data == nullptr) return out;
  const Quantization& q = t.quant;
  int64_t inner = 1;
  for (int d = channel_axis + 1; d < t.rank(); ++d) inner *= t.dim(d);
  const int64_t channels = std::max<int64_t>(1, t.dim(channel_axis));
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = q.IsPerChannel() ? static_cast<size_t>((i / std::max<int64_t>(inner, 1)) % channels) : 0;
    const int64_t zp = c < q.zero_point.size() ? q.zero_point[c] : 0;
    const int64_t code = t.type == DataType::kUInt8 ? t.data_as<uint8_t>()[i] : t.data_as<int8_t>()[i];
    out[static_cast<size_t>(i)] = static_cast<float>(code - zp);
  }
  return out;
}

std::vector<float> IntegerConv::BiasValues(const ConstantTensors& tensors, int bias) const {
  const Tensor& t = tensors(bias);
  if (!enabled) return OpBuilder::RealValues(t);
  std::vector<float> out(static_cast<size_t>(std::max<int64_t>(t.num_elements(), 0)));
  for (size_t i = 0; i < out.size() && t.data != nullptr; ++i) out[i] = static_cast<float>(t.data_as<int32_t>()[i]);
  return out;
}

FakeQuant FakeQuantOf(const Tensor& t) {
  FakeQuant f;
  f.scale = t.quant.scale.empty() ? 1.f : t.quant.scale[0];
  f.zero_point = t.quant.zero_point.empty() ? 0.f : static_cast<float>(t.quant.zero_point[0]);
  if (t.type == DataType::kUInt8) {
    f.qmin = 0.f;
    f.qmax = 255.f;
  } else {
    f.qmin = -128.f;
    f.qmax = 127.f;
  }
  return f;
}

Status OpBuilder::Finish(std::string* fake_quants) {
  for (int t : program_.writes) {
    if (!IsQuantized(t)) continue;
    const FakeQuant fq = FakeQuantOf(tensor(t));
    int applied = 0;
    for (KernelLaunch& l : program_.launches) {
      const int arg = l.act_output_arg >= 0 ? l.act_output_arg : l.fusable_output_arg;
      if (arg < 0 || arg >= static_cast<int>(l.args.size())) continue;
      const KernelArg& a = l.args[static_cast<size_t>(arg)];
      if (a.kind != KernelArg::Kind::kTensor || a.id != t) continue;
      l.fake_quant.push_back(fq);
      ++applied;
    }
    if (applied == 0) {
      return NotOnGpu(fmt::format("the quantized output {} would have no fake-quant epilogue on the GPU", tensor(t).name));
    }
    if (fake_quants != nullptr) {
      if (!fake_quants->empty()) *fake_quants += "; ";
      *fake_quants += fmt::format("fake quant {} scale {:.6g} zero point {}", DataTypeName(tensor(t).type), fq.scale,
                                  static_cast<int>(fq.zero_point));
    }
  }
  return Status::Ok();
}

Status RequireClampActivation(Activation activation) {
  if (IsClampActivation(activation)) return Status::Ok();
  return NotOnGpu(fmt::format("fused activation {} is not supported", ActivationName(activation)));
}

KernelArg OpBuilder::Read(int t) {
  if (std::find(program_.reads.begin(), program_.reads.end(), t) == program_.reads.end()) program_.reads.push_back(t);
  return KernelArg::Tensor(t);
}

KernelArg OpBuilder::Write(int t) {
  if (std::find(program_.writes.begin(), program_.writes.end(), t) == program_.writes.end()) program_.writes.push_back(t);
  return KernelArg::Tensor(t);
}

int OpBuilder::AddConstant(size_t count, std::function<void(const ConstantTensors&, float*)> fill, bool fp32) {
  program_.constants.push_back({count, fp32, std::move(fill)});
  return static_cast<int>(program_.constants.size()) - 1;
}

int OpBuilder::AddTemp(const GpuShape& shape, bool fp32) {
  program_.temps.push_back(shape);
  program_.temp_fp32.resize(program_.temps.size() - 1, false);
  program_.temp_fp32.push_back(fp32);
  return static_cast<int>(program_.temps.size()) - 1;
}

}  // namespace relite::gpu
