// The 8-bit GEMM in plain C++ (see src/kernels/cpu/internal/qgemm.h), for
// CPUs without a variant of their own: the same integer sums and the same
// float requantization as the vector variants, so every variant is
// bit-exact with every other.
#include <cstring>

#include "src/kernels/cpu/internal/round_half_even.h"
#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

constexpr int kTileRows = 4;

// Offset of column j's pair in a panel's 32 values (columns 0-7, then 8-15).
inline int PairOffset(int j) { return (j / 8) * 16 + (j % 8) * 2; }

inline uint8_t Requantize(int32_t acc, float scale, const QGemmRequant& q) {
  const float lo = static_cast<float>(q.qmin - q.zero_point);
  const float hi = static_cast<float>(q.qmax - q.zero_point);
  float f = static_cast<float>(acc) * scale;
  f = f < lo ? lo : f;
  f = f > hi ? hi : f;
  return static_cast<uint8_t>(RoundHalfEvenSmall(f) + q.zero_point);
}

// acc[r][j] = bias[j] + sum_p A[r] pair p . W pair (p, j) for a panel.
template <int MR>
inline void Accumulate(int pairs, const int16_t* a, size_t lda, const int16_t* w, const int32_t* bias,
                       int32_t acc[MR][kQPanelWidth]) {
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < kQPanelWidth; ++j) acc[r][j] = bias[j];
  }
  for (int p = 0; p < pairs; ++p, w += 32) {
    int32_t w0[kQPanelWidth], w1[kQPanelWidth];
    for (int j = 0; j < kQPanelWidth; ++j) {
      w0[j] = w[PairOffset(j)];
      w1[j] = w[PairOffset(j) + 1];
    }
    for (int r = 0; r < MR; ++r) {
      const int32_t a0 = a[static_cast<size_t>(r) * lda + 2 * p];
      const int32_t a1 = a[static_cast<size_t>(r) * lda + 2 * p + 1];
      // Wrapping like the vector variants' int32 lanes (no C++ overflow).
      for (int j = 0; j < kQPanelWidth; ++j) {
        acc[r][j] = static_cast<int32_t>(static_cast<uint32_t>(acc[r][j]) + static_cast<uint32_t>(a0 * w0[j] + a1 * w1[j]));
      }
    }
  }
}

// Byte-packed weights: acc = bias + sum A*W - w_zp * sum A.
template <int MR>
inline void AccumulateBytes(int pairs, const int16_t* a, size_t lda, const uint8_t* w, bool is_signed,
                            const int32_t* bias, const int32_t* zp, const int32_t* row_sums,
                            int32_t acc[MR][kQPanelWidth]) {
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < kQPanelWidth; ++j) {
      acc[r][j] = static_cast<int32_t>(static_cast<uint32_t>(bias[j]) -
                                       static_cast<uint32_t>(zp[j]) * static_cast<uint32_t>(row_sums[r]));
    }
  }
  for (int p = 0; p < pairs; ++p, w += 32) {
    int32_t w0[kQPanelWidth], w1[kQPanelWidth];
    for (int j = 0; j < kQPanelWidth; ++j) {
      const uint8_t b0 = w[PairOffset(j)], b1 = w[PairOffset(j) + 1];
      w0[j] = is_signed ? static_cast<int8_t>(b0) : b0;
      w1[j] = is_signed ? static_cast<int8_t>(b1) : b1;
    }
    for (int r = 0; r < MR; ++r) {
      const int32_t a0 = a[static_cast<size_t>(r) * lda + 2 * p];
      const int32_t a1 = a[static_cast<size_t>(r) * lda + 2 * p + 1];
      // Wrapping like the vector variants' int32 lanes (no C++ overflow).
      for (int j = 0; j < kQPanelWidth; ++j) {
        acc[r][j] = static_cast<int32_t>(static_cast<uint32_t>(acc[r][j]) + static_cast<uint32_t>(a0 * w0[j] + a1 * w1[j]));
      }
    }
  }
}

int32_t RowSum(const int16_t* a, size_t n) {
  int32_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += a[i];
  return sum;
}

template <int MR>
void Tile(int m0, const int16_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& q, uint8_t* c, size_t ldc,
          int n_begin, int n_end) {
  (void)m0;
  int32_t acc[MR][kQPanelWidth];
  int32_t sums[MR] = {};
  if (w.bytes) {
    for (int r = 0; r < MR; ++r) sums[r] = RowSum(a + static_cast<size_t>(r) * lda, QRowStride(w.k));
  }
  for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
    const int panel = n0 / kQPanelWidth;
    const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
    const size_t offset = static_cast<size_t>(panel) * w.pairs * 32;
    if (w.bytes) {
      AccumulateBytes<MR>(w.pairs, a, lda, w.packed8 + offset, w.signed_bytes, w.bias + col0, w.zp + col0, sums, acc);
    } else {
      Accumulate<MR>(w.pairs, a, lda, w.packed + offset, w.bias + col0, acc);
    }
    const int cols = MinI(kQPanelWidth, n_end - n0);
    for (int r = 0; r < MR; ++r) {
      uint8_t* out = c + static_cast<size_t>(r) * ldc + n0;
      for (int j = 0; j < cols; ++j) out[j] = Requantize(acc[r][j], w.scale[col0 + j], q);
    }
  }
}

}  // namespace

void QWidenRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, int16_t* dst) {
  const size_t stride = QRowStride(k);
  for (int r = 0; r < rows; ++r) {
    const uint8_t* s = src + static_cast<size_t>(r) * src_stride;
    int16_t* d = dst + static_cast<size_t>(r) * stride;
    for (int i = 0; i < k; ++i) d[i] = static_cast<int16_t>(static_cast<uint8_t>(s[i] ^ xor_mask));
    if (k & 1) d[k] = 0;
  }
}

void QGemm(int m, const int16_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& q, uint8_t* c, size_t ldc,
           int n_begin, int n_end) {
  int r = 0;
  for (; r + kTileRows <= m; r += kTileRows) {
    Tile<kTileRows>(r, a + static_cast<size_t>(r) * lda, lda, w, q, c + static_cast<size_t>(r) * ldc, ldc, n_begin,
                    n_end);
  }
  for (; r < m; ++r) {
    Tile<1>(r, a + static_cast<size_t>(r) * lda, lda, w, q, c + static_cast<size_t>(r) * ldc, ldc, n_begin, n_end);
  }
}

void QGemmAcc(int m, const int16_t* a, size_t lda, const QGemmPanels& w, int32_t* c, size_t ldc, int n_begin,
              int n_end) {
  for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
    const int panel = n0 / kQPanelWidth;
    const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
    const int cols = MinI(kQPanelWidth, n_end - n0);
    for (int r = 0; r < m; ++r) {
      int32_t acc[1][kQPanelWidth];
      Accumulate<1>(w.pairs, a + static_cast<size_t>(r) * lda, lda, w.packed + static_cast<size_t>(panel) * w.pairs * 32,
                    w.bias + col0, acc);
      std::memcpy(c + static_cast<size_t>(r) * ldc + (n0 - n_begin), acc[0], static_cast<size_t>(cols) * sizeof(int32_t));
    }
  }
}

}  // namespace relite::cpu::RELITE_ISA_NS
