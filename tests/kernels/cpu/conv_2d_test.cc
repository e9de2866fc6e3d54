#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
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

std::vector<float> RandomVector(size_t n, std::mt19937& rng, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
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
    const float bound = tol * (1.f + std::fabs(expected[i]));
    if (!(std::fabs(actual[i] - expected[i]) <= bound)) {
      ADD_FAILURE() << "index " << i << ": got " << actual[i] << ", expected " << expected[i];
      if (++reported >= 10) return;
    }
  }
}

struct ConvCase {
  int batch = 1, in_h = 8, in_w = 8, in_c = 4;
  int out_c = 8, filter_h = 3, filter_w = 3;
  int filter_in_c = 0;  // 0: in_c (no groups)
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  tflite::Padding padding = tflite::Padding::SAME;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  enum class Bias { kConst, kNone, kAbsent } bias = Bias::kConst;
  bool filter_is_input = false;  // filter computed by the graph, not constant
  int threads = 1;
};

std::string Describe(const ConvCase& c) {
  return "in " + std::to_string(c.batch) + "x" + std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + "x" +
         std::to_string(c.in_c) + " filter " + std::to_string(c.out_c) + "x" + std::to_string(c.filter_h) + "x" +
         std::to_string(c.filter_w) + "x" + std::to_string(c.filter_in_c) + " stride " + std::to_string(c.stride_h) +
         "," + std::to_string(c.stride_w) + " dilation " + std::to_string(c.dilation_h) + "," +
         std::to_string(c.dilation_w) + (c.padding == tflite::Padding::SAME ? " SAME" : " VALID") + " threads " +
         std::to_string(c.threads);
}

void RunConvCase(const ConvCase& c, uint32_t seed = 1) {
  SCOPED_TRACE(Describe(c));
  std::mt19937 rng(seed);
  const int filter_in_c = c.filter_in_c > 0 ? c.filter_in_c : c.in_c;
  const std::vector<float> input = RandomVector(static_cast<size_t>(c.batch) * c.in_h * c.in_w * c.in_c, rng);
  const std::vector<float> filter =
      RandomVector(static_cast<size_t>(c.out_c) * c.filter_h * c.filter_w * filter_in_c, rng);
  std::vector<float> bias;
  if (c.bias == ConvCase::Bias::kConst) bias = RandomVector(static_cast<size_t>(c.out_c), rng);

  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, {c.batch, c.in_h, c.in_w, c.in_c});
  const Shape filter_shape = {c.out_c, c.filter_h, c.filter_w, filter_in_c};
  const int w = c.filter_is_input ? m.AddInput(DataType::kFloat32, filter_shape)
                                  : m.AddConstInput<float>(DataType::kFloat32, filter_shape, filter);
  if (c.bias == ConvCase::Bias::kConst) m.AddConstInput<float>(DataType::kFloat32, {c.out_c}, bias);
  if (c.bias == ConvCase::Bias::kAbsent) m.AddOptionalInput();
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(
      tflite::BuiltinOperator::CONV_2D, 1, tflite::BuiltinOptions::Conv2DOptions,
      tflite::CreateConv2DOptions(m.fbb(), c.padding, c.stride_w, c.stride_h, c.activation, c.dilation_w, c.dilation_h)
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
  g.out_c = c.out_c;
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
  const std::vector<float> expected = ref::Conv2D(g, input, filter, bias, lo, hi);

  // Twice: the second run reuses packed weights and scratch.
  for (int run = 0; run < 2; ++run) {
    const Status inv = m.Invoke();
    ASSERT_TRUE(inv.ok()) << inv.ToString();
    EXPECT_EQ(m.GetOutputShape(out), (Shape{c.batch, g.out_h, g.out_w, c.out_c}));
    ExpectAllNear(m.GetOutput<float>(out), expected, 2e-5f);
  }
}

// 1x1 convolutions of one image row of `rows` pixels, clamped to RELU6, for
// every combination; 49 rows run on two threads.
void RunPointwiseRowCases(std::initializer_list<int> out_cs, std::initializer_list<int> row_counts,
                          std::initializer_list<int> in_cs) {
  for (int out_c : out_cs) {
    for (int rows : row_counts) {
      for (int in_c : in_cs) {
        ConvCase c;
        c.in_h = 1;
        c.in_w = rows;
        c.in_c = in_c;
        c.out_c = out_c;
        c.filter_h = c.filter_w = 1;
        c.activation = tflite::ActivationFunctionType::RELU6;
        c.threads = rows == 49 ? 2 : 1;
        RunConvCase(c);
      }
    }
  }
}

TEST(Conv2DTest, Pointwise) {
  for (int in_c : {1, 3, 16, 37}) {
    for (int out_c : {1, 5, 8, 16, 24, 40}) {
      ConvCase c;
      c.in_h = 5;
      c.in_w = 7;
      c.in_c = in_c;
      c.out_c = out_c;
      c.filter_h = c.filter_w = 1;
      RunConvCase(c);
    }
  }
}

// Outputs of 24, 40, 56 or 88 columns end in a full 16-column panel and an
// 8-column one: tiles of several heights and an odd last row (31 rows),
// depth blocks that accumulate, threads that split the rows, a clamp.
TEST(Conv2DTest, PanelAndEightColumnPanelTogether) {
  RunPointwiseRowCases({24, 40, 56, 88}, {1, 2, 3, 16, 31, 49}, {3, 27, 700});
}

// Outputs whose last panel is partial (5 of 8 columns, 10-13 of 16): that
// panel is read and written masked in C. Several tile heights, depth blocks
// that accumulate into the masked columns (700), threads that split rows.
TEST(Conv2DTest, PartialLastPanel) { RunPointwiseRowCases({5, 12, 28, 42, 45, 61}, {1, 7, 31, 49}, {3, 700}); }

TEST(Conv2DTest, PointwiseStrided) {
  ConvCase c;
  c.in_h = 9;
  c.in_w = 10;
  c.in_c = 12;
  c.out_c = 20;
  c.filter_h = c.filter_w = 1;
  c.stride_h = c.stride_w = 2;
  for (auto padding : {tflite::Padding::SAME, tflite::Padding::VALID}) {
    c.padding = padding;
    RunConvCase(c);
  }
}

TEST(Conv2DTest, PaddingStridesDilations) {
  for (auto padding : {tflite::Padding::SAME, tflite::Padding::VALID}) {
    for (int stride : {1, 2, 3}) {
      for (int dilation : {1, 2}) {
        for (int k : {1, 2, 3, 5}) {
          ConvCase c;
          c.in_h = 11;
          c.in_w = 9;
          c.in_c = 3;
          c.out_c = 7;
          c.filter_h = c.filter_w = k;
          c.stride_h = c.stride_w = stride;
          c.dilation_h = c.dilation_w = dilation;
          c.padding = padding;
          RunConvCase(c);
        }
      }
    }
  }
}

TEST(Conv2DTest, AsymmetricFilterStrideDilation) {
  ConvCase c;
  c.in_h = 12;
  c.in_w = 13;
  c.in_c = 6;
  c.out_c = 18;
  c.filter_h = 1;
  c.filter_w = 7;
  c.stride_h = 2;
  c.stride_w = 1;
  c.dilation_h = 1;
  c.dilation_w = 2;
  RunConvCase(c);
  c.filter_h = 7;
  c.filter_w = 1;
  c.stride_h = 1;
  c.stride_w = 3;
  c.dilation_h = 2;
  c.dilation_w = 1;
  c.padding = tflite::Padding::VALID;
  RunConvCase(c);
}

TEST(Conv2DTest, Activations) {
  for (auto act : {tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
                   tflite::ActivationFunctionType::RELU_N1_TO_1}) {
    ConvCase c;
    c.in_c = 8;
    c.out_c = 19;
    c.activation = act;
    RunConvCase(c);
    c.filter_h = c.filter_w = 1;
    RunConvCase(c);
  }
}

TEST(Conv2DTest, BiasMissingOrAbsent) {
  for (auto bias : {ConvCase::Bias::kNone, ConvCase::Bias::kAbsent}) {
    ConvCase c;
    c.bias = bias;
    c.out_c = 13;
    RunConvCase(c);
    c.filter_h = c.filter_w = 1;
    RunConvCase(c);
  }
}

TEST(Conv2DTest, Batches) {
  ConvCase c;
  c.batch = 3;
  c.in_h = 6;
  c.in_w = 5;
  c.in_c = 5;
  c.out_c = 17;
  c.stride_h = c.stride_w = 2;
  RunConvCase(c);
  c.filter_h = c.filter_w = 1;
  c.stride_h = c.stride_w = 1;
  RunConvCase(c);
}

TEST(Conv2DTest, DeepReductionIsBlocked) {
  // K = 3 * 3 * 80 = 720 spans several depth blocks of the GEMM.
  ConvCase c;
  c.in_h = 7;
  c.in_w = 6;
  c.in_c = 80;
  c.out_c = 21;
  RunConvCase(c);
  c.filter_h = c.filter_w = 1;
  c.in_c = 600;
  RunConvCase(c);
  // Outputs 32..56 wide: pairs of 16-column panels (AVX-512), then a single
  // or an 8-column panel, accumulated over the depth blocks.
  for (int out_c : {32, 40, 56}) {
    SCOPED_TRACE("out_c " + std::to_string(out_c));
    c.out_c = out_c;
    c.in_h = 5;  // 30 rows: two 12-row tiles and a short one
    RunConvCase(c);
  }
}

TEST(Conv2DTest, WholeImageFilter) {
  ConvCase c;
  c.batch = 2;
  c.in_h = 4;
  c.in_w = 5;
  c.in_c = 6;
  c.out_c = 10;
  c.filter_h = 4;
  c.filter_w = 5;
  c.padding = tflite::Padding::VALID;
  RunConvCase(c);
}

TEST(Conv2DTest, Grouped) {
  ConvCase c;
  c.in_c = 8;
  c.filter_in_c = 2;  // 4 groups
  c.out_c = 12;
  RunConvCase(c);
  c.filter_h = c.filter_w = 1;
  RunConvCase(c);
  c.filter_h = c.filter_w = 3;
  c.stride_h = 2;
  c.in_c = 6;
  c.filter_in_c = 3;  // 2 groups
  c.out_c = 34;
  c.threads = 2;
  RunConvCase(c);
  // Depthwise expressed as a grouped convolution.
  c.in_c = 5;
  c.filter_in_c = 1;
  c.out_c = 10;
  RunConvCase(c);
}

// First layers (3 or 4 input channels, 3x3 or 5x5, stride 2) read the
// windows inside the image in place, row by row, and gather only the border
// pixels: both halves, output rows on the border, rows narrower than a tile,
// batches, and row tasks shared by threads.
TEST(Conv2DTest, FirstLayerWindowsReadInPlace) {
  for (auto padding : {tflite::Padding::SAME, tflite::Padding::VALID}) {
    for (int k : {3, 5}) {
      for (int stride : {1, 2}) {
        for (int out_c : {7, 16, 24}) {
          ConvCase c;
          c.batch = 2;
          c.in_h = 17;
          c.in_w = 26;
          c.in_c = k == 3 ? 3 : 4;
          c.out_c = out_c;
          c.filter_h = c.filter_w = k;
          c.stride_h = c.stride_w = stride;
          c.padding = padding;
          c.activation = tflite::ActivationFunctionType::RELU6;
          c.threads = out_c == 16 ? 1 : 2;
          RunConvCase(c);
        }
      }
    }
  }
  // An asymmetric filter and a row of one window per tile.
  ConvCase c;
  c.in_h = 9;
  c.in_w = 40;
  c.in_c = 8;
  c.out_c = 16;
  c.filter_h = 2;
  c.filter_w = 3;
  c.stride_h = 1;
  c.stride_w = 3;
  c.threads = 2;
  RunConvCase(c);
}

TEST(Conv2DTest, NonConstantFilter) {
  ConvCase c;
  c.filter_is_input = true;
  c.in_c = 5;
  c.out_c = 11;
  RunConvCase(c);
  c.filter_h = c.filter_w = 1;
  RunConvCase(c);
  c.in_c = 4;
  c.filter_in_c = 2;
  c.out_c = 6;
  RunConvCase(c);
}

TEST(Conv2DTest, MultiThreaded) {
  ConvCase c;
  c.in_h = 33;
  c.in_w = 31;
  c.in_c = 16;
  c.out_c = 40;
  for (int threads : {2, 3}) {
    c.threads = threads;
    c.filter_h = c.filter_w = 3;
    RunConvCase(c);
    c.filter_h = c.filter_w = 1;
    RunConvCase(c);
  }
  // Few rows and many channels: the work is split across columns.
  ConvCase narrow;
  narrow.in_h = 2;
  narrow.in_w = 2;
  narrow.in_c = 64;
  narrow.out_c = 200;
  narrow.threads = 2;
  RunConvCase(narrow);
  narrow.filter_h = narrow.filter_w = 1;
  RunConvCase(narrow);
}

// One to four output channels take the dot-product path (narrow_conv.h):
// interior tiles of several pixels, edge pixels tap by tap, runs whose length
// is not a multiple of 8, dilation (always tap by tap), batches and threads.
TEST(Conv2DTest, NarrowOutputs) {
  for (int out_c : {1, 2, 3, 4}) {
    for (int in_c : {1, 3, 8, 13}) {
      for (int k : {1, 3, 5}) {
        for (int stride : {1, 2}) {
          for (auto padding : {tflite::Padding::SAME, tflite::Padding::VALID}) {
            ConvCase c;
            c.in_h = 12;
            c.in_w = 23;
            c.in_c = in_c;
            c.out_c = out_c;
            c.filter_h = c.filter_w = k;
            c.stride_h = c.stride_w = stride;
            c.padding = padding;
            c.activation = tflite::ActivationFunctionType::RELU6;
            RunConvCase(c);
          }
        }
      }
    }
  }
  ConvCase c;
  c.in_h = 9;
  c.in_w = 17;
  c.in_c = 8;
  c.out_c = 1;
  c.filter_h = 3;
  c.filter_w = 2;
  c.dilation_h = 2;
  c.dilation_w = 3;
  RunConvCase(c);
  c.dilation_h = c.dilation_w = 1;
  c.batch = 3;
  c.threads = 2;
  c.bias = ConvCase::Bias::kNone;
  RunConvCase(c);
  c.bias = ConvCase::Bias::kAbsent;
  c.filter_is_input = true;
  c.out_c = 3;
  RunConvCase(c);
  // A filter wider than the input (VALID would be empty): SAME keeps every pixel an edge pixel.
  c.in_w = 2;
  c.filter_w = 5;
  RunConvCase(c);
}

TEST(Conv2DTest, FilterLargerThanInputValidGivesEmptyOutput) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {1, 2, 2, 1});
  m.AddConstInput<float>(DataType::kFloat32, {1, 3, 3, 1}, std::vector<float>(9, 1.f));
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::CONV_2D, 1, tflite::BuiltinOptions::Conv2DOptions,
                 tflite::CreateConv2DOptions(m.fbb(), tflite::Padding::VALID, 1, 1).Union());
  ASSERT_TRUE(m.Build().ok());
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(out), (Shape{1, 0, 0, 1}));
}

// --- error paths -----------------------------------------------------------

struct BadModel {
  Shape input = {1, 4, 4, 3};
  DataType input_type = DataType::kFloat32;
  Shape filter = {2, 3, 3, 3};
  DataType filter_type = DataType::kFloat32;
  Shape bias = {2};
  bool with_bias = true;
  bool extra_input = false;
  bool options = true;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  int stride = 1;
};

Status BuildBad(const BadModel& b) {
  SingleOpModel m;
  m.AddInput(b.input_type, b.input);
  std::vector<uint8_t> filter_bytes(static_cast<size_t>(NumElements(b.filter)) * DataTypeSize(b.filter_type));
  m.AddConstInputBytes(b.filter_type, b.filter, filter_bytes);
  if (b.with_bias) m.AddConstInput<float>(DataType::kFloat32, b.bias, std::vector<float>(NumElements(b.bias), 0.f));
  if (b.extra_input) m.AddInput(DataType::kFloat32, {2});
  m.AddOutput(b.input_type);
  if (b.options) {
    m.SetBuiltinOp(
        tflite::BuiltinOperator::CONV_2D, 1, tflite::BuiltinOptions::Conv2DOptions,
        tflite::CreateConv2DOptions(m.fbb(), tflite::Padding::SAME, b.stride, b.stride, b.activation).Union());
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::CONV_2D, 1);
  }
  return m.Build();
}

TEST(Conv2DTest, ValidBaseModelBuilds) { EXPECT_TRUE(BuildBad(BadModel{}).ok()); }

TEST(Conv2DTest, RejectsWrongInputCount) {
  BadModel b;
  b.extra_input = true;
  EXPECT_FALSE(BuildBad(b).ok());
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {1, 4, 4, 3});
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::CONV_2D, 1, tflite::BuiltinOptions::Conv2DOptions,
                 tflite::CreateConv2DOptions(m.fbb(), tflite::Padding::SAME, 1, 1).Union());
  EXPECT_FALSE(m.Build().ok());
}

TEST(Conv2DTest, RejectsBadShapes) {
  BadModel b;
  b.input = {4, 4, 3};
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kInvalidArgument);
  b = BadModel{};
  b.filter = {2, 3, 3};
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kInvalidArgument);
  b = BadModel{};
  b.filter = {2, 3, 3, 2};  // 3 input channels are not a multiple of 2
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kInvalidArgument);
  b = BadModel{};
  b.input = {1, 4, 4, 6};
  b.filter = {3, 3, 3, 2};  // 3 groups, 3 outputs: fine
  b.bias = {3};
  EXPECT_TRUE(BuildBad(b).ok());
  b.filter = {4, 3, 3, 2};  // 4 outputs do not split into 3 groups
  b.bias = {4};
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kInvalidArgument);
  b = BadModel{};
  b.bias = {3};
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kInvalidArgument);
}

TEST(Conv2DTest, RejectsBadTypesAndOptions) {
  BadModel b;
  b.input_type = DataType::kInt32;
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kInvalidArgument);
  b = BadModel{};
  b.input_type = DataType::kInt8;
  b.filter_type = DataType::kInt8;
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kInvalidArgument);  // 8-bit without quantization parameters
  b = BadModel{};
  b.filter_type = DataType::kInt8;  // hybrid, but the filter has no scales
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kInvalidArgument);
  b = BadModel{};
  b.activation = tflite::ActivationFunctionType::TANH;
  EXPECT_EQ(BuildBad(b).code(), StatusCode::kUnimplemented);
  b = BadModel{};
  b.options = false;  // schema default strides are 0
  EXPECT_FALSE(BuildBad(b).ok());
  b = BadModel{};
  b.stride = 0;
  EXPECT_FALSE(BuildBad(b).ok());
}

}  // namespace
}  // namespace relite
