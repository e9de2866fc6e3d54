// Typed access to a node's builtin options table.
#pragma once

#include "relite/kernel.h"
#include "tflite_generated.h"

namespace relite {

// The node's options as T (e.g. tflite::Conv2DOptions), or null when the model
// stores no options table (all fields default) or a table of another type.
// Callers must treat null as "every field has its schema default".
template <typename T>
const T* GetOptions(const Node& node) {
  if (node.builtin_options == nullptr) return nullptr;
  if (node.builtin_options_type != static_cast<uint8_t>(tflite::BuiltinOptionsTraits<T>::enum_value)) return nullptr;
  return static_cast<const T*>(node.builtin_options);
}

}  // namespace relite
