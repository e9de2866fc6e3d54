// Maps a model's operator codes (builtin code or custom name, plus version)
// to kernel factories.
#pragma once

#include "relite/export.h"

#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "relite/kernel.h"

namespace relite {

struct OpRegistration {
  KernelFactory create;
  int min_version = 1;
  int max_version = 1;
};

class RELITE_API OpResolver {
 public:
  virtual ~OpResolver() = default;

  // Registers (or replaces) a builtin op kernel for versions [min_version, max_version].
  void AddBuiltin(int32_t builtin_code, KernelFactory factory, int min_version = 1, int max_version = 1);
  // Registers (or replaces) a custom op kernel by its name in the model.
  void AddCustom(const std::string& name, KernelFactory factory, int min_version = 1,
                 int max_version = INT_MAX);

  // Null when nothing is registered for the op at that version.
  const OpRegistration* FindBuiltin(int32_t builtin_code, int version) const;
  const OpRegistration* FindCustom(const std::string& name, int version) const;
  // Any registration regardless of version (to explain a version mismatch).
  const OpRegistration* FindBuiltinAnyVersion(int32_t builtin_code) const;
  const OpRegistration* FindCustomAnyVersion(const std::string& name) const;

 private:
  std::map<int32_t, OpRegistration> builtins_;
  std::map<std::string, OpRegistration> customs_;
};

// Every CPU kernel relite ships: the builtin ops and the custom ops of
// common real models (e.g. MediaPipe's Convolution2DTransposeBias).
class RELITE_API BuiltinOpResolver : public OpResolver {
 public:
  BuiltinOpResolver();
};

// The instruction-set level the CPU kernels run at, and why: e.g.
// "avx512vnni (detected)", or "avx2 (RELITE_CPU_ISA=avx2; the CPU has
// avx512vnni)". Levels: portable, avx2, avxvnni, avx512, avx512vnni (x86-64);
// portable, dotprod, i8mm (ARM64). Fixed for the process on first use.
RELITE_API std::string CpuKernelLevel();

// The name of a builtin op code ("CONV_2D"), or "UNKNOWN(N)".
RELITE_API std::string BuiltinOpName(int32_t builtin_code);

}  // namespace relite
