// Every ISA variant of the CPU kernels this host runs, against the portable
// one: the same one-op models run with each table forced (8-bit results
// bit-exact, float within rounding), over shapes that reach each path of the
// variants (full and partial panels and tiles, masked channel tails, 3x3 and
// 5x5 interiors, multipliers, batch-1 products, byte-packed weights).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "src/kernels/cpu/isa/cpu_isa.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "tests/testing/single_op_model.h"

namespace relite::cpu {
namespace {

using testing::SingleOpModel;

constexpr CpuIsa kVectorLevels[] = {CpuIsa::kAvx2, CpuIsa::kAvxVnni, CpuIsa::kAvx512, CpuIsa::kAvx512Vnni,
                                    CpuIsa::kArmDotprod, CpuIsa::kArmI8mm};

struct ForcedKernels {
  explicit ForcedKernels(const CpuKernels* k) { SetKernelsForTesting(k); }
  ~ForcedKernels() { SetKernelsForTesting(nullptr); }
};

// Output bytes of the model `build` makes (input filled from `seed`), run
// with the kernels of `isa`.
using ModelBuilder = std::function<int(SingleOpModel&, int* input)>;
std::vector<uint8_t> RunWith(const CpuKernels* k, const ModelBuilder& build, DataType input_type, uint32_t seed,
                             int threads) {
  ForcedKernels forced(k);
  SingleOpModel m;
  int input = -1;
  const int out = build(m, &input);
  const Status built = m.Build(threads);
  EXPECT_TRUE(built.ok()) << built.message();
  if (!built.ok()) return {};
  Tensor* t = m.interpreter().tensor(input);
  std::mt19937 rng(seed);
  if (input_type == DataType::kFloat32) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> x(t->bytes / sizeof(float));
    for (float& v : x) v = u(rng);
    m.SetInput(input, x);
  } else {
    std::vector<uint8_t> x(t->bytes);
    for (uint8_t& v : x) v = static_cast<uint8_t>(rng());
    m.SetInput(input, x);
  }
  const Status ran = m.Invoke();
  EXPECT_TRUE(ran.ok()) << ran.message();
  return m.GetOutput<uint8_t>(out);
}

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}
std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

// Runs `build` with the portable table and every vector table the CPU has,
// and compares.
void ExpectVariantsAgree(const std::string& what, const ModelBuilder& build, DataType input_type, bool exact) {
  const CpuKernels* portable = KernelsFor(CpuIsa::kPortable);
  ASSERT_NE(portable, nullptr);
  for (int threads : {1, 2}) {
    const std::vector<uint8_t> want = RunWith(portable, build, input_type, 7, threads);
    ASSERT_FALSE(want.empty()) << what;
    for (CpuIsa isa : kVectorLevels) {
      const CpuKernels* k = KernelsFor(isa);
      if (k == nullptr) continue;  // not this CPU (the skip test below says so)
      const std::vector<uint8_t> got = RunWith(k, build, input_type, 7, threads);
      ASSERT_EQ(got.size(), want.size()) << what;
      if (exact) {
        size_t differ = 0;
        for (size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
        EXPECT_EQ(differ, 0u) << what << ": " << CpuIsaName(isa) << " vs portable, " << threads << " threads";
      } else {
        const auto* g = reinterpret_cast<const float*>(got.data());
        const auto* w = reinterpret_cast<const float*>(want.data());
        const size_t n = got.size() / sizeof(float);
        // Variants differ in FMA contraction (the x86-64 baseline has none)
        // and in reduction order: errors of a few float ulps of the
        // output's scale, even where a sum cancels to near zero.
        double scale = 1;
        for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(double{w[i]}));
        size_t bad = 0;
        double worst = 0;
        for (size_t i = 0; i < n; ++i) {
          const double err = std::fabs(double{g[i]} - w[i]);
          worst = std::max(worst, err);
          bad += !(err <= 1e-5 * scale + 1e-5 * std::fabs(w[i]));
        }
        EXPECT_EQ(bad, 0u) << what << ": " << CpuIsaName(isa) << " vs portable, " << threads
                           << " threads, max |a-b| " << worst << " (output scale " << scale << ")";
      }
    }
  }
}

TEST(IsaVariantsTest, ReportsWhichLevelsThisHostRuns) {
  for (CpuIsa isa : kVectorLevels) {
    if (KernelsFor(isa) == nullptr) {
      std::printf("[ SKIPPED  ] %s: this CPU cannot run it (detected: %s)\n", CpuIsaName(isa),
                  CpuIsaName(DetectedCpuIsa()));
    }
  }
  EXPECT_NE(KernelsFor(CpuIsa::kPortable), nullptr);
  EXPECT_EQ(&Kernels(), KernelsFor(Kernels().isa));
}

TEST(IsaVariantsTest, Conv2DFloat) {
  struct Case { int h, w, cin, cout, k, stride; };
  for (const Case c : {Case{9, 11, 3, 8, 3, 1}, Case{9, 11, 8, 13, 3, 2}, Case{12, 12, 20, 40, 1, 1},
                       Case{7, 13, 16, 16, 3, 1}, Case{15, 15, 24, 36, 3, 1}, Case{5, 5, 300, 24, 1, 1},
                       // Four-panel tiles (AVX-512): 49 and 81 rows (6-row tiles and a rest of 1 or
                       // 3), 96 = 64 + 32 and 136 = 2 x 64 + 8 columns, K = 300 in two depth passes.
                       Case{7, 7, 40, 96, 1, 1}, Case{9, 9, 24, 136, 1, 1}, Case{6, 7, 300, 72, 1, 1},
                       // Rests that join the last whole tile as pair tiles (AVX-512): 25 rows of
                       // four panels (4 x 6 + 1: two 6-row tiles, then 7 rows a pair), 11 rows
                       // (one 11-row pair tile), 13 and 23 rows of two panels (7 + 6, 12 + 11).
                       Case{5, 5, 16, 64, 1, 1}, Case{1, 11, 16, 64, 1, 1}, Case{1, 13, 24, 32, 1, 1},
                       Case{1, 23, 24, 32, 1, 1},
                       // 24 columns as one 16 + 8 tile (AVX-512): a first layer's 3x3x3 windows over 90
                       // rows (7 whole tiles, then 6 rows), 5 rows alone, 19 rows (12 + 7 -> 10 + 9).
                       Case{17, 19, 3, 24, 3, 2}, Case{1, 5, 16, 24, 1, 1}, Case{1, 19, 40, 24, 1, 1}}) {
    const std::string what = "conv " + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" + std::to_string(c.cin) +
                             " -> " + std::to_string(c.cout) + " k" + std::to_string(c.k) + " s" +
                             std::to_string(c.stride);
    ExpectVariantsAgree(what, [&](SingleOpModel& m, int* in) {
      *in = m.AddInput(DataType::kFloat32, {1, c.h, c.w, c.cin});
      m.AddConstInput<float>(DataType::kFloat32, {c.cout, c.k, c.k, c.cin},
                             RandomFloats(static_cast<size_t>(c.cout) * c.k * c.k * c.cin, 1));
      m.AddConstInput<float>(DataType::kFloat32, {c.cout}, RandomFloats(static_cast<size_t>(c.cout), 2));
      const int out = m.AddOutput(DataType::kFloat32);
      m.SetBuiltinOp(tflite::BuiltinOperator::CONV_2D, 1, tflite::BuiltinOptions::Conv2DOptions,
                     tflite::CreateConv2DOptions(m.fbb(), tflite::Padding::SAME, c.stride, c.stride,
                                                 tflite::ActivationFunctionType::RELU6).Union());
      return out;
    }, DataType::kFloat32, false);
  }
}

TEST(IsaVariantsTest, DepthwiseFloat) {
  struct Case { int h, w, c, mult, k, stride, dilation; };
  for (const Case c : {Case{10, 12, 8, 1, 3, 1, 1}, Case{10, 12, 13, 1, 3, 1, 1}, Case{9, 9, 28, 1, 3, 2, 1},
                       Case{8, 20, 80, 1, 3, 1, 1}, Case{11, 11, 40, 1, 5, 1, 1}, Case{11, 11, 21, 1, 5, 2, 1},
                       Case{9, 9, 6, 2, 3, 1, 1}, Case{12, 12, 36, 1, 3, 1, 2}, Case{9, 9, 70, 1, 7, 1, 1},
                       // 5x5 channel planes: a masked last plane, planes split between two
                       // threads (7x7), stride 2 (14x14 -> 7x7), and a map wide enough that a
                       // plane is filled four output rows at a time.
                       Case{7, 7, 40, 1, 5, 1, 1}, Case{14, 14, 36, 1, 5, 2, 1}, Case{13, 70, 24, 1, 5, 1, 1}}) {
    const std::string what = "depthwise " + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" + std::to_string(c.c) +
                             " m" + std::to_string(c.mult) + " k" + std::to_string(c.k) + " s" +
                             std::to_string(c.stride) + " d" + std::to_string(c.dilation);
    const int cout = c.c * c.mult;
    ExpectVariantsAgree(what, [&](SingleOpModel& m, int* in) {
      *in = m.AddInput(DataType::kFloat32, {1, c.h, c.w, c.c});
      m.AddConstInput<float>(DataType::kFloat32, {1, c.k, c.k, cout},
                             RandomFloats(static_cast<size_t>(cout) * c.k * c.k, 3));
      m.AddConstInput<float>(DataType::kFloat32, {cout}, RandomFloats(static_cast<size_t>(cout), 4));
      const int out = m.AddOutput(DataType::kFloat32);
      m.SetBuiltinOp(tflite::BuiltinOperator::DEPTHWISE_CONV_2D, 2, tflite::BuiltinOptions::DepthwiseConv2DOptions,
                     tflite::CreateDepthwiseConv2DOptions(m.fbb(), tflite::Padding::SAME, c.stride, c.stride, c.mult,
                                                          tflite::ActivationFunctionType::RELU, c.dilation,
                                                          c.dilation).Union());
      return out;
    }, DataType::kFloat32, false);
  }
}

TEST(IsaVariantsTest, FullyConnectedFloat) {
  for (int batch : {1, 3, 14}) {
    for (int k : {7, 64, 100}) {
      for (int n : {5, 16, 33}) {
        const std::string what = "fc batch " + std::to_string(batch) + " k " + std::to_string(k) + " n " + std::to_string(n);
        ExpectVariantsAgree(what, [&](SingleOpModel& m, int* in) {
          *in = m.AddInput(DataType::kFloat32, {batch, k});
          m.AddConstInput<float>(DataType::kFloat32, {n, k}, RandomFloats(static_cast<size_t>(n) * k, 5));
          m.AddConstInput<float>(DataType::kFloat32, {n}, RandomFloats(static_cast<size_t>(n), 6));
          const int out = m.AddOutput(DataType::kFloat32);
          m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 1, tflite::BuiltinOptions::FullyConnectedOptions,
                         tflite::CreateFullyConnectedOptions(m.fbb()).Union());
          return out;
        }, DataType::kFloat32, false);
      }
    }
  }
}

Quantization PerTensor(float scale, int64_t zp) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zp};
  return q;
}
Quantization PerChannel(int channels, int dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.002f, 0.02f);
  Quantization q;
  for (int i = 0; i < channels; ++i) {
    q.scale.push_back(u(rng));
    q.zero_point.push_back(0);
  }
  q.quantized_dimension = dim;
  return q;
}

// uint8 per-tensor, and int8 with per-channel weights.
struct QuantFlavour {
  DataType type;
  bool per_channel;
  const char* name;
};
constexpr QuantFlavour kFlavours[] = {{DataType::kUInt8, false, "uint8"}, {DataType::kInt8, true, "int8/per-channel"}};

std::vector<int32_t> RandomBias(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> u(-3000, 3000);
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t& x : v) x = u(rng);
  return v;
}

Quantization ActivationQ(DataType t, float scale) { return PerTensor(scale, t == DataType::kUInt8 ? 131 : -5); }
Quantization WeightQ(const QuantFlavour& f, int channels, int dim) {
  return f.per_channel ? PerChannel(channels, dim, 9) : PerTensor(0.01f, 121);
}
Quantization BiasQ(const QuantFlavour& f, int channels, float in_scale) {
  Quantization w = WeightQ(f, channels, 0);
  Quantization q;
  for (float s : w.scale) {
    q.scale.push_back(s * in_scale);
    q.zero_point.push_back(0);
  }
  return q;
}

TEST(IsaVariantsTest, Conv2DQuantized) {
  struct Case { int h, w, cin, cout, k, stride; };
  for (const QuantFlavour& f : kFlavours) {
    for (const Case c : {Case{9, 11, 3, 8, 3, 1}, Case{9, 11, 8, 13, 3, 2}, Case{12, 12, 20, 40, 1, 1},
                         Case{7, 13, 16, 16, 3, 1}, Case{15, 15, 24, 36, 3, 1}, Case{1, 1, 300, 24, 1, 1}}) {
      const std::string what = std::string(f.name) + " conv " + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" +
                               std::to_string(c.cin) + " -> " + std::to_string(c.cout) + " k" + std::to_string(c.k);
      ExpectVariantsAgree(what, [&](SingleOpModel& m, int* in) {
        const float in_scale = 0.02f;
        *in = m.AddInput(f.type, {1, c.h, c.w, c.cin}, ActivationQ(f.type, in_scale));
        m.AddConstInput<uint8_t>(f.type, {c.cout, c.k, c.k, c.cin},
                                 RandomBytes(static_cast<size_t>(c.cout) * c.k * c.k * c.cin, 11), WeightQ(f, c.cout, 0));
        m.AddConstInput<int32_t>(DataType::kInt32, {c.cout}, RandomBias(c.cout, 12), BiasQ(f, c.cout, in_scale));
        const int out = m.AddOutput(f.type, {}, ActivationQ(f.type, 0.05f));
        m.SetBuiltinOp(tflite::BuiltinOperator::CONV_2D, f.per_channel ? 3 : 1, tflite::BuiltinOptions::Conv2DOptions,
                       tflite::CreateConv2DOptions(m.fbb(), tflite::Padding::SAME, c.stride, c.stride,
                                                   tflite::ActivationFunctionType::RELU6).Union());
        return out;
      }, f.type, true);
    }
  }
}

TEST(IsaVariantsTest, DepthwiseQuantized) {
  struct Case { int h, w, c, mult, k, stride; };
  for (const QuantFlavour& f : kFlavours) {
    for (const Case c : {Case{10, 12, 8, 1, 3, 1}, Case{10, 12, 16, 1, 3, 1}, Case{9, 9, 24, 1, 3, 2},
                         Case{8, 20, 40, 1, 3, 1}, Case{11, 11, 13, 1, 3, 1}, Case{11, 11, 32, 1, 5, 1},
                         Case{9, 9, 6, 2, 3, 1}, Case{9, 9, 72, 1, 3, 1}, Case{9, 9, 64, 1, 3, 1},
                         Case{8, 10, 136, 1, 3, 2}, Case{6, 6, 200, 1, 3, 1}}) {
      const std::string what = std::string(f.name) + " depthwise " + std::to_string(c.h) + "x" + std::to_string(c.w) +
                               "x" + std::to_string(c.c) + " m" + std::to_string(c.mult) + " k" + std::to_string(c.k) +
                               " s" + std::to_string(c.stride);
      const int cout = c.c * c.mult;
      ExpectVariantsAgree(what, [&](SingleOpModel& m, int* in) {
        const float in_scale = 0.02f;
        *in = m.AddInput(f.type, {1, c.h, c.w, c.c}, ActivationQ(f.type, in_scale));
        m.AddConstInput<uint8_t>(f.type, {1, c.k, c.k, cout}, RandomBytes(static_cast<size_t>(cout) * c.k * c.k, 13),
                                 WeightQ(f, cout, 3));
        m.AddConstInput<int32_t>(DataType::kInt32, {cout}, RandomBias(cout, 14), BiasQ(f, cout, in_scale));
        const int out = m.AddOutput(f.type, {}, ActivationQ(f.type, 0.05f));
        m.SetBuiltinOp(tflite::BuiltinOperator::DEPTHWISE_CONV_2D, f.per_channel ? 3 : 1,
                       tflite::BuiltinOptions::DepthwiseConv2DOptions,
                       tflite::CreateDepthwiseConv2DOptions(m.fbb(), tflite::Padding::SAME, c.stride, c.stride, c.mult,
                                                            tflite::ActivationFunctionType::RELU6).Union());
        return out;
      }, f.type, true);
    }
  }
}

TEST(IsaVariantsTest, FullyConnectedQuantized) {
  for (const QuantFlavour& f : kFlavours) {
    if (f.per_channel) continue;  // FULLY_CONNECTED's int8 weights are per-tensor here
    for (int batch : {1, 2, 7, 13}) {
      for (int k : {7, 64, 301}) {
        for (int n : {5, 16, 40}) {
          const std::string what = std::string(f.name) + " fc batch " + std::to_string(batch) + " k " +
                                   std::to_string(k) + " n " + std::to_string(n);
          ExpectVariantsAgree(what, [&](SingleOpModel& m, int* in) {
            const float in_scale = 0.02f;
            *in = m.AddInput(f.type, {batch, k}, ActivationQ(f.type, in_scale));
            m.AddConstInput<uint8_t>(f.type, {n, k}, RandomBytes(static_cast<size_t>(n) * k, 15), WeightQ(f, n, 0));
            m.AddConstInput<int32_t>(DataType::kInt32, {n}, RandomBias(n, 16), BiasQ(f, n, in_scale));
            const int out = m.AddOutput(f.type, {}, ActivationQ(f.type, 0.05f));
            m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 1, tflite::BuiltinOptions::FullyConnectedOptions,
                           tflite::CreateFullyConnectedOptions(m.fbb()).Union());
            return out;
          }, f.type, true);
        }
      }
    }
  }
}

TEST(IsaVariantsTest, FullyConnectedInt8) {
  const QuantFlavour f{DataType::kInt8, false, "int8"};
  for (int batch : {1, 2, 9}) {
    const std::string what = "int8 fc batch " + std::to_string(batch);
    ExpectVariantsAgree(what, [&](SingleOpModel& m, int* in) {
      *in = m.AddInput(f.type, {batch, 100}, ActivationQ(f.type, 0.02f));
      Quantization wq = PerTensor(0.01f, 0);
      m.AddConstInput<uint8_t>(f.type, {24, 100}, RandomBytes(2400, 17), wq);
      m.AddConstInput<int32_t>(DataType::kInt32, {24}, RandomBias(24, 18), PerTensor(0.0002f, 0));
      const int out = m.AddOutput(f.type, {}, ActivationQ(f.type, 0.05f));
      m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 4, tflite::BuiltinOptions::FullyConnectedOptions,
                     tflite::CreateFullyConnectedOptions(m.fbb()).Union());
      return out;
    }, f.type, true);
  }
}

// uint8 weights with zero point 0: where the byte dot product takes
// unsigned weights (dotprod) no column needs the row-sum correction.
TEST(IsaVariantsTest, FullyConnectedUint8WeightsZeroPoint0) {
  const DataType t = DataType::kUInt8;
  for (int batch : {1, 2, 5, 101}) {
    for (int k : {9, 100}) {
      const std::string what = "uint8 fc, weight zero point 0, batch " + std::to_string(batch) + " k " + std::to_string(k);
      ExpectVariantsAgree(what, [&](SingleOpModel& m, int* in) {
        *in = m.AddInput(t, {batch, k}, ActivationQ(t, 0.02f));
        m.AddConstInput<uint8_t>(t, {21, k}, RandomBytes(static_cast<size_t>(21) * k, 19), PerTensor(0.01f, 0));
        m.AddConstInput<int32_t>(DataType::kInt32, {21}, RandomBias(21, 20), PerTensor(0.0002f, 0));
        const int out = m.AddOutput(t, {}, ActivationQ(t, 0.05f));
        m.SetBuiltinOp(tflite::BuiltinOperator::FULLY_CONNECTED, 1, tflite::BuiltinOptions::FullyConnectedOptions,
                       tflite::CreateFullyConnectedOptions(m.fbb()).Union());
        return out;
      }, t, true);
    }
  }
}

}  // namespace
}  // namespace relite::cpu
