#include "tests/testing/golden_cases.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include <gtest/gtest.h>

namespace relite::testing {

namespace fs = std::filesystem;

std::vector<uint8_t> ReadFileBytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

int RunGoldenCases(Interpreter& interp, const fs::path& models_dir, const std::string& name, const GoldenCheck& check) {
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(models_dir / "golden" / name)) {
    if (!entry.is_directory()) continue;
    const fs::path case_dir = entry.path();
    const std::string case_name = case_dir.filename().string();
    SCOPED_TRACE(name + "/" + case_name);
    for (int k = 0; k < interp.num_inputs(); ++k) {
      const auto bytes = ReadFileBytes(case_dir / ("input_" + std::to_string(k) + ".bin"));
      Tensor* t = interp.input_tensor(k);
      if (bytes.size() != t->bytes) {
        ADD_FAILURE() << "input " << k << ": the golden file has " << bytes.size() << " bytes, the tensor " << t->bytes;
        return cases;
      }
      std::memcpy(t->data, bytes.data(), bytes.size());
    }
    if (Status s = interp.Invoke(); !s.ok()) {
      ADD_FAILURE() << s.ToString();
      return cases;
    }
    for (int k = 0; k < interp.num_outputs(); ++k) {
      const auto bytes = ReadFileBytes(case_dir / ("output_" + std::to_string(k) + ".bin"));
      const Tensor* t = interp.output_tensor(k);
      if (bytes.size() != t->bytes || t->type != DataType::kFloat32) {
        ADD_FAILURE() << "output " << k << ": the golden file has " << bytes.size() << " bytes, the tensor " << t->bytes
                      << " (" << DataTypeName(t->type) << ")";
        continue;
      }
      std::vector<float> want(bytes.size() / sizeof(float));
      std::memcpy(want.data(), bytes.data(), bytes.size());
      check(case_name, k, t->data_as<float>(), want);
    }
    ++cases;
  }
  return cases;
}

double MaxAbs(const std::vector<float>& want) {
  double m = 0;
  for (float w : want) m = std::max(m, std::fabs(static_cast<double>(w)));
  return m;
}

GoldenError MeasureGoldenError(const float* got, const std::vector<float>& want, double atol, double rtol) {
  GoldenError e;
  e.values = want.size();
  e.max_abs_want = MaxAbs(want);
  for (size_t i = 0; i < want.size(); ++i) {
    double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (std::isnan(err)) err = std::numeric_limits<double>::infinity();
    if (!(err <= atol + rtol * std::fabs(want[i])) && e.outside++ == 0) e.first_outside = i;
    e.max_err = std::max(e.max_err, err);
  }
  return e;
}

double MaskAgreement(const float* got, const std::vector<float>& want, float threshold) {
  size_t agree = 0;
  for (size_t i = 0; i < want.size(); ++i) agree += (got[i] > threshold) == (want[i] > threshold);
  return want.empty() ? 1.0 : static_cast<double>(agree) / static_cast<double>(want.size());
}

}  // namespace relite::testing
