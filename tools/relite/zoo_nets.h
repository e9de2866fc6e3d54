// The sample architectures `relite zoo` writes: canonical sizes and op
// patterns of the published float models, deterministic pseudo-random
// weights (He-style uniform initialisation, so activations stay in range).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relite/model_writer.h"
#include "relite/status.h"

namespace relite::zoo {

struct ZooEntry {
  std::string name;
  std::string description;
};
const std::vector<ZooEntry>& ZooModels();

// Builds `name` into `writer` (which must be empty). float16: weights and
// biases stored as float16, each followed by a DEQUANTIZE to float32.
Status BuildZooModel(const std::string& name, uint64_t seed, bool float16, ModelWriter* writer);

// SSD anchors ([ycenter, xcenter, h, w] per anchor, in the order of the
// concatenated box predictions) of TF's multiple grid anchor generator for
// these square feature maps: 6 layers, scales 0.2..0.95, aspect ratios
// {1, 2, 1/2, 3, 1/3} plus the interpolated scale, 3 anchors on the first layer.
std::vector<float> SsdAnchors(const std::vector<int>& feature_sizes);

}  // namespace relite::zoo
