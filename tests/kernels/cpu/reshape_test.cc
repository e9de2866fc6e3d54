#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

enum class ShapeSource { kInputInt32, kInputInt64, kOptions, kBoth };

template <typename T>
StatusOr<std::pair<Shape, std::vector<T>>> RunReshape(DataType dt, const ref::Tensor<T>& input,
                                                      const std::vector<int32_t>& new_shape, ShapeSource source,
                                                      int threads = 1) {
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  const Shape shape_dims = {static_cast<int32_t>(new_shape.size())};
  if (source == ShapeSource::kInputInt32 || source == ShapeSource::kBoth) {
    m.AddConstInput<int32_t>(DataType::kInt32, shape_dims, new_shape);
  } else if (source == ShapeSource::kInputInt64) {
    m.AddConstInput<int64_t>(DataType::kInt64, shape_dims, std::vector<int64_t>(new_shape.begin(), new_shape.end()));
  }
  const int out = m.AddOutput(dt);
  if (source == ShapeSource::kOptions || source == ShapeSource::kBoth) {
    // With both, the options carry a wrong shape: the input must win.
    std::vector<int32_t> opt = new_shape;
    if (source == ShapeSource::kBoth) opt = {1, 1, 1, 1, 1, 7};
    m.SetBuiltinOp(tflite::BuiltinOperator::RESHAPE, 1, tflite::BuiltinOptions::ReshapeOptions,
                   tflite::CreateReshapeOptions(m.fbb(), m.fbb().CreateVector(opt)).Union());
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::RESHAPE, 1);
  }
  RELITE_RETURN_IF_ERROR(m.Build(threads));
  m.SetInput<T>(in, input.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  return std::make_pair(m.GetOutputShape(out), m.GetOutput<T>(out));
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 60; ++iter) {
    const int rank = static_cast<int>(rng() % 5);
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 1, 4), is_bool);
    // A random factorisation of the element count, with maybe one -1.
    int64_t remaining = ref::Count(input.shape);
    std::vector<int32_t> target;
    for (int64_t f = 2; f <= remaining;) {
      if (remaining % f == 0 && rng() % 2 == 0) {
        target.push_back(static_cast<int32_t>(f));
        remaining /= f;
      } else {
        ++f;
      }
    }
    if (remaining > 1) target.push_back(static_cast<int32_t>(remaining));
    if (rng() % 2 == 0) target.insert(target.begin() + static_cast<long>(rng() % (target.size() + 1)), 1);
    Shape expected_shape(target.begin(), target.end());
    if (!target.empty() && rng() % 2 == 0) target[rng() % target.size()] = -1;
    auto source = static_cast<ShapeSource>(rng() % 4);
    // The loader cannot store an empty constant, so a scalar target shape
    // comes from the options.
    if (target.empty()) source = ShapeSource::kOptions;
    SCOPED_TRACE("input " + ShapeToString(input.shape) + " -> " + ShapeToString(expected_shape));
    auto result = RunReshape<T>(dt, input, target, source);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->first, expected_shape);
    EXPECT_EQ(result->second, input.data);
  }
}

TEST(Reshape, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Reshape, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(Reshape, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(Reshape, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(Reshape, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(Reshape, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(Reshape, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

TEST(Reshape, ToScalarAndLarge) {
  std::mt19937 rng(8);
  auto scalar = RunReshape<float>(DataType::kFloat32, {{1, 1}, {2.5f}}, {}, ShapeSource::kOptions);
  ASSERT_TRUE(scalar.ok()) << scalar.status().ToString();
  EXPECT_EQ(scalar->first, Shape{});
  EXPECT_EQ(scalar->second, std::vector<float>{2.5f});
  const ref::Tensor<float> big = ref::RandomTensor<float>(rng, {8, 128, 128});
  auto r = RunReshape<float>(DataType::kFloat32, big, {-1, 64}, ShapeSource::kInputInt32, 4);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->first, (Shape{2048, 64}));
  EXPECT_EQ(r->second, big.data);
}

TEST(Reshape, Errors) {
  const ref::Tensor<float> in{{2, 3}, std::vector<float>(6, 1.f)};
  auto code = [&](const std::vector<int32_t>& s, ShapeSource src = ShapeSource::kInputInt32) {
    return RunReshape<float>(DataType::kFloat32, in, s, src).status().code();
  };
  EXPECT_EQ(code({4, 2}), StatusCode::kInvalidArgument);        // element count mismatch
  EXPECT_EQ(code({4, 2}, ShapeSource::kOptions), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({-1, -1}), StatusCode::kInvalidArgument);      // two -1
  EXPECT_EQ(code({-1, 4}), StatusCode::kInvalidArgument);       // 6 % 4 != 0
  EXPECT_EQ(code({-2, -3}), StatusCode::kInvalidArgument);      // negative
  EXPECT_EQ(code({0, -1}), StatusCode::kInvalidArgument);       // cannot infer with a zero
  {
    SingleOpModel m;  // no shape at all
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::RESHAPE, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;  // runtime shape tensor
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddInput(DataType::kInt32, {2});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::RESHAPE, 1);
    ASSERT_TRUE(m.Build().ok());  // runtime shape: prepared at Invoke (dynamic shapes)
    m.SetInput<int32_t>(1, {3, -1});
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutputShape(2), (Shape{3, 2}));
    m.SetInput<int32_t>(1, {4, 4});
    EXPECT_FALSE(m.Invoke().ok());  // 16 elements from 6
  }
  {
    SingleOpModel m;  // output dtype differs
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddConstInput<int32_t>(DataType::kInt32, {1}, {6});
    m.AddOutput(DataType::kInt32);
    m.SetBuiltinOp(tflite::BuiltinOperator::RESHAPE, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace relite
