// The real models' golden cases (MODELS_DIR/golden/NAME/CASE/input_K.bin,
// output_K.bin: raw tensor bytes) run through an interpreter, and the error
// statistics the model tests bound.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "relite/relite.h"

namespace relite::testing {

std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path);

// Feeds each case of `name` to `interp` (allocated), invokes, and hands
// every float output to `check` with the golden values. Failures (sizes,
// Invoke) are reported with ADD_FAILURE. Returns the number of cases run.
using GoldenCheck = std::function<void(const std::string& case_name, int output, const float* got,
                                       const std::vector<float>& want)>;
int RunGoldenCases(Interpreter& interp, const std::filesystem::path& models_dir, const std::string& name,
                   const GoldenCheck& check);

// |got - want| against atol + rtol * |want|, value by value.
struct GoldenError {
  double max_abs_want = 0;  // max |want|: an output's scale
  double max_err = 0;       // NaN counts as infinite
  size_t outside = 0, first_outside = 0, values = 0;
};
GoldenError MeasureGoldenError(const float* got, const std::vector<float>& want, double atol, double rtol);
// max |want| alone (to state a bound relative to an output's scale).
double MaxAbs(const std::vector<float>& want);
// The share of values on the same side of `threshold` (a mask's agreement).
double MaskAgreement(const float* got, const std::vector<float>& want, float threshold);

}  // namespace relite::testing
