#include "tools/relite/tensor_io.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#include "stb_image.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace relite::cli {
namespace {

static_assert(std::endian::native == std::endian::little, "relite CLI assumes a little-endian host");

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return Lower(path.substr(dot));
}

std::string InputLabel(int index, const Tensor& t) {
  return t.name.empty() ? fmt::format("input {}", index) : fmt::format("input {} ('{}')", index, t.name);
}

std::string ShapeStr(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// splitmix64: a tiny, portable generator (std distributions are not
// specified bit-exactly across standard libraries).
struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
};

struct NpyType {
  const char* descr;
  DataType type;
};
constexpr NpyType kNpyTypes[] = {
    {"<f4", DataType::kFloat32}, {"<f2", DataType::kFloat16},  {"<f8", DataType::kFloat64},
    {"|u1", DataType::kUInt8},   {"|i1", DataType::kInt8},     {"<i2", DataType::kInt16},
    {"<u2", DataType::kUInt16},  {"<i4", DataType::kInt32},    {"<u4", DataType::kUInt32},
    {"<i8", DataType::kInt64},   {"<u8", DataType::kUInt64},   {"|b1", DataType::kBool},
    {"<c8", DataType::kComplex64}, {"<c16", DataType::kComplex128},
};

// Normalises byte-order marks: '=' means native (little) and single-byte
// types may be written with any mark.
std::string NormaliseDescr(std::string d) {
  if (d.size() < 2) return d;
  if (d[0] == '=') d[0] = '<';
  if (d.size() == 3 && d[2] == '1' && (d[0] == '<' || d[0] == '>' || d[0] == '|')) d[0] = '|';
  return d;
}

// Minimal parser for the header dict, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 128, 128, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& s) : s_(s) {}

  Status Parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    Skip();
    if (!Eat('{')) return Bad("header is not a dict");
    while (true) {
      Skip();
      if (Eat('}')) break;
      std::string key;
      RELITE_RETURN_IF_ERROR(String(&key));
      Skip();
      if (!Eat(':')) return Bad("expected ':' after key");
      Skip();
      if (key == "descr") {
        RELITE_RETURN_IF_ERROR(String(descr));
        have_descr = true;
      } else if (key == "fortran_order") {
        if (s_.compare(pos_, 4, "True") == 0) {
          *fortran = true;
          pos_ += 4;
        } else if (s_.compare(pos_, 5, "False") == 0) {
          *fortran = false;
          pos_ += 5;
        } else {
          return Bad("fortran_order is not True/False");
        }
        have_fortran = true;
      } else if (key == "shape") {
        RELITE_RETURN_IF_ERROR(Tuple(shape));
        have_shape = true;
      } else {
        return Bad(fmt::format("unexpected key '{}'", key));
      }
      Skip();
      if (Eat(',')) continue;
      Skip();
      if (Eat('}')) break;
      return Bad("expected ',' or '}'");
    }
    if (!have_descr || !have_fortran || !have_shape) return Bad("missing descr, fortran_order or shape");
    return Status::Ok();
  }

 private:
  Status Bad(const std::string& why) const { return InvalidArgumentError("malformed .npy header: " + why); }
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status String(std::string* out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return Bad("expected a string");
    char q = s_[pos_++];
    size_t end = s_.find(q, pos_);
    if (end == std::string::npos) return Bad("unterminated string");
    *out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return Status::Ok();
  }
  Status Tuple(std::vector<int64_t>* out) {
    out->clear();
    if (!Eat('(')) return Bad("shape is not a tuple");
    while (true) {
      Skip();
      if (Eat(')')) return Status::Ok();
      size_t start = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (pos_ == start || pos_ - start > 18) return Bad("bad shape dimension");
      out->push_back(std::stoll(s_.substr(start, pos_ - start)));
      Skip();
      if (Eat(',')) continue;
      Skip();
      if (Eat(')')) return Status::Ok();
      return Bad("bad shape tuple");
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

Status WriteFile(const std::string& path, const void* header, size_t header_size, const void* data,
                 size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return IoError(fmt::format("cannot create '{}': {}", path, std::strerror(errno)));
  bool ok = (header_size == 0 || std::fwrite(header, 1, header_size, f) == header_size) &&
            (size == 0 || std::fwrite(data, 1, size, f) == size);
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) return IoError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  return Status::Ok();
}

// Where an image goes in the tensor: height, width, channels.
Status ImageLayout(int index, const Tensor& t, int* h, int* w, int* c) {
  const Shape& s = t.shape;
  if (s.size() == 4 && s[0] == 1) {
    *h = s[1], *w = s[2], *c = s[3];
  } else if (s.size() == 3 && s[0] == 1 && s[2] != 1 && s[2] != 3 && s[2] != 4) {
    // [1,H,W]: a single-channel image without a channel axis (e.g. MNIST).
    *h = s[1], *w = s[2], *c = 1;
  } else if (s.size() == 3) {
    *h = s[0], *w = s[1], *c = s[2];
  } else {
    return InvalidArgumentError(fmt::format("{} has shape {}: an image needs [1,H,W,C] or [H,W,C]",
                                            InputLabel(index, t), ShapeToString(s)));
  }
  if (*c != 1 && *c != 3 && *c != 4)
    return InvalidArgumentError(fmt::format("{} has {} channels (shape {}): an image input needs 1, 3 or 4",
                                            InputLabel(index, t), *c, ShapeToString(s)));
  if (*h <= 0 || *w <= 0)
    return InvalidArgumentError(
        fmt::format("{} has shape {}: not a valid image size", InputLabel(index, t), ShapeToString(s)));
  return Status::Ok();
}

Status FillFromImage(const std::string& path, int index, Tensor& t, FloatRange range, std::string* description) {
  int h = 0, w = 0, c = 0;
  RELITE_RETURN_IF_ERROR(ImageLayout(index, t, &h, &w, &c));
  switch (t.type) {
    case DataType::kUInt8:
    case DataType::kInt8:
    case DataType::kFloat32:
    case DataType::kFloat16:
      break;
    default:
      return InvalidArgumentError(fmt::format("{} is {}: images can only feed uint8, int8 or float inputs",
                                              InputLabel(index, t), DataTypeName(t.type)));
  }
  int src_w = 0, src_h = 0;
  auto pixels = LoadImageResized(path, h, w, c, &src_w, &src_h);
  if (!pixels.ok()) return pixels.status();
  const std::vector<uint8_t>& px = *pixels;
  const size_t n = px.size();
  if (t.data == nullptr || t.bytes != n * DataTypeSize(t.type))
    return InternalError(fmt::format("{} is not allocated as expected", InputLabel(index, t)));
  switch (t.type) {
    case DataType::kUInt8:
      std::memcpy(t.data, px.data(), n);
      break;
    case DataType::kInt8: {
      auto* d = static_cast<int8_t*>(t.data);
      for (size_t i = 0; i < n; ++i) d[i] = static_cast<int8_t>(static_cast<int>(px[i]) - 128);
      break;
    }
    case DataType::kFloat32:
    case DataType::kFloat16: {
      for (size_t i = 0; i < n; ++i) {
        double p = px[i];
        float v = static_cast<float>(range == FloatRange::kZeroToOne ? p / 255.0 : p / 127.5 - 1.0);
        if (t.type == DataType::kFloat32)
          static_cast<float*>(t.data)[i] = v;
        else
          static_cast<uint16_t*>(t.data)[i] = FloatToHalf(v);
      }
      break;
    }
    default:
      break;
  }
  if (description != nullptr) *description = fmt::format("image {}x{} -> {}x{}x{}", src_w, src_h, w, h, c);
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return IoError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::vector<uint8_t> data;
  uint8_t buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0) data.insert(data.end(), buf, buf + got);
  bool err = std::ferror(f) != 0;
  std::fclose(f);
  if (err) return IoError(fmt::format("cannot read '{}'", path));
  return data;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t FloatToHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return sign | (abs > 0x7F800000u ? 0x7E00 : 0x7C00);  // NaN / inf
  if (abs >= 0x477FF000u) return sign | 0x7C00;                                 // overflow -> inf
  if (abs < 0x38800000u) {                                                       // subnormal or zero
    // Round to nearest even at 2^-24 granularity.
    float a = std::bit_cast<float>(abs);
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  uint32_t mant = abs & 0x7FFFFFu;
  uint32_t exp = (abs >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: fine
  return sign | static_cast<uint16_t>(h);
}

bool IsNumeric(DataType type) {
  switch (type) {
    case DataType::kFloat32:
    case DataType::kFloat16:
    case DataType::kFloat64:
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16:
    case DataType::kUInt16:
    case DataType::kInt32:
    case DataType::kUInt32:
    case DataType::kInt64:
    case DataType::kUInt64:
    case DataType::kBool:
      return true;
    default:
      return false;
  }
}

double ElementAsDouble(const Tensor& t, int64_t i) {
  const void* d = t.data;
  switch (t.type) {
    case DataType::kFloat32: return static_cast<const float*>(d)[i];
    case DataType::kFloat16: return HalfToFloat(static_cast<const uint16_t*>(d)[i]);
    case DataType::kFloat64: return static_cast<const double*>(d)[i];
    case DataType::kInt8: return static_cast<const int8_t*>(d)[i];
    case DataType::kUInt8: return static_cast<const uint8_t*>(d)[i];
    case DataType::kInt16: return static_cast<const int16_t*>(d)[i];
    case DataType::kUInt16: return static_cast<const uint16_t*>(d)[i];
    case DataType::kInt32: return static_cast<const int32_t*>(d)[i];
    case DataType::kUInt32: return static_cast<const uint32_t*>(d)[i];
    case DataType::kInt64: return static_cast<double>(static_cast<const int64_t*>(d)[i]);
    case DataType::kUInt64: return static_cast<double>(static_cast<const uint64_t*>(d)[i]);
    case DataType::kBool: return static_cast<const uint8_t*>(d)[i] != 0 ? 1.0 : 0.0;
    default: return 0.0;
  }
}

TensorStats ComputeStats(const Tensor& t) {
  TensorStats s;
  if (!IsNumeric(t.type) || t.data == nullptr) return s;
  size_t elem = DataTypeSize(t.type);
  int64_t n = t.num_elements();
  if (elem == 0 || n < 0 || static_cast<size_t>(n) * elem > t.bytes) n = static_cast<int64_t>(t.bytes / std::max<size_t>(elem, 1));
  s.numeric = true;
  s.count = n;
  double sum = 0;
  bool first = true;
  for (int64_t i = 0; i < n; ++i) {
    double v = ElementAsDouble(t, i);
    if (std::isnan(v)) {
      ++s.nan;
      continue;
    }
    if (first) {
      s.min = s.max = v;
      first = false;
    }
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
  }
  int64_t finite = n - s.nan;
  s.mean = finite > 0 ? sum / static_cast<double>(finite) : 0.0;
  return s;
}

std::string NpyDescr(DataType type) {
  for (const auto& e : kNpyTypes)
    if (e.type == type) return e.descr;
  return "";
}

StatusOr<NpyArray> ReadNpy(const std::string& path) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  const std::vector<uint8_t>& b = *bytes;
  auto bad = [&](const std::string& why) { return InvalidArgumentError(fmt::format("'{}': {}", path, why)); };
  static const uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (b.size() < 10 || std::memcmp(b.data(), kMagic, 6) != 0) return bad("not a .npy file (bad magic)");
  int major = b[6];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = b[8] | (static_cast<size_t>(b[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return bad("truncated .npy header");
    header_len = b[8] | (static_cast<size_t>(b[9]) << 8) | (static_cast<size_t>(b[10]) << 16) |
                 (static_cast<size_t>(b[11]) << 24);
    header_start = 12;
  } else {
    return bad(fmt::format("unsupported .npy format version {}.{}", major, b[7]));
  }
  if (header_start + header_len > b.size()) return bad("truncated .npy header");
  std::string header(reinterpret_cast<const char*>(b.data() + header_start), header_len);
  std::string descr;
  bool fortran = false;
  NpyArray a;
  Status st = HeaderParser(header).Parse(&descr, &fortran, &a.shape);
  if (!st.ok()) return bad(st.message());
  if (fortran) return bad("fortran_order=True is not supported (save a C-ordered array)");
  a.descr = NormaliseDescr(descr);
  bool known = false;
  for (const auto& e : kNpyTypes) {
    if (a.descr == e.descr) {
      a.type = e.type;
      known = true;
    }
  }
  if (!known) return bad(fmt::format("unsupported .npy dtype '{}'", descr));
  int64_t count = 1;
  for (int64_t d : a.shape) {
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / 16 / d) return bad("shape too large");
    count *= d;
  }
  size_t need = static_cast<size_t>(count) * DataTypeSize(a.type);
  size_t have = b.size() - header_start - header_len;
  if (have != need)
    return bad(fmt::format("data is {} bytes but dtype {} shape {} needs {}", have, a.descr, ShapeStr(a.shape), need));
  a.data.assign(b.begin() + static_cast<std::ptrdiff_t>(header_start + header_len), b.end());
  return a;
}

Status CheckPngChecksums(const std::string& path, const std::vector<uint8_t>& file) {
  static constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (file.size() < 8 || std::memcmp(file.data(), kSignature, 8) != 0) return Status::Ok();  // not a PNG
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  auto be32 = [&](size_t at) {
    return (uint32_t{file[at]} << 24) | (uint32_t{file[at + 1]} << 16) | (uint32_t{file[at + 2]} << 8) | file[at + 3];
  };
  size_t at = 8;
  while (true) {
    if (file.size() - at < 12) return InvalidArgumentError(fmt::format("PNG '{}' is truncated at byte {} (no IEND chunk)", path, at));
    const uint32_t length = be32(at);
    if (length > file.size() - at - 12) {
      return InvalidArgumentError(fmt::format("PNG '{}': the chunk at byte {} claims {} bytes, past the end of the file", path, at, length));
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = at + 4; i < at + 8 + length; ++i) crc = table[(crc ^ file[i]) & 0xFF] ^ (crc >> 8);
    crc ^= 0xFFFFFFFFu;
    const std::string type(reinterpret_cast<const char*>(file.data() + at + 4), 4);
    if (crc != be32(at + 8 + length)) {
      return InvalidArgumentError(fmt::format("PNG '{}': chunk '{}' at byte {} has a bad CRC (the file is corrupted)", path,
                                              EscapeUntrusted(type), at));
    }
    at += 12 + length;
    if (type == "IEND") return Status::Ok();
  }
}

StatusOr<std::vector<uint8_t>> LoadImageResized(const std::string& path, int height, int width, int channels,
                                                int* src_w_out, int* src_h_out) {
  if (channels != 1 && channels != 3 && channels != 4)
    return InvalidArgumentError(fmt::format("cannot make a {}-channel image", channels));
  int sw = 0, sh = 0, file_channels = 0;
  RELITE_ASSIGN_OR_RETURN(std::vector<uint8_t> file, ReadFileBytes(path));
  if (file.size() > static_cast<size_t>(INT32_MAX)) return InvalidArgumentError(fmt::format("image '{}' is over 2 GiB", path));
  // stb_image does not check PNG checksums: a corrupted file would decode to
  // wrong pixels without a word.
  RELITE_RETURN_IF_ERROR(CheckPngChecksums(path, file));
  const int file_size = static_cast<int>(file.size());
  if (!stbi_info_from_memory(file.data(), file_size, &sw, &sh, &file_channels)) {
    return InvalidArgumentError(fmt::format("cannot decode image '{}': {}", path, stbi_failure_reason()));
  }
  constexpr int64_t kMaxPixels = int64_t{1} << 28;  // 268 megapixels
  if (static_cast<int64_t>(sw) * sh > kMaxPixels) {
    return InvalidArgumentError(fmt::format("image '{}' is {}x{}, over the {} pixels relite decodes", path, sw, sh, kMaxPixels));
  }
  stbi_uc* rgb = stbi_load_from_memory(file.data(), file_size, &sw, &sh, &file_channels, 3);
  if (rgb == nullptr)
    return InvalidArgumentError(fmt::format("cannot decode image '{}': {}", path, stbi_failure_reason()));
  std::unique_ptr<stbi_uc, void (*)(void*)> holder(rgb, stbi_image_free);
  if (src_w_out) *src_w_out = sw;
  if (src_h_out) *src_h_out = sh;

  // Channel conversion first (an 8-bit image of `channels` channels).
  const size_t npx = static_cast<size_t>(sw) * static_cast<size_t>(sh);
  std::vector<uint8_t> src(npx * static_cast<size_t>(channels));
  for (size_t i = 0; i < npx; ++i) {
    const uint8_t* p = rgb + 3 * i;
    if (channels == 1) {
      src[i] = static_cast<uint8_t>((p[0] + p[1] + p[2] + 1) / 3);  // mean, rounded half up
    } else {
      for (int c = 0; c < 3; ++c) src[static_cast<size_t>(channels) * i + static_cast<size_t>(c)] = p[c];
      if (channels == 4) src[4 * i + 3] = 255;
    }
  }

  // Bilinear, half-pixel centres: src = (dst + 0.5) * in / out - 0.5,
  // clamped to [0, in - 1]; no antialiasing. Computed in double exactly like
  // the reference inputs in golden/ were made.
  struct Tap {
    int i0, i1;
    double w;
  };
  auto taps = [](int out, int in) {
    std::vector<Tap> t(static_cast<size_t>(out));
    for (int o = 0; o < out; ++o) {
      double f = (o + 0.5) * in / out - 0.5;
      f = std::clamp(f, 0.0, static_cast<double>(in - 1));
      int i0 = static_cast<int>(std::floor(f));
      t[static_cast<size_t>(o)] = {i0, std::min(i0 + 1, in - 1), f - i0};
    }
    return t;
  };
  std::vector<Tap> ty = taps(height, sh), tx = taps(width, sw);
  const size_t C = static_cast<size_t>(channels);
  std::vector<uint8_t> out(static_cast<size_t>(height) * static_cast<size_t>(width) * C);
  auto at = [&](int y, int x, size_t c) -> double {
    return src[(static_cast<size_t>(y) * static_cast<size_t>(sw) + static_cast<size_t>(x)) * C + c];
  };
  for (int y = 0; y < height; ++y) {
    const Tap& vy = ty[static_cast<size_t>(y)];
    for (int x = 0; x < width; ++x) {
      const Tap& vx = tx[static_cast<size_t>(x)];
      for (size_t c = 0; c < C; ++c) {
        double top = at(vy.i0, vx.i0, c) * (1.0 - vx.w) + at(vy.i0, vx.i1, c) * vx.w;
        double bottom = at(vy.i1, vx.i0, c) * (1.0 - vx.w) + at(vy.i1, vx.i1, c) * vx.w;
        double v = top * (1.0 - vy.w) + bottom * vy.w;
        v = std::clamp(v, 0.0, 255.0);
        out[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * C + c] =
            static_cast<uint8_t>(std::floor(v + 0.5));  // half away from zero (v >= 0)
      }
    }
  }
  return out;
}

Status ResizeInputsToNpy(Interpreter& interp, const std::vector<std::string>& inputs) {
  bool resized = false;
  for (size_t i = 0; i < inputs.size() && static_cast<int>(i) < interp.num_inputs(); ++i) {
    if (Extension(inputs[i]) != ".npy") continue;
    auto arr = ReadNpy(inputs[i]);
    if (!arr.ok()) return arr.status();
    const Tensor& t = *interp.input_tensor(static_cast<int>(i));
    Shape shape;
    for (int64_t d : arr->shape) {
      if (d > std::numeric_limits<int32_t>::max()) return InvalidArgumentError(fmt::format("'{}': dimension {} too large", inputs[i], d));
      shape.push_back(static_cast<int32_t>(d));
    }
    if (shape == t.shape) continue;
    const Shape& signature = t.shape_signature;
    bool allowed = !signature.empty() && signature.size() == shape.size();
    for (size_t d = 0; allowed && d < shape.size(); ++d) allowed = signature[d] == -1 || signature[d] == shape[d];
    if (!allowed) {
      const bool free = std::find(signature.begin(), signature.end(), -1) != signature.end();
      return InvalidArgumentError(fmt::format(
          "'{}' has shape {} but {} has shape {}{}", inputs[i], ShapeStr(arr->shape),
          InputLabel(static_cast<int>(i), t), ShapeToString(t.shape),
          free ? fmt::format(" and its signature {} lets only the dimensions marked -1 change", ShapeToString(signature))
               : " (the model marks no dimension of it free)"));
    }
    RELITE_RETURN_IF_ERROR(interp.ResizeInputTensorStrict(static_cast<int>(i), shape));
    resized = true;
  }
  if (!resized) return Status::Ok();
  Status s = interp.AllocateTensors();
  return s.ok() ? s : s.WithContext("after resizing the inputs to the .npy shapes");
}

Status FillInputFromFile(const std::string& path, int index, Tensor& t, FloatRange range, std::string* description) {
  const std::string ext = Extension(path);
  if (ext == ".bin") {
    auto bytes = ReadFileBytes(path);
    if (!bytes.ok()) return bytes.status();
    if (bytes->size() != t.bytes)
      return InvalidArgumentError(fmt::format("'{}' has {} bytes but {} ({} {}) needs exactly {}", path,
                                              bytes->size(), InputLabel(index, t), DataTypeName(t.type),
                                              ShapeToString(t.shape), t.bytes));
    if (!bytes->empty()) std::memcpy(t.data, bytes->data(), bytes->size());
    if (description) *description = fmt::format("raw {} bytes", bytes->size());
    return Status::Ok();
  }
  if (ext == ".npy") {
    auto arr = ReadNpy(path);
    if (!arr.ok()) return arr.status();
    if (arr->type != t.type)
      return InvalidArgumentError(fmt::format("'{}' has dtype {} ('{}') but {} is {}", path, DataTypeName(arr->type),
                                              arr->descr, InputLabel(index, t), DataTypeName(t.type)));
    bool same_shape = arr->shape.size() == t.shape.size();
    for (size_t i = 0; same_shape && i < arr->shape.size(); ++i) same_shape = arr->shape[i] == t.shape[i];
    if (!same_shape)
      return InvalidArgumentError(fmt::format("'{}' has shape {} but {} has shape {}", path, ShapeStr(arr->shape),
                                              InputLabel(index, t), ShapeToString(t.shape)));
    if (arr->data.size() != t.bytes)
      return InvalidArgumentError(fmt::format("'{}' has {} data bytes but {} needs {}", path, arr->data.size(),
                                              InputLabel(index, t), t.bytes));
    if (!arr->data.empty()) std::memcpy(t.data, arr->data.data(), arr->data.size());
    if (description) *description = fmt::format("npy {} {}", arr->descr, ShapeStr(arr->shape));
    return Status::Ok();
  }
  if (ext == ".bmp" || ext == ".png" || ext == ".jpg" || ext == ".jpeg")
    return FillFromImage(path, index, t, range, description);
  return InvalidArgumentError(fmt::format(
      "'{}' for {}: unsupported file type '{}' (expected .bin, .npy, .bmp, .png, .jpg or .jpeg)", path,
      InputLabel(index, t), ext.empty() ? "(none)" : ext));
}

void FillPseudoRandom(Tensor& t, uint64_t seed) {
  if (t.data == nullptr) return;
  SplitMix64 rng{seed * 0x2545F4914F6CDD1Dull + 0x1234567ull};
  size_t elem = DataTypeSize(t.type);
  if (elem == 0) {
    std::memset(t.data, 0, t.bytes);
    return;
  }
  size_t n = t.bytes / elem;
  auto uniform = [&] { return static_cast<float>(rng.Unit() * 2.0 - 1.0); };
  for (size_t i = 0; i < n; ++i) {
    void* d = t.data;
    switch (t.type) {
      case DataType::kFloat32: static_cast<float*>(d)[i] = uniform(); break;
      case DataType::kFloat16: static_cast<uint16_t*>(d)[i] = FloatToHalf(uniform()); break;
      case DataType::kFloat64: static_cast<double*>(d)[i] = rng.Unit() * 2.0 - 1.0; break;
      case DataType::kComplex64:
        static_cast<float*>(d)[2 * i] = uniform();
        static_cast<float*>(d)[2 * i + 1] = uniform();
        break;
      case DataType::kComplex128:
        static_cast<double*>(d)[2 * i] = rng.Unit() * 2.0 - 1.0;
        static_cast<double*>(d)[2 * i + 1] = rng.Unit() * 2.0 - 1.0;
        break;
      case DataType::kBool: static_cast<uint8_t*>(d)[i] = static_cast<uint8_t>(rng.Next() >> 63); break;
      default: {  // integers: uniform over the whole range = random bits
        uint64_t r = rng.Next();
        std::memcpy(static_cast<uint8_t*>(d) + i * elem, &r, elem);
        break;
      }
    }
  }
}

Status WriteTensorBin(const std::string& path, const Tensor& t) {
  return WriteFile(path, nullptr, 0, t.data, t.data ? t.bytes : 0);
}

Status WriteTensorNpy(const std::string& path, const Tensor& t) {
  std::string descr = NpyDescr(t.type);
  std::string shape;
  size_t elem = DataTypeSize(t.type);
  if (descr.empty() || elem == 0 || static_cast<size_t>(t.num_elements()) * elem != t.bytes) {
    // No .npy equivalent (string, int4, ...): store the raw bytes.
    descr = "|u1";
    shape = fmt::format("({},)", t.bytes);
  } else {
    shape = "(";
    for (size_t i = 0; i < t.shape.size(); ++i) shape += fmt::format("{}, ", t.shape[i]);
    if (t.shape.size() > 1) shape.resize(shape.size() - 2);
    if (t.shape.size() == 1) shape.resize(shape.size() - 1);
    shape += ")";
  }
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  // Pad with spaces so that data starts at a multiple of 64, end with '\n'.
  size_t total = 10 + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string header = "\x93NUMPY";
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(dict.size() & 0xFF);
  header += static_cast<char>((dict.size() >> 8) & 0xFF);
  header += dict;
  return WriteFile(path, header.data(), header.size(), t.data, t.data ? t.bytes : 0);
}

}  // namespace relite::cli
