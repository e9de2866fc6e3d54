// LSTM with kernel_type BASIC (LSTM v2+): one step of the 5-input cell.
//   inputs:  data [B,I], prev_activ [B,O], weights [4O, I+O], biases [4O], prev_state [B,O]
//   outputs: activ [B,O], state [B,O], concat_temp [B,I+O], activ_temp [B,4O]
//   concat_temp = [data, prev_activ];  activ_temp = concat_temp * weights^T + biases
//   gates from activ_temp in blocks of O: input = σ(g0), new_input = tanh(g1),
//   forget = σ(g2), output = σ(g3);
//   state = input * new_input + forget * prev_state;  activ = output * tanh(state).
// The FULL kernel type (the 20+-input cell) is not implemented.
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class BasicLstmKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 5 || ctx.num_outputs() != 4) {
      return ctx.Error(fmt::format("a BASIC LSTM has 5 inputs and 4 outputs, got {} and {}", ctx.num_inputs(), ctx.num_outputs()));
    }
    for (int i = 0; i < 5; ++i) {
      if (!ctx.has_input(i)) return ctx.Error(fmt::format("input {} is missing", i));
      if (ctx.input(i).type != DataType::kFloat32) {
        return ctx.Unsupported(fmt::format("input {} is {}; the BASIC LSTM runs float32 only", i, DataTypeName(ctx.input(i).type)));
      }
    }
    const Tensor& data = ctx.input(0);
    const Tensor& prev_activ = ctx.input(1);
    const Tensor& weights = ctx.input(2);
    const Tensor& biases = ctx.input(3);
    const Tensor& prev_state = ctx.input(4);
    if (data.rank() < 1 || prev_activ.rank() < 1 || weights.rank() != 2 || biases.rank() != 1) {
      return ctx.Error("data, prev_activ must have rank >= 1, weights rank 2, biases rank 1");
    }
    input_depth_ = data.dim(data.rank() - 1);
    output_depth_ = prev_activ.dim(prev_activ.rank() - 1);
    batches_ = input_depth_ > 0 ? static_cast<int>(data.num_elements() / input_depth_) : 0;
    if (prev_activ.num_elements() != static_cast<int64_t>(batches_) * output_depth_ ||
        prev_state.num_elements() != static_cast<int64_t>(batches_) * output_depth_) {
      return ctx.Error(fmt::format("prev_activ {} and prev_state {} must hold {} batches of {} values",
                                   ShapeToString(prev_activ.shape), ShapeToString(prev_state.shape), batches_, output_depth_));
    }
    if (weights.dim(0) != 4 * output_depth_ || weights.dim(1) != input_depth_ + output_depth_) {
      return ctx.Error(fmt::format("weights {} must be [{}, {}]", ShapeToString(weights.shape), 4 * output_depth_,
                                   input_depth_ + output_depth_));
    }
    if (biases.dim(0) != 4 * output_depth_) return ctx.Error(fmt::format("biases {} must be [{}]", ShapeToString(biases.shape), 4 * output_depth_));
    for (int i = 0; i < 4; ++i) {
      if (ctx.output(i).type != DataType::kFloat32) return ctx.Error(fmt::format("output {} must be float32", i));
    }
    Shape activ_shape = prev_activ.shape;
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, activ_shape));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(1, prev_state.shape));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(2, {batches_, input_depth_ + output_depth_}));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(3, {batches_, 4 * output_depth_}));
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const float* data = ctx.input(0).data_as<float>();
    const float* prev_activ = ctx.input(1).data_as<float>();
    const float* weights = ctx.input(2).data_as<float>();
    const float* biases = ctx.input(3).data_as<float>();
    const float* prev_state = ctx.input(4).data_as<float>();
    float* activ = ctx.output(0).data_as<float>();
    float* state = ctx.output(1).data_as<float>();
    float* concat = ctx.output(2).data_as<float>();
    float* gates = ctx.output(3).data_as<float>();
    const int I = input_depth_, O = output_depth_, K = I + O;
    for (int b = 0; b < batches_; ++b) {
      float* cat = concat + static_cast<size_t>(b) * K;
      for (int k = 0; k < I; ++k) cat[k] = data[static_cast<size_t>(b) * I + k];
      for (int k = 0; k < O; ++k) cat[I + k] = prev_activ[static_cast<size_t>(b) * O + k];
      float* g = gates + static_cast<size_t>(b) * 4 * O;
      for (int r = 0; r < 4 * O; ++r) {
        const float* w = weights + static_cast<size_t>(r) * K;
        float acc = biases[r];
        for (int k = 0; k < K; ++k) acc += cat[k] * w[k];
        g[r] = acc;
      }
      for (int c = 0; c < O; ++c) {
        const float input_gate = 1.f / (1.f + std::exp(-g[c]));
        const float new_input = std::tanh(g[O + c]);
        const float forget_gate = 1.f / (1.f + std::exp(-g[2 * O + c]));
        const float output_gate = 1.f / (1.f + std::exp(-g[3 * O + c]));
        const size_t i = static_cast<size_t>(b) * O + c;
        const float s = input_gate * new_input + forget_gate * prev_state[i];
        state[i] = s;
        activ[i] = output_gate * std::tanh(s);
      }
    }
    return Status::Ok();
  }

 private:
  int batches_ = 0, input_depth_ = 0, output_depth_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateLstm(const Node& node) {
  const auto* options = GetOptions<tflite::LSTMOptions>(node);
  if (options == nullptr || options->kernel_type() != tflite::LSTMKernelType::BASIC) {
    return UnimplementedError(node.Describe() + ": only the BASIC LSTM kernel is implemented (kernel_type FULL is not)");
  }
  if (options->fused_activation_function() != tflite::ActivationFunctionType::TANH) {
    return InvalidArgumentError(node.Describe() + ": a BASIC LSTM's activation must be TANH");
  }
  if (options->cell_clip() != 0.f || options->proj_clip() != 0.f) {
    return InvalidArgumentError(node.Describe() + ": a BASIC LSTM has no cell or projection clipping");
  }
  return std::unique_ptr<Kernel>(std::make_unique<BasicLstmKernel>());
}

}  // namespace relite::cpu
