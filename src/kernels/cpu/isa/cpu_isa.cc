#include "src/kernels/cpu/isa/cpu_isa.h"

#include <cstdint>
#include <cstdlib>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace relite::cpu {
namespace {

#if defined(__x86_64__)
struct CpuidRegs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};
CpuidRegs Cpuid(uint32_t leaf, uint32_t subleaf) {
  CpuidRegs r;
  if (static_cast<uint32_t>(__get_cpuid_max(leaf & 0x80000000u, nullptr)) < leaf) return r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}
bool Bit(uint32_t reg, int bit) { return (reg >> bit) & 1u; }
// The register state the OS saves on a context switch (XCR0); without it
// the wider registers are not usable even when cpuid lists the instructions.
uint64_t Xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

CpuFeatures Detect() {
  CpuFeatures f;
  const CpuidRegs l1 = Cpuid(1, 0);
  const CpuidRegs l7 = Cpuid(7, 0);
  const CpuidRegs l7s1 = Cpuid(7, 1);
  const CpuidRegs e1 = Cpuid(0x80000001u, 0);
  const bool osxsave = Bit(l1.ecx, 27);
  const uint64_t xcr0 = osxsave ? Xcr0() : 0;
  const bool os_ymm = (xcr0 & 0x6) == 0x6;            // SSE + AVX state
  const bool os_zmm = os_ymm && (xcr0 & 0xE0) == 0xE0;  // opmask + ZMM_Hi256 + Hi16_ZMM
  // x86-64-v3: AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE.
  f.avx2_fma = os_ymm && Bit(l1.ecx, 28) && Bit(l7.ebx, 5) && Bit(l7.ebx, 3) && Bit(l7.ebx, 8) &&
               Bit(l1.ecx, 29) && Bit(l1.ecx, 12) && Bit(e1.ecx, 5) && Bit(l1.ecx, 22);
  // x86-64-v4: AVX512F, BW, CD, DQ, VL.
  f.avx512 = f.avx2_fma && os_zmm && Bit(l7.ebx, 16) && Bit(l7.ebx, 30) && Bit(l7.ebx, 28) &&
             Bit(l7.ebx, 17) && Bit(l7.ebx, 31);
  f.avx512_vnni = f.avx512 && Bit(l7.ecx, 11);
  f.avx512_bf16 = f.avx512 && Bit(l7s1.eax, 5);
  f.avx_vnni = f.avx2_fma && Bit(l7s1.eax, 4);
  return f;
}
#elif defined(__aarch64__) && defined(__linux__)
CpuFeatures Detect() {
  CpuFeatures f;
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const unsigned long hwcap2 = getauxval(AT_HWCAP2);
  f.arm_dotprod = (hwcap >> 20) & 1u;  // HWCAP_ASIMDDP
  f.arm_i8mm = (hwcap2 >> 13) & 1u;    // HWCAP2_I8MM
  return f;
}
#else
CpuFeatures Detect() { return CpuFeatures{}; }
#endif

// Whether `isa` is a level of the architecture this build is for (portable
// is the base level of every architecture).
bool OwnArchitecture(CpuIsa isa) {
  if (isa == CpuIsa::kPortable) return true;
  const bool arm = isa == CpuIsa::kArmDotprod || isa == CpuIsa::kArmI8mm;
#if defined(__aarch64__)
  return arm;
#else
  return !arm;
#endif
}

struct ActiveLevel {
  CpuIsa isa = CpuIsa::kPortable;
  std::string reason;
};

ActiveLevel ChooseLevel() {
  ActiveLevel level;
  const CpuIsa detected = DetectedCpuIsa();
  level.isa = detected;
  level.reason = std::string(CpuIsaName(detected)) + " (detected)";
  const char* env = std::getenv("RELITE_CPU_ISA");
  if (env == nullptr || *env == '\0') return level;
  CpuIsa cap;
  if (!ParseCpuIsa(env, &cap)) {
    level.reason += std::string("; RELITE_CPU_ISA=") + env +
                    " is not a level (portable, avx2, avxvnni, avx512, avx512vnni, dotprod, i8mm) and was ignored";
    return level;
  }
  if (!OwnArchitecture(cap)) {
    level.reason += std::string("; RELITE_CPU_ISA=") + env + " is a level of another architecture and was ignored";
    return level;
  }
  if (cap < detected) {
    // The highest level at or below the cap that this CPU runs.
    CpuIsa chosen = cap;
    while (chosen > CpuIsa::kPortable && !CpuRuns(chosen)) chosen = static_cast<CpuIsa>(static_cast<int>(chosen) - 1);
    level.isa = chosen;
    level.reason = std::string(CpuIsaName(chosen)) + " (RELITE_CPU_ISA=" + env + "; the CPU has " +
                   CpuIsaName(detected) + ")";
  } else if (cap > detected) {
    level.reason += std::string("; RELITE_CPU_ISA=") + env + " is above what the CPU runs";
  }
  return level;
}

const ActiveLevel& Active() {
  static const ActiveLevel level = ChooseLevel();
  return level;
}

}  // namespace

const char* CpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kPortable: return "portable";
    case CpuIsa::kAvx2: return "avx2";
    case CpuIsa::kAvxVnni: return "avxvnni";
    case CpuIsa::kAvx512: return "avx512";
    case CpuIsa::kAvx512Vnni: return "avx512vnni";
    case CpuIsa::kArmDotprod: return "dotprod";
    case CpuIsa::kArmI8mm: return "i8mm";
  }
  return "unknown";
}

bool ParseCpuIsa(std::string_view name, CpuIsa* isa) {
  for (CpuIsa candidate :
       {CpuIsa::kPortable, CpuIsa::kAvx2, CpuIsa::kAvxVnni, CpuIsa::kAvx512, CpuIsa::kAvx512Vnni,
        CpuIsa::kArmDotprod, CpuIsa::kArmI8mm}) {
    if (name == CpuIsaName(candidate)) {
      *isa = candidate;
      return true;
    }
  }
  return false;
}

const CpuFeatures& DetectedCpuFeatures() {
  static const CpuFeatures features = Detect();
  return features;
}

CpuIsa DetectedCpuIsa() {
  const CpuFeatures& f = DetectedCpuFeatures();
  if (f.arm_dotprod && f.arm_i8mm) return CpuIsa::kArmI8mm;
  if (f.arm_dotprod) return CpuIsa::kArmDotprod;
  if (f.avx512_vnni) return CpuIsa::kAvx512Vnni;
  if (f.avx512) return CpuIsa::kAvx512;
  if (f.avx_vnni) return CpuIsa::kAvxVnni;
  if (f.avx2_fma) return CpuIsa::kAvx2;
  return CpuIsa::kPortable;
}

CpuIsa ActiveCpuIsa() { return Active().isa; }
const std::string& ActiveCpuIsaReason() { return Active().reason; }
bool CpuRuns(CpuIsa isa) {
  if (!OwnArchitecture(isa)) return false;
  const CpuFeatures& f = DetectedCpuFeatures();
  switch (isa) {
    case CpuIsa::kPortable: return true;
    case CpuIsa::kAvx2: return f.avx2_fma;
    case CpuIsa::kAvxVnni: return f.avx_vnni;
    case CpuIsa::kAvx512: return f.avx512;
    case CpuIsa::kAvx512Vnni: return f.avx512_vnni;
    case CpuIsa::kArmDotprod: return f.arm_dotprod;
    case CpuIsa::kArmI8mm: return f.arm_dotprod && f.arm_i8mm;
  }
  return false;
}

}  // namespace relite::cpu
