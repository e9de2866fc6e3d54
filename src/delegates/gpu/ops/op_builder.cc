#include "src/delegates/gpu/ops/op_builder.h"

#include <algorithm>

#include <fmt/format.h>

namespace relite::gpu {

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

Status OpBuilder::RequireFloat(int t, const std::string& what) const {
  const Tensor& x = tensor(t);
  if (x.type == DataType::kFloat32 && !x.quant.IsQuantized()) return Status::Ok();
  if (x.type == DataType::kUInt8 || x.type == DataType::kInt8 || x.type == DataType::kInt16 || x.quant.IsQuantized()) {
    return NotOnGpu(fmt::format("{} is {} quantized; the GPU delegate runs float models (quantized-model support is a later option)",
                                what, DataTypeName(x.type)));
  }
  return NotOnGpu(fmt::format("{} is {}; the GPU delegate computes in float32/float16", what, DataTypeName(x.type)));
}

StatusOr<std::vector<int64_t>> OpBuilder::ConstantInts(int t, const std::string& what) const {
  const Tensor& x = tensor(t);
  if (!IsConstant(t) || x.data == nullptr) {  // folded outputs have no data before allocation
    return NotOnGpu(fmt::format("{} must be a constant of the model", what));
  }
  const int64_t n = x.num_elements();
  if (x.sparsity != nullptr || x.bytes < static_cast<size_t>(n) * DataTypeSize(x.type)) {
    return NotOnGpu(fmt::format("{} holds {} bytes, fewer than its shape {} needs", what, x.bytes, ShapeToString(x.shape)));
  }
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (x.type == DataType::kInt32) {
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = x.data_as<int32_t>()[i];
  } else if (x.type == DataType::kInt64) {
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = x.data_as<int64_t>()[i];
  } else {
    return NotOnGpu(fmt::format("{} must be int32 or int64, got {}", what, DataTypeName(x.type)));
  }
  return out;
}

Status OpBuilder::RequireConstantWeights(int in, int out, int weights, const std::string& weights_name, int bias) const {
  RELITE_RETURN_IF_ERROR(RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(RequireFloat(out, "the output"));
  RELITE_RETURN_IF_ERROR(RequireFloat(weights, "the " + weights_name));
  if (!IsConstant(weights)) return NotOnGpu("the " + weights_name + " must be constant");
  if (tensor(weights).sparsity != nullptr) {
    return NotOnGpu(fmt::format("sparse {} are not supported", weights_name == "weights" ? weights_name : weights_name + "s"));
  }
  if (bias >= 0) {
    RELITE_RETURN_IF_ERROR(RequireFloat(bias, "the bias"));
    if (!IsConstant(bias)) return NotOnGpu("the bias must be constant");
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

int OpBuilder::AddTemp(const GpuShape& shape) {
  program_.temps.push_back(shape);
  return static_cast<int>(program_.temps.size()) - 1;
}

}  // namespace relite::gpu
