#include <cmath>
#include <cstdint>
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

struct ResizeCase {
  int batch = 1, in_h = 4, in_w = 5, channels = 3;
  int out_h = 8, out_w = 10;
  bool align_corners = false, half_pixel = false;
  bool no_options = false;
  int threads = 1;
};

std::string Describe(const ResizeCase& c) {
  return std::to_string(c.batch) + "x" + std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + "x" +
         std::to_string(c.channels) + " -> " + std::to_string(c.out_h) + "x" + std::to_string(c.out_w) +
         " align_corners " + std::to_string(c.align_corners) + " half_pixel " + std::to_string(c.half_pixel) +
         " threads " + std::to_string(c.threads);
}

void RunCase(const ResizeCase& c, uint32_t seed = 1) {
  SCOPED_TRACE(Describe(c));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  std::vector<float> input(static_cast<size_t>(c.batch) * c.in_h * c.in_w * c.channels);
  for (float& v : input) v = dist(rng);

  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {c.batch, c.in_h, c.in_w, c.channels});
  m.AddConstInput<int32_t>(DataType::kInt32, {2}, {c.out_h, c.out_w});
  const int out = m.AddOutput(DataType::kFloat32);
  if (c.no_options) {
    m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_BILINEAR, 1);
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_BILINEAR, 3, tflite::BuiltinOptions::ResizeBilinearOptions,
                   tflite::CreateResizeBilinearOptions(m.fbb(), c.align_corners, c.half_pixel).Union());
  }
  const Status built = m.Build(c.threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<float>(in, input);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(out), (Shape{c.batch, c.out_h, c.out_w, c.channels}));
  ExpectAllNear(m.GetOutput<float>(out), ref::ResizeBilinear(input, c.batch, c.in_h, c.in_w, c.channels, c.out_h,
                                                             c.out_w, c.align_corners, c.half_pixel));
}

struct Modes {
  bool align_corners, half_pixel;
};
constexpr Modes kModes[] = {{false, false}, {true, false}, {false, true}};

TEST(ResizeBilinearTest, UpscaleDownscaleAndOddSizes) {
  const int sizes[][4] = {{4, 5, 8, 10},  {3, 5, 7, 11}, {9, 8, 4, 3}, {6, 6, 6, 6}, {1, 1, 5, 4},
                          {5, 4, 1, 1},   {2, 7, 5, 3},  {7, 2, 3, 9}, {16, 16, 5, 7}, {3, 3, 2, 2}};
  for (const Modes& mode : kModes) {
    for (const auto& s : sizes) {
      ResizeCase c;
      c.in_h = s[0], c.in_w = s[1], c.out_h = s[2], c.out_w = s[3];
      c.align_corners = mode.align_corners, c.half_pixel = mode.half_pixel;
      RunCase(c);
    }
  }
}

TEST(ResizeBilinearTest, ChannelsAndBatches) {
  for (const Modes& mode : kModes) {
    for (int channels : {1, 2, 8, 17, 64}) {
      ResizeCase c;
      c.batch = 2, c.channels = channels, c.in_h = 5, c.in_w = 3, c.out_h = 9, c.out_w = 7;
      c.align_corners = mode.align_corners, c.half_pixel = mode.half_pixel;
      RunCase(c, 4);
    }
  }
}

TEST(ResizeBilinearTest, DefaultOptionsAndThreads) {
  ResizeCase c;
  c.no_options = true;
  RunCase(c);
  for (int threads : {2, 4}) {
    ResizeCase t;
    t.batch = 2, t.in_h = 33, t.in_w = 17, t.channels = 16, t.out_h = 65, t.out_w = 49, t.threads = threads;
    t.half_pixel = true;
    RunCase(t, 5);
  }
}

TEST(ResizeBilinearTest, KnownValues) {
  // [[1,2],[3,4]] -> 3x3 with align_corners: the corners stay, the rest are
  // midpoints.
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {1, 2, 2, 1});
  m.AddConstInput<int32_t>(DataType::kInt32, {2}, {3, 3});
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_BILINEAR, 1, tflite::BuiltinOptions::ResizeBilinearOptions,
                 tflite::CreateResizeBilinearOptions(m.fbb(), true, false).Union());
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(in, {1.f, 2.f, 3.f, 4.f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectAllNear(m.GetOutput<float>(out), {1.f, 1.5f, 2.f, 2.f, 2.5f, 3.f, 3.f, 3.5f, 4.f});
}

Status BuildResize(DataType type, const Shape& in_shape, const std::vector<int32_t>& size, bool align = false,
                   bool half = false, bool size_const = true, DataType size_type = DataType::kInt32,
                   DataType out_type = DataType::kFloat32) {
  SingleOpModel m;
  m.AddInput(type, in_shape);
  const Shape size_shape{static_cast<int32_t>(size.size())};
  if (!size_const) {
    m.AddInput(size_type, size_shape);
  } else if (size_type == DataType::kInt64) {
    m.AddConstInput<int64_t>(size_type, size_shape, std::vector<int64_t>(size.begin(), size.end()));
  } else {
    m.AddConstInput<int32_t>(size_type, size_shape, size);
  }
  m.AddOutput(out_type);
  m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_BILINEAR, 1, tflite::BuiltinOptions::ResizeBilinearOptions,
                 tflite::CreateResizeBilinearOptions(m.fbb(), align, half).Union());
  return m.Build();
}

TEST(ResizeBilinearTest, Errors) {
  const DataType f32 = DataType::kFloat32, i32 = DataType::kInt32;
  EXPECT_TRUE(BuildResize(f32, {1, 2, 2, 1}, {4, 4}).ok());
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4, 4}, true, true).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(f32, {2, 2, 1}, {4, 4}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4, 4, 4}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {0, 4}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4, 4}, false, false, false).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4, 4}, false, false, true, DataType::kInt64).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(i32, {1, 2, 2, 1}, {4, 4}, false, false, true, i32, i32).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(DataType::kInt16, {1, 2, 2, 1}, {4, 4}, false, false, true, i32, DataType::kInt16).code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4, 4}, false, false, true, i32, i32).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace relite
