// relite convert and relite zoo: subcommands that write .tflite files.
#pragma once

#include <cstdint>
#include <string>

namespace relite::cli {

struct ConvertOptions {
  std::string model;
  std::string out;
  bool dequantize = false;
  std::string weights = "float32";  // float32 | float16
};
int ConvertCommand(const ConvertOptions& options);

struct ZooOptions {
  std::string name;
  std::string out;
  uint64_t seed = 1;
  std::string weights = "float32";
  bool list = false;
};
int ZooCommand(const ZooOptions& options);

}  // namespace relite::cli
