// LSTM, kernel_type BASIC (see src/kernels/cpu/lstm.cc for the cell). Three
// launches: the gate pre-activations (one dot product over [data, prev_activ]
// per gate value, float accumulation), the state update, and the concat_temp
// output. Values are addressed one channel at a time (LOAD1/STORE1), so
// depths need not be multiples of 4.
#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/gpu/ops/emitters.h"

namespace relite::gpu {
namespace {

constexpr const char* kLstmSource = R"CL(
// Scalar (b, c) of a [B, C] GPU tensor: slice c/4 of batch b, lane c%4.
INLINE int at(int b, int c, int S) { return (b * S + c / 4) * 4 + c % 4; }
INLINE float concat_value(GLOBAL const STORAGE* data, GLOBAL const STORAGE* prev, int b, int k, int I, int Si, int So) {
  return k < I ? LOAD1(data, at(b, k, Si)) : LOAD1(prev, at(b, k - I, So));
}
KERNEL void lstm_gates(GLOBAL const STORAGE* data, GLOBAL const STORAGE* prev, GLOBAL const STORAGE* weights,
                       GLOBAL const STORAGE* biases, GLOBAL STORAGE* gates, int B, int I, int O, int Si, int So, int Sg) {
  int r = GLOBAL_ID(0), b = GLOBAL_ID(1);
  if (r >= Sg * 4 || b >= B) return;
  float acc = 0.0f;
  if (r < 4 * O) {
    acc = LOAD1(biases, r);
    int K = I + O;
    for (int k = 0; k < K; ++k) acc += concat_value(data, prev, b, k, I, Si, So) * LOAD1(weights, r * K + k);
  }
  STORE1(gates, at(b, r, Sg), acc);
}
KERNEL void lstm_state(GLOBAL const STORAGE* gates, GLOBAL const STORAGE* prev_state, GLOBAL STORAGE* activ,
                       GLOBAL STORAGE* state, int B, int O, int So, int Sg) {
  int c = GLOBAL_ID(0), b = GLOBAL_ID(1);
  if (c >= So * 4 || b >= B) return;
  float a = 0.0f, s = 0.0f;
  if (c < O) {
    float input_gate = 1.0f / (1.0f + exp(-LOAD1(gates, at(b, c, Sg))));
    float new_input = tanh(LOAD1(gates, at(b, O + c, Sg)));
    float forget_gate = 1.0f / (1.0f + exp(-LOAD1(gates, at(b, 2 * O + c, Sg))));
    float output_gate = 1.0f / (1.0f + exp(-LOAD1(gates, at(b, 3 * O + c, Sg))));
    s = input_gate * new_input + forget_gate * LOAD1(prev_state, at(b, c, So));
    a = output_gate * tanh(s);
  }
  STORE1(state, at(b, c, So), s);
  STORE1(activ, at(b, c, So), a);
}
KERNEL void lstm_concat(GLOBAL const STORAGE* data, GLOBAL const STORAGE* prev, GLOBAL STORAGE* concat, int B, int I,
                        int O, int Si, int So, int Sc) {
  int k = GLOBAL_ID(0), b = GLOBAL_ID(1);
  if (k >= Sc * 4 || b >= B) return;
  STORE1(concat, at(b, k, Sc), k < I + O ? concat_value(data, prev, b, k, I, Si, So) : 0.0f);
}
)CL";

// A [B, C] tensor (rank 2, or rank 4 with H = W = 1) as the GPU stores it.
StatusOr<GpuShape> Rows(const OpBuilder& b, int t, const char* what) {
  RELITE_ASSIGN_OR_RETURN(GpuShape s, b.Shape(t));
  if (s.h != 1 || s.w != 1) return NotOnGpu(fmt::format("{} must be [batch, depth], got {}", what, ShapeToString(b.tensor(t).shape)));
  return s;
}

}  // namespace

Status EmitLstm(OpBuilder& b) {
  const auto* options = GetOptions<tflite::LSTMOptions>(b.node());
  if (options == nullptr || options->kernel_type() != tflite::LSTMKernelType::BASIC) {
    return NotOnGpu("only the BASIC LSTM kernel runs on the GPU");
  }
  if (options->fused_activation_function() != tflite::ActivationFunctionType::TANH || options->cell_clip() != 0.f ||
      options->proj_clip() != 0.f) {
    return NotOnGpu("a BASIC LSTM must use TANH and no clipping");
  }
  if (b.num_inputs() != 5 || b.node().outputs.size() != 4) return NotOnGpu("a BASIC LSTM has 5 inputs and 4 outputs");
  int in[5], out[4];
  for (int i = 0; i < 5; ++i) {
    RELITE_ASSIGN_OR_RETURN(in[i], b.Input(i));
    RELITE_RETURN_IF_ERROR(b.RequireFloat32(in[i], fmt::format("input {}", i)));
  }
  for (int i = 0; i < 4; ++i) {
    RELITE_ASSIGN_OR_RETURN(out[i], b.Output(i));
    RELITE_RETURN_IF_ERROR(b.RequireFloat32(out[i], fmt::format("output {}", i)));
  }
  if (!b.IsConstant(in[2]) || !b.IsConstant(in[3])) return NotOnGpu("weights and biases must be constant");
  RELITE_ASSIGN_OR_RETURN(GpuShape data, Rows(b, in[0], "the data input"));
  RELITE_ASSIGN_OR_RETURN(GpuShape prev, Rows(b, in[1], "prev_activ"));
  RELITE_ASSIGN_OR_RETURN(GpuShape prev_state, Rows(b, in[4], "prev_state"));
  RELITE_ASSIGN_OR_RETURN(GpuShape activ, Rows(b, out[0], "the activation output"));
  RELITE_ASSIGN_OR_RETURN(GpuShape state, Rows(b, out[1], "the state output"));
  RELITE_ASSIGN_OR_RETURN(GpuShape concat, Rows(b, out[2], "concat_temp"));
  RELITE_ASSIGN_OR_RETURN(GpuShape gates, Rows(b, out[3], "activ_temp"));
  const int B = data.b, I = data.c, O = prev.c;
  const Shape& ws = b.tensor(in[2]).shape;
  if (prev.b != B || !(prev_state == prev) || !(activ == prev) || !(state == prev) || concat.b != B || concat.c != I + O ||
      gates.b != B || gates.c != 4 * O || ws.size() != 2 || ws[0] != 4 * O || ws[1] != I + O ||
      b.tensor(in[3]).num_elements() != 4 * O) {
    return InvalidArgumentError(b.node().Describe() + ": inconsistent BASIC LSTM shapes");
  }
  const int K = I + O;
  const int w = b.AddConstant(static_cast<size_t>(4 * O) * K, [=](const ConstantTensors& t, float* dst) {
    const std::vector<float> v = OpBuilder::ConstantFloats(t, in[2]);
    for (size_t i = 0; i < static_cast<size_t>(4 * O) * K; ++i) dst[i] = v[i];
  });
  const int bias = b.AddConstant(static_cast<size_t>(4 * O), [=](const ConstantTensors& t, float* dst) {
    const std::vector<float> v = OpBuilder::ConstantFloats(t, in[3]);
    for (int i = 0; i < 4 * O; ++i) dst[i] = v[i];
  });
  const int Si = data.slices(), So = prev.slices(), Sg = gates.slices(), Sc = concat.slices();
  KernelLaunch g;
  g.entry = "lstm_gates";
  g.source = kLstmSource;
  g.args = {b.Read(in[0]), b.Read(in[1]), KernelArg::Constant(w), KernelArg::Constant(bias), b.Write(out[3]), KernelArg::Int(B),
            KernelArg::Int(I), KernelArg::Int(O), KernelArg::Int(Si), KernelArg::Int(So), KernelArg::Int(Sg)};
  g.global = {static_cast<size_t>(Sg) * 4, static_cast<size_t>(B), 1};
  b.Launch(std::move(g));
  KernelLaunch s;
  s.entry = "lstm_state";
  s.source = kLstmSource;
  s.args = {b.Read(out[3]), b.Read(in[4]), b.Write(out[0]), b.Write(out[1]), KernelArg::Int(B), KernelArg::Int(O),
            KernelArg::Int(So), KernelArg::Int(Sg)};
  s.global = {static_cast<size_t>(So) * 4, static_cast<size_t>(B), 1};
  b.Launch(std::move(s));
  KernelLaunch c;
  c.entry = "lstm_concat";
  c.source = kLstmSource;
  c.args = {b.Read(in[0]), b.Read(in[1]), b.Write(out[2]), KernelArg::Int(B), KernelArg::Int(I), KernelArg::Int(O),
            KernelArg::Int(Si), KernelArg::Int(So), KernelArg::Int(Sc)};
  c.global = {static_cast<size_t>(Sc) * 4, static_cast<size_t>(B), 1};
  b.Launch(std::move(c));
  b.SetCost(static_cast<double>(B) * 4 * O * K);
  return Status::Ok();
}

}  // namespace relite::gpu
