#include "relite/op_resolver.h"

#include "relite/kernel.h"
#include "tflite_generated.h"

namespace relite {

void OpResolver::AddBuiltin(int32_t builtin_code, KernelFactory factory, int min_version, int max_version) {
  builtins_[builtin_code] = OpRegistration{std::move(factory), min_version, max_version};
}

void OpResolver::AddCustom(const std::string& name, KernelFactory factory, int min_version, int max_version) {
  customs_[name] = OpRegistration{std::move(factory), min_version, max_version};
}

namespace {
template <typename Map, typename Key>
const OpRegistration* Find(const Map& map, const Key& key, int version) {
  auto it = map.find(key);
  if (it == map.end()) return nullptr;
  if (version < it->second.min_version || version > it->second.max_version) return nullptr;
  return &it->second;
}
}  // namespace

const OpRegistration* OpResolver::FindBuiltin(int32_t builtin_code, int version) const {
  return Find(builtins_, builtin_code, version);
}
const OpRegistration* OpResolver::FindCustom(const std::string& name, int version) const {
  return Find(customs_, name, version);
}
const OpRegistration* OpResolver::FindBuiltinAnyVersion(int32_t builtin_code) const {
  auto it = builtins_.find(builtin_code);
  return it == builtins_.end() ? nullptr : &it->second;
}
const OpRegistration* OpResolver::FindCustomAnyVersion(const std::string& name) const {
  auto it = customs_.find(name);
  return it == customs_.end() ? nullptr : &it->second;
}

std::string BuiltinOpName(int32_t builtin_code) {
  const auto op = static_cast<tflite::BuiltinOperator>(builtin_code);
  if (builtin_code >= static_cast<int32_t>(tflite::BuiltinOperator::MIN) &&
      builtin_code <= static_cast<int32_t>(tflite::BuiltinOperator::MAX)) {
    const char* name = tflite::EnumNameBuiltinOperator(op);
    if (name != nullptr && name[0] != '\0') return name;
  }
  return "UNKNOWN(" + std::to_string(builtin_code) + ")";
}

std::string Node::Describe() const {
  return "node " + std::to_string(index) + " (" + op_name + " v" + std::to_string(version) + ")";
}

}  // namespace relite
