// Explicit registration of every CPU kernel (no static initialisers).
//
// An op with both a float and an 8-bit implementation gets one factory that
// picks by the type of input 0 (types are fixed at load time).
#include <algorithm>

#include "relite/op_resolver.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/isa/cpu_isa.h"
#include "src/kernels/cpu/kernels.h"
#include "tflite_generated.h"

namespace relite {
namespace {

struct QuantizedRegistration {
  int32_t code;
  StatusOr<std::unique_ptr<Kernel>> (*factory)(const Node&);
  int min_version;
  int max_version;
};

const QuantizedRegistration kQuantizedOps[] = {
#define RELITE_QUANTIZED_OP(code, factory, min_version, max_version) \
  {static_cast<int32_t>(tflite::BuiltinOperator::code), cpu::factory, min_version, max_version},
#include "src/kernels/cpu/quantized/op_list_quantized.inc"
#undef RELITE_QUANTIZED_OP
};

}  // namespace

std::string CpuKernelLevel() { return cpu::ActiveCpuIsaReason(); }

BuiltinOpResolver::BuiltinOpResolver() {
#define RELITE_BUILTIN_OP(code, factory, min_version, max_version) \
  AddBuiltin(static_cast<int32_t>(tflite::BuiltinOperator::code), cpu::factory, min_version, max_version);
#define RELITE_CUSTOM_OP(name, factory, min_version, max_version) \
  AddCustom(name, cpu::factory, min_version, max_version);
#include "src/kernels/cpu/op_list.inc"
#undef RELITE_BUILTIN_OP
#undef RELITE_CUSTOM_OP

  for (const QuantizedRegistration& q : kQuantizedOps) {
    const OpRegistration* existing = FindBuiltinAnyVersion(q.code);
    if (existing == nullptr) {
      AddBuiltin(q.code, q.factory, q.min_version, q.max_version);
      continue;
    }
    KernelFactory float_factory = existing->create;
    auto quantized_factory = q.factory;
    const int min_version = std::min(existing->min_version, q.min_version);
    const int max_version = std::max(existing->max_version, q.max_version);
    AddBuiltin(
        q.code,
        [float_factory, quantized_factory](const Node& node) {
          return cpu::IsQuantizedIntType(node.input_type(0)) ? quantized_factory(node) : float_factory(node);
        },
        min_version, max_version);
  }
}

}  // namespace relite
