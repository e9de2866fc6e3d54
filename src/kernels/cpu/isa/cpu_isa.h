// The CPU's instruction-set level, detected once, and the kernel variants
// chosen for it.
//
// Kernels whose speed depends on the vector ISA come in variants compiled
// with per-file flags (src/kernels/cpu/isa/<variant>/); the rest of relite is
// built for the architecture's baseline, so one binary runs on any x86-64
// (or any Armv8-A) CPU. CpuKernels (kernel_table.h) holds the chosen
// variants.
#pragma once

#include <string>
#include <string_view>

namespace relite::cpu {

// Levels in increasing order of preference. A CPU need not run every level
// below its best: AVX-VNNI (Intel Alder Lake and later, AMD Zen 5) is absent
// from some AVX-512 CPUs (Skylake-SP, Cascade Lake, Zen 4).
enum class CpuIsa {
  kPortable = 0,  // x86-64 baseline (SSE2) or Armv8.0-A (NEON): plain C++ and vector extensions
  kAvx2,          // x86-64-v3: AVX2, FMA, F16C, BMI1/2
  kAvxVnni,       // x86-64-v3 + AVX-VNNI (256-bit vpdpbusd): avx2 plus the 8-bit GEMM on bytes
  kAvx512,        // x86-64-v4: AVX-512 F/BW/CD/DQ/VL
  kAvx512Vnni,    // x86-64-v4 + AVX512_VNNI
  // Arm levels after the x86 ones: each architecture's levels are ordered
  // among themselves only (CpuRuns), portable being the base of both.
  kArmDotprod,    // Armv8.2-A + dotprod (sdot/udot)
  kArmI8mm,       // dotprod + I8MM (usdot/sudot, smmla): dotprod plus the 8-bit GEMM on signed weights
};
inline constexpr int kCpuIsaLevels = 8;  // room for the levels of every architecture
static_assert(static_cast<int>(CpuIsa::kArmI8mm) < kCpuIsaLevels);

const char* CpuIsaName(CpuIsa isa);
// Parses a RELITE_CPU_ISA value; false when it names no level.
bool ParseCpuIsa(std::string_view name, CpuIsa* isa);

// What this CPU (and its OS, which must save the wider registers) supports.
struct CpuFeatures {
  bool avx2_fma = false;      // everything x86-64-v3 requires
  bool avx512 = false;        // everything x86-64-v4 requires
  bool avx512_vnni = false;
  bool avx_vnni = false;      // VEX-encoded VNNI (256-bit)
  bool avx512_bf16 = false;
  bool arm_dotprod = false;   // sdot/udot
  bool arm_i8mm = false;      // smmla/ummla
};
const CpuFeatures& DetectedCpuFeatures();

// The highest level this CPU runs (ignoring RELITE_CPU_ISA).
CpuIsa DetectedCpuIsa();

// The level the kernels use: DetectedCpuIsa(), capped by the environment
// variable RELITE_CPU_ISA=portable|avx2|avxvnni|avx512|avx512vnni (x86-64)
// or portable|dotprod|i8mm (ARM64) when set (the highest level at or below it
// that the CPU runs). Decided on first use, then fixed for the process.
CpuIsa ActiveCpuIsa();
// Why the level is what it is, e.g. "avx512vnni (detected)" or
// "avx2 (RELITE_CPU_ISA=avx2; the CPU has avx512vnni)"; names an invalid
// RELITE_CPU_ISA value, which is ignored.
const std::string& ActiveCpuIsaReason();

// Whether this CPU can run kernels compiled for `isa`.
bool CpuRuns(CpuIsa isa);

}  // namespace relite::cpu
