// The real float models on the GPU delegate: each runs entirely on the GPU
// (one partition, the report says so) and matches the reference runtime's
// golden outputs: fp32 within 1e-3 + 1e-3*|b| (the CPU's bound), fp16 within
// the per-model bound stated below.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "tests/testing/gpu_test_util.h"
#include "tests/testing/models_dir.h"

namespace relite {
namespace {

namespace fs = std::filesystem;

struct FloatModel {
  const char* name;
  // fp16 bound: max |a-b| <= 1e-3 + fp16_scale * max|b| over each output
  // (1e-3: half's resolution near 1, for small probabilities). Half
  // storage keeps 11 significant bits (relative error 4.9e-4 per stored
  // value) and every layer stores its activations in half, so the error
  // compounds with depth and is best stated against an output's scale.
  // Measured on PoCL (float math on half-rounded values, as on any device),
  // worst case over the golden cases, then about 2.5x margin:
  //   face_detection_short_range 0.0014, face_detection_full_range 0.0021,
  //   hand_landmark_lite 0.0037, pose_landmark_lite 0.019 (landmarks in
  //   pixels: 2.9 px of 159), selfie_segmentation 0.077 (probabilities).
  float fp16_scale;
};

const FloatModel kModels[] = {
    {"face_detection_short_range", 0.005f}, {"face_detection_full_range", 0.005f}, {"hand_landmark_lite", 0.01f},
    {"pose_landmark_lite", 0.05f},          {"selfie_segmentation", 0.2f},
};

// pose_landmark_lite output 2 (256x256 segmentation logits, range -940..350)
// is ill-conditioned: the reference runtime's own builds disagree with its
// golden file by up to 0.046 (see tests/models/golden_float_test.cc). In fp32
// the GPU (another summation order) gets 0.104 on a few values: at most 0.05%
// of the values may exceed 1e-3 + 1e-3*|b|, by at most 0.2. In fp16 its
// logits move by up to 96 (7.5% of the range) on isolated pixels; what the
// output means, the mask (logit > 0), must agree on 99.9% of the pixels.
bool IllConditioned(const std::string& model, int output) { return model == "pose_landmark_lite" && output == 2; }

// Segmentation outputs checked as masks in fp16: (output, threshold).
struct Mask {
  const char* model;
  int output;
  float threshold;
  double min_agreement;
};
// selfie_segmentation: person probability > 0.5; measured agreement 99.8%.
constexpr Mask kMasks[] = {{"pose_landmark_lite", 2, 0.f, 0.999}, {"selfie_segmentation", 0, 0.5f, 0.995}};

std::vector<uint8_t> ReadBytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

struct Param {
  FloatModel model;
  GpuPrecision precision;
};

class GpuModelTest : public ::testing::TestWithParam<Param> {};

TEST_P(GpuModelTest, RunsFullyOnTheGpuAndMatchesGoldens) {
  RELITE_REQUIRE_MODELS_DIR();
  const Param p = GetParam();
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, p.precision);
  const bool fp16 = p.precision == GpuPrecision::kFp16;
  const fs::path dir = testing::ModelsDir();
  const std::string name = p.model.name;
  auto model = Model::FromFile((dir / (name + ".tflite")).string());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(2).AddDelegate(gpu).Build();
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  const DelegationReport& report = (*interp)->delegation_reports().back();
  EXPECT_EQ(report.num_partitions, 1) << report.ToString();
  EXPECT_EQ(report.num_delegated, report.num_operations) << report.ToString();
  EXPECT_NE(report.Summary().find("in 1 partition"), std::string::npos) << report.Summary();
  ASSERT_TRUE((*interp)->AllocateTensors().ok());
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(dir / "golden" / name)) {
    if (!entry.is_directory()) continue;
    const fs::path case_dir = entry.path();
    SCOPED_TRACE(name + "/" + case_dir.filename().string());
    for (int k = 0; k < (*interp)->num_inputs(); ++k) {
      const auto bytes = ReadBytes(case_dir / ("input_" + std::to_string(k) + ".bin"));
      Tensor* t = (*interp)->input_tensor(k);
      ASSERT_EQ(bytes.size(), t->bytes);
      std::memcpy(t->data, bytes.data(), bytes.size());
    }
    ASSERT_TRUE((*interp)->Invoke().ok());
    for (int k = 0; k < (*interp)->num_outputs(); ++k) {
      const auto bytes = ReadBytes(case_dir / ("output_" + std::to_string(k) + ".bin"));
      const Tensor* t = (*interp)->output_tensor(k);
      ASSERT_EQ(bytes.size(), t->bytes) << "output " << k;
      const float* want = reinterpret_cast<const float*>(bytes.data());
      const float* got = t->data_as<float>();
      const size_t n = bytes.size() / 4;
      double max_b = 0;
      for (size_t i = 0; i < n; ++i) max_b = std::max(max_b, std::fabs(static_cast<double>(want[i])));
      const bool ill = IllConditioned(name, k);
      const double atol = fp16 ? 1e-3 + p.model.fp16_scale * max_b : 1e-3, rtol = fp16 ? 0.0 : 1e-3;
      size_t bad = 0, first_bad = 0;
      double max_err = 0;
      for (size_t i = 0; i < n; ++i) {
        const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
        if (!(err <= atol + rtol * std::fabs(want[i])) && bad++ == 0) first_bad = i;
        if (err > max_err || std::isnan(err)) max_err = err;
      }
      std::printf("%s/%s %s output %d: max |a-b| = %.3g (%.2g of max|b| %.3g) over %zu values, %zu outside the bound\n",
                  name.c_str(), case_dir.filename().c_str(), fp16 ? "fp16" : "fp32", k, max_err, max_b > 0 ? max_err / max_b : 0.0,
                  max_b, n, bad);
      bool checked_as_mask = false;
      for (const Mask& m : kMasks) {
        if (!fp16 || name != m.model || k != m.output) continue;
        size_t agree = 0;
        for (size_t i = 0; i < n; ++i) agree += (got[i] > m.threshold) == (want[i] > m.threshold);
        const double agreement = static_cast<double>(agree) / static_cast<double>(n);
        std::printf("  mask (> %g) agreement %.5f\n", m.threshold, agreement);
        EXPECT_GE(agreement, m.min_agreement) << "output " << k;
        checked_as_mask = true;
      }
      if (ill && !fp16) {
        EXPECT_LE(static_cast<double>(bad), 0.0005 * static_cast<double>(n)) << "output " << k;
        EXPECT_LE(max_err, 0.2) << "output " << k;
        continue;
      }
      if (checked_as_mask && ill) continue;
      EXPECT_EQ(bad, 0u) << "output " << k << ": first at " << first_bad << " (got " << got[first_bad] << ", want "
                         << want[first_bad] << "), max |a-b| " << max_err;
    }
    ++cases;
  }
  EXPECT_GT(cases, 0);
}

std::vector<Param> AllParams() {
  std::vector<Param> out;
  for (GpuPrecision p : {GpuPrecision::kFp32, GpuPrecision::kFp16}) {
    for (const FloatModel& m : kModels) out.push_back({m, p});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(FloatModels, GpuModelTest, ::testing::ValuesIn(AllParams()), [](const auto& info) {
  return std::string(info.param.model.name) + (info.param.precision == GpuPrecision::kFp32 ? "_fp32" : "_fp16");
});

}  // namespace
}  // namespace relite
