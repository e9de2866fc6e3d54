#include "src/kernels/cpu/internal/qgemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {

QGemmLayout QGemmLayoutFor(int64_t rows) {
  if (Kernels().qgemm_quads != nullptr) return QGemmLayout::kQuads;
  return QGemmPrefersBytes(rows) ? QGemmLayout::kBytes : QGemmLayout::kPairs;
}

namespace {

// kQuads: panel p, quad j holds 16 columns x 4 bytes (k = 4j..4j+3): int8
// for a signed-weight dot product (vpdpbusd), uint8 for an unsigned one
// (udot; CpuKernels::qgemm_quads_unsigned_weights).
bool PackQuads(const uint8_t* bytes, bool is_signed, int n, int k, size_t row_stride, const int32_t* w_zp,
               bool w_zp_per_row, QGemmWeights* out) {
  const CpuKernels& kernels = Kernels();
  if (kernels.qgemm_quads == nullptr) return false;
  out->quads_fn = kernels.qgemm_quads;
  const bool unsigned_weights = kernels.qgemm_quads_unsigned_weights;
  out->quads = static_cast<int>((static_cast<int64_t>(k) + 3) / 4);
  const size_t cols = static_cast<size_t>(out->panels) * kQGemmPanelWidth;
  const size_t values = cols * static_cast<size_t>(out->quads) * 4;
  out->packed4.Resize(values);
  if (out->packed4.data() == nullptr) return false;
  uint8_t* packed = out->packed4.data();
  std::memset(packed, 0, values);
  bool any_coef = false;
  std::vector<int32_t> coef(cols, 0);
  for (int col = 0; col < n; ++col) {
    const int32_t zp = w_zp_per_row ? w_zp[col] : w_zp[0];
    // Signed q: int8 W, or uint8 W - 128. Unsigned q: int8 W + 128, or uint8 W.
    coef[static_cast<size_t>(col)] = unsigned_weights ? (is_signed ? -128 - zp : -zp) : (is_signed ? -zp : 128 - zp);
    any_coef = any_coef || coef[static_cast<size_t>(col)] != 0;
    const uint8_t* row = bytes + static_cast<size_t>(col) * row_stride;
    uint8_t* at = packed + static_cast<size_t>(col / kQGemmPanelWidth) * out->quads * 64 +
                  static_cast<size_t>(col % kQGemmPanelWidth) * 4;
    // XOR 0x80 flips between int8 W and uint8 W + 128 (or uint8 W and int8 W - 128).
    const uint8_t flip = is_signed == unsigned_weights ? 0x80 : 0x00;
    for (int i = 0; i < k; ++i) at[static_cast<size_t>(i / 4) * 64 + (i & 3)] = static_cast<uint8_t>(row[i] ^ flip);
  }
  out->sum_coef.Resize(any_coef ? cols : 0);
  if (any_coef) {
    if (out->sum_coef.data() == nullptr) return false;
    std::memcpy(out->sum_coef.data(), coef.data(), cols * sizeof(int32_t));
  }
  return true;
}

}  // namespace

bool QPackWeights(const void* w, DataType w_type, int n, int k, size_t row_stride, const int32_t* w_zp,
                  bool w_zp_per_row, const int32_t* bias, int32_t a_zp, const float* scale, bool scale_per_row,
                  QGemmWeights* out, QGemmLayout layout) {
  out->n = n;
  out->k = k;
  out->pairs = QGemmPairs(k);
  out->panels = (n + kQGemmPanelWidth - 1) / kQGemmPanelWidth;
  out->layout = layout;
  const bool is_signed = w_type == DataType::kInt8;
  const bool as_bytes = layout == QGemmLayout::kBytes;
  const bool as_pairs = layout == QGemmLayout::kPairs;
  out->bytes = as_bytes;
  out->signed_bytes = is_signed;
  const size_t cols = static_cast<size_t>(out->panels) * kQGemmPanelWidth;
  const size_t values = cols * static_cast<size_t>(out->pairs) * 2;
  // The unused forms keep a minimal allocation.
  out->packed.Resize(as_pairs ? values : 0);
  out->packed8.Resize(as_bytes ? values : 0);
  out->zp.Resize(as_bytes ? cols : 0);
  out->bias.Resize(cols);
  out->scale.Resize(cols);
  if (layout != QGemmLayout::kQuads) {
    out->quads = 0;
    out->packed4.Resize(0);
    out->sum_coef.Resize(0);
    out->quads_fn = nullptr;
  }
  if (out->packed.data() == nullptr || out->packed8.data() == nullptr || out->zp.data() == nullptr ||
      out->bias.data() == nullptr || out->scale.data() == nullptr) {
    return false;
  }
  const auto* bytes = static_cast<const uint8_t*>(w);
  if (layout == QGemmLayout::kQuads && !PackQuads(bytes, is_signed, n, k, row_stride, w_zp, w_zp_per_row, out)) {
    return false;
  }
  int16_t* packed = out->packed.data();
  uint8_t* packed8 = out->packed8.data();
  if (as_bytes) {
    std::memset(packed8, 0, values);
    std::memset(out->zp.data(), 0, cols * sizeof(int32_t));
  } else if (as_pairs) {
    std::memset(packed, 0, values * sizeof(int16_t));
  }
  for (size_t col = 0; col < cols; ++col) {
    if (col >= static_cast<size_t>(n)) {
      out->bias.data()[col] = 0;
      out->scale.data()[col] = 0.f;
      continue;
    }
    const int32_t zp = w_zp_per_row ? w_zp[col] : w_zp[0];
    const uint8_t* row = bytes + col * row_stride;
    // Panel p, pair j: 16 columns x 2 values, columns 0-7 then 8-15.
    const size_t at = (col / kQGemmPanelWidth) * static_cast<size_t>(out->pairs) * 32 +
                      (col % kQGemmPanelWidth) / 8 * 16 + (col % 8) * 2;
    int64_t sum = 0;
    for (int i = 0; i < k; ++i) {
      const int32_t v = (is_signed ? static_cast<int32_t>(static_cast<int8_t>(row[i])) : static_cast<int32_t>(row[i])) - zp;
      const size_t pos = at + static_cast<size_t>(i / 2) * 32 + (i & 1);
      if (as_bytes) {
        packed8[pos] = row[i];
      } else if (as_pairs) {
        packed[pos] = static_cast<int16_t>(v);
      }
      sum += v;
    }
    if (as_bytes) out->zp.data()[col] = zp;
    const int64_t b = (bias != nullptr ? bias[col] : 0) - static_cast<int64_t>(a_zp) * sum;
    out->bias.data()[col] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(b)));
    out->scale.data()[col] = scale_per_row ? scale[col] : scale[0];
  }
  return true;
}

namespace {

QGemmPanels View(const QGemmWeights& w) {
  QGemmPanels v;
  v.n = w.n;
  v.k = w.k;
  v.pairs = w.pairs;
  v.panels = w.panels;
  v.bytes = w.bytes;
  v.signed_bytes = w.signed_bytes;
  v.packed = w.packed.data();
  v.packed8 = w.packed8.data();
  v.zp = w.zp.data();
  v.bias = w.bias.data();
  v.scale = w.scale.data();
  v.quads = w.quads;
  v.packed4 = w.packed4.data();
  v.sum_coef = w.sum_coef.size() > 0 ? w.sum_coef.data() : nullptr;
  return v;
}

}  // namespace

void QWidenRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, int16_t* dst) {
  Kernels().q_widen_rows(src, src_stride, rows, k, xor_mask, dst);
}

void QGemm(int m, const int16_t* a, size_t lda, const QGemmWeights& w, const QGemmOutput& out, uint8_t* c, size_t ldc,
           int n_begin, int n_end) {
  QGemmRequant q;
  q.zero_point = out.zero_point;
  q.qmin = out.qmin;
  q.qmax = out.qmax;
  q.is_signed = out.type == DataType::kInt8;
  Kernels().qgemm(m, a, lda, View(w), q, c, ldc, n_begin, n_end);
}

void QCopyRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, uint8_t* dst) {
  const size_t stride = QGemmQuadRowStride(k);
  for (int r = 0; r < rows; ++r) {
    const uint8_t* s = src + static_cast<size_t>(r) * src_stride;
    uint8_t* d = dst + static_cast<size_t>(r) * stride;
    if (xor_mask == 0) {
      std::memcpy(d, s, static_cast<size_t>(k));
    } else {
      XorBytes(s, k, xor_mask, d);
    }
    for (size_t i = static_cast<size_t>(k); i < stride; ++i) d[i] = 0;
  }
}

void QGemmQuads(int m, const uint8_t* a, size_t lda, const QGemmWeights& w, const QGemmOutput& out, uint8_t* c,
                size_t ldc, int n_begin, int n_end) {
  QGemmRequant q;
  q.zero_point = out.zero_point;
  q.qmin = out.qmin;
  q.qmax = out.qmax;
  q.is_signed = out.type == DataType::kInt8;
  w.quads_fn(m, a, lda, View(w), q, c, ldc, n_begin, n_end);
}

void QGemmAcc(int m, const int16_t* a, size_t lda, const QGemmWeights& w, int32_t* c, size_t ldc, int n_begin,
              int n_end) {
  Kernels().qgemm_acc(m, a, lda, View(w), c, ldc, n_begin, n_end);
}

int32_t XnnQuantizeBound(float x, float scale, int32_t zero_point, DataType type) {
  const float lo = static_cast<float>(type == DataType::kInt8 ? -128 : 0);
  const float hi = static_cast<float>(type == DataType::kInt8 ? 127 : 255);
  const float v = std::fmin(std::fmax(x / scale + static_cast<float>(zero_point), lo), hi);
  return static_cast<int32_t>(std::lrintf(v));
}

}  // namespace relite::cpu
