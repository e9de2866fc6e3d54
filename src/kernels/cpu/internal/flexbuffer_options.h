// Custom-op options stored as a FlexBuffer map (TFLite_Detection_PostProcess,
// PosenetDecoderOp, ...), read as untrusted input: the bytes are copied into
// aligned storage, verified with flexbuffers::Verifier (bounds, nesting,
// offsets, alignment), and every key is looked up with a type check, so a
// missing, mistyped or out-of-range value gives a clear error naming the node
// and the key, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "relite/status.h"

namespace relite::cpu {

class FlexbufferOptions {
 public:
  // The node's custom options as a FlexBuffer map; an error when they are
  // absent, malformed or not a map.
  static StatusOr<FlexbufferOptions> Parse(const Node& node);

  bool Has(const char* key) const;

  // Required keys: an error when absent or not convertible.
  StatusOr<int32_t> GetInt(const char* key) const;
  StatusOr<float> GetFloat(const char* key) const;
  // Optional keys: `default_value` when absent (a present but mistyped value
  // is still an error).
  StatusOr<int32_t> GetInt(const char* key, int32_t default_value) const;
  StatusOr<float> GetFloat(const char* key, float default_value) const;
  StatusOr<bool> GetBool(const char* key, bool default_value) const;

 private:
  FlexbufferOptions() = default;
  Status KeyError(const char* key, const std::string& what) const;

  std::string owner_;              // "node 3 (TFLite_Detection_PostProcess v1)"
  std::vector<uint64_t> storage_;  // 8-byte aligned copy of the options
  size_t size_ = 0;
};

}  // namespace relite::cpu
