// LSTM (kernel_type BASIC) on the CPU: against the cell written out by hand,
// and the errors for what it does not run.
#include <cmath>

#include <gtest/gtest.h>

#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;

struct BasicLstm {
  int data, prev_activ, prev_state, activ, state, concat, gates;
};

BasicLstm AddBasicLstm(SingleOpModel& m, int B, int I, int O, const std::vector<float>& w, const std::vector<float>& bias,
                       tflite::LSTMKernelType type = tflite::LSTMKernelType::BASIC) {
  BasicLstm l;
  l.data = m.AddInput(DataType::kFloat32, {B, I});
  l.prev_activ = m.AddInput(DataType::kFloat32, {B, O});
  m.AddConstInput<float>(DataType::kFloat32, {4 * O, I + O}, w);
  m.AddConstInput<float>(DataType::kFloat32, {4 * O}, bias);
  l.prev_state = m.AddInput(DataType::kFloat32, {B, O});
  l.activ = m.AddOutput(DataType::kFloat32, {B, O});
  l.state = m.AddOutput(DataType::kFloat32, {B, O});
  l.concat = m.AddOutput(DataType::kFloat32, {B, I + O});
  l.gates = m.AddOutput(DataType::kFloat32, {B, 4 * O});
  m.SetBuiltinOp(tflite::BuiltinOperator::LSTM, 2, tflite::BuiltinOptions::LSTMOptions,
                 tflite::CreateLSTMOptions(m.fbb(), tflite::ActivationFunctionType::TANH, 0.f, 0.f, type).Union());
  return l;
}

float Sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

TEST(LstmTest, BasicCellMatchesTheFormulas) {
  // B=1, I=1, O=1: weights rows are the gates (input, new input, forget,
  // output), columns [data, prev_activ].
  SingleOpModel m;
  const std::vector<float> w = {0.5f, -0.25f, 1.0f, 0.75f, -0.5f, 0.25f, 0.3f, 0.6f};
  const std::vector<float> bias = {0.1f, -0.2f, 0.3f, 0.0f};
  BasicLstm l = AddBasicLstm(m, 1, 1, 1, w, bias);
  ASSERT_TRUE(m.Build().ok());
  const float x = 0.8f, h = -0.4f, c = 0.6f;
  m.SetInput<float>(l.data, {x});
  m.SetInput<float>(l.prev_activ, {h});
  m.SetInput<float>(l.prev_state, {c});
  ASSERT_TRUE(m.Invoke().ok());
  const float g0 = 0.1f + 0.5f * x - 0.25f * h, g1 = -0.2f + 1.0f * x + 0.75f * h;
  const float g2 = 0.3f - 0.5f * x + 0.25f * h, g3 = 0.0f + 0.3f * x + 0.6f * h;
  const float state = Sigmoid(g0) * std::tanh(g1) + Sigmoid(g2) * c;
  const float activ = Sigmoid(g3) * std::tanh(state);
  EXPECT_NEAR(m.GetOutput<float>(l.state)[0], state, 1e-6f);
  EXPECT_NEAR(m.GetOutput<float>(l.activ)[0], activ, 1e-6f);
  EXPECT_EQ(m.GetOutput<float>(l.concat), (std::vector<float>{x, h}));
  const auto gates = m.GetOutput<float>(l.gates);
  ASSERT_EQ(gates.size(), 4u);
  EXPECT_NEAR(gates[0], g0, 1e-6f);
  EXPECT_NEAR(gates[1], g1, 1e-6f);
  EXPECT_NEAR(gates[2], g2, 1e-6f);
  EXPECT_NEAR(gates[3], g3, 1e-6f);
}

TEST(LstmTest, FullKernelTypeIsUnimplemented) {
  SingleOpModel m;
  AddBasicLstm(m, 1, 1, 1, std::vector<float>(8, 0.f), std::vector<float>(4, 0.f), tflite::LSTMKernelType::FULL);
  Status s = m.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("only the BASIC LSTM kernel is implemented"), std::string::npos) << s.ToString();
}

TEST(LstmTest, WrongWeightShapeIsAnError) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {1, 2});
  m.AddInput(DataType::kFloat32, {1, 3});
  m.AddConstInput<float>(DataType::kFloat32, {12, 4}, std::vector<float>(48, 0.f));  // needs [12, 5]
  m.AddConstInput<float>(DataType::kFloat32, {12}, std::vector<float>(12, 0.f));
  m.AddInput(DataType::kFloat32, {1, 3});
  for (int i = 0; i < 4; ++i) m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::LSTM, 2, tflite::BuiltinOptions::LSTMOptions,
                 tflite::CreateLSTMOptions(m.fbb(), tflite::ActivationFunctionType::TANH, 0.f, 0.f,
                                           tflite::LSTMKernelType::BASIC).Union());
  Status s = m.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("weights [12,4] must be [12, 5]"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace relite
