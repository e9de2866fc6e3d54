// The ops of issue 14 against native LiteRT: each case is a one-op model run
// in relite and in LiteRT on the same inputs (tests/testing/litert_golden.h);
// integer, bool and 8-bit outputs must be bit-exact, float within a stated
// bound. One Python process runs every case of a test.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/litert_golden.h"

namespace relite {
namespace {

using testing::GoldenCase;
using tflite::BuiltinOperator;
using Cases = std::vector<std::unique_ptr<GoldenCase>>;

constexpr double kElementwiseRtol = 1e-5;

std::vector<float> Uniform(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = std::uniform_real_distribution<float>(lo, hi)(rng);
  return v;
}

template <typename T>
std::vector<T> Ints(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(std::uniform_int_distribution<int>(lo, hi)(rng));
  return v;
}

// A reduce op (data, constant int32 axes) with ReducerOptions.
template <typename T>
void AddReduce(Cases& cases, const std::string& name, BuiltinOperator op, DataType type, const Shape& shape,
               const std::vector<T>& x, const std::vector<int32_t>& axes, bool keep_dims, double rtol = 0) {
  auto c = std::make_unique<GoldenCase>(name);
  const int in = c->model.AddInput(type, shape);
  c->model.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int out = c->model.AddOutput(type);
  c->model.SetBuiltinOp(op, 1, tflite::BuiltinOptions::ReducerOptions,
                        tflite::CreateReducerOptions(c->model.fbb(), keep_dims).Union());
  c->Feed<T>(in, type, shape, x);
  c->Expect(out, rtol);
  cases.push_back(std::move(c));
}

TEST(LiteRtGoldenTest, Reductions) {
  Cases cases;
  const Shape s = {2, 3, 5, 4};
  const size_t n = 120;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> with_nan = Uniform(n, -5, 5, 1);
  with_nan[3] = nan;
  with_nan[40] = nan;
  AddReduce<float>(cases, "REDUCE_MIN/float hw", BuiltinOperator::REDUCE_MIN, DataType::kFloat32, s, Uniform(n, -5, 5, 2), {1, 2}, false);
  AddReduce<float>(cases, "REDUCE_MIN/float NaN keep", BuiltinOperator::REDUCE_MIN, DataType::kFloat32, s, with_nan, {-1}, true);
  cases.back()->litert_reference_kernels = true;  // the optimized kernel keeps a NaN only in a row's last lane
  AddReduce<int32_t>(cases, "REDUCE_MIN/int32 all", BuiltinOperator::REDUCE_MIN, DataType::kInt32, s, Ints<int32_t>(n, -900, 900, 3), {0, 1, 2, 3}, false);
  AddReduce<int64_t>(cases, "REDUCE_MIN/int64", BuiltinOperator::REDUCE_MIN, DataType::kInt64, s, Ints<int64_t>(n, -900, 900, 4), {0, 3}, false);
  AddReduce<float>(cases, "REDUCE_PROD/float", BuiltinOperator::REDUCE_PROD, DataType::kFloat32, s, Uniform(n, 0.6f, 1.4f, 5), {2}, false, kElementwiseRtol);
  AddReduce<float>(cases, "REDUCE_PROD/float two axes", BuiltinOperator::REDUCE_PROD, DataType::kFloat32, s, Uniform(n, -1.3f, 1.3f, 6), {0, 2}, true, kElementwiseRtol);
  AddReduce<int32_t>(cases, "REDUCE_PROD/int32", BuiltinOperator::REDUCE_PROD, DataType::kInt32, s, Ints<int32_t>(n, -4, 4, 7), {1}, false);
  std::vector<uint8_t> bools = Ints<uint8_t>(n, 0, 1, 8);
  std::vector<uint8_t> mostly = Ints<uint8_t>(n, 0, 6, 9);
  for (uint8_t& b : mostly) b = b != 0;
  AddReduce<uint8_t>(cases, "REDUCE_ANY/bool", BuiltinOperator::REDUCE_ANY, DataType::kBool, s, std::vector<uint8_t>(n, 0), {2}, false);
  AddReduce<uint8_t>(cases, "REDUCE_ANY/bool mixed", BuiltinOperator::REDUCE_ANY, DataType::kBool, s, bools, {1, 3}, true);
  AddReduce<uint8_t>(cases, "REDUCE_ALL/bool", BuiltinOperator::REDUCE_ALL, DataType::kBool, s, mostly, {3}, false);
  AddReduce<uint8_t>(cases, "REDUCE_ALL/bool hw", BuiltinOperator::REDUCE_ALL, DataType::kBool, s, mostly, {1, 2}, false);

  for (DataType index : {DataType::kInt32, DataType::kInt64}) {
    for (int axis : {0, 2, -1}) {
      auto c = std::make_unique<GoldenCase>("ARG_MIN/axis " + std::to_string(axis) + " " + DataTypeName(index));
      const int in = c->model.AddInput(DataType::kFloat32, s);
      c->model.AddConstInput<int32_t>(DataType::kInt32, {1}, {axis});
      const int out = c->model.AddOutput(index);
      c->model.SetBuiltinOp(BuiltinOperator::ARG_MIN, 1, tflite::BuiltinOptions::ArgMinOptions,
                            tflite::CreateArgMinOptions(c->model.fbb(), static_cast<tflite::TensorType>(index)).Union());
      std::vector<float> x = Uniform(n, -3, 3, 10);
      for (size_t i = 0; i < n; i += 7) x[i] = -3.5f;  // ties: the first index wins
      c->Feed<float>(in, DataType::kFloat32, s, x);
      c->Expect(out);
      cases.push_back(std::move(c));
    }
  }
  {
    auto c = std::make_unique<GoldenCase>("ARG_MIN/int8 raw");
    const Shape q = {3, 40};
    Quantization quant;
    quant.scale = {0.1f};
    quant.zero_point = {-3};
    const int in = c->model.AddInput(DataType::kInt8, q, quant);
    c->model.AddConstInput<int32_t>(DataType::kInt32, {1}, {1});
    const int out = c->model.AddOutput(DataType::kInt32);
    c->model.SetBuiltinOp(BuiltinOperator::ARG_MIN, 2, tflite::BuiltinOptions::ArgMinOptions,
                          tflite::CreateArgMinOptions(c->model.fbb(), tflite::TensorType::INT32).Union());
    c->Feed<int8_t>(in, DataType::kInt8, q, Ints<int8_t>(120, -128, 127, 11));
    c->Expect(out);
    cases.push_back(std::move(c));
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

TEST(LiteRtGoldenTest, NormalizationsAndScans) {
  Cases cases;
  for (const Shape& shape : {Shape{4, 10}, Shape{1, 3, 3, 33}, Shape{7}}) {
    const size_t n = static_cast<size_t>(NumElements(shape));
    for (auto [op, name] : {std::pair{BuiltinOperator::LOG_SOFTMAX, "LOG_SOFTMAX"},
                            std::pair{BuiltinOperator::L2_NORMALIZATION, "L2_NORMALIZATION"}}) {
      auto c = std::make_unique<GoldenCase>(std::string(name) + "/" + ShapeToString(shape));
      const int in = c->model.AddInput(DataType::kFloat32, shape);
      const int out = c->model.AddOutput(DataType::kFloat32);
      c->model.SetBuiltinOp(op, 1);
      std::vector<float> x = Uniform(n, -20, 20, 12);
      if (op == BuiltinOperator::L2_NORMALIZATION && shape.back() == 10) std::fill(x.begin(), x.begin() + 10, 0.f);
      c->Feed<float>(in, DataType::kFloat32, shape, x);
      c->Expect(out, kElementwiseRtol, 1e-6);
      cases.push_back(std::move(c));
    }
  }
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      for (int axis : {0, 1, -1}) {
        const Shape shape = {3, 4, 5};
        const std::string mode = std::string(exclusive ? " exclusive" : "") + (reverse ? " reverse" : "");
        for (DataType type : {DataType::kFloat32, DataType::kInt32, DataType::kInt64}) {
          auto c = std::make_unique<GoldenCase>("CUMSUM/" + DataTypeName(type) + " axis " + std::to_string(axis) + mode);
          const int in = c->model.AddInput(type, shape);
          c->model.AddConstInput<int32_t>(DataType::kInt32, {}, {axis});
          const int out = c->model.AddOutput(type);
          c->model.SetBuiltinOp(BuiltinOperator::CUMSUM, 1, tflite::BuiltinOptions::CumsumOptions,
                                tflite::CreateCumsumOptions(c->model.fbb(), exclusive, reverse).Union());
          if (type == DataType::kFloat32) {
            c->Feed<float>(in, type, shape, Uniform(60, -9, 9, 13));
            c->Expect(out);  // the same sums in the same order: bit-exact
          } else if (type == DataType::kInt32) {
            c->Feed<int32_t>(in, type, shape, Ints<int32_t>(60, -1000, 1000, 14));
            c->Expect(out);
          } else {
            c->Feed<int64_t>(in, type, shape, Ints<int64_t>(60, -1000, 1000, 15));
            c->Expect(out);
          }
          cases.push_back(std::move(c));
        }
      }
    }
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}


TEST(LiteRtGoldenTest, BatchMatMul) {
  Cases cases;
  struct Mm {
    Shape x, y;
    bool adj_x, adj_y, y_const;
  };
  const std::vector<Mm> mms = {
      {{2, 7, 9}, {2, 9, 33}, false, false, false}, {{2, 9, 7}, {2, 33, 9}, true, true, false},
      {{4, 1, 6, 8}, {3, 8, 5}, false, false, true}, {{1, 20, 16}, {5, 16, 18}, false, false, false},
      {{6, 20, 16}, {16, 18}, false, false, true},   {{1, 1, 64}, {1, 40, 64}, false, true, false},
      {{3, 48, 40}, {3, 40, 36}, false, false, true},
  };
  uint32_t seed = 20;
  for (const Mm& mm : mms) {
    auto c = std::make_unique<GoldenCase>("BATCH_MATMUL/" + ShapeToString(mm.x) + (mm.adj_x ? "^T" : "") + " x " +
                                          ShapeToString(mm.y) + (mm.adj_y ? "^T" : "") + (mm.y_const ? " const" : ""));
    const std::vector<float> x = Uniform(static_cast<size_t>(NumElements(mm.x)), -1, 1, seed++);
    const std::vector<float> y = Uniform(static_cast<size_t>(NumElements(mm.y)), -1, 1, seed++);
    const int ix = c->model.AddInput(DataType::kFloat32, mm.x);
    const int iy = mm.y_const ? c->model.AddConstInput<float>(DataType::kFloat32, mm.y, y)
                              : c->model.AddInput(DataType::kFloat32, mm.y);
    const int out = c->model.AddOutput(DataType::kFloat32);
    c->model.SetBuiltinOp(BuiltinOperator::BATCH_MATMUL, 1, tflite::BuiltinOptions::BatchMatMulOptions,
                          tflite::CreateBatchMatMulOptions(c->model.fbb(), mm.adj_x, mm.adj_y).Union());
    c->Feed<float>(ix, DataType::kFloat32, mm.x, x);
    if (!mm.y_const) c->Feed<float>(iy, DataType::kFloat32, mm.y, y);
    // Sums of K products in another order (blocked FMA vs LiteRT's loop):
    // within 1e-5 relative plus 1e-5 * K / 64 absolute.
    c->Expect(out, 1e-5, 2e-5);
    cases.push_back(std::move(c));
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

// Symmetric int8 weights as the converter's dynamic-range mode writes them:
// one scale per tensor or per output channel along `axis`, zero points 0.
Quantization WeightQuant(int channels, bool per_channel, int axis, uint32_t seed) {
  std::mt19937 rng(seed);
  Quantization q;
  q.quantized_dimension = axis;
  for (int c = 0; c < (per_channel ? channels : 1); ++c) {
    q.scale.push_back(std::uniform_real_distribution<float>(0.002f, 0.02f)(rng));
    q.zero_point.push_back(0);
  }
  return q;
}

TEST(LiteRtGoldenTest, HybridDynamicRange) {
  Cases cases;
  uint32_t seed = 40;
  // FULLY_CONNECTED: rows quantized one by one; symmetric or asymmetric.
  for (bool per_channel : {false, true}) {
    for (bool asymmetric : {false, true}) {
      for (bool bias : {false, true}) {
        auto c = std::make_unique<GoldenCase>(std::string("FULLY_CONNECTED/hybrid") + (per_channel ? " per-channel" : "") +
                                              (asymmetric ? " asymmetric" : "") + (bias ? " bias" : ""));
        const Shape in_shape = {3, 40};
        const int in = c->model.AddInput(DataType::kFloat32, in_shape);
        c->model.AddConstInput<int8_t>(DataType::kInt8, {12, 40}, Ints<int8_t>(480, -127, 127, seed),
                                       WeightQuant(12, per_channel, 0, seed + 1));
        seed += 2;
        if (bias) {
          c->model.AddConstInput<float>(DataType::kFloat32, {12}, Uniform(12, -1, 1, seed++));
        } else {
          c->model.AddOptionalInput();
        }
        const int out = c->model.AddOutput(DataType::kFloat32);
        c->model.SetBuiltinOp(BuiltinOperator::FULLY_CONNECTED, per_channel ? 12 : (asymmetric ? 9 : 3),
                              tflite::BuiltinOptions::FullyConnectedOptions,
                              tflite::CreateFullyConnectedOptions(c->model.fbb(), tflite::ActivationFunctionType::RELU,
                                                                  tflite::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                                                  false, asymmetric)
                                  .Union());
        std::vector<float> x = Uniform(120, -2, 3, seed++);
        for (int k = 0; k < 40; ++k) x[static_cast<size_t>(80 + k)] = 0.f;  // an all-zero row: scale 1
        c->Feed<float>(in, DataType::kFloat32, in_shape, x);
        c->Expect(out, 1e-5, 1e-6);
        cases.push_back(std::move(c));
      }
    }
  }
  // CONV_2D and DEPTHWISE_CONV_2D: each batch quantized as a whole.
  for (bool per_channel : {false, true}) {
    auto c = std::make_unique<GoldenCase>(std::string("CONV_2D/hybrid") + (per_channel ? " per-channel" : ""));
    const Shape in_shape = {2, 7, 6, 5};
    const int in = c->model.AddInput(DataType::kFloat32, in_shape);
    c->model.AddConstInput<int8_t>(DataType::kInt8, {8, 3, 3, 5}, Ints<int8_t>(360, -127, 127, seed),
                                   WeightQuant(8, per_channel, 0, seed + 1));
    seed += 2;
    c->model.AddConstInput<float>(DataType::kFloat32, {8}, Uniform(8, -1, 1, seed++));
    const int out = c->model.AddOutput(DataType::kFloat32);
    c->model.SetBuiltinOp(BuiltinOperator::CONV_2D, per_channel ? 5 : 2, tflite::BuiltinOptions::Conv2DOptions,
                          tflite::CreateConv2DOptions(c->model.fbb(), tflite::Padding::SAME, 2, 1,
                                                      tflite::ActivationFunctionType::NONE)
                              .Union());
    c->Feed<float>(in, DataType::kFloat32, in_shape, Uniform(420, -1, 4, seed++));
    c->Expect(out, 1e-5, 1e-5);
    cases.push_back(std::move(c));
  }
  {
    auto c = std::make_unique<GoldenCase>("DEPTHWISE_CONV_2D/hybrid per-channel");
    const Shape in_shape = {1, 9, 9, 6};
    const int in = c->model.AddInput(DataType::kFloat32, in_shape);
    c->model.AddConstInput<int8_t>(DataType::kInt8, {1, 3, 3, 12}, Ints<int8_t>(108, -127, 127, seed),
                                   WeightQuant(12, true, 3, seed + 1));
    seed += 2;
    c->model.AddConstInput<float>(DataType::kFloat32, {12}, Uniform(12, -1, 1, seed++));
    const int out = c->model.AddOutput(DataType::kFloat32);
    c->model.SetBuiltinOp(BuiltinOperator::DEPTHWISE_CONV_2D, 6, tflite::BuiltinOptions::DepthwiseConv2DOptions,
                          tflite::CreateDepthwiseConv2DOptions(c->model.fbb(), tflite::Padding::VALID, 1, 1, 2,
                                                               tflite::ActivationFunctionType::RELU6)
                              .Union());
    c->Feed<float>(in, DataType::kFloat32, in_shape, Uniform(486, -3, 3, seed++));
    c->Expect(out, 1e-5, 1e-5);
    cases.push_back(std::move(c));
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

}  // namespace
}  // namespace relite
