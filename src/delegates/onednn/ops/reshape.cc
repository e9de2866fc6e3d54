// RESHAPE: the input's plain bytes under the output's (declared, checked) shape.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildReshape(OpContext& ctx) { return BuildReshapeLike(ctx); }

}  // namespace relite::onednn
