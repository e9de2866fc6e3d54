// Structure-aware mutation of .tflite files for fuzzing and for the crafted
// models of the regression tests.
//
// Random bytes almost never get past the FlatBuffers verifier, so most of
// relite's checks would stay untested. Instead, FindSites lists the scalars
// of a valid file that can be rewritten in place without breaking the
// FlatBuffer structure: tensor shapes, types, buffer indices and
// quantization parameters; operator inputs/outputs, opcode indices and
// options; operator codes and versions; the graph's input/output lists; the
// values of small constant tensors. Mutate rewrites a few of them with values
// chosen to hit edges (0, -1, 2^31-1, another valid index, NaN scales ...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace relite::fuzz {

enum class SiteKind : uint8_t {
  kShapeDim,        // tensor shape element (int32)
  kTensorType,      // tensor type (int8)
  kTensorBuffer,    // tensor buffer index (uint32)
  kTensorVariable,  // is_variable (bool)
  kQuantScale,      // quantization scale element (float)
  kQuantZeroPoint,  // quantization zero point element (int64)
  kQuantDim,        // quantized_dimension (int32)
  kOpInput,         // operator input tensor index (int32)
  kOpOutput,        // operator output tensor index (int32)
  kOpIntermediate,  // operator intermediate tensor index (int32)
  kOpcodeIndex,     // operator opcode index (uint32)
  kOptionScalar,    // a scalar of an operator's builtin options table (1-8 bytes)
  kBuiltinCode,     // operator code builtin_code (int32) / deprecated_builtin_code (int8)
  kOpVersion,       // operator code version (int32)
  kGraphInput,      // subgraph input list element (int32)
  kGraphOutput,     // subgraph output list element (int32)
  kConstantValue,   // an element of a constant tensor's data (1-8 bytes)
};

struct Site {
  SiteKind kind;
  size_t offset;  // in the file
  uint8_t width;  // bytes: 1, 2, 4 or 8
  int32_t subgraph = 0;
  int32_t owner = -1;    // the tensor, operator or operator code the site belongs to
  int32_t element = -1;  // position in its vector (shape axis, input slot ...), -1 for a plain field
  bool is_float = false;
};

struct ModelCounts {
  int32_t tensors = 0;  // of subgraph 0
  int32_t buffers = 0;
  int32_t operator_codes = 0;
};

// The mutable sites of a model that passes the FlatBuffers verifier; empty
// for anything else.
std::vector<Site> FindSites(const uint8_t* data, size_t size, ModelCounts* counts = nullptr);

// Rewrites 1-4 sites of `data` in place (deterministically from `seed`).
// Returns false when the data is not a verifiable model (nothing changed).
bool Mutate(uint8_t* data, size_t size, uint64_t seed);

// For tests that craft a model: the first site of `kind` owned by `owner`
// at `element` in subgraph 0, or null.
const Site* FindSite(const std::vector<Site>& sites, SiteKind kind, int32_t owner, int32_t element = -1);
// Stores `value` at the site (truncated to its width; floats as float32).
void WriteSite(uint8_t* data, const Site& site, int64_t value);
void WriteSiteFloat(uint8_t* data, const Site& site, float value);

}  // namespace relite::fuzz
