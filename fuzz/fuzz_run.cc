#include "fuzz/fuzz_run.h"

#include <cstring>
#include <regex>

namespace relite::fuzz {

const char* StageName(Stage stage) {
  switch (stage) {
    case Stage::kLoad: return "load";
    case Stage::kBuild: return "build";
    case Stage::kAllocate: return "allocate";
    case Stage::kInvoke: return "invoke";
    case Stage::kDone: return "done";
  }
  return "?";
}

ResourceLimits FuzzLimits() {
  ResourceLimits limits;
  limits.max_arena_bytes = uint64_t{256} << 20;
  limits.max_tensor_bytes = uint64_t{64} << 20;
  limits.max_macs = 3e8;
  return limits;
}

RunResult RunModel(const uint8_t* data, size_t size, const RunConfig& config) {
  RunResult r;
  auto model = Model::FromBuffer(data, size, "mutant.tflite");
  if (!model.ok()) {
    r.status = model.status();
    return r;
  }
  r.reached = Stage::kBuild;
  BuiltinOpResolver resolver;
  InterpreterBuilder builder(**model, resolver);
  builder.SetNumThreads(config.threads).SetResourceLimits(config.limits);
  if (config.delegate != nullptr) builder.AddDelegate(config.delegate);
  auto interp = builder.Build();
  if (!interp.ok()) {
    r.status = interp.status();
    return r;
  }
  r.reached = Stage::kAllocate;
  if (Status s = (*interp)->AllocateTensors(); !s.ok()) {
    r.status = s;
    return r;
  }
  r.reached = Stage::kInvoke;
  if (!config.invoke) {
    r.reached = Stage::kDone;
    return r;
  }
  // Deterministic, varied input bytes (small integers as floats stay finite).
  for (int i = 0; i < (*interp)->num_inputs(); ++i) {
    Tensor* t = (*interp)->input_tensor(i);
    if (t == nullptr || t->data == nullptr) continue;
    auto* p = static_cast<uint8_t*>(t->data);
    for (size_t k = 0; k < t->bytes; ++k) p[k] = static_cast<uint8_t>((k * 37 + 11) & 0x3f);
  }
  if (Status s = (*interp)->Invoke(); !s.ok()) {
    r.status = s;
    return r;
  }
  r.reached = Stage::kDone;
  return r;
}

bool NamesLocation(const std::string& message) {
  static const std::regex kIndexed(
      "(tensor|node|operator|operator code|buffer|subgraph|input|output|partition|variable) [0-9]+");
  static const std::regex kFile(
      "flatbuffer structure is invalid|wrong magic|schema version|file is truncated|model has no subgraph|"
      "activation arena|multiply-accumulates");
  return std::regex_search(message, kIndexed) || std::regex_search(message, kFile);
}

}  // namespace relite::fuzz
