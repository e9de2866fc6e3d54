// The real PoseNet model (MobileNet v1 0.75, 353x481, uint8, with Coral's
// PosenetDecoderOp) on grace_hopper.bmp, through `relite run`: one person
// whose face keypoints sit on the face. No reference runtime has the custom
// op; the decoder's output here was cross-checked (identical keypoints and
// score) against an independent re-implementation of the algorithm fed the
// network's heatmaps/offsets, and those tensors match LiteRT bit for bit.
//
// The pose score is the mean over all 17 keypoints; in this head-and-
// shoulders portrait the hips, knees, ankles, elbows and wrists are out of
// frame, so it is ~0.36 (about 6 visible keypoints of 17), not above 0.5.
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/models_dir.h"

namespace relite {
namespace {

namespace fs = std::filesystem;

std::vector<float> ReadFloats(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), {});
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

int RunCommand(const std::string& cmd, std::string* output) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p) != nullptr) *output += buf;
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PosenetModel, GraceHopperHasOnePlausiblePose) {
  RELITE_REQUIRE_MODELS_DIR();
  const fs::path dir = testing::ModelsDir();
  const fs::path model = dir / "posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite";
  const fs::path image = dir / "grace_hopper.bmp";
  ASSERT_TRUE(fs::exists(model)) << model;
  ASSERT_TRUE(fs::exists(image)) << image;
  const fs::path out = fs::temp_directory_path() / "relite_posenet_grace_hopper";
  fs::remove_all(out);
  const std::string cmd = std::string(RELITE_CLI_PATH) + " run " + model.string() + " --input " + image.string() +
                          " --threads 2 --output-dir " + out.string();
  std::string log;
  ASSERT_EQ(RunCommand(cmd, &log), 0) << cmd << "\n" << log;
  const std::vector<float> points = ReadFloats(out / "output_0.bin");      // [1,20,17,2] (y, x) px
  const std::vector<float> kp_scores = ReadFloats(out / "output_1.bin");   // [1,20,17]
  const std::vector<float> pose_scores = ReadFloats(out / "output_2.bin");  // [1,20]
  const std::vector<float> count = ReadFloats(out / "output_3.bin");
  fs::remove_all(out);
  ASSERT_EQ(points.size(), 20u * 17 * 2);
  ASSERT_EQ(kp_scores.size(), 20u * 17);
  ASSERT_EQ(count.size(), 1u);
  EXPECT_EQ(count[0], 1.0f) << "one person in the portrait";
  ASSERT_GE(count[0], 1.0f);
  EXPECT_GT(pose_scores[0], 0.3f);
  // Nose, eyes and ears (keypoints 0-4): confident, on the face. In the
  // 481x353 input the face spans about x 140..350, y 80..160.
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("keypoint " + std::to_string(k));
    const float y = points[static_cast<size_t>(k) * 2], x = points[static_cast<size_t>(k) * 2 + 1];
    EXPECT_GT(kp_scores[static_cast<size_t>(k)], 0.7f);
    EXPECT_GT(y, 80.0f);
    EXPECT_LT(y, 160.0f);
    EXPECT_GT(x, 140.0f);
    EXPECT_LT(x, 350.0f);
  }
  // Anatomy: eyes above the nose; the person's left eye/ear on the image's
  // right; the left shoulder below the face.
  EXPECT_LT(points[1 * 2], points[0]);
  EXPECT_LT(points[2 * 2], points[0]);
  EXPECT_GT(points[1 * 2 + 1], points[2 * 2 + 1]);
  EXPECT_GT(points[3 * 2 + 1], points[4 * 2 + 1]);
  EXPECT_GT(points[5 * 2], points[0] + 60.0f);
  std::printf("pose score %.4f; nose (%.1f, %.1f) %.3f\n", pose_scores[0], points[0], points[1], kp_scores[0]);
}

}  // namespace
}  // namespace relite
