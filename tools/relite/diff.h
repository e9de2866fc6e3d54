// relite diff: a model in two configurations (or two models) on the same
// inputs; per output (and with --per-layer per tensor, naming the first past
// the bound) the max and mean absolute and the max relative difference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/relite/common.h"
#include "tools/relite/delegates.h"

namespace relite::cli {

struct DiffOptions {
  std::string model;
  std::string ref_model;  // empty: the same model
  std::vector<std::string> inputs;
  int threads = 0, ref_threads = 0;
  DelegateFlags delegate, ref_delegate;  // the test configuration and the reference (default: CPU)
  InterpreterFlags interpreter;
  double atol = 1e-3, rtol = 1e-3;
  uint64_t seed = 1;
  bool per_layer = false;
  bool verbose = false;  // --per-layer: list every tensor, not only those past the bound
  bool json = false;
};

int DiffCommand(const DiffOptions& options);

}  // namespace relite::cli
