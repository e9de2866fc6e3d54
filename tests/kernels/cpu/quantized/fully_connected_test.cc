// 8-bit FULLY_CONNECTED against a naive exact reference of XNNPACK's
// arithmetic, a float reference, and hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "src/kernels/cpu/internal/quantization.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;

Quantization Q(std::vector<float> scale, std::vector<int64_t> zp, int dim = 0) {
  Quantization q;
  q.scale = std::move(scale);
  q.zero_point = std::move(zp);
  q.quantized_dimension = dim;
  return q;
}

struct FcSetup {
  DataType type = DataType::kUInt8;
  int batch = 1, depth = 8, units = 4;
  float in_scale = 0.05f, out_scale = 0.1f;
  int in_zp = 0, out_zp = 0;
  std::vector<float> w_scale = {0.02f};
  int w_zp = 0;
  tflite::ActivationFunctionType act = tflite::ActivationFunctionType::NONE;
  int threads = 1;
};

std::vector<uint8_t> RunFc(const FcSetup& s, const std::vector<uint8_t>& x, const std::vector<uint8_t>& w,
                           const std::vector<int32_t>& bias) {
  SingleOpModel m;
  const int in = m.AddInput(s.type, {s.batch, s.depth}, Q({s.in_scale}, {s.in_zp}));
  std::vector<int64_t> wzp(s.w_scale.size(), s.w_zp);
  m.AddConstInputBytes(s.type, {s.units, s.depth}, w, Q(s.w_scale, wzp));
  if (!bias.empty()) m.AddConstInput<int32_t>(DataType::kInt32, {s.units}, bias, Q({s.in_scale * s.w_scale[0]}, {0}));
  const int out = m.AddOutput(s.type, {s.batch, s.units}, Q({s.out_scale}, {s.out_zp}));
  m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 4, tflite::BuiltinOptions::FullyConnectedOptions,
                 tflite::CreateFullyConnectedOptions(m.fbb(), s.act).Union());
  const Status st = m.Build(s.threads);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (!st.ok()) return {};
  m.SetInput<uint8_t>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<uint8_t>(out);
}

int32_t Val(DataType t, uint8_t b) { return t == DataType::kInt8 ? static_cast<int8_t>(b) : b; }

// XNNPACK: clamp(round_half_even(acc * (in_scale * w_scale / out_scale)) + zp).
std::vector<uint8_t> Reference(const FcSetup& s, const std::vector<uint8_t>& x, const std::vector<uint8_t>& w,
                               const std::vector<int32_t>& bias, int32_t qmin, int32_t qmax) {
  std::vector<uint8_t> y(static_cast<size_t>(s.batch) * s.units);
  for (int b = 0; b < s.batch; ++b) {
    for (int o = 0; o < s.units; ++o) {
      int64_t acc = bias.empty() ? 0 : bias[o];
      for (int k = 0; k < s.depth; ++k) {
        acc += static_cast<int64_t>(Val(s.type, x[b * s.depth + k]) - s.in_zp) * (Val(s.type, w[o * s.depth + k]) - s.w_zp);
      }
      const float ws = s.w_scale.size() > 1 ? s.w_scale[o] : s.w_scale[0];
      const float scale = s.in_scale * ws / s.out_scale;
      const float r = std::nearbyint(std::clamp(static_cast<float>(acc) * scale, static_cast<float>(qmin - s.out_zp),
                                                static_cast<float>(qmax - s.out_zp)));
      y[b * s.units + o] = static_cast<uint8_t>(static_cast<int32_t>(r) + s.out_zp);
    }
  }
  return y;
}

TEST(QuantizedFullyConnected, HandComputedUint8RoundsHalfToEven) {
  // acc = (x - 10) * (w - 3): x = {12, 13, 15, 17}, w = 4 -> acc 2, 3, 5, 7;
  // scale 0.5 * 1 / 1 = 0.5 -> 1, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4 (half to even), + zp 100.
  FcSetup s;
  s.batch = 4;
  s.depth = 1;
  s.units = 1;
  s.in_scale = 0.5f;
  s.w_scale = {1.f};
  s.out_scale = 1.f;
  s.in_zp = 10;
  s.w_zp = 3;
  s.out_zp = 100;
  const std::vector<uint8_t> y = RunFc(s, {12, 13, 15, 17}, {4}, {});
  EXPECT_EQ(y, (std::vector<uint8_t>{101, 102, 102, 104}));
}

TEST(QuantizedFullyConnected, HandComputedInt8SaturatesAndRelu) {
  // int8, zp_in = -5: x = {-5, 100}, w = {1, 2}: acc = 0 + 105 * 2 = 210, bias -20 -> 190;
  // scale 1 -> 190 + (-3) saturates to 127. Second unit: w = {-1, -1} -> -105 - 20 = -125, + zp -> -128;
  // with RELU the lower bound is zp = -3.
  FcSetup s;
  s.type = DataType::kInt8;
  s.depth = 2;
  s.units = 2;
  s.in_scale = 1.f;
  s.w_scale = {1.f};
  s.out_scale = 1.f;
  s.in_zp = -5;
  s.out_zp = -3;
  const std::vector<uint8_t> x = {static_cast<uint8_t>(-5), 100};
  const std::vector<uint8_t> w = {1, 2, static_cast<uint8_t>(-1), static_cast<uint8_t>(-1)};
  std::vector<uint8_t> y = RunFc(s, x, w, {-20, -20});
  EXPECT_EQ(static_cast<int8_t>(y[0]), 127);
  EXPECT_EQ(static_cast<int8_t>(y[1]), -128);
  s.act = tflite::ActivationFunctionType::RELU;
  y = RunFc(s, x, w, {-20, -20});
  EXPECT_EQ(static_cast<int8_t>(y[1]), -3);
}

TEST(QuantizedFullyConnected, RandomMatchesReferenceAndFloat) {
  std::mt19937 rng(5);
  auto U = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  for (int iter = 0; iter < 24; ++iter) {
    FcSetup s;
    const int kind = iter % 3;  // uint8, int8 per-tensor, int8 per-channel
    s.type = kind == 0 ? DataType::kUInt8 : DataType::kInt8;
    s.batch = iter % 4 == 3 ? U(1, 2) : U(1, 9);  // 1-2 rows: byte-packed weights
    s.depth = U(1, 200);
    s.units = U(1, 40);
    s.threads = 1 + iter % 2;
    const int lo = kind == 0 ? 0 : -128, hi = kind == 0 ? 255 : 127;
    s.in_zp = U(lo, hi);
    s.out_zp = U(lo, hi);
    s.in_scale = 0.01f + 0.001f * U(0, 50);
    s.out_scale = 0.05f + 0.01f * U(0, 30);
    s.w_zp = kind == 0 ? U(0, 255) : 0;
    s.w_scale = {0.002f + 0.0005f * U(0, 20)};
    if (kind == 2) {
      s.w_scale.clear();
      for (int o = 0; o < s.units; ++o) s.w_scale.push_back(0.002f + 0.0005f * U(0, 20));
    }
    s.act = iter % 4 == 1 ? tflite::ActivationFunctionType::RELU6 : tflite::ActivationFunctionType::NONE;
    std::vector<uint8_t> x(static_cast<size_t>(s.batch) * s.depth), w(static_cast<size_t>(s.units) * s.depth);
    for (auto& v : x) v = static_cast<uint8_t>(U(lo, hi));
    for (auto& v : w) v = static_cast<uint8_t>(U(kind == 0 ? 0 : -127, kind == 0 ? 255 : 127));
    std::vector<int32_t> bias(static_cast<size_t>(s.units));
    for (auto& v : bias) v = U(-5000, 5000);
    SCOPED_TRACE("iter " + std::to_string(iter));
    const std::vector<uint8_t> y = RunFc(s, x, w, bias);
    int32_t qmin = lo, qmax = hi;
    if (s.act == tflite::ActivationFunctionType::RELU6) {
      qmin = std::max(lo, static_cast<int32_t>(std::lrintf(0.f / s.out_scale + static_cast<float>(s.out_zp))));
      qmax = std::min(hi, static_cast<int32_t>(std::lrintf(6.f / s.out_scale + static_cast<float>(s.out_zp))));
    }
    const std::vector<uint8_t> expected = Reference(s, x, w, bias, qmin, qmax);
    ASSERT_EQ(y, expected);
    // Float sanity: within half an output step (+ float rounding) of the real product.
    for (int b = 0; b < s.batch; ++b) {
      for (int o = 0; o < s.units; ++o) {
        double real = bias[o] * static_cast<double>(s.in_scale) * (s.w_scale.size() > 1 ? s.w_scale[o] : s.w_scale[0]);
        for (int k = 0; k < s.depth; ++k) {
          real += (Val(s.type, x[b * s.depth + k]) - s.in_zp) * static_cast<double>(s.in_scale) *
                  (Val(s.type, w[o * s.depth + k]) - s.w_zp) * (s.w_scale.size() > 1 ? s.w_scale[o] : s.w_scale[0]);
        }
        const double q = std::clamp(real / s.out_scale + s.out_zp, static_cast<double>(qmin), static_cast<double>(qmax));
        EXPECT_NEAR(Val(s.type, y[b * s.units + o]), q, 0.5001 + 1e-3 * std::fabs(q));
      }
    }
  }
}

// Batch 1-2 packs the weights as bytes, larger batches as int16 panels, and
// a resize across that line repacks them (either packing computes any batch
// exactly; the choice is speed). Every repack, in both directions, must
// leave the results exact.
TEST(QuantizedFullyConnected, ResizeAcrossTheBytePackingLineStaysExact) {
  std::mt19937 rng(9);
  auto U = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  FcSetup s;
  s.depth = 37;
  s.units = 21;
  s.in_zp = 7;
  s.out_zp = 120;
  s.w_zp = 131;
  std::vector<uint8_t> w(static_cast<size_t>(s.units) * s.depth);
  for (auto& v : w) v = static_cast<uint8_t>(U(0, 255));
  std::vector<int32_t> bias(static_cast<size_t>(s.units));
  for (auto& v : bias) v = U(-3000, 3000);
  SingleOpModel m;
  const int in = m.AddInput(s.type, {1, s.depth}, Q({s.in_scale}, {s.in_zp}));
  m.AddConstInputBytes(s.type, {s.units, s.depth}, w, Q(s.w_scale, {s.w_zp}));
  m.AddConstInput<int32_t>(DataType::kInt32, {s.units}, bias, Q({s.in_scale * s.w_scale[0]}, {0}));
  const int out = m.AddOutput(s.type, {1, s.units}, Q({s.out_scale}, {s.out_zp}));
  m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 4, tflite::BuiltinOptions::FullyConnectedOptions,
                 tflite::CreateFullyConnectedOptions(m.fbb()).Union());
  ASSERT_TRUE(m.Build().ok());
  for (int batch : {1, 5, 2, 9, 1}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    if (batch != m.interpreter().input_tensor(0)->dim(0)) {
      ASSERT_TRUE(m.interpreter().ResizeInputTensor(0, {batch, s.depth}).ok());
      ASSERT_TRUE(m.interpreter().AllocateTensors().ok());
    }
    s.batch = batch;
    std::vector<uint8_t> x(static_cast<size_t>(batch) * s.depth);
    for (auto& v : x) v = static_cast<uint8_t>(U(0, 255));
    m.SetInput<uint8_t>(in, x);
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutput<uint8_t>(out), Reference(s, x, w, bias, 0, 255));
  }
}

}  // namespace
}  // namespace relite
