// The CPU's instruction-set levels (src/kernels/cpu/isa/cpu_isa.h): the
// RELITE_CPU_ISA names, which levels this CPU runs on each architecture, and
// the cap. The active level is fixed for the process on first use, so
// tests/CMakeLists.txt runs this file again with RELITE_CPU_ISA set
// (cpu_isa_test_<value>); ActiveLevelFollowsTheEnvironment checks the
// value it was started with.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "src/kernels/cpu/isa/cpu_isa.h"
#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {
namespace {

constexpr CpuIsa kAllLevels[] = {CpuIsa::kPortable, CpuIsa::kAvx2,       CpuIsa::kAvxVnni,
                                 CpuIsa::kAvx512,   CpuIsa::kAvx512Vnni, CpuIsa::kArmDotprod, CpuIsa::kArmI8mm};
constexpr CpuIsa kX86Levels[] = {CpuIsa::kAvx2, CpuIsa::kAvxVnni, CpuIsa::kAvx512, CpuIsa::kAvx512Vnni};

TEST(CpuIsaTest, NamesParseBack) {
  for (CpuIsa isa : kAllLevels) {
    CpuIsa parsed = CpuIsa::kPortable;
    ASSERT_TRUE(ParseCpuIsa(CpuIsaName(isa), &parsed)) << CpuIsaName(isa);
    EXPECT_EQ(parsed, isa) << CpuIsaName(isa);
  }
  EXPECT_STREQ(CpuIsaName(CpuIsa::kArmDotprod), "dotprod");
  EXPECT_STREQ(CpuIsaName(CpuIsa::kArmI8mm), "i8mm");
  CpuIsa unchanged = CpuIsa::kAvx2;
  for (const char* bad : {"", "neon", "DOTPROD", "dotprod ", "I8MM", "smmla", "avx", "armv8.2-a"}) {
    EXPECT_FALSE(ParseCpuIsa(bad, &unchanged)) << bad;
  }
  EXPECT_EQ(unchanged, CpuIsa::kAvx2);
}

TEST(CpuIsaTest, LevelsOfThisArchitecture) {
  const CpuFeatures& f = DetectedCpuFeatures();
  EXPECT_TRUE(CpuRuns(CpuIsa::kPortable));
  EXPECT_TRUE(CpuRuns(DetectedCpuIsa()));
  const CpuKernels* portable = KernelsFor(CpuIsa::kPortable);
  ASSERT_NE(portable, nullptr);
  EXPECT_EQ(portable->isa, CpuIsa::kPortable);
  EXPECT_EQ(portable->qgemm_quads, nullptr);
  EXPECT_FALSE(portable->qgemm_quads_unsigned_weights);
#if defined(__aarch64__)
  std::printf("arm64: dotprod %d, i8mm %d\n", f.arm_dotprod, f.arm_i8mm);
  EXPECT_EQ(DetectedCpuIsa(), f.arm_dotprod && f.arm_i8mm ? CpuIsa::kArmI8mm
                              : f.arm_dotprod              ? CpuIsa::kArmDotprod
                                                           : CpuIsa::kPortable);
  EXPECT_EQ(CpuRuns(CpuIsa::kArmDotprod), f.arm_dotprod);
  EXPECT_EQ(CpuRuns(CpuIsa::kArmI8mm), f.arm_dotprod && f.arm_i8mm);
  if (const CpuKernels* i8mm = KernelsFor(CpuIsa::kArmI8mm)) {
    EXPECT_EQ(i8mm->isa, CpuIsa::kArmI8mm);
    EXPECT_NE(i8mm->qgemm_quads, nullptr);
    EXPECT_FALSE(i8mm->qgemm_quads_unsigned_weights);  // sudot: signed weight bytes
  }
  for (CpuIsa isa : kX86Levels) {
    EXPECT_FALSE(CpuRuns(isa)) << CpuIsaName(isa);
    EXPECT_EQ(KernelsFor(isa), nullptr) << CpuIsaName(isa);
  }
  const CpuKernels* dotprod = KernelsFor(CpuIsa::kArmDotprod);
  EXPECT_EQ(dotprod != nullptr, f.arm_dotprod);
  if (dotprod != nullptr) {
    EXPECT_EQ(dotprod->isa, CpuIsa::kArmDotprod);
    EXPECT_NE(dotprod->qgemm_quads, nullptr);
    EXPECT_TRUE(dotprod->qgemm_quads_unsigned_weights);
  }
#else
  EXPECT_FALSE(f.arm_dotprod);
  EXPECT_FALSE(f.arm_i8mm);
  EXPECT_FALSE(CpuRuns(CpuIsa::kArmDotprod));
  EXPECT_EQ(KernelsFor(CpuIsa::kArmDotprod), nullptr);
  EXPECT_FALSE(CpuRuns(CpuIsa::kArmI8mm));
  EXPECT_EQ(KernelsFor(CpuIsa::kArmI8mm), nullptr);
  for (CpuIsa isa : kX86Levels) {
    if (const CpuKernels* k = KernelsFor(isa)) {
      EXPECT_FALSE(k->qgemm_quads_unsigned_weights) << CpuIsaName(isa);
    }
  }
#endif
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CpuIsaTest, ActiveLevelFollowsTheEnvironment) {
  const char* env_value = std::getenv("RELITE_CPU_ISA");
  const std::string env = env_value != nullptr ? env_value : "";
  const CpuIsa detected = DetectedCpuIsa();
  const std::string& reason = ActiveCpuIsaReason();
  std::printf("RELITE_CPU_ISA=%s: %s\n", env.c_str(), reason.c_str());
#if defined(__aarch64__)
  const bool other_architecture = env == "avx2" || env == "avxvnni" || env == "avx512" || env == "avx512vnni";
#else
  const bool other_architecture = env == "dotprod" || env == "i8mm";
#endif
  CpuIsa cap = CpuIsa::kPortable;
  CpuIsa want = detected;
  if (env.empty()) {
    EXPECT_EQ(reason, std::string(CpuIsaName(detected)) + " (detected)");
  } else if (!ParseCpuIsa(env, &cap)) {
    EXPECT_TRUE(Contains(reason, "is not a level")) << reason;
  } else if (other_architecture) {
    EXPECT_TRUE(Contains(reason, "another architecture")) << reason;
  } else if (cap < detected) {
    // The highest level at or below the cap that this CPU runs (AVX-512
    // CPUs need not have AVX-VNNI).
    want = cap;
    while (want > CpuIsa::kPortable && !CpuRuns(want)) want = static_cast<CpuIsa>(static_cast<int>(want) - 1);
    EXPECT_TRUE(Contains(reason, "RELITE_CPU_ISA=" + env)) << reason;
  } else if (cap > detected) {
    EXPECT_TRUE(Contains(reason, "above what the CPU runs")) << reason;
  }
  EXPECT_EQ(ActiveCpuIsa(), want) << reason;
  // Every level of this architecture has its table: the kernels are the
  // active level's (portable's where capped to it, with no byte dot product).
  EXPECT_EQ(Kernels().isa, want);
  EXPECT_EQ(&Kernels(), KernelsFor(want));
  if (want == CpuIsa::kPortable) {
    EXPECT_EQ(Kernels().qgemm_quads, nullptr);
  }
}

}  // namespace
}  // namespace relite::cpu
