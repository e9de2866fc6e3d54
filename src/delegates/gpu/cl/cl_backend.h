// The OpenCL backend: one device, one context, one in-order queue.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "src/delegates/gpu/backend.h"

namespace relite::gpu::cl {

struct ClDeviceChoice {
  int index = -1;        // index into ListClDevices(); -1: first GPU, else first device
  std::string name;      // case-insensitive substring of the device or platform name
};

// Every OpenCL device of every platform, in platform order.
StatusOr<std::vector<DeviceInfo>> ListClDevices();

StatusOr<std::unique_ptr<Backend>> CreateClBackend(const ClDeviceChoice& choice, Precision precision);

}  // namespace relite::gpu::cl
