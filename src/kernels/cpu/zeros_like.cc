// ZEROS_LIKE: a tensor of zeros with the input's shape and type (float32,
// int32, int64, the types TFLite takes).
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct ZerosLikeOp {
  template <typename T>
  T operator()(T) const {
    return T{0};
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateZerosLike(const Node&) {
  return MakeTypedUnaryKernel(ZerosLikeOp{}, {DataType::kFloat32, DataType::kInt32, DataType::kInt64});
}

}  // namespace relite::cpu
