// Op code / custom name -> emitter, from ops/op_list.inc.
#include <algorithm>

#include <fmt/format.h>

#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/op_builder.h"
#include "tflite_generated.h"

namespace relite::gpu {
namespace {

struct Entry {
  int32_t code;  // -1 for custom ops
  const char* name;
  OpEmitter emit;
  int min_version, max_version;
};

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = {
#define RELITE_GPU_BUILTIN_OP(CODE, EMIT, MINV, MAXV) \
  {static_cast<int32_t>(tflite::BuiltinOperator::CODE), #CODE, &EMIT, MINV, MAXV},
#define RELITE_GPU_CUSTOM_OP(NAME, EMIT, MINV, MAXV) {-1, NAME, &EMIT, MINV, MAXV},
#include "src/delegates/gpu/ops/op_list.inc"
#undef RELITE_GPU_BUILTIN_OP
#undef RELITE_GPU_CUSTOM_OP
  };
  return entries;
}

}  // namespace

OpEmitter FindEmitter(const Node& node, std::string* reason) {
  for (const Entry& e : Entries()) {
    const bool match = node.is_custom() ? (e.code == -1 && node.op_name == e.name) : e.code == node.builtin_code;
    if (!match) continue;
    if (node.version < e.min_version || node.version > e.max_version) {
      *reason = e.min_version == e.max_version
                    ? fmt::format("version {} is not supported (only version {})", node.version, e.max_version)
                    : fmt::format("version {} is not supported (versions {} to {})", node.version, e.min_version, e.max_version);
      return nullptr;
    }
    return e.emit;
  }
  *reason = node.is_custom() ? fmt::format("custom op '{}' has no GPU kernel", node.op_name)
                             : fmt::format("{} has no GPU kernel", node.op_name);
  return nullptr;
}

std::vector<std::string> SupportedOpNames() {
  std::vector<std::string> out;
  for (const Entry& e : Entries()) out.push_back(e.name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace relite::gpu
