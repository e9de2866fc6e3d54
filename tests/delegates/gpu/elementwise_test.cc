// GPU elementwise ops against the CPU kernels: binary ops with every
// broadcast pattern the GPU layout allows, fused clamps, unary ops, fp32 and
// fp16, odd channel counts (a partial last slice).
#include <gtest/gtest.h>

#include "tests/testing/gpu_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
using tflite::BuiltinOperator;

struct Binary {
  BuiltinOperator op;
  bool has_activation;
};

std::vector<uint8_t> BinaryModel(BuiltinOperator op, const Shape& a, const Shape& b, const Shape& out,
                                 tflite::ActivationFunctionType act, bool b_constant) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, a);
  if (b_constant) {
    std::vector<float> v(static_cast<size_t>(NumElements(b)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5f + 0.25f * static_cast<float>(i % 7);
    m.AddConstInput<float>(DataType::kFloat32, b, v);
  } else {
    m.AddInput(DataType::kFloat32, b);
  }
  m.AddOutput(DataType::kFloat32, out);
  auto& fbb = m.fbb();
  switch (op) {
    case BuiltinOperator::ADD:
      m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::AddOptions, tflite::CreateAddOptions(fbb, act).Union());
      break;
    case BuiltinOperator::SUB:
      m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::SubOptions, tflite::CreateSubOptions(fbb, act).Union());
      break;
    case BuiltinOperator::MUL:
      m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::MulOptions, tflite::CreateMulOptions(fbb, act).Union());
      break;
    case BuiltinOperator::DIV:
      m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::DivOptions, tflite::CreateDivOptions(fbb, act).Union());
      break;
    default:
      m.SetBuiltinOp(op, 1);
  }
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}

class GpuBinaryTest : public ::testing::TestWithParam<GpuPrecision> {};

TEST_P(GpuBinaryTest, AllOpsAllBroadcastsMatchCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const bool fp16 = GetParam() == GpuPrecision::kFp16;
  const Binary ops[] = {{BuiltinOperator::ADD, true}, {BuiltinOperator::SUB, true},  {BuiltinOperator::MUL, true},
                        {BuiltinOperator::DIV, true}, {BuiltinOperator::MAXIMUM, false}, {BuiltinOperator::MINIMUM, false},
                        {BuiltinOperator::PRELU, false}};
  struct Case {
    Shape a, b, out;
  };
  const Case cases[] = {
      {{1, 5, 7, 6}, {1, 5, 7, 6}, {1, 5, 7, 6}},  // same shape, partial slice
      {{1, 5, 7, 6}, {6}, {1, 5, 7, 6}},           // per-channel vector
      {{1, 5, 7, 9}, {1}, {1, 5, 7, 9}},           // scalar
      {{1, 5, 7, 8}, {1, 5, 1, 8}, {1, 5, 7, 8}},  // broadcast over W
      {{1, 4, 3, 5}, {1, 1, 3, 1}, {1, 4, 3, 5}},  // broadcast over H and C
      {{1, 1, 1, 3}, {1, 4, 3, 3}, {1, 4, 3, 3}},  // first operand broadcast
      {{2, 3, 5}, {2, 3, 5}, {2, 3, 5}},           // rank 3
      {{3, 10}, {10}, {3, 10}},                    // rank 2
  };
  const tflite::ActivationFunctionType acts[] = {tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU,
                                                 tflite::ActivationFunctionType::RELU6,
                                                 tflite::ActivationFunctionType::RELU_N1_TO_1};
  for (const Binary& op : ops) {
    for (const Case& c : cases) {
      if (op.op == BuiltinOperator::PRELU && NumElements(c.a) < NumElements(c.b)) continue;  // alpha broadcasts to input
      for (bool b_const : {false, true}) {
        for (auto act : acts) {
          if (!op.has_activation && act != tflite::ActivationFunctionType::NONE) continue;
          SCOPED_TRACE(::testing::Message() << tflite::EnumNameBuiltinOperator(op.op) << " " << ShapeToString(c.a) << " "
                                            << ShapeToString(c.b) << " const=" << b_const << " act=" << static_cast<int>(act));
          const auto model = BinaryModel(op.op, c.a, c.b, c.out, act, b_const);
          const bool div = op.op == BuiltinOperator::DIV;
          auto r = testing::RunCpuAndGpu(model, gpu, div ? 0.5f : -2.f, 2.f);
          EXPECT_EQ(r.delegated, 1) << r.report;
          EXPECT_TRUE(testing::OutputsClose(r, fp16 ? testing::kFp16Atol : testing::kFp32Atol,
                                            fp16 ? testing::kFp16Rtol : testing::kFp32Rtol));
        }
      }
    }
  }
}

TEST_P(GpuBinaryTest, LogicalAnd) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  for (const Shape& b : {Shape{1, 3, 4, 5}, Shape{5}, Shape{1}}) {
    SingleOpModel m;
    m.AddInput(DataType::kBool, {1, 3, 4, 5});
    m.AddInput(DataType::kBool, b);
    m.AddOutput(DataType::kBool, {1, 3, 4, 5});
    m.SetBuiltinOp(BuiltinOperator::LOGICAL_AND, 1);
    ASSERT_TRUE(m.Build().ok());
    auto r = testing::RunCpuAndGpu(m.model_bytes(), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(testing::OutputsClose(r, 0.f, 0.f));
  }
}

TEST_P(GpuBinaryTest, UnaryOpsMatchCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const bool fp16 = GetParam() == GpuPrecision::kFp16;
  const BuiltinOperator ops[] = {BuiltinOperator::EXP,   BuiltinOperator::LOGISTIC, BuiltinOperator::TANH,
                                 BuiltinOperator::RELU,  BuiltinOperator::RELU6,    BuiltinOperator::RELU_N1_TO_1,
                                 BuiltinOperator::HARD_SWISH, BuiltinOperator::LEAKY_RELU};
  for (BuiltinOperator op : ops) {
    for (const Shape& shape : {Shape{1, 6, 5, 7}, Shape{2, 9}, Shape{13}}) {
      SCOPED_TRACE(::testing::Message() << tflite::EnumNameBuiltinOperator(op) << " " << ShapeToString(shape));
      SingleOpModel m;
      m.AddInput(DataType::kFloat32, shape);
      m.AddOutput(DataType::kFloat32, shape);
      if (op == BuiltinOperator::LEAKY_RELU) {
        m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::LeakyReluOptions, tflite::CreateLeakyReluOptions(m.fbb(), 0.2f).Union());
      } else {
        m.SetBuiltinOp(op, 1);
      }
      ASSERT_TRUE(m.Build().ok());
      auto r = testing::RunCpuAndGpu(m.model_bytes(), gpu, -8.f, 8.f);
      EXPECT_EQ(r.delegated, 1) << r.report;
      EXPECT_TRUE(testing::OutputsClose(r, fp16 ? testing::kFp16Atol : testing::kFp32Atol,
                                        fp16 ? testing::kFp16Rtol : testing::kFp32Rtol));
    }
  }
}

TEST_P(GpuBinaryTest, RankMovingBroadcastIsRefusedWithAReason) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  // [5,6] against [1,4,5,6]: stored as B=5,C=6 but read as W=5,C=6.
  const auto model = BinaryModel(BuiltinOperator::ADD, {1, 4, 5, 6}, {5, 6}, {1, 4, 5, 6},
                                 tflite::ActivationFunctionType::NONE, false);
  auto r = testing::RunCpuAndGpu(model, gpu);
  EXPECT_EQ(r.delegated, 0);
  EXPECT_NE(r.report.find("changes its layout"), std::string::npos) << r.report;
  EXPECT_TRUE(testing::OutputsClose(r, 0.f, 0.f));
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuBinaryTest, ::testing::Values(GpuPrecision::kFp32, GpuPrecision::kFp16),
                         [](const auto& info) { return info.param == GpuPrecision::kFp32 ? "fp32" : "fp16"; });

}  // namespace
}  // namespace relite
