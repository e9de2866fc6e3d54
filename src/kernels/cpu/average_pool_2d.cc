// AVERAGE_POOL_2D (NHWC float32). Each output averages only the in-bounds
// elements of its window (padding is not counted), then applies the fused
// clamp activation. Vectorised over channels, threaded over output rows.
#include <memory>

#include "src/kernels/cpu/internal/pool_2d.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class AveragePool2DKernel final : public Kernel {
 public:
  explicit AveragePool2DKernel(const Pool2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override { return PreparePool2D(ctx, params_, &geo_); }

  Status Eval(KernelContext& ctx) override {
    pool_internal::RunPool2D(ctx, params_, geo_, /*max=*/false);
    return Status::Ok();
  }

 private:
  Pool2DParams params_;
  Pool2DGeometry geo_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateAveragePool2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(Pool2DParams params, ParsePool2DParams(node));
  return std::unique_ptr<Kernel>(std::make_unique<AveragePool2DKernel>(params));
}

}  // namespace relite::cpu
