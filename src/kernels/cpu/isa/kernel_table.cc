#include "src/kernels/cpu/isa/kernel_table.h"

#include <atomic>

namespace relite::cpu {
namespace {

// Every level's table is built from one it implies, so a level without its
// own variant of a kernel inherits the best one beneath (on ARM64,
// dotprod's from portable).
struct Tables {
  CpuKernels level[kCpuIsaLevels];
  bool built[kCpuIsaLevels] = {};

  // A level's FillKernels is compiled with that level's flags, so even its
  // stores into the table may use the level's instructions (GCC writes
  // adjacent pointers with zmm stores in the AVX-512 one): it runs only on a
  // CPU that has them.
  Tables() {
    CpuKernels k;
    isa_portable::FillKernels(&k);
    Set(CpuIsa::kPortable, k);
#if defined(__x86_64__)
    if (CpuRuns(CpuIsa::kAvx2)) {
      isa_avx2::FillKernels(&k);
      Set(CpuIsa::kAvx2, k);
      // avxvnni adds its byte GEMM to avx2's table; avx512 does not imply it.
      if (CpuRuns(CpuIsa::kAvxVnni)) {
        CpuKernels vnni256 = k;
        isa_avxvnni::FillKernels(&vnni256);
        Set(CpuIsa::kAvxVnni, vnni256);
      }
      if (CpuRuns(CpuIsa::kAvx512)) {
        isa_avx512::FillKernels(&k);
        Set(CpuIsa::kAvx512, k);
        if (CpuRuns(CpuIsa::kAvx512Vnni)) {
          isa_avx512vnni::FillKernels(&k);
          Set(CpuIsa::kAvx512Vnni, k);
        }
      }
    }
#endif
#if defined(__aarch64__)
    if (CpuRuns(CpuIsa::kArmDotprod)) {
      isa_dotprod::FillKernels(&k);
      Set(CpuIsa::kArmDotprod, k);
      if (CpuRuns(CpuIsa::kArmI8mm)) {
        isa_i8mm::FillKernels(&k);  // only its byte GEMM, on dotprod's table
        Set(CpuIsa::kArmI8mm, k);
      }
    }
#endif
  }
  void Set(CpuIsa isa, CpuKernels k) {
    k.isa = isa;
    level[static_cast<int>(isa)] = k;
    built[static_cast<int>(isa)] = true;
  }
};

std::atomic<const CpuKernels*> g_testing_override{nullptr};

const Tables& AllTables() {
  static const Tables tables;
  return tables;
}

}  // namespace

const CpuKernels* KernelsFor(CpuIsa isa) {
  const Tables& t = AllTables();
  const int i = static_cast<int>(isa);
  if (i < 0 || i >= kCpuIsaLevels || !t.built[i]) return nullptr;  // built only where the CPU runs it
  return &t.level[i];
}

void SetKernelsForTesting(const CpuKernels* k) { g_testing_override.store(k, std::memory_order_relaxed); }

const CpuKernels& Kernels() {
  if (const CpuKernels* forced = g_testing_override.load(std::memory_order_relaxed)) return *forced;
  static const CpuKernels* active = [] {
    // The active level is at most what the CPU runs; a level this build has
    // no table for falls back to the next one down.
    for (int i = static_cast<int>(ActiveCpuIsa()); i > 0; --i) {
      if (const CpuKernels* k = KernelsFor(static_cast<CpuIsa>(i))) return k;
    }
    return &AllTables().level[0];
  }();
  return *active;
}

}  // namespace relite::cpu
