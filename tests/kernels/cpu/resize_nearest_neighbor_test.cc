#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/reference/reduce_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

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

// Every element distinct (as far as the type allows), so a wrong source
// pixel shows.
template <typename T>
std::vector<T> Data(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<float> dist(-100.f, 100.f);
    for (T& x : v) x = dist(rng);
  } else {
    std::uniform_int_distribution<int> dist(-128, 127);
    for (T& x : v) x = static_cast<T>(dist(rng));
  }
  return v;
}

template <typename T>
void RunCase(const ResizeCase& c, uint32_t seed = 1) {
  SCOPED_TRACE(Describe(c) + " dtype " + DataTypeName(DataTypeOf<T>()));
  const std::vector<T> input = Data<T>(static_cast<size_t>(c.batch) * c.in_h * c.in_w * c.channels, seed);
  SingleOpModel m;
  const int in = m.AddInput(DataTypeOf<T>(), {c.batch, c.in_h, c.in_w, c.channels});
  m.AddConstInput<int32_t>(DataType::kInt32, {2}, {c.out_h, c.out_w});
  const int out = m.AddOutput(DataTypeOf<T>());
  if (c.no_options) {
    m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, 1);
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, 3,
                   tflite::BuiltinOptions::ResizeNearestNeighborOptions,
                   tflite::CreateResizeNearestNeighborOptions(m.fbb(), c.align_corners, c.half_pixel).Union());
  }
  const Status built = m.Build(c.threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<T>(in, input);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(out), (Shape{c.batch, c.out_h, c.out_w, c.channels}));
  EXPECT_EQ(m.GetOutput<T>(out), ref::ResizeNearest<T>(input, c.batch, c.in_h, c.in_w, c.channels, c.out_h, c.out_w,
                                                        c.align_corners, c.half_pixel));
}

struct Modes {
  bool align_corners, half_pixel;
};
constexpr Modes kModes[] = {{false, false}, {true, false}, {false, true}, {true, true}};

template <typename T>
void RunSizeSweep() {
  const int sizes[][4] = {{4, 5, 8, 10}, {3, 5, 7, 11}, {9, 8, 4, 3},  {6, 6, 6, 6},   {1, 1, 5, 4},
                          {5, 4, 1, 1},  {2, 7, 5, 3},  {7, 2, 3, 9},  {16, 16, 5, 7}, {3, 3, 2, 2}};
  for (const Modes& mode : kModes) {
    for (const auto& s : sizes) {
      for (int channels : {1, 3}) {
        ResizeCase c;
        c.in_h = s[0], c.in_w = s[1], c.out_h = s[2], c.out_w = s[3], c.channels = channels;
        c.align_corners = mode.align_corners, c.half_pixel = mode.half_pixel;
        RunCase<T>(c);
      }
    }
  }
}

TEST(ResizeNearestNeighborTest, Float32Sizes) { RunSizeSweep<float>(); }
TEST(ResizeNearestNeighborTest, UInt8Sizes) { RunSizeSweep<uint8_t>(); }
TEST(ResizeNearestNeighborTest, Int8Sizes) { RunSizeSweep<int8_t>(); }
TEST(ResizeNearestNeighborTest, Int32Sizes) { RunSizeSweep<int32_t>(); }

TEST(ResizeNearestNeighborTest, OtherTypesAndChannels) {
  for (int channels : {2, 8, 17}) {
    ResizeCase c;
    c.batch = 2, c.channels = channels, c.half_pixel = true;
    RunCase<int16_t>(c);
    RunCase<int64_t>(c);
    RunCase<float>(c);
  }
}

TEST(ResizeNearestNeighborTest, DefaultOptionsAndThreads) {
  ResizeCase c;
  c.no_options = true;
  RunCase<float>(c);
  for (int threads : {2, 4}) {
    ResizeCase t;
    t.batch = 2, t.in_h = 33, t.in_w = 17, t.channels = 16, t.out_h = 65, t.out_w = 49, t.threads = threads;
    t.half_pixel = true;
    RunCase<uint8_t>(t, 5);
  }
}

TEST(ResizeNearestNeighborTest, KnownValues) {
  // [[1,2],[3,4]] doubled: each pixel becomes a 2x2 block.
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {1, 2, 2, 1});
  m.AddConstInput<int32_t>(DataType::kInt32, {2}, {4, 4});
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, 1,
                 tflite::BuiltinOptions::ResizeNearestNeighborOptions,
                 tflite::CreateResizeNearestNeighborOptions(m.fbb(), false, false).Union());
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(in, {1.f, 2.f, 3.f, 4.f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(out), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

Status BuildResize(DataType type, const Shape& in_shape, const std::vector<int32_t>& size, bool size_const = true,
                   DataType out_type = DataType::kFloat32) {
  SingleOpModel m;
  m.AddInput(type, in_shape);
  const Shape size_shape{static_cast<int32_t>(size.size())};
  if (size_const) {
    m.AddConstInput<int32_t>(DataType::kInt32, size_shape, size);
  } else {
    m.AddInput(DataType::kInt32, size_shape);
  }
  m.AddOutput(out_type);
  m.SetBuiltinOp(tflite::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, 1,
                 tflite::BuiltinOptions::ResizeNearestNeighborOptions,
                 tflite::CreateResizeNearestNeighborOptions(m.fbb(), false, false).Union());
  return m.Build();
}

TEST(ResizeNearestNeighborTest, Errors) {
  const DataType f32 = DataType::kFloat32;
  EXPECT_TRUE(BuildResize(f32, {1, 2, 2, 1}, {4, 4}).ok());
  EXPECT_EQ(BuildResize(f32, {2, 2, 1}, {4, 4}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4, -1}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4, 4}, false).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(BuildResize(f32, {1, 2, 2, 1}, {4, 4}, true, DataType::kUInt8).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace relite
