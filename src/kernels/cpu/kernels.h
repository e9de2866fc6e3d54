// Factories of every CPU kernel, declared from op_list.inc.
#pragma once

#include <memory>

#include "relite/kernel.h"

namespace relite::cpu {

#define RELITE_BUILTIN_OP(code, factory, min_version, max_version) \
  StatusOr<std::unique_ptr<Kernel>> factory(const Node& node);
#define RELITE_CUSTOM_OP(name, factory, min_version, max_version) \
  StatusOr<std::unique_ptr<Kernel>> factory(const Node& node);
#include "src/kernels/cpu/op_list.inc"
#undef RELITE_BUILTIN_OP
#undef RELITE_CUSTOM_OP

}  // namespace relite::cpu

namespace relite::cpu {
#define RELITE_QUANTIZED_OP(code, factory, min_version, max_version) \
  StatusOr<std::unique_ptr<Kernel>> factory(const Node& node);
#include "src/kernels/cpu/quantized/op_list_quantized.inc"
#undef RELITE_QUANTIZED_OP
}  // namespace relite::cpu
