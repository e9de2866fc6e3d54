// MAX_POOL_2D (NHWC float32): the maximum of the in-bounds elements of each
// window (padding never wins), then the fused clamp activation. A value wins
// only when greater, so NaNs are skipped. Vectorised over channels, threaded
// over output rows.
#include <memory>

#include "src/kernels/cpu/internal/pool_2d.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class MaxPool2DKernel final : public Kernel {
 public:
  explicit MaxPool2DKernel(const Pool2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override { return PreparePool2D(ctx, params_, &geo_); }

  Status Eval(KernelContext& ctx) override {
    pool_internal::RunPool2D(ctx, params_, geo_, /*max=*/true);
    return Status::Ok();
  }

 private:
  Pool2DParams params_;
  Pool2DGeometry geo_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateMaxPool2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(Pool2DParams params, ParsePool2DParams(node));
  return std::unique_ptr<Kernel>(std::make_unique<MaxPool2DKernel>(params));
}

}  // namespace relite::cpu
