// The GPU delegate's kernel cache (kGpuExperimentalSerialization) on PoCL:
// warm starts load instead of compiling and give identical outputs; every
// kind of bad entry is detected, warned about once and rebuilt; concurrent
// writers, permissions, unusable directories, the size bound, tuning.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "relite/gpu_delegate.h"
#include "relite/model_writer.h"
#include "relite/relite.h"
#include "src/delegates/gpu/cache/kernel_cache.h"
#include "tests/testing/gpu_test_util.h"

extern char** environ;

namespace relite {
namespace {

namespace fs = std::filesystem;
namespace w = writer;

// conv 3x3 -> relu -> conv 1x1 (+ bias) -> add with the input; `seed` varies the weights.
std::vector<uint8_t> SmallModel(int seed) {
  ModelWriter m;
  const int in = m.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "input");
  std::vector<float> w1(4 * 9 * 4), w2(4 * 4), b2(4);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = 0.03f * static_cast<float>(static_cast<int>((i * 7 + seed) % 11) - 5);
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = 0.1f * static_cast<float>(static_cast<int>((i + seed) % 5) - 2);
  for (size_t i = 0; i < b2.size(); ++i) b2[i] = 0.01f * static_cast<float>(i);
  const int f1 = m.AddConstantOf<float>({4, 3, 3, 4}, "w1", w1);
  const int c1 = m.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "conv1");
  m.AddOp(BuiltinOp::kConv2D, {in, f1}, {c1}, w::Conv2DOptions{w::Padding::kSame, 1, 1, w::Activation::kRelu});
  const int f2 = m.AddConstantOf<float>({4, 1, 1, 4}, "w2", w2);
  const int bias = m.AddConstantOf<float>({4}, "b2", b2);
  const int c2 = m.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "conv2");
  m.AddOp(BuiltinOp::kConv2D, {c1, f2, bias}, {c2}, w::Conv2DOptions{});
  const int out = m.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "out");
  m.AddOp(BuiltinOp::kAdd, {c2, in}, {out}, w::ArithmeticOptions{});
  m.SetInputs({in});
  m.SetOutputs({out});
  auto bytes = m.Finish();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "relite_cache_test_XXXXXX").string();
    path_ = mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& s) const { return path_ + "/" + s; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct CacheRun {
  std::vector<float> output;
  GpuDelegateStats stats;
  bool ok = false;
};

// Builds `model` with a fresh GPU delegate using the cache in `dir`, runs it
// on a fixed input and returns the output and what the delegate reports.
CacheRun RunWithCache(const std::vector<uint8_t>& model_bytes, const std::string& dir, const std::string& token = "",
                 uint64_t max_bytes = uint64_t{512} << 20,
                 GpuInferencePreference preference = GpuInferencePreference::kFastSingleAnswer) {
  CacheRun r;
  GpuDelegateOptions options;
  options.experimental_flags = kGpuExperimentalSerialization;
  options.serialization_dir = dir;
  options.model_token = token;
  options.serialization_max_bytes = max_bytes;
  options.inference_preference = preference;
  auto gpu = CreateGpuDelegate(options);
  if (!gpu.ok()) {
    ADD_FAILURE() << gpu.status().ToString();
    return r;
  }
  auto model = Model::FromBuffer(model_bytes.data(), model_bytes.size(), "cache_test.tflite");
  if (!model.ok()) {
    ADD_FAILURE() << model.status().ToString();
    return r;
  }
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(1).AddDelegate(gpu->get()).Build();
  if (!interp.ok() || !(*interp)->AllocateTensors().ok()) {
    ADD_FAILURE() << "cannot build the model on the GPU";
    return r;
  }
  Tensor* in = (*interp)->input_tensor(0);
  for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = 0.01f * static_cast<float>(i % 97) - 0.4f;
  if (!(*interp)->Invoke().ok()) {
    ADD_FAILURE() << "Invoke failed";
    return r;
  }
  const Tensor* out = (*interp)->output_tensor(0);
  r.output.assign(out->data_as<float>(), out->data_as<float>() + out->num_elements());
  r.stats = GetGpuDelegateStats(**gpu);
  r.ok = true;
  return r;
}

std::vector<std::string> CacheFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& f : gpu::KernelCache::List(dir)) out.push_back(f.path);
  return out;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool HasWarning(const GpuDelegateStats& s, const std::string& fragment) {
  for (const std::string& w : s.cache_warnings) {
    if (w.find(fragment) != std::string::npos) return true;
  }
  return false;
}

#define SKIP_WITHOUT_GPU()                                     \
  RELITE_GPU_DELEGATE_OR_SKIP(relite_gpu_probe_, GpuPrecision::kFp32); \
  (void)relite_gpu_probe_

TEST(GpuKernelCache, WarmStartLoadsInsteadOfCompilingWithIdenticalOutputs) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  const auto model = SmallModel(1);
  const CacheRun cold = RunWithCache(model, dir.path());
  ASSERT_TRUE(cold.ok);
  EXPECT_EQ(cold.stats.cache_misses, 1);
  EXPECT_GT(cold.stats.programs_compiled, 0);
  EXPECT_EQ(cold.stats.programs_from_cache, 0);
  ASSERT_EQ(CacheFiles(dir.path()).size(), 1u);
  const CacheRun warm = RunWithCache(model, dir.path());
  ASSERT_TRUE(warm.ok);
  EXPECT_EQ(warm.stats.cache_hits, 1);
  EXPECT_EQ(warm.stats.programs_compiled, 0) << "a warm start must not compile";
  EXPECT_EQ(warm.stats.programs_from_cache, cold.stats.programs_compiled);
  EXPECT_EQ(warm.output, cold.output);  // bit-identical
  EXPECT_TRUE(warm.stats.cache_warnings.empty());
}

TEST(GpuKernelCache, DirectoryIsPrivateAndFilesAre0600) {
  SKIP_WITHOUT_GPU();
  TempDir base;
  const std::string dir = base / "nested/cache";
  ASSERT_TRUE(RunWithCache(SmallModel(1), dir).ok);
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  const auto files = CacheFiles(dir);
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(stat(files[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(GpuKernelCache, DirectoryOthersCanWriteIsRefused) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  const CacheRun r = RunWithCache(SmallModel(1), dir.path());
  ASSERT_TRUE(r.ok);  // the delegate still works
  EXPECT_FALSE(r.stats.cache_enabled);
  EXPECT_TRUE(HasWarning(r.stats, "other users can write it")) << ::testing::PrintToString(r.stats.cache_warnings);
  EXPECT_TRUE(CacheFiles(dir.path()).empty());
}

TEST(GpuKernelCache, UnusableDirectoryIsAWarning) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  WriteAll(dir / "a_file", "x");
  for (const std::string& bad : {dir / "a_file", dir / "a_file/below", std::string("/proc/relite_cache_test")}) {
    const CacheRun r = RunWithCache(SmallModel(1), bad);
    ASSERT_TRUE(r.ok) << bad;
    EXPECT_FALSE(r.stats.cache_enabled) << bad;
    EXPECT_TRUE(HasWarning(r.stats, "is not used")) << bad << ": " << ::testing::PrintToString(r.stats.cache_warnings);
  }
}

// Each kind of bad entry: warned about, ignored, rebuilt (the next start hits).
TEST(GpuKernelCache, BadEntriesAreDetectedAndRebuilt) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  const auto model = SmallModel(1);
  const CacheRun reference = RunWithCache(model, dir.path());
  ASSERT_TRUE(reference.ok);
  const std::string path = CacheFiles(dir.path()).at(0);
  const std::string good = ReadAll(path);
  gpu::CacheEntry entry;
  gpu::CacheKey key;
  // The key of the file, read back from it: config and fingerprint are in the header.
  {
    key.fingerprint = gpu::Fingerprint(model.data(), model.size());
    key.token = key.fingerprint;
    // The config text sits after the magic (8) and the version (4), as a u64-prefixed string.
    uint64_t n = 0;
    std::memcpy(&n, good.data() + 12, 8);
    key.config = good.substr(20, static_cast<size_t>(n));
    ASSERT_TRUE(gpu::DecodeCacheEntry(good, key, &entry).ok());
  }
  auto forged = [&](const std::string& config_edit_from, const std::string& config_edit_to) {
    gpu::CacheKey other = key;
    const size_t at = other.config.find(config_edit_from);
    EXPECT_NE(at, std::string::npos) << config_edit_from;
    other.config.replace(at, config_edit_from.size(), config_edit_to);
    return gpu::EncodeCacheEntry(other, entry);
  };
  std::string flipped = good;
  for (size_t i = good.size() / 3; i < good.size() / 3 + 8; ++i) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  const struct {
    const char* what;
    std::string bytes;
    const char* warning;
  } cases[] = {
      {"truncated", good.substr(0, good.size() / 2), "checksum"},
      {"bytes flipped in the middle", flipped, "checksum"},
      {"another relite version", forged("relite 0.1.0", "relite 0.0.9"), "another configuration"},
      {"another device name", forged("device ", "device Other GPU "), "another configuration"},
      {"empty", "", "not a relite kernel cache file"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    WriteAll(path, c.bytes);
    const CacheRun bad = RunWithCache(model, dir.path());
    ASSERT_TRUE(bad.ok);
    EXPECT_EQ(bad.stats.cache_hits, 0);
    EXPECT_TRUE(HasWarning(bad.stats, c.warning)) << ::testing::PrintToString(bad.stats.cache_warnings);
    EXPECT_EQ(bad.output, reference.output);
    EXPECT_GT(bad.stats.programs_compiled, 0);
    const CacheRun again = RunWithCache(model, dir.path());  // rebuilt: valid again
    EXPECT_EQ(again.stats.cache_hits, 1);
    EXPECT_TRUE(again.stats.cache_warnings.empty());
  }
}

TEST(GpuKernelCache, TwoModelsUnderOneTokenAreNeverConfused) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  const auto a = SmallModel(1), b = SmallModel(2);
  const CacheRun ra = RunWithCache(a, dir.path(), "shared-token");
  const CacheRun rb = RunWithCache(b, dir.path(), "shared-token");
  ASSERT_TRUE(ra.ok && rb.ok);
  EXPECT_TRUE(HasWarning(rb.stats, "another model under the same token")) << ::testing::PrintToString(rb.stats.cache_warnings);
  TempDir plain;
  EXPECT_EQ(rb.output, RunWithCache(b, plain.path()).output);  // b's own result, not a's kernels' on a's weights
  EXPECT_NE(ra.output, rb.output);
  const CacheRun rb2 = RunWithCache(b, dir.path(), "shared-token");
  EXPECT_EQ(rb2.stats.cache_hits, 1);
}

// Two processes (the CLI, started together) build the same entry at once.
TEST(GpuKernelCache, ConcurrentWritersLeaveOneValidEntry) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  const auto model = SmallModel(3);
  WriteAll(dir / "model.tflite", std::string(model.begin(), model.end()));
  const std::string cache = dir / "cache";
  std::vector<pid_t> children;
  for (int k = 0; k < 2; ++k) {
    const std::string log = dir / ("log" + std::to_string(k));
    std::vector<std::string> args = {testing::CliPath(), "run", dir / "model.tflite", "--delegate", "gpu", "--serialization-dir", cache};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    pid_t pid = -1;
    ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadAll(dir / "log0") << ReadAll(dir / "log1");
  }
  EXPECT_EQ(CacheFiles(cache).size(), 1u);
  for (const auto& e : fs::recursive_directory_iterator(cache)) {
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "temporary file left: " << e.path();
  }
  const CacheRun after = RunWithCache(model, cache);
  EXPECT_EQ(after.stats.cache_hits, 1);
  EXPECT_TRUE(after.stats.cache_warnings.empty()) << ::testing::PrintToString(after.stats.cache_warnings);
}

TEST(GpuKernelCache, SizeBoundEvictsTheLeastRecentlyUsed) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  const CacheRun first = RunWithCache(SmallModel(1), dir.path());
  ASSERT_TRUE(first.ok);
  const uint64_t one = gpu::KernelCache::List(dir.path()).at(0).bytes;
  // Room for two entries: the third start evicts the one used least recently.
  for (int seed : {2, 3}) ASSERT_TRUE(RunWithCache(SmallModel(seed), dir.path(), "", 2 * one + one / 2).ok);
  const auto files = gpu::KernelCache::List(dir.path());
  ASSERT_EQ(files.size(), 2u);
  uint64_t total = 0;
  for (const auto& f : files) total += f.bytes;
  EXPECT_LE(total, 2 * one + one / 2);
  EXPECT_EQ(RunWithCache(SmallModel(1), dir.path()).stats.cache_hits, 0) << "the oldest entry was the one evicted";
  int removed = 0;
  ASSERT_TRUE(ClearGpuDelegateCache(dir.path(), &removed).ok());
  EXPECT_EQ(removed, 3);
  EXPECT_TRUE(CacheFiles(dir.path()).empty());
}

TEST(GpuKernelCache, TuningIsStoredAndReused) {
  SKIP_WITHOUT_GPU();
  setenv("RELITE_GPU_TUNE_ANY_DEVICE", "1", 1);  // PoCL is a CPU device: tune it anyway
  TempDir dir;
  const auto model = SmallModel(4);
  const CacheRun tuned = RunWithCache(model, dir.path(), "", uint64_t{512} << 20, GpuInferencePreference::kSustainedSpeed);
  const CacheRun reused = RunWithCache(model, dir.path(), "", uint64_t{512} << 20, GpuInferencePreference::kSustainedSpeed);
  unsetenv("RELITE_GPU_TUNE_ANY_DEVICE");
  ASSERT_TRUE(tuned.ok && reused.ok);
  EXPECT_GT(tuned.stats.launches_tuned, 0);
  EXPECT_EQ(reused.stats.launches_tuned, 0) << "the second start reads the tuning from the cache";
  EXPECT_EQ(reused.stats.launches_tuned_cached, tuned.stats.launches_tuned + tuned.stats.launches_tuned_cached);
  EXPECT_EQ(reused.output, tuned.output);
  TempDir plain;
  const CacheRun untuned = RunWithCache(model, plain.path());
  ASSERT_TRUE(untuned.ok);
  for (size_t i = 0; i < untuned.output.size(); ++i) EXPECT_NEAR(tuned.output[i], untuned.output[i], 1e-5f);
}

}  // namespace
}  // namespace relite
