// GPU MEAN and SOFTMAX against the CPU kernels, fp32 and fp16.
// MEAN: over H and W (global average pool), over channels (the padding lanes
// of a partial slice must not count), over every single axis and pairs of
// axes, negative and repeated axes, keep_dims true and false (false can move
// dimensions between GPU axes), ranks 1 to 4, odd channel counts.
// SOFTMAX: ranks 1 to 4, odd and long rows, several betas (negative too).
// Plus the reasons a node stays on the CPU.
#include <gtest/gtest.h>

#include "tests/testing/gpu_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
using tflite::BuiltinOperator;

class GpuReduceTest : public ::testing::TestWithParam<GpuPrecision> {
 protected:
  float atol() const { return GetParam() == GpuPrecision::kFp16 ? testing::kFp16Atol : testing::kFp32Atol; }
  float rtol() const { return GetParam() == GpuPrecision::kFp16 ? testing::kFp16Rtol : testing::kFp32Rtol; }
};

Shape MeanShape(const Shape& in, const std::vector<int32_t>& axes, bool keep_dims) {
  const int rank = static_cast<int>(in.size());
  std::vector<bool> reduced(in.size(), false);
  for (int32_t a : axes) reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(in[d]);
    } else if (keep_dims) {
      out.push_back(1);
    }
  }
  return out;
}

std::vector<uint8_t> MeanModel(const Shape& in, const std::vector<int32_t>& axes, bool keep_dims, bool const_axes = true) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, in);
  if (const_axes) {
    m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  } else {
    m.AddInput(DataType::kInt32, {static_cast<int32_t>(axes.size())});
  }
  m.AddOutput(DataType::kFloat32, MeanShape(in, axes, keep_dims));
  m.SetBuiltinOp(BuiltinOperator::MEAN, 1, tflite::BuiltinOptions::ReducerOptions,
                 tflite::CreateReducerOptions(m.fbb(), keep_dims).Union());
  const Status s = m.Build();  // writes the model; only constant axes can be allocated
  if (const_axes) {
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return m.model_bytes();
}

std::vector<uint8_t> SoftmaxModel(const Shape& shape, float beta) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, shape);
  m.AddOutput(DataType::kFloat32, shape);
  m.SetBuiltinOp(BuiltinOperator::SOFTMAX, 1, tflite::BuiltinOptions::SoftmaxOptions,
                 tflite::CreateSoftmaxOptions(m.fbb(), beta).Union());
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}


TEST_P(GpuReduceTest, MeanMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  struct Case {
    Shape in;
    std::vector<int32_t> axes;
  };
  const Case cases[] = {
      {{1, 7, 9, 5}, {1, 2}},    // global average pool
      {{2, 6, 5, 3}, {2, 1}},    // the same, batch 2, axes in any order
      {{1, 16, 12, 9}, {1, 2}},  // a longer reduction
      {{1, 7, 7, 84}, {1, 2}},   // many slices: several work groups of the global-pool kernel
      {{1, 4, 5, 6}, {3}},       // channels: the partial slice's padding must not count
      {{2, 3, 4, 9}, {-1}},
      {{2, 3, 4, 5}, {0}},
      {{2, 3, 4, 5}, {1}},
      {{2, 3, 4, 5}, {2}},
      {{2, 3, 4, 5}, {1, 3}},
      {{2, 3, 4, 5}, {0, 2}},
      {{2, 3, 4, 5}, {0, 1, 2, 3}},
      {{2, 3, 4, 5}, {-3, 1}},  // repeated axis
      {{2, 5, 7}, {1}},
      {{2, 5, 7}, {2}},
      {{2, 5, 7}, {0, 1}},
      {{3, 10}, {0}},
      {{3, 10}, {1}},
      {{3, 10}, {0, 1}},
      {{13}, {0}},
  };
  for (const Case& c : cases) {
    for (bool keep : {true, false}) {
      SCOPED_TRACE(::testing::Message() << ShapeToString(c.in) << " axes " << ::testing::PrintToString(c.axes) << " keep_dims "
                                        << keep);
      auto r = testing::RunCpuAndGpu(MeanModel(c.in, c.axes, keep), gpu);
      EXPECT_EQ(r.delegated, 1) << r.report;
      EXPECT_TRUE(testing::OutputsClose(r, atol(), rtol()));
    }
  }
}

TEST_P(GpuReduceTest, SoftmaxMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  // [1,1001], [3,99], [1,2,3,66] and [1,64] (>= 16 slices, few pixels) take
  // the work-group variant, the rest one work item per pixel.
  const Shape shapes[] = {{1, 10}, {2, 5}, {1, 1001}, {6}, {3, 7, 6}, {1, 4, 5, 9}, {2, 3, 3, 3}, {1, 2, 2, 4},
                          {3, 99}, {1, 2, 3, 66}, {1, 64}};
  const float betas[] = {1.f, 0.5f, 2.5f, -1.f, 0.f};
  int k = 0;
  for (const Shape& s : shapes) {
    for (int j = 0; j < 2; ++j) {
      const float beta = betas[k++ % 5];
      SCOPED_TRACE(::testing::Message() << ShapeToString(s) << " beta " << beta);
      auto r = testing::RunCpuAndGpu(SoftmaxModel(s, beta), gpu, -4.f, 4.f);
      EXPECT_EQ(r.delegated, 1) << r.report;
      EXPECT_TRUE(testing::OutputsClose(r, atol(), rtol()));
    }
  }
}

TEST_P(GpuReduceTest, UnsupportedNodesSayWhy) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  {
    const DelegationReport rep = testing::DelegationOf(MeanModel({1, 4, 4, 3}, {1, 2}, false, /*const_axes=*/false), gpu);
    EXPECT_EQ(rep.num_delegated, 0);
    EXPECT_NE(rep.ToString().find("the axes must be a constant"), std::string::npos) << rep.ToString();
  }
  {
    // Axes of a type without a fixed element size (a well-formed string
    // table of one entry): the type is checked before any element is read,
    // and before a vector the size of its declared shape is made.
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, {1, 4, 4, 3});
    m.AddConstInputBytes(DataType::kString, {1}, testing::StringTensorBytes({"1"}));
    m.AddOutput(DataType::kFloat32, {1, 4, 3});
    m.SetBuiltinOp(BuiltinOperator::MEAN, 1, tflite::BuiltinOptions::ReducerOptions,
                   tflite::CreateReducerOptions(m.fbb(), false).Union());
    (void)m.Build();  // the CPU kernel refuses string axes at allocation; the model is written either way
    const DelegationReport rep = testing::DelegationOf(m.model_bytes(), gpu);
    EXPECT_EQ(rep.num_delegated, 0);
    EXPECT_NE(rep.ToString().find("the axes must be int32 or int64, got string"), std::string::npos) << rep.ToString();
  }
  {
    auto r = testing::RunCpuAndGpu(SoftmaxModel({1, 2, 3, 4, 5}, 1.f), gpu);
    EXPECT_EQ(r.delegated, 0);
    EXPECT_NE(r.report.find("rank 5"), std::string::npos) << r.report;
    EXPECT_TRUE(testing::OutputsClose(r, 0.f, 0.f));
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuReduceTest, ::testing::Values(GpuPrecision::kFp32, GpuPrecision::kFp16),
                         [](const auto& info) { return info.param == GpuPrecision::kFp32 ? "fp32" : "fp16"; });

}  // namespace
}  // namespace relite
