// Subnormal floats as zero on the CPU threads that run kernels.
//
// An x86 core takes a microcode assist for an operation with a subnormal
// operand or result (|x| < 1.2e-38), about a hundred cycles instead of one:
// squeeze-and-excitation blocks multiply by sigmoids of large negative
// inputs and can spend most of a layer on them (selfie_segmentation's
// 32x32x24 gate MUL: 43 us with subnormals, 2.8 us without). Flushing them
// (x86: MXCSR FTZ + DAZ; AArch64: FPCR.FZ) changes only results that would
// be subnormal, far below any float tolerance.
#pragma once

#include <cstdint>

namespace relite {

// Sets the mode on the calling thread for the guard's lifetime, then puts the
// thread's previous mode back (Invoke runs on the caller's thread).
class ScopedFlushDenormals {
 public:
  explicit ScopedFlushDenormals(bool enable);
  ~ScopedFlushDenormals();
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  bool active_ = false;
  uint64_t saved_ = 0;
};

// Sets the mode on the calling thread for good (the pool's own workers).
void FlushDenormalsOnThisThread();

// Whether the calling thread currently flushes subnormals (tests).
bool ThisThreadFlushesDenormals();

}  // namespace relite
