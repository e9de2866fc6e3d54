#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

template <typename T>
StatusOr<std::pair<Shape, std::vector<T>>> RunSqueeze(DataType dt, const ref::Tensor<T>& input,
                                                      const std::vector<int32_t>* dims) {
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  const int out = m.AddOutput(dt);
  if (dims != nullptr) {
    m.SetBuiltinOp(tflite::BuiltinOperator::SQUEEZE, 1, tflite::BuiltinOptions::SqueezeOptions,
                   tflite::CreateSqueezeOptions(m.fbb(), m.fbb().CreateVector(*dims)).Union());
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::SQUEEZE, 1);
  }
  RELITE_RETURN_IF_ERROR(m.Build());
  m.SetInput<T>(in, input.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  return std::make_pair(m.GetOutputShape(out), m.GetOutput<T>(out));
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 6);
    Shape shape = ref::RandomShape(rng, rank, 1, 3);
    for (auto& d : shape) {
      if (rng() % 2 == 0) d = 1;
    }
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, shape, is_bool);
    std::vector<int32_t> dims;
    Shape expected;
    const bool all = rng() % 3 == 0;
    for (int d = 0; d < rank; ++d) {
      const bool squeeze = shape[static_cast<size_t>(d)] == 1 && (all || rng() % 2 == 0);
      if (squeeze && !all) dims.push_back(rng() % 2 == 0 ? d : d - rank);
      if (!squeeze) expected.push_back(shape[static_cast<size_t>(d)]);
    }
    if (!all && dims.empty()) continue;  // an empty list means "all"
    SCOPED_TRACE("input " + ShapeToString(shape));
    auto r = RunSqueeze<T>(dt, input, all ? nullptr : &dims);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->first, expected);
    EXPECT_EQ(r->second, input.data);
  }
}

TEST(Squeeze, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Squeeze, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 2); }
TEST(Squeeze, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 3); }
TEST(Squeeze, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 4); }
TEST(Squeeze, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 5); }

TEST(Squeeze, AllOnesToScalar) {
  auto r = RunSqueeze<int32_t>(DataType::kInt32, {{1, 1, 1}, {42}}, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first, Shape{});
  EXPECT_EQ(r->second, std::vector<int32_t>{42});
}

TEST(Squeeze, Errors) {
  const ref::Tensor<float> in{{1, 3, 1}, {1, 2, 3}};
  const std::vector<int32_t> not_one = {1}, out_of_range = {3}, negative_out_of_range = {-4};
  EXPECT_EQ(RunSqueeze<float>(DataType::kFloat32, in, &not_one).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunSqueeze<float>(DataType::kFloat32, in, &out_of_range).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunSqueeze<float>(DataType::kFloat32, in, &negative_out_of_range).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace relite
