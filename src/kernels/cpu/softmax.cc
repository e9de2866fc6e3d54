// SOFTMAX over the last axis of a float32 tensor of any rank:
//   y = exp(beta * (x - x_ref)) / sum(exp(beta * (x - x_ref)))
// with x_ref the row's max (min when beta < 0), so every exponent is <= 0
// and nothing overflows. The exponential is a polynomial that g++ vectorises.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/reduction.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// exp(x) for x <= 0, within 2 ulp: x = n*ln2 + r with |r| <= ln2/2, exp(r)
// from a degree-6 minimax polynomial, 2^n written into the exponent bits.
// Arguments below ln(FLT_MIN) give 0 and NaN propagates. The selects are bit
// masks and n is rounded with the 1.5*2^23 trick, so the loop has no branches
// and g++ vectorises it (float selects with a constant arm defeat that).
inline float ExpNonPositive(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // ln2 split so n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kMinArg = -87.3365447f;  // ln(FLT_MIN)
  constexpr float kRound = 12582912.f;     // 1.5 * 2^23: adding it rounds to an integer
  const float t = x * kLog2e + kRound;
  const float n = t - kRound;
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.f;
  // The low bits of t hold n; shifted into the exponent field they give 2^n.
  const float y = p * std::bit_cast<float>((std::bit_cast<uint32_t>(t) + 127u) << 23);
  const uint32_t keep = 0u - static_cast<uint32_t>(x >= kMinArg);
  const uint32_t nan = 0u - static_cast<uint32_t>(x != x);
  return std::bit_cast<float>((std::bit_cast<uint32_t>(y) & keep) | (std::bit_cast<uint32_t>(x) & nan));
}

// Smallest value, NaNs skipped (the mirror of reduce_internal::MaxReducer).
struct MinReducer {
  using Acc = float;
  using Total = float;
  using Out = float;
  static float AccInit() { return std::numeric_limits<float>::max(); }
  static float TotalInit() { return std::numeric_limits<float>::max(); }
  template <typename A, typename B>
  static A Combine(A a, B b) {
    return b < a ? b : a;
  }
  static float Finish(float t) { return t; }
};

void SoftmaxRow(const float* __restrict x, float* __restrict y, int64_t n, float beta) {
  // Shifting by the max (min for beta < 0) keeps every exponent <= 0.
  const float ref = beta >= 0.f ? reduce_internal::ReduceContiguous<reduce_internal::MaxReducer<float>>(x, n)
                                : reduce_internal::ReduceContiguous<MinReducer>(x, n);
  // Exponentials and their sum in one pass: 32 float lanes per block of 1024
  // values, block sums added in double so long rows stay accurate.
  constexpr int kLanes = 32;
  constexpr int64_t kBlock = 1024;
  double sum = 0.0;
  for (int64_t i = 0; i < n;) {
    const int64_t end = std::min(n, i + kBlock);
    float acc[kLanes] = {};
    for (; i + kLanes <= end; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) {
        const float e = ExpNonPositive(beta * (x[i + l] - ref));
        y[i + l] = e;
        acc[l] += e;
      }
    }
    for (; i < end; ++i) {
      y[i] = ExpNonPositive(beta * (x[i] - ref));
      acc[0] += y[i];
    }
    for (int w = kLanes / 2; w > 0; w /= 2) {
      for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
    }
    sum += acc[0];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

class SoftmaxKernel final : public Kernel {
 public:
  explicit SoftmaxKernel(float beta) : beta_(beta) {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0)) {
      return ctx.Error("expects 1 input, got " + std::to_string(ctx.num_inputs()));
    }
    if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    if (input.type == DataType::kUInt8 || input.type == DataType::kInt8 || input.type == DataType::kInt16) {
      return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported yet");
    }
    if (input.type != DataType::kFloat32) return ctx.Error("input must be float32, got " + DataTypeName(input.type));
    if (output.type != input.type) return ctx.Error("output must be float32, got " + DataTypeName(output.type));
    if (input.rank() < 1) return ctx.Error("input must have rank >= 1, got a scalar");
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int64_t depth = input.dim(input.rank() - 1);
    if (depth == 0) return Status::Ok();
    const int64_t rows = input.num_elements() / depth;
    const float* x = input.data_as<float>();
    float* y = ctx.output(0).data_as<float>();
    const float beta = beta_;
    ctx.ParallelFor(rows, std::max<int64_t>(1, 8192 / depth), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) SoftmaxRow(x + r * depth, y + r * depth, depth, beta);
    });
    return Status::Ok();
  }

 private:
  float beta_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSoftmax(const Node& node) {
  // An absent options table means the schema default beta = 0 (TFLite does
  // the same): every output is 1 / depth.
  float beta = 0.f;
  if (const auto* o = GetOptions<tflite::SoftmaxOptions>(node)) beta = o->beta();
  if (!std::isfinite(beta)) {
    return InvalidArgumentError(node.Describe() + ": beta is " + std::to_string(beta) + "; it must be finite");
  }
  return std::unique_ptr<Kernel>(std::make_unique<SoftmaxKernel>(beta));
}

}  // namespace relite::cpu
