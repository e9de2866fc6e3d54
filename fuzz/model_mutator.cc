#include "fuzz/model_mutator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tflite_generated.h"

namespace relite::fuzz {
namespace {

using flatbuffers::uoffset_t;

// The scalar field `vt` of a table, or null when the file leaves it at its
// default (then there is nothing in place to rewrite).
const uint8_t* FieldAddress(const void* table, flatbuffers::voffset_t vt) {
  return reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(vt);
}

class SiteCollector {
 public:
  SiteCollector(const uint8_t* base, std::vector<Site>* out) : base_(base), out_(out) {}

  void Field(SiteKind kind, const void* table, flatbuffers::voffset_t vt, uint8_t width, int32_t sg, int32_t owner,
             bool is_float = false) {
    if (table == nullptr) return;
    if (const uint8_t* p = FieldAddress(table, vt)) Add(kind, p, width, sg, owner, -1, is_float);
  }

  template <typename T>
  void Vector(SiteKind kind, const flatbuffers::Vector<T>* v, int32_t sg, int32_t owner, size_t limit = SIZE_MAX) {
    if (v == nullptr) return;
    const size_t n = std::min<size_t>(v->size(), limit);
    const auto* data = reinterpret_cast<const uint8_t*>(v->Data());
    for (size_t i = 0; i < n; ++i) {
      Add(kind, data + i * sizeof(T), sizeof(T), sg, owner, static_cast<int32_t>(i), std::is_floating_point_v<T>);
    }
  }

  // Every scalar-looking field of an options table, sized by the distance to
  // the next field (the layout is not known here; a vector offset mutated
  // this way makes the file fail verification, which is a fine test too).
  void OptionsTable(const void* table, int32_t sg, int32_t op) {
    if (table == nullptr) return;
    const auto* t = static_cast<const uint8_t*>(table);
    const uint8_t* vtable = t - flatbuffers::ReadScalar<flatbuffers::soffset_t>(t);
    const auto vsize = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable);
    const auto tsize = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable + 2);
    std::vector<uint16_t> offsets;
    for (uint16_t i = 4; i + 1 < vsize; i += 2) {
      const auto o = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable + i);
      if (o != 0) offsets.push_back(o);
    }
    std::sort(offsets.begin(), offsets.end());
    for (size_t k = 0; k < offsets.size(); ++k) {
      const int end = k + 1 < offsets.size() ? offsets[k + 1] : tsize;
      int width = end - offsets[k];
      if (width <= 0) continue;
      width = width >= 8 ? 8 : width >= 4 ? 4 : width >= 2 ? 2 : 1;
      Add(SiteKind::kOptionScalar, t + offsets[k], static_cast<uint8_t>(width), sg, op, static_cast<int32_t>(k), false);
    }
  }

  void Add(SiteKind kind, const uint8_t* p, size_t width, int32_t sg, int32_t owner, int32_t element, bool is_float) {
    Site s{kind, static_cast<size_t>(p - base_), static_cast<uint8_t>(width), sg, owner, element, is_float};
    out_->push_back(s);
  }

 private:
  const uint8_t* base_;
  std::vector<Site>* out_;
};

size_t TypeWidth(tflite::TensorType t, bool* is_float) {
  *is_float = false;
  switch (t) {
    case tflite::TensorType::FLOAT32: *is_float = true; return 4;
    case tflite::TensorType::INT32: return 4;
    case tflite::TensorType::INT64: return 8;
    case tflite::TensorType::UINT8:
    case tflite::TensorType::INT8:
    case tflite::TensorType::BOOL: return 1;
    case tflite::TensorType::INT16:
    case tflite::TensorType::FLOAT16: return 2;
    default: return 0;
  }
}

struct Rng {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }
  template <typename T, size_t N> T Pick(const T (&values)[N]) { return values[Below(N)]; }
};

int64_t ReadSite(const uint8_t* data, const Site& s) {
  switch (s.width) {
    case 1: return static_cast<int8_t>(data[s.offset]);
    case 2: { int16_t v; std::memcpy(&v, data + s.offset, 2); return v; }
    case 4: { int32_t v; std::memcpy(&v, data + s.offset, 4); return v; }
    default: { int64_t v; std::memcpy(&v, data + s.offset, 8); return v; }
  }
}

// An index into a list of `n` entries: usually valid (another tensor, the
// next buffer), sometimes just outside, sometimes absurd.
// Wrapping arithmetic: the values read from a file may be anything.
int64_t Add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t Twice(int64_t a) { return static_cast<int64_t>(static_cast<uint64_t>(a) << 1); }

int64_t IndexValue(Rng& rng, int64_t current, int64_t n) {
  static constexpr int64_t kOdd[] = {-1, -2, INT32_MAX, INT32_MIN, 1 << 16, 1 << 30};
  switch (rng.Below(6)) {
    case 0: return rng.Pick(kOdd);
    case 1: return n;
    case 2: return Add(current, 1);
    case 3: return Add(current, -1);
    default: return static_cast<int64_t>(rng.Below(static_cast<uint64_t>(std::max<int64_t>(n, 1))));
  }
}

int64_t DimValue(Rng& rng, int64_t d) {
  static constexpr int64_t kOdd[] = {0, 1, -1, 2, 3, 7, 65536, 1 << 20, 1 << 30, INT32_MAX, 1048576, 4096};
  switch (rng.Below(6)) {
    case 0:
    case 1: return rng.Pick(kOdd);
    case 2: return Add(d, 1);
    case 3: return Add(d, -1);
    case 4: return Twice(d);
    default: return static_cast<int64_t>(rng.Below(static_cast<uint64_t>(std::clamp<int64_t>(d, 1, INT32_MAX)) * 2 + 3));
  }
}

int64_t IntValue(Rng& rng, int64_t v) {
  static constexpr int64_t kOdd[] = {0, 1, -1, 2, 3, 4, 8, 127, 128, 255, 256, -128, -129, 32767, -32768,
                                     INT32_MAX, INT32_MIN, 1 << 16, 1 << 24};
  switch (rng.Below(5)) {
    case 0:
    case 1: return rng.Pick(kOdd);
    case 2: return Add(v, 1);
    case 3: return Add(v, -1);
    default: return v ^ static_cast<int64_t>(1ull << rng.Below(31));
  }
}

float FloatValue(Rng& rng, float v) {
  const float kOdd[] = {0.f, -0.f, 1.f, -1.f, std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::denorm_min(), 1e-30f, 1e30f, 3.4e38f};
  switch (rng.Below(4)) {
    case 0:
    case 1: return kOdd[rng.Below(sizeof(kOdd) / sizeof(kOdd[0]))];
    case 2: return v * 2.f;
    default: return v * 0.5f;
  }
}

}  // namespace

std::vector<Site> FindSites(const uint8_t* data, size_t size, ModelCounts* counts) {
  std::vector<Site> sites;
  if (size < 8 || !tflite::ModelBufferHasIdentifier(data)) return sites;
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/128, /*max_tables=*/10'000'000);
  if (!tflite::VerifyModelBuffer(verifier)) return sites;
  const tflite::Model* model = tflite::GetModel(data);
  SiteCollector c(data, &sites);
  if (counts != nullptr) {
    *counts = ModelCounts();
    counts->buffers = model->buffers() ? static_cast<int32_t>(model->buffers()->size()) : 0;
    counts->operator_codes = model->operator_codes() ? static_cast<int32_t>(model->operator_codes()->size()) : 0;
  }
  if (const auto* codes = model->operator_codes()) {
    for (uoffset_t i = 0; i < codes->size(); ++i) {
      const tflite::OperatorCode* oc = codes->Get(i);
      c.Field(SiteKind::kBuiltinCode, oc, tflite::OperatorCode::VT_BUILTIN_CODE, 4, 0, static_cast<int32_t>(i));
      c.Field(SiteKind::kBuiltinCode, oc, tflite::OperatorCode::VT_DEPRECATED_BUILTIN_CODE, 1, 0, static_cast<int32_t>(i));
      c.Field(SiteKind::kOpVersion, oc, tflite::OperatorCode::VT_VERSION, 4, 0, static_cast<int32_t>(i));
    }
  }
  const auto* subgraphs = model->subgraphs();
  if (subgraphs == nullptr) return sites;
  for (uoffset_t g = 0; g < subgraphs->size(); ++g) {
    const tflite::SubGraph* sg = subgraphs->Get(g);
    const auto gi = static_cast<int32_t>(g);
    if (counts != nullptr && g == 0) counts->tensors = sg->tensors() ? static_cast<int32_t>(sg->tensors()->size()) : 0;
    c.Vector(SiteKind::kGraphInput, sg->inputs(), gi, -1);
    c.Vector(SiteKind::kGraphOutput, sg->outputs(), gi, -1);
    if (const auto* tensors = sg->tensors()) {
      for (uoffset_t i = 0; i < tensors->size(); ++i) {
        const tflite::Tensor* t = tensors->Get(i);
        const auto ti = static_cast<int32_t>(i);
        c.Vector(SiteKind::kShapeDim, t->shape(), gi, ti);
        c.Field(SiteKind::kTensorType, t, tflite::Tensor::VT_TYPE, 1, gi, ti);
        c.Field(SiteKind::kTensorBuffer, t, tflite::Tensor::VT_BUFFER, 4, gi, ti);
        c.Field(SiteKind::kTensorVariable, t, tflite::Tensor::VT_IS_VARIABLE, 1, gi, ti);
        if (const auto* q = t->quantization()) {
          c.Vector(SiteKind::kQuantScale, q->scale(), gi, ti, 8);
          c.Vector(SiteKind::kQuantZeroPoint, q->zero_point(), gi, ti, 8);
          c.Field(SiteKind::kQuantDim, q, tflite::QuantizationParameters::VT_QUANTIZED_DIMENSION, 4, gi, ti);
        }
        // The values of constants: all of a small one (shapes, axes,
        // paddings, sizes), a few of a large one.
        bool is_float = false;
        const size_t width = TypeWidth(t->type(), &is_float);
        const auto* buffers = model->buffers();
        if (width > 0 && buffers != nullptr && t->buffer() < buffers->size()) {
          const tflite::Buffer* b = buffers->Get(t->buffer());
          if (b != nullptr && b->data() != nullptr && b->data()->size() >= width) {
            const size_t n = b->data()->size() / width;
            const size_t step = n <= 16 ? 1 : n / 8;
            for (size_t e = 0; e < n && e / step < 16; e += step) {
              c.Add(SiteKind::kConstantValue, b->data()->data() + e * width, width, gi, ti, static_cast<int32_t>(e), is_float);
            }
          }
        }
      }
    }
    if (const auto* ops = sg->operators()) {
      for (uoffset_t i = 0; i < ops->size(); ++i) {
        const tflite::Operator* op = ops->Get(i);
        const auto oi = static_cast<int32_t>(i);
        c.Field(SiteKind::kOpcodeIndex, op, tflite::Operator::VT_OPCODE_INDEX, 4, gi, oi);
        c.Vector(SiteKind::kOpInput, op->inputs(), gi, oi);
        c.Vector(SiteKind::kOpOutput, op->outputs(), gi, oi);
        c.Vector(SiteKind::kOpIntermediate, op->intermediates(), gi, oi);
        // Only a table the verifier checked (a known union type) has a vtable to trust.
        const auto type = static_cast<int>(op->builtin_options_type());
        if (type > 0 && type <= static_cast<int>(tflite::BuiltinOptions::MAX)) c.OptionsTable(op->builtin_options(), gi, oi);
      }
    }
  }
  return sites;
}

const Site* FindSite(const std::vector<Site>& sites, SiteKind kind, int32_t owner, int32_t element) {
  for (const Site& s : sites) {
    if (s.kind == kind && s.subgraph == 0 && s.owner == owner && s.element == element) return &s;
  }
  return nullptr;
}

void WriteSite(uint8_t* data, const Site& s, int64_t value) {
  switch (s.width) {
    case 1: { const auto v = static_cast<int8_t>(value); std::memcpy(data + s.offset, &v, 1); break; }
    case 2: { const auto v = static_cast<int16_t>(value); std::memcpy(data + s.offset, &v, 2); break; }
    case 4: { const auto v = static_cast<int32_t>(value); std::memcpy(data + s.offset, &v, 4); break; }
    default: std::memcpy(data + s.offset, &value, 8); break;
  }
}

void WriteSiteFloat(uint8_t* data, const Site& s, float value) {
  if (s.width == 4) {
    std::memcpy(data + s.offset, &value, 4);
  } else if (s.width == 8) {
    const double d = value;
    std::memcpy(data + s.offset, &d, 8);
  } else {
    WriteSite(data, s, static_cast<int64_t>(std::isfinite(value) ? value : 0.f));
  }
}

bool Mutate(uint8_t* data, size_t size, uint64_t seed) {
  ModelCounts counts;
  const std::vector<Site> sites = FindSites(data, size, &counts);
  if (sites.empty()) return false;
  Rng rng{seed};
  const int edits = 1 + static_cast<int>(rng.Below(4));
  for (int k = 0; k < edits; ++k) {
    const Site& s = sites[rng.Below(sites.size())];
    const int64_t v = ReadSite(data, s);
    switch (s.kind) {
      case SiteKind::kShapeDim:
        WriteSite(data, s, DimValue(rng, v));
        break;
      case SiteKind::kOpInput:
      case SiteKind::kOpOutput:
      case SiteKind::kOpIntermediate:
      case SiteKind::kGraphInput:
      case SiteKind::kGraphOutput:
        WriteSite(data, s, IndexValue(rng, v, counts.tensors));
        break;
      case SiteKind::kTensorBuffer:
        WriteSite(data, s, IndexValue(rng, v, counts.buffers));
        break;
      case SiteKind::kOpcodeIndex:
        WriteSite(data, s, IndexValue(rng, v, counts.operator_codes));
        break;
      case SiteKind::kTensorType:
        WriteSite(data, s, rng.Below(8) == 0 ? IntValue(rng, v) : static_cast<int64_t>(rng.Below(18)));
        break;
      case SiteKind::kTensorVariable:
        WriteSite(data, s, v == 0 ? 1 : 0);
        break;
      case SiteKind::kBuiltinCode:
        WriteSite(data, s, rng.Below(3) == 0 ? IntValue(rng, v) : static_cast<int64_t>(rng.Below(s.width == 1 ? 127 : 210)));
        break;
      case SiteKind::kOpVersion:
        WriteSite(data, s, rng.Below(2) ? Add(v, static_cast<int64_t>(rng.Below(3)) - 1) : IntValue(rng, v));
        break;
      case SiteKind::kQuantScale: {
        float f;
        std::memcpy(&f, data + s.offset, 4);
        WriteSiteFloat(data, s, FloatValue(rng, f));
        break;
      }
      case SiteKind::kQuantZeroPoint:
      case SiteKind::kQuantDim:
        WriteSite(data, s, IntValue(rng, v));
        break;
      case SiteKind::kOptionScalar:
        if (s.width == 4 && rng.Below(3) == 0) {
          float f;
          std::memcpy(&f, data + s.offset, 4);
          WriteSiteFloat(data, s, FloatValue(rng, f));
        } else {
          WriteSite(data, s, IntValue(rng, v));
        }
        break;
      case SiteKind::kConstantValue:
        if (s.is_float) {
          float f;
          std::memcpy(&f, data + s.offset, 4);
          WriteSiteFloat(data, s, FloatValue(rng, f));
        } else {
          WriteSite(data, s, s.width >= 4 && rng.Below(2) ? DimValue(rng, v) : IntValue(rng, v));
        }
        break;
    }
  }
  return true;
}

}  // namespace relite::fuzz
