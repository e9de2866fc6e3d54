// classify MODEL: runs a .tflite classifier on a gray test image and prints
// the best class; the C++ flow of relite (and of TFLite) in a few lines.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "relite/relite.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: classify MODEL.tflite\n");
    return 2;
  }
  auto model = relite::Model::FromFile(argv[1]);  // verified as untrusted input
  if (!model.ok()) {
    std::fprintf(stderr, "error: %s\n", model.status().message().c_str());
    return 1;
  }
  relite::BuiltinOpResolver resolver;
  auto interpreter = relite::InterpreterBuilder(**model, resolver).SetNumThreads(2).Build();
  if (!interpreter.ok() || !(*interpreter)->AllocateTensors().ok()) {
    std::fprintf(stderr, "error: cannot prepare the model\n");
    return 1;
  }
  relite::Tensor* input = (*interpreter)->input_tensor(0);
  std::memset(input->data, 128, input->bytes);  // mid-gray, whatever the dtype's width
  if (relite::Status s = (*interpreter)->Invoke(); !s.ok()) {
    std::fprintf(stderr, "error: %s\n", s.message().c_str());
    return 1;
  }
  const relite::Tensor* out = (*interpreter)->output_tensor(0);
  const int64_t n = out->num_elements();
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) {
    const double a = out->type == relite::DataType::kUInt8 ? out->data_as<uint8_t>()[i] : out->data_as<float>()[i];
    const double b = out->type == relite::DataType::kUInt8 ? out->data_as<uint8_t>()[best] : out->data_as<float>()[best];
    if (a > b) best = i;
  }
  std::printf("%s: %lld classes, best %lld\n", argv[1], static_cast<long long>(n), static_cast<long long>(best));
  return 0;
}
