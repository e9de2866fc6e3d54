// Shared helpers of the elementwise op tests: one-op models of a binary or
// unary op, seeded random data, tolerant comparison, and the broadcast shape
// pairs every binary op is checked on.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/reference/elementwise_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite::testing {

// Which op to build: code, version and (optionally) its options table.
struct OpSpec {
  tflite::BuiltinOperator op;
  int version = 1;
  tflite::BuiltinOptions options_type = tflite::BuiltinOptions::NONE;
  std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)> options;
};

template <typename T>
struct OpResult {
  Status build;
  Status invoke;
  Shape shape;
  std::vector<T> out;
};

inline std::string ShapeStr(const Shape& s) { return ShapeToString(s); }

// A binary op on a (graph input) and b (graph input, or a constant when
// b_const). Outputs are read as Out.
template <typename Out, typename T>
OpResult<Out> RunBinary(const OpSpec& spec, DataType type, const Shape& a_shape, const std::vector<T>& a,
                        const Shape& b_shape, const std::vector<T>& b, int threads = 1, bool b_const = false,
                        DataType out_type = DataType(-1), DataType b_type = DataType(-1)) {
  if (out_type == DataType(-1)) out_type = type;
  if (b_type == DataType(-1)) b_type = type;
  OpResult<Out> r;
  SingleOpModel m;
  const int ia = m.AddInput(type, a_shape);
  const int ib = b_const ? m.AddConstInput<T>(b_type, b_shape, b) : m.AddInput(b_type, b_shape);
  const int io = m.AddOutput(out_type);
  m.SetBuiltinOp(spec.op, spec.version, spec.options_type, spec.options ? spec.options(m.fbb()) : 0);
  m.SetFlushDenormals(false);  // the references are IEEE, subnormal special values included
  r.build = m.Build(threads);
  if (!r.build.ok()) return r;
  // Empty tensors may have no data pointer: skip their copies.
  if (!a.empty()) m.SetInput<T>(ia, a);
  if (!b_const && !b.empty()) m.SetInput<T>(ib, b);
  r.invoke = m.Invoke();
  if (!r.invoke.ok()) return r;
  r.shape = m.GetOutputShape(io);
  r.out = m.GetOutput<Out>(io);
  return r;
}

template <typename Out, typename In>
OpResult<Out> RunUnary(const OpSpec& spec, DataType in_type, DataType out_type, const Shape& shape,
                       const std::vector<In>& x, int threads = 1, const Quantization& quant = {},
                       bool input_const = false) {
  OpResult<Out> r;
  SingleOpModel m;
  const int in = input_const ? m.AddConstInput<In>(in_type, shape, x, quant) : m.AddInput(in_type, shape, quant);
  const int io = m.AddOutput(out_type);
  m.SetBuiltinOp(spec.op, spec.version, spec.options_type, spec.options ? spec.options(m.fbb()) : 0);
  m.SetFlushDenormals(false);  // the references are IEEE, subnormal special values included
  r.build = m.Build(threads);
  if (!r.build.ok()) return r;
  if (!input_const && !x.empty()) m.SetInput<In>(in, x);
  r.invoke = m.Invoke();
  if (!r.invoke.ok()) return r;
  r.shape = m.GetOutputShape(io);
  r.out = m.GetOutput<Out>(io);
  return r;
}

inline int64_t Elements(const Shape& s) {
  int64_t n = 1;
  for (int32_t d : s) n *= d;
  return n;
}

template <typename T>
std::vector<T> RandomValues(size_t n, std::mt19937& rng, double lo, double hi) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> dist(static_cast<T>(lo), static_cast<T>(hi));
    for (T& x : v) x = dist(rng);
  } else {
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (T& x : v) x = static_cast<T>(dist(rng));
  }
  return v;
}

// |got - want| <= atol + rtol * |want|, NaN matches NaN, inf matches the same
// inf. Reports the first few mismatches.
inline void ExpectFloatsNear(const std::vector<float>& got, const std::vector<float>& want, const std::string& what,
                             double rtol = 1e-5, double atol = 1e-6) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i];
    const double w = want[i];
    bool ok;
    if (std::isnan(w)) {
      ok = std::isnan(g);
    } else if (std::isinf(w)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    }
    if (!ok) {
      ADD_FAILURE() << what << ": index " << i << " got " << got[i] << " expected " << want[i];
      if (++reported >= 8) return;
    }
  }
}

template <typename T>
void ExpectValuesEqual(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  if constexpr (std::is_same_v<T, float>) {
    ExpectFloatsNear(got, want, what);
  } else {
    ASSERT_EQ(got.size(), want.size()) << what;
    int reported = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i]) {
        ADD_FAILURE() << what << ": index " << i << " got " << +got[i] << " expected " << +want[i];
        if (++reported >= 8) return;
      }
    }
  }
}

// Broadcast shape pairs covering every plan shape: same shape, scalar and
// rank 0 on either side, per-channel vectors (short and long), inner and
// outer broadcasting on either side, ranks up to 6, empty tensors.
inline std::vector<std::pair<Shape, Shape>> BroadcastShapePairs() {
  return {
      {{3, 5, 7}, {3, 5, 7}},
      {{2, 3, 4}, {4}},
      {{4}, {2, 3, 4}},
      {{2, 1, 4}, {1, 3, 1}},
      {{1, 3, 1}, {2, 1, 4}},
      {{}, {2, 3}},
      {{2, 3}, {}},
      {{}, {}},
      {{1}, {3, 2}},
      {{3, 2}, {1, 1}},
      {{17}, {1}},
      {{2, 5, 5, 3}, {3}},
      {{2, 5, 5, 3}, {1, 1, 3}},
      {{3}, {2, 5, 5, 3}},
      {{1, 4, 4, 200}, {200}},
      {{200}, {1, 4, 4, 200}},
      {{2, 3, 1}, {2, 3, 4}},
      {{2, 3, 4}, {2, 3, 1}},
      {{5, 1}, {1, 5}},
      {{2, 1, 3, 1, 4}, {1, 2, 1, 5, 1}},
      {{2, 1, 2, 1, 2, 3}, {1, 2, 1, 2, 1, 3}},
      {{2, 2, 3, 1, 1, 5}, {2, 1, 3, 4, 1, 1}},
      {{1, 1, 1, 1, 1, 9}, {9}},
      {{0, 3}, {3}},
      {{2, 0, 3}, {1, 1, 3}},
      {{4, 1}, {0}},
  };
}

// Checks a binary op of type T on every shape pair against `ref` (and the
// output shape), with b as a graph input and as a constant.
template <typename T, typename Out = T, typename Ref>
void CheckBroadcastPairs(const OpSpec& spec, DataType type, Ref ref, double lo, double hi, uint32_t seed,
                         DataType out_type = DataType(-1)) {
  std::mt19937 rng(seed);
  for (const auto& [as, bs] : BroadcastShapePairs()) {
    for (bool b_const : {false, true}) {
      // A constant needs bytes: an empty buffer reads as "no data".
      if (b_const && Elements(bs) == 0) continue;
      const std::string what = std::string("a ") + ShapeStr(as) + " b " + ShapeStr(bs) + (b_const ? " (b const)" : "");
      const auto a = RandomValues<T>(static_cast<size_t>(Elements(as)), rng, lo, hi);
      const auto b = RandomValues<T>(static_cast<size_t>(Elements(bs)), rng, lo, hi);
      const OpResult<Out> r = RunBinary<Out>(spec, type, as, a, bs, b, 1, b_const, out_type);
      ASSERT_TRUE(r.build.ok()) << what << ": " << r.build.ToString();
      ASSERT_TRUE(r.invoke.ok()) << what << ": " << r.invoke.ToString();
      bool ok = false;
      EXPECT_EQ(r.shape, reference::BroadcastShape(as, bs, &ok)) << what;
      ExpectValuesEqual<Out>(r.out, reference::BroadcastBinary<Out>(as, a, bs, b, ref), what);
    }
  }
}

// Big tensors over several threads (chunk boundaries inside rows, tiled
// per-channel vector, scalar): results must match the reference exactly.
template <typename T, typename Out = T, typename Ref>
void CheckThreaded(const OpSpec& spec, DataType type, Ref ref, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<std::pair<Shape, Shape>> pairs = {
      {{3, 67, 61, 7}, {7}},       {{7}, {3, 67, 61, 7}},   {{200003}, {}},
      {{2, 2, 65537}, {2, 1, 65537}}, {{5, 301, 1, 67}, {1, 1, 77, 1}}, {{40000, 3}, {40000, 3}},
  };
  for (const auto& [as, bs] : pairs) {
    const std::string what = std::string("threaded a ") + ShapeStr(as) + " b " + ShapeStr(bs);
    const auto a = RandomValues<T>(static_cast<size_t>(Elements(as)), rng, lo, hi);
    const auto b = RandomValues<T>(static_cast<size_t>(Elements(bs)), rng, lo, hi);
    const OpResult<Out> r = RunBinary<Out>(spec, type, as, a, bs, b, 4);
    ASSERT_TRUE(r.build.ok()) << what << ": " << r.build.ToString();
    ASSERT_TRUE(r.invoke.ok()) << what << ": " << r.invoke.ToString();
    ExpectValuesEqual<Out>(r.out, reference::BroadcastBinary<Out>(as, a, bs, b, ref), what);
  }
}

// The error paths every binary op shares.
inline void CheckBinaryErrors(const OpSpec& spec, DataType good_type) {
  {
    const auto r = RunBinary<float, float>(spec, good_type, {2, 3}, {}, {4}, {});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "incompatible shapes: " << r.build.ToString();
  }
  {
    const auto r = RunBinary<float, float>(spec, good_type, {2, 3}, {}, {3, 3}, {});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "incompatible shapes: " << r.build.ToString();
  }
  {
    const DataType other = good_type == DataType::kInt64 ? DataType::kInt32 : DataType::kInt64;
    const auto r = RunBinary<float, float>(spec, good_type, {2, 3}, {}, {3}, {}, 1, false, good_type, other);
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "mixed input types: " << r.build.ToString();
  }
  {
    const DataType other = good_type == DataType::kInt64 ? DataType::kInt32 : DataType::kInt64;
    const auto r = RunBinary<float, float>(spec, good_type, {2, 3}, {}, {3}, {}, 1, false, other);
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "wrong output type: " << r.build.ToString();
  }
  {
    SingleOpModel m;
    m.AddInput(good_type, {2, 3});
    m.AddOutput(good_type);
    m.SetBuiltinOp(spec.op, spec.version, spec.options_type, spec.options ? spec.options(m.fbb()) : 0);
    EXPECT_FALSE(m.Build().ok()) << "one input";
  }
  {
    SingleOpModel m;
    m.AddInput(good_type, {2, 3});
    m.AddInput(good_type, {2, 3});
    m.AddInput(good_type, {2, 3});
    m.AddOutput(good_type);
    m.SetBuiltinOp(spec.op, spec.version, spec.options_type, spec.options ? spec.options(m.fbb()) : 0);
    EXPECT_FALSE(m.Build().ok()) << "three inputs";
  }
}

// Special float inputs for unary ops; the length (not a multiple of 8)
// exercises the vector tail.
inline std::vector<float> SpecialFloats() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  return {0.0f,  -0.0f, 1.0f,   -1.0f,  0.5f,  -0.5f,  1e-3f,  -1e-3f, 1e-30f, -1e-30f, 1e-45f, -1e-45f,
          3.0f,  -3.0f, 6.0f,   -6.0f,  7.5f,  -7.5f,  20.0f,  -20.0f, 88.0f,  -88.0f,  88.8f,  -88.8f,
          104.f, -104.f, 1e10f, -1e10f, 3e38f, -3e38f, kInf,   -kInf,  std::numeric_limits<float>::quiet_NaN(),
          0.625f, -0.625f, 0.6249f, -0.6251f};
}

// The error paths every float unary op shares.
inline void CheckFloatUnaryErrors(const OpSpec& spec) {
  {
    const auto r = RunUnary<int32_t, int32_t>(spec, DataType::kInt32, DataType::kInt32, {3}, std::vector<int32_t>{1, 2, 3});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "int32 input: " << r.build.ToString();
  }
  {
    const auto r = RunUnary<int8_t, int8_t>(spec, DataType::kInt8, DataType::kInt8, {3}, std::vector<int8_t>{1, 2, 3},
                                            1, Quantization{{0.5f}, {0}, 0});
    // Ops without an 8-bit kernel say unsupported; those with one reject the
    // output that has no quantization parameters.
    EXPECT_TRUE(r.build.code() == StatusCode::kUnimplemented || r.build.code() == StatusCode::kInvalidArgument)
        << "int8 input: " << r.build.ToString();
  }
  {
    const auto r = RunUnary<int32_t, float>(spec, DataType::kFloat32, DataType::kInt32, {3}, std::vector<float>{1, 2, 3});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "int32 output: " << r.build.ToString();
  }
  {
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(spec.op, spec.version, spec.options_type, spec.options ? spec.options(m.fbb()) : 0);
    EXPECT_FALSE(m.Build().ok()) << "two inputs";
  }
}

// A float unary op against `ref` (computed in double) on special values,
// random values over [lo, hi] in several shapes (rank 0, odd lengths), and a
// big multi-threaded tensor.
template <typename Ref>
void CheckFloatUnary(const OpSpec& spec, Ref ref, double lo, double hi, uint32_t seed, double rtol = 1e-6,
                     double atol = 1e-7) {
  auto reference_of = [&](const std::vector<float>& x) {
    return reference::Unary<float>(x, [&](float v) { return static_cast<float>(ref(static_cast<double>(v))); });
  };
  {
    const auto x = SpecialFloats();
    const auto r = RunUnary<float, float>(spec, DataType::kFloat32, DataType::kFloat32, {static_cast<int32_t>(x.size())}, x);
    ASSERT_TRUE(r.build.ok()) << r.build.ToString();
    ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
    ExpectFloatsNear(r.out, reference_of(x), "special values", rtol, atol);
  }
  std::mt19937 rng(seed);
  const std::vector<std::pair<Shape, int>> cases = {{{}, 1}, {{1}, 1}, {{7}, 1}, {{2, 3, 5}, 1}, {{1, 9, 9, 3}, 2},
                                                    {{0, 4}, 1}, {{3, 129, 131}, 4}};
  for (const auto& [shape, threads] : cases) {
    const auto x = RandomValues<float>(static_cast<size_t>(Elements(shape)), rng, lo, hi);
    const auto r = RunUnary<float, float>(spec, DataType::kFloat32, DataType::kFloat32, shape, x, threads);
    const std::string what = "shape " + ShapeStr(shape) + " threads " + std::to_string(threads);
    ASSERT_TRUE(r.build.ok()) << what << ": " << r.build.ToString();
    ASSERT_TRUE(r.invoke.ok()) << what << ": " << r.invoke.ToString();
    EXPECT_EQ(r.shape, shape) << what;
    ExpectFloatsNear(r.out, reference_of(x), what, rtol, atol);
  }
}

}  // namespace relite::testing
