// MIRROR_PAD, TILE, BROADCAST_TO, REVERSE_V2, SPACE_TO_BATCH_ND,
// BATCH_TO_SPACE_ND and EMBEDDING_LOOKUP against naive references (one
// multi-index per element), over ranks and dtypes, plus the error cases. The
// small literal cases were checked against the LiteRT runtime.
#include <gtest/gtest.h>

#include <functional>
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

template <typename O>
struct Result {
  Status status = Status::Ok();
  Shape shape;
  std::vector<O> data;
};

// `build` adds the inputs, the output (whose index it returns) and the op;
// `feed` sets the runtime inputs after Build.
template <typename O>
Result<O> RunModel(const std::function<int(SingleOpModel&)>& build,
                   const std::function<void(SingleOpModel&)>& feed = nullptr, int threads = 1) {
  SingleOpModel m;
  const int out = build(m);
  Result<O> r;
  r.status = m.Build(threads);
  if (!r.status.ok()) return r;
  if (feed) feed(m);
  r.status = m.Invoke();
  if (!r.status.ok()) return r;
  r.shape = m.GetOutputShape(out);
  r.data = m.GetOutput<O>(out);
  return r;
}

// One op on runtime input `in` (dtype dt) plus the int32/int64 constant
// `param` as input 1 (and `param2` as input 2 when non-empty).
template <typename T>
Result<T> RunUnaryWithParams(Op op, int version, Opt opt_type,
                             const std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>& options,
                             DataType dt, const ref::Tensor<T>& in, bool int64_params, const Shape& param_shape,
                             const std::vector<int64_t>& param, const Shape& param2_shape = {},
                             const std::vector<int64_t>& param2 = {}, const Quantization& q = {}, int threads = 1,
                             const Quantization& out_q = {}, bool input_constant = false) {
  int in_index = -1;
  auto add_ints = [&](SingleOpModel& m, const Shape& shape, const std::vector<int64_t>& v) {
    if (int64_params) {
      m.AddConstInput<int64_t>(DataType::kInt64, shape, v);
    } else {
      m.AddConstInput<int32_t>(DataType::kInt32, shape, std::vector<int32_t>(v.begin(), v.end()));
    }
  };
  return RunModel<T>(
      [&](SingleOpModel& m) {
        in_index = input_constant ? m.AddConstInput<T>(dt, in.shape, in.data, q) : m.AddInput(dt, in.shape, q);
        add_ints(m, param_shape, param);
        if (!param2_shape.empty()) add_ints(m, param2_shape, param2);
        const int out = m.AddOutput(dt, {}, out_q.IsQuantized() ? out_q : q);
        if (options) {
          m.SetBuiltinOp(op, version, opt_type, options(m.fbb()));
        } else {
          m.SetBuiltinOp(op, version);
        }
        return out;
      },
      [&](SingleOpModel& m) {
        if (!input_constant) m.SetInput<T>(in_index, in.data);
      },
      threads);
}

// ---------------------------------------------------------------- MIRROR_PAD

template <typename T>
ref::Tensor<T> MirrorPadRef(const ref::Tensor<T>& in, const std::vector<std::pair<int, int>>& pads, bool symmetric) {
  ref::Tensor<T> out;
  for (size_t d = 0; d < in.shape.size(); ++d) out.shape.push_back(in.shape[d] + pads[d].first + pads[d].second);
  for (int64_t i = 0; i < ref::Count(out.shape); ++i) {
    std::vector<int64_t> idx = ref::Unravel(i, out.shape);
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t n = in.shape[d], before = pads[d].first;
      if (idx[d] < before) {  // left mirror: REFLECT skips the edge element
        idx[d] = symmetric ? before - 1 - idx[d] : before - idx[d];
      } else if (idx[d] >= before + n) {
        const int64_t k = idx[d] - before - n;  // position in the right mirror
        idx[d] = symmetric ? n - 1 - k : n - 2 - k;
      } else {
        idx[d] -= before;
      }
    }
    out.data.push_back(in.data[static_cast<size_t>(ref::Ravel(idx, in.shape))]);
  }
  return out;
}

template <typename T>
Result<T> RunMirrorPad(DataType dt, const ref::Tensor<T>& in, const std::vector<std::pair<int, int>>& pads,
                       bool symmetric, bool int64_params = false, const Quantization& q = {}, int threads = 1,
                       const Quantization& out_q = {}) {
  std::vector<int64_t> p;
  for (const auto& [b, a] : pads) p.insert(p.end(), {b, a});
  return RunUnaryWithParams<T>(
      Op::MIRROR_PAD, 1, Opt::MirrorPadOptions,
      [&](flatbuffers::FlatBufferBuilder& fbb) {
        return tflite::CreateMirrorPadOptions(fbb, symmetric ? tflite::MirrorPadMode::SYMMETRIC
                                                             : tflite::MirrorPadMode::REFLECT)
            .Union();
      },
      dt, in, int64_params, {static_cast<int32_t>(pads.size()), 2}, p, {}, {}, q, threads, out_q);
}

TEST(MirrorPad, TensorFlowDocExample) {
  const ref::Tensor<float> t{{2, 3}, {1, 2, 3, 4, 5, 6}};
  auto r = RunMirrorPad<float>(DataType::kFloat32, t, {{1, 1}, {2, 2}}, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{4, 7}));
  EXPECT_EQ(r.data, (std::vector<float>{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3,
                                        2, 1}));
  r = RunMirrorPad<float>(DataType::kFloat32, t, {{1, 1}, {2, 2}}, true, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, (std::vector<float>{2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6,
                                        6, 5}));
}

template <typename T>
void MirrorPadRandom(DataType dt, bool is_bool, uint32_t seed, const Quantization& q = {}) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const bool symmetric = rng() % 2 == 0;
    const ref::Tensor<T> in = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 1, 5), is_bool);
    std::vector<std::pair<int, int>> pads;
    for (int d = 0; d < rank; ++d) {
      const int limit = in.shape[static_cast<size_t>(d)] - (symmetric ? 0 : 1);
      pads.emplace_back(static_cast<int>(rng() % static_cast<uint32_t>(limit + 1)),
                        static_cast<int>(rng() % static_cast<uint32_t>(limit + 1)));
    }
    SCOPED_TRACE("input " + ShapeToString(in.shape) + (symmetric ? " SYMMETRIC" : " REFLECT"));
    const auto r = RunMirrorPad<T>(dt, in, pads, symmetric, rng() % 2 == 0, q);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    const auto expected = MirrorPadRef(in, pads, symmetric);
    EXPECT_EQ(r.shape, expected.shape);
    EXPECT_EQ(r.data, expected.data);
  }
}

Quantization Q(float scale, int64_t zero_point) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

TEST(MirrorPad, RandomFloat32) { MirrorPadRandom<float>(DataType::kFloat32, false, 1); }
TEST(MirrorPad, RandomInt32) { MirrorPadRandom<int32_t>(DataType::kInt32, false, 2); }
TEST(MirrorPad, RandomInt64) { MirrorPadRandom<int64_t>(DataType::kInt64, false, 3); }
TEST(MirrorPad, RandomInt8) { MirrorPadRandom<int8_t>(DataType::kInt8, false, 4, Q(0.5f, -3)); }
TEST(MirrorPad, RandomUInt8) { MirrorPadRandom<uint8_t>(DataType::kUInt8, false, 5, Q(0.1f, 128)); }
TEST(MirrorPad, RandomInt16) { MirrorPadRandom<int16_t>(DataType::kInt16, false, 6, Q(0.01f, 0)); }
TEST(MirrorPad, RandomBool) { MirrorPadRandom<uint8_t>(DataType::kBool, true, 7); }

TEST(MirrorPad, LargeMultiThreaded) {
  std::mt19937 rng(8);
  const ref::Tensor<float> in = ref::RandomTensor<float>(rng, {2, 67, 45, 9});
  const std::vector<std::pair<int, int>> pads = {{0, 1}, {3, 3}, {2, 1}, {0, 0}};
  const auto r = RunMirrorPad<float>(DataType::kFloat32, in, pads, false, false, {}, 4);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, MirrorPadRef(in, pads, false).data);
}

TEST(MirrorPad, EmptyAndSizeOne) {
  // A zero-sized dimension can only be padded by 0; size 1 allows SYMMETRIC 1.
  auto r = RunMirrorPad<float>(DataType::kFloat32, {{0, 3}, {}}, {{0, 0}, {1, 2}}, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{0, 6}));
  r = RunMirrorPad<float>(DataType::kFloat32, {{1, 1}, {7}}, {{1, 1}, {0, 1}}, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  EXPECT_EQ(r.data, std::vector<float>(6, 7.f));
  EXPECT_EQ(RunMirrorPad<float>(DataType::kFloat32, {{1, 1}, {7}}, {{1, 0}, {0, 0}}, false).status.code(),
            StatusCode::kInvalidArgument);
  // No elements, but a dimension of 2^30 padded: nothing is sized by it.
  r = RunMirrorPad<float>(DataType::kFloat32, {{0, 1 << 30}, {}}, {{0, 0}, {5, 5}}, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{0, (1 << 30) + 10}));
}

TEST(MirrorPad, Errors) {
  const ref::Tensor<float> t{{2, 3}, {1, 2, 3, 4, 5, 6}};
  // REFLECT allows at most dim - 1, SYMMETRIC at most dim.
  EXPECT_TRUE(RunMirrorPad<float>(DataType::kFloat32, t, {{1, 1}, {2, 2}}, false).status.ok());
  EXPECT_EQ(RunMirrorPad<float>(DataType::kFloat32, t, {{1, 1}, {3, 0}}, false).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunMirrorPad<float>(DataType::kFloat32, t, {{2, 0}, {0, 0}}, false).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(RunMirrorPad<float>(DataType::kFloat32, t, {{2, 2}, {3, 3}}, true).status.ok());
  EXPECT_EQ(RunMirrorPad<float>(DataType::kFloat32, t, {{0, 0}, {0, 4}}, true).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunMirrorPad<float>(DataType::kFloat32, t, {{0, -1}, {0, 0}}, true).status.code(),
            StatusCode::kInvalidArgument);
  // Quantization must not change.
  const ref::Tensor<int8_t> q8{{3}, {1, 2, 3}};
  EXPECT_EQ(RunMirrorPad<int8_t>(DataType::kInt8, q8, {{1, 1}}, false, false, Q(0.5f, 1), 1, Q(0.25f, 1)).status.code(),
            StatusCode::kUnimplemented);
  {  // paddings of the wrong shape, float paddings, runtime paddings, wrong output dtype
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddConstInput<int32_t>(DataType::kInt32, {3, 2}, {0, 0, 0, 0, 0, 0});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(Op::MIRROR_PAD, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddConstInput<float>(DataType::kFloat32, {2, 2}, {0, 0, 0, 0});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(Op::MIRROR_PAD, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddInput(DataType::kInt32, {2, 2});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(Op::MIRROR_PAD, 1);
    // Runtime paddings: prepared at Invoke (dynamic shapes).
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
    m.SetInput<int32_t>(1, {1, 0, 0, 1});
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutputShape(2), (Shape{3, 4}));
    m.SetInput<int32_t>(1, {5, 0, 0, 0});  // too large for REFLECT: an Invoke error
    EXPECT_FALSE(m.Invoke().ok());
  }
  {
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddConstInput<int32_t>(DataType::kInt32, {2, 2}, {0, 0, 0, 0});
    m.AddOutput(DataType::kInt32);
    m.SetBuiltinOp(Op::MIRROR_PAD, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;  // one input only
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(Op::MIRROR_PAD, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
}

// ---------------------------------------------------------------- TILE

template <typename T>
ref::Tensor<T> TileRef(const ref::Tensor<T>& in, const std::vector<int64_t>& multiples) {
  ref::Tensor<T> out;
  for (size_t d = 0; d < in.shape.size(); ++d) out.shape.push_back(in.shape[d] * static_cast<int32_t>(multiples[d]));
  for (int64_t i = 0; i < ref::Count(out.shape); ++i) {
    std::vector<int64_t> idx = ref::Unravel(i, out.shape);
    for (size_t d = 0; d < idx.size(); ++d) idx[d] %= in.shape[d];
    out.data.push_back(in.data[static_cast<size_t>(ref::Ravel(idx, in.shape))]);
  }
  return out;
}

template <typename T>
Result<T> RunTile(DataType dt, const ref::Tensor<T>& in, const std::vector<int64_t>& multiples, bool int64_params,
                  int threads = 1, const Quantization& q = {}, const Quantization& out_q = {}) {
  return RunUnaryWithParams<T>(Op::TILE, 1, Opt::NONE, nullptr, dt, in, int64_params,
                               {static_cast<int32_t>(multiples.size())}, multiples, {}, {}, q, threads, out_q);
}

template <typename T>
void TileRandom(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    const ref::Tensor<T> in = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 0, 3), is_bool);
    std::vector<int64_t> multiples;
    for (int d = 0; d < rank; ++d) multiples.push_back(rank == 5 && d < 2 ? 1 : static_cast<int64_t>(rng() % 4));
    SCOPED_TRACE("input " + ShapeToString(in.shape));
    const auto r = RunTile<T>(dt, in, multiples, rng() % 2 == 0);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    const auto expected = TileRef(in, multiples);
    EXPECT_EQ(r.shape, expected.shape);
    EXPECT_EQ(r.data, expected.data);
  }
}

TEST(Tile, RandomFloat32) { TileRandom<float>(DataType::kFloat32, false, 11); }
TEST(Tile, RandomInt32) { TileRandom<int32_t>(DataType::kInt32, false, 12); }
TEST(Tile, RandomInt64) { TileRandom<int64_t>(DataType::kInt64, false, 13); }
TEST(Tile, RandomInt8) { TileRandom<int8_t>(DataType::kInt8, false, 14); }
TEST(Tile, RandomInt16) { TileRandom<int16_t>(DataType::kInt16, false, 15); }
TEST(Tile, RandomBool) { TileRandom<uint8_t>(DataType::kBool, true, 16); }

TEST(Tile, Literal) {  // checked against LiteRT
  const ref::Tensor<int8_t> in{{2, 1, 3}, {1, 2, 3, 4, 5, 6}};
  const auto r = RunTile<int8_t>(DataType::kInt8, in, {2, 3, 2}, true, 1, Q(0.5f, 2));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{4, 3, 6}));
  EXPECT_EQ(r.data, TileRef(in, {2, 3, 2}).data);
  EXPECT_EQ((std::vector<int8_t>(r.data.begin(), r.data.begin() + 12)),
            (std::vector<int8_t>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
}

TEST(Tile, LargeMultiThreaded) {
  std::mt19937 rng(17);
  const ref::Tensor<float> in = ref::RandomTensor<float>(rng, {3, 40, 50});
  const auto r = RunTile<float>(DataType::kFloat32, in, {2, 3, 4}, false, 4);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, TileRef(in, {2, 3, 4}).data);
}

TEST(Tile, Errors) {
  const ref::Tensor<float> t{{2, 3}, {1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(RunTile<float>(DataType::kFloat32, t, {1, -1}, false).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunTile<float>(DataType::kFloat32, t, {1, 2, 3}, false).status.code(), StatusCode::kInvalidArgument);
  // 3 x 2^30 does not fit a dimension.
  EXPECT_EQ(RunTile<float>(DataType::kFloat32, t, {1, int64_t{1} << 30}, true).status.code(),
            StatusCode::kInvalidArgument);
  // 2^40+ elements: refused by the interpreter's size limit.
  EXPECT_NE(RunTile<float>(DataType::kFloat32, t, {int64_t{1} << 29, int64_t{1} << 29}, true).status.code(),
            StatusCode::kOk);
  const ref::Tensor<int8_t> q8{{3}, {1, 2, 3}};
  EXPECT_EQ(RunTile<int8_t>(DataType::kInt8, q8, {2}, false, 1, Q(0.5f, 1), Q(0.5f, 2)).status.code(),
            StatusCode::kUnimplemented);
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {2, 3});
  m.AddInput(DataType::kInt32, {2});
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(Op::TILE, 1);
  ASSERT_TRUE(m.Build().ok());  // runtime multiples: prepared at Invoke
  m.SetInput<int32_t>(1, {2, 3});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(2), (Shape{4, 9}));
}

// ---------------------------------------------------------------- BROADCAST_TO

template <typename T>
ref::Tensor<T> BroadcastRef(const ref::Tensor<T>& in, const Shape& shape) {
  ref::Tensor<T> out{shape, {}};
  const size_t lead = shape.size() - in.shape.size();
  for (int64_t i = 0; i < ref::Count(shape); ++i) {
    const std::vector<int64_t> o = ref::Unravel(i, shape);
    std::vector<int64_t> idx(o.begin() + static_cast<std::ptrdiff_t>(lead), o.end());
    for (size_t d = 0; d < idx.size(); ++d) {
      if (in.shape[d] == 1) idx[d] = 0;
    }
    out.data.push_back(in.data[static_cast<size_t>(ref::Ravel(idx, in.shape))]);
  }
  return out;
}

template <typename T>
Result<T> RunBroadcastTo(DataType dt, const ref::Tensor<T>& in, const Shape& shape, bool int64_params,
                         int threads = 1) {
  return RunUnaryWithParams<T>(Op::BROADCAST_TO, 2, Opt::NONE, nullptr, dt, in, int64_params,
                               {static_cast<int32_t>(shape.size())}, std::vector<int64_t>(shape.begin(), shape.end()),
                               {}, {}, {}, threads);
}

template <typename T>
void BroadcastRandom(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const int out_rank = 1 + static_cast<int>(rng() % 6);
    const Shape shape = ref::RandomShape(rng, out_rank, 0, 4);
    const int rank = static_cast<int>(rng() % static_cast<uint32_t>(out_rank + 1));
    Shape in_shape(shape.end() - rank, shape.end());
    for (auto& d : in_shape) {
      if (rng() % 2 == 0) d = 1;
    }
    const ref::Tensor<T> in = ref::RandomTensor<T>(rng, in_shape, is_bool);
    SCOPED_TRACE("input " + ShapeToString(in.shape) + " to " + ShapeToString(shape));
    const auto r = RunBroadcastTo<T>(dt, in, shape, rng() % 2 == 0);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    const auto expected = BroadcastRef(in, shape);
    EXPECT_EQ(r.shape, expected.shape);
    EXPECT_EQ(r.data, expected.data);
  }
}

TEST(BroadcastTo, RandomFloat32) { BroadcastRandom<float>(DataType::kFloat32, false, 21); }
TEST(BroadcastTo, RandomInt32) { BroadcastRandom<int32_t>(DataType::kInt32, false, 22); }
TEST(BroadcastTo, RandomInt64) { BroadcastRandom<int64_t>(DataType::kInt64, false, 23); }
TEST(BroadcastTo, RandomUInt8) { BroadcastRandom<uint8_t>(DataType::kUInt8, false, 24); }
TEST(BroadcastTo, RandomInt16) { BroadcastRandom<int16_t>(DataType::kInt16, false, 25); }
TEST(BroadcastTo, RandomBool) { BroadcastRandom<uint8_t>(DataType::kBool, true, 26); }

TEST(BroadcastTo, LiteralAndLarge) {
  auto r = RunBroadcastTo<float>(DataType::kFloat32, {{3, 1}, {1, 2, 3}}, {2, 3, 4}, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, (std::vector<float>{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  std::mt19937 rng(27);
  const ref::Tensor<float> in = ref::RandomTensor<float>(rng, {1, 64, 1, 32});
  r = RunBroadcastTo<float>(DataType::kFloat32, in, {8, 64, 20, 32}, true, 4);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, BroadcastRef(in, {8, 64, 20, 32}).data);
}

TEST(BroadcastTo, Errors) {
  const ref::Tensor<float> t{{2, 3}, {1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(RunBroadcastTo<float>(DataType::kFloat32, t, {2, 4}, false).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunBroadcastTo<float>(DataType::kFloat32, t, {3}, false).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunBroadcastTo<float>(DataType::kFloat32, t, {-1, 2, 3}, false).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunBroadcastTo<float>(DataType::kFloat32, t, {1, 1, 1, 1, 1, 1, 1, 2, 3}, false).status.code(),
            StatusCode::kUnimplemented);
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, {2, 3});
  m.AddInput(DataType::kInt32, {2});
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(Op::BROADCAST_TO, 2);
  ASSERT_TRUE(m.Build().ok());  // runtime shape: prepared at Invoke
  m.SetInput<int32_t>(1, {4, 3});
  EXPECT_FALSE(m.Invoke().ok());  // [2,3] does not broadcast to [4,3]
  m.SetInput<int32_t>(1, {2, 3});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(2), (Shape{2, 3}));
}

// ---------------------------------------------------------------- REVERSE_V2

template <typename T>
ref::Tensor<T> ReverseRef(const ref::Tensor<T>& in, const std::vector<bool>& reversed) {
  ref::Tensor<T> out{in.shape, {}};
  for (int64_t i = 0; i < ref::Count(in.shape); ++i) {
    std::vector<int64_t> idx = ref::Unravel(i, in.shape);
    for (size_t d = 0; d < idx.size(); ++d) {
      if (reversed[d]) idx[d] = in.shape[d] - 1 - idx[d];
    }
    out.data.push_back(in.data[static_cast<size_t>(ref::Ravel(idx, in.shape))]);
  }
  return out;
}

// axis is a runtime input when !axis_constant.
template <typename T>
Result<T> RunReverse(DataType dt, const ref::Tensor<T>& in, const std::vector<int32_t>& axes, bool axis_constant,
                     int threads = 1) {
  int in_index = -1, axis_index = -1;
  return RunModel<T>(
      [&](SingleOpModel& m) {
        in_index = m.AddInput(dt, in.shape);
        const Shape axis_shape = {static_cast<int32_t>(axes.size())};
        axis_index = axis_constant ? m.AddConstInput<int32_t>(DataType::kInt32, axis_shape, axes)
                                   : m.AddInput(DataType::kInt32, axis_shape);
        const int out = m.AddOutput(dt);
        m.SetBuiltinOp(Op::REVERSE_V2, 1);
        return out;
      },
      [&](SingleOpModel& m) {
        m.SetInput<T>(in_index, in.data);
        if (!axis_constant) m.SetInput<int32_t>(axis_index, axes);
      },
      threads);
}

template <typename T>
void ReverseRandom(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    const ref::Tensor<T> in = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 0, 4), is_bool);
    std::vector<bool> reversed(static_cast<size_t>(rank));
    std::vector<int32_t> axes;
    for (int d = 0; d < rank; ++d) {
      reversed[static_cast<size_t>(d)] = rng() % 2 == 0;
      if (reversed[static_cast<size_t>(d)]) axes.push_back(rng() % 2 == 0 ? d : d - rank);  // negative axes too
    }
    if (axes.empty()) continue;  // an empty axis constant is not representable
    std::shuffle(axes.begin(), axes.end(), rng);
    SCOPED_TRACE("input " + ShapeToString(in.shape));
    const auto r = RunReverse<T>(dt, in, axes, rng() % 2 == 0);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.shape, in.shape);
    EXPECT_EQ(r.data, ReverseRef(in, reversed).data);
  }
}

TEST(ReverseV2, RandomFloat32) { ReverseRandom<float>(DataType::kFloat32, false, 31); }
TEST(ReverseV2, RandomInt32) { ReverseRandom<int32_t>(DataType::kInt32, false, 32); }
TEST(ReverseV2, RandomInt64) { ReverseRandom<int64_t>(DataType::kInt64, false, 33); }
TEST(ReverseV2, RandomInt8) { ReverseRandom<int8_t>(DataType::kInt8, false, 34); }
TEST(ReverseV2, RandomInt16) { ReverseRandom<int16_t>(DataType::kInt16, false, 35); }
TEST(ReverseV2, RandomBool) { ReverseRandom<uint8_t>(DataType::kBool, true, 36); }

TEST(ReverseV2, LiteralAndLarge) {
  std::vector<float> iota(24);
  for (int i = 0; i < 24; ++i) iota[static_cast<size_t>(i)] = static_cast<float>(i);
  auto r = RunReverse<float>(DataType::kFloat32, {{2, 3, 4}, iota}, {-1, 0}, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ((std::vector<float>(r.data.begin(), r.data.begin() + 8)), (std::vector<float>{15, 14, 13, 12, 19, 18, 17, 16}));
  std::mt19937 rng(37);
  const ref::Tensor<float> in = ref::RandomTensor<float>(rng, {4, 70, 60, 3});
  r = RunReverse<float>(DataType::kFloat32, in, {1, 2}, false, 4);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, ReverseRef(in, {false, true, true, false}).data);
}

TEST(ReverseV2, Errors) {
  const ref::Tensor<float> t{{2, 3}, {1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(RunReverse<float>(DataType::kFloat32, t, {2}, true).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunReverse<float>(DataType::kFloat32, t, {-3}, true).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunReverse<float>(DataType::kFloat32, t, {1, -1}, true).status.code(), StatusCode::kInvalidArgument);
  // A runtime axis is checked in Eval.
  EXPECT_EQ(RunReverse<float>(DataType::kFloat32, t, {5}, false).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunReverse<float>(DataType::kFloat32, t, {0, 1, 0}, false).status.code(), StatusCode::kInvalidArgument);
  SingleOpModel m;  // float axis
  m.AddInput(DataType::kFloat32, {2, 3});
  m.AddConstInput<float>(DataType::kFloat32, {1}, {0.f});
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(Op::REVERSE_V2, 1);
  EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
}

// ------------------------------------------------- SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND

template <typename T>
ref::Tensor<T> SpaceToBatchRef(const ref::Tensor<T>& in, const std::vector<int>& block,
                               const std::vector<std::pair<int, int>>& pads, T pad_value) {
  const size_t m = block.size();
  ref::Tensor<T> out{in.shape, {}};
  int prod = 1;
  for (int b : block) prod *= b;
  out.shape[0] = in.shape[0] * prod;
  for (size_t i = 0; i < m; ++i) out.shape[i + 1] = (in.shape[i + 1] + pads[i].first + pads[i].second) / block[i];
  for (int64_t f = 0; f < ref::Count(out.shape); ++f) {
    const std::vector<int64_t> o = ref::Unravel(f, out.shape);
    int64_t offset = o[0] / in.shape[0];
    std::vector<int64_t> idx = o;
    idx[0] = o[0] % in.shape[0];
    bool inside = true;
    for (size_t i = m; i-- > 0;) {
      const int64_t within = offset % block[i];
      offset /= block[i];
      idx[i + 1] = o[i + 1] * block[i] + within - pads[i].first;
      inside = inside && idx[i + 1] >= 0 && idx[i + 1] < in.shape[i + 1];
    }
    out.data.push_back(inside ? in.data[static_cast<size_t>(ref::Ravel(idx, in.shape))] : pad_value);
  }
  return out;
}

// BATCH_TO_SPACE_ND's reference: the inverse written the other way round,
// from input elements to output positions.
template <typename T>
ref::Tensor<T> BatchToSpaceRef(const ref::Tensor<T>& in, const std::vector<int>& block,
                               const std::vector<std::pair<int, int>>& crops) {
  const size_t m = block.size();
  int prod = 1;
  for (int b : block) prod *= b;
  ref::Tensor<T> out{in.shape, {}};
  out.shape[0] = in.shape[0] / prod;
  for (size_t i = 0; i < m; ++i) out.shape[i + 1] = in.shape[i + 1] * block[i] - crops[i].first - crops[i].second;
  out.data.resize(static_cast<size_t>(ref::Count(out.shape)));
  for (int64_t f = 0; f < ref::Count(in.shape); ++f) {
    const std::vector<int64_t> idx = ref::Unravel(f, in.shape);
    std::vector<int64_t> o = idx;
    o[0] = idx[0] % out.shape[0];
    int64_t offset = idx[0] / out.shape[0];
    bool kept = true;
    for (size_t i = m; i-- > 0;) {
      o[i + 1] = idx[i + 1] * block[i] + offset % block[i] - crops[i].first;
      offset /= block[i];
      kept = kept && o[i + 1] >= 0 && o[i + 1] < out.shape[i + 1];
    }
    if (kept) out.data[static_cast<size_t>(ref::Ravel(o, out.shape))] = in.data[static_cast<size_t>(f)];
  }
  return out;
}

template <typename T>
Result<T> RunSpaceBatch(bool to_batch, DataType dt, const ref::Tensor<T>& in, const std::vector<int>& block,
                        const std::vector<std::pair<int, int>>& edges, bool int64_params, const Quantization& q = {},
                        int threads = 1, const Quantization& out_q = {}) {
  std::vector<int64_t> e;
  for (const auto& [a, b] : edges) e.insert(e.end(), {a, b});
  const int32_t m = static_cast<int32_t>(block.size());
  return RunUnaryWithParams<T>(to_batch ? Op::SPACE_TO_BATCH_ND : Op::BATCH_TO_SPACE_ND, 1, Opt::NONE, nullptr, dt, in,
                               int64_params, {m}, std::vector<int64_t>(block.begin(), block.end()),
                               {static_cast<int32_t>(edges.size()), 2}, e, q, threads, out_q);
}

template <typename T>
void SpaceBatchRandom(DataType dt, bool is_bool, uint32_t seed, const Quantization& q = {}) {
  std::mt19937 rng(seed);
  const T pad_value = q.IsQuantized() ? static_cast<T>(q.zero_point[0]) : T{0};
  for (int iter = 0; iter < 40; ++iter) {
    const int m = 1 + static_cast<int>(rng() % 3);
    const int rank = m + 1 + static_cast<int>(rng() % 2);
    std::vector<int> block;
    std::vector<std::pair<int, int>> pads, crops;
    Shape in_shape = ref::RandomShape(rng, rank, 1, 3);
    Shape batch_shape = in_shape;  // BATCH_TO_SPACE_ND input
    int prod = 1;
    for (int i = 0; i < m; ++i) {
      const int b = 1 + static_cast<int>(rng() % 3);
      block.push_back(b);
      prod *= b;
      // Padding so the padded size is a multiple of b.
      const int before = static_cast<int>(rng() % 3);
      int after = static_cast<int>(rng() % 3);
      while ((in_shape[static_cast<size_t>(i) + 1] + before + after) % b != 0) ++after;
      pads.emplace_back(before, after);
      const int full = batch_shape[static_cast<size_t>(i) + 1] * b;
      const int c0 = static_cast<int>(rng() % static_cast<uint32_t>(full));
      const int c1 = static_cast<int>(rng() % static_cast<uint32_t>(full - c0 + 1));
      crops.emplace_back(c0, c1);
    }
    batch_shape[0] *= prod;
    const bool int64_params = rng() % 2 == 0;
    {
      const ref::Tensor<T> in = ref::RandomTensor<T>(rng, in_shape, is_bool);
      SCOPED_TRACE("SPACE_TO_BATCH_ND input " + ShapeToString(in.shape));
      const auto r = RunSpaceBatch<T>(true, dt, in, block, pads, int64_params, q);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      const auto expected = SpaceToBatchRef(in, block, pads, pad_value);
      EXPECT_EQ(r.shape, expected.shape);
      EXPECT_EQ(r.data, expected.data);
    }
    {
      const ref::Tensor<T> in = ref::RandomTensor<T>(rng, batch_shape, is_bool);
      SCOPED_TRACE("BATCH_TO_SPACE_ND input " + ShapeToString(in.shape));
      const auto r = RunSpaceBatch<T>(false, dt, in, block, crops, int64_params, q);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      const auto expected = BatchToSpaceRef(in, block, crops);
      EXPECT_EQ(r.shape, expected.shape);
      EXPECT_EQ(r.data, expected.data);
    }
  }
}

TEST(SpaceBatchNd, RandomFloat32) { SpaceBatchRandom<float>(DataType::kFloat32, false, 41); }
TEST(SpaceBatchNd, RandomInt32) { SpaceBatchRandom<int32_t>(DataType::kInt32, false, 42); }
TEST(SpaceBatchNd, RandomInt64) { SpaceBatchRandom<int64_t>(DataType::kInt64, false, 43); }
TEST(SpaceBatchNd, RandomInt8) { SpaceBatchRandom<int8_t>(DataType::kInt8, false, 44, Q(0.5f, -7)); }
TEST(SpaceBatchNd, RandomUInt8) { SpaceBatchRandom<uint8_t>(DataType::kUInt8, false, 45, Q(0.5f, 130)); }
TEST(SpaceBatchNd, RandomInt16) { SpaceBatchRandom<int16_t>(DataType::kInt16, false, 46, Q(0.5f, 0)); }
TEST(SpaceBatchNd, RandomBool) { SpaceBatchRandom<uint8_t>(DataType::kBool, true, 47); }

// The cases run against LiteRT while developing (same outputs).
TEST(SpaceBatchNd, LiteRtCases) {
  std::vector<float> iota(144);
  for (size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<float>(i + 1);
  const ref::Tensor<float> s2b_in{{2, 3, 5, 2}, std::vector<float>(iota.begin(), iota.begin() + 60)};
  auto r = RunSpaceBatch<float>(true, DataType::kFloat32, s2b_in, {2, 3}, {{1, 0}, {2, 2}}, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{12, 2, 3, 2}));
  EXPECT_EQ(r.data, SpaceToBatchRef(s2b_in, {2, 3}, {{1, 0}, {2, 2}}, 0.f).data);
  const ref::Tensor<float> b2s_in{{12, 2, 3, 2}, iota};
  r = RunSpaceBatch<float>(false, DataType::kFloat32, b2s_in, {2, 3}, {{1, 2}, {0, 2}}, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{2, 1, 7, 2}));
  EXPECT_EQ(r.data, BatchToSpaceRef(b2s_in, {2, 3}, {{1, 2}, {0, 2}}).data);
  // TensorFlow's documented example: [4,1,1,1] with block [2,2] -> [[1,2],[3,4]].
  r = RunSpaceBatch<float>(false, DataType::kFloat32, {{4, 1, 1, 1}, {1, 2, 3, 4}}, {2, 2}, {{0, 0}, {0, 0}}, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{1, 2, 2, 1}));
  EXPECT_EQ(r.data, (std::vector<float>{1, 2, 3, 4}));
  // Quantized padding uses the zero point.
  const auto q = RunSpaceBatch<int8_t>(true, DataType::kInt8, {{1, 1, 1, 1}, {9}}, {2, 2}, {{1, 0}, {0, 1}}, false,
                                       Q(0.5f, -7));
  ASSERT_TRUE(q.status.ok()) << q.status.ToString();
  EXPECT_EQ(q.data, (std::vector<int8_t>{-7, -7, 9, -7}));
}

TEST(SpaceBatchNd, LargeMultiThreaded) {
  std::mt19937 rng(48);
  const ref::Tensor<float> in = ref::RandomTensor<float>(rng, {2, 62, 64, 16});
  auto r = RunSpaceBatch<float>(true, DataType::kFloat32, in, {2, 2}, {{1, 1}, {0, 0}}, false, {}, 4);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, SpaceToBatchRef(in, {2, 2}, {{1, 1}, {0, 0}}, 0.f).data);
  r = RunSpaceBatch<float>(false, DataType::kFloat32, in, {2}, {{3, 2}}, false, {}, 4);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, BatchToSpaceRef(in, {2}, {{3, 2}}).data);
}

TEST(SpaceBatchNd, Errors) {
  const ref::Tensor<float> t{{1, 4, 4, 1}, std::vector<float>(16, 1.f)};
  for (bool to_batch : {true, false}) {
    SCOPED_TRACE(to_batch ? "SPACE_TO_BATCH_ND" : "BATCH_TO_SPACE_ND");
    EXPECT_EQ(RunSpaceBatch<float>(to_batch, DataType::kFloat32, t, {0, 1}, {{0, 0}, {0, 0}}, false).status.code(),
              StatusCode::kInvalidArgument);  // block <= 0
    EXPECT_EQ(RunSpaceBatch<float>(to_batch, DataType::kFloat32, t, {-2, 1}, {{0, 0}, {0, 0}}, false).status.code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(RunSpaceBatch<float>(to_batch, DataType::kFloat32, t, {1, 1}, {{-1, 0}, {0, 0}}, false).status.code(),
              StatusCode::kInvalidArgument);  // negative paddings / crops
    EXPECT_EQ(RunSpaceBatch<float>(to_batch, DataType::kFloat32, t, {1, 1}, {{0, 0}}, false).status.code(),
              StatusCode::kInvalidArgument);  // edges shape
    EXPECT_EQ(RunSpaceBatch<float>(to_batch, DataType::kFloat32, t, {1, 1, 1, 1}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}},
                                   false)
                  .status.code(),
              StatusCode::kInvalidArgument);  // too many spatial dimensions
    const ref::Tensor<int8_t> q8{{4, 2, 2, 1}, std::vector<int8_t>(16, 1)};
    EXPECT_EQ(RunSpaceBatch<int8_t>(to_batch, DataType::kInt8, q8, {2, 2}, {{0, 0}, {0, 0}}, false, Q(0.5f, 0), 1,
                                    Q(0.5f, 1))
                  .status.code(),
              StatusCode::kUnimplemented);
  }
  // Padded size not a multiple of the block.
  EXPECT_EQ(RunSpaceBatch<float>(true, DataType::kFloat32, t, {3, 1}, {{0, 0}, {0, 0}}, false).status.code(),
            StatusCode::kInvalidArgument);
  // Batch 1 is not a multiple of the block size 4.
  EXPECT_EQ(RunSpaceBatch<float>(false, DataType::kFloat32, t, {2, 2}, {{0, 0}, {0, 0}}, false).status.code(),
            StatusCode::kInvalidArgument);
  // Crops larger than the spatial size.
  const ref::Tensor<float> b{{4, 1, 1, 1}, {1, 2, 3, 4}};
  EXPECT_EQ(RunSpaceBatch<float>(false, DataType::kFloat32, b, {2, 2}, {{2, 1}, {0, 0}}, false).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(RunSpaceBatch<float>(false, DataType::kFloat32, b, {2, 2}, {{1, 1}, {0, 0}}, false).status.ok());
  SingleOpModel m;  // runtime block shape
  m.AddInput(DataType::kFloat32, {1, 4, 4, 1});
  m.AddInput(DataType::kInt32, {2});
  m.AddConstInput<int32_t>(DataType::kInt32, {2, 2}, {0, 0, 0, 0});
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(Op::SPACE_TO_BATCH_ND, 1);
  ASSERT_TRUE(m.Build().ok());  // runtime block shape: prepared at Invoke
  m.SetInput<int32_t>(1, {2, 2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(3), (Shape{4, 2, 2, 1}));
}

// ---------------------------------------------------------------- EMBEDDING_LOOKUP

template <typename T, typename O = T>
Result<O> RunEmbedding(DataType dt, DataType out_dt, const std::vector<int32_t>& lookup, const ref::Tensor<T>& value,
                       const Quantization& q = {}, int threads = 1, bool value_constant = false) {
  int lookup_index = -1, value_index = -1;
  return RunModel<O>(
      [&](SingleOpModel& m) {
        lookup_index = m.AddInput(DataType::kInt32, {static_cast<int32_t>(lookup.size())});
        value_index = value_constant ? m.AddConstInput<T>(dt, value.shape, value.data, q) : m.AddInput(dt, value.shape, q);
        const int out = m.AddOutput(out_dt, {}, out_dt == dt ? q : Quantization{});
        m.SetBuiltinOp(Op::EMBEDDING_LOOKUP, 1);
        return out;
      },
      [&](SingleOpModel& m) {
        m.SetInput<int32_t>(lookup_index, lookup);
        if (!value_constant) m.SetInput<T>(value_index, value.data);
      },
      threads);
}

template <typename T>
void EmbeddingRandom(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    const int rank = 2 + static_cast<int>(rng() % 3);
    Shape shape = ref::RandomShape(rng, rank, 0, 4);
    shape[0] = 1 + static_cast<int32_t>(rng() % 5);
    const ref::Tensor<T> value = ref::RandomTensor<T>(rng, shape, is_bool);
    std::vector<int32_t> lookup(rng() % 6);
    for (auto& l : lookup) l = static_cast<int32_t>(rng() % static_cast<uint32_t>(shape[0]));
    SCOPED_TRACE("value " + ShapeToString(shape));
    const auto r = RunEmbedding<T>(dt, dt, lookup, value);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ref::Tensor<int32_t> idx{{static_cast<int32_t>(lookup.size())}, lookup};
    const auto expected = ref::Gather(value, idx, 0, 0);
    EXPECT_EQ(r.shape, expected.shape);
    EXPECT_EQ(r.data, expected.data);
  }
}

TEST(EmbeddingLookup, RandomFloat32) { EmbeddingRandom<float>(DataType::kFloat32, false, 51); }
TEST(EmbeddingLookup, RandomInt32) { EmbeddingRandom<int32_t>(DataType::kInt32, false, 52); }
TEST(EmbeddingLookup, RandomInt64) { EmbeddingRandom<int64_t>(DataType::kInt64, false, 53); }
TEST(EmbeddingLookup, RandomInt8) { EmbeddingRandom<int8_t>(DataType::kInt8, false, 54); }
TEST(EmbeddingLookup, RandomUInt8) { EmbeddingRandom<uint8_t>(DataType::kUInt8, false, 55); }
TEST(EmbeddingLookup, RandomBool) { EmbeddingRandom<uint8_t>(DataType::kBool, true, 56); }

TEST(EmbeddingLookup, Literal) {
  std::vector<float> iota(12);
  for (int i = 0; i < 12; ++i) iota[static_cast<size_t>(i)] = static_cast<float>(i);
  const auto r = RunEmbedding<float>(DataType::kFloat32, DataType::kFloat32, {2, 0, 2}, {{3, 2, 2}, iota});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, (Shape{3, 2, 2}));
  EXPECT_EQ(r.data, (std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
}

TEST(EmbeddingLookup, HybridInt8) {
  // Per-row scales (checked against LiteRT) and one scale for all rows.
  Quantization q;
  q.scale = {0.5f, 0.25f, 2.f};
  q.zero_point = {0, 0, 0};
  const ref::Tensor<int8_t> value{{3, 2}, {1, -2, 3, -4, 5, -128}};
  auto r = RunEmbedding<int8_t, float>(DataType::kInt8, DataType::kFloat32, {2, 0, 1}, value, q, 1, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, (std::vector<float>{10.f, -256.f, 0.5f, -1.f, 0.75f, -1.f}));
  r = RunEmbedding<int8_t, float>(DataType::kInt8, DataType::kFloat32, {1, 1}, value, Q(0.5f, 0));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, (std::vector<float>{1.5f, -2.f, 1.5f, -2.f}));
  // A non-zero zero point is rejected, as LiteRT does.
  EXPECT_EQ((RunEmbedding<int8_t, float>(DataType::kInt8, DataType::kFloat32, {1}, value, Q(0.5f, 3)).status.code()),
            StatusCode::kInvalidArgument);
}

TEST(EmbeddingLookup, HybridUInt8ReadsBytesAsInt8) {
  // LiteRT 2.3 gives [[-28, -0.5, 0.5], [0, 63.5, -64]]: 200 is read as -56.
  const ref::Tensor<uint8_t> value{{2, 3}, {0, 127, 128, 200, 255, 1}};
  const auto r = RunEmbedding<uint8_t, float>(DataType::kUInt8, DataType::kFloat32, {1, 0}, value, Q(0.5f, 0));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.data, (std::vector<float>{-28.f, -0.5f, 0.5f, 0.f, 63.5f, -64.f}));
}

TEST(EmbeddingLookup, Errors) {
  const ref::Tensor<float> value{{3, 2}, {1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(RunEmbedding<float>(DataType::kFloat32, DataType::kFloat32, {0, 3}, value).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunEmbedding<float>(DataType::kFloat32, DataType::kFloat32, {-1}, value).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunEmbedding<float>(DataType::kFloat32, DataType::kFloat32, {0}, {{3}, {1, 2, 3}}).status.code(),
            StatusCode::kInvalidArgument);  // value rank 1
  EXPECT_EQ(RunEmbedding<float>(DataType::kFloat32, DataType::kInt32, {0}, value).status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((RunEmbedding<int16_t, float>(DataType::kInt16, DataType::kFloat32, {0}, {{1, 2}, {1, 2}}, Q(0.5f, 0))
                 .status.code()),
            StatusCode::kUnimplemented);
  SingleOpModel m;  // int64 lookup
  m.AddInput(DataType::kInt64, {2});
  m.AddInput(DataType::kFloat32, {3, 2});
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(Op::EMBEDDING_LOOKUP, 1);
  EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace relite
