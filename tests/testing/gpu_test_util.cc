#include "tests/testing/gpu_test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>

namespace relite::testing {

bool GpuRequired() {
  // The CUDA variants (RELITE_GPU_BACKEND=cuda) have their own switch: CI
  // requires the OpenCL device (PoCL) but has no NVIDIA GPU.
  const char* backend = std::getenv("RELITE_GPU_BACKEND");
  const char* env = std::getenv(backend != nullptr && std::string(backend) == "cuda" ? "RELITE_REQUIRE_CUDA" : "RELITE_REQUIRE_GPU");
  return env != nullptr && std::string(env) == "1";
}

std::string CliPath() {
  if (const char* env = std::getenv("RELITE_TEST_CLI"); env != nullptr && *env != '\0') return env;
#ifdef RELITE_CLI_PATH
  return RELITE_CLI_PATH;
#else
  return "relite";
#endif
}

Delegate* SharedGpuDelegate(GpuPrecision precision, std::string* reason) {
  struct Slot {
    std::unique_ptr<Delegate> delegate;
    std::string reason;
  };
  static std::map<GpuPrecision, Slot> slots;
  auto it = slots.find(precision);
  if (it == slots.end()) {
    GpuDelegateOptions options;
    options.precision = precision;
    if (const char* dev = std::getenv("RELITE_GPU_DEVICE"); dev != nullptr && *dev != '\0') options.device_name = dev;
    auto d = CreateGpuDelegate(options);
    Slot slot;
    if (d.ok()) {
      slot.delegate = std::move(*d);
    } else {
      slot.reason = d.status().ToString();
    }
    it = slots.emplace(precision, std::move(slot)).first;
  }
  if (reason != nullptr) *reason = it->second.reason;
  return it->second.delegate.get();
}

namespace {

std::vector<float> ToFloats(const Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.num_elements()));
  if (t.type == DataType::kBool) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.data_as<bool>()[i] ? 1.f : 0.f;
  } else if (t.type == DataType::kFloat32) {
    std::memcpy(out.data(), t.data, out.size() * 4);
  } else if (t.type == DataType::kUInt8) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.data_as<uint8_t>()[i];
  } else if (t.type == DataType::kInt8) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.data_as<int8_t>()[i];
  } else if (t.type == DataType::kInt32) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(t.data_as<int32_t>()[i]);
  }
  return out;
}

}  // namespace

GpuRunResult RunCpuAndGpu(const std::vector<uint8_t>& bytes, Delegate* gpu, float lo, float hi, uint32_t seed) {
  GpuRunResult r;
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "test");
  if (!model.ok()) {
    ADD_FAILURE() << model.status().ToString();
    return {};
  }
  BuiltinOpResolver resolver;
  auto cpu = InterpreterBuilder(**model, resolver).SetNumThreads(1).Build();
  if (!cpu.ok()) {
    ADD_FAILURE() << "CPU: " << cpu.status().ToString();
    return {};
  }
  auto on_gpu = InterpreterBuilder(**model, resolver).SetNumThreads(1).AddDelegate(gpu).Build();
  if (!on_gpu.ok()) {
    ADD_FAILURE() << "GPU: " << on_gpu.status().ToString();
    return {};
  }
  for (Interpreter* in : {cpu->get(), on_gpu->get()}) {
    Status s = in->AllocateTensors();
    if (!s.ok()) {
      ADD_FAILURE() << (in == cpu->get() ? "CPU: " : "GPU: ") << s.ToString();
      return {};
    }
  }
  const DelegationReport& rep = (*on_gpu)->delegation_reports().back();
  r.partitions = rep.num_partitions;
  r.delegated = rep.num_delegated;
  r.operations = rep.num_operations;
  r.report = rep.ToString();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int i = 0; i < (*cpu)->num_inputs(); ++i) {
    Tensor* a = (*cpu)->input_tensor(i);
    Tensor* b = (*on_gpu)->input_tensor(i);
    if (a->type == DataType::kBool) {
      for (int64_t k = 0; k < a->num_elements(); ++k) a->data_as<bool>()[k] = (rng() & 1) != 0;
    } else if (a->type == DataType::kUInt8 || a->type == DataType::kInt8) {
      // Every 8-bit code, uniformly: the whole quantized range.
      for (int64_t k = 0; k < a->num_elements(); ++k) a->data_as<uint8_t>()[k] = static_cast<uint8_t>(rng());
    } else {
      for (int64_t k = 0; k < a->num_elements(); ++k) a->data_as<float>()[k] = dist(rng);
    }
    std::memcpy(b->data, a->data, a->bytes);
  }
  for (Interpreter* in : {cpu->get(), on_gpu->get()}) {
    Status s = in->Invoke();
    if (!s.ok()) {
      ADD_FAILURE() << (in == cpu->get() ? "CPU: " : "GPU: ") << s.ToString();
      return {};
    }
  }
  for (int i = 0; i < (*cpu)->num_outputs(); ++i) {
    r.cpu.push_back(ToFloats(*(*cpu)->output_tensor(i)));
    r.gpu.push_back(ToFloats(*(*on_gpu)->output_tensor(i)));
  }
  return r;
}

DelegationReport DelegationOf(const std::vector<uint8_t>& bytes, Delegate* gpu) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "test");
  if (!model.ok()) {
    ADD_FAILURE() << model.status().ToString();
    return {};
  }
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).AddDelegate(gpu).Build();
  if (!interp.ok()) {
    ADD_FAILURE() << interp.status().ToString();
    return {};
  }
  return (*interp)->delegation_reports().back();
}

::testing::AssertionResult OutputsClose(const GpuRunResult& r, float atol, float rtol) {
  if (r.cpu.empty()) return ::testing::AssertionFailure() << "no outputs";
  for (size_t o = 0; o < r.cpu.size(); ++o) {
    if (r.cpu[o].size() != r.gpu[o].size()) {
      return ::testing::AssertionFailure() << "output " << o << ": " << r.gpu[o].size() << " values, CPU has " << r.cpu[o].size();
    }
    for (size_t i = 0; i < r.cpu[o].size(); ++i) {
      const float a = r.gpu[o][i], b = r.cpu[o][i];
      if (!(std::fabs(a - b) <= atol + rtol * std::fabs(b))) {
        return ::testing::AssertionFailure() << "output " << o << " value " << i << ": GPU " << a << ", CPU " << b
                                             << " (|diff| " << std::fabs(a - b) << " > " << atol + rtol * std::fabs(b) << ")";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace relite::testing
