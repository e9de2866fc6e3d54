// RFFT2D: the 2-D FFT of real input over its two innermost dimensions,
//   out[..., u, v] = sum_{y < H, x < W} in'[y][x] * exp(-2 pi i (u y / H + v x / W))
// for u < H = fft_length[0], v <= W / 2 = fft_length[1] / 2 (the other half
// is the conjugate mirror), where in' is the input cropped or zero-padded to
// H x W. As in TFLite (whose fft2d library takes only powers of two), both
// lengths must be powers of two and the transform runs in double precision,
// rounded to complex64 at the end.
//
// Each row is a real FFT of length W done as a complex FFT of length W / 2
// (even samples real, odd imaginary) plus a twiddle pass; then each of the
// W / 2 + 1 columns is a complex FFT of length H. Both are iterative radix-2.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

using Complex = std::complex<double>;

bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// exp(-2 pi i k / n) for k < n / 2 (at least one entry).
std::vector<Complex> Twiddles(int n) {
  std::vector<Complex> w(static_cast<size_t>(std::max(n / 2, 1)));
  for (size_t k = 0; k < w.size(); ++k) {
    const double a = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    w[k] = Complex(std::cos(a), std::sin(a));
  }
  return w;
}

// In-place forward FFT of n (a power of two) values spaced `stride` apart;
// `twiddles` = Twiddles(n).
void Fft(Complex* data, int n, size_t stride, const std::vector<Complex>& twiddles) {
  auto at = [&](int i) -> Complex& { return data[static_cast<size_t>(i) * stride]; };
  for (int i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) std::swap(at(i), at(j));
  }
  for (int len = 2; len <= n; len <<= 1) {
    const int half = len / 2, step = n / len;
    for (int start = 0; start < n; start += len) {
      for (int k = 0; k < half; ++k) {
        Complex& a = at(start + k);
        Complex& b = at(start + k + half);
        const Complex t = b * twiddles[static_cast<size_t>(k * step)];
        b = a - t;
        a += t;
      }
    }
  }
}

class Rfft2dKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& length = ctx.input(1);
    if (input.type != DataType::kFloat32) {
      return ctx.Error("input type " + DataTypeName(input.type) + " is not supported (float32)");
    }
    if (input.rank() < 2) return ctx.Error("input must have rank >= 2, got " + ShapeToString(input.shape));
    if (length.type != DataType::kInt32 || length.shape != Shape{2}) {
      return ctx.Error("fft_length must be int32 [2], got " + DataTypeName(length.type) + " " +
                       ShapeToString(length.shape));
    }
    if (!length.is_constant() || length.data == nullptr) {
      return ctx.Unsupported("fft_length computed by the graph is not supported (it must be a constant)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kComplex64));
    const int32_t* len = length.data_as<int32_t>();
    if (!IsPowerOfTwo(len[0]) || !IsPowerOfTwo(len[1]) || len[0] > (1 << 24) || len[1] > (1 << 24)) {
      return ctx.Error("fft_length [" + std::to_string(len[0]) + ", " + std::to_string(len[1]) +
                       "] must be powers of two (at most 2^24)");
    }
    // fft2d's rdft2d needs rows of two or more: TFLite's output for a width
    // of 1 is not the transform (golden test), so it is refused here.
    if (len[1] < 2) return ctx.Unsupported("fft_length[1] must be >= 2 (TFLite's fft2d does not transform width 1)");
    fft_h_ = len[0];
    fft_w_ = len[1];
    const int r = input.rank();
    in_h_ = input.dim(r - 2);
    in_w_ = input.dim(r - 1);
    slices_ = 1;
    for (int d = 0; d < r - 2; ++d) slices_ *= input.dim(d);
    Shape out = input.shape;
    out[static_cast<size_t>(r - 2)] = fft_h_;
    out[static_cast<size_t>(r - 1)] = fft_w_ / 2 + 1;
    const int64_t per_slice = static_cast<int64_t>(fft_h_) * (fft_w_ / 2 + 1);
    if (slices_ > 0 && per_slice > (int64_t{1} << 40) / slices_) return ctx.Unsupported("output too large");
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out));
    row_twiddles_ = Twiddles(std::max(fft_w_ / 2, 1));
    real_twiddles_ = Twiddles(fft_w_);
    column_twiddles_ = Twiddles(fft_h_);
    // Scratch: one slice of H x (W/2 + 1) doubles.
    ctx.RequestScratch(static_cast<size_t>(per_slice) * sizeof(Complex) + 64);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    if (slices_ == 0) return Status::Ok();
    const float* in = ctx.input(0).data_as<float>();
    auto* out = ctx.output(0).data_as<std::complex<float>>();
    auto* work = reinterpret_cast<Complex*>((reinterpret_cast<uintptr_t>(ctx.scratch()) + 15) & ~uintptr_t{15});
    const int bins = fft_w_ / 2 + 1;
    const int rows = std::min(in_h_, fft_h_), cols = std::min(in_w_, fft_w_);
    for (int64_t s = 0; s < slices_; ++s) {
      const float* x = in + static_cast<size_t>(s) * in_h_ * in_w_;
      for (int y = 0; y < fft_h_; ++y) {
        Complex* row = work + static_cast<size_t>(y) * bins;
        if (y >= rows) {
          std::fill(row, row + bins, Complex(0.0, 0.0));
          continue;
        }
        RealRowFft(x + static_cast<size_t>(y) * in_w_, cols, row);
      }
      for (int v = 0; v < bins; ++v) Fft(work + v, fft_h_, static_cast<size_t>(bins), column_twiddles_);
      std::complex<float>* o = out + static_cast<size_t>(s) * fft_h_ * bins;
      for (size_t i = 0; i < static_cast<size_t>(fft_h_) * bins; ++i) {
        o[i] = std::complex<float>(static_cast<float>(work[i].real()), static_cast<float>(work[i].imag()));
      }
    }
    return Status::Ok();
  }

 private:
  // The W / 2 + 1 bins of one row: `n` samples, zero-padded to W. The W / 2
  // complex values z[m] = x[2m] + i x[2m + 1] are transformed in the first
  // half of `row`, then split: with E, O the transforms of the even and odd
  // samples, E[k] = (Z[k] + conj Z[M - k]) / 2, O[k] = (Z[k] - conj Z[M - k]) / 2i
  // and X[k] = E[k] + exp(-2 pi i k / W) O[k].
  void RealRowFft(const float* x, int n, Complex* row) const {
    const int m = fft_w_ / 2;
    for (int j = 0; j < m; ++j) {
      const double re = 2 * j < n ? x[2 * j] : 0.0, im = 2 * j + 1 < n ? x[2 * j + 1] : 0.0;
      row[j] = Complex(re, im);
    }
    Fft(row, m, 1, row_twiddles_);
    const Complex z0 = row[0];
    row[m] = Complex(z0.real() - z0.imag(), 0.0);  // Nyquist: E[0] - O[0]
    // Pairs (k, M - k) are computed together so each reads the untouched Z.
    for (int k = 1; 2 * k <= m; ++k) {
      const int j = m - k;
      const Complex zk = row[k], zj = row[j];
      const Complex ek = (zk + std::conj(zj)) * 0.5, ok = (zk - std::conj(zj)) * Complex(0.0, -0.5);
      const Complex ej = (zj + std::conj(zk)) * 0.5, oj = (zj - std::conj(zk)) * Complex(0.0, -0.5);
      row[k] = ek + real_twiddles_[static_cast<size_t>(k)] * ok;
      if (j != k) row[j] = ej + real_twiddles_[static_cast<size_t>(j)] * oj;
    }
    row[0] = Complex(z0.real() + z0.imag(), 0.0);  // DC: E[0] + O[0]
  }

  int fft_h_ = 1, fft_w_ = 1, in_h_ = 0, in_w_ = 0;
  int64_t slices_ = 0;
  std::vector<Complex> row_twiddles_, real_twiddles_, column_twiddles_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateRfft2d(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<Rfft2dKernel>());
}

}  // namespace relite::cpu
