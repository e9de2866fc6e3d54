// Explicit registration of every CPU kernel (no static initialisers).
#include "relite/op_resolver.h"
#include "src/kernels/cpu/kernels.h"
#include "tflite_generated.h"

namespace relite {

BuiltinOpResolver::BuiltinOpResolver() {
#define RELITE_BUILTIN_OP(code, factory, min_version, max_version) \
  AddBuiltin(static_cast<int32_t>(tflite::BuiltinOperator::code), cpu::factory, min_version, max_version);
#define RELITE_CUSTOM_OP(name, factory, min_version, max_version) \
  AddCustom(name, cpu::factory, min_version, max_version);
#include "src/kernels/cpu/op_list.inc"
#undef RELITE_BUILTIN_OP
#undef RELITE_CUSTOM_OP
}

}  // namespace relite
