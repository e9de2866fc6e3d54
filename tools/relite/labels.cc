#include "tools/relite/labels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tools/relite/tensor_io.h"

namespace relite::cli {

StatusOr<std::vector<std::string>> ReadLabels(const std::string& path) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  std::vector<std::string> labels;
  std::string line;
  for (uint8_t b : *bytes) {
    if (b == '\n') {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      labels.push_back(std::move(line));
      line.clear();
    } else {
      line += static_cast<char>(b);
    }
  }
  if (!line.empty()) {
    if (line.back() == '\r') line.pop_back();
    labels.push_back(std::move(line));
  }
  return labels;
}

std::vector<TopEntry> TopK(const Tensor& t, int k) {
  std::vector<TopEntry> all;
  if (!IsNumeric(t.type) || t.data == nullptr || k <= 0) return all;
  int64_t n = t.num_elements();
  size_t elem = DataTypeSize(t.type);
  if (n < 0 || static_cast<size_t>(n) * elem > t.bytes) n = static_cast<int64_t>(t.bytes / elem);
  const bool dequantize = (t.type == DataType::kUInt8 || t.type == DataType::kInt8) && t.quant.IsQuantized();
  const double scale = dequantize ? t.quant.scale[0] : 1.0;
  const double zp = dequantize && !t.quant.zero_point.empty() ? static_cast<double>(t.quant.zero_point[0]) : 0.0;
  all.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    double v = ElementAsDouble(t, i);
    double score = dequantize ? scale * (v - zp) : v;
    if (std::isnan(score)) score = -std::numeric_limits<double>::infinity();  // keeps the sort well-defined
    all.push_back({score, i});
  }
  size_t kk = std::min(all.size(), static_cast<size_t>(k));
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(kk), all.end(),
                    [](const TopEntry& a, const TopEntry& b) {
                      if (a.score != b.score) return a.score > b.score;
                      return a.index < b.index;
                    });
  all.resize(kk);
  return all;
}

}  // namespace relite::cli
