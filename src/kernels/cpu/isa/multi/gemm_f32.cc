// The float GEMM's register tiles and the batch-1 GEMV, for one ISA.
#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/simd.h"

#include <array>
#include <utility>

namespace relite::cpu::RELITE_ISA_NS {
namespace {

// Rows of accumulators that leave registers for the panel's weights: a
// 16-column panel row is 16 / kLanes registers. AVX-512: 12 x 1 of 32;
// AVX2: 6 x 2 of 16; NEON: 6 x 4 of 32; SSE2: 3 x 4 of 16.
constexpr int kTileRows = kLanes == 16 ? 12 : kLanes == 8 ? 6 : kVectorRegisters == 32 ? 6 : 3;

// The kRows rows of A a tile reads, lda floats apart.
template <int kRows>
inline __attribute__((always_inline)) void RowPointers(const float* a, size_t lda, const float* (&rows)[kRows]) {
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r) rows[r] = a + r * lda;
}

// One kRows x (lanes(V) * kVectors) tile of C over the depth steps of
// `depth`: see GemmF32PanelFn.
// kPanels = 2: two adjacent 16-column panels (the second's weights
// `panel_stride` floats after the first's), one broadcast of each row's
// value feeding both, with C, bias and residual 16 columns apart.
// kPartial: only the first `tail` lanes (0 < tail < lanes of V) of the last
// vector are C's columns; C there is read and written masked, so a partial
// last panel needs no local tile. The packed weights' padding columns are
// zero: the lanes past `tail` compute zeros that are never stored.
template <int kRows, typename V, int kVectors, int kPanels = 1, bool kPartial = false>
inline __attribute__((always_inline)) void MicroTile(const GemmSegments& depth, const float* a, size_t lda,
                                                     const float* b, float* c, size_t ldc, const float* bias,
                                                     bool accumulate, bool finalize, float lo, float hi,
                                                     const float* residual, size_t residual_stride,
                                                     size_t panel_stride = 0, int tail = 0) {
  constexpr int kL = static_cast<int>(sizeof(V) / sizeof(float));
  constexpr int kAll = kVectors * kPanels;
  // Vector u of a row: panel u / kVectors, part u % kVectors.
  auto column = [](int u) { return (u / kVectors) * 16 + kL * (u % kVectors); };
  V acc[kRows][kAll];
  if (accumulate) {
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (int u = 0; u < kAll; ++u) {
        acc[r][u] = kPartial && u == kAll - 1 ? LoadFirst<V>(c + r * ldc + column(u), tail)
                                              : Load<V>(c + r * ldc + column(u));
      }
    }
  } else {
#pragma GCC unroll 4
    for (int u = 0; u < kAll; ++u) {
      const V init = bias != nullptr ? Load<V>(bias + column(u)) : V{};
#pragma GCC unroll 16
      for (int r = 0; r < kRows; ++r) acc[r][u] = init;
    }
  }
  const int length = depth.length;
  for (int seg = 0; seg < depth.count; ++seg, a += depth.stride) {
    const float* rows[kRows];
    RowPointers(a, lda, rows);
    for (int k = 0; k < length; ++k) {
      V w[kAll];
#pragma GCC unroll 4
      for (int u = 0; u < kAll; ++u) w[u] = Load<V>(b + (u / kVectors) * panel_stride + kL * (u % kVectors));
      b += kL * kVectors;
#pragma GCC unroll 16
      for (int r = 0; r < kRows; ++r) {
        const float x = rows[r][k];
#pragma GCC unroll 4
        for (int u = 0; u < kAll; ++u) acc[r][u] += x * w[u];
      }
    }
  }
  if (finalize) {
    // A fused ADD's operand joins while the tile is in registers: no second
    // pass over C.
    if (residual != nullptr) {
#pragma GCC unroll 16
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
        for (int u = 0; u < kAll; ++u) acc[r][u] += Load<V>(residual + r * residual_stride + column(u));
      }
    }
    const V vlo = Splat<V>(lo), vhi = Splat<V>(hi);
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (int u = 0; u < kAll; ++u) acc[r][u] = Clamp(acc[r][u], vlo, vhi);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int u = 0; u < kAll; ++u) {
      if (kPartial && u == kAll - 1) {
        StoreFirst<V>(c + r * ldc + column(u), acc[r][u], tail);
      } else {
        Store<V>(c + r * ldc + column(u), acc[r][u]);
      }
    }
  }
}

using TileFn = void (*)(const GemmSegments&, const float*, size_t, const float*, float*, size_t, const float*, bool,
                        bool, float, float, const float*, size_t, int);

template <int kRows, typename V, int kVectors, bool kPartial>
void Tile(const GemmSegments& depth, const float* a, size_t lda, const float* b, float* c, size_t ldc,
          const float* bias, bool accumulate, bool finalize, float lo, float hi, const float* residual,
          size_t residual_stride, int tail) {
  MicroTile<kRows, V, kVectors, 1, kPartial>(depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi, residual,
                                             residual_stride, 0, tail);
}

// Full tiles down one panel in one call: with a short K a call per tile,
// with its eleven arguments, costs a noticeable share.
template <typename V, int kVectors, bool kPartial>
void FullTiles(int tiles, const GemmSegments& depth, const float* a, size_t lda, const float* b, float* c, size_t ldc,
               const float* bias, bool accumulate, bool finalize, float lo, float hi, const float* residual,
               size_t residual_stride, int tail) {
  for (int t = 0; t < tiles; ++t) {
    MicroTile<kTileRows, V, kVectors, 1, kPartial>(depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi,
                                                   residual, residual_stride, 0, tail);
    a += kTileRows * lda;
    c += kTileRows * ldc;
    if (residual != nullptr) residual += kTileRows * residual_stride;
  }
}

// A tile function per height, 1 to kTileRows: index h - 1.
template <typename V, int kVectors, bool kPartial, int... kRows>
constexpr auto MakeTiles(std::integer_sequence<int, kRows...>) {
  return std::array<TileFn, sizeof...(kRows)>{Tile<kRows + 1, V, kVectors, kPartial>...};
}

// 16-column panels: one 16-lane or two 8-lane vectors a row; 8-column last
// panels: one 8-lane vector.
using WideV = VecF;
constexpr int kWideVectors = 16 / kLanes;
constexpr auto kTilesWide = MakeTiles<WideV, kWideVectors, false>(std::make_integer_sequence<int, kTileRows>{});
constexpr auto kTilesNarrow = MakeTiles<V8, 1, false>(std::make_integer_sequence<int, kTileRows>{});
constexpr auto kPartialTilesWide = MakeTiles<WideV, kWideVectors, true>(std::make_integer_sequence<int, kTileRows>{});
constexpr auto kPartialTilesNarrow = MakeTiles<V8, 1, true>(std::make_integer_sequence<int, kTileRows>{});

float HorizontalSum(VecF v) {
  float lanes[kLanes];
  Store<VecF>(lanes, v);
  // Pairwise, so 8 and 16 lanes add in a fixed tree.
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int i = 0; i < width; ++i) lanes[i] += lanes[i + width];
  }
  return lanes[0];
}

}  // namespace

const int kGemmF32TileRows = kTileRows;

namespace {

// GemmF32Panel's body; kPartial: `tail` lanes of the panel's last vector
// are C's (see MicroTile).
template <bool kPartial>
void PanelTiles(int rows, int width, const GemmSegments& depth, const float* a, size_t lda, const float* b, float* c,
                size_t ldc, const float* bias, bool accumulate, bool finalize, float lo, float hi,
                const float* residual, size_t residual_stride, int tail) {
  const int tiles = (rows + kTileRows - 1) / kTileRows;
  if (tiles == 0) return;
  // Full tiles in one call, then the last three tiles' rows at even
  // heights: 49 rows as 12 + 12 + 9 + 8 + 8, not 12 + 12 + 12 + 12 + 1. A
  // short last tile has too few independent sums to hide the multiply-add
  // latency: one row costs two thirds of a twelve-row tile over the same K.
  const int balanced = MinI(tiles, 3);
  const int full = tiles - balanced;
  if (full > 0) {
    if (width == 16) {
      FullTiles<WideV, kWideVectors, kPartial>(full, depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi,
                                               residual, residual_stride, tail);
    } else {
      FullTiles<V8, 1, kPartial>(full, depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi, residual,
                                 residual_stride, tail);
    }
  }
  int r = full * kTileRows;
  const int left = rows - r;
  const int base = left / balanced, taller = left % balanced;
  const auto& tiles_by_height = kPartial ? (width == 16 ? kPartialTilesWide : kPartialTilesNarrow)
                                         : (width == 16 ? kTilesWide : kTilesNarrow);
  for (int t = 0; t < balanced; ++t) {
    const int h = base + (t < taller ? 1 : 0);
    const float* tile_residual = residual != nullptr ? residual + static_cast<size_t>(r) * residual_stride : nullptr;
    tiles_by_height[h - 1](depth, a + static_cast<size_t>(r) * lda, lda, b, c + static_cast<size_t>(r) * ldc, ldc, bias,
                           accumulate, finalize, lo, hi, tile_residual, residual_stride, tail);
    r += h;
  }
}

}  // namespace

void GemmF32Panel(int rows, int width, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                  float* c, size_t ldc, const float* bias, bool accumulate, bool finalize, float lo, float hi,
                  const float* residual, size_t residual_stride) {
  PanelTiles<false>(rows, width, depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi, residual,
                    residual_stride, 0);
}

bool GemmF32PanelPartial(int rows, int width, int valid, const GemmSegments& depth, const float* a, size_t lda,
                         const float* b, float* c, size_t ldc, const float* bias, bool accumulate, bool finalize,
                         float lo, float hi) {
  // Only a row's last vector may be partial: a 16-column panel of two
  // 8-lane vectors with 9..15 columns, or a panel of one vector.
  const int lanes = width == 16 ? 16 / kWideVectors : 8;
  const int tail = valid - (width - lanes);
  if (tail <= 0 || tail >= lanes) return false;
  PanelTiles<true>(rows, width, depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi, nullptr, 0, tail);
  return true;
}

#if defined(__AVX512F__)
namespace {

using PairTileFn = void (*)(const GemmSegments&, const float*, size_t, const float*, size_t, float*, size_t,
                            const float*, bool, bool, float, float, const float*, size_t);

// One kRows x 32 tile over two adjacent panels. A function of its own per
// height: inlined next to the twelve-row tile, GCC 12 spilled one of that
// tile's weight vectors (issue #18, session 17).
template <int kRows>
__attribute__((noinline)) void PairTile(const GemmSegments& depth, const float* a, size_t lda, const float* b,
                                        size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate,
                                        bool finalize, float lo, float hi, const float* residual,
                                        size_t residual_stride) {
  MicroTile<kRows, VecF, 1, 2>(depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi, residual,
                               residual_stride, panel_stride);
}

template <int... kRows>
constexpr auto MakePairTiles(std::integer_sequence<int, kRows...>) {
  return std::array<PairTileFn, sizeof...(kRows)>{PairTile<kRows + 1>...};
}
constexpr auto kPairTiles = MakePairTiles(std::make_integer_sequence<int, kTileRows>{});
using PairTileTable = std::array<PairTileFn, kTileRows>;

// Whole tiles of `tile_rows` to run before the rest of `rows`: one fewer
// when rows are left over, so that the rest joins the last whole tile.
int WholeTilesBeforeRest(int rows, int tile_rows) {
  const int full = rows / tile_rows;
  return rows % tile_rows != 0 && full > 0 ? full - 1 : full;
}

// Rows [r, rows) left after the whole tiles, as one tile or two of even
// height (13 rows: 7 + 6), each from `tiles` (index height - 1). (The
// whole tiles' loop stays with each caller: through a shared helper it made
// GCC 12 spill the 16 + 8 tile's wide weight vector in the depth loop.)
void RestTiles(const PairTileTable& tiles, int r, int rows, const GemmSegments& depth, const float* a, size_t lda,
               const float* b, size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate,
               bool finalize, float lo, float hi, const float* residual, size_t residual_stride) {
  auto tile = [&](int row, int height) {
    tiles[height - 1](depth, a + static_cast<size_t>(row) * lda, lda, b, panel_stride,
                      c + static_cast<size_t>(row) * ldc, ldc, bias, accumulate, finalize, lo, hi,
                      residual != nullptr ? residual + static_cast<size_t>(row) * residual_stride : nullptr,
                      residual_stride);
  };
  const int rest = rows - r;
  if (rest == 0) return;
  if (rest <= kTileRows) {
    tile(r, rest);
    return;
  }
  const int upper = (rest + 1) / 2;
  tile(r, upper);
  tile(r + upper, rest - upper);
}


}  // namespace

// Two adjacent full 16-column panels, 12 rows a tile: 24 accumulators and
// two weight vectors of the 32 registers. With a short K (expansion 1x1
// convolutions, K = 16..112) a 12x16 tile's fixed costs (row addresses,
// bias, clamp, store addresses) are a third of its time; here they serve
// twice the columns, and each row's broadcast feeds two multiply-adds.
// Rows past the last whole tile join it as two pair tiles of even height
// (13 rows: 7 + 6): at least 12 independent sums each, where a 1-row
// single-panel tile is one chain of dependent multiply-adds.
void GemmF32PanelPair(int rows, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                      size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate, bool finalize,
                      float lo, float hi, const float* residual, size_t residual_stride) {
  const int whole = WholeTilesBeforeRest(rows, kTileRows);
  int r = 0;
  for (int t = 0; t < whole; ++t, r += kTileRows) {
    MicroTile<kTileRows, VecF, 1, 2>(depth, a + static_cast<size_t>(r) * lda, lda, b, c + static_cast<size_t>(r) * ldc,
                                     ldc, bias, accumulate, finalize, lo, hi,
                                     residual != nullptr ? residual + static_cast<size_t>(r) * residual_stride : nullptr,
                                     residual_stride, panel_stride);
  }
  RestTiles(kPairTiles, r, rows, depth, a, lda, b, panel_stride, c, ldc, bias, accumulate, finalize, lo, hi, residual,
            residual_stride);
}

namespace {

// One kRows x 24 tile over a full 16-column panel and the 8-column last
// panel after it (its weights at b + panel_stride, 8 floats a depth step):
// one broadcast of each row's value feeds a 16-lane and an 8-lane
// multiply-add. One panel at a time, each row's value is broadcast once per
// panel, and the broadcasts, not the multiply-adds, bound a 24-column layer
// with a short K (the first layers' 3x3x3 windows, 96 -> 24 projections).
template <int kRows>
inline __attribute__((always_inline)) void WideNarrowMicroTile(const GemmSegments& depth, const float* a, size_t lda,
                                                               const float* b, size_t panel_stride, float* c,
                                                               size_t ldc, const float* bias, bool accumulate,
                                                               bool finalize, float lo, float hi,
                                                               const float* residual, size_t residual_stride) {
  VecF wide[kRows];
  V8 narrow[kRows];
  if (accumulate) {
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
      wide[r] = Load<VecF>(c + r * ldc);
      narrow[r] = Load<V8>(c + r * ldc + 16);
    }
  } else {
    const VecF bw = bias != nullptr ? Load<VecF>(bias) : VecF{};
    const V8 bn = bias != nullptr ? Load<V8>(bias + 16) : V8{};
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
      wide[r] = bw;
      narrow[r] = bn;
    }
  }
  const float* b0 = b;
  const float* b1 = b + panel_stride;
  const int length = depth.length;
  for (int seg = 0; seg < depth.count; ++seg, a += depth.stride) {
    const float* rows[kRows];
    RowPointers(a, lda, rows);
    for (int k = 0; k < length; ++k, b0 += 16, b1 += 8) {
      const VecF w0 = Load<VecF>(b0);
      const V8 w1 = Load<V8>(b1);
#pragma GCC unroll 16
      for (int r = 0; r < kRows; ++r) {
        // One broadcast register for both: the 8-lane product takes its low
        // half. (x - 0 is x for every x, so this is a bare broadcast; Splat's
        // 0 + x is not, for x = -0.)
        const VecF x = rows[r][k] - VecF{};
        wide[r] += x * w0;
        narrow[r] += __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7) * w1;
      }
    }
  }
  if (finalize) {
    if (residual != nullptr) {
#pragma GCC unroll 16
      for (int r = 0; r < kRows; ++r) {
        wide[r] += Load<VecF>(residual + r * residual_stride);
        narrow[r] += Load<V8>(residual + r * residual_stride + 16);
      }
    }
    const VecF wlo = Splat<VecF>(lo), whi = Splat<VecF>(hi);
    const V8 nlo = Splat<V8>(lo), nhi = Splat<V8>(hi);
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
      wide[r] = Clamp(wide[r], wlo, whi);
      narrow[r] = Clamp(narrow[r], nlo, nhi);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r) {
    Store<VecF>(c + r * ldc, wide[r]);
    Store<V8>(c + r * ldc + 16, narrow[r]);
  }
}

// A height's own function, as for the pair tiles.
template <int kRows>
__attribute__((noinline)) void WideNarrowTile(const GemmSegments& depth, const float* a, size_t lda, const float* b,
                                              size_t panel_stride, float* c, size_t ldc, const float* bias,
                                              bool accumulate, bool finalize, float lo, float hi,
                                              const float* residual, size_t residual_stride) {
  WideNarrowMicroTile<kRows>(depth, a, lda, b, panel_stride, c, ldc, bias, accumulate, finalize, lo, hi, residual,
                             residual_stride);
}

template <int... kRows>
constexpr auto MakeWideNarrowTiles(std::integer_sequence<int, kRows...>) {
  return std::array<PairTileFn, sizeof...(kRows)>{WideNarrowTile<kRows + 1>...};
}
constexpr auto kWideNarrowTiles = MakeWideNarrowTiles(std::make_integer_sequence<int, kTileRows>{});

}  // namespace

// A full 16-column panel and the 8-column last panel after it, 12 rows a
// tile; rows past the last whole tile join it as two tiles of even height.
void GemmF32PanelWideNarrow(int rows, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                            size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate,
                            bool finalize, float lo, float hi, const float* residual, size_t residual_stride) {
  const int whole = WholeTilesBeforeRest(rows, kTileRows);
  int r = 0;
  for (int t = 0; t < whole; ++t, r += kTileRows) {
    WideNarrowMicroTile<kTileRows>(depth, a + static_cast<size_t>(r) * lda, lda, b, panel_stride,
                                   c + static_cast<size_t>(r) * ldc, ldc, bias, accumulate, finalize, lo, hi,
                                   residual != nullptr ? residual + static_cast<size_t>(r) * residual_stride : nullptr,
                                   residual_stride);
  }
  RestTiles(kWideNarrowTiles, r, rows, depth, a, lda, b, panel_stride, c, ldc, bias, accumulate, finalize, lo, hi,
            residual, residual_stride);
}

// Four adjacent full 16-column panels, 6 rows a tile: 24 accumulators and
// four weight vectors. Per depth step 6 broadcasts and 4 loads feed 24
// multiply-adds, against 12 and 2 in the pair tile: on AMD Zen 4, whose
// load side the pair tile's broadcasts keep busy, the inner loop runs
// about 7% faster (a loop of the bare tile: 115 against 108 GFLOPS).
// Rows past the last whole tile join it on the pair path (7..11 rows, one
// pair tile per two panels), so no tile is left with fewer than 12 sums.
void GemmF32PanelQuad(int rows, const GemmSegments& depth, const float* a, size_t lda, const float* b,
                      size_t panel_stride, float* c, size_t ldc, const float* bias, bool accumulate, bool finalize,
                      float lo, float hi, const float* residual, size_t residual_stride) {
  constexpr int kQuadRows = kTileRows / 2;
  const int whole = WholeTilesBeforeRest(rows, kQuadRows);
  int r = 0;
  for (int t = 0; t < whole; ++t, r += kQuadRows) {
    MicroTile<kQuadRows, VecF, 1, 4>(depth, a + static_cast<size_t>(r) * lda, lda, b, c + static_cast<size_t>(r) * ldc,
                                     ldc, bias, accumulate, finalize, lo, hi,
                                     residual != nullptr ? residual + static_cast<size_t>(r) * residual_stride : nullptr,
                                     residual_stride, panel_stride);
  }
  if (r == rows) return;
  for (int p = 0; p < 4; p += 2) {
    GemmF32PanelPair(rows - r, depth, a + static_cast<size_t>(r) * lda, lda, b + p * panel_stride, panel_stride,
                     c + static_cast<size_t>(r) * ldc + p * 16, ldc, bias != nullptr ? bias + p * 16 : nullptr,
                     accumulate, finalize, lo, hi,
                     residual != nullptr ? residual + static_cast<size_t>(r) * residual_stride + p * 16 : nullptr,
                     residual_stride);
  }
}
#endif

void AddResidualClampF32(int rows, int cols, int residual_cols, const float* r, size_t r_stride, float lo, float hi,
                         float* c, size_t ldc) {
  const VecF vlo = Splat<VecF>(lo), vhi = Splat<VecF>(hi);
  for (int i = 0; i < rows; ++i) {
    float* crow = c + static_cast<size_t>(i) * ldc;
    const float* rrow = r + static_cast<size_t>(i) * r_stride;
    int j = 0;
    for (; j + kLanes <= residual_cols; j += kLanes) {
      Store<VecF>(crow + j, Clamp(Load<VecF>(crow + j) + Load<VecF>(rrow + j), vlo, vhi));
    }
    for (; j < residual_cols; ++j) crow[j] = ClampF(crow[j] + rrow[j], lo, hi);
    for (; j + kLanes <= cols; j += kLanes) Store<VecF>(crow + j, Clamp(Load<VecF>(crow + j), vlo, vhi));
    for (; j < cols; ++j) crow[j] = ClampF(crow[j], lo, hi);
  }
}

void GemvF32(int k, const float* w, size_t row_stride, const float* x, const float* bias, float lo, float hi, float* y,
             int n_begin, int n_end) {
  constexpr int kL = kLanes;
  int i = n_begin;
  // Four rows at a time share each load of x; two accumulators per row hide
  // the FMA latency.
  for (; i + 4 <= n_end; i += 4) {
    const float* w0 = w + static_cast<size_t>(i) * row_stride;
    const float* w1 = w0 + row_stride;
    const float* w2 = w1 + row_stride;
    const float* w3 = w2 + row_stride;
    VecF a0 = {}, a1 = {}, a2 = {}, a3 = {}, b0 = {}, b1 = {}, b2 = {}, b3 = {};
    int j = 0;
    for (; j + 2 * kL <= k; j += 2 * kL) {
      const VecF x0 = Load<VecF>(x + j);
      const VecF x1 = Load<VecF>(x + j + kL);
      a0 += Load<VecF>(w0 + j) * x0;
      b0 += Load<VecF>(w0 + j + kL) * x1;
      a1 += Load<VecF>(w1 + j) * x0;
      b1 += Load<VecF>(w1 + j + kL) * x1;
      a2 += Load<VecF>(w2 + j) * x0;
      b2 += Load<VecF>(w2 + j + kL) * x1;
      a3 += Load<VecF>(w3 + j) * x0;
      b3 += Load<VecF>(w3 + j + kL) * x1;
    }
    for (; j + kL <= k; j += kL) {
      const VecF x0 = Load<VecF>(x + j);
      a0 += Load<VecF>(w0 + j) * x0;
      a1 += Load<VecF>(w1 + j) * x0;
      a2 += Load<VecF>(w2 + j) * x0;
      a3 += Load<VecF>(w3 + j) * x0;
    }
    float s0 = HorizontalSum(a0 + b0), s1 = HorizontalSum(a1 + b1);
    float s2 = HorizontalSum(a2 + b2), s3 = HorizontalSum(a3 + b3);
    for (; j < k; ++j) {
      s0 += w0[j] * x[j];
      s1 += w1[j] * x[j];
      s2 += w2[j] * x[j];
      s3 += w3[j] * x[j];
    }
    if (bias != nullptr) {
      s0 += bias[i];
      s1 += bias[i + 1];
      s2 += bias[i + 2];
      s3 += bias[i + 3];
    }
    y[i] = ClampF(s0, lo, hi);
    y[i + 1] = ClampF(s1, lo, hi);
    y[i + 2] = ClampF(s2, lo, hi);
    y[i + 3] = ClampF(s3, lo, hi);
  }
  for (; i < n_end; ++i) {
    const float* wr = w + static_cast<size_t>(i) * row_stride;
    VecF a0 = {}, b0 = {};
    int j = 0;
    for (; j + 2 * kL <= k; j += 2 * kL) {
      a0 += Load<VecF>(wr + j) * Load<VecF>(x + j);
      b0 += Load<VecF>(wr + j + kL) * Load<VecF>(x + j + kL);
    }
    for (; j + kL <= k; j += kL) a0 += Load<VecF>(wr + j) * Load<VecF>(x + j);
    float s = HorizontalSum(a0 + b0);
    for (; j < k; ++j) s += wr[j] * x[j];
    if (bias != nullptr) s += bias[i];
    y[i] = ClampF(s, lo, hi);
  }
}

}  // namespace relite::cpu::RELITE_ISA_NS
