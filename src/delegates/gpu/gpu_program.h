// Backend-neutral description of what the GPU runs for one node: kernel
// launches over GPU tensors, plus constant buffers filled from the model.
//
// An op's emitter (ops/<op>.cc) validates the node and records this
// description; the delegate's support check *is* that recording, and the
// partition kernel only instantiates what was recorded, so a node the check
// accepted cannot fail to build. Kernel sources are templates written against
// the prelude's macros (KERNEL, GLOBAL, STORAGE, LOAD4/STORE4, GLOBAL_ID, ACT),
// which each backend defines (OpenCL now, CUDA next).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "relite/delegate.h"
#include "relite/status.h"
#include "relite/tensor.h"

namespace relite::gpu {

enum class Precision : uint8_t { kFp32, kFp16 };

// A tensor as the GPU stores it: BHWC with the channels in ceil(C/4) slices
// of 4 (channels past C hold zeros, which every kernel keeps so), element (b, y, x, s) at
// ((b * S + s) * H + y) * W + x, each element a float4 or half4.
// Lower ranks map as TFLite's GPU delegate maps them: [C] -> 1,1,1,C;
// [B,C] -> B,1,1,C; [B,W,C] -> B,1,W,C.
struct GpuShape {
  int32_t b = 1, h = 1, w = 1, c = 1;
  int32_t slices() const { return (c + 3) / 4; }
  int64_t elements4() const { return static_cast<int64_t>(b) * h * w * slices(); }
  int64_t elements() const { return static_cast<int64_t>(b) * h * w * c; }
  bool operator==(const GpuShape&) const = default;
};
StatusOr<GpuShape> ToGpuShape(const Shape& shape);
// Which GpuShape dimension (0 = B, 1 = H, 2 = W, 3 = C) axis `axis` of a
// rank-`rank` tensor is (axis already normalised to [0, rank)).
int GpuAxis(int rank, int axis);
std::string GpuShapeToString(const GpuShape& s);

// Identifies a buffer in a node program: a model tensor (its index), a
// node-local temporary (kTemp, index into NodeProgram::temps) or a constant
// buffer (kConstant, index into NodeProgram::constants); or, in the
// partition's own boundary conversions, a staging buffer (kStaging, the
// backend's buffer id) holding a tensor in the model's layout and type.
struct KernelArg {
  enum class Kind : uint8_t { kTensor, kTemp, kConstant, kInt, kFloat, kStaging };
  Kind kind = Kind::kInt;
  int32_t id = 0;     // tensor index / temp / constant index, or the int value
  float value = 0.f;  // kFloat
  static KernelArg Tensor(int tensor) { return {Kind::kTensor, tensor, 0.f}; }
  static KernelArg Temp(int temp) { return {Kind::kTemp, temp, 0.f}; }
  static KernelArg Constant(int constant) { return {Kind::kConstant, constant, 0.f}; }
  static KernelArg Int(int32_t v) { return {Kind::kInt, v, 0.f}; }
  static KernelArg Float(float v) { return {Kind::kFloat, 0, v}; }
  static KernelArg Staging(int buffer) { return {Kind::kStaging, buffer, 0.f}; }
};

// The quantize-dequantize of an 8-bit tensor ("fake quant"): a value is
// rounded to the tensor's grid and clamped to its type's range,
// v -> (clamp(round(v / scale) + zero_point, qmin, qmax) - zero_point) * scale,
// so activations on the GPU take exactly the values the quantized model gives
// them (the GPU computes in float; BRIEF.md §2).
struct FakeQuant {
  float scale = 1.f;
  float zero_point = 0.f;
  float qmin = -128.f, qmax = 127.f;
  bool operator==(const FakeQuant&) const = default;
};

// An exact 8-bit ADD/SUB with XNNPACK's arithmetic, as the CPU kernel
// (src/core/ops/quantized_add.h): the operands are read back as their codes,
// out = clamp(((bias + a * a_mul + b * b_mul) >> shift) + zp_out) in int32,
// stored as its real value. Halves round up there, which a float add and
// fake quant (round half to even) would not reproduce.
struct IntegerAdd {
  bool enabled = false;
  float a_inv_scale = 1.f, b_inv_scale = 1.f, out_scale = 1.f;
  int32_t a_zero_point = 0, b_zero_point = 0, out_zero_point = 0;
  int32_t a_multiplier = 0, b_multiplier = 0, bias = 0, shift = 0;
  int32_t qmin = 0, qmax = 0;
  // The same ADD with its operands exchanged.
  IntegerAdd Swapped() const {
    IntegerAdd s = *this;
    std::swap(s.a_inv_scale, s.b_inv_scale);
    std::swap(s.a_zero_point, s.b_zero_point);
    std::swap(s.a_multiplier, s.b_multiplier);
    return s;
  }
};

// A float as a kernel-source literal ("20.0f", "0.0235294122f", INFINITY),
// exact (9 significant digits).
std::string KernelFloatLiteral(float v);

// The prelude's qadd(a, b, ...) for the operand expressions `a` and `b`.
std::string IntegerAddCall(const IntegerAdd& p, const std::string& a, const std::string& b);

struct KernelLaunch {
  std::string entry;                // kernel function name in `source`
  const char* source = nullptr;     // template text (static storage)
  std::string defines;              // extra "#define X v" lines; part of the program key
  std::vector<KernelArg> args;
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{0, 0, 0};  // 0: let the backend choose
  // Clamp applied by the template's ACT(v) to every value it stores; a
  // following RELU/RELU6/RELU_N1_TO_1 node can be folded into it.
  float act_min = -std::numeric_limits<float>::infinity();
  float act_max = std::numeric_limits<float>::infinity();
  // Index into args of the tensor this launch writes with ACT applied, or -1
  // when ACT is not applied to the stored values (no clamp fusion).
  int fusable_output_arg = -1;
  // Index into args of the tensor stored through ACT, where that is not the
  // fusable output (e.g. one piece of a concatenation); -1: fusable_output_arg.
  int act_output_arg = -1;
  // Fake quants ACT applies after the clamp, in order (a quantized output, and
  // those of quantized nodes folded into this launch).
  std::vector<FakeQuant> fake_quant;
  // With a folded residual ADD: the fake quants of this launch's own output,
  // applied before the residual is added (ACT's are then the ADD's).
  std::vector<FakeQuant> pre_residual_fake_quant;
  // The template stores ACT(ADD_RESIDUAL(v, i)) at GPU-tensor index i of the
  // fusable output and ends its parameter list with EXTRA_ARGS: a following
  // ADD of a same-shape tensor can then be folded in (the partition appends
  // that tensor as the last argument and sets `residual`).
  bool residual_fusable = false;
  bool residual = false;
  // This launch's OP is that exact ADD/SUB (kept for residual folding), and,
  // with `residual`, the folded ADD is one: ADD_RESIDUAL(v, i) is then
  // qadd(v, residual[i]) instead of a float sum.
  IntegerAdd integer_add;
  IntegerAdd residual_add;
  // >= 0 with `residual`: the residual tensor holds this many float4
  // elements and reads past them are zeros (a channel PAD folded away).
  int64_t residual_elements = -1;
  // > 0 with `residual`: the residual tensor is the input of a 2x2, stride 2
  // MAX_POOL_2D of this height and width (folded away); element i of the
  // pooled tensor is the maximum of its four cells.
  int32_t residual_pool_in_h = 0, residual_pool_in_w = 0;
  // The launch stores ACT(its input) and nothing else (RELU-style clamps,
  // QUANTIZE, DEQUANTIZE): a producer can take its clamp and fake quants.
  bool pure_epilogue = false;
  // Non-empty: this launch is a unary function of `x` alone (LOGISTIC,
  // HARD_SWISH, TANH, EXP) that its input's producer may apply instead.
  std::string unary_expr;
  // Non-empty: ACT applies this function of `x` (a folded unary node) to the
  // clamped value, then clamps to post_act_min/max (that node's own clamp).
  std::string post_op;
  float post_act_min = -std::numeric_limits<float>::infinity();
  float post_act_max = std::numeric_limits<float>::infinity();
};

// Read access to the partition's constant tensors when constants are filled
// (at the first AllocateTensors; folded constants have data from then on).
using ConstantTensors = std::function<const Tensor&(int tensor_index)>;

struct ConstantBuffer {
  // Number of float values; stored in the precision's storage type, except
  // when `fp32` is set (values that must keep full precision).
  size_t count = 0;
  bool fp32 = false;
  // Writes exactly `count` values. Must not fail: the emitter validated
  // every shape and type it depends on.
  std::function<void(const ConstantTensors& tensors, float* out)> fill;
};

// Everything one node runs on the GPU.
struct NodeProgram {
  std::vector<KernelLaunch> launches;
  std::vector<ConstantBuffer> constants;
  std::vector<GpuShape> temps;  // node-local scratch tensors (GPU layout)
  // Per temp: float4 elements whatever the precision (partial sums that
  // must not be rounded to half, e.g. exact 8-bit convolution sums).
  std::vector<bool> temp_fp32;
  // Model tensors the launches read as GPU tensors (constant ones among
  // them are uploaded once, in GPU layout).
  std::vector<int> reads;
  std::vector<int> writes;
  double cost = 1.0;  // estimated work (MACs or elements), for partition ranking
  // >= 0: the node only renames this input (a RESHAPE between tensors of one
  // GPU layout, type and grid): its one output's GPU bytes are the input's,
  // so a pass may drop its launches and let its readers read the input.
  int alias_input = -1;
  // >= 0: the node's one output is this input with zero channels appended
  // (a PAD of the channels only; batch 1, whole input slices): a folded
  // residual read can take the input and read zeros past its elements.
  int channel_pad_of = -1;
  int64_t channel_pad_elements4 = 0;  // that input's float4 elements
  // >= 0: the node's one output is the 2x2, stride 2 maximum of this input
  // (one image of exactly twice the output's height and width, no clamp): a
  // folded residual read can take the maximum of the four cells itself.
  int max_pool_2x2_of = -1;
  int32_t max_pool_in_h = 0, max_pool_in_w = 0;  // that input's
};

}  // namespace relite::gpu
