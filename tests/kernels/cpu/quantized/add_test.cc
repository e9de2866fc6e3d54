// Quantized ADD and SUB: XNNPACK's arithmetic where the XNNPACK delegate takes
// the node (uint8/int8, scale ratios in [2^-10, 2^8)), TFLite's elsewhere.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing::qtest;  // NOLINT

QOp AddOp(tflite::ActivationFunctionType act = tflite::ActivationFunctionType::NONE, int version = 2) {
  return {tflite::BuiltinOperator::ADD, version, tflite::BuiltinOptions::AddOptions,
          [act](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateAddOptions(fbb, act).Union(); }};
}
QOp SubOp(tflite::ActivationFunctionType act = tflite::ActivationFunctionType::NONE) {
  return {tflite::BuiltinOperator::SUB, 2, tflite::BuiltinOptions::SubOptions,
          [act](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSubOptions(fbb, act).Union(); }};
}

template <typename T>
std::vector<T> RunAdd(const QOp& op, const QTensor& a, const std::vector<T>& da, const QTensor& b,
                   const std::vector<T>& db, const QTensor& out, int threads = 1) {
  const auto r = RunQuantizedOp<T>(op, {a, b}, {Bytes(da), Bytes(db)}, out, {}, threads);
  EXPECT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  return r.out;
}

TEST(QuantizedAddTest, UnitScalesAddExactlyAndSaturate) {
  const QTensor t{DataType::kUInt8, {6}, 1.0f, 0};
  const std::vector<uint8_t> a = {0, 1, 100, 200, 255, 128};
  const std::vector<uint8_t> b = {0, 2, 100, 100, 255, 127};
  EXPECT_EQ(RunAdd(AddOp(), t, a, t, b, t), (std::vector<uint8_t>{0, 3, 200, 255, 255, 255}));
}

TEST(QuantizedAddTest, XnnpackRoundsHalvesUp) {
  // Ratios 0.5: shift 21, multipliers 2^20, bias 2^20: out = floor((a + b + 1) / 2).
  // Exact halves go up (-0.5 -> 0, -1.5 -> -1); TFLite's builtin kernel would
  // round them away from zero (-1, -2).
  const QTensor in{DataType::kInt8, {6}, 0.5f, 0};
  const QTensor out{DataType::kInt8, {6}, 1.0f, 0};
  const std::vector<int8_t> a = {1, -1, -3, 3, 127, -128};
  const std::vector<int8_t> b = {0, 0, 0, 0, 127, -128};
  EXPECT_EQ(RunAdd(AddOp(), in, a, in, b, out), (std::vector<int8_t>{1, 0, -1, 2, 127, -128}));
}

TEST(QuantizedAddTest, NegativeZeroPointsAndBroadcast) {
  // Real values: a = 0.25 * (q + 4), b = 0.5 * (q - 3); out scale 0.25, zp -10.
  const QTensor a{DataType::kInt8, {2, 3}, 0.25f, -4};
  const QTensor b{DataType::kInt8, {3}, 0.5f, 3};
  const QTensor out{DataType::kInt8, {2, 3}, 0.25f, -10};
  const std::vector<int8_t> da = {-4, 0, 8, 100, -128, 127};
  const std::vector<int8_t> db = {3, 5, -1};
  // out = -10 + (qa + 4) + 2 * (qb - 3).
  const std::vector<int8_t> want = {-10, -6 + 4, 2 - 8, 104 - 10, -128, 131 - 8 - 10};
  EXPECT_EQ(RunAdd(AddOp(), a, da, b, db, out), want);
}

TEST(QuantizedAddTest, FusedRelu6ClampsInTheOutputDomain) {
  // Output scale 0.1, zp 20: RELU6 is [20, 80] (6 / 0.1 rounds to 60).
  const QTensor in{DataType::kUInt8, {4}, 0.1f, 0};
  const QTensor out{DataType::kUInt8, {4}, 0.1f, 20};
  const std::vector<uint8_t> a = {0, 10, 50, 200};
  const std::vector<uint8_t> b = {0, 5, 20, 0};
  EXPECT_EQ(RunAdd(AddOp(tflite::ActivationFunctionType::RELU6, 1), in, a, in, b, out),
            (std::vector<uint8_t>{20, 35, 80, 80}));
}

TEST(QuantizedAddTest, UnsupportedActivationIsAnError) {
  const QTensor t{DataType::kInt8, {2}, 1.0f, 0};
  const auto r = RunQuantizedOp<int8_t>(AddOp(tflite::ActivationFunctionType::TANH), {t, t},
                                        {Bytes(std::vector<int8_t>{1, 2}), Bytes(std::vector<int8_t>{1, 2})}, t);
  EXPECT_FALSE(r.build.ok());
}

// Random scales, zero points and broadcast shapes against the real-number sum:
// every output is within one step of round(real / s_out) + zp (the XNNPACK
// multipliers carry 21 bits, so their error stays below half a step and the
// final rounding adds at most another half).
template <typename T>
void CheckAgainstFloat(bool subtract, uint32_t seed, float out_ratio_min, float out_ratio_max) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> log_scale(-3.0f, 0.0f);
  std::uniform_real_distribution<float> ratio(std::log2(out_ratio_min), std::log2(out_ratio_max));
  std::uniform_int_distribution<int> zp(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 3, 5}, {2, 3, 5}}, {{2, 3, 5}, {5}}, {{2, 1, 5}, {1, 3, 1}}, {{1, 4, 4, 8}, {1, 1, 1, 8}}, {{7}, {1}}};
  for (int iter = 0; iter < 40; ++iter) {
    const auto& [sa, sb] = shapes[static_cast<size_t>(iter) % shapes.size()];
    const float a_scale = std::pow(10.0f, log_scale(rng));
    const float b_scale = std::pow(10.0f, log_scale(rng));
    const float out_scale = std::max(a_scale, b_scale) / std::exp2(ratio(rng));
    Shape so;
    for (size_t d = 0; d < std::max(sa.size(), sb.size()); ++d) {
      const int32_t da = d < sa.size() ? sa[sa.size() - 1 - d] : 1;
      const int32_t db = d < sb.size() ? sb[sb.size() - 1 - d] : 1;
      so.insert(so.begin(), std::max(da, db));
    }
    // TFLite's int16 ADD needs zero points 0.
    const bool i16 = sizeof(T) == 2;
    const QTensor a{TypeOf<T>(), sa, a_scale, i16 ? 0 : zp(rng)};
    const QTensor b{TypeOf<T>(), sb, b_scale, i16 ? 0 : zp(rng)};
    const QTensor out{TypeOf<T>(), so, out_scale, i16 ? 0 : zp(rng)};
    const auto xa = RandomQ<T>(static_cast<size_t>(Count(sa)), rng);
    const auto xb = RandomQ<T>(static_cast<size_t>(Count(sb)), rng);
    const auto y = RunAdd(subtract ? SubOp() : AddOp(), a, xa, b, xb, out);
    ASSERT_EQ(static_cast<int64_t>(y.size()), Count(so));
    // Walk the output with broadcasting by hand.
    std::vector<int64_t> idx(so.size(), 0);
    for (size_t i = 0; i < y.size(); ++i) {
      int64_t ia = 0, ib = 0;
      for (size_t d = 0; d < so.size(); ++d) {
        const size_t off_a = so.size() - sa.size(), off_b = so.size() - sb.size();
        if (d >= off_a) ia = ia * sa[d - off_a] + (sa[d - off_a] == 1 ? 0 : idx[d]);
        if (d >= off_b) ib = ib * sb[d - off_b] + (sb[d - off_b] == 1 ? 0 : idx[d]);
      }
      const double ra = a_scale * (static_cast<double>(xa[static_cast<size_t>(ia)]) - static_cast<double>(a.zero_point));
      const double rb = b_scale * (static_cast<double>(xb[static_cast<size_t>(ib)]) - static_cast<double>(b.zero_point));
      const double q = std::round((subtract ? ra - rb : ra + rb) / out_scale) + static_cast<double>(out.zero_point);
      const double want = std::min<double>(std::max<double>(q, std::numeric_limits<T>::lowest()), std::numeric_limits<T>::max());
      ASSERT_LE(std::fabs(static_cast<double>(y[i]) - want), 1.0) << "iter " << iter << " element " << i;
      for (int d = static_cast<int>(so.size()) - 1; d >= 0; --d) {
        if (++idx[static_cast<size_t>(d)] < so[static_cast<size_t>(d)]) break;
        idx[static_cast<size_t>(d)] = 0;
      }
    }
  }
}

TEST(QuantizedAddTest, Uint8MatchesFloatReference) { CheckAgainstFloat<uint8_t>(false, 1, 0.01f, 100.0f); }
TEST(QuantizedAddTest, Int8MatchesFloatReference) { CheckAgainstFloat<int8_t>(false, 2, 0.01f, 100.0f); }
TEST(QuantizedSubTest, Uint8MatchesFloatReference) { CheckAgainstFloat<uint8_t>(true, 3, 0.01f, 100.0f); }
TEST(QuantizedSubTest, Int8MatchesFloatReference) { CheckAgainstFloat<int8_t>(true, 4, 0.01f, 100.0f); }
// Ratios the XNNPACK delegate refuses (>= 256): TFLite's fixed-point path.
TEST(QuantizedAddTest, TfliteArithmeticBeyondXnnpackRatios) { CheckAgainstFloat<int8_t>(false, 5, 300.0f, 2000.0f); }
TEST(QuantizedAddTest, Int16MatchesFloatReference) { CheckAgainstFloat<int16_t>(false, 6, 0.01f, 100.0f); }

TEST(QuantizedSubTest, SubtractsWithNegatedMultiplier) {
  const QTensor t{DataType::kInt8, {5}, 1.0f, 0};
  const std::vector<int8_t> a = {0, 10, -128, 127, 5};
  const std::vector<int8_t> b = {0, 3, 1, -1, 5};
  EXPECT_EQ(RunAdd(SubOp(), t, a, t, b, t), (std::vector<int8_t>{0, 7, -128, 127, 0}));
}

// int16 with power-of-two scales (and pot_scale_int16, the default): TFLite's
// POT kernel, one input divided by 2^k rounding half away from zero, the other
// as it is, a saturating sum or difference.
QOp Int16BinaryOp(tflite::BuiltinOperator code, bool pot_scale_int16) {
  if (code == tflite::BuiltinOperator::ADD) {
    return {code, 3, tflite::BuiltinOptions::AddOptions, [pot_scale_int16](flatbuffers::FlatBufferBuilder& fbb) {
              return tflite::CreateAddOptions(fbb, tflite::ActivationFunctionType::NONE, pot_scale_int16).Union();
            }};
  }
  return {code, 3, tflite::BuiltinOptions::SubOptions, [pot_scale_int16](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateSubOptions(fbb, tflite::ActivationFunctionType::NONE, pot_scale_int16).Union();
          }};
}

TEST(QuantizedAddTest, Int16PowerOfTwoScalesShiftOneInputAndSaturate) {
  const QTensor a{DataType::kInt16, {6}, 1.0f / 1024, 0};
  const QTensor b{DataType::kInt16, {6}, 1.0f / 4096, 0};  // b / 4
  const std::vector<int16_t> da = {100, 100, 100, 32000, -32000, 0};
  const std::vector<int16_t> db = {6, -6, 5, 8000, -8000, -2};
  // 6/4 = 1.5 -> 2, -1.5 -> -2, 1.25 -> 1, saturation both ways, -0.5 -> -1.
  EXPECT_EQ(RunAdd(Int16BinaryOp(tflite::BuiltinOperator::ADD, true), a, da, b, db, a),
            (std::vector<int16_t>{102, 98, 101, 32767, -32768, -1}));
  // SUB with the shifted input first: b / 4 - a.
  EXPECT_EQ(RunAdd(Int16BinaryOp(tflite::BuiltinOperator::SUB, true), b, db, a, da, a),
            (std::vector<int16_t>{-98, -102, -99, -30000, 30000, -1}));
}

TEST(QuantizedAddTest, Int16PotKernelNeedsOneInputAtTheOutputScale) {
  const QTensor a{DataType::kInt16, {2}, 1.0f / 1024, 0};
  const QTensor b{DataType::kInt16, {2}, 1.0f / 4096, 0};
  const auto bytes = Bytes(std::vector<int16_t>{1, 2});
  // Both inputs finer than the output: TFLite's POT kernel refuses it.
  const QTensor out{DataType::kInt16, {2}, 1.0f / 256, 0};
  const auto r = RunQuantizedOp<int16_t>(Int16BinaryOp(tflite::BuiltinOperator::ADD, true), {a, b}, {bytes, bytes}, out);
  ASSERT_FALSE(r.build.ok());
  EXPECT_NE(r.build.ToString().find("power-of-two"), std::string::npos) << r.build.ToString();
  // Without pot_scale_int16 the general kernel takes any scales.
  const auto g = RunQuantizedOp<int16_t>(Int16BinaryOp(tflite::BuiltinOperator::ADD, false), {a, b}, {bytes, bytes},
                                         out);
  EXPECT_TRUE(g.build.ok()) << g.build.ToString();
}

}  // namespace
}  // namespace relite
