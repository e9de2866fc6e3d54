#include "src/core/interpreter/denormal_mode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace relite {
namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr uint64_t kFlushBits = 0x8000 | 0x0040;  // MXCSR FTZ | DAZ
uint64_t ReadMode() { return _mm_getcsr(); }
void WriteMode(uint64_t mode) { _mm_setcsr(static_cast<unsigned>(mode)); }
#elif defined(__aarch64__)
constexpr uint64_t kFlushBits = uint64_t{1} << 24;  // FPCR.FZ
uint64_t ReadMode() {
  uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
void WriteMode(uint64_t mode) { asm volatile("msr fpcr, %0" : : "r"(mode)); }
#else
constexpr uint64_t kFlushBits = 0;  // no control here: subnormals are kept
uint64_t ReadMode() { return 0; }
void WriteMode(uint64_t) {}
#endif

}  // namespace

ScopedFlushDenormals::ScopedFlushDenormals(bool enable) {
  if (!enable || kFlushBits == 0) return;
  saved_ = ReadMode();
  if ((saved_ & kFlushBits) == kFlushBits) return;  // already flushing: nothing to undo
  WriteMode(saved_ | kFlushBits);
  active_ = true;
}

ScopedFlushDenormals::~ScopedFlushDenormals() {
  if (active_) WriteMode(saved_);
}

void FlushDenormalsOnThisThread() {
  if (kFlushBits != 0) WriteMode(ReadMode() | kFlushBits);
}

bool ThisThreadFlushesDenormals() { return kFlushBits != 0 && (ReadMode() & kFlushBits) == kFlushBits; }

}  // namespace relite
