// What the verifier established about a model, once: every consumer (the
// interpreter, the delegates, the tools) reads these facts instead of
// re-deriving them from the file's declared fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "relite/model.h"

namespace relite {

// Far above any real model (2^40 elements), low enough that a byte count
// (elements x 16 bytes at most) cannot overflow 64 bits.
constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

struct TensorFacts {
  // Product of the declared shape, computed with overflow checks; at most
  // kMaxTensorElements.
  int64_t elements = 0;
  // Constant data in the file, or null. Dense constants hold exactly
  // elements x element size bytes; sparse ones (read only by DENSIFY) fewer.
  const uint8_t* data = nullptr;
  size_t data_bytes = 0;
  bool sparse = false;
  bool graph_input = false;   // never constant, never written by an operator
  bool graph_output = false;
  bool constant() const { return data != nullptr; }
};

struct SubgraphFacts {
  std::vector<TensorFacts> tensors;
};

struct ModelFacts {
  std::vector<SubgraphFacts> subgraphs;
  std::vector<Signature> signatures;
};

}  // namespace relite
