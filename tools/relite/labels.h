// Class label files: one label per line, indexed from 0 by line number.
#pragma once

#include <string>
#include <vector>

#include "relite/status.h"
#include "relite/tensor.h"

namespace relite::cli {

StatusOr<std::vector<std::string>> ReadLabels(const std::string& path);

struct TopEntry {
  double score = 0;  // dequantized for quantized uint8/int8 outputs
  int64_t index = 0;
};
// The k highest-scoring elements of `t` (flattened), best first; ties keep
// the lower index first.
std::vector<TopEntry> TopK(const Tensor& t, int k);

}  // namespace relite::cli
