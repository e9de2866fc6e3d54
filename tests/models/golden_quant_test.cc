// Every 8-bit model in the models folder, on every golden case, run through
// `relite run --input input_K.bin ... --output-dir`, must reproduce the
// reference TFLite runtime's outputs bit for bit. No tolerance: the 8-bit
// kernels follow the reference's integer arithmetic exactly (see
// docs/QUANTIZATION.md), so any difference is a bug.
//
// Also the sanity facts of ../shared/models/MODELS.md, through the CLI's image
// path: the classifiers' top-1 class and DeepLab's dog mask.
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
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

const char* const kQuantizedModels[] = {
    "mobilenet_v1_0.25_128_quant",  "mobilenet_v1_0.5_160_quant",         "mobilenet_v2_1.0_224_quant",
    "tf2_mobilenet_v2_1.0_224_ptq", "mobilenet_quant_v1_224_head_layers", "deeplabv3_mnv2_pascal_quant",
    "keras_lstm_mnist_ptq",         "split_concat",
};

std::vector<uint8_t> ReadBytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

std::string ReadText(const fs::path& path) {
  std::ifstream f(path);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

int RunCommand(const std::string& cmd, std::string* output) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p) != nullptr) *output += buf;
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The dtypes of meta.json's "outputs" entries, in order (the file is written
// by the golden generator: one "dtype" key per input, then per output).
std::vector<std::string> OutputDtypes(const fs::path& meta) {
  const std::string text = ReadText(meta);
  std::vector<std::string> dtypes;
  size_t pos = text.find("\"outputs\"");
  while (pos != std::string::npos) {
    pos = text.find("\"dtype\"", pos);
    if (pos == std::string::npos) break;
    const size_t open = text.find('"', text.find(':', pos) + 1);
    const size_t close = text.find('"', open + 1);
    dtypes.push_back(text.substr(open + 1, close - open - 1));
    pos = close;
  }
  return dtypes;
}

int64_t Element(const std::vector<uint8_t>& bytes, const std::string& dtype, size_t i) {
  auto get = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, bytes.data() + i * sizeof(v), sizeof(v));
    return static_cast<int64_t>(v);
  };
  if (dtype == "int8") return get(int8_t{});
  if (dtype == "int16") return get(int16_t{});
  if (dtype == "int32") return get(int32_t{});
  if (dtype == "int64") return get(int64_t{});
  return get(uint8_t{});
}

size_t ElementSize(const std::string& dtype) {
  if (dtype == "int16") return 2;
  if (dtype == "int32" || dtype == "float32") return 4;
  if (dtype == "int64") return 8;
  return 1;
}

class GoldenQuantTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenQuantTest, BitExactWithReferenceRuntime) {
  RELITE_REQUIRE_MODELS_DIR();
  const fs::path dir = testing::ModelsDir();
  const std::string model = GetParam();
  const fs::path model_file = dir / (model + ".tflite");
  const fs::path golden = dir / "golden" / model;
  ASSERT_TRUE(fs::exists(model_file)) << model_file;
  ASSERT_TRUE(fs::is_directory(golden)) << golden;
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(golden)) {
    if (!entry.is_directory()) continue;
    const fs::path case_dir = entry.path();
    SCOPED_TRACE(model + "/" + case_dir.filename().string());
    std::string cmd = std::string(RELITE_CLI_PATH) + " run " + model_file.string() + " --threads 2";
    for (int k = 0; fs::exists(case_dir / ("input_" + std::to_string(k) + ".bin")); ++k) {
      cmd += " --input " + (case_dir / ("input_" + std::to_string(k) + ".bin")).string();
    }
    const fs::path out_dir = fs::temp_directory_path() / ("relite_golden_q_" + model + "_" + case_dir.filename().string());
    fs::remove_all(out_dir);
    cmd += " --output-dir " + out_dir.string();
    std::string log;
    ASSERT_EQ(RunCommand(cmd, &log), 0) << cmd << "\n" << log;
    const std::vector<std::string> dtypes = OutputDtypes(case_dir / "meta.json");
    int outputs = 0;
    for (int k = 0; fs::exists(case_dir / ("output_" + std::to_string(k) + ".bin")); ++k, ++outputs) {
      const auto expected = ReadBytes(case_dir / ("output_" + std::to_string(k) + ".bin"));
      const auto actual = ReadBytes(out_dir / ("output_" + std::to_string(k) + ".bin"));
      ASSERT_EQ(actual.size(), expected.size()) << "output " << k;
      ASSERT_LT(static_cast<size_t>(k), dtypes.size()) << "meta.json lists too few outputs";
      const std::string& dtype = dtypes[static_cast<size_t>(k)];
      const size_t n = expected.size() / ElementSize(dtype);
      size_t differ = 0, first = 0;
      int64_t max_diff = 0;
      for (size_t i = 0; i < n; ++i) {
        const int64_t a = Element(actual, dtype, i), b = Element(expected, dtype, i);
        if (a != b) {
          if (differ++ == 0) first = i;
          max_diff = std::max(max_diff, a > b ? a - b : b - a);
        }
      }
      EXPECT_EQ(differ, 0u) << "output " << k << " (" << dtype << "): " << differ << " of " << n
                            << " values differ, max |a-b| " << max_diff << "; first at " << first << " (got "
                            << Element(actual, dtype, first) << ", want " << Element(expected, dtype, first) << ")";
      std::printf("%s/%s output %d: %zu of %zu %s values differ\n", model.c_str(), case_dir.filename().c_str(), k,
                  differ, n, dtype.c_str());
    }
    EXPECT_GT(outputs, 0);
    fs::remove_all(out_dir);
    ++cases;
  }
  EXPECT_GT(cases, 0) << "no golden cases for " << model;
}

INSTANTIATE_TEST_SUITE_P(QuantizedModels, GoldenQuantTest, ::testing::ValuesIn(kQuantizedModels),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

struct ClassifierCase {
  const char* model;
  const char* image;
  const char* label;
};

// Through the CLI's own image path (decode, resize, uint8), as a user runs it.
TEST(QuantizedClassifiers, TopOneClass) {
  RELITE_REQUIRE_MODELS_DIR();
  const fs::path dir = testing::ModelsDir();
  const ClassifierCase cases[] = {
      {"mobilenet_v2_1.0_224_quant", "grace_hopper.bmp", "military uniform"},
      {"tf2_mobilenet_v2_1.0_224_ptq", "grace_hopper.bmp", "military uniform"},
      {"mobilenet_v2_1.0_224_quant", "cat.bmp", "Egyptian cat"},
      {"tf2_mobilenet_v2_1.0_224_ptq", "cat.bmp", "Egyptian cat"},
      {"mobilenet_v1_0.5_160_quant", "cat.bmp", "Egyptian cat"},
  };
  for (const ClassifierCase& c : cases) {
    SCOPED_TRACE(std::string(c.model) + " " + c.image);
    const std::string cmd = std::string(RELITE_CLI_PATH) + " run " + (dir / (std::string(c.model) + ".tflite")).string() +
                            " --input " + (dir / c.image).string() + " --labels " +
                            (dir / "imagenet_labels.txt").string() + " --top 1";
    std::string out;
    ASSERT_EQ(RunCommand(cmd, &out), 0) << out;
    const size_t top = out.find("top-1");
    ASSERT_NE(top, std::string::npos) << out;
    const std::string line = out.substr(out.find('\n', top) + 1);
    EXPECT_NE(line.substr(0, line.find('\n')).find(c.label), std::string::npos) << out;
  }
}

// ../shared/models/dog_segmentation_mask.bmp is a 128x128 trimap: 0 = dog,
// 1 = background, 2 = border. DeepLab (PASCAL VOC) labels the dog as class 12.
TEST(QuantizedSegmentation, DeeplabLabelsTheDog) {
  RELITE_REQUIRE_MODELS_DIR();
  const fs::path dir = testing::ModelsDir();
  const fs::path out_dir = fs::temp_directory_path() / "relite_deeplab_dog";
  fs::remove_all(out_dir);
  const std::string cmd = std::string(RELITE_CLI_PATH) + " run " +
                          (dir / "deeplabv3_mnv2_pascal_quant.tflite").string() + " --input " +
                          (dir / "dog_segmentation.bmp").string() + " --output-dir " + out_dir.string();
  std::string out;
  ASSERT_EQ(RunCommand(cmd, &out), 0) << out;
  const auto labels = ReadBytes(out_dir / "output_0.bin");
  ASSERT_EQ(labels.size(), size_t{513} * 513 * 8);
  const auto bmp = ReadBytes(dir / "dog_segmentation_mask.bmp");
  ASSERT_GT(bmp.size(), 54u);
  uint32_t offset = 0;
  std::memcpy(&offset, bmp.data() + 10, 4);
  ASSERT_GE(bmp.size(), offset + size_t{128} * 128);
  size_t dog = 0, dog_hits = 0, background = 0, background_hits = 0, class12 = 0;
  for (size_t i = 0; i < size_t{513} * 513; ++i) class12 += Element(labels, "int64", i) == 12;
  for (int y = 0; y < 128; ++y) {
    for (int x = 0; x < 128; ++x) {
      const uint8_t m = bmp[offset + static_cast<size_t>(127 - y) * 128 + static_cast<size_t>(x)];  // rows bottom-up
      const size_t oy = static_cast<size_t>((y + 0.5) * 513 / 128), ox = static_cast<size_t>((x + 0.5) * 513 / 128);
      const bool is12 = Element(labels, "int64", oy * 513 + ox) == 12;
      if (m == 0) ++dog, dog_hits += is12;
      if (m == 1) ++background, background_hits += is12;
    }
  }
  const double fraction = static_cast<double>(class12) / (513.0 * 513.0);
  std::printf("deeplab: %.1f%% of pixels are class 12; %.1f%% of the mask's dog, %.1f%% of its background\n",
              100 * fraction, 100.0 * dog_hits / dog, 100.0 * background_hits / background);
  EXPECT_GT(fraction, 0.35);
  EXPECT_LT(fraction, 0.65);
  EXPECT_GT(static_cast<double>(dog_hits) / dog, 0.9);
  EXPECT_LT(static_cast<double>(background_hits) / background, 0.05);
  fs::remove_all(out_dir);
}

}  // namespace
}  // namespace relite
