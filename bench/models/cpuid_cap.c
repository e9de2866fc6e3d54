// A preloaded library that makes a process see an x86-64 CPU without some of
// its vector extensions, so that runtimes choosing kernels at run time from
// CPUID (LiteRT's XNNPACK and ruy through cpuinfo, relite, numpy) all run the
// code they would run on an older CPU. Used by litert_table.py --cap-isa to
// compare relite and LiteRT as an AVX2-only host would, on a host with more.
//
//   LD_PRELOAD=librelite_cpuid_cap.so RELITE_CPUID_CAP=avx2 python3 ...
//
// How: Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID 0; /proc/cpuinfo
// flag cpuid_fault) makes every CPUID instruction of the process raise
// SIGSEGV. The handler runs the real CPUID with faulting briefly off, clears
// the feature bits above the cap, and resumes after the instruction. The
// setting is per thread and inherited by threads created later, so it is
// made in a constructor before the program starts any. execve() resets it:
// child processes that inherit LD_PRELOAD set it again themselves.
//
// Caps: avx2 (AVX2 + FMA: no AVX-512, no AVX-VNNI, no AMX), avx512 (AVX-512
// F/BW/VL/DQ/CD but no VNNI, BF16, FP16 or AMX). Without CPUID faulting the
// library says so on stderr and exits with status 3 rather than letting a
// benchmark run uncapped.
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

enum Cap { kCapAvx2, kCapAvx512 };
static enum Cap g_cap;
static volatile sig_atomic_t g_emulated;

static void SetCpuidFaulting(int on) { syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1); }

static void RealCpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4]) {
  __asm__ volatile("cpuid" : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3]) : "a"(leaf), "c"(subleaf));
}

#define BIT(n) (1u << (n))

static void Mask(uint32_t leaf, uint32_t subleaf, uint32_t regs[4]) {
  uint32_t* eax = &regs[0];
  uint32_t* ebx = &regs[1];
  uint32_t* ecx = &regs[2];
  uint32_t* edx = &regs[3];
  if (leaf == 7 && subleaf == 0) {
    // Bits of the AVX-512 family beyond F/DQ/CD/BW/VL, and AMX, go at either cap.
    *ebx &= ~(BIT(21) | BIT(26) | BIT(27));                      // IFMA, PF, ER
    *ecx &= ~(BIT(1) | BIT(6) | BIT(11) | BIT(12) | BIT(14));    // VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ
    *edx &= ~(BIT(2) | BIT(3) | BIT(8) | BIT(22) | BIT(23) | BIT(24) | BIT(25));  // 4VNNIW, 4FMAPS,
                                                                 // VP2INTERSECT, AMX-BF16, FP16, AMX-TILE, AMX-INT8
    if (g_cap == kCapAvx2) {
      *ebx &= ~(BIT(16) | BIT(17) | BIT(28) | BIT(30) | BIT(31));  // AVX512 F, DQ, CD, BW, VL
      *ecx &= ~(BIT(9) | BIT(10));                                 // VAES, VPCLMULQDQ (their 512-bit forms)
    }
  } else if (leaf == 7 && subleaf == 1) {
    // AVX-VNNI, AVX512-BF16, AMX-FP16, AVX-IFMA; AVX-VNNI-INT8, AVX-NE-CONVERT, AVX-VNNI-INT16, AVX10.
    *eax &= ~(BIT(4) | BIT(5) | BIT(21) | BIT(23));
    *edx &= ~(BIT(4) | BIT(5) | BIT(10) | BIT(19));
  } else if (leaf == 0x24) {
    *eax = *ebx = *ecx = *edx = 0;  // AVX10 description
  }
}

static void OnSegv(int sig, siginfo_t* info, void* context) {
  ucontext_t* uc = (ucontext_t*)context;
  greg_t* gregs = uc->uc_mcontext.gregs;
  const unsigned char* ip = (const unsigned char*)gregs[REG_RIP];
  if (ip[0] != 0x0f || ip[1] != 0xa2) {
    // A real fault: restore the default action and let it happen again.
    (void)info;
    signal(sig, SIG_DFL);
    return;
  }
  uint32_t leaf = (uint32_t)gregs[REG_RAX];
  uint32_t subleaf = (uint32_t)gregs[REG_RCX];
  uint32_t regs[4];
  SetCpuidFaulting(0);
  RealCpuid(leaf, subleaf, regs);
  SetCpuidFaulting(1);
  Mask(leaf, subleaf, regs);
  gregs[REG_RAX] = regs[0];
  gregs[REG_RBX] = regs[1];
  gregs[REG_RCX] = regs[2];
  gregs[REG_RDX] = regs[3];
  gregs[REG_RIP] += 2;
  g_emulated = g_emulated + 1;
}

static void Report(void) {
  if (getenv("RELITE_CPUID_CAP_VERBOSE") != NULL) {
    fprintf(stderr, "cpuid_cap: %d CPUID instructions answered with the %s cap\n", (int)g_emulated,
            g_cap == kCapAvx2 ? "avx2" : "avx512");
  }
}

__attribute__((constructor)) static void Install(void) {
  const char* cap = getenv("RELITE_CPUID_CAP");
  if (cap == NULL || cap[0] == '\0') return;
  if (strcmp(cap, "avx2") == 0) {
    g_cap = kCapAvx2;
  } else if (strcmp(cap, "avx512") == 0) {
    g_cap = kCapAvx512;
  } else {
    fprintf(stderr, "cpuid_cap: RELITE_CPUID_CAP=%s is not avx2 or avx512\n", cap);
    _exit(3);
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = OnSegv;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, NULL);
  if (syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) != 0) {
    fprintf(stderr, "cpuid_cap: this kernel or CPU has no CPUID faulting (arch_prctl ARCH_SET_CPUID); "
                    "cannot cap the instruction set\n");
    _exit(3);
  }
  atexit(Report);
}
