// 8-bit matrix products shared by the quantized CONV_2D, FULLY_CONNECTED and
// TRANSPOSE_CONV kernels.
//
// C[m][n] = requantize(bias[n] + sum_k (A[m][k] - a_zp) * (W[n][k] - w_zp[n])).
// Every product is exact in int32: activations are widened to int16 (uint8,
// or int8 biased by +128 so that both read as 0..255), weights are stored as
// int16 (W - w_zp, in [-255, 255]) in pairs along k, and vpmaddwd adds two
// products of at most 255 * 255 without saturating. The activation zero point
// is folded into a per-column bias once, when the weights are packed:
//   sum_k (a - zp) * w = sum_k a * w - zp * sum_k w.
// A padded tap therefore holds the (biased) zero point, not 0.
//
// Where the CPU has a 4-byte dot product (vpdpbusd: unsigned bytes times
// signed bytes), the requantized product runs on bytes instead (the quads
// layout): activation rows stay bytes (0..255 as above, k padded with zeros
// to a multiple of 4) and the weights are stored as int8 q, 4 per lane:
// q = W for int8 weights, W - 128 for uint8 ones, so that
//   sum_k a * (W - w_zp) = sum_k a * q + coef[n] * sum_k a,
//   coef[n] = -w_zp (int8) or 128 - w_zp (uint8),
// the row sums being taken only where some coef is not zero.
// Where the dot product is of unsigned bytes only (Arm's udot; the kernel
// table says so: CpuKernels::qgemm_quads_unsigned_weights), q is uint8
// instead: q = W + 128 for int8 weights, W for uint8 ones, and
//   coef[n] = -128 - w_zp (int8) or -w_zp (uint8),
// so that the row sums are nearly always taken there.
//
// The result is requantized the XNNPACK way ("fp32"): float(acc) * scale[n],
// clamped to [qmin - zp, qmax - zp], rounded to nearest even, plus zp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "relite/kernel.h"
#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {

inline constexpr int kQGemmTileRows = 6;
// The 8-bit products keep four tasks per thread (see PartitionGemm): one
// per thread was 2-3% slower on the 8-bit MobileNets (Intel Xeon, 2 threads).
inline constexpr int kQGemmTasksPerThread = 4;
inline constexpr int kQGemmPanelWidth = 16;

// A 64-byte aligned array of trivially copyable values.
template <typename T>
class AlignedArray {
 public:
  void Resize(size_t count) {
    if (count == size_ && data_) return;
    const size_t bytes = (count * sizeof(T) + 63) / 64 * 64;
    data_.reset(static_cast<T*>(std::aligned_alloc(64, bytes > 0 ? bytes : 64)));
    size_ = data_ ? count : 0;
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T[], Free> data_;
  size_t size_ = 0;
};

// The k-pairs of a row of k activations (k rounded up to even).
inline int QGemmPairs(int k) { return (k + 1) / 2; }
// int16 elements of one widened activation row.
inline size_t QGemmRowStride(int k) { return static_cast<size_t>(QGemmPairs(k)) * 2; }

// XOR mask that maps an activation byte to 0..255 (0x80 for int8).
inline uint8_t QGemmInputBias(DataType type) { return type == DataType::kInt8 ? 0x80 : 0x00; }

// How QPackWeights lays out the weights.
enum class QGemmLayout {
  kPairs,  // int16 W - w_zp in k-pairs (QGemm, QGemmAcc)
  kBytes,  // raw W in k-pairs, widened on the fly (QGemm; one- or two-row products)
  kQuads,  // int8 q in k-quads (QGemmQuads; only where the CPU has the instruction)
};

// The layout for a requantized product (QGemm or QGemmQuads) of `rows` rows
// with the active kernels: quads where they have the byte dot product.
QGemmLayout QGemmLayoutFor(int64_t rows);

// Packed weights with their folded bias and per-column requantization scale.
//
// For products of one or two rows (a fully connected layer at batch 1, a
// convolution with one output pixel) the weights are the traffic: they are
// then packed as their raw bytes (`bytes`), half the size of the int16
// panels, widened on the fly, and the zero point is applied per row as
// w_zp[n] * sum_k A[m][k] instead of per weight.
struct QGemmWeights {
  int n = 0, k = 0;
  int pairs = 0, panels = 0;
  bool bytes = false;            // packed8 + zp hold the weights instead of packed
  bool signed_bytes = false;     // packed8 holds int8 (else uint8)
  AlignedArray<int16_t> packed;  // panels * pairs * 32: W - w_zp
  AlignedArray<uint8_t> packed8; // panels * pairs * 32: raw W, same layout
  AlignedArray<int32_t> zp;      // panels * 16: w_zp per column (with packed8)
  AlignedArray<int32_t> bias;    // panels * 16: bias[n] - a_zp * sum_k (W - w_zp)
  AlignedArray<float> scale;     // panels * 16
  // kQuads: panels * quads * 64 bytes q (int8, or uint8 where the kernels
  // chosen when packing want unsigned weights), and coef per column (empty
  // when all are zero); the product is run by the kernels chosen when packing.
  QGemmLayout layout = QGemmLayout::kPairs;
  int quads = 0;
  AlignedArray<uint8_t> packed4;
  AlignedArray<int32_t> sum_coef;
  QGemmQuadsFn quads_fn = nullptr;
  const void* packed_from = nullptr;
};

// Packs n rows of k weights (row i at w + i * row_stride, uint8 or int8 as
// `w_type`). `w_zp` is one zero point per row (or one for all when
// `w_zp_per_row` is false). `bias` (n int32) may be null. `a_zp` is the
// activation zero point after the int8 bias (zp + 128 for int8). `scale` is
// one float per row (or one for all when `scale_per_row` is false).
// `layout` says how (QGemmLayout; QGemmAcc reads only kPairs). Returns false
// when out of memory, or for kQuads where the active kernels have no
// QGemmQuads.
bool QPackWeights(const void* w, DataType w_type, int n, int k, size_t row_stride, const int32_t* w_zp,
                  bool w_zp_per_row, const int32_t* bias, int32_t a_zp, const float* scale, bool scale_per_row,
                  QGemmWeights* out, QGemmLayout layout = QGemmLayout::kPairs);

// Whether a product of `rows` rows should use byte-packed weights.
inline bool QGemmPrefersBytes(int64_t rows) { return rows <= 2; }

struct QGemmOutput {
  DataType type = DataType::kUInt8;  // uint8 or int8
  int32_t zero_point = 0;
  int32_t qmin = 0, qmax = 255;  // clamp in the quantized domain
};

// Widens `rows` rows of k activation bytes (row r at src + r * src_stride)
// into int16 rows of QGemmRowStride(k) elements, XOR-ing each byte with `xor_mask`.
void QWidenRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, int16_t* dst);

// Computes rows [0, m) and columns [n_begin, n_end) of C (bytes, row stride
// ldc) from widened A (row stride lda int16 elements). n_begin must be a
// multiple of kQGemmPanelWidth. Single-threaded.
void QGemm(int m, const int16_t* a, size_t lda, const QGemmWeights& w, const QGemmOutput& out, uint8_t* c, size_t ldc,
           int n_begin, int n_end);

// Bytes of one activation row in the quads layout (k rounded up to 4).
inline size_t QGemmQuadRowStride(int k) { return (static_cast<size_t>(k) + 3) / 4 * 4; }

// dst[i] = src[i] ^ mask for n bytes, 8 at a time: a byte loop between two
// uint8_t pointers stays scalar (they may alias).
inline void XorBytes(const uint8_t* src, int n, uint8_t mask, uint8_t* dst) {
  const uint64_t mask8 = 0x0101010101010101ull * mask;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, src + i, 8);
    v ^= mask8;
    std::memcpy(dst + i, &v, 8);
  }
  for (; i < n; ++i) dst[i] = static_cast<uint8_t>(src[i] ^ mask);
}

// Copies `rows` rows of k activation bytes into rows of QGemmQuadRowStride(k)
// bytes, XOR-ing each with `xor_mask` and zeroing the padding.
void QCopyRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, uint8_t* dst);

// QGemm for weights packed as kQuads, on byte rows (row stride lda bytes, at
// least k, a multiple of 4 unless k is; the bytes past k in a row's last
// quad must be zero).
void QGemmQuads(int m, const uint8_t* a, size_t lda, const QGemmWeights& w, const QGemmOutput& out, uint8_t* c,
                size_t ldc, int n_begin, int n_end);

// Raw int32 accumulators (bias included) instead of requantized bytes (int16
// panels only):
// C32 (pointing at column n_begin) row stride ldc in int32 elements. For the arithmetic of TFLite's
// builtin kernels, applied by the caller.
void QGemmAcc(int m, const int16_t* a, size_t lda, const QGemmWeights& w, int32_t* c, size_t ldc, int n_begin,
              int n_end);

// XNNPACK's output clamp from a fused activation's float range: each bound is
// lrintf(clamp(x / scale + zp)) in float32, half to even.
int32_t XnnQuantizeBound(float x, float scale, int32_t zero_point, DataType type);

}  // namespace relite::cpu
