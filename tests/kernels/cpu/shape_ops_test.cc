// SHAPE, FILL, RANGE, ONE_HOT, TOPK_V2, SCATTER_ND and WHERE against simple
// references, over dtypes and ranks, plus the error cases (bad dtypes,
// arity, non-constant shape inputs, out-of-range values). The literal cases
// were checked against the LiteRT runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;
using Op = tflite::BuiltinOperator;
using Opt = tflite::BuiltinOptions;

struct Outputs {
  Status status = Status::Ok();
  std::vector<Shape> shapes;
  std::vector<std::vector<uint8_t>> bytes;

  template <typename T>
  std::vector<T> As(size_t i) const {
    std::vector<T> v(bytes[i].size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), bytes[i].data(), v.size() * sizeof(T));
    return v;
  }
};

// `build` adds inputs, outputs (returned) and the op; `feed` sets runtime inputs.
Outputs RunModel(const std::function<std::vector<int>(SingleOpModel&)>& build,
                 const std::function<void(SingleOpModel&)>& feed = nullptr) {
  SingleOpModel m;
  const std::vector<int> outs = build(m);
  Outputs r;
  r.status = m.Build();
  if (!r.status.ok()) return r;
  if (feed) feed(m);
  r.status = m.Invoke();
  if (!r.status.ok()) return r;
  for (int o : outs) {
    r.shapes.push_back(m.GetOutputShape(o));
    r.bytes.push_back(m.GetOutput<uint8_t>(o));
  }
  return r;
}

Quantization Q(float scale, int64_t zero_point) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// ---------------------------------------------------------------- SHAPE

Outputs RunShape(DataType in_type, const Shape& shape, DataType out_type, bool with_options = true) {
  return RunModel([&](SingleOpModel& m) {
    m.AddInput(in_type, shape);
    const int out = m.AddOutput(out_type);
    if (with_options) {
      m.SetBuiltinOp(Op::SHAPE, 1, Opt::ShapeOptions,
                     tflite::CreateShapeOptions(m.fbb(), static_cast<tflite::TensorType>(out_type)).Union());
    } else {
      m.SetBuiltinOp(Op::SHAPE, 1);
    }
    return std::vector<int>{out};
  });
}

TEST(Shape, Int32AndInt64) {
  for (const Shape& s : {Shape{2, 0, 3}, Shape{7}, Shape{1, 1, 1, 1, 5}, Shape{}}) {
    SCOPED_TRACE(ShapeToString(s));
    for (DataType in : {DataType::kFloat32, DataType::kInt8, DataType::kBool, DataType::kInt64}) {
      Outputs r = RunShape(in, s, DataType::kInt32);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.shapes[0], (Shape{static_cast<int32_t>(s.size())}));
      EXPECT_EQ(r.As<int32_t>(0), std::vector<int32_t>(s.begin(), s.end()));
      r = RunShape(in, s, DataType::kInt64);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.As<int64_t>(0), std::vector<int64_t>(s.begin(), s.end()));
    }
  }
  // No options table: int32 (TFLite itself rejects such a node).
  const Outputs r = RunShape(DataType::kFloat32, {4, 2}, DataType::kInt32, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<int32_t>(0), (std::vector<int32_t>{4, 2}));
}

TEST(Shape, Errors) {
  EXPECT_EQ(RunShape(DataType::kFloat32, {2}, DataType::kInt8).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunShape(DataType::kFloat32, {2}, DataType::kInt64, false).status.code(), StatusCode::kInvalidArgument);
  SingleOpModel m;  // out_type int64 but an int32 output
  m.AddInput(DataType::kFloat32, {2});
  m.AddOutput(DataType::kInt32);
  m.SetBuiltinOp(Op::SHAPE, 1, Opt::ShapeOptions, tflite::CreateShapeOptions(m.fbb(), tflite::TensorType::INT64).Union());
  EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- FILL

template <typename T>
Outputs RunFill(DataType dt, const std::vector<int64_t>& dims, bool int64_dims, T value, bool dims_constant = true,
                const Quantization& q = {}, const Quantization& out_q = {}) {
  int value_index = -1, dims_index = -1;
  return RunModel(
      [&](SingleOpModel& m) {
        const Shape dims_shape = {static_cast<int32_t>(dims.size())};
        if (!dims_constant) {
          dims_index = m.AddInput(int64_dims ? DataType::kInt64 : DataType::kInt32, dims_shape);
        } else if (int64_dims) {
          m.AddConstInput<int64_t>(DataType::kInt64, dims_shape, dims);
        } else {
          m.AddConstInput<int32_t>(DataType::kInt32, dims_shape, std::vector<int32_t>(dims.begin(), dims.end()));
        }
        value_index = m.AddInput(dt, {}, q);  // a runtime value is fine: it does not change the shape
        const int out = m.AddOutput(dt, {}, out_q.IsQuantized() ? out_q : q);
        m.SetBuiltinOp(Op::FILL, 1);
        return std::vector<int>{out};
      },
      [&](SingleOpModel& m) {
        m.SetInput<T>(value_index, {value});
        if (dims_index < 0) return;  // runtime dims: the shape is computed at Invoke
        if (int64_dims) {
          m.SetInput<int64_t>(dims_index, dims);
        } else {
          m.SetInput<int32_t>(dims_index, std::vector<int32_t>(dims.begin(), dims.end()));
        }
      });
}

template <typename T>
void CheckFill(DataType dt, T value, const Quantization& q = {}) {
  for (const auto& dims : {std::vector<int64_t>{2, 3}, std::vector<int64_t>{4}, std::vector<int64_t>{1, 0, 2},
                           std::vector<int64_t>{2, 1, 3, 2, 2}, std::vector<int64_t>{300, 301}}) {
    for (bool int64_dims : {false, true}) {
      const Outputs r = RunFill<T>(dt, dims, int64_dims, value, true, q);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.shapes[0], Shape(dims.begin(), dims.end()));
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      EXPECT_EQ(r.As<T>(0), std::vector<T>(static_cast<size_t>(n), value));
    }
  }
}

TEST(Fill, Dtypes) {
  CheckFill<float>(DataType::kFloat32, -2.5f);
  CheckFill<int32_t>(DataType::kInt32, 0x12345678);
  CheckFill<int64_t>(DataType::kInt64, int64_t{-3} << 40);
  CheckFill<uint8_t>(DataType::kBool, 1);
  CheckFill<int8_t>(DataType::kInt8, -7, Q(0.5f, -3));
  CheckFill<uint8_t>(DataType::kUInt8, 200, Q(0.5f, 128));
  CheckFill<int16_t>(DataType::kInt16, -300, Q(0.5f, 0));
}

TEST(Fill, Errors) {
  EXPECT_EQ(RunFill<float>(DataType::kFloat32, {2, -1}, false, 1.f).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunFill<float>(DataType::kFloat32, {int64_t{1} << 31}, true, 1.f).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunFill<float>(DataType::kFloat32, {1 << 30, 1 << 30}, true, 1.f).status.code(),
            StatusCode::kResourceExhausted);  // past the interpreter's 2^40 elements
  // Runtime dims: sized at Invoke (dynamic shapes); a bad value fails there.
  const Outputs dynamic = RunFill<float>(DataType::kFloat32, {2, 3}, false, 1.5f, false);
  ASSERT_TRUE(dynamic.status.ok()) << dynamic.status.ToString();
  EXPECT_EQ(dynamic.shapes[0], (Shape{2, 3}));
  EXPECT_EQ(dynamic.bytes[0].size(), 24u);
  EXPECT_EQ(RunFill<float>(DataType::kFloat32, {2, -3}, false, 1.f, false).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunFill<int8_t>(DataType::kInt8, {2}, false, 1, true, Q(0.5f, 0), Q(0.25f, 0)).status.code(),
            StatusCode::kUnimplemented);
  {
    SingleOpModel m;  // value is not a scalar
    m.AddConstInput<int32_t>(DataType::kInt32, {1}, {2});
    m.AddInput(DataType::kFloat32, {2});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(Op::FILL, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;  // output dtype differs from the value's
    m.AddConstInput<int32_t>(DataType::kInt32, {1}, {2});
    m.AddInput(DataType::kFloat32, {});
    m.AddOutput(DataType::kInt32);
    m.SetBuiltinOp(Op::FILL, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;  // float dims
    m.AddConstInput<float>(DataType::kFloat32, {1}, {2.f});
    m.AddInput(DataType::kFloat32, {});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(Op::FILL, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
}

// ---------------------------------------------------------------- RANGE

template <typename T>
Outputs RunRange(DataType dt, T start, T limit, T delta, bool constant = true) {
  std::vector<int> runtime;
  return RunModel(
      [&](SingleOpModel& m) {
        for (T v : {start, limit, delta}) {
          if (constant) {
            m.AddConstInput<T>(dt, {}, {v});
          } else {
            runtime.push_back(m.AddInput(dt, {}));
          }
        }
        const int out = m.AddOutput(dt);
        m.SetBuiltinOp(Op::RANGE, 1);
        return std::vector<int>{out};
      },
      [&](SingleOpModel& m) {
        const T values[3] = {start, limit, delta};
        for (size_t k = 0; k < runtime.size(); ++k) m.SetInput<T>(runtime[k], {values[k]});
      });
}

// The reference: a running sum, as TFLite computes it (LiteRT gives the
// same bits for 0.1 + 0.1 + ... where start + i * delta differs).
template <typename T>
std::vector<T> RangeRef(T start, T delta, int64_t n) {
  std::vector<T> v;
  T x = start;
  for (int64_t i = 0; i < n; ++i, x += delta) v.push_back(x);
  return v;
}

TEST(Range, Int) {
  struct Case { int32_t start, limit, delta; int64_t count; };
  for (const Case& c : {Case{0, 5, 1, 5}, Case{10, -3, -4, 4}, Case{-5, 6, 3, 4}, Case{3, 3, 1, 0}, Case{3, 3, -2, 0},
                        Case{0, 1, 1000, 1}}) {
    SCOPED_TRACE(std::to_string(c.start) + " " + std::to_string(c.limit) + " " + std::to_string(c.delta));
    Outputs r = RunRange<int32_t>(DataType::kInt32, c.start, c.limit, c.delta);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.As<int32_t>(0), RangeRef<int32_t>(c.start, c.delta, c.count));
    Outputs r64 = RunRange<int64_t>(DataType::kInt64, c.start, c.limit, c.delta);
    ASSERT_TRUE(r64.status.ok()) << r64.status.ToString();
    EXPECT_EQ(r64.As<int64_t>(0), RangeRef<int64_t>(c.start, c.delta, c.count));
  }
  // The span overflows int32 arithmetic; the count must not.
  Outputs r = RunRange<int32_t>(DataType::kInt32, INT32_MIN, INT32_MAX, 1 << 30);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<int32_t>(0), (std::vector<int32_t>{INT32_MIN, -(1 << 30), 0, 1 << 30}));
  Outputs r64 = RunRange<int64_t>(DataType::kInt64, INT64_MIN, INT64_MAX, INT64_MAX);
  ASSERT_TRUE(r64.status.ok()) << r64.status.ToString();
  EXPECT_EQ(r64.As<int64_t>(0), (std::vector<int64_t>{INT64_MIN, -1, INT64_MAX - 1}));
}

TEST(Range, Float) {
  Outputs r = RunRange<float>(DataType::kFloat32, 0.1f, 50.3f, 0.1f);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shapes[0], (Shape{502}));  // LiteRT: 502 as well
  EXPECT_EQ(r.As<float>(0), RangeRef<float>(0.1f, 0.1f, 502));
  r = RunRange<float>(DataType::kFloat32, 3.f, -1.7f, -0.3f);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<float>(0).size(), static_cast<size_t>(std::ceil(std::fabs((-1.7f - 3.f) / -0.3f))));
  EXPECT_EQ(r.As<float>(0), RangeRef<float>(3.f, -0.3f, static_cast<int64_t>(r.As<float>(0).size())));
}

TEST(Range, Errors) {
  EXPECT_EQ(RunRange<int32_t>(DataType::kInt32, 0, 5, 0).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunRange<int32_t>(DataType::kInt32, 0, 5, -1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunRange<int32_t>(DataType::kInt32, 5, 0, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunRange<float>(DataType::kFloat32, 0.f, NAN, 1.f).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunRange<float>(DataType::kFloat32, 0.f, 1e30f, 1e-30f).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunRange<int64_t>(DataType::kInt64, 0, INT64_MAX, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunRange<int8_t>(DataType::kInt8, 0, 5, 1).status.code(), StatusCode::kInvalidArgument);
  const Outputs dynamic = RunRange<int32_t>(DataType::kInt32, 0, 5, 1, false);  // sized at Invoke
  ASSERT_TRUE(dynamic.status.ok()) << dynamic.status.ToString();
  EXPECT_EQ(dynamic.shapes[0], (Shape{5}));
  EXPECT_EQ(RunRange<int32_t>(DataType::kInt32, 0, 5, 0, false).status.code(), StatusCode::kInvalidArgument);
  SingleOpModel m;  // mixed dtypes
  m.AddConstInput<int32_t>(DataType::kInt32, {}, {0});
  m.AddConstInput<int64_t>(DataType::kInt64, {}, {4});
  m.AddConstInput<int32_t>(DataType::kInt32, {}, {1});
  m.AddOutput(DataType::kInt32);
  m.SetBuiltinOp(Op::RANGE, 1);
  EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- ONE_HOT

template <typename T, typename I>
Outputs RunOneHot(DataType dt, const ref::Tensor<I>& indices, int32_t depth, T on, T off, int axis,
                  bool depth_constant = true, bool with_options = true) {
  int idx = -1, depth_index = -1;
  return RunModel(
      [&](SingleOpModel& m) {
        idx = m.AddInput(DataTypeOf<I>(), indices.shape);
        if (depth_constant) {
          m.AddConstInput<int32_t>(DataType::kInt32, {}, {depth});
        } else {
          depth_index = m.AddInput(DataType::kInt32, {});
        }
        m.AddConstInput<T>(dt, {}, {on});
        m.AddConstInput<T>(dt, {}, {off});
        const int out = m.AddOutput(dt);
        if (with_options) {
          m.SetBuiltinOp(Op::ONE_HOT, 1, Opt::OneHotOptions, tflite::CreateOneHotOptions(m.fbb(), axis).Union());
        } else {
          m.SetBuiltinOp(Op::ONE_HOT, 1);
        }
        return std::vector<int>{out};
      },
      [&](SingleOpModel& m) {
        m.SetInput<I>(idx, indices.data);
        if (depth_index >= 0) m.SetInput<int32_t>(depth_index, {depth});
      });
}

template <typename T, typename I>
ref::Tensor<T> OneHotRef(const ref::Tensor<I>& indices, int depth, T on, T off, int axis) {
  ref::Tensor<T> out{indices.shape, {}};
  if (axis < 0) axis = static_cast<int>(indices.shape.size());
  out.shape.insert(out.shape.begin() + axis, depth);
  for (int64_t i = 0; i < ref::Count(out.shape); ++i) {
    std::vector<int64_t> o = ref::Unravel(i, out.shape);
    const int64_t j = o[static_cast<size_t>(axis)];
    o.erase(o.begin() + axis);
    out.data.push_back(static_cast<int64_t>(indices.data[static_cast<size_t>(ref::Ravel(o, indices.shape))]) == j ? on
                                                                                                                : off);
  }
  return out;
}

template <typename T, typename I>
void OneHotRandom(DataType dt, T on, T off, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    const int rank = static_cast<int>(rng() % 4);
    const int depth = static_cast<int>(rng() % 5);
    ref::Tensor<I> indices{ref::RandomShape(rng, rank, 0, 4), {}};
    for (int64_t i = 0; i < ref::Count(indices.shape); ++i) {
      indices.data.push_back(static_cast<I>(static_cast<int>(rng() % 8) - 2));  // some out of range
    }
    const int axis = static_cast<int>(rng() % static_cast<uint32_t>(rank + 2)) - 1;  // -1 .. rank
    SCOPED_TRACE("indices " + ShapeToString(indices.shape) + " axis " + std::to_string(axis));
    const Outputs r = RunOneHot<T, I>(dt, indices, depth, on, off, axis);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    const auto expected = OneHotRef(indices, depth, on, off, axis);
    EXPECT_EQ(r.shapes[0], expected.shape);
    EXPECT_EQ(r.As<T>(0), expected.data);
  }
}

TEST(OneHot, RandomFloat32) { OneHotRandom<float, int32_t>(DataType::kFloat32, 5.f, -1.f, 61); }
TEST(OneHot, RandomInt32Int64Indices) { OneHotRandom<int32_t, int64_t>(DataType::kInt32, 7, 3, 62); }
TEST(OneHot, RandomInt64) { OneHotRandom<int64_t, int32_t>(DataType::kInt64, int64_t{1} << 40, -1, 63); }
TEST(OneHot, RandomBool) { OneHotRandom<uint8_t, int64_t>(DataType::kBool, 1, 0, 64); }
TEST(OneHot, RandomInt8) { OneHotRandom<int8_t, int32_t>(DataType::kInt8, 127, -128, 65); }

TEST(OneHot, LiteRtCases) {
  const ref::Tensor<int32_t> indices{{2, 3}, {0, 3, -1, 2, 4, 1}};
  // axis 0, 1, 2 and -1 (= 2); LiteRT gives the same.
  for (int axis : {0, 1, 2, -1}) {
    const Outputs r = RunOneHot<float, int32_t>(DataType::kFloat32, indices, 4, 5.f, -1.f, axis);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.As<float>(0), OneHotRef(indices, 4, 5.f, -1.f, axis).data);
  }
  Outputs r = RunOneHot<float, int32_t>(DataType::kFloat32, indices, 4, 5.f, -1.f, 0);
  EXPECT_EQ(r.shapes[0], (Shape{4, 2, 3}));
  const std::vector<float> axis0 = r.As<float>(0);
  EXPECT_EQ((std::vector<float>(axis0.begin(), axis0.begin() + 6)),
            (std::vector<float>{5, -1, -1, -1, -1, -1}));
  // No options table: the schema default axis 0 (as LiteRT reads it).
  r = RunOneHot<float, int32_t>(DataType::kFloat32, {{3}, {0, 2, 1}}, 3, 1.f, 0.f, 0, true, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<float>(0), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 1, 0}));
}

TEST(OneHot, Errors) {
  const ref::Tensor<int32_t> indices{{2}, {0, 1}};
  EXPECT_EQ((RunOneHot<float, int32_t>(DataType::kFloat32, indices, -1, 1.f, 0.f, -1).status.code()),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((RunOneHot<float, int32_t>(DataType::kFloat32, indices, 3, 1.f, 0.f, 2).status.code()),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((RunOneHot<float, int32_t>(DataType::kFloat32, indices, 3, 1.f, 0.f, -2).status.code()),
            StatusCode::kInvalidArgument);  // LiteRT rejects -2 as well
  const Outputs runtime_depth = RunOneHot<float, int32_t>(DataType::kFloat32, indices, 3, 1.f, 0.f, -1, false);
  ASSERT_TRUE(runtime_depth.status.ok()) << runtime_depth.status.ToString();  // sized at Invoke
  EXPECT_EQ(runtime_depth.shapes[0], (Shape{2, 3}));
  EXPECT_EQ((RunOneHot<float, int16_t>(DataType::kFloat32, {{2}, {0, 1}}, 3, 1.f, 0.f, -1).status.code()),
            StatusCode::kInvalidArgument);
  SingleOpModel m;  // off_value of another dtype
  m.AddInput(DataType::kInt32, {2});
  m.AddConstInput<int32_t>(DataType::kInt32, {}, {3});
  m.AddConstInput<float>(DataType::kFloat32, {}, {1.f});
  m.AddConstInput<int32_t>(DataType::kInt32, {}, {0});
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(Op::ONE_HOT, 1);
  EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- TOPK_V2

template <typename T>
Outputs RunTopK(DataType dt, const ref::Tensor<T>& in, int32_t k, bool k_constant = true, const Quantization& q = {},
                const Quantization& out_q = {}, DataType index_type = DataType::kInt32) {
  int idx = -1, k_index = -1;
  return RunModel(
      [&](SingleOpModel& m) {
        idx = m.AddInput(dt, in.shape, q);
        if (k_constant) {
          m.AddConstInput<int32_t>(DataType::kInt32, {}, {k});
        } else {
          k_index = m.AddInput(DataType::kInt32, {});
        }
        const int values = m.AddOutput(dt, {}, out_q.IsQuantized() ? out_q : q);
        const int indices = m.AddOutput(index_type);
        m.SetBuiltinOp(Op::TOPK_V2, 1);
        return std::vector<int>{values, indices};
      },
      [&](SingleOpModel& m) {
        m.SetInput<T>(idx, in.data);
        if (k_index >= 0) m.SetInput<int32_t>(k_index, {k});
      });
}

// Reference: stable sort of positions by descending value (ties keep the
// lower position first).
template <typename T>
void CheckTopK(DataType dt, const ref::Tensor<T>& in, int k, const Quantization& q = {}) {
  SCOPED_TRACE("input " + ShapeToString(in.shape) + " k " + std::to_string(k));
  const Outputs r = RunTopK<T>(dt, in, k, true, q);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const int n = in.shape.back();
  Shape out_shape = in.shape;
  out_shape.back() = k;
  EXPECT_EQ(r.shapes[0], out_shape);
  EXPECT_EQ(r.shapes[1], out_shape);
  std::vector<T> values;
  std::vector<int32_t> indices;
  for (size_t row = 0; n > 0 && row < in.data.size() / static_cast<size_t>(n); ++row) {
    std::vector<int32_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const T* v = in.data.data() + row * static_cast<size_t>(n);
    std::stable_sort(order.begin(), order.end(), [v](int32_t a, int32_t b) { return v[a] > v[b]; });
    for (int i = 0; i < k; ++i) {
      indices.push_back(order[static_cast<size_t>(i)]);
      values.push_back(v[order[static_cast<size_t>(i)]]);
    }
  }
  EXPECT_EQ(r.As<T>(0), values);
  EXPECT_EQ(r.As<int32_t>(1), indices);
}

template <typename T>
void TopKRandom(DataType dt, uint32_t seed, int value_range, const Quantization& q = {}) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 3);
    Shape shape = ref::RandomShape(rng, rank, 1, 4);
    shape.back() = static_cast<int32_t>(rng() % 40);
    ref::Tensor<T> in{shape, {}};
    // Few distinct values: many ties.
    for (int64_t i = 0; i < ref::Count(shape); ++i) {
      in.data.push_back(static_cast<T>(static_cast<int>(rng() % static_cast<uint32_t>(value_range)) - value_range / 2));
    }
    CheckTopK<T>(dt, in, static_cast<int>(rng() % static_cast<uint32_t>(shape.back() + 1)), q);
  }
}

TEST(TopKV2, RandomFloat32) { TopKRandom<float>(DataType::kFloat32, 71, 7); }
TEST(TopKV2, RandomInt32) { TopKRandom<int32_t>(DataType::kInt32, 72, 5); }
TEST(TopKV2, RandomInt64) { TopKRandom<int64_t>(DataType::kInt64, 73, 1000); }
TEST(TopKV2, RandomInt8) { TopKRandom<int8_t>(DataType::kInt8, 74, 250, Q(0.5f, -3)); }
TEST(TopKV2, RandomUInt8) { TopKRandom<uint8_t>(DataType::kUInt8, 75, 6, Q(0.5f, 128)); }
TEST(TopKV2, RandomInt16) { TopKRandom<int16_t>(DataType::kInt16, 76, 9, Q(0.5f, 0)); }

TEST(TopKV2, LiteRtTies) {
  const ref::Tensor<int32_t> in{{2, 8}, {3, 1, 3, 7, 3, 7, 0, 1, 5, 5, 5, 5, 5, 5, 5, 5}};
  const Outputs r = RunTopK<int32_t>(DataType::kInt32, in, 5);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<int32_t>(0), (std::vector<int32_t>{7, 7, 3, 3, 3, 5, 5, 5, 5, 5}));
  EXPECT_EQ(r.As<int32_t>(1), (std::vector<int32_t>{3, 5, 0, 2, 4, 0, 1, 2, 3, 4}));
  std::vector<float> v;
  for (int i = 0; i < 300; ++i) v.push_back(static_cast<float>((i * 37) % 11));
  CheckTopK<float>(DataType::kFloat32, {{3, 100}, v}, 40);
}

TEST(TopKV2, NanLastAndHugeEmpty) {
  const Outputs r = RunTopK<float>(DataType::kFloat32, {{1, 5}, {NAN, 1.f, NAN, 3.f, -INFINITY}}, 5);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<int32_t>(1), (std::vector<int32_t>{3, 1, 4, 0, 2}));
  // No elements, but a last dimension of 2^30: nothing is sized by it.
  const Outputs e = RunTopK<float>(DataType::kFloat32, {{0, 1 << 30}, {}}, 3);
  ASSERT_TRUE(e.status.ok()) << e.status.ToString();
  EXPECT_EQ(e.shapes[0], (Shape{0, 3}));
}

TEST(TopKV2, Int16KAndIndices) {  // version 3's int16 k and int16 indices
  int in = -1;
  const Outputs r = RunModel(
      [&](SingleOpModel& m) {
        in = m.AddInput(DataType::kFloat32, {2, 4});
        m.AddConstInput<int16_t>(DataType::kInt16, {}, {3});
        const int values = m.AddOutput(DataType::kFloat32);
        const int indices = m.AddOutput(DataType::kInt16);
        m.SetBuiltinOp(Op::TOPK_V2, 3);
        return std::vector<int>{values, indices};
      },
      [&](SingleOpModel& m) { m.SetInput<float>(in, {1, 4, 2, 4, -1, -2, -3, 0}); });
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<float>(0), (std::vector<float>{4, 4, 2, 0, -1, -2}));
  EXPECT_EQ(r.As<int16_t>(1), (std::vector<int16_t>{1, 3, 2, 3, 0, 1}));
  // int16 indices cannot address 40000 positions.
  EXPECT_EQ(RunTopK<float>(DataType::kFloat32, {{1, 40000}, std::vector<float>(40000)}, 1, true, {}, {}, DataType::kInt16)
                .status.code(),
            StatusCode::kInvalidArgument);
}

TEST(TopKV2, Errors) {
  const ref::Tensor<float> in{{2, 3}, {1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(RunTopK<float>(DataType::kFloat32, in, 4).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunTopK<float>(DataType::kFloat32, in, -1).status.code(), StatusCode::kInvalidArgument);
  const Outputs runtime_k = RunTopK<float>(DataType::kFloat32, in, 2, false);  // sized at Invoke
  ASSERT_TRUE(runtime_k.status.ok()) << runtime_k.status.ToString();
  EXPECT_EQ(runtime_k.shapes[0], (Shape{2, 2}));
  EXPECT_EQ(RunTopK<float>(DataType::kFloat32, in, 4, false).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunTopK<float>(DataType::kFloat32, in, 2, true, {}, {}, DataType::kInt64).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunTopK<uint8_t>(DataType::kBool, {{2}, {0, 1}}, 1).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunTopK<int8_t>(DataType::kInt8, {{2}, {0, 1}}, 1, true, Q(0.5f, 0), Q(0.5f, 1)).status.code(),
            StatusCode::kUnimplemented);
  SingleOpModel m;  // one output
  m.AddInput(DataType::kFloat32, {3});
  m.AddConstInput<int32_t>(DataType::kInt32, {}, {1});
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(Op::TOPK_V2, 1);
  EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- SCATTER_ND

template <typename T, typename I>
Outputs RunScatterNd(DataType dt, const ref::Tensor<I>& indices, const ref::Tensor<T>& updates, const Shape& shape,
                     bool shape_constant = true) {
  int ii = -1, ui = -1, si = -1;
  const DataType it = DataTypeOf<I>();
  return RunModel(
      [&](SingleOpModel& m) {
        ii = m.AddInput(it, indices.shape);
        ui = m.AddInput(dt, updates.shape);
        const Shape s = {static_cast<int32_t>(shape.size())};
        if (shape_constant) {
          m.AddConstInput<I>(it, s, std::vector<I>(shape.begin(), shape.end()));
        } else {
          si = m.AddInput(it, s);
        }
        const int out = m.AddOutput(dt);
        m.SetBuiltinOp(Op::SCATTER_ND, 1);
        return std::vector<int>{out};
      },
      [&](SingleOpModel& m) {
        m.SetInput<I>(ii, indices.data);
        m.SetInput<T>(ui, updates.data);
        if (si >= 0) m.SetInput<I>(si, std::vector<I>(shape.begin(), shape.end()));
      });
}

// Reference: sum of the updates at every output position (OR for bool),
// with wrap-around for the narrow integer types.
template <typename T, typename I>
std::vector<T> ScatterNdRef(const ref::Tensor<I>& indices, const ref::Tensor<T>& updates, const Shape& shape,
                            bool is_bool) {
  std::vector<int64_t> acc(static_cast<size_t>(ref::Count(shape)), 0);
  std::vector<double> facc(acc.size(), 0.0);
  const int ix = indices.shape.back();
  const int64_t slices = ref::Count(indices.shape) / ix;
  const int64_t slice = ref::Count(updates.shape) / std::max<int64_t>(slices, 1);
  for (int64_t s = 0; s < slices; ++s) {
    int64_t offset = 0;
    for (int d = 0; d < ix; ++d) offset = offset * shape[static_cast<size_t>(d)] + indices.data[static_cast<size_t>(s * ix + d)];
    for (int64_t j = 0; j < slice; ++j) {
      const size_t o = static_cast<size_t>(offset * slice + j);
      const T u = updates.data[static_cast<size_t>(s * slice + j)];
      if constexpr (std::is_floating_point_v<T>) {
        facc[o] += u;
      } else if (is_bool) {
        acc[o] = acc[o] | static_cast<int64_t>(u);
      } else {
        acc[o] = static_cast<int64_t>(static_cast<uint64_t>(acc[o]) + static_cast<uint64_t>(static_cast<int64_t>(u)));
      }
    }
  }
  std::vector<T> out;
  for (size_t i = 0; i < acc.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      out.push_back(static_cast<T>(facc[i]));
    } else {
      out.push_back(static_cast<T>(acc[i]));
    }
  }
  return out;
}

template <typename T, typename I>
void ScatterRandom(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const Shape shape = ref::RandomShape(rng, rank, 1, 4);
    const int ix = 1 + static_cast<int>(rng() % static_cast<uint32_t>(rank));
    Shape ishape = ref::RandomShape(rng, static_cast<int>(rng() % 3), 0, 4);
    Shape ushape = ishape;
    ishape.push_back(ix);
    ushape.insert(ushape.end(), shape.begin() + ix, shape.end());
    ref::Tensor<I> indices{ishape, {}};
    for (int64_t i = 0; i < ref::Count(ishape); ++i) {
      indices.data.push_back(static_cast<I>(rng() % static_cast<uint32_t>(shape[static_cast<size_t>(i % ix)])));
    }
    // Small float values: the sums are exact in any order.
    ref::Tensor<T> updates{ushape, {}};
    for (int64_t i = 0; i < ref::Count(ushape); ++i) {
      updates.data.push_back(is_bool ? static_cast<T>(rng() % 2) : static_cast<T>(static_cast<int>(rng() % 200) - 60));
    }
    SCOPED_TRACE("shape " + ShapeToString(shape) + " indices " + ShapeToString(ishape));
    const Outputs r = RunScatterNd<T, I>(dt, indices, updates, shape);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.shapes[0], shape);
    EXPECT_EQ(r.As<T>(0), (ScatterNdRef<T, I>(indices, updates, shape, is_bool)));
  }
}

TEST(ScatterNd, RandomFloat32) { ScatterRandom<float, int32_t>(DataType::kFloat32, false, 81); }
TEST(ScatterNd, RandomInt32) { ScatterRandom<int32_t, int64_t>(DataType::kInt32, false, 82); }
TEST(ScatterNd, RandomInt64) { ScatterRandom<int64_t, int32_t>(DataType::kInt64, false, 83); }
TEST(ScatterNd, RandomInt8) { ScatterRandom<int8_t, int32_t>(DataType::kInt8, false, 84); }
TEST(ScatterNd, RandomUInt8) { ScatterRandom<uint8_t, int32_t>(DataType::kUInt8, false, 85); }
TEST(ScatterNd, RandomBool) { ScatterRandom<uint8_t, int32_t>(DataType::kBool, true, 86); }

TEST(ScatterNd, LiteRtDuplicates) {
  // Duplicates add (LiteRT: the same); int8 wraps.
  Outputs r = RunScatterNd<float, int32_t>(DataType::kFloat32, {{3, 1}, {1, 3, 1}}, {{3, 2}, {1, 2, 3, 4, 10, 20}}, {5, 2});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<float>(0), (std::vector<float>{0, 0, 11, 22, 0, 0, 3, 4, 0, 0}));
  r = RunScatterNd<int8_t, int32_t>(DataType::kInt8, {{3, 1}, {0, 0, 2}}, {{3}, {100, 100, -5}}, {4});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<int8_t>(0), (std::vector<int8_t>{-56, 0, -5, 0}));
  r = RunScatterNd<uint8_t, int32_t>(DataType::kBool, {{4, 2}, {0, 1, 1, 0, 0, 1, 1, 1}}, {{4}, {1, 1, 1, 0}}, {2, 2});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<uint8_t>(0), (std::vector<uint8_t>{0, 1, 1, 0}));
}

TEST(ScatterNd, Errors) {
  // Out-of-range indices fail in Eval.
  EXPECT_EQ((RunScatterNd<float, int32_t>(DataType::kFloat32, {{1, 1}, {4}}, {{1}, {1.f}}, {4}).status.code()),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((RunScatterNd<float, int64_t>(DataType::kFloat32, {{1, 2}, {0, -1}}, {{1}, {1.f}}, {2, 2}).status.code()),
            StatusCode::kInvalidArgument);
  // updates of the wrong shape; indices deeper than the output; negative shape.
  EXPECT_EQ((RunScatterNd<float, int32_t>(DataType::kFloat32, {{2, 1}, {0, 1}}, {{2, 3}, std::vector<float>(6)}, {4, 2})
                 .status.code()),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((RunScatterNd<float, int32_t>(DataType::kFloat32, {{1, 3}, {0, 0, 0}}, {{1}, {1.f}}, {4, 2}).status.code()),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((RunScatterNd<float, int32_t>(DataType::kFloat32, {{1, 1}, {0}}, {{1, 2}, {1.f, 2.f}}, {4, -2}).status.code()),
            StatusCode::kInvalidArgument);
  const Outputs runtime_shape = RunScatterNd<float, int32_t>(DataType::kFloat32, {{1, 1}, {0}}, {{1}, {1.f}}, {4}, false);
  ASSERT_TRUE(runtime_shape.status.ok()) << runtime_shape.status.ToString();  // sized at Invoke
  EXPECT_EQ(runtime_shape.shapes[0], (Shape{4}));
  EXPECT_EQ((RunScatterNd<int16_t, int32_t>(DataType::kInt16, {{1, 1}, {0}}, {{1}, {1}}, {4}).status.code()),
            StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- WHERE

template <typename T>
Outputs RunWhere(DataType dt, const ref::Tensor<T>& cond, bool constant = true) {
  int ci = -1;
  return RunModel(
      [&](SingleOpModel& m) {
        if (constant) {
          m.AddConstInput<T>(dt, cond.shape, cond.data);
        } else {
          ci = m.AddInput(dt, cond.shape);
        }
        const int out = m.AddOutput(DataType::kInt64);
        m.SetBuiltinOp(Op::WHERE, 1);
        return std::vector<int>{out};
      },
      [&](SingleOpModel& m) {
        if (ci >= 0) m.SetInput<T>(ci, cond.data);
      });
}

template <typename T>
void WhereRandom(DataType dt, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    ref::Tensor<T> cond{ref::RandomShape(rng, rank, 1, 4), {}};
    for (int64_t i = 0; i < ref::Count(cond.shape); ++i) cond.data.push_back(static_cast<T>(rng() % 3 == 0 ? 1 : 0));
    SCOPED_TRACE("condition " + ShapeToString(cond.shape));
    const Outputs r = RunWhere<T>(dt, cond);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    std::vector<int64_t> expected;
    int32_t count = 0;
    for (int64_t i = 0; i < ref::Count(cond.shape); ++i) {
      if (cond.data[static_cast<size_t>(i)] == T{0}) continue;
      ++count;
      const std::vector<int64_t> idx = ref::Unravel(i, cond.shape);
      expected.insert(expected.end(), idx.begin(), idx.end());
    }
    EXPECT_EQ(r.shapes[0], (Shape{count, rank}));
    EXPECT_EQ(r.As<int64_t>(0), expected);
  }
}

TEST(Where, RandomBool) { WhereRandom<uint8_t>(DataType::kBool, 91); }
TEST(Where, RandomFloat32) { WhereRandom<float>(DataType::kFloat32, 92); }
TEST(Where, RandomInt32) { WhereRandom<int32_t>(DataType::kInt32, 93); }
TEST(Where, RandomInt64) { WhereRandom<int64_t>(DataType::kInt64, 94); }
TEST(Where, RandomInt8) { WhereRandom<int8_t>(DataType::kInt8, 95); }

TEST(Where, LiteRtCases) {
  Outputs r = RunWhere<uint8_t>(DataType::kBool, {{3, 4}, {0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shapes[0], (Shape{4, 2}));
  EXPECT_EQ(r.As<int64_t>(0), (std::vector<int64_t>{0, 1, 1, 0, 1, 1, 2, 3}));
  // -0.0 is zero.
  r = RunWhere<float>(DataType::kFloat32, {{2, 2, 2}, {0.f, -0.f, 1.5f, 0.f, -2.f, 0.f, 0.f, 3.f}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.As<int64_t>(0), (std::vector<int64_t>{0, 1, 0, 1, 0, 0, 1, 1, 1}));
  r = RunWhere<uint8_t>(DataType::kBool, {{2, 3}, std::vector<uint8_t>(6, 0)});  // nothing true
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shapes[0], (Shape{0, 2}));
}

TEST(Where, Errors) {
  const Outputs dynamic = RunWhere<uint8_t>(DataType::kBool, {{2}, {1, 0}}, false);  // sized at Invoke
  ASSERT_TRUE(dynamic.status.ok()) << dynamic.status.ToString();
  EXPECT_EQ(dynamic.shapes[0], (Shape{1, 1}));
  {
    SingleOpModel m;  // int32 output
    m.AddConstInputBytes(DataType::kBool, {2}, {1, 0});
    m.AddOutput(DataType::kInt32);
    m.SetBuiltinOp(Op::WHERE, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;  // the select form
    m.AddConstInputBytes(DataType::kBool, {2}, {1, 0});
    m.AddInput(DataType::kFloat32, {2});
    m.AddInput(DataType::kFloat32, {2});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(Op::WHERE, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace relite
