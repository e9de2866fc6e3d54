// Every input the fuzzers found (fuzz/regressions/) runs through load,
// allocate and invoke on the CPU and through the GPU and oneDNN delegates
// without a crash or sanitizer report; a failure must be an error naming its
// place.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz/fuzz_run.h"
#include "relite/onednn_delegate.h"
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

// Forced, so that its builders see every finding below AVX-512 too; where
// oneDNN is absent it declines every node (the CPU run again).
TEST(FuzzRegression, OnednnDelegateRunsEveryFinding) {
  OnednnDelegateOptions options;
  options.force = true;
  auto onednn = CreateOnednnDelegate(options);
  ASSERT_TRUE(onednn.ok()) << onednn.status().ToString();
  RunEach(onednn->get());
}

}  // namespace
}  // namespace relite
