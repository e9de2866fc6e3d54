// FLATBUFFERS_LOCALE_INDEPENDENT=0 comes from CMakeLists.txt (the layers'
// compile definitions): flexbuffers.h's string-to-number helpers would use a
// C-locale object defined in libflatbuffers, which relite does not link.
#include "src/kernels/cpu/internal/flexbuffer_options.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "flatbuffers/flexbuffers.h"

namespace relite::cpu {
namespace {

bool IsValidWidth(uint64_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }

uint64_t ReadUnsigned(const uint8_t* p, size_t width) {
  // Little-endian, any alignment (only used before flexbuffers reads the bytes).
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

const char* TypeName(flexbuffers::Type t) {
  switch (t) {
    case flexbuffers::FBT_NULL: return "null";
    case flexbuffers::FBT_INT:
    case flexbuffers::FBT_INDIRECT_INT: return "int";
    case flexbuffers::FBT_UINT:
    case flexbuffers::FBT_INDIRECT_UINT: return "uint";
    case flexbuffers::FBT_FLOAT:
    case flexbuffers::FBT_INDIRECT_FLOAT: return "float";
    case flexbuffers::FBT_BOOL: return "bool";
    case flexbuffers::FBT_STRING: return "string";
    case flexbuffers::FBT_KEY: return "key";
    case flexbuffers::FBT_MAP: return "map";
    case flexbuffers::FBT_BLOB: return "blob";
    default: return "vector";
  }
}

}  // namespace

StatusOr<FlexbufferOptions> FlexbufferOptions::Parse(const Node& node) {
  FlexbufferOptions o;
  o.owner_ = node.Describe();
  const auto fail = [&](const std::string& why) {
    return InvalidArgumentError(o.owner_ + ": custom options " + why);
  };
  if (node.custom_options == nullptr || node.custom_options_size == 0) {
    return fail("are missing (a FlexBuffer map is expected)");
  }
  const size_t size = node.custom_options_size;
  if (size < 3) return fail("are not a FlexBuffer (" + std::to_string(size) + " bytes)");
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) return fail("are too large");
  o.size_ = size;
  o.storage_.assign((size + 7) / 8, 0);
  auto* buf = reinterpret_cast<uint8_t*>(o.storage_.data());
  std::memcpy(buf, node.custom_options, size);

  // The root reference sits just before the trailing (type, width) bytes;
  // flexbuffers reads it with a load of `width` bytes, so it must be aligned
  // (the builder always aligns it; the verifier does not check it).
  const uint8_t root_width = buf[size - 1];
  if (!IsValidWidth(root_width) || size - 2 < root_width || (size - 2 - root_width) % root_width != 0) {
    return fail("are not a valid FlexBuffer (bad root)");
  }
  if (!flexbuffers::VerifyBuffer(buf, size)) return fail("are not a valid FlexBuffer (verification failed)");
  const flexbuffers::Reference root = flexbuffers::GetRoot(buf, size);
  if (!root.IsMap()) return fail(std::string("are a FlexBuffer ") + TypeName(root.GetType()) + ", not a map");

  // The verifier checks the map's values but not the alignment of its keys
  // vector, which Map::operator[] reads with width-sized loads.
  const uint8_t* root_pos = buf + size - 2 - root_width;
  const uint8_t* map = root_pos - ReadUnsigned(root_pos, root_width);
  const size_t map_width = size_t{1} << (buf[size - 2] & 3);
  const uint8_t* keys_field = map - 3 * map_width;
  const uint64_t key_width = ReadUnsigned(keys_field + map_width, map_width);
  const uint8_t* keys = keys_field - ReadUnsigned(keys_field, map_width);
  if (!IsValidWidth(key_width) || static_cast<size_t>(keys - buf) % key_width != 0) {
    return fail("are not a valid FlexBuffer (misaligned keys)");
  }
  return o;
}

Status FlexbufferOptions::KeyError(const char* key, const std::string& what) const {
  return InvalidArgumentError(owner_ + ": custom option '" + key + "' " + what);
}

namespace {

flexbuffers::Reference Lookup(const std::vector<uint64_t>& storage, size_t size, const char* key) {
  const auto* buf = reinterpret_cast<const uint8_t*>(storage.data());
  return flexbuffers::GetRoot(buf, size).AsMap()[key];
}

bool IsIntegerType(flexbuffers::Type t) {
  return t == flexbuffers::FBT_INT || t == flexbuffers::FBT_UINT || t == flexbuffers::FBT_INDIRECT_INT ||
         t == flexbuffers::FBT_INDIRECT_UINT;
}
bool IsFloatType(flexbuffers::Type t) { return t == flexbuffers::FBT_FLOAT || t == flexbuffers::FBT_INDIRECT_FLOAT; }

}  // namespace

bool FlexbufferOptions::Has(const char* key) const { return !Lookup(storage_, size_, key).IsNull(); }

StatusOr<int32_t> FlexbufferOptions::GetInt(const char* key) const {
  const flexbuffers::Reference r = Lookup(storage_, size_, key);
  const flexbuffers::Type t = r.GetType();
  if (t == flexbuffers::FBT_NULL) return KeyError(key, "is missing");
  if (t == flexbuffers::FBT_BOOL) return static_cast<int32_t>(r.AsBool() ? 1 : 0);
  if (t == flexbuffers::FBT_UINT || t == flexbuffers::FBT_INDIRECT_UINT) {
    const uint64_t v = r.AsUInt64();
    if (v > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return KeyError(key, "is out of range: " + std::to_string(v));
    }
    return static_cast<int32_t>(v);
  }
  if (IsIntegerType(t)) {
    const int64_t v = r.AsInt64();
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return KeyError(key, "is out of range: " + std::to_string(v));
    }
    return static_cast<int32_t>(v);
  }
  if (IsFloatType(t)) {
    // Converters write whole numbers as ints, but accept an integral float.
    const double v = r.AsDouble();
    if (!(v == std::floor(v)) || v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return KeyError(key, "must be an integer, got " + std::to_string(v));
    }
    return static_cast<int32_t>(v);
  }
  return KeyError(key, std::string("must be an integer, got a ") + TypeName(t));
}

StatusOr<float> FlexbufferOptions::GetFloat(const char* key) const {
  const flexbuffers::Reference r = Lookup(storage_, size_, key);
  const flexbuffers::Type t = r.GetType();
  if (t == flexbuffers::FBT_NULL) return KeyError(key, "is missing");
  double v = 0;
  if (IsFloatType(t)) {
    v = r.AsDouble();
  } else if (t == flexbuffers::FBT_UINT || t == flexbuffers::FBT_INDIRECT_UINT) {
    v = static_cast<double>(r.AsUInt64());
  } else if (IsIntegerType(t)) {
    v = static_cast<double>(r.AsInt64());
  } else {
    return KeyError(key, std::string("must be a number, got a ") + TypeName(t));
  }
  const float f = static_cast<float>(v);
  if (!std::isfinite(f)) return KeyError(key, "must be finite, got " + std::to_string(v));
  return f;
}

StatusOr<int32_t> FlexbufferOptions::GetInt(const char* key, int32_t default_value) const {
  if (!Has(key)) return default_value;
  return GetInt(key);
}

StatusOr<float> FlexbufferOptions::GetFloat(const char* key, float default_value) const {
  if (!Has(key)) return default_value;
  return GetFloat(key);
}

StatusOr<bool> FlexbufferOptions::GetBool(const char* key, bool default_value) const {
  const flexbuffers::Reference r = Lookup(storage_, size_, key);
  const flexbuffers::Type t = r.GetType();
  if (t == flexbuffers::FBT_NULL) return default_value;
  if (t == flexbuffers::FBT_BOOL) return r.AsBool();
  if (IsIntegerType(t)) return r.AsInt64() != 0;
  return KeyError(key, std::string("must be a bool, got a ") + TypeName(t));
}

}  // namespace relite::cpu
