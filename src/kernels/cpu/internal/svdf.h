// What the SVDF kernels (float, hybrid, int8) share: options and shapes.
//   inputs: input [batch, input_size], weights_feature [filters, input_size],
//           weights_time [filters, memory], bias [units] (optional),
//           state [batch, memory * filters] (a variable tensor)
//   output: [batch, units], units = filters / rank
// Per Invoke and batch row, each filter's memory of `memory` values shifts
// left by one, its newest value becomes weights_feature[f] . input, and the
// filter's output is weights_time[f] . memory; each unit sums `rank`
// consecutive filters, adds the bias and applies the activation.
#pragma once

#include "relite/kernel.h"
#include "tflite_generated.h"

namespace relite::cpu {

struct SvdfOptions {
  int rank = 0;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  bool asymmetric_quantize_inputs = false;
};

// SVDFOptions with the schema defaults; rank must be >= 1.
StatusOr<SvdfOptions> ParseSvdfOptions(const Node& node);

struct SvdfDims {
  int batch = 0, input_size = 0, filters = 0, units = 0, memory = 0;
};

enum : int { kSvdfInput = 0, kSvdfWeightsFeature = 1, kSvdfWeightsTime = 2, kSvdfBias = 3, kSvdfState = 4 };

// Checks the inputs' count and shapes and that the state is a variable,
// and sets the output shape. Types are the caller's to check.
Status PrepareSvdfShapes(KernelContext& ctx, int rank, SvdfDims* dims);

}  // namespace relite::cpu
