// What the fuzz targets and the mutant replay do with one model: load it,
// build and allocate an interpreter under resource limits, fill the inputs,
// invoke. Every failure must come back as a Status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "relite/relite.h"

namespace relite::fuzz {

enum class Stage : uint8_t { kLoad, kBuild, kAllocate, kInvoke, kDone };
const char* StageName(Stage stage);

struct RunResult {
  Stage reached = Stage::kLoad;  // kDone: the model ran
  Status status;                 // the error that stopped it
};

struct RunConfig {
  ResourceLimits limits;
  Delegate* delegate = nullptr;  // e.g. the GPU delegate; null: CPU only
  int threads = 1;
  bool invoke = true;
};

// Limits for fuzzing: small enough that one input takes well under a second
// under ASan (ResourceLimits rejects the rest with an error).
ResourceLimits FuzzLimits();

RunResult RunModel(const uint8_t* data, size_t size, const RunConfig& config);

// True when an error message says where the problem is: a tensor, node,
// operator, buffer, subgraph, input or output by index, or the file itself
// (the FlatBuffers structure, magic, schema version, size).
bool NamesLocation(const std::string& message);

}  // namespace relite::fuzz
