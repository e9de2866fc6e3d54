#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

// PAD (and PADV2 when `value` is given) of a runtime input.
template <typename T>
void CheckPad(DataType dt, const ref::Tensor<T>& input, const std::vector<std::pair<int, int>>& pads,
              bool paddings_int64, const T* value, T expected_fill, int threads = 1, const Quantization& q = {}) {
  SCOPED_TRACE("input " + ShapeToString(input.shape));
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape, q);
  const Shape pad_shape = {static_cast<int32_t>(pads.size()), 2};
  if (paddings_int64) {
    std::vector<int64_t> p;
    for (const auto& [b, a] : pads) p.insert(p.end(), {b, a});
    m.AddConstInput<int64_t>(DataType::kInt64, pad_shape, p);
  } else {
    std::vector<int32_t> p;
    for (const auto& [b, a] : pads) p.insert(p.end(), {b, a});
    m.AddConstInput<int32_t>(DataType::kInt32, pad_shape, p);
  }
  if (value != nullptr) m.AddConstInput<T>(dt, {}, {*value}, q);
  const int out = m.AddOutput(dt, {}, q);
  if (value != nullptr) {
    m.SetBuiltinOp(tflite::BuiltinOperator::PADV2, 1, tflite::BuiltinOptions::PadV2Options,
                   tflite::CreatePadV2Options(m.fbb()).Union());
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::PAD, 1);
  }
  const Status built = m.Build(threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<T>(in, input.data);
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  const ref::Tensor<T> expected = ref::Pad(input, pads, expected_fill);
  EXPECT_EQ(m.GetOutputShape(out), expected.shape);
  EXPECT_EQ(m.GetOutput<T>(out), expected.data);
}

std::vector<std::pair<int, int>> RandomPads(std::mt19937& rng, int rank) {
  std::vector<std::pair<int, int>> pads;
  for (int d = 0; d < rank; ++d) {
    // Often leave dimensions unpadded so that dimension merging is exercised.
    const bool padded = rng() % 2 == 0;
    pads.emplace_back(padded ? static_cast<int>(rng() % 4) : 0, padded ? static_cast<int>(rng() % 4) : 0);
  }
  return pads;
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 60; ++iter) {
    // Rank >= 1: a rank-0 input needs an empty [0, 2] paddings constant,
    // which the model loader cannot represent.
    const int rank = 1 + static_cast<int>(rng() % 5);
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 0, 4), is_bool);
    CheckPad<T>(dt, input, RandomPads(rng, rank), rng() % 2 == 0, nullptr, T{0});
  }
}

TEST(Pad, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Pad, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(Pad, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(Pad, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 4); }
TEST(Pad, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 5); }
TEST(Pad, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 6); }

TEST(Pad, QuantizedPadsWithZeroPoint) {
  std::mt19937 rng(7);
  Quantization q;
  q.scale = {0.1f};
  q.zero_point = {7};
  const ref::Tensor<uint8_t> input = ref::RandomTensor<uint8_t>(rng, {1, 3, 4, 2});
  CheckPad<uint8_t>(DataType::kUInt8, input, {{0, 0}, {1, 2}, {2, 1}, {0, 0}}, false, nullptr, uint8_t{7}, 1, q);
  q.zero_point = {-5};
  const ref::Tensor<int8_t> input8 = ref::RandomTensor<int8_t>(rng, {2, 3, 3});
  CheckPad<int8_t>(DataType::kInt8, input8, {{1, 0}, {0, 0}, {1, 1}}, true, nullptr, int8_t{-5}, 1, q);
}

TEST(Pad, LargeMultiThreaded) {
  std::mt19937 rng(8);
  const ref::Tensor<float> input = ref::RandomTensor<float>(rng, {4, 64, 64, 16});
  CheckPad<float>(DataType::kFloat32, input, {{0, 0}, {1, 1}, {2, 1}, {0, 0}}, false, nullptr, 0.f, 4);
  CheckPad<float>(DataType::kFloat32, input, {{1, 0}, {0, 0}, {0, 0}, {3, 5}}, false, nullptr, 0.f, 4);
}

// Channel padding of 4-byte elements: short rows written inline, with runs
// shorter and longer than one vector, before and after, and a PADV2 value.
TEST(Pad, ShortChannelRows) {
  std::mt19937 rng(9);
  for (int channels : {3, 8, 13, 24}) {
    const ref::Tensor<float> input = ref::RandomTensor<float>(rng, {2, 5, 7, channels});
    CheckPad<float>(DataType::kFloat32, input, {{0, 0}, {0, 0}, {0, 0}, {0, 4}}, false, nullptr, 0.f);
    CheckPad<float>(DataType::kFloat32, input, {{0, 0}, {0, 0}, {0, 0}, {9, 2}}, false, nullptr, 0.f, 2);
    const float value = -2.5f;
    CheckPad<float>(DataType::kFloat32, input, {{0, 0}, {1, 0}, {0, 0}, {5, 11}}, false, &value, value);
    const ref::Tensor<int32_t> ints = ref::RandomTensor<int32_t>(rng, {3, channels});
    const int32_t fill = 77;
    CheckPad<int32_t>(DataType::kInt32, ints, {{0, 0}, {2, 9}}, true, &fill, fill);
  }
}

TEST(Pad, EmptyInput) {
  CheckPad<float>(DataType::kFloat32, {{0, 3}, {}}, {{1, 1}, {0, 2}}, false, nullptr, 0.f);
}

Status BuildPad(const Shape& input, DataType paddings_type, const Shape& paddings_shape,
                const std::vector<int32_t>& paddings, bool paddings_constant = true) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, input);
  if (paddings_constant) {
    if (paddings_type == DataType::kInt32) {
      m.AddConstInput<int32_t>(paddings_type, paddings_shape, paddings);
    } else {
      std::vector<float> f(paddings.begin(), paddings.end());
      m.AddConstInput<float>(paddings_type, paddings_shape, f);
    }
  } else {
    m.AddInput(paddings_type, paddings_shape);
  }
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::PAD, 1);
  return m.Build();
}

TEST(Pad, Errors) {
  EXPECT_TRUE(BuildPad({2, 3}, DataType::kInt32, {2, 2}, {1, 1, 0, 2}).ok());
  EXPECT_EQ(BuildPad({2, 3}, DataType::kInt32, {3, 2}, {1, 1, 0, 2, 0, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildPad({2, 3}, DataType::kInt32, {2, 3}, {1, 1, 0, 2, 0, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildPad({2, 3}, DataType::kInt32, {2, 2}, {1, -1, 0, 2}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildPad({2, 3}, DataType::kFloat32, {2, 2}, {1, 1, 0, 2}).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(BuildPad({2, 3}, DataType::kInt32, {2, 2}, {}, false).ok());  // runtime paddings: prepared at Invoke
  {
    SingleOpModel m;  // missing paddings
    m.AddInput(DataType::kFloat32, {2});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::PAD, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;  // output dtype differs
    m.AddInput(DataType::kFloat32, {2});
    m.AddConstInput<int32_t>(DataType::kInt32, {1, 2}, {1, 1});
    m.AddOutput(DataType::kInt32);
    m.SetBuiltinOp(tflite::BuiltinOperator::PAD, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace relite
