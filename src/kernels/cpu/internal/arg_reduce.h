// ARG_MAX / ARG_MIN along one axis given by a constant 1-element axis tensor
// (int32 or int64). The output drops that axis and holds int32 or int64
// indices (ArgMaxOptions / ArgMinOptions.output_type). Ties go to the
// smallest index; as in TFLite a value wins only when it compares greater
// (less), so NaNs never win except at index 0. Quantized uint8/int8 inputs
// compare their raw values, which preserves the order for any positive scale.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/reduction.h"

namespace relite::cpu {
namespace arg_reduce_internal {

constexpr int kTile = 64;

// Index of the first maximum (minimum) of a contiguous row (n >= 1): a
// vectorised max (min), then a search for its first occurrence, 32 values per
// vectorised test.
template <bool kMin, typename T>
int64_t RowArgExtreme(const T* x, int64_t n) {
  if (x[0] != x[0]) return 0;  // a NaN at index 0 is never beaten
  using Reducer = std::conditional_t<kMin, reduce_internal::MinReducer<T>, reduce_internal::MaxReducer<T>>;
  const T m = reduce_internal::ReduceContiguous<Reducer>(x, n);
  constexpr int kBlock = 32;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    int hit = 0;
    for (int l = 0; l < kBlock; ++l) hit |= static_cast<int>(x[i + l] == m);
    if (hit != 0) break;
  }
  for (; i < n; ++i) {
    if (x[i] == m) return i;
  }
  return 0;  // every value is the extreme's identity or NaN: nothing beats index 0
}

// Columns [c0, c0 + w) of an [n, stride] matrix.
template <bool kMin, typename T, typename Index>
void ColumnArgExtreme(const T* x, int64_t n, int64_t stride, int w, Index* out) {
  T best[kTile];
  Index index[kTile];
  for (int c = 0; c < w; ++c) {
    best[c] = x[c];
    index[c] = 0;
  }
  for (int64_t a = 1; a < n; ++a) {
    const T* row = x + a * stride;
    const Index ai = static_cast<Index>(a);
    for (int c = 0; c < w; ++c) {
      const bool wins = kMin ? row[c] < best[c] : row[c] > best[c];
      best[c] = wins ? row[c] : best[c];
      index[c] = wins ? ai : index[c];
    }
  }
  for (int c = 0; c < w; ++c) out[c] = index[c];
}

template <bool kMin>
class ArgExtremeKernel final : public Kernel {
 public:
  explicit ArgExtremeKernel(DataType requested_index_type) : requested_(requested_index_type) {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 2 || !ctx.has_input(0) || !ctx.has_input(1)) {
      return ctx.Error("expects 2 inputs (input, axis), got " + std::to_string(ctx.num_inputs()));
    }
    if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
    const Tensor& input = ctx.input(0);
    const Tensor& axis = ctx.input(1);
    const Tensor& output = ctx.output(0);
    switch (input.type) {
      case DataType::kFloat32:
      case DataType::kInt32:
      case DataType::kInt64:
      case DataType::kUInt8:
      case DataType::kInt8:
      case DataType::kInt16:
      case DataType::kBool:
        break;
      default: return ctx.Error("input type " + DataTypeName(input.type) + " is not supported");
    }
    if (output.type != DataType::kInt32 && output.type != DataType::kInt64) {
      return ctx.Error("output must be int32 or int64, got " + DataTypeName(output.type));
    }
    if (requested_ != DataType::kFloat32 && requested_ != output.type) {
      return ctx.Error("output_type " + DataTypeName(requested_) + " differs from the output tensor type " +
                       DataTypeName(output.type));
    }
    if (input.rank() < 1) return ctx.Error("input must have rank >= 1, got a scalar");
    if (axis.type != DataType::kInt32 && axis.type != DataType::kInt64) {
      return ctx.Error("axis must be int32 or int64, got " + DataTypeName(axis.type));
    }
    if (axis.num_elements() != 1) {
      return ctx.Error("axis must hold exactly one value, got shape " + ShapeToString(axis.shape));
    }
    if (!axis.is_constant()) return ctx.Unsupported("axis must be a constant tensor");
    if (axis.data == nullptr) return ctx.Error("axis tensor has no data");
    const int64_t a = axis.type == DataType::kInt32 ? axis.data_as<int32_t>()[0] : axis.data_as<int64_t>()[0];
    const int rank = input.rank();
    if (a < -rank || a >= rank) {
      return ctx.Error("axis " + std::to_string(a) + " is out of range for input of rank " + std::to_string(rank));
    }
    const int ax = static_cast<int>(a < 0 ? a + rank : a);
    Shape out_shape;
    outer_ = inner_ = 1;
    for (int d = 0; d < rank; ++d) {
      if (d < ax) outer_ *= input.dim(d);
      if (d > ax) inner_ *= input.dim(d);
      if (d != ax) out_shape.push_back(input.dim(d));
    }
    extent_ = input.dim(ax);
    if (extent_ == 0 && NumElements(out_shape) > 0) {
      return ctx.Error(std::string(kMin ? "cannot take the arg min" : "cannot take the arg max") + " over an empty axis " + std::to_string(ax) + " of shape " +
                       ShapeToString(input.shape));
    }
    return ctx.ResizeOutput(0, out_shape);
  }

  Status Eval(KernelContext& ctx) override {
    const bool i64 = ctx.output(0).type == DataType::kInt64;
    switch (ctx.input(0).type) {
      case DataType::kFloat32: return i64 ? EvalTyped<float, int64_t>(ctx) : EvalTyped<float, int32_t>(ctx);
      case DataType::kInt32: return i64 ? EvalTyped<int32_t, int64_t>(ctx) : EvalTyped<int32_t, int32_t>(ctx);
      case DataType::kInt64: return i64 ? EvalTyped<int64_t, int64_t>(ctx) : EvalTyped<int64_t, int32_t>(ctx);
      case DataType::kUInt8: return i64 ? EvalTyped<uint8_t, int64_t>(ctx) : EvalTyped<uint8_t, int32_t>(ctx);
      case DataType::kInt8: return i64 ? EvalTyped<int8_t, int64_t>(ctx) : EvalTyped<int8_t, int32_t>(ctx);
      case DataType::kInt16: return i64 ? EvalTyped<int16_t, int64_t>(ctx) : EvalTyped<int16_t, int32_t>(ctx);
      case DataType::kBool: return i64 ? EvalTyped<bool, int64_t>(ctx) : EvalTyped<bool, int32_t>(ctx);
      default: return ctx.Error("unexpected input type " + DataTypeName(ctx.input(0).type));
    }
  }

 private:
  template <typename T, typename Index>
  Status EvalTyped(KernelContext& ctx) {
    const T* x = ctx.input(0).data_as<T>();
    Index* out = ctx.output(0).data_as<Index>();
    const int64_t outer = outer_, extent = extent_, inner = inner_;
    if (outer * inner == 0) return Status::Ok();
    if (inner == 1) {
      ctx.ParallelFor(outer, std::max<int64_t>(1, 8192 / extent), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) out[o] = static_cast<Index>(RowArgExtreme<kMin>(x + o * extent, extent));
      });
      return Status::Ok();
    }
    const int64_t tiles = (inner + kTile - 1) / kTile;
    const int64_t work = std::max<int64_t>(1, extent * std::min<int64_t>(inner, kTile));
    ctx.ParallelFor(outer * tiles, std::max<int64_t>(1, 8192 / work), [&](int64_t b, int64_t e) {
      for (int64_t item = b; item < e; ++item) {
        const int64_t o = item / tiles;
        const int64_t c0 = (item - o * tiles) * kTile;
        const int w = static_cast<int>(std::min<int64_t>(kTile, inner - c0));
        ColumnArgExtreme<kMin>(x + o * extent * inner + c0, extent, inner, w, out + o * inner + c0);
      }
    });
    return Status::Ok();
  }

  DataType requested_;  // kFloat32 (the schema default) when unspecified
  int64_t outer_ = 1, extent_ = 1, inner_ = 1;
};

}  // namespace arg_reduce_internal

// output_type defaults to FLOAT32 in the schema, which is no index type: then
// the output tensor's declared type (int32 or int64) decides.
template <bool kMin>
StatusOr<std::unique_ptr<Kernel>> CreateArgExtremeKernel(const Node& node, int32_t output_type) {
  const DataType requested = static_cast<DataType>(output_type);
  if (requested != DataType::kFloat32 && requested != DataType::kInt32 && requested != DataType::kInt64) {
    return InvalidArgumentError(node.Describe() + ": output_type must be INT32 or INT64, got " + DataTypeName(requested));
  }
  return std::unique_ptr<Kernel>(std::make_unique<arg_reduce_internal::ArgExtremeKernel<kMin>>(requested));
}

}  // namespace relite::cpu
