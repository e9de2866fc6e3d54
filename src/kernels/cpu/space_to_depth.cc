// SPACE_TO_DEPTH (NHWC): the inverse of DEPTH_TO_SPACE:
// out[n, h, w, (i*bs + j)*C + c] = in[n, h*bs + i, w*bs + j, c].
#include <limits>
#include <memory>
#include <string>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class SpaceToDepthKernel final : public Kernel {
 public:
  explicit SpaceToDepthKernel(int32_t block_size) : bs_(block_size) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(0), "output"));
    if (input.rank() != 4) return ctx.Error("input must be 4-D NHWC, got shape " + ShapeToString(input.shape));
    const int64_t n = input.dim(0), h = input.dim(1), w = input.dim(2), c = input.dim(3);
    const int64_t bs = bs_;
    if (h % bs != 0 || w % bs != 0) {
      return ctx.Error("input height " + std::to_string(h) + " and width " + std::to_string(w) +
                       " must be multiples of block_size " + std::to_string(bs));
    }
    const int64_t out_h = h / bs, out_w = w / bs, out_c = c * bs * bs;
    if (out_c > std::numeric_limits<int32_t>::max()) return ctx.Error("output depth is too large");
    // Output order (n, h, w, i, j, c) read from the input.
    view_ = StridedView{};
    view_.rank = 6;
    const int64_t sizes[6] = {n, out_h, out_w, bs, bs, c};
    const int64_t strides[6] = {h * w * c, bs * w * c, bs * c, w * c, c, 1};
    for (int d = 0; d < 6; ++d) {
      view_.size[d] = sizes[d];
      view_.stride[d] = strides[d];
    }
    return ctx.ResizeOutput(0, Shape{static_cast<int32_t>(n), static_cast<int32_t>(out_h),
                                     static_cast<int32_t>(out_w), static_cast<int32_t>(out_c)});
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.num_elements() == 0) return Status::Ok();
    CopyStridedView(ctx, view_, DataTypeSize(input.type), static_cast<const uint8_t*>(input.data),
                    static_cast<uint8_t*>(ctx.output(0).data));
    return Status::Ok();
  }

 private:
  int32_t bs_;
  StridedView view_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSpaceToDepth(const Node& node) {
  int32_t block_size = 0;
  if (const auto* o = GetOptions<tflite::SpaceToDepthOptions>(node)) block_size = o->block_size();
  if (block_size < 1) {
    return InvalidArgumentError(node.Describe() + ": block_size must be >= 1, got " + std::to_string(block_size));
  }
  return std::unique_ptr<Kernel>(std::make_unique<SpaceToDepthKernel>(block_size));
}

}  // namespace relite::cpu
