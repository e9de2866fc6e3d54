// Every input the fuzzers found (fuzz/regressions/) runs through load,
// allocate and invoke on the CPU and through the GPU delegate without a
// crash or sanitizer report; a failure must be an error naming its place.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz/fuzz_run.h"
#include "tests/testing/gpu_test_util.h"

namespace relite {
namespace {

std::vector<std::string> RegressionFiles() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(RELITE_SOURCE_DIR) + "/fuzz/regressions")) {
    if (e.path().extension() == ".tflite") files.push_back(e.path().string());
  }
  return files;
}

void RunEach(Delegate* delegate) {
  const auto files = RegressionFiles();
  ASSERT_GE(files.size(), 3u);
  for (const std::string& path : files) {
    std::ifstream f(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    fuzz::RunConfig config;
    config.limits = fuzz::FuzzLimits();
    config.delegate = delegate;
    const fuzz::RunResult r = fuzz::RunModel(bytes.data(), bytes.size(), config);
    if (r.reached != fuzz::Stage::kDone) {
      EXPECT_TRUE(fuzz::NamesLocation(r.status.message())) << path << ": " << r.status.ToString();
    }
  }
}

TEST(FuzzRegression, CpuRunsEveryFinding) { RunEach(nullptr); }

TEST(FuzzRegression, GpuDelegateRunsEveryFinding) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GpuPrecision::kFp32);
  RunEach(gpu);
}

}  // namespace
}  // namespace relite
