// Op code / custom name -> builder, from ops/op_list.inc.
#include <fmt/format.h>

#include "src/delegates/onednn/ops/ops.h"
#include "tflite_generated.h"

namespace relite::onednn {
namespace {

struct Entry {
  int32_t code;  // -1 for custom ops
  const char* name;
  OpBuild build;
  int min_version, max_version;
};

constexpr Entry kEntries[] = {
#define RELITE_ONEDNN_BUILTIN_OP(CODE, BUILD, MINV, MAXV) \
  {static_cast<int32_t>(tflite::BuiltinOperator::CODE), #CODE, &BUILD, MINV, MAXV},
#define RELITE_ONEDNN_CUSTOM_OP(NAME, BUILD, MINV, MAXV) {-1, NAME, &BUILD, MINV, MAXV},
#include "src/delegates/onednn/ops/op_list.inc"
#undef RELITE_ONEDNN_BUILTIN_OP
#undef RELITE_ONEDNN_CUSTOM_OP
};

}  // namespace

OpBuild FindOpBuild(const Node& node, std::string* reason) {
  for (const Entry& e : kEntries) {
    const bool match = node.is_custom() ? (e.code == -1 && node.op_name == e.name) : e.code == node.builtin_code;
    if (!match) continue;
    if (node.version < e.min_version || node.version > e.max_version) {
      *reason = fmt::format("version {} is not supported by the oneDNN delegate (versions {} to {})", node.version,
                            e.min_version, e.max_version);
      return nullptr;
    }
    return e.build;
  }
  *reason = node.is_custom() ? fmt::format("custom op '{}' has no oneDNN builder", node.op_name)
                             : fmt::format("{} has no oneDNN builder", node.op_name);
  return nullptr;
}

std::vector<std::string> SupportedOpNames() {
  std::vector<std::string> out;
  for (const Entry& e : kEntries) out.emplace_back(e.name);
  return out;
}

}  // namespace relite::onednn
