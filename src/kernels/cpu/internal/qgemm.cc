#include "src/kernels/cpu/internal/qgemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {

bool QPackWeights(const void* w, DataType w_type, int n, int k, size_t row_stride, const int32_t* w_zp,
                  bool w_zp_per_row, const int32_t* bias, int32_t a_zp, const float* scale, bool scale_per_row,
                  QGemmWeights* out, bool as_bytes) {
  out->n = n;
  out->k = k;
  out->pairs = QGemmPairs(k);
  out->panels = (n + kQGemmPanelWidth - 1) / kQGemmPanelWidth;
  const bool is_signed = w_type == DataType::kInt8;
  out->bytes = as_bytes;
  out->signed_bytes = is_signed;
  const size_t cols = static_cast<size_t>(out->panels) * kQGemmPanelWidth;
  const size_t values = cols * static_cast<size_t>(out->pairs) * 2;
  // The unused form keeps a minimal allocation.
  out->packed.Resize(as_bytes ? 0 : values);
  out->packed8.Resize(as_bytes ? values : 0);
  out->zp.Resize(as_bytes ? cols : 0);
  out->bias.Resize(cols);
  out->scale.Resize(cols);
  if (out->packed.data() == nullptr || out->packed8.data() == nullptr || out->zp.data() == nullptr ||
      out->bias.data() == nullptr || out->scale.data() == nullptr) {
    return false;
  }
  int16_t* packed = out->packed.data();
  uint8_t* packed8 = out->packed8.data();
  if (as_bytes) {
    std::memset(packed8, 0, values);
    std::memset(out->zp.data(), 0, cols * sizeof(int32_t));
  } else {
    std::memset(packed, 0, values * sizeof(int16_t));
  }
  const auto* bytes = static_cast<const uint8_t*>(w);
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
      } else {
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
