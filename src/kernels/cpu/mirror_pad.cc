// MIRROR_PAD: pads each dimension with a mirror image of the input.
// REFLECT leaves the edge element out of the mirror ([1,2,3] padded by 2 on
// both sides: [3,2,1,2,3,2,1]); SYMMETRIC repeats it ([2,1,1,2,3,3,2]).
// paddings ([rank, 2], int32 or int64, constant) may be at most dim - 1
// (REFLECT) or dim (SYMMETRIC) per side, as in TensorFlow: one reflection.
// Data is moved as opaque elements, so every fixed-size dtype works.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class MirrorPadKernel final : public Kernel {
 public:
  explicit MirrorPadKernel(bool symmetric) : excluded_(symmetric ? 0 : 1) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, input, "input", output, "output"));
    std::vector<int64_t> paddings;
    RELITE_RETURN_IF_ERROR(ReadShapeInput(ctx, 1, "paddings", &paddings));
    const int rank = input.rank();
    if (rank > kMaxCopyRank) return ctx.Unsupported("rank " + std::to_string(rank) + " (at most 8)");
    const Tensor& p = ctx.input(1);
    if (p.rank() != 2 || p.dim(0) != rank || p.dim(1) != 2) {
      return ctx.Error("paddings must have shape [" + std::to_string(rank) + ",2], got " + ShapeToString(p.shape));
    }
    Shape out_shape(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[static_cast<size_t>(2 * d)];
      const int64_t after = paddings[static_cast<size_t>(2 * d + 1)];
      const int64_t n = input.dim(d);
      // No padding is always fine, even for an empty dimension in REFLECT
      // mode (which TFLite rejects; the output is simply empty).
      const int64_t limit = std::max<int64_t>(n - excluded_, 0);
      if (before < 0 || after < 0 || before > limit || after > limit) {
        return ctx.Error("paddings [" + std::to_string(before) + ", " + std::to_string(after) + "] of dimension " +
                         std::to_string(d) + " (size " + std::to_string(n) + ") must lie in [0, " +
                         std::to_string(limit) + "] in " + (excluded_ == 0 ? "SYMMETRIC" : "REFLECT") + " mode");
      }
      RELITE_ASSIGN_OR_RETURN(out_shape[static_cast<size_t>(d)],
                              ToDimension(ctx, n + before + after, "padded dimension " + std::to_string(d)));
      before_[d] = before;
    }
    in_strides_ = RowMajorStrides(input.shape);
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    const int64_t total = output.num_elements();
    if (total == 0) return Status::Ok();
    const size_t esize = DataTypeSize(input.type);
    const auto* src = static_cast<const uint8_t*>(input.data);
    auto* dst = static_cast<uint8_t*>(output.data);
    const int rank = input.rank();
    if (rank == 0) {
      std::memcpy(dst, src, esize);
      return Status::Ok();
    }
    const int last = rank - 1;
    const int64_t row = output.dim(last);
    const int64_t in_row = input.dim(last);
    const int64_t rows = total / row;
    const int64_t before = before_[last];
    ParallelRows(ctx, rows, row * static_cast<int64_t>(esize), [&](int64_t begin, int64_t end) {
      int64_t idx[kMaxCopyRank] = {};  // output multi-index of the outer dimensions
      int64_t rem = begin;
      for (int d = last - 1; d >= 0; --d) {
        idx[d] = rem % output.dim(d);
        rem /= output.dim(d);
      }
      for (int64_t r = begin; r < end; ++r) {
        int64_t offset = 0;
        for (int d = 0; d < last; ++d) {
          offset += Source(idx[d] - before_[d], input.dim(d)) * in_strides_[static_cast<size_t>(d)];
        }
        const uint8_t* s = src + offset * static_cast<int64_t>(esize);
        uint8_t* o = dst + r * row * static_cast<int64_t>(esize);
        for (int64_t i = 0; i < before; ++i) {
          std::memcpy(o + i * esize, s + Source(i - before, in_row) * static_cast<int64_t>(esize), esize);
        }
        std::memcpy(o + before * esize, s, static_cast<size_t>(in_row) * esize);
        for (int64_t i = before + in_row; i < row; ++i) {
          std::memcpy(o + i * esize, s + Source(i - before, in_row) * static_cast<int64_t>(esize), esize);
        }
        for (int d = last - 1; d >= 0; --d) {
          if (++idx[d] < output.dim(d)) break;
          idx[d] = 0;
        }
      }
    });
    return Status::Ok();
  }

 private:
  // Input index mirrored into [0, n) for j = output index - padding before
  // (one reflection suffices: Prepare bounds the paddings).
  int64_t Source(int64_t j, int64_t n) const {
    if (j < 0) return -j - 1 + excluded_;
    if (j >= n) return 2 * n - 1 - j - excluded_;
    return j;
  }

  // The mirror image leaves the edge element out in REFLECT mode.
  int64_t excluded_;
  int64_t before_[kMaxCopyRank] = {};
  std::vector<int64_t> in_strides_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateMirrorPad(const Node& node) {
  bool symmetric = false;  // schema default: REFLECT
  if (const auto* o = GetOptions<tflite::MirrorPadOptions>(node)) {
    if (o->mode() != tflite::MirrorPadMode::REFLECT && o->mode() != tflite::MirrorPadMode::SYMMETRIC) {
      return InvalidArgumentError(node.Describe() + ": unknown mirror pad mode " +
                                  std::to_string(static_cast<int>(o->mode())));
    }
    symmetric = o->mode() == tflite::MirrorPadMode::SYMMETRIC;
  }
  return std::unique_ptr<Kernel>(std::make_unique<MirrorPadKernel>(symmetric));
}

}  // namespace relite::cpu
