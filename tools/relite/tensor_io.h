// Tensor data in and out of files for the relite CLI: raw .bin, .npy, images
// (via stb_image), deterministic pseudo-random fill, and summary statistics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relite/interpreter.h"
#include "relite/status.h"
#include "relite/tensor.h"

namespace relite::cli {

// How an image's pixels map to a float input.
enum class FloatRange {
  kMinusOneToOne,  // pixel / 127.5 - 1
  kZeroToOne,      // pixel / 255
};

// Fills input tensor `t` (graph input `index`, for messages) from `path`:
// .bin (raw little-endian bytes, exact size), .npy (dtype and shape must
// match) or an image (.bmp/.png/.jpg/.jpeg). On success `*description`
// (optional) says what was read, e.g. "image 512x600 -> 128x128x3".
Status FillInputFromFile(const std::string& path, int index, Tensor& t, FloatRange range,
                         std::string* description = nullptr);

// Deterministic pseudo-random data (fixed seed per `seed`): floats uniform in
// [-1, 1], integers over the whole dtype range, bool 0/1.
void FillPseudoRandom(Tensor& t, uint64_t seed);

Status WriteTensorBin(const std::string& path, const Tensor& t);
Status WriteTensorNpy(const std::string& path, const Tensor& t);

// --- Lower-level pieces (also used by tests and inspect) ---

// OK unless `file` is a PNG with a chunk whose CRC does not match (or that
// runs past the end): a corrupted image must not decode to wrong pixels.
Status CheckPngChecksums(const std::string& path, const std::vector<uint8_t>& file);

// Loads an image as RGB, converts to `channels` (1: mean of RGB, 3: RGB,
// 4: RGB + alpha 255), resizes to height x width with bilinear filtering and
// half-pixel centres, rounds to uint8. HWC layout. `src_w`/`src_h` (optional)
// receive the image's original size.
StatusOr<std::vector<uint8_t>> LoadImageResized(const std::string& path, int height, int width, int channels,
                                                int* src_w = nullptr, int* src_h = nullptr);

struct NpyArray {
  std::string descr;  // normalised, e.g. "<f4", "|u1"
  DataType type = DataType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};
// Parses a .npy file (format versions 1, 2, 3; C order only).
StatusOr<NpyArray> ReadNpy(const std::string& path);
// For every .npy input whose shape differs from the model's: resizes that
// input when its shape signature allows it (dimensions marked -1), else a
// clear error; then re-allocates. Other inputs are left as they are.
Status ResizeInputsToNpy(Interpreter& interp, const std::vector<std::string>& inputs);
// The .npy descr of a dtype, or "" if .npy has no equivalent.
std::string NpyDescr(DataType type);

StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path);

float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);

// True for dtypes whose elements ElementAsDouble can read.
bool IsNumeric(DataType type);
// Element i of a numeric tensor as a double (raw value: not dequantized).
double ElementAsDouble(const Tensor& t, int64_t i);

struct TensorStats {
  bool numeric = false;
  int64_t count = 0;
  double min = 0, max = 0, mean = 0;
  int64_t nan = 0;
};
TensorStats ComputeStats(const Tensor& t);

}  // namespace relite::cli
