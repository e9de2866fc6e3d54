#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/reference/reduce_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

std::vector<float> RandomVector(size_t n, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

void ExpectAllNear(const std::vector<float>& actual, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(actual.size(), expected.size());
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (!(std::fabs(actual[i] - expected[i]) <= tol * (1.f + std::fabs(expected[i])))) {
      ADD_FAILURE() << "index " << i << ": got " << actual[i] << ", expected " << expected[i];
      if (++reported >= 10) return;
    }
  }
}

// Runs SOFTMAX and returns the output; beta < -1e30 means "no options table".
std::vector<float> RunSoftmax(const Shape& shape, const std::vector<float>& input, float beta, int threads = 1) {
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, shape);
  const int out = m.AddOutput(DataType::kFloat32);
  if (beta < -1e30f) {
    m.SetBuiltinOp(tflite::BuiltinOperator::SOFTMAX, 1);
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::SOFTMAX, 1, tflite::BuiltinOptions::SoftmaxOptions,
                   tflite::CreateSoftmaxOptions(m.fbb(), beta).Union());
  }
  const Status built = m.Build(threads);
  EXPECT_TRUE(built.ok()) << built.ToString();
  if (!built.ok()) return {};
  m.SetInput<float>(in, input);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(out), shape);
  return m.GetOutput<float>(out);
}

void RunCase(const Shape& shape, float beta, float lo = -5.f, float hi = 5.f, int threads = 1, uint32_t seed = 1) {
  SCOPED_TRACE("shape " + ShapeToString(shape) + " beta " + std::to_string(beta) + " threads " +
               std::to_string(threads));
  std::mt19937 rng(seed);
  const std::vector<float> input = RandomVector(static_cast<size_t>(NumElements(shape)), rng, lo, hi);
  ExpectAllNear(RunSoftmax(shape, input, beta, threads), ref::Softmax(input, shape.back(), beta));
}

TEST(SoftmaxTest, RanksAndDepths) {
  RunCase({7}, 1.f);
  RunCase({1, 10}, 1.f);
  RunCase({3, 1000}, 1.f);
  RunCase({2, 3, 4, 17}, 1.f);
  RunCase({2, 5, 1}, 1.f);  // depth 1: every output is 1
  RunCase({2, 2, 2, 2, 2, 5}, 1.f);
  RunCase({3, 33}, 1.f);
}

TEST(SoftmaxTest, Betas) {
  for (float beta : {1.f, 0.5f, 2.f, 0.f, -1.5f, 0.01f}) RunCase({4, 21}, beta);
}

TEST(SoftmaxTest, DefaultOptionsMeanBetaZero) {
  const std::vector<float> out = RunSoftmax({2, 4}, {1.f, 2.f, 3.f, 4.f, -5.f, 0.f, 5.f, 9.f}, -2e30f);
  ExpectAllNear(out, std::vector<float>(8, 0.25f));
}

TEST(SoftmaxTest, LargeLogitsAreStable) {
  RunCase({5, 64}, 1.f, -1000.f, 1000.f);
  RunCase({5, 64}, -1.f, -1000.f, 1000.f);
  RunCase({5, 64}, 1.f, 1e6f, 1e6f + 20.f);
  const std::vector<float> out = RunSoftmax({3}, {1000.f, 1001.f, 1002.f}, 1.f);
  ExpectAllNear(out, ref::Softmax({0.f, 1.f, 2.f}, 3, 1.f));
}

TEST(SoftmaxTest, NegativeInfinityGivesZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> out = RunSoftmax({1, 4}, {-inf, 0.f, -inf, 0.f}, 1.f);
  EXPECT_EQ(out, (std::vector<float>{0.f, 0.5f, 0.f, 0.5f}));
}

TEST(SoftmaxTest, LongRowsAndThreads) {
  RunCase({2, 50000}, 1.f, -10.f, 10.f);
  for (int threads : {2, 4}) RunCase({257, 100}, 1.f, -5.f, 5.f, threads, 9);
}

Status BuildSoftmax(DataType type, const Shape& shape, int num_inputs = 1, DataType out_type = DataType::kFloat32) {
  SingleOpModel m;
  for (int i = 0; i < num_inputs; ++i) m.AddInput(type, shape);
  m.AddOutput(out_type);
  m.SetBuiltinOp(tflite::BuiltinOperator::SOFTMAX, 1, tflite::BuiltinOptions::SoftmaxOptions,
                 tflite::CreateSoftmaxOptions(m.fbb(), 1.f).Union());
  return m.Build();
}

TEST(SoftmaxTest, Errors) {
  EXPECT_TRUE(BuildSoftmax(DataType::kFloat32, {2, 3}).ok());
  EXPECT_EQ(BuildSoftmax(DataType::kInt32, {2, 3}, 1, DataType::kInt32).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildSoftmax(DataType::kInt8, {2, 3}, 1, DataType::kInt8).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(BuildSoftmax(DataType::kFloat32, {2, 3}, 1, DataType::kInt32).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildSoftmax(DataType::kFloat32, {}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildSoftmax(DataType::kFloat32, {2, 3}, 2).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace relite
