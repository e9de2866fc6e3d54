#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/testing/reference/conv_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

std::vector<float> RandomVector(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

void ActivationBounds(tflite::ActivationFunctionType act, float* lo, float* hi) {
  *lo = -std::numeric_limits<float>::infinity();
  *hi = std::numeric_limits<float>::infinity();
  if (act == tflite::ActivationFunctionType::RELU) *lo = 0.f;
  if (act == tflite::ActivationFunctionType::RELU6) *lo = 0.f, *hi = 6.f;
  if (act == tflite::ActivationFunctionType::RELU_N1_TO_1) *lo = -1.f, *hi = 1.f;
}

void ExpectAllNear(const std::vector<float>& actual, const std::vector<float>& expected, float tol) {
  ASSERT_EQ(actual.size(), expected.size());
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (!(std::fabs(actual[i] - expected[i]) <= tol * (1.f + std::fabs(expected[i])))) {
      ADD_FAILURE() << "index " << i << ": got " << actual[i] << ", expected " << expected[i];
      if (++reported >= 10) return;
    }
  }
}

struct DwCase {
  int batch = 1, in_h = 9, in_w = 10, in_c = 8;
  int multiplier = 1;
  int option_multiplier = -1;  // -1: the true multiplier
  int filter_h = 3, filter_w = 3;
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  tflite::Padding padding = tflite::Padding::SAME;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  enum class Bias { kConst, kNone, kAbsent } bias = Bias::kConst;
  bool filter_is_input = false;
  int threads = 1;
};

std::string Describe(const DwCase& c) {
  return "in " + std::to_string(c.batch) + "x" + std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + "x" +
         std::to_string(c.in_c) + " mult " + std::to_string(c.multiplier) + " filter " + std::to_string(c.filter_h) +
         "x" + std::to_string(c.filter_w) + " stride " + std::to_string(c.stride_h) + "," + std::to_string(c.stride_w) +
         " dilation " + std::to_string(c.dilation_h) + "," + std::to_string(c.dilation_w) +
         (c.padding == tflite::Padding::SAME ? " SAME" : " VALID") + " threads " + std::to_string(c.threads);
}

void RunDwCase(const DwCase& c, uint32_t seed = 7) {
  SCOPED_TRACE(Describe(c));
  std::mt19937 rng(seed);
  const int out_c = c.in_c * c.multiplier;
  const std::vector<float> input = RandomVector(static_cast<size_t>(c.batch) * c.in_h * c.in_w * c.in_c, rng);
  const std::vector<float> filter = RandomVector(static_cast<size_t>(c.filter_h) * c.filter_w * out_c, rng);
  std::vector<float> bias;
  if (c.bias == DwCase::Bias::kConst) bias = RandomVector(static_cast<size_t>(out_c), rng);

  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {c.batch, c.in_h, c.in_w, c.in_c});
  const Shape filter_shape = {1, c.filter_h, c.filter_w, out_c};
  const int w = c.filter_is_input ? m.AddInput(DataType::kFloat32, filter_shape)
                                  : m.AddConstInput<float>(DataType::kFloat32, filter_shape, filter);
  if (c.bias == DwCase::Bias::kConst) m.AddConstInput<float>(DataType::kFloat32, {out_c}, bias);
  if (c.bias == DwCase::Bias::kAbsent) m.AddOptionalInput();
  const int out = m.AddOutput(DataType::kFloat32);
  const int option_multiplier = c.option_multiplier >= 0 ? c.option_multiplier : c.multiplier;
  m.SetBuiltinOp(tflite::BuiltinOperator::DEPTHWISE_CONV_2D, 2, tflite::BuiltinOptions::DepthwiseConv2DOptions,
                 tflite::CreateDepthwiseConv2DOptions(m.fbb(), c.padding, c.stride_w, c.stride_h, option_multiplier,
                                                      c.activation, c.dilation_w, c.dilation_h)
                     .Union());
  const Status st = m.Build(c.threads);
  ASSERT_TRUE(st.ok()) << st.ToString();
  m.SetInput<float>(in, input);
  if (c.filter_is_input) m.SetInput<float>(w, filter);

  ref::ConvGeometry g;
  g.batch = c.batch;
  g.in_h = c.in_h;
  g.in_w = c.in_w;
  g.in_c = c.in_c;
  g.out_c = out_c;
  g.filter_h = c.filter_h;
  g.filter_w = c.filter_w;
  g.stride_h = c.stride_h;
  g.stride_w = c.stride_w;
  g.dilation_h = c.dilation_h;
  g.dilation_w = c.dilation_w;
  const bool same = c.padding == tflite::Padding::SAME;
  ref::SamePadding(same, c.in_h, c.filter_h, c.stride_h, c.dilation_h, &g.out_h, &g.pad_top);
  ref::SamePadding(same, c.in_w, c.filter_w, c.stride_w, c.dilation_w, &g.out_w, &g.pad_left);
  float lo, hi;
  ActivationBounds(c.activation, &lo, &hi);
  const std::vector<float> expected = ref::DepthwiseConv2D(g, input, filter, bias, lo, hi);

  for (int run = 0; run < 2; ++run) {
    const Status inv = m.Invoke();
    ASSERT_TRUE(inv.ok()) << inv.ToString();
    EXPECT_EQ(m.GetOutputShape(out), (Shape{c.batch, g.out_h, g.out_w, out_c}));
    ExpectAllNear(m.GetOutput<float>(out), expected, 1e-5f);
  }
}

TEST(DepthwiseConv2DTest, FastPathsAndChannelTails) {
  // 3x3 and 5x5 use compile-time taps in the interior; channel counts cover
  // the 32-, 8- and 1-wide loops.
  for (int k : {3, 5}) {
    for (int stride : {1, 2}) {
      for (int channels : {1, 7, 8, 16, 45, 64}) {
        DwCase c;
        c.in_h = 13;
        c.in_w = 12;
        c.in_c = channels;
        c.filter_h = c.filter_w = k;
        c.stride_h = c.stride_w = stride;
        RunDwCase(c);
        c.padding = tflite::Padding::VALID;
        RunDwCase(c);
      }
    }
  }
}

TEST(DepthwiseConv2DTest, FiveByFiveOnChannelPlanes) {
  // 5x5 windows (stride 1, and stride 2 where two fifths or more of the
  // pixels touch the border) run on zero-padded planes of a vector's worth
  // of channels: batches, threads (pixel shares, and planes per thread with
  // 3 threads for uneven ones), uneven SAME padding (even sizes under
  // stride 2), a map smaller than the window, channel counts with a masked
  // last plane (40, 260) and more planes than threads (272).
  for (int size : {3, 7, 14}) {
    for (int stride : {1, 2}) {
      for (int channels : {40, 272, 260}) {
        DwCase c;
        c.batch = 2;
        c.in_h = size;
        c.in_w = size + 1;
        c.in_c = channels;
        c.filter_h = c.filter_w = 5;
        c.stride_h = c.stride_w = stride;
        c.activation = tflite::ActivationFunctionType::RELU6;
        for (int threads : {1, 2, 3}) {
          c.threads = threads;
          RunDwCase(c);
        }
      }
    }
  }
  // A map wide enough that a plane is filled a few output rows at a time.
  DwCase c;
  c.in_h = 13;
  c.in_w = 70;
  c.in_c = 24;
  c.filter_h = c.filter_w = 5;
  for (int threads : {1, 2}) {
    c.threads = threads;
    RunDwCase(c);
  }
  // A larger map under stride 2 (few border pixels): not copied, the
  // weights in registers.
  c.in_h = c.in_w = 28;
  c.in_c = 260;
  c.stride_h = c.stride_w = 2;
  c.threads = 1;
  RunDwCase(c);
}

TEST(DepthwiseConv2DTest, GeneralFilters) {
  for (auto padding : {tflite::Padding::SAME, tflite::Padding::VALID}) {
    for (int kh : {1, 2, 4, 7}) {
      for (int kw : {1, 3, 6}) {
        DwCase c;
        c.in_h = 10;
        c.in_w = 11;
        c.in_c = 12;
        c.filter_h = kh;
        c.filter_w = kw;
        c.stride_h = 2;
        c.stride_w = 1;
        c.padding = padding;
        RunDwCase(c);
      }
    }
  }
}

TEST(DepthwiseConv2DTest, Dilation) {
  for (int dilation : {2, 3}) {
    DwCase c;
    c.in_h = 14;
    c.in_w = 15;
    c.in_c = 10;
    c.dilation_h = dilation;
    c.dilation_w = dilation;
    RunDwCase(c);
    c.padding = tflite::Padding::VALID;
    c.stride_h = c.stride_w = 2;
    RunDwCase(c);
    c.dilation_w = 1;
    c.filter_h = c.filter_w = 5;
    RunDwCase(c);
  }
}

TEST(DepthwiseConv2DTest, DepthMultiplier) {
  for (int multiplier : {2, 3, 8}) {
    for (int in_c : {1, 3, 8}) {
      DwCase c;
      c.in_c = in_c;
      c.multiplier = multiplier;
      RunDwCase(c);
      c.stride_h = c.stride_w = 2;
      c.padding = tflite::Padding::VALID;
      RunDwCase(c);
    }
  }
}

TEST(DepthwiseConv2DTest, MultiplierDerivedFromShapes) {
  DwCase c;
  c.in_c = 4;
  c.multiplier = 2;
  c.option_multiplier = 0;
  RunDwCase(c);
  c.option_multiplier = 5;  // stale value in the options
  RunDwCase(c);
  c.multiplier = 1;
  c.option_multiplier = 0;
  RunDwCase(c);
}

TEST(DepthwiseConv2DTest, ActivationsBiasAndBatches) {
  for (auto act : {tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
                   tflite::ActivationFunctionType::RELU_N1_TO_1}) {
    DwCase c;
    c.in_c = 40;
    c.activation = act;
    RunDwCase(c);
  }
  for (auto bias : {DwCase::Bias::kNone, DwCase::Bias::kAbsent}) {
    DwCase c;
    c.bias = bias;
    c.in_c = 9;
    RunDwCase(c);
  }
  DwCase c;
  c.batch = 3;
  c.in_c = 17;
  c.multiplier = 2;
  RunDwCase(c);
  c.multiplier = 1;
  RunDwCase(c);
}

TEST(DepthwiseConv2DTest, NonConstantFilterAndThreads) {
  DwCase c;
  c.filter_is_input = true;
  c.in_c = 24;
  RunDwCase(c);
  c.filter_is_input = false;
  c.in_h = 40;
  c.in_w = 37;
  c.in_c = 48;
  for (int threads : {2, 3}) {
    c.threads = threads;
    RunDwCase(c);
  }
}

TEST(DepthwiseConv2DTest, FilterLargerThanInput) {
  // SAME padding with a filter wider than the input: every tap range is cut.
  DwCase c;
  c.in_h = 2;
  c.in_w = 3;
  c.in_c = 9;
  c.filter_h = c.filter_w = 5;
  RunDwCase(c);
  c.stride_h = c.stride_w = 3;
  RunDwCase(c);
}

Status BuildBad(const Shape& input, const Shape& filter, DataType type, const Shape* bias, int extra_inputs,
                tflite::ActivationFunctionType act = tflite::ActivationFunctionType::NONE) {
  SingleOpModel m;
  m.AddInput(type, input);
  m.AddConstInputBytes(type, filter,
                       std::vector<uint8_t>(static_cast<size_t>(NumElements(filter)) * DataTypeSize(type)));
  if (bias != nullptr) {
    m.AddConstInput<float>(DataType::kFloat32, *bias, std::vector<float>(NumElements(*bias), 0.f));
  }
  for (int i = 0; i < extra_inputs; ++i) m.AddInput(DataType::kFloat32, {1});
  m.AddOutput(type);
  m.SetBuiltinOp(tflite::BuiltinOperator::DEPTHWISE_CONV_2D, 1, tflite::BuiltinOptions::DepthwiseConv2DOptions,
                 tflite::CreateDepthwiseConv2DOptions(m.fbb(), tflite::Padding::SAME, 1, 1, 1, act).Union());
  return m.Build();
}

TEST(DepthwiseConv2DTest, Errors) {
  const Shape bias4 = {4}, bias5 = {5};
  EXPECT_TRUE(BuildBad({1, 5, 5, 4}, {1, 3, 3, 4}, DataType::kFloat32, &bias4, 0).ok());
  EXPECT_FALSE(BuildBad({1, 5, 5, 4}, {1, 3, 3, 4}, DataType::kFloat32, &bias4, 1).ok());
  EXPECT_EQ(BuildBad({1, 5, 5, 4}, {1, 3, 3, 4}, DataType::kFloat32, &bias5, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildBad({1, 5, 5, 4}, {1, 3, 3, 6}, DataType::kFloat32, nullptr, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildBad({1, 5, 5, 4}, {2, 3, 3, 4}, DataType::kFloat32, nullptr, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildBad({5, 5, 4}, {1, 3, 3, 4}, DataType::kFloat32, nullptr, 0).code(), StatusCode::kInvalidArgument);
  // 8-bit without quantization parameters.
  EXPECT_EQ(BuildBad({1, 5, 5, 4}, {1, 3, 3, 4}, DataType::kUInt8, nullptr, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildBad({1, 5, 5, 4}, {1, 3, 3, 4}, DataType::kBool, nullptr, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      BuildBad({1, 5, 5, 4}, {1, 3, 3, 4}, DataType::kFloat32, nullptr, 0, tflite::ActivationFunctionType::SIGN_BIT)
          .code(),
      StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace relite
