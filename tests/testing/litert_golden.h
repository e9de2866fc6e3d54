// Golden tests against the real TFLite runtime: one-op (or small) models run
// in relite and in native LiteRT (build/tflite-venv from `scripts/setup.sh
// --tflite`) on the same inputs; LiteRT's outputs are the expectation.
//
//   GoldenCase c("FLOOR_DIV/int32 negative");
//   int a = c.model.AddInput(DataType::kInt32, {4});
//   int o = c.model.AddOutput(DataType::kInt32);
//   c.model.SetBuiltinOp(tflite::BuiltinOperator::FLOOR_DIV, 1);
//   c.Feed<int32_t>(a, DataType::kInt32, {4}, {-7, 7, -8, 0});
//   c.Expect(o);           // exact; c.Expect(o, 1e-5) for a relative bound
//   if (std::string why = RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
//
// All cases of a test run through one Python process: relite computes its
// outputs, every case is written to a folder (model.tflite, inputs as raw
// bytes with their dtype and shape), tests/tools/litert_golden_run.py runs
// LiteRT over the folder, and each output is compared in shape, type and
// values. Without LiteRT the test skips with the reason, unless
// RELITE_REQUIRE_TFLITE=1.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/testing/single_op_model.h"

namespace relite::testing {

struct GoldenCase {
  explicit GoldenCase(std::string case_name) : name(std::move(case_name)) {}

  std::string name;
  SingleOpModel model;
  // Run LiteRT's reference kernels (BUILTIN_REF) instead of its optimized
  // builtin ones: for edge values where the optimized kernel's answer depends
  // on vector-lane position (a NaN in REDUCE_MIN is dropped or kept by where
  // it sits), the reference kernel is the op's definition.
  bool litert_reference_kernels = false;
  // A whole model instead of `model` (several subgraphs, control flow):
  // tensor indices in Feed/Expect are then those of its main subgraph.
  std::vector<uint8_t> model_file;
  // At least this many Invokes before the outputs are compared (state kept
  // across Invokes: resource and variable tensors); inputs keep their last
  // fed values (see Feed for sequences).
  int invokes = 1;

  struct FedInput {
    int tensor;
    DataType type;
    Shape shape;
    std::vector<uint8_t> bytes;
    int step;  // the Invoke it is fed before (0, 1, ...)
  };
  struct Check {
    int tensor;
    double rtol;  // 0: bit-exact
    double atol;
  };
  std::vector<FedInput> feeds;
  std::vector<Check> checks;

  // Values of a graph input (its type and shape as added to the model).
  // Feeding a tensor again makes a sequence: the k-th feed of a tensor goes
  // in before the k-th Invoke (k = 0, 1, ...), other inputs keep their last
  // values, and outputs are compared after the last Invoke. Ops with state
  // (variable tensors) are checked over several steps that way.
  template <typename T>
  void Feed(int tensor, DataType type, const Shape& shape, const std::vector<T>& values) {
    std::vector<uint8_t> b(values.size() * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), values.data(), b.size());
    int step = 0;
    for (const FedInput& f : feeds) step += f.tensor == tensor;
    feeds.push_back({tensor, type, shape, std::move(b), step});
  }
  // An output compared with LiteRT's: exactly, or |a - b| <= atol + rtol * |b|
  // for floats and for each part of a complex64 (NaN matches NaN).
  void Expect(int tensor, double rtol = 0, double atol = 0) { checks.push_back({tensor, rtol, atol}); }
};

// Runs every case in relite and in LiteRT and reports each difference as a
// test failure. Returns "" when it ran, else why LiteRT is unavailable (the
// caller skips; under RELITE_REQUIRE_TFLITE=1 that is a failure instead).
std::string RunAgainstLiteRt(std::vector<std::unique_ptr<GoldenCase>>& cases);

}  // namespace relite::testing
