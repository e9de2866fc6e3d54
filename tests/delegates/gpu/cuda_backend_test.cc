// The CUDA backend where there is no NVIDIA GPU (CI, the development
// machine): every program the GPU delegate builds for the real models, in
// fp32 and fp16, compiles with NVRTC for an H200 (sm_90), through the same
// partition build (boundary conversions, folded clamps, residual ADDs, fake
// quants) as on the device; and asking for the CUDA backend without a GPU is
// an Unavailable error with its reason, while auto falls back to OpenCL.
// On a machine with one, the GPU test suite runs again on CUDA
// (RELITE_GPU_BACKEND=cuda, tests/CMakeLists.txt).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "relite/gpu_delegate.h"
#include "relite/interpreter.h"
#include "relite/model.h"
#include "relite/op_resolver.h"
#include "src/delegates/gpu/backend.h"
#include "src/delegates/gpu/cuda/cuda_backend.h"
#include "src/delegates/gpu/gpu_delegate_internal.h"
#include "tests/testing/models_dir.h"

namespace relite {
namespace {

namespace fs = std::filesystem;

bool CudaRequired() {
  const char* env = std::getenv("RELITE_REQUIRE_CUDA");
  return env != nullptr && std::string(env) == "1";
}

// Compiles what CreateLaunch is given and keeps no device state: buffers are
// numbers, runs do nothing.
class CompileOnlyBackend final : public gpu::Backend {
 public:
  CompileOnlyBackend(gpu::Precision precision, std::string arch) : precision_(precision), arch_(std::move(arch)) {
    info_.backend = "cuda";
    info_.name = "NVRTC " + arch_ + " (compile only)";
    info_.is_gpu = true;
  }
  const gpu::DeviceInfo& device() const override { return info_; }
  gpu::Precision precision() const override { return precision_; }
  StatusOr<int> CreateBuffer(size_t) override { return buffers_++; }
  void ReleaseBuffer(int) override {}
  Status Write(int, const void*, size_t, bool) override { return Status::Ok(); }
  Status Read(int, void*, size_t) override { return Status::Ok(); }
  StatusOr<int> CreateLaunch(const gpu::KernelLaunch& launch, const std::vector<gpu::BoundArg>&, gpu::CacheEntry*) override {
    const std::string text = gpu::cuda::CudaProgramText(launch, precision_);
    if (compiled_.insert(text).second) {
      const auto start = std::chrono::steady_clock::now();
      StatusOr<std::string> cubin = gpu::cuda::CompileCudaProgram(launch, precision_, arch_);
      compile_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (!cubin.ok()) return cubin.status();
      if (cubin->empty()) return InternalError("empty cubin for " + launch.entry);
      entries_.insert(launch.entry);
    }
    return launches_++;
  }
  void SetTuning(bool) override {}
  bool tuning() const override { return false; }
  std::string CacheConfig() const override { return "compile only"; }
  const gpu::BackendTimings& timings() const override { return timings_; }
  void ReleaseLaunch(int) override {}
  Status Enqueue(int) override { return Status::Ok(); }
  Status Finish() override { return Status::Ok(); }
  StatusOr<int> CreateRun(const gpu::RunPlan&) override { return runs_++; }
  void ReleaseRun(int) override {}
  Status Run(int, const std::vector<const void*>&, const std::vector<void*>&) override { return Status::Ok(); }
  size_t device_bytes() const override { return 0; }
  size_t peak_device_bytes() const override { return 0; }
  int num_programs() const override { return static_cast<int>(compiled_.size()); }

  double compile_ms() const { return compile_ms_; }
  const std::set<std::string>& entries() const { return entries_; }

 private:
  gpu::Precision precision_;
  std::string arch_;
  gpu::DeviceInfo info_;
  gpu::BackendTimings timings_;
  int buffers_ = 0, launches_ = 0, runs_ = 0;
  std::set<std::string> compiled_, entries_;
  double compile_ms_ = 0;
};

std::string Join(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : " ") + n;
  return s;
}

TEST(CudaBackend, EveryProgramOfTheRealModelsCompilesWithNvrtc) {
  RELITE_REQUIRE_MODELS_DIR();
  if (!gpu::cuda::CudaBackendBuilt()) GTEST_SKIP() << "relite was built without the CUDA headers";
  if (Status nvrtc = gpu::cuda::NvrtcStatus(); !nvrtc.ok()) {
#if defined(__x86_64__)
    // The development machines and CI have the CUDA toolkit's NVRTC.
    FAIL() << nvrtc.ToString();
#else
    GTEST_SKIP() << "no NVRTC for this architecture here (the aarch64 suite runs under qemu): " << nvrtc.ToString();
#endif
  }
  std::vector<fs::path> models;
  for (const auto& e : fs::directory_iterator(testing::ModelsDir())) {
    if (e.path().extension() == ".tflite") models.push_back(e.path());
  }
  std::sort(models.begin(), models.end());
  ASSERT_FALSE(models.empty());
  std::set<std::string> entries;
  for (gpu::Precision precision : {gpu::Precision::kFp32, gpu::Precision::kFp16}) {
    auto backend = std::make_shared<CompileOnlyBackend>(precision, "sm_90");
    GpuDelegateOptions options;
    options.precision = precision == gpu::Precision::kFp16 ? GpuPrecision::kFp16 : GpuPrecision::kFp32;
    std::unique_ptr<Delegate> delegate = gpu::CreateGpuDelegateOnBackend(options, backend);
    int partitions = 0;
    for (const fs::path& path : models) {
      SCOPED_TRACE(path.filename().string());
      auto model = Model::FromFile(path.string());
      ASSERT_TRUE(model.ok()) << model.status().ToString();
      BuiltinOpResolver resolver;
      // Models made to fail (custom ops relite lacks) fail without the GPU too.
      if (!InterpreterBuilder(**model, resolver).Build().ok()) continue;
      auto interp = InterpreterBuilder(**model, resolver).AddDelegate(delegate.get()).Build();
      if (!interp.ok()) {
        // NVRTC errors surface here, naming the partition and kernel.
        ADD_FAILURE() << interp.status().ToString();
        continue;
      }
      Status s = (*interp)->AllocateTensors();
      EXPECT_TRUE(s.ok()) << s.ToString();
      partitions += GetGpuDelegateStats(*delegate).partitions;
    }
    EXPECT_GT(backend->num_programs(), 20);
    EXPECT_GT(partitions, 0);
    std::printf("%s: %d distinct programs (%zu kernels: %s) compiled in %.0f ms\n",
                precision == gpu::Precision::kFp16 ? "fp16" : "fp32", backend->num_programs(), backend->entries().size(),
                Join(backend->entries()).c_str(), backend->compile_ms());
    entries.insert(backend->entries().begin(), backend->entries().end());
  }
  // The real models reach the main templates (a template no model uses is
  // covered by the device run of the op tests).
  for (const char* e : {"conv_2d", "depthwise_conv_2d", "binary", "to_gpu_layout", "from_gpu_layout", "pool_2d"}) {
    EXPECT_TRUE(entries.count(e)) << e;
  }
}

TEST(CudaBackend, WithoutAGpuCudaIsUnavailableWithItsReasonAndAutoFallsBack) {
  GpuDelegateOptions options;
  options.backend = GpuBackend::kCuda;
  auto cuda = CreateGpuDelegate(options);
  if (cuda.ok()) {
    EXPECT_EQ(GpuDelegateBackend(**cuda), "cuda");
    EXPECT_NE(GpuDelegateDevice(**cuda).find("CUDA"), std::string::npos) << GpuDelegateDevice(**cuda);
    GTEST_SKIP() << "this machine has a CUDA device: " << GpuDelegateDevice(**cuda);
  }
  if (CudaRequired()) FAIL() << "RELITE_REQUIRE_CUDA=1 but: " << cuda.status().ToString();
  EXPECT_EQ(cuda.status().code(), StatusCode::kUnavailable) << cuda.status().ToString();
  EXPECT_NE(cuda.status().message().find("CUDA"), std::string::npos) << cuda.status().ToString();
  options.backend = GpuBackend::kAuto;
  auto any = CreateGpuDelegate(options);
  if (any.ok()) {
    EXPECT_EQ(GpuDelegateBackend(**any), "opencl");
  }
}

// Programmatic dependent launch: the entry's first statement waits for the
// grid before it (the other kernel of the program is left alone), unless
// RELITE_CUDA_PDL=0.
TEST(CudaBackend, EntryBeginsWithTheGridWaitUnlessTurnedOff) {
  gpu::KernelLaunch launch;
  launch.entry = "scale";
  launch.source =
      "KERNEL void helper(GLOBAL float* a) { a[0] = 0.f; }\n"
      "KERNEL void scale(GLOBAL float* a, int n EXTRA_ARGS) {\n  if (GLOBAL_ID(0) < n) a[GLOBAL_ID(0)] *= 2.f;\n}\n";
  const std::string wait = "asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");";
  const char* was = std::getenv("RELITE_CUDA_PDL");
  const std::string saved = was != nullptr ? was : "";
  unsetenv("RELITE_CUDA_PDL");
  const std::string on = gpu::cuda::CudaProgramText(launch, gpu::Precision::kFp32);
  const size_t body = on.find("KERNEL void scale(");
  ASSERT_NE(body, std::string::npos);
  const size_t brace = on.find('{', on.find(')', body));
  const std::string first = "\n#if __CUDA_ARCH__ >= 900\n  " + wait + "\n#endif\n";
  EXPECT_EQ(on.compare(brace + 1, first.size(), first), 0) << "the wait opens the entry's body:\n" << on;
  EXPECT_EQ(on.find(wait, on.find(wait) + 1), std::string::npos) << "only the entry waits";
  EXPECT_LT(on.find("KERNEL void helper(GLOBAL float* a) { a[0] = 0.f; }"), body) << "the helper is unchanged";
  setenv("RELITE_CUDA_PDL", "0", 1);
  const std::string off = gpu::cuda::CudaProgramText(launch, gpu::Precision::kFp32);
  if (was != nullptr) {
    setenv("RELITE_CUDA_PDL", saved.c_str(), 1);
  } else {
    unsetenv("RELITE_CUDA_PDL");
  }
  EXPECT_EQ(off.find("griddepcontrol"), std::string::npos) << off;
}

TEST(CudaBackend, BackendNamesParse) {
  GpuBackend b = GpuBackend::kAuto;
  EXPECT_TRUE(ParseGpuBackend("cuda", &b));
  EXPECT_EQ(b, GpuBackend::kCuda);
  EXPECT_TRUE(ParseGpuBackend("opencl", &b));
  EXPECT_EQ(b, GpuBackend::kOpenCl);
  EXPECT_FALSE(ParseGpuBackend("vulkan", &b));
  EXPECT_STREQ(GpuBackendName(GpuBackend::kAuto), "auto");
}

}  // namespace
}  // namespace relite
