// FULLY_CONNECTED on float32: output[b][o] = act(sum_k input[b][k] * W[o][k] + bias[o]).
//
// The input is read as [batch, K] with K the weights' second dimension. One
// row is a matrix-vector product over the unpacked weights (they are read
// once, so packing would not pay); more rows use the packed GEMM.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/conv_util.h"
#include "src/kernels/cpu/internal/gemm.h"
#include "src/kernels/cpu/internal/hybrid.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

constexpr int kMinRowsToPackPerRun = 8;

class FullyConnectedKernel final : public Kernel {
 public:
  explicit FullyConnectedKernel(const FullyConnectedParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  Status Eval(KernelContext& ctx) override;

 private:
  FullyConnectedParams params_;
  ActivationRange act_{};
  int batch_ = 0, depth_ = 0, units_ = 0;
  bool use_gemm_ = false;
  bool weights_constant_ = false;
  AlignedFloatBuffer packed_;
  const void* packed_from_ = nullptr;
};

Status FullyConnectedKernel::Prepare(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || ctx.num_inputs() > 3) {
    return ctx.Error("expected 2 or 3 inputs (input, weights[, bias]), got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expected 1 output, got " + std::to_string(ctx.num_outputs()));
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("input and weights are required");
  const Tensor& input = ctx.input(0);
  const Tensor& weights = ctx.input(1);
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, input, "input"));
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, weights, "weights"));
  if (weights.sparsity != nullptr) return ctx.Unsupported("sparse weights are not supported");
  if (ctx.output(0).type != DataType::kFloat32) {
    return ctx.Unsupported("output type " + DataTypeName(ctx.output(0).type) + " is not supported (float32 only)");
  }
  if (weights.rank() != 2) return ctx.Error("weights must be 2-D [units, K], got " + ShapeToString(weights.shape));
  units_ = weights.dim(0);
  depth_ = weights.dim(1);
  if (units_ < 0 || depth_ <= 0)
    return ctx.Error("weights dimensions must be positive, got " + ShapeToString(weights.shape));
  if (input.rank() < 1) return ctx.Error("input must have at least one dimension");
  const int64_t input_elements = input.num_elements();
  if (input_elements % depth_ != 0) {
    return ctx.Error("input " + ShapeToString(input.shape) + " does not divide into rows of " + std::to_string(depth_) +
                     " (weights " + ShapeToString(weights.shape) + ")");
  }
  if (input_elements / depth_ > INT32_MAX) return ctx.Unsupported("input too large for 32-bit indexing");
  batch_ = static_cast<int>(input_elements / depth_);

  if (ctx.has_input(2)) {
    const Tensor& bias = ctx.input(2);
    RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, bias, "bias"));
    if (bias.num_elements() != units_) {
      return ctx.Error("bias must have " + std::to_string(units_) + " elements, got " + ShapeToString(bias.shape));
    }
  }

  Shape out_shape;
  if (params_.keep_num_dims) {
    if (input.dim(input.rank() - 1) != depth_) {
      return ctx.Error("keep_num_dims needs the input's last dimension to equal K = " + std::to_string(depth_) +
                       ", got " + ShapeToString(input.shape));
    }
    out_shape = input.shape;
    out_shape.back() = units_;
  } else {
    out_shape = {batch_, units_};
  }
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));
  act_ = GetActivationRange(params_.activation);

  weights_constant_ = weights.is_constant() && weights.data != nullptr;
  // Weights computed by the graph are packed on every run, which only pays
  // off over several rows.
  use_gemm_ = weights_constant_ ? batch_ > 1 : batch_ >= kMinRowsToPackPerRun;
  if (!use_gemm_) return Status::Ok();
  const size_t packed_floats = PackedWeightsSize(units_, depth_);
  if (weights_constant_) {
    if (packed_from_ != weights.data || packed_.size() != packed_floats) {
      packed_.Resize(packed_floats);
      if (packed_.data() == nullptr) {
        return InternalError(ctx.node().Describe() + ": out of memory packing the weights");
      }
      PackWeights(weights.data_as<float>(), units_, depth_, static_cast<size_t>(depth_), packed_.data());
      packed_from_ = weights.data;
    }
  } else {
    ctx.RequestScratch(packed_floats * sizeof(float) + 64);
  }
  return Status::Ok();
}

Status FullyConnectedKernel::Eval(KernelContext& ctx) {
  if (batch_ == 0 || units_ == 0) return Status::Ok();
  const float* input = ctx.input(0).data_as<float>();
  const float* weights = ctx.input(1).data_as<float>();
  float* output = ctx.output(0).data_as<float>();
  const GemmEpilogue epilogue{ctx.has_input(2) ? ctx.input(2).data_as<float>() : nullptr, act_.min, act_.max};
  if (!use_gemm_) {
    for (int b = 0; b < batch_; ++b) {
      ParallelGemv(ctx, units_, depth_, weights, static_cast<size_t>(depth_), input + static_cast<size_t>(b) * depth_,
                   epilogue, output + static_cast<size_t>(b) * units_);
    }
    return Status::Ok();
  }
  const float* packed = packed_.data();
  if (!weights_constant_) {
    float* buffer = AlignFloats64(ctx.scratch());
    PackWeights(weights, units_, depth_, static_cast<size_t>(depth_), buffer);
    packed = buffer;
  }
  ParallelGemmPacked(ctx, batch_, units_, depth_, input, static_cast<size_t>(depth_), packed, epilogue, output,
                     static_cast<size_t>(units_));
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeFloatFullyConnected(const FullyConnectedParams& params) {
  return std::make_unique<FullyConnectedKernel>(params);
}

StatusOr<std::unique_ptr<Kernel>> CreateFullyConnected(const Node& node) {
  if (IsHybridNode(node)) return CreateHybridFullyConnected(node);
  RELITE_ASSIGN_OR_RETURN(FullyConnectedParams params, ParseFullyConnectedParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  return std::unique_ptr<Kernel>(std::make_unique<FullyConnectedKernel>(params));
}

}  // namespace relite::cpu
