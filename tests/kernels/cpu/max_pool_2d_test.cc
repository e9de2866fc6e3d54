#include <cmath>
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
using Act = tflite::ActivationFunctionType;

constexpr bool kAverage = false;  // this file tests MAX_POOL_2D
constexpr tflite::BuiltinOperator kOp = tflite::BuiltinOperator::MAX_POOL_2D;

std::vector<float> RandomVector(size_t n, std::mt19937& rng, float lo = -4.f, float hi = 4.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

void ActivationBounds(Act act, float* lo, float* hi) {
  *lo = -std::numeric_limits<float>::infinity();
  *hi = std::numeric_limits<float>::infinity();
  if (act == Act::RELU) *lo = 0.f;
  if (act == Act::RELU6) *lo = 0.f, *hi = 6.f;
  if (act == Act::RELU_N1_TO_1) *lo = -1.f, *hi = 1.f;
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

struct PoolCase {
  int batch = 1, in_h = 7, in_w = 9, channels = 3;
  int filter_h = 3, filter_w = 3, stride_h = 1, stride_w = 1;
  bool same = true;
  Act activation = Act::NONE;
  int threads = 1;
};

std::string Describe(const PoolCase& c) {
  return "in " + std::to_string(c.batch) + "x" + std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + "x" +
         std::to_string(c.channels) + " filter " + std::to_string(c.filter_h) + "x" + std::to_string(c.filter_w) +
         " stride " + std::to_string(c.stride_h) + "," + std::to_string(c.stride_w) + (c.same ? " SAME" : " VALID") +
         " act " + std::to_string(static_cast<int>(c.activation)) + " threads " + std::to_string(c.threads);
}

void RunPoolCase(const PoolCase& c, uint32_t seed = 1) {
  SCOPED_TRACE(Describe(c));
  ref::PoolGeometry g;
  g.batch = c.batch, g.in_h = c.in_h, g.in_w = c.in_w, g.channels = c.channels;
  g.filter_h = c.filter_h, g.filter_w = c.filter_w, g.stride_h = c.stride_h, g.stride_w = c.stride_w;
  g.same = c.same;
  ref::ComputePoolOutput(&g);
  ASSERT_GT(g.out_h * g.out_w, 0) << "test case has an empty output";
  std::mt19937 rng(seed);
  const std::vector<float> input = RandomVector(static_cast<size_t>(c.batch) * c.in_h * c.in_w * c.channels, rng);

  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {c.batch, c.in_h, c.in_w, c.channels});
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(kOp, 1, tflite::BuiltinOptions::Pool2DOptions,
                 tflite::CreatePool2DOptions(m.fbb(), c.same ? tflite::Padding::SAME : tflite::Padding::VALID,
                                             c.stride_w, c.stride_h, c.filter_w, c.filter_h, c.activation)
                     .Union());
  const Status built = m.Build(c.threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<float>(in, input);
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  EXPECT_EQ(m.GetOutputShape(out), (Shape{c.batch, g.out_h, g.out_w, c.channels}));
  float lo, hi;
  ActivationBounds(c.activation, &lo, &hi);
  ExpectAllNear(m.GetOutput<float>(out), ref::Pool2D(g, input, kAverage, lo, hi));
}

TEST(MaxPool2DTest, FiltersStridesPaddings) {
  for (bool same : {true, false}) {
    for (int fh : {1, 2, 3, 5}) {
      for (int fw : {1, 2, 3}) {
        for (int sh : {1, 2, 3}) {
          for (int sw : {1, 2}) {
            PoolCase c;
            c.same = same, c.filter_h = fh, c.filter_w = fw, c.stride_h = sh, c.stride_w = sw;
            RunPoolCase(c);
          }
        }
      }
    }
  }
}

TEST(MaxPool2DTest, ChannelCounts) {
  // Under 64 channels a pixel's vectors stay in registers, the last masked
  // unless the count is a multiple of the vector (28, 42: BlazeFace).
  for (int channels : {1, 2, 7, 8, 9, 16, 28, 33, 42, 48, 63, 64, 70}) {
    PoolCase c;
    c.channels = channels, c.batch = 2, c.filter_h = 2, c.filter_w = 2, c.stride_h = 2, c.stride_w = 2;
    RunPoolCase(c);
    c.same = false, c.filter_h = 3, c.stride_h = 1;
    RunPoolCase(c);
  }
}

TEST(MaxPool2DTest, Activations) {
  for (Act act : {Act::NONE, Act::RELU, Act::RELU6, Act::RELU_N1_TO_1}) {
    PoolCase c;
    c.activation = act, c.channels = 5;
    RunPoolCase(c, 3);
  }
}

TEST(MaxPool2DTest, FilterLargerThanInputWithSamePadding) {
  PoolCase c;
  c.in_h = 3, c.in_w = 2, c.filter_h = 5, c.filter_w = 6, c.stride_h = 2, c.stride_w = 3;
  RunPoolCase(c);
}

TEST(MaxPool2DTest, GlobalPoolingAndThreads) {
  PoolCase c;
  c.batch = 2, c.in_h = 7, c.in_w = 7, c.channels = 64, c.filter_h = 7, c.filter_w = 7, c.same = false;
  RunPoolCase(c);
  // Fewer than 64 channels over rows of 8+ pixels: four accumulators, and a masked tail of 4 channels.
  PoolCase wide;
  wide.in_h = 9, wide.in_w = 13, wide.channels = 20, wide.filter_h = 9, wide.filter_w = 13, wide.same = false;
  RunPoolCase(wide);
  for (int threads : {2, 4}) {
    PoolCase t;
    t.batch = 3, t.in_h = 33, t.in_w = 31, t.channels = 24, t.stride_h = 2, t.stride_w = 2, t.threads = threads;
    RunPoolCase(t, 7);
  }
  // One image's global pool in bands of input rows, one per thread (uneven
  // with 3 and 4: 61 rows), combined and clamped after.
  for (int threads : {2, 3, 4}) {
    for (Act act : {Act::NONE, Act::RELU6}) {
      PoolCase g;
      g.in_h = 61, g.in_w = 63, g.channels = 17, g.filter_h = 61, g.filter_w = 63, g.same = false;
      g.activation = act, g.threads = threads;
      RunPoolCase(g, 11);
    }
  }
}

TEST(MaxPool2DTest, KnownValues) {
  // 1x2x2x1 input, 2x2 SAME window with stride 1: every window is clipped.
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {1, 2, 2, 1});
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(kOp, 1, tflite::BuiltinOptions::Pool2DOptions,
                 tflite::CreatePool2DOptions(m.fbb(), tflite::Padding::SAME, 1, 1, 2, 2).Union());
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(in, {1.f, 2.f, 3.f, 4.f});
  ASSERT_TRUE(m.Invoke().ok());
  const std::vector<float> expected = kAverage ? std::vector<float>{2.5f, 3.f, 3.5f, 4.f}
                                               : std::vector<float>{4.f, 4.f, 4.f, 4.f};
  EXPECT_EQ(m.GetOutput<float>(out), expected);
}

Status BuildWith(DataType type, const Shape& shape, Act act, bool with_options = true, bool extra_input = false) {
  SingleOpModel m;
  m.AddInput(type, shape);
  if (extra_input) m.AddInput(type, shape);
  m.AddOutput(type);
  if (with_options) {
    m.SetBuiltinOp(kOp, 1, tflite::BuiltinOptions::Pool2DOptions,
                   tflite::CreatePool2DOptions(m.fbb(), tflite::Padding::SAME, 1, 1, 2, 2, act).Union());
  } else {
    m.SetBuiltinOp(kOp, 1);
  }
  return m.Build();
}

TEST(MaxPool2DTest, Errors) {
  EXPECT_TRUE(BuildWith(DataType::kFloat32, {1, 4, 4, 2}, Act::NONE).ok());
  EXPECT_EQ(BuildWith(DataType::kFloat32, {4, 4, 2}, Act::NONE).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildWith(DataType::kInt32, {1, 4, 4, 2}, Act::NONE).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildWith(DataType::kInt8, {1, 4, 4, 2}, Act::NONE).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(BuildWith(DataType::kFloat32, {1, 4, 4, 2}, Act::TANH).code(), StatusCode::kUnimplemented);
  EXPECT_FALSE(BuildWith(DataType::kFloat32, {1, 4, 4, 2}, Act::NONE, /*with_options=*/false).ok());
  EXPECT_EQ(BuildWith(DataType::kFloat32, {1, 4, 4, 2}, Act::NONE, true, /*extra_input=*/true).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace relite
