// The 8-bit GEMM in plain C++ (see src/kernels/cpu/internal/qgemm.h), for
// CPUs without a variant of their own: the same integer sums and the same
// float requantization as the vector variants, so every variant is
// bit-exact with every other.
#include <cstring>

#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

constexpr int kPanelWidth = 16;
constexpr int kTileRows = 4;
inline int MinI(int a, int b) { return a < b ? a : b; }
inline size_t RowStride(int k) { return static_cast<size_t>((k + 1) / 2) * 2; }

// Offset of column j's pair in a panel's 32 values (columns 0-7, then 8-15).
inline int PairOffset(int j) { return (j / 8) * 16 + (j % 8) * 2; }

// float -> nearest int32, ties to even, for |x| < 2^22 (the clamped results
// are within +-510): adding 1.5 * 2^23 leaves the integer in the mantissa,
// as cvtps2dq rounds. Exact because this file is built without FMA
// contraction.
inline int32_t RoundToInt(float x) {
  const float shifted = x + 12582912.0f;
  int32_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
  return bits - 0x4B400000;
}

inline uint8_t Requantize(int32_t acc, float scale, const QGemmRequant& q) {
  const float lo = static_cast<float>(q.qmin - q.zero_point);
  const float hi = static_cast<float>(q.qmax - q.zero_point);
  float f = static_cast<float>(acc) * scale;
  f = f < lo ? lo : f;
  f = f > hi ? hi : f;
  return static_cast<uint8_t>(RoundToInt(f) + q.zero_point);
}

// acc[r][j] = bias[j] + sum_p A[r] pair p . W pair (p, j) for a panel.
template <int MR>
inline void Accumulate(int pairs, const int16_t* a, size_t lda, const int16_t* w, const int32_t* bias,
                       int32_t acc[MR][kPanelWidth]) {
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < kPanelWidth; ++j) acc[r][j] = bias[j];
  }
  for (int p = 0; p < pairs; ++p, w += 32) {
    int32_t w0[kPanelWidth], w1[kPanelWidth];
    for (int j = 0; j < kPanelWidth; ++j) {
      w0[j] = w[PairOffset(j)];
      w1[j] = w[PairOffset(j) + 1];
    }
    for (int r = 0; r < MR; ++r) {
      const int32_t a0 = a[static_cast<size_t>(r) * lda + 2 * p];
      const int32_t a1 = a[static_cast<size_t>(r) * lda + 2 * p + 1];
      // Wrapping like the vector variants' int32 lanes (no C++ overflow).
      for (int j = 0; j < kPanelWidth; ++j) {
        acc[r][j] = static_cast<int32_t>(static_cast<uint32_t>(acc[r][j]) + static_cast<uint32_t>(a0 * w0[j] + a1 * w1[j]));
      }
    }
  }
}

// Byte-packed weights: acc = bias + sum A*W - w_zp * sum A.
template <int MR>
inline void AccumulateBytes(int pairs, const int16_t* a, size_t lda, const uint8_t* w, bool is_signed,
                            const int32_t* bias, const int32_t* zp, const int32_t* row_sums,
                            int32_t acc[MR][kPanelWidth]) {
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < kPanelWidth; ++j) {
      acc[r][j] = static_cast<int32_t>(static_cast<uint32_t>(bias[j]) -
                                       static_cast<uint32_t>(zp[j]) * static_cast<uint32_t>(row_sums[r]));
    }
  }
  for (int p = 0; p < pairs; ++p, w += 32) {
    int32_t w0[kPanelWidth], w1[kPanelWidth];
    for (int j = 0; j < kPanelWidth; ++j) {
      const uint8_t b0 = w[PairOffset(j)], b1 = w[PairOffset(j) + 1];
      w0[j] = is_signed ? static_cast<int8_t>(b0) : b0;
      w1[j] = is_signed ? static_cast<int8_t>(b1) : b1;
    }
    for (int r = 0; r < MR; ++r) {
      const int32_t a0 = a[static_cast<size_t>(r) * lda + 2 * p];
      const int32_t a1 = a[static_cast<size_t>(r) * lda + 2 * p + 1];
      // Wrapping like the vector variants' int32 lanes (no C++ overflow).
      for (int j = 0; j < kPanelWidth; ++j) {
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
  int32_t acc[MR][kPanelWidth];
  int32_t sums[MR] = {};
  if (w.bytes) {
    for (int r = 0; r < MR; ++r) sums[r] = RowSum(a + static_cast<size_t>(r) * lda, RowStride(w.k));
  }
  for (int n0 = n_begin; n0 < n_end; n0 += kPanelWidth) {
    const int panel = n0 / kPanelWidth;
    const size_t col0 = static_cast<size_t>(panel) * kPanelWidth;
    const size_t offset = static_cast<size_t>(panel) * w.pairs * 32;
    if (w.bytes) {
      AccumulateBytes<MR>(w.pairs, a, lda, w.packed8 + offset, w.signed_bytes, w.bias + col0, w.zp + col0, sums, acc);
    } else {
      Accumulate<MR>(w.pairs, a, lda, w.packed + offset, w.bias + col0, acc);
    }
    const int cols = MinI(kPanelWidth, n_end - n0);
    for (int r = 0; r < MR; ++r) {
      uint8_t* out = c + static_cast<size_t>(r) * ldc + n0;
      for (int j = 0; j < cols; ++j) out[j] = Requantize(acc[r][j], w.scale[col0 + j], q);
    }
  }
}

void QWidenRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, int16_t* dst) {
  const size_t stride = RowStride(k);
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
  for (int n0 = n_begin; n0 < n_end; n0 += kPanelWidth) {
    const int panel = n0 / kPanelWidth;
    const size_t col0 = static_cast<size_t>(panel) * kPanelWidth;
    const int cols = MinI(kPanelWidth, n_end - n0);
    for (int r = 0; r < m; ++r) {
      int32_t acc[1][kPanelWidth];
      Accumulate<1>(w.pairs, a + static_cast<size_t>(r) * lda, lda, w.packed + static_cast<size_t>(panel) * w.pairs * 32,
                    w.bias + col0, acc);
      std::memcpy(c + static_cast<size_t>(r) * ldc + (n0 - n_begin), acc[0], static_cast<size_t>(cols) * sizeof(int32_t));
    }
  }
}

}  // namespace

void FillQGemmKernels(CpuKernels* k) {
  k->q_widen_rows = QWidenRows;
  k->qgemm = QGemm;
  k->qgemm_acc = QGemmAcc;
}

}  // namespace relite::cpu::RELITE_ISA_NS
