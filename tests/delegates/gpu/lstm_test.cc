// The BASIC LSTM cell on the GPU against the CPU kernel: depths that are and
// are not multiples of 4, batches, fp32 and fp16.
#include <random>

#include <gtest/gtest.h>

#include "tests/testing/gpu_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

class GpuLstmTest : public ::testing::TestWithParam<GpuPrecision> {};

TEST_P(GpuLstmTest, BasicCellMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  const bool fp16 = GetParam() == GpuPrecision::kFp16;
  struct Case {
    int B, I, O;
  };
  for (const Case c : {Case{1, 4, 8}, Case{2, 3, 5}, Case{3, 10, 7}, Case{1, 1, 1}}) {
    SCOPED_TRACE(::testing::Message() << "B=" << c.B << " I=" << c.I << " O=" << c.O);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    const float scale = 1.f / std::sqrt(static_cast<float>(c.I + c.O));
    std::vector<float> w(static_cast<size_t>(4 * c.O * (c.I + c.O))), bias(static_cast<size_t>(4 * c.O));
    for (float& v : w) v = dist(rng) * scale;
    for (float& v : bias) v = dist(rng) * 0.5f;
    testing::SingleOpModel m;
    m.AddInput(DataType::kFloat32, {c.B, c.I});
    m.AddInput(DataType::kFloat32, {c.B, c.O});
    m.AddConstInput<float>(DataType::kFloat32, {4 * c.O, c.I + c.O}, w);
    m.AddConstInput<float>(DataType::kFloat32, {4 * c.O}, bias);
    m.AddInput(DataType::kFloat32, {c.B, c.O});
    m.AddOutput(DataType::kFloat32, {c.B, c.O});
    m.AddOutput(DataType::kFloat32, {c.B, c.O});
    m.AddOutput(DataType::kFloat32, {c.B, c.I + c.O});
    m.AddOutput(DataType::kFloat32, {c.B, 4 * c.O});
    m.SetBuiltinOp(tflite::BuiltinOperator::LSTM, 2, tflite::BuiltinOptions::LSTMOptions,
                   tflite::CreateLSTMOptions(m.fbb(), tflite::ActivationFunctionType::TANH, 0.f, 0.f,
                                             tflite::LSTMKernelType::BASIC).Union());
    ASSERT_TRUE(m.Build().ok());
    auto r = testing::RunCpuAndGpu(m.model_bytes(), gpu);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(testing::OutputsClose(r, fp16 ? testing::kFp16Atol : testing::kFp32Atol,
                                      fp16 ? testing::kFp16Rtol : testing::kFp32Rtol));
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuLstmTest, ::testing::Values(GpuPrecision::kFp32, GpuPrecision::kFp16),
                         [](const auto& info) { return info.param == GpuPrecision::kFp32 ? "fp32" : "fp16"; });

}  // namespace
}  // namespace relite
