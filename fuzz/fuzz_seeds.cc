// relite_fuzz_seeds DIR: writes the fuzzers' seed models, small graphs that
// together reach every CPU op family relite implements (float, float16
// weights, uint8 and int8 per-channel), with every options field written
// (ModelWriter::SetForceDefaults) so the structure-aware mutator can rewrite
// it. scripts/fuzz.sh adds the real models and the zoo architectures.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "relite/model_writer.h"
#include "tflite_generated.h"

namespace {

using relite::BuiltinOp;
using relite::DataType;
using relite::ModelWriter;
using relite::Quantization;
using relite::Shape;
namespace w = relite::writer;

std::vector<float> Ramp(size_t n, float scale = 0.1f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 17) - 8);
  return v;
}

Quantization Q(float scale, int64_t zp) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zp};
  return q;
}

template <typename Build>
w::RawOptions Raw(tflite::BuiltinOptions type, Build build) {
  return w::RawOptions{static_cast<uint8_t>(type),
                       [build](flatbuffers::FlatBufferBuilder& fbb) { return build(fbb).Union(); }};
}

// Conv, depthwise, residual add, pools, FC, softmax (float).
void ConvChain(ModelWriter& m) {
  const int in = m.AddTensor(DataType::kFloat32, {1, 8, 8, 3}, "input");
  const int w1 = m.AddConstantOf<float>({8, 3, 3, 3}, "w1", Ramp(8 * 27));
  const int b1 = m.AddConstantOf<float>({8}, "b1", Ramp(8));
  const int c1 = m.AddTensor(DataType::kFloat32, {1, 8, 8, 8}, "conv");
  m.AddOp(BuiltinOp::kConv2D, {in, w1, b1}, {c1}, w::Conv2DOptions{w::Padding::kSame, 1, 1, w::Activation::kRelu6});
  const int w2 = m.AddConstantOf<float>({1, 3, 3, 8}, "w2", Ramp(72));
  const int b2 = m.AddConstantOf<float>({8}, "b2", Ramp(8));
  const int d1 = m.AddTensor(DataType::kFloat32, {1, 8, 8, 8}, "dw");
  m.AddOp(BuiltinOp::kDepthwiseConv2D, {c1, w2, b2}, {d1}, w::DepthwiseConv2DOptions{w::Padding::kSame, 1, 1, 1});
  const int sum = m.AddTensor(DataType::kFloat32, {1, 8, 8, 8}, "sum");
  m.AddOp(BuiltinOp::kAdd, {d1, c1}, {sum}, w::ArithmeticOptions{w::Activation::kRelu});
  const int mp = m.AddTensor(DataType::kFloat32, {1, 4, 4, 8}, "maxpool");
  m.AddOp(BuiltinOp::kMaxPool2D, {sum}, {mp}, w::Pool2DOptions{w::Padding::kValid, 2, 2, 2, 2});
  const int ap = m.AddTensor(DataType::kFloat32, {1, 1, 1, 8}, "avgpool");
  m.AddOp(BuiltinOp::kAveragePool2D, {mp}, {ap}, w::Pool2DOptions{w::Padding::kValid, 4, 4, 4, 4});
  const int flat = m.AddTensor(DataType::kFloat32, {1, 8}, "flat");
  const int shape = m.AddConstantOf<int32_t>({2}, "shape", {1, 8});
  m.AddOp(BuiltinOp::kReshape, {ap, shape}, {flat}, w::ReshapeOptions{{1, 8}});
  const int fw = m.AddConstantOf<float>({5, 8}, "fc_w", Ramp(40));
  const int fb = m.AddConstantOf<float>({5}, "fc_b", Ramp(5));
  const int fc = m.AddTensor(DataType::kFloat32, {1, 5}, "fc");
  m.AddOp(BuiltinOp::kFullyConnected, {flat, fw, fb}, {fc}, w::FullyConnectedOptions{});
  const int out = m.AddTensor(DataType::kFloat32, {1, 5}, "softmax");
  m.AddOp(BuiltinOp::kSoftmax, {fc}, {out}, w::SoftmaxOptions{1.0f});
  m.SetInputs({in});
  m.SetOutputs({out});
}

// Resizes, concatenation, pads, reductions, transposed convolutions (float16 weights).
void Decoder(ModelWriter& m) {
  const int in = m.AddTensor(DataType::kFloat32, {1, 4, 4, 4}, "input");
  const int size = m.AddConstantOf<int32_t>({2}, "size", {8, 8});
  const int up = m.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "bilinear");
  m.AddOp(BuiltinOp::kResizeBilinear, {in, size}, {up}, w::ResizeBilinearOptions{false, true});
  const int nn = m.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "nearest");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR), {in, size}, {nn},
          Raw(tflite::BuiltinOptions::ResizeNearestNeighborOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateResizeNearestNeighborOptions(fbb, false, true); }));
  const int cat = m.AddTensor(DataType::kFloat32, {1, 8, 8, 8}, "concat");
  m.AddOp(BuiltinOp::kConcatenation, {up, nn}, {cat}, w::ConcatenationOptions{3});
  const int pads = m.AddConstantOf<int32_t>({4, 2}, "paddings", {0, 0, 1, 1, 1, 1, 0, 0});
  const int padded = m.AddTensor(DataType::kFloat32, {1, 10, 10, 8}, "pad");
  m.AddOp(BuiltinOp::kPad, {cat, pads}, {padded});
  const int wq = m.AddFloat16Constant({4, 3, 3, 8}, "tconv_w_fp16", Ramp(4 * 9 * 8));
  const int wf = m.AddTensor(DataType::kFloat32, {4, 3, 3, 8}, "tconv_w");
  m.AddOp(BuiltinOp::kDequantize, {wq}, {wf});
  const int oshape = m.AddConstantOf<int32_t>({4}, "tconv_shape", {1, 20, 20, 4});
  const int tconv = m.AddTensor(DataType::kFloat32, {1, 20, 20, 4}, "tconv");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::TRANSPOSE_CONV), {oshape, wf, padded}, {tconv},
          Raw(tflite::BuiltinOptions::TransposeConvOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateTransposeConvOptions(fbb, tflite::Padding::SAME, 2, 2);
          }));
  const int axes = m.AddConstantOf<int32_t>({2}, "axes", {1, 2});
  const int mean = m.AddTensor(DataType::kFloat32, {1, 1, 1, 4}, "mean");
  m.AddOp(BuiltinOp::kMean, {tconv, axes}, {mean}, w::ReducerOptions{true});
  const int sig = m.AddTensor(DataType::kFloat32, {1, 1, 1, 4}, "logistic");
  m.AddOp(BuiltinOp::kLogistic, {mean}, {sig});
  const int sum = m.AddTensor(DataType::kFloat32, {1, 1, 1, 1}, "sum");
  const int axis3 = m.AddConstantOf<int32_t>({1}, "axis3", {3});
  m.AddOp(BuiltinOp::kSum, {sig, axis3}, {sum}, w::ReducerOptions{true});
  m.SetInputs({in});
  m.SetOutputs({sum, tconv});
}

// Elementwise math with broadcasting.
void Elementwise(ModelWriter& m) {
  const int a = m.AddTensor(DataType::kFloat32, {1, 3, 4, 5}, "a");
  const int b = m.AddTensor(DataType::kFloat32, {1, 1, 4, 5}, "b");
  const int c = m.AddConstantOf<float>({5}, "c", {0.5f, 1.5f, 2.f, -1.f, 3.f});
  int x = m.AddTensor(DataType::kFloat32, {1, 3, 4, 5}, "sub");
  m.AddOp(BuiltinOp::kSub, {a, b}, {x}, w::ArithmeticOptions{});
  int y = m.AddTensor(DataType::kFloat32, {1, 3, 4, 5}, "mul");
  m.AddOp(BuiltinOp::kMul, {x, c}, {y}, w::ArithmeticOptions{w::Activation::kReluN1To1});
  auto unary = [&](tflite::BuiltinOperator op, int from, const char* name, w::BuiltinOptions options = {}) {
    const int t = m.AddTensor(DataType::kFloat32, {1, 3, 4, 5}, name);
    m.AddOp(static_cast<BuiltinOp>(op), {from}, {t}, std::move(options));
    return t;
  };
  auto binary = [&](tflite::BuiltinOperator op, int l, int r, const char* name, w::BuiltinOptions options = {}) {
    const int t = m.AddTensor(DataType::kFloat32, {1, 3, 4, 5}, name);
    m.AddOp(static_cast<BuiltinOp>(op), {l, r}, {t}, std::move(options));
    return t;
  };
  y = binary(tflite::BuiltinOperator::DIV, y, c, "div",
             Raw(tflite::BuiltinOptions::DivOptions, [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateDivOptions(fbb); }));
  y = binary(tflite::BuiltinOperator::MAXIMUM, y, b, "max");
  y = binary(tflite::BuiltinOperator::MINIMUM, y, a, "min");
  y = unary(tflite::BuiltinOperator::EXP, y, "exp");
  y = unary(tflite::BuiltinOperator::SQRT, y, "sqrt");
  y = unary(tflite::BuiltinOperator::RSQRT, y, "rsqrt");
  y = unary(tflite::BuiltinOperator::HARD_SWISH, y, "hswish");
  y = unary(tflite::BuiltinOperator::LEAKY_RELU, y, "leaky",
            Raw(tflite::BuiltinOptions::LeakyReluOptions,
                [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateLeakyReluOptions(fbb, 0.2f); }));
  const int alpha = m.AddConstantOf<float>({1, 1, 5}, "alpha", {0.1f, 0.2f, 0.3f, 0.4f, 0.5f});
  y = binary(tflite::BuiltinOperator::PRELU, y, alpha, "prelu");
  y = unary(tflite::BuiltinOperator::TANH, y, "tanh");
  y = unary(tflite::BuiltinOperator::RELU, y, "relu");
  m.SetInputs({a, b});
  m.SetOutputs({y});
}

// Shape and data movement ops.
void ShapeOps(ModelWriter& m) {
  const int in = m.AddTensor(DataType::kFloat32, {2, 4, 6, 4}, "input");
  const int perm = m.AddConstantOf<int32_t>({4}, "perm", {0, 2, 1, 3});
  const int tr = m.AddTensor(DataType::kFloat32, {2, 6, 4, 4}, "transpose");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::TRANSPOSE), {in, perm}, {tr});
  const int begin = m.AddConstantOf<int32_t>({4}, "begin", {0, 1, 0, 0});
  const int end = m.AddConstantOf<int32_t>({4}, "end", {2, 5, 4, 4});
  const int strides = m.AddConstantOf<int32_t>({4}, "strides", {1, 2, 1, 1});
  const int ss = m.AddTensor(DataType::kFloat32, {2, 2, 4, 4}, "strided");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::STRIDED_SLICE), {tr, begin, end, strides}, {ss},
          Raw(tflite::BuiltinOptions::StridedSliceOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateStridedSliceOptions(fbb, 0, 0, 0, 0, 0);
          }));
  const int sbegin = m.AddConstantOf<int32_t>({4}, "slice_begin", {0, 0, 1, 0});
  const int ssize = m.AddConstantOf<int32_t>({4}, "slice_size", {-1, 2, 2, 4});
  const int sl = m.AddTensor(DataType::kFloat32, {2, 2, 2, 4}, "slice");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::SLICE), {ss, sbegin, ssize}, {sl});
  const int axis = m.AddConstantOf<int32_t>({}, "split_axis", {3});
  const int s0 = m.AddTensor(DataType::kFloat32, {2, 2, 2, 2}, "split0");
  const int s1 = m.AddTensor(DataType::kFloat32, {2, 2, 2, 2}, "split1");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::SPLIT), {axis, sl}, {s0, s1},
          Raw(tflite::BuiltinOptions::SplitOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSplitOptions(fbb, 2); }));
  const int packed = m.AddTensor(DataType::kFloat32, {2, 2, 2, 2, 2}, "pack");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::PACK), {s0, s1}, {packed},
          Raw(tflite::BuiltinOptions::PackOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreatePackOptions(fbb, 2, 0); }));
  const int u0 = m.AddTensor(DataType::kFloat32, {2, 2, 2, 2}, "unpack0");
  const int u1 = m.AddTensor(DataType::kFloat32, {2, 2, 2, 2}, "unpack1");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::UNPACK), {packed}, {u0, u1},
          Raw(tflite::BuiltinOptions::UnpackOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateUnpackOptions(fbb, 2, 0); }));
  const int idx = m.AddConstantOf<int32_t>({3}, "gather_idx", {1, 0, 1});
  const int g = m.AddTensor(DataType::kFloat32, {2, 3, 2, 2}, "gather");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::GATHER), {u0, idx}, {g},
          Raw(tflite::BuiltinOptions::GatherOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateGatherOptions(fbb, 1, 0); }));
  const int nd_idx = m.AddConstantOf<int32_t>({2, 2}, "gather_nd_idx", {0, 1, 1, 2});
  const int gnd = m.AddTensor(DataType::kFloat32, {2, 2, 2}, "gather_nd");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::GATHER_ND), {g, nd_idx}, {gnd});
  const int s2d = m.AddTensor(DataType::kFloat32, {2, 1, 1, 8}, "space_to_depth");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::SPACE_TO_DEPTH), {u1}, {s2d},
          Raw(tflite::BuiltinOptions::SpaceToDepthOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSpaceToDepthOptions(fbb, 2); }));
  const int d2s = m.AddTensor(DataType::kFloat32, {2, 2, 2, 2}, "depth_to_space");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::DEPTH_TO_SPACE), {s2d}, {d2s},
          Raw(tflite::BuiltinOptions::DepthToSpaceOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateDepthToSpaceOptions(fbb, 2); }));
  const int argmax_axis = m.AddConstantOf<int32_t>({1}, "argmax_axis", {3});
  const int am = m.AddTensor(DataType::kInt64, {2, 2, 2}, "argmax");
  m.AddOp(BuiltinOp::kArgMax, {d2s, argmax_axis}, {am}, w::ArgMaxOptions{DataType::kInt64});
  const int cast = m.AddTensor(DataType::kFloat32, {2, 2, 2}, "cast");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::CAST), {am}, {cast},
          Raw(tflite::BuiltinOptions::CastOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateCastOptions(fbb, tflite::TensorType::INT64, tflite::TensorType::FLOAT32);
          }));
  const int ed_axis = m.AddConstantOf<int32_t>({}, "expand_axis", {0});
  const int ed = m.AddTensor(DataType::kFloat32, {1, 2, 2, 2}, "expand_dims");
  m.AddOp(static_cast<BuiltinOp>(tflite::BuiltinOperator::EXPAND_DIMS), {cast, ed_axis}, {ed});
  const int sq = m.AddTensor(DataType::kFloat32, {2, 2, 2}, "squeeze");
  m.AddOp(BuiltinOp::kSqueeze, {ed}, {sq}, w::SqueezeOptions{{0}});
  const int rmax_axis = m.AddConstantOf<int32_t>({1}, "reduce_axis", {1});
  const int rmax = m.AddTensor(DataType::kFloat32, {2, 2}, "reduce_max");
  m.AddOp(BuiltinOp::kReduceMax, {sq, rmax_axis}, {rmax}, w::ReducerOptions{false});
  m.SetInputs({in});
  m.SetOutputs({rmax, gnd});
}

// uint8 per-tensor: quantize, conv, depthwise, add, pools, FC, softmax, dequantize.
void Uint8Net(ModelWriter& m) {
  const int in = m.AddTensor(DataType::kFloat32, {1, 6, 6, 3}, "input");
  const int q = m.AddTensor(DataType::kUInt8, {1, 6, 6, 3}, "quantized", Q(1.f / 128, 128));
  m.AddOp(BuiltinOp::kQuantize, {in}, {q});
  std::vector<uint8_t> wbytes(8 * 27);
  for (size_t i = 0; i < wbytes.size(); ++i) wbytes[i] = static_cast<uint8_t>(100 + (i * 7) % 56);
  const int wc = m.AddConstant(DataType::kUInt8, {8, 3, 3, 3}, "conv_w", wbytes, Q(0.02f, 128));
  const int bc = m.AddConstantOf<int32_t>({8}, "conv_b", {10, -20, 30, -40, 50, -60, 70, -80}, Q(1.f / 128 * 0.02f, 0));
  const int conv = m.AddTensor(DataType::kUInt8, {1, 6, 6, 8}, "conv", Q(0.05f, 100));
  m.AddOp(BuiltinOp::kConv2D, {q, wc, bc}, {conv}, w::Conv2DOptions{w::Padding::kSame, 1, 1, w::Activation::kRelu6});
  std::vector<uint8_t> dbytes(72);
  for (size_t i = 0; i < dbytes.size(); ++i) dbytes[i] = static_cast<uint8_t>(90 + (i * 11) % 70);
  const int wd = m.AddConstant(DataType::kUInt8, {1, 3, 3, 8}, "dw_w", dbytes, Q(0.03f, 127));
  const int bd = m.AddConstantOf<int32_t>({8}, "dw_b", {1, 2, 3, 4, 5, 6, 7, 8}, Q(0.05f * 0.03f, 0));
  const int dw = m.AddTensor(DataType::kUInt8, {1, 3, 3, 8}, "dw", Q(0.05f, 100));
  m.AddOp(BuiltinOp::kDepthwiseConv2D, {conv, wd, bd}, {dw}, w::DepthwiseConv2DOptions{w::Padding::kSame, 2, 2, 1});
  const int sum = m.AddTensor(DataType::kUInt8, {1, 3, 3, 8}, "add", Q(0.1f, 90));
  m.AddOp(BuiltinOp::kAdd, {dw, dw}, {sum}, w::ArithmeticOptions{});
  const int mp = m.AddTensor(DataType::kUInt8, {1, 3, 3, 8}, "maxpool", Q(0.1f, 90));
  m.AddOp(BuiltinOp::kMaxPool2D, {sum}, {mp}, w::Pool2DOptions{w::Padding::kSame, 1, 1, 2, 2});
  const int ap = m.AddTensor(DataType::kUInt8, {1, 1, 1, 8}, "avgpool", Q(0.1f, 90));
  m.AddOp(BuiltinOp::kAveragePool2D, {mp}, {ap}, w::Pool2DOptions{w::Padding::kValid, 3, 3, 3, 3});
  const int flat = m.AddTensor(DataType::kUInt8, {1, 8}, "flat", Q(0.1f, 90));
  const int shape = m.AddConstantOf<int32_t>({2}, "shape", {1, 8});
  m.AddOp(BuiltinOp::kReshape, {ap, shape}, {flat}, w::ReshapeOptions{{1, 8}});
  std::vector<uint8_t> fbytes(4 * 8);
  for (size_t i = 0; i < fbytes.size(); ++i) fbytes[i] = static_cast<uint8_t>(80 + (i * 13) % 90);
  const int fw = m.AddConstant(DataType::kUInt8, {4, 8}, "fc_w", fbytes, Q(0.01f, 128));
  const int fbias = m.AddConstantOf<int32_t>({4}, "fc_b", {5, -5, 15, -15}, Q(0.1f * 0.01f, 0));
  const int fc = m.AddTensor(DataType::kUInt8, {1, 4}, "fc", Q(0.2f, 120));
  m.AddOp(BuiltinOp::kFullyConnected, {flat, fw, fbias}, {fc}, w::FullyConnectedOptions{});
  const int sm = m.AddTensor(DataType::kUInt8, {1, 4}, "softmax", Q(1.f / 256, 0));
  m.AddOp(BuiltinOp::kSoftmax, {fc}, {sm}, w::SoftmaxOptions{1.0f});
  const int out = m.AddTensor(DataType::kFloat32, {1, 4}, "output");
  m.AddOp(BuiltinOp::kDequantize, {sm}, {out});
  m.SetInputs({in});
  m.SetOutputs({out});
}

// int8 per-channel conv, resize, concat, logistic, tanh, mul, mean, hard swish.
void Int8Net(ModelWriter& m) {
  const int in = m.AddTensor(DataType::kInt8, {1, 5, 5, 4}, "input", Q(0.05f, -3));
  Quantization wq;
  wq.scale = {0.01f, 0.02f, 0.015f, 0.03f};
  wq.zero_point = {0, 0, 0, 0};
  wq.quantized_dimension = 0;
  std::vector<uint8_t> wbytes(4 * 9 * 4);
  for (size_t i = 0; i < wbytes.size(); ++i) wbytes[i] = static_cast<uint8_t>(static_cast<int8_t>((i * 29) % 255 - 127));
  const int wc = m.AddConstant(DataType::kInt8, {4, 3, 3, 4}, "conv_w", wbytes, wq);
  Quantization bq;
  bq.scale = {0.0005f, 0.001f, 0.00075f, 0.0015f};
  bq.zero_point = {0, 0, 0, 0};
  const int bc = m.AddConstantOf<int32_t>({4}, "conv_b", {100, -100, 50, -50}, bq);
  const int conv = m.AddTensor(DataType::kInt8, {1, 5, 5, 4}, "conv", Q(0.1f, 5));
  m.AddOp(BuiltinOp::kConv2D, {in, wc, bc}, {conv}, w::Conv2DOptions{w::Padding::kSame, 1, 1, w::Activation::kRelu});
  const int size = m.AddConstantOf<int32_t>({2}, "size", {10, 10});
  const int up = m.AddTensor(DataType::kInt8, {1, 10, 10, 4}, "resize", Q(0.1f, 5));
  m.AddOp(BuiltinOp::kResizeBilinear, {conv, size}, {up}, w::ResizeBilinearOptions{false, true});
  const int lg = m.AddTensor(DataType::kInt8, {1, 10, 10, 4}, "logistic", Q(1.f / 256, -128));
  m.AddOp(BuiltinOp::kLogistic, {up}, {lg});
  const int th = m.AddTensor(DataType::kInt8, {1, 10, 10, 4}, "tanh", Q(1.f / 128, 0));
  m.AddOp(BuiltinOp::kTanh, {up}, {th});
  const int cat = m.AddTensor(DataType::kInt8, {1, 10, 10, 8}, "concat", Q(1.f / 128, 0));
  m.AddOp(BuiltinOp::kConcatenation, {lg, th}, {cat}, w::ConcatenationOptions{3});
  const int mul = m.AddTensor(DataType::kInt8, {1, 10, 10, 8}, "mul", Q(1.f / 64, 0));
  m.AddOp(BuiltinOp::kMul, {cat, cat}, {mul}, w::ArithmeticOptions{});
  const int hs = m.AddTensor(DataType::kInt8, {1, 10, 10, 8}, "hard_swish", Q(1.f / 64, -10));
  m.AddOp(BuiltinOp::kHardSwish, {mul}, {hs});
  const int axes = m.AddConstantOf<int32_t>({2}, "axes", {1, 2});
  const int mean = m.AddTensor(DataType::kInt8, {1, 8}, "mean", Q(1.f / 64, -10));
  m.AddOp(BuiltinOp::kMean, {hs, axes}, {mean}, w::ReducerOptions{false});
  m.SetInputs({in});
  m.SetOutputs({mean});
}

// An inverted-residual block large enough (a 1 MiB expanded tensor) that the
// 1x1 expansion (float16 weights behind DEQUANTIZE) runs inside the
// depthwise kernel, then a HARD_SWISH, the projection and the residual ADD.
void InvertedResidual(ModelWriter& m) {
  const int in = m.AddTensor(DataType::kFloat32, {1, 64, 64, 8}, "input");
  const int we16 = m.AddFloat16Constant({64, 1, 1, 8}, "expand_w_fp16", Ramp(64 * 8));
  const int we = m.AddTensor(DataType::kFloat32, {64, 1, 1, 8}, "expand_w");
  m.AddOp(BuiltinOp::kDequantize, {we16}, {we});
  const int be = m.AddConstantOf<float>({64}, "expand_b", Ramp(64));
  const int ex = m.AddTensor(DataType::kFloat32, {1, 64, 64, 64}, "expand");
  m.AddOp(BuiltinOp::kConv2D, {in, we, be}, {ex}, w::Conv2DOptions{w::Padding::kSame, 1, 1, w::Activation::kNone});
  const int ex6 = m.AddTensor(DataType::kFloat32, {1, 64, 64, 64}, "expand_relu6");
  m.AddOp(BuiltinOp::kRelu6, {ex}, {ex6});
  const int wd = m.AddConstantOf<float>({1, 3, 3, 64}, "dw_w", Ramp(9 * 64));
  const int bd = m.AddConstantOf<float>({64}, "dw_b", Ramp(64));
  const int dw = m.AddTensor(DataType::kFloat32, {1, 64, 64, 64}, "dw");
  m.AddOp(BuiltinOp::kDepthwiseConv2D, {ex6, wd, bd}, {dw}, w::DepthwiseConv2DOptions{w::Padding::kSame, 1, 1, 1});
  const int hs = m.AddTensor(DataType::kFloat32, {1, 64, 64, 64}, "hard_swish");
  m.AddOp(BuiltinOp::kHardSwish, {dw}, {hs});
  const int wp = m.AddConstantOf<float>({8, 1, 1, 64}, "project_w", Ramp(8 * 64, 0.01f));
  const int pr = m.AddTensor(DataType::kFloat32, {1, 64, 64, 8}, "project");
  m.AddOp(BuiltinOp::kConv2D, {hs, wp}, {pr}, w::Conv2DOptions{});
  const int out = m.AddTensor(DataType::kFloat32, {1, 64, 64, 8}, "residual");
  m.AddOp(BuiltinOp::kAdd, {pr, in}, {out}, w::ArithmeticOptions{});
  m.SetInputs({in});
  m.SetOutputs({out});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: relite_fuzz_seeds DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const std::vector<std::pair<const char*, std::function<void(ModelWriter&)>>> seeds = {
      {"seed_conv_chain", ConvChain}, {"seed_decoder", Decoder}, {"seed_elementwise", Elementwise},
      {"seed_shape_ops", ShapeOps},   {"seed_uint8_net", Uint8Net}, {"seed_int8_net", Int8Net}, {"seed_inverted_residual", InvertedResidual},
  };
  int failed = 0;
  for (const auto& [name, build] : seeds) {
    ModelWriter m(std::string("relite fuzz seed ") + name);
    m.SetForceDefaults(true);
    build(m);
    const relite::Status s = m.WriteFile((dir / (std::string(name) + ".tflite")).string());
    if (!s.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", name, s.ToString().c_str());
      ++failed;
    }
  }
  std::printf("wrote %zu seed models to %s\n", seeds.size() - static_cast<size_t>(failed), dir.c_str());
  return failed == 0 ? 0 : 1;
}
