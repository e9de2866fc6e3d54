// GPU convolution-family ops against the CPU kernels, fp32 and fp16:
// CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, MediaPipe's
// Convolution2DTransposeBias and FULLY_CONNECTED. The sweeps cover padding,
// strides, dilations, kernel sizes, channel counts that are not multiples of
// 4 (a partial last slice), batch 2, absent biases and the fused clamps; the
// cases cycle through the secondary parameters so every value is hit without
// the full product (PoCL runs them on two shared cores).
#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "tests/testing/gpu_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
using tflite::ActivationFunctionType;
using tflite::BuiltinOperator;

constexpr ActivationFunctionType kActs[] = {ActivationFunctionType::NONE, ActivationFunctionType::RELU,
                                            ActivationFunctionType::RELU6, ActivationFunctionType::RELU_N1_TO_1};

// Deterministic values in [-scale, scale].
std::vector<float> RandomValues(int64_t n, float scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// Weights scaled by 1/sqrt(taps) keep the outputs O(1) for inputs in [-1, 1].
float WeightScale(int64_t taps) { return 1.5f / std::sqrt(static_cast<float>(taps)); }

int32_t OutSize(bool same, int32_t in, int32_t k, int32_t stride, int32_t dilation) {
  const int32_t eff = (k - 1) * dilation + 1;
  return same ? (in + stride - 1) / stride : (in - eff + stride) / stride;
}

::testing::AssertionResult Close(const testing::GpuRunResult& r, bool fp16) {
  return testing::OutputsClose(r, fp16 ? testing::kFp16Atol : testing::kFp32Atol, fp16 ? testing::kFp16Rtol : testing::kFp32Rtol);
}

class GpuConvTest : public ::testing::TestWithParam<GpuPrecision> {
 protected:
  bool fp16() const { return GetParam() == GpuPrecision::kFp16; }
};

// ---------------------------------------------------------------- CONV_2D

struct ConvCase {
  int batch, h, w, cin, cout, kh, kw;
  bool same;
  int stride_w, stride_h, dilation_w, dilation_h;
  bool bias;
  ActivationFunctionType act;
  bool filter_constant = true;
};

std::vector<uint8_t> ConvModel(const ConvCase& c, uint32_t seed) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
  const Shape fs{c.cout, c.kh, c.kw, c.cin};
  if (c.filter_constant) {
    m.AddConstInput<float>(DataType::kFloat32, fs, RandomValues(NumElements(fs), WeightScale(c.kh * c.kw * c.cin), seed));
  } else {
    m.AddInput(DataType::kFloat32, fs);
  }
  if (c.bias) {
    m.AddConstInput<float>(DataType::kFloat32, {c.cout}, RandomValues(c.cout, 0.5f, seed + 1));
  } else {
    m.AddOptionalInput();
  }
  m.AddOutput(DataType::kFloat32, {c.batch, OutSize(c.same, c.h, c.kh, c.stride_h, c.dilation_h),
                                   OutSize(c.same, c.w, c.kw, c.stride_w, c.dilation_w), c.cout});
  m.SetBuiltinOp(BuiltinOperator::CONV_2D, 1, tflite::BuiltinOptions::Conv2DOptions,
                 tflite::CreateConv2DOptions(m.fbb(), c.same ? tflite::Padding::SAME : tflite::Padding::VALID, c.stride_w,
                                             c.stride_h, c.act, c.dilation_w, c.dilation_h)
                     .Union());
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}

TEST_P(GpuConvTest, Conv2DMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const int kernels[][2] = {{1, 1}, {3, 3}, {5, 3}};
  const int channels[][2] = {{3, 4}, {5, 9}, {8, 6}, {4, 16}, {13, 7}};  // (cin, cout)
  int i = 0;
  for (const auto& k : kernels) {
    for (int stride : {1, 2}) {
      for (int dilation : {1, 2}) {
        for (bool same : {true, false}) {
          ConvCase c{};
          c.batch = i % 3 == 2 ? 2 : 1;
          c.h = 9;
          c.w = 11;
          c.cin = channels[i % 5][0];
          c.cout = channels[i % 5][1];
          c.kh = k[0];
          c.kw = k[1];
          c.same = same;
          // Strides and dilations differ between H and W every other case.
          c.stride_h = stride;
          c.stride_w = i % 2 == 0 ? stride : 3 - stride;
          c.dilation_h = dilation;
          c.dilation_w = i % 4 < 2 ? dilation : 3 - dilation;
          c.bias = i % 3 != 1;
          c.act = kActs[i % 4];
          ++i;
          SCOPED_TRACE(::testing::Message() << "case " << i << ": " << c.batch << "x" << c.h << "x" << c.w << "x" << c.cin
                                            << " -> " << c.cout << " k" << c.kh << "x" << c.kw << " same=" << same
                                            << " stride " << c.stride_h << "," << c.stride_w << " dil " << c.dilation_h
                                            << "," << c.dilation_w << " bias=" << c.bias << " act=" << static_cast<int>(c.act));
          auto r = testing::RunCpuAndGpu(ConvModel(c, 100 + static_cast<uint32_t>(i)), gpu);
          EXPECT_EQ(r.delegated, 1) << r.report;
          EXPECT_TRUE(Close(r, fp16()));
        }
      }
    }
  }
}

TEST_P(GpuConvTest, Conv2DLargerChannels) {
  // Enough input slices that work items split them into lanes
  // (conv_2d.cc's ChooseBlock), with a partial last input slice.
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  for (const auto& [cin, cout, k] : {std::tuple{32, 24, 1}, std::tuple{19, 37, 3}, std::tuple{67, 24, 1}, std::tuple{70, 9, 3}}) {
    ConvCase c{2, 8, 13, cin, cout, k, k, true, 1, 1, 1, 1, true, ActivationFunctionType::RELU6};
    SCOPED_TRACE(::testing::Message() << cin << " -> " << cout << " k" << k);
    auto r = testing::RunCpuAndGpu(ConvModel(c, 7), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(Close(r, fp16()));
  }
}

TEST_P(GpuConvTest, Conv2DTiledKernelCoversStridesDilationsAndPartialTiles) {
  // At least 4 input and 4 output slices: the tiled kernel (conv_2d.cc's
  // ChooseTiling), with partial pixel tiles, partial input-slice steps,
  // padded and dilated taps, batch 2.
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const ConvCase cases[] = {
      {2, 9, 11, 19, 21, 3, 3, true, 2, 2, 1, 1, true, ActivationFunctionType::NONE},
      {1, 13, 10, 24, 17, 3, 3, false, 1, 1, 2, 2, true, ActivationFunctionType::RELU},
      {1, 7, 7, 160, 64, 1, 1, true, 1, 1, 1, 1, false, ActivationFunctionType::RELU6},
      {1, 20, 23, 16, 16, 5, 3, true, 1, 2, 1, 1, true, ActivationFunctionType::NONE},
      {1, 33, 35, 128, 128, 1, 1, true, 1, 1, 1, 1, true, ActivationFunctionType::NONE},
      {1, 6, 5, 256, 40, 1, 1, true, 1, 1, 1, 1, true, ActivationFunctionType::NONE},  // split over 16 steps
      // Deep layers split into several parts and summed by a second launch:
      // MobileNet's 14x14x512 -> 512 (9 splits), and 27 steps of 3x3 taps
      // split unevenly (13 splits), batch 2, partial tiles.
      {1, 14, 14, 512, 512, 1, 1, true, 1, 1, 1, 1, true, ActivationFunctionType::RELU6},
      {2, 7, 7, 96, 200, 3, 3, true, 1, 1, 1, 1, true, ActivationFunctionType::RELU},
  };
  int i = 0;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    auto r = testing::RunCpuAndGpu(ConvModel(c, 1300 + static_cast<uint32_t>(i++)), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(Close(r, fp16()));
  }
}

TEST_P(GpuConvTest, Conv2DLargeOutputsUseBlockedKernels) {
  // Outputs large enough for the kernel that computes several pixels and
  // output slices per work item (conv_2d.cc's ChooseBlock), with partial
  // blocks at the right edge and in the last slice block.
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const ConvCase cases[] = {
      // 128x257x30 from 125 channels: 2 pixels x 4 slices per item (x tail 1,
      // 8 output slices of which the last has 2 channels, partial input slice).
      {1, 128, 257, 125, 30, 1, 1, true, 1, 1, 1, 1, true, ActivationFunctionType::RELU},
      // 96x203x20, 3x3 stride 2 over 16 channels: 2 pixels per item (x tail 1).
      {1, 192, 405, 16, 20, 3, 3, true, 2, 2, 1, 1, true, ActivationFunctionType::NONE},
      // 2x128x255x3 from 5 channels: one pixel and slice per item, batch 2, no bias.
      {2, 128, 255, 5, 3, 1, 1, false, 1, 1, 1, 1, false, ActivationFunctionType::RELU6},
  };
  int i = 0;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    auto r = testing::RunCpuAndGpu(ConvModel(c, 900 + static_cast<uint32_t>(i++)), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(Close(r, fp16()));
  }
}

TEST_P(GpuConvTest, NonConstantFilterStaysOnCpuWithAReason) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  ConvCase c{1, 5, 5, 3, 4, 3, 3, true, 1, 1, 1, 1, true, ActivationFunctionType::NONE};
  c.filter_constant = false;
  auto r = testing::RunCpuAndGpu(ConvModel(c, 3), gpu);
  EXPECT_EQ(r.delegated, 0);
  EXPECT_NE(r.report.find("the filter must be constant"), std::string::npos) << r.report;
  EXPECT_TRUE(testing::OutputsClose(r, 0.f, 0.f));
}

// ------------------------------------------------------ DEPTHWISE_CONV_2D

struct DepthwiseCase {
  int batch, h, w, cin, multiplier, kh, kw;
  bool same;
  int stride_w, stride_h, dilation_w, dilation_h;
  bool bias;
  ActivationFunctionType act;
};

std::vector<uint8_t> DepthwiseModel(const DepthwiseCase& c, uint32_t seed) {
  const int cout = c.cin * c.multiplier;
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
  const Shape fs{1, c.kh, c.kw, cout};
  m.AddConstInput<float>(DataType::kFloat32, fs, RandomValues(NumElements(fs), WeightScale(c.kh * c.kw), seed));
  if (c.bias) {
    m.AddConstInput<float>(DataType::kFloat32, {cout}, RandomValues(cout, 0.5f, seed + 1));
  } else {
    m.AddOptionalInput();
  }
  m.AddOutput(DataType::kFloat32, {c.batch, OutSize(c.same, c.h, c.kh, c.stride_h, c.dilation_h),
                                   OutSize(c.same, c.w, c.kw, c.stride_w, c.dilation_w), cout});
  const bool dilated = c.dilation_w != 1 || c.dilation_h != 1;
  m.SetBuiltinOp(BuiltinOperator::DEPTHWISE_CONV_2D, dilated ? 2 : 1, tflite::BuiltinOptions::DepthwiseConv2DOptions,
                 tflite::CreateDepthwiseConv2DOptions(m.fbb(), c.same ? tflite::Padding::SAME : tflite::Padding::VALID,
                                                      c.stride_w, c.stride_h, c.multiplier, c.act, c.dilation_w,
                                                      c.dilation_h)
                     .Union());
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}

TEST_P(GpuConvTest, DepthwiseConv2DMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const int kernels[][2] = {{3, 3}, {5, 5}, {1, 1}, {3, 5}};
  const int channels[][2] = {{8, 1}, {6, 1}, {3, 2}, {1, 5}, {5, 3}, {4, 4}};  // (cin, multiplier)
  int i = 0;
  for (const auto& k : kernels) {
    for (int stride : {1, 2}) {
      for (int dilation : {1, 2}) {
        for (bool same : {true, false}) {
          DepthwiseCase c{};
          c.batch = i % 3 == 2 ? 2 : 1;
          c.h = 10;
          c.w = 9;
          c.cin = channels[i % 6][0];
          c.multiplier = channels[i % 6][1];
          c.kh = k[0];
          c.kw = k[1];
          c.same = same;
          c.stride_h = stride;
          c.stride_w = i % 2 == 0 ? stride : 3 - stride;
          c.dilation_h = dilation;
          c.dilation_w = i % 4 < 2 ? dilation : 3 - dilation;
          c.bias = i % 4 != 3;
          c.act = kActs[i % 4];
          ++i;
          SCOPED_TRACE(::testing::Message() << "case " << i << ": " << c.batch << "x" << c.h << "x" << c.w << "x" << c.cin
                                            << " *" << c.multiplier << " k" << c.kh << "x" << c.kw << " same=" << same
                                            << " stride " << c.stride_h << "," << c.stride_w << " dil " << c.dilation_h
                                            << "," << c.dilation_w << " bias=" << c.bias << " act=" << static_cast<int>(c.act));
          auto r = testing::RunCpuAndGpu(DepthwiseModel(c, 200 + static_cast<uint32_t>(i)), gpu);
          EXPECT_EQ(r.delegated, 1) << r.report;
          EXPECT_TRUE(Close(r, fp16()));
        }
      }
    }
  }
}

// Filters over 7x7 keep the templates' run-time tap loops (FilterSizeDefines
// fixes sizes up to 7x7 in the program); 9x8 and 8x9 on both kernels.
TEST_P(GpuConvTest, FiltersOver7x7MatchCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  for (bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "8x9" : "9x8");
    const int kh = wide ? 8 : 9, kw = wide ? 9 : 8;
    // 12x13 input, SAME, stride and dilation 1, with bias.
    const ConvCase c{1, 12, 13, 3, 5, kh, kw, true, 1, 1, 1, 1, true, ActivationFunctionType::RELU6};
    auto r = testing::RunCpuAndGpu(ConvModel(c, 300), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(Close(r, fp16()));
    const DepthwiseCase d{1, 12, 13, 6, 1, kh, kw, true, 1, 1, 1, 1, true, ActivationFunctionType::NONE};
    auto rd = testing::RunCpuAndGpu(DepthwiseModel(d, 301), gpu);
    EXPECT_EQ(rd.delegated, 1) << rd.report;
    EXPECT_TRUE(Close(rd, fp16()));
  }
}

// ------------------------------------ TRANSPOSE_CONV and its MediaPipe twin

struct TransposeCase {
  int batch, h, w, cin, cout, kh, kw;
  bool same;
  int stride_w, stride_h;
  int bias;  // 0: none (version 1), 1: bias input (version 3)
  ActivationFunctionType act;  // not NONE: version 4
  int out_h = 0, out_w = 0;    // 0: the size TFLite's converter would give
};

int32_t TransposeOutSize(bool same, int32_t in, int32_t k, int32_t stride) {
  return same ? in * stride : (in - 1) * stride + k;
}

std::vector<uint8_t> TransposeConvModel(const TransposeCase& c, uint32_t seed) {
  const int32_t oh = c.out_h > 0 ? c.out_h : TransposeOutSize(c.same, c.h, c.kh, c.stride_h);
  const int32_t ow = c.out_w > 0 ? c.out_w : TransposeOutSize(c.same, c.w, c.kw, c.stride_w);
  SingleOpModel m;
  m.AddConstInput<int32_t>(DataType::kInt32, {4}, {c.batch, oh, ow, c.cout});
  const Shape ws{c.cout, c.kh, c.kw, c.cin};
  // Each output pixel sums about KH*KW/(sh*sw) taps of Cin channels.
  const int64_t taps = std::max<int64_t>(1, int64_t{c.kh} * c.kw / (c.stride_h * c.stride_w)) * c.cin;
  m.AddConstInput<float>(DataType::kFloat32, ws, RandomValues(NumElements(ws), WeightScale(taps), seed));
  m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
  if (c.bias) m.AddConstInput<float>(DataType::kFloat32, {c.cout}, RandomValues(c.cout, 0.5f, seed + 1));
  m.AddOutput(DataType::kFloat32, {c.batch, oh, ow, c.cout});
  const int version = c.act != ActivationFunctionType::NONE ? 4 : (c.bias ? 3 : 1);
  m.SetBuiltinOp(BuiltinOperator::TRANSPOSE_CONV, version, tflite::BuiltinOptions::TransposeConvOptions,
                 tflite::CreateTransposeConvOptions(m.fbb(), c.same ? tflite::Padding::SAME : tflite::Padding::VALID,
                                                    c.stride_w, c.stride_h, c.act)
                     .Union());
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}

TEST_P(GpuConvTest, TransposeConvMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const int kernels[][2] = {{2, 2}, {3, 3}, {4, 4}, {5, 3}, {1, 1}};
  const int channels[][2] = {{3, 4}, {8, 5}, {6, 9}, {4, 16}};  // (cin, cout)
  int i = 0;
  for (const auto& k : kernels) {
    for (int stride : {1, 2, 3}) {
      for (bool same : {true, false}) {
        TransposeCase c{};
        c.batch = i % 3 == 2 ? 2 : 1;
        c.h = 5;
        c.w = 6;
        c.cin = channels[i % 4][0];
        c.cout = channels[i % 4][1];
        c.kh = k[0];
        c.kw = k[1];
        c.same = same;
        c.stride_h = stride;
        c.stride_w = i % 2 == 0 ? stride : std::max(1, stride - 1);
        c.bias = i % 3 != 1;
        c.act = i % 5 == 4 ? ActivationFunctionType::RELU6 : (i % 5 == 3 ? ActivationFunctionType::RELU : ActivationFunctionType::NONE);
        ++i;
        SCOPED_TRACE(::testing::Message() << "case " << i << ": " << c.batch << "x" << c.h << "x" << c.w << "x" << c.cin
                                          << " -> " << c.cout << " k" << c.kh << "x" << c.kw << " same=" << same << " stride "
                                          << c.stride_h << "," << c.stride_w << " bias=" << c.bias
                                          << " act=" << static_cast<int>(c.act));
        auto r = testing::RunCpuAndGpu(TransposeConvModel(c, 300 + static_cast<uint32_t>(i)), gpu);
        EXPECT_EQ(r.delegated, 1) << r.report;
        EXPECT_TRUE(Close(r, fp16()));
      }
    }
  }
}

TEST_P(GpuConvTest, TransposeConvWithGivenOutputShape) {
  // output_shape other than the converter's: TFLite crops (smaller) or leaves
  // pixels reached by no tap at the bias (larger).
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const TransposeCase cases[] = {
      {1, 4, 5, 3, 6, 3, 3, true, 2, 2, 1, ActivationFunctionType::NONE, 7, 9},     // SAME, odd output
      {1, 4, 5, 3, 6, 3, 3, false, 2, 2, 1, ActivationFunctionType::NONE, 10, 12},  // VALID, one extra pixel
      {2, 3, 3, 5, 2, 4, 4, false, 2, 2, 0, ActivationFunctionType::RELU, 7, 6},    // VALID, cropped
  };
  int i = 0;
  for (const TransposeCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    auto r = testing::RunCpuAndGpu(TransposeConvModel(c, 400 + static_cast<uint32_t>(i++)), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(Close(r, fp16()));
  }
}

std::vector<uint8_t> TransposeBiasModel(const TransposeCase& c, uint32_t seed) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
  const Shape ws{c.cout, c.kh, c.kw, c.cin};
  const int64_t taps = std::max<int64_t>(1, int64_t{c.kh} * c.kw / (c.stride_h * c.stride_w)) * c.cin;
  m.AddConstInput<float>(DataType::kFloat32, ws, RandomValues(NumElements(ws), WeightScale(taps), seed));
  m.AddConstInput<float>(DataType::kFloat32, {c.cout}, RandomValues(c.cout, 0.5f, seed + 1));
  m.AddOutput(DataType::kFloat32, {c.batch, TransposeOutSize(c.same, c.h, c.kh, c.stride_h),
                                   TransposeOutSize(c.same, c.w, c.kw, c.stride_w), c.cout});
  const int32_t raw[3] = {c.same ? 1 : 2, c.stride_w, c.stride_h};
  std::vector<uint8_t> options(sizeof(raw));
  std::memcpy(options.data(), raw, sizeof(raw));
  m.SetCustomOp("Convolution2DTransposeBias", options);
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}

TEST_P(GpuConvTest, Convolution2DTransposeBiasMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const TransposeCase cases[] = {
      {1, 5, 6, 8, 4, 4, 4, true, 2, 2, 1, ActivationFunctionType::NONE},   // MediaPipe's usual 4x4 stride 2
      {1, 4, 4, 6, 3, 3, 3, true, 2, 2, 1, ActivationFunctionType::NONE},
      {2, 3, 5, 5, 7, 3, 2, false, 1, 2, 1, ActivationFunctionType::NONE},
      {1, 4, 3, 3, 2, 2, 2, false, 2, 2, 1, ActivationFunctionType::NONE},
  };
  int i = 0;
  for (const TransposeCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    auto r = testing::RunCpuAndGpu(TransposeBiasModel(c, 500 + static_cast<uint32_t>(i++)), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(Close(r, fp16()));
  }
}

// -------------------------------------------------------- FULLY_CONNECTED

struct FcCase {
  Shape input;
  int units, depth;
  bool bias;
  bool keep_num_dims;
  ActivationFunctionType act;
};

std::vector<uint8_t> FcModel(const FcCase& c, uint32_t seed) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, c.input);
  m.AddConstInput<float>(DataType::kFloat32, {c.units, c.depth}, RandomValues(int64_t{c.units} * c.depth, WeightScale(c.depth), seed));
  if (c.bias) m.AddConstInput<float>(DataType::kFloat32, {c.units}, RandomValues(c.units, 0.5f, seed + 1));
  Shape out;
  if (c.keep_num_dims) {
    out = c.input;
    out.back() = c.units;
  } else {
    out = {static_cast<int32_t>(NumElements(c.input) / c.depth), c.units};
  }
  m.AddOutput(DataType::kFloat32, out);
  const int version = !c.bias ? 6 : (c.keep_num_dims ? 5 : 1);
  m.SetBuiltinOp(BuiltinOperator::FULLY_CONNECTED, version, tflite::BuiltinOptions::FullyConnectedOptions,
                 tflite::CreateFullyConnectedOptions(m.fbb(), c.act, tflite::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                                     c.keep_num_dims)
                     .Union());
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}

TEST_P(GpuConvTest, FullyConnectedMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const FcCase cases[] = {
      {{1, 37}, 10, 37, true, false, ActivationFunctionType::NONE},          // [1,K]: one row
      {{1, 1, 1, 64}, 1001, 64, true, false, ActivationFunctionType::NONE},  // classifier head (split K)
      {{1, 1, 1, 256}, 6, 256, false, false, ActivationFunctionType::RELU},  // few units, split K
      {{3, 20}, 7, 20, true, false, ActivationFunctionType::RELU6},          // rows in B
      {{70}, 9, 70, true, false, ActivationFunctionType::RELU_N1_TO_1},       // rank 1
      {{2, 5, 12}, 6, 12, true, false, ActivationFunctionType::NONE},        // rank 3: rows = B*W, flat output
      {{2, 5, 12}, 6, 12, false, true, ActivationFunctionType::RELU},        // rank 3 keep_num_dims
      {{2, 3, 4, 9}, 5, 9, true, false, ActivationFunctionType::NONE},       // rows = B*H*W, flat output
      {{1, 3, 4, 9}, 11, 9, true, true, ActivationFunctionType::NONE},       // keep_num_dims rank 4
      {{2, 3, 4, 6}, 5, 24, true, false, ActivationFunctionType::NONE},      // rows = B*H (K = W*C)
      {{2, 3, 4, 6}, 13, 72, true, false, ActivationFunctionType::RELU},     // rows = B (K = H*W*C)
      {{1, 4, 4, 20}, 10, 320, true, false, ActivationFunctionType::NONE},   // flatten, split K over taps
      {{2, 7, 30}, 3, 210, false, false, ActivationFunctionType::NONE},      // rank 3 flatten per batch
      {{48, 40}, 33, 40, true, false, ActivationFunctionType::NONE},         // many rows
  };
  int i = 0;
  for (const FcCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "case " << i << ": " << ShapeToString(c.input) << " x [" << c.units << ","
                                      << c.depth << "] keep=" << c.keep_num_dims);
    auto r = testing::RunCpuAndGpu(FcModel(c, 600 + static_cast<uint32_t>(i++)), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(Close(r, fp16()));
  }
}

TEST_P(GpuConvTest, FullyConnectedRowsSplittingPixelsStayOnCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  // [1,2,3,4] read as rows of 6: a row is a pixel and a half, which the
  // 4-channel slices cannot index.
  const FcCase c{{1, 2, 3, 4}, 5, 6, true, false, ActivationFunctionType::NONE};
  auto r = testing::RunCpuAndGpu(FcModel(c, 700), gpu);
  EXPECT_EQ(r.delegated, 0);
  EXPECT_NE(r.report.find("not whole pixels"), std::string::npos) << r.report;
  EXPECT_TRUE(testing::OutputsClose(r, 0.f, 0.f));
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuConvTest, ::testing::Values(GpuPrecision::kFp32, GpuPrecision::kFp16),
                         [](const auto& info) { return info.param == GpuPrecision::kFp32 ? "fp32" : "fp16"; });

}  // namespace
}  // namespace relite
