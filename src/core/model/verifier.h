// Untrusted-input checks for a .tflite file: the flatbuffers verifier, then
// the semantic rules the interpreter relies on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "relite/status.h"
#include "src/core/model/model_facts.h"
#include "tflite_generated.h"

namespace relite {

// Returns the model root when `data` is a valid .tflite file, with what was
// established about its tensors in `facts`; otherwise an error naming `name`
// and the subgraph / tensor / operator that is wrong.
StatusOr<const tflite::Model*> VerifyModel(const uint8_t* data, size_t size, const std::string& name, ModelFacts* facts);

// The builtin code of an operator code entry: the larger of the deprecated
// 8-bit field and the 32-bit field (files written before the 32-bit field
// existed leave it 0; newer ones may leave the 8-bit field at its cap, 127).
int32_t GetBuiltinCode(const tflite::OperatorCode* code);

}  // namespace relite
