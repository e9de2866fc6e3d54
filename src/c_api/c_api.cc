// The C API (include/relite/c_api.h) over the C++ one. Every entry point
// catches exceptions and turns relite::Status errors into a status code plus
// the message (reporter and per-thread last error); nothing aborts.
#include "relite/c_api.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "relite/gpu_delegate.h"
#include "relite/onednn_delegate.h"
#include "relite/relite.h"

using ReporterFn = void (*)(void* user_data, const char* format, va_list args);

struct ReliteModel {
  std::unique_ptr<relite::Model> model;
};

struct ReliteDelegate {
  std::unique_ptr<relite::Delegate> delegate;
  std::string unavailable_reason;  // a delegate that declines every node says why
};

struct ReliteInterpreterOptions {
  int num_threads = -1;
  bool preserve_all_tensors = false;
  bool flush_denormals = true;
  relite::ResourceLimits limits;
  std::vector<ReliteDelegate*> delegates;
  ReporterFn reporter = nullptr;
  void* reporter_data = nullptr;
};

struct ReliteTensor {
  ReliteInterpreter* owner = nullptr;
  int index = -1;
};

struct ReliteSignatureRunner {
  ReliteInterpreter* owner = nullptr;
  const relite::Signature* signature = nullptr;
};

struct ReliteInterpreter {
  const ReliteModel* model = nullptr;
  std::unique_ptr<relite::BuiltinOpResolver> resolver;
  std::unique_ptr<relite::Interpreter> interpreter;
  ReporterFn reporter = nullptr;
  void* reporter_data = nullptr;
  std::vector<int> inputs, outputs;
  std::vector<ReliteTensor> tensors;  // one wrapper per tensor index
};

namespace {

thread_local std::string g_last_error;

void ReportVa(ReporterFn reporter, void* user_data, const char* format, ...) {
  va_list args;
  va_start(args, format);
  reporter(user_data, format, args);
  va_end(args);
}

// Records the error for ReliteGetLastErrorMessage and hands it to the
// reporter (stderr when none was set, as TFLite's default reporter does).
void Report(ReporterFn reporter, void* user_data, const std::string& message) {
  g_last_error = message;
  if (reporter != nullptr) {
    ReportVa(reporter, user_data, "%s", message.c_str());
  } else {
    std::fprintf(stderr, "ERROR: %s\n", message.c_str());
  }
}

ReliteStatus ToStatus(const ReliteInterpreter* it, const relite::Status& s) {
  if (s.ok()) return kReliteOk;
  Report(it != nullptr ? it->reporter : nullptr, it != nullptr ? it->reporter_data : nullptr, s.message());
  return kReliteError;
}

ReliteType ToCType(relite::DataType t) {
  using relite::DataType;
  switch (t) {
    case DataType::kFloat32: return kReliteFloat32;
    case DataType::kFloat16: return kReliteFloat16;
    case DataType::kInt32: return kReliteInt32;
    case DataType::kUInt8: return kReliteUInt8;
    case DataType::kInt64: return kReliteInt64;
    case DataType::kString: return kReliteString;
    case DataType::kBool: return kReliteBool;
    case DataType::kInt16: return kReliteInt16;
    case DataType::kComplex64: return kReliteComplex64;
    case DataType::kInt8: return kReliteInt8;
    case DataType::kFloat64: return kReliteFloat64;
    case DataType::kComplex128: return kReliteComplex128;
    case DataType::kUInt64: return kReliteUInt64;
    case DataType::kResource: return kReliteResource;
    case DataType::kVariant: return kReliteVariant;
    case DataType::kUInt32: return kReliteUInt32;
    case DataType::kUInt16: return kReliteUInt16;
    case DataType::kInt4: return kReliteInt4;
  }
  return kReliteNoType;
}

const relite::Tensor* Resolve(const ReliteTensor* t) {
  if (t == nullptr || t->owner == nullptr || !t->owner->interpreter) return nullptr;
  return t->owner->interpreter->tensor(t->index);
}

// The position of tensor `index` among the graph inputs, or -1.
int InputPosition(const ReliteInterpreter* it, int index) {
  for (size_t i = 0; i < it->inputs.size(); ++i) {
    if (it->inputs[i] == index) return static_cast<int>(i);
  }
  return -1;
}

// Runs `body`; an exception escaping it (allocation failure) is recorded as
// the error and `failure` returned, so none crosses the C boundary.
template <typename R, typename F>
R Guard(const char* what, R failure, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    g_last_error = std::string(what) + ": out of memory";
  } catch (const std::exception& e) {
    g_last_error = std::string(what) + ": unexpected exception: " + e.what();
  } catch (...) {
    g_last_error = std::string(what) + ": unexpected exception";
  }
  return failure;
}

}  // namespace

extern "C" {

const char* ReliteVersion(void) { return "0.1.0"; }

const char* ReliteTypeGetName(ReliteType type) {
  switch (type) {
    case kReliteNoType: return "NOTYPE";
    case kReliteFloat32: return "FLOAT32";
    case kReliteInt32: return "INT32";
    case kReliteUInt8: return "UINT8";
    case kReliteInt64: return "INT64";
    case kReliteString: return "STRING";
    case kReliteBool: return "BOOL";
    case kReliteInt16: return "INT16";
    case kReliteComplex64: return "COMPLEX64";
    case kReliteInt8: return "INT8";
    case kReliteFloat16: return "FLOAT16";
    case kReliteFloat64: return "FLOAT64";
    case kReliteComplex128: return "COMPLEX128";
    case kReliteUInt64: return "UINT64";
    case kReliteResource: return "RESOURCE";
    case kReliteVariant: return "VARIANT";
    case kReliteUInt32: return "UINT32";
    case kReliteUInt16: return "UINT16";
    case kReliteInt4: return "INT4";
  }
  return "Unknown type";
}

const char* ReliteGetLastErrorMessage(void) { return g_last_error.c_str(); }

ReliteModel* ReliteModelCreate(const void* model_data, size_t model_size) {
  return Guard<ReliteModel*>("ReliteModelCreate", nullptr, [&]() -> ReliteModel* {
    auto m = relite::Model::FromBuffer(model_data, model_size, "<memory>");
    if (!m.ok()) {
      Report(nullptr, nullptr, m.status().message());
      return nullptr;
    }
    return new ReliteModel{std::move(m).value()};
  });
}

ReliteModel* ReliteModelCreateFromFile(const char* model_path) {
  return Guard<ReliteModel*>("ReliteModelCreateFromFile", nullptr, [&]() -> ReliteModel* {
    if (model_path == nullptr) {
      Report(nullptr, nullptr, "ReliteModelCreateFromFile: the path is NULL");
      return nullptr;
    }
    auto m = relite::Model::FromFile(model_path);
    if (!m.ok()) {
      Report(nullptr, nullptr, m.status().message());
      return nullptr;
    }
    return new ReliteModel{std::move(m).value()};
  });
}

void ReliteModelDelete(ReliteModel* model) { delete model; }

ReliteInterpreterOptions* ReliteInterpreterOptionsCreate(void) {
  return Guard<ReliteInterpreterOptions*>("ReliteInterpreterOptionsCreate", nullptr, [] { return new ReliteInterpreterOptions(); });
}
void ReliteInterpreterOptionsDelete(ReliteInterpreterOptions* options) { delete options; }
void ReliteInterpreterOptionsSetNumThreads(ReliteInterpreterOptions* options, int32_t num_threads) {
  if (options != nullptr) options->num_threads = num_threads;
}
void ReliteInterpreterOptionsAddDelegate(ReliteInterpreterOptions* options, ReliteDelegate* delegate) {
  if (options != nullptr && delegate != nullptr) Guard<int>("ReliteInterpreterOptionsAddDelegate", 0, [&] { options->delegates.push_back(delegate); return 0; });
}
void ReliteInterpreterOptionsSetErrorReporter(ReliteInterpreterOptions* options,
                                              void (*reporter)(void* user_data, const char* format, va_list args),
                                              void* user_data) {
  if (options == nullptr) return;
  options->reporter = reporter;
  options->reporter_data = user_data;
}
void ReliteInterpreterOptionsSetPreserveAllTensors(ReliteInterpreterOptions* options, int preserve) {
  if (options != nullptr) options->preserve_all_tensors = preserve != 0;
}
void ReliteInterpreterOptionsSetFlushDenormals(ReliteInterpreterOptions* options, int flush) {
  if (options != nullptr) options->flush_denormals = flush != 0;
}
void ReliteInterpreterOptionsSetResourceLimits(ReliteInterpreterOptions* options, uint64_t max_arena_bytes,
                                               uint64_t max_tensor_bytes, double max_macs) {
  if (options == nullptr) return;
  options->limits.max_arena_bytes = max_arena_bytes;
  options->limits.max_tensor_bytes = max_tensor_bytes;
  options->limits.max_macs = max_macs;
}

ReliteInterpreter* ReliteInterpreterCreate(const ReliteModel* model, const ReliteInterpreterOptions* optional_options) {
  return Guard<ReliteInterpreter*>("ReliteInterpreterCreate", nullptr, [&]() -> ReliteInterpreter* {
    const ReliteInterpreterOptions defaults;
    const ReliteInterpreterOptions& o = optional_options != nullptr ? *optional_options : defaults;
    if (model == nullptr || !model->model) {
      Report(o.reporter, o.reporter_data, "ReliteInterpreterCreate: the model is NULL");
      return nullptr;
    }
    auto it = std::make_unique<ReliteInterpreter>();
    it->model = model;
    it->reporter = o.reporter;
    it->reporter_data = o.reporter_data;
    it->resolver = std::make_unique<relite::BuiltinOpResolver>();
    relite::InterpreterBuilder builder(*model->model, *it->resolver);
    builder.SetNumThreads(o.num_threads)
        .SetPreserveAllTensors(o.preserve_all_tensors)
        .SetFlushDenormals(o.flush_denormals)
        .SetResourceLimits(o.limits);
    for (ReliteDelegate* d : o.delegates) {
      if (d != nullptr && d->delegate) builder.AddDelegate(d->delegate.get());
    }
    auto interp = builder.Build();
    if (!interp.ok()) {
      Report(o.reporter, o.reporter_data, interp.status().message());
      return nullptr;
    }
    it->interpreter = std::move(interp).value();
    it->inputs = it->interpreter->inputs();
    it->outputs = it->interpreter->outputs();
    it->tensors.resize(static_cast<size_t>(it->interpreter->tensors_size()));
    for (size_t i = 0; i < it->tensors.size(); ++i) it->tensors[i] = ReliteTensor{it.get(), static_cast<int>(i)};
    return it.release();
  });
}

void ReliteInterpreterDelete(ReliteInterpreter* interpreter) { delete interpreter; }

int32_t ReliteInterpreterGetInputTensorCount(const ReliteInterpreter* interpreter) {
  return interpreter == nullptr ? 0 : static_cast<int32_t>(interpreter->inputs.size());
}
int32_t ReliteInterpreterGetOutputTensorCount(const ReliteInterpreter* interpreter) {
  return interpreter == nullptr ? 0 : static_cast<int32_t>(interpreter->outputs.size());
}
const int* ReliteInterpreterInputTensorIndices(const ReliteInterpreter* interpreter) {
  return interpreter == nullptr ? nullptr : interpreter->inputs.data();
}
const int* ReliteInterpreterOutputTensorIndices(const ReliteInterpreter* interpreter) {
  return interpreter == nullptr ? nullptr : interpreter->outputs.data();
}

ReliteTensor* ReliteInterpreterGetTensor(const ReliteInterpreter* interpreter, int32_t tensor_index) {
  if (interpreter == nullptr || tensor_index < 0 || static_cast<size_t>(tensor_index) >= interpreter->tensors.size()) {
    return nullptr;
  }
  return const_cast<ReliteTensor*>(&interpreter->tensors[static_cast<size_t>(tensor_index)]);
}
int32_t ReliteInterpreterGetTensorCount(const ReliteInterpreter* interpreter) {
  return interpreter == nullptr ? 0 : static_cast<int32_t>(interpreter->tensors.size());
}

ReliteTensor* ReliteInterpreterGetInputTensor(const ReliteInterpreter* interpreter, int32_t input_index) {
  if (interpreter == nullptr || input_index < 0 || static_cast<size_t>(input_index) >= interpreter->inputs.size()) {
    return nullptr;
  }
  return ReliteInterpreterGetTensor(interpreter, interpreter->inputs[static_cast<size_t>(input_index)]);
}
const ReliteTensor* ReliteInterpreterGetOutputTensor(const ReliteInterpreter* interpreter, int32_t output_index) {
  if (interpreter == nullptr || output_index < 0 || static_cast<size_t>(output_index) >= interpreter->outputs.size()) {
    return nullptr;
  }
  return ReliteInterpreterGetTensor(interpreter, interpreter->outputs[static_cast<size_t>(output_index)]);
}

ReliteStatus ReliteInterpreterResizeInputTensor(ReliteInterpreter* interpreter, int32_t input_index, const int* input_dims,
                                                int32_t input_dims_size) {
  if (interpreter == nullptr) return kReliteError;
  return Guard<ReliteStatus>("ReliteInterpreterResizeInputTensor", kReliteError, [&]() -> ReliteStatus {
    if (input_dims_size < 0 || (input_dims_size > 0 && input_dims == nullptr)) {
      return ToStatus(interpreter, relite::InvalidArgumentError("ResizeInputTensor: invalid dimension list"));
    }
    relite::Shape shape(input_dims, input_dims + input_dims_size);
    return ToStatus(interpreter, interpreter->interpreter->ResizeInputTensor(input_index, shape));
  });
}

ReliteStatus ReliteInterpreterAllocateTensors(ReliteInterpreter* interpreter) {
  if (interpreter == nullptr) return kReliteError;
  return Guard<ReliteStatus>("ReliteInterpreterAllocateTensors", kReliteError,
               [&] { return ToStatus(interpreter, interpreter->interpreter->AllocateTensors()); });
}

ReliteStatus ReliteInterpreterInvoke(ReliteInterpreter* interpreter) {
  if (interpreter == nullptr) return kReliteError;
  return Guard<ReliteStatus>("ReliteInterpreterInvoke", kReliteError, [&] { return ToStatus(interpreter, interpreter->interpreter->Invoke()); });
}

ReliteStatus ReliteInterpreterResetVariableTensors(ReliteInterpreter* interpreter) {
  if (interpreter == nullptr) return kReliteError;
  return Guard<ReliteStatus>("ReliteInterpreterResetVariableTensors", kReliteError,
               [&] { return ToStatus(interpreter, interpreter->interpreter->ResetVariableTensors()); });
}

int32_t ReliteInterpreterGetSignatureCount(const ReliteInterpreter* interpreter) {
  return interpreter == nullptr ? 0 : static_cast<int32_t>(interpreter->interpreter->signatures().size());
}

const char* ReliteInterpreterGetSignatureKey(const ReliteInterpreter* interpreter, int32_t signature_index) {
  if (interpreter == nullptr || signature_index < 0 || signature_index >= ReliteInterpreterGetSignatureCount(interpreter)) {
    return nullptr;
  }
  return interpreter->interpreter->signatures()[static_cast<size_t>(signature_index)].key.c_str();
}

ReliteSignatureRunner* ReliteInterpreterGetSignatureRunner(const ReliteInterpreter* interpreter, const char* signature_key) {
  if (interpreter == nullptr) return nullptr;
  return Guard<ReliteSignatureRunner*>("ReliteInterpreterGetSignatureRunner", nullptr, [&]() -> ReliteSignatureRunner* {
    const auto& sigs = interpreter->interpreter->signatures();
    const relite::Signature* found = nullptr;
    if (signature_key == nullptr) {
      if (sigs.size() == 1) found = &sigs[0];
    } else {
      for (const relite::Signature& s : sigs) {
        if (s.key == signature_key) found = &s;
      }
    }
    if (found == nullptr) {
      Report(interpreter->reporter, interpreter->reporter_data,
             signature_key == nullptr ? "no signature key given and the model has " + std::to_string(sigs.size()) +
                                            " signatures"
                                      : std::string("the model has no signature '") + signature_key + "'");
      return nullptr;
    }
    if (found->subgraph != 0) {
      Report(interpreter->reporter, interpreter->reporter_data,
             "signature '" + found->key + "' runs subgraph " + std::to_string(found->subgraph) +
                 "; relite runs only the main subgraph (0) so far");
      return nullptr;
    }
    return new ReliteSignatureRunner{const_cast<ReliteInterpreter*>(interpreter), found};
  });
}

size_t ReliteSignatureRunnerGetInputCount(const ReliteSignatureRunner* r) {
  return r == nullptr ? 0 : r->signature->inputs.size();
}
size_t ReliteSignatureRunnerGetOutputCount(const ReliteSignatureRunner* r) {
  return r == nullptr ? 0 : r->signature->outputs.size();
}
const char* ReliteSignatureRunnerGetInputName(const ReliteSignatureRunner* r, int32_t input_index) {
  if (r == nullptr || input_index < 0 || static_cast<size_t>(input_index) >= r->signature->inputs.size()) return nullptr;
  return r->signature->inputs[static_cast<size_t>(input_index)].first.c_str();
}
const char* ReliteSignatureRunnerGetOutputName(const ReliteSignatureRunner* r, int32_t output_index) {
  if (r == nullptr || output_index < 0 || static_cast<size_t>(output_index) >= r->signature->outputs.size()) return nullptr;
  return r->signature->outputs[static_cast<size_t>(output_index)].first.c_str();
}

namespace {
int SignatureTensor(const std::vector<std::pair<std::string, int>>& list, const char* name) {
  if (name == nullptr) return -1;
  for (const auto& [n, index] : list) {
    if (n == name) return index;
  }
  return -1;
}
}  // namespace

ReliteTensor* ReliteSignatureRunnerGetInputTensor(ReliteSignatureRunner* r, const char* input_name) {
  if (r == nullptr) return nullptr;
  return ReliteInterpreterGetTensor(r->owner, SignatureTensor(r->signature->inputs, input_name));
}
const ReliteTensor* ReliteSignatureRunnerGetOutputTensor(const ReliteSignatureRunner* r, const char* output_name) {
  if (r == nullptr) return nullptr;
  return ReliteInterpreterGetTensor(r->owner, SignatureTensor(r->signature->outputs, output_name));
}
ReliteStatus ReliteSignatureRunnerResizeInputTensor(ReliteSignatureRunner* r, const char* input_name,
                                                    const int* input_dims, int32_t input_dims_size) {
  if (r == nullptr) return kReliteError;
  const int position = InputPosition(r->owner, SignatureTensor(r->signature->inputs, input_name));
  if (position < 0) {
    return ToStatus(r->owner, relite::InvalidArgumentError(std::string("signature '") + r->signature->key +
                                                           "' has no input '" + (input_name ? input_name : "(null)") +
                                                           "' that is a graph input"));
  }
  return ReliteInterpreterResizeInputTensor(r->owner, position, input_dims, input_dims_size);
}
ReliteStatus ReliteSignatureRunnerAllocateTensors(ReliteSignatureRunner* r) {
  return r == nullptr ? kReliteError : ReliteInterpreterAllocateTensors(r->owner);
}
ReliteStatus ReliteSignatureRunnerInvoke(ReliteSignatureRunner* r) {
  return r == nullptr ? kReliteError : ReliteInterpreterInvoke(r->owner);
}
void ReliteSignatureRunnerDelete(ReliteSignatureRunner* r) { delete r; }

ReliteType ReliteTensorType(const ReliteTensor* tensor) {
  const relite::Tensor* t = Resolve(tensor);
  return t == nullptr ? kReliteNoType : ToCType(t->type);
}
int32_t ReliteTensorNumDims(const ReliteTensor* tensor) {
  const relite::Tensor* t = Resolve(tensor);
  return t == nullptr ? -1 : t->rank();
}
int32_t ReliteTensorDim(const ReliteTensor* tensor, int32_t dim_index) {
  const relite::Tensor* t = Resolve(tensor);
  if (t == nullptr || dim_index < 0 || dim_index >= t->rank()) return -1;
  return t->dim(dim_index);
}
int32_t ReliteTensorShapeSignatureDim(const ReliteTensor* tensor, int32_t dim_index) {
  const relite::Tensor* t = Resolve(tensor);
  if (t == nullptr || dim_index < 0) return -1;
  if (t->shape_signature.size() == t->shape.size()) {
    return dim_index < t->rank() ? t->shape_signature[static_cast<size_t>(dim_index)] : -1;
  }
  return dim_index < t->rank() ? t->dim(dim_index) : -1;
}
size_t ReliteTensorByteSize(const ReliteTensor* tensor) {
  const relite::Tensor* t = Resolve(tensor);
  if (t == nullptr) return 0;
  return static_cast<size_t>(t->num_elements()) * relite::DataTypeSize(t->type);
}
void* ReliteTensorData(const ReliteTensor* tensor) {
  const relite::Tensor* t = Resolve(tensor);
  return t == nullptr ? nullptr : t->data;
}
const char* ReliteTensorName(const ReliteTensor* tensor) {
  const relite::Tensor* t = Resolve(tensor);
  return t == nullptr ? nullptr : t->name.c_str();
}
int32_t ReliteTensorIndex(const ReliteTensor* tensor) { return tensor == nullptr ? -1 : tensor->index; }
ReliteQuantizationParams ReliteTensorQuantizationParams(const ReliteTensor* tensor) {
  const relite::Tensor* t = Resolve(tensor);
  ReliteQuantizationParams q{0.f, 0};
  if (t == nullptr || !t->quant.IsQuantized()) return q;
  q.scale = t->quant.scale[0];
  q.zero_point = t->quant.zero_point.empty() ? 0 : static_cast<int32_t>(t->quant.zero_point[0]);
  return q;
}
int32_t ReliteTensorQuantizationCount(const ReliteTensor* tensor) {
  const relite::Tensor* t = Resolve(tensor);
  return t == nullptr ? 0 : static_cast<int32_t>(t->quant.scale.size());
}
float ReliteTensorQuantizationScale(const ReliteTensor* tensor, int32_t channel) {
  const relite::Tensor* t = Resolve(tensor);
  if (t == nullptr || channel < 0 || static_cast<size_t>(channel) >= t->quant.scale.size()) return 0.f;
  return t->quant.scale[static_cast<size_t>(channel)];
}
int64_t ReliteTensorQuantizationZeroPoint(const ReliteTensor* tensor, int32_t channel) {
  const relite::Tensor* t = Resolve(tensor);
  if (t == nullptr || channel < 0 || static_cast<size_t>(channel) >= t->quant.zero_point.size()) return 0;
  return t->quant.zero_point[static_cast<size_t>(channel)];
}
int32_t ReliteTensorQuantizedDimension(const ReliteTensor* tensor) {
  const relite::Tensor* t = Resolve(tensor);
  return t == nullptr ? 0 : t->quant.quantized_dimension;
}

ReliteStatus ReliteTensorCopyFromBuffer(ReliteTensor* tensor, const void* input_data, size_t input_data_size) {
  const relite::Tensor* t = Resolve(tensor);
  ReliteInterpreter* owner = tensor != nullptr ? tensor->owner : nullptr;
  if (t == nullptr) return ToStatus(owner, relite::InvalidArgumentError("ReliteTensorCopyFromBuffer: no tensor"));
  if (t->data == nullptr) {
    return ToStatus(owner, relite::FailedPreconditionError("tensor '" + t->name + "' has no data: allocate tensors first"));
  }
  if (t->allocation == relite::Allocation::kConstant || (t->is_constant() && !t->is_variable)) {
    return ToStatus(owner, relite::InvalidArgumentError("tensor '" + t->name + "' is a constant of the model"));
  }
  const size_t bytes = ReliteTensorByteSize(tensor);
  if (input_data_size != bytes || (bytes > 0 && input_data == nullptr)) {
    return ToStatus(owner, relite::InvalidArgumentError("tensor '" + t->name + "' holds " + std::to_string(bytes) +
                                                        " bytes, the buffer " + std::to_string(input_data_size)));
  }
  if (bytes > 0) std::memcpy(t->data, input_data, bytes);
  return kReliteOk;
}

ReliteStatus ReliteTensorCopyToBuffer(const ReliteTensor* tensor, void* output_data, size_t output_data_size) {
  const relite::Tensor* t = Resolve(tensor);
  ReliteInterpreter* owner = tensor != nullptr ? tensor->owner : nullptr;
  if (t == nullptr) return ToStatus(owner, relite::InvalidArgumentError("ReliteTensorCopyToBuffer: no tensor"));
  if (t->data == nullptr) {
    return ToStatus(owner, relite::FailedPreconditionError("tensor '" + t->name + "' has no data: allocate tensors first"));
  }
  const size_t bytes = ReliteTensorByteSize(tensor);
  if (output_data_size != bytes || (bytes > 0 && output_data == nullptr)) {
    return ToStatus(owner, relite::InvalidArgumentError("tensor '" + t->name + "' holds " + std::to_string(bytes) +
                                                        " bytes, the buffer " + std::to_string(output_data_size)));
  }
  if (bytes > 0) std::memcpy(output_data, t->data, bytes);
  return kReliteOk;
}

ReliteGpuDelegateOptions ReliteGpuDelegateOptionsDefault(void) {
  const relite::GpuDelegateOptions d;
  ReliteGpuDelegateOptions o;
  o.is_precision_loss_allowed = d.precision == relite::GpuPrecision::kFp16 ? 1 : 0;
  o.inference_preference = d.inference_preference == relite::GpuInferencePreference::kSustainedSpeed ? 1 : 0;
  o.experimental_flags = static_cast<int64_t>(d.experimental_flags);
  o.max_delegated_partitions = d.max_delegated_partitions;
  o.device_index = d.device_index;
  o.device_name = nullptr;
  o.serialization_dir = nullptr;
  o.model_token = nullptr;
  return o;
}

ReliteDelegate* ReliteGpuDelegateCreate(const ReliteGpuDelegateOptions* options) {
  return Guard<ReliteDelegate*>("ReliteGpuDelegateCreate", nullptr, [&]() -> ReliteDelegate* {
    const ReliteGpuDelegateOptions c = options != nullptr ? *options : ReliteGpuDelegateOptionsDefault();
    relite::GpuDelegateOptions o;
    o.precision = c.is_precision_loss_allowed ? relite::GpuPrecision::kFp16 : relite::GpuPrecision::kFp32;
    o.inference_preference = c.inference_preference == 1 ? relite::GpuInferencePreference::kSustainedSpeed
                                                          : relite::GpuInferencePreference::kFastSingleAnswer;
    o.experimental_flags = static_cast<uint64_t>(c.experimental_flags);
    o.max_delegated_partitions = c.max_delegated_partitions;
    o.device_index = c.device_index;
    if (c.device_name != nullptr) o.device_name = c.device_name;
    if (c.serialization_dir != nullptr) o.serialization_dir = c.serialization_dir;
    if (c.model_token != nullptr) o.model_token = c.model_token;
    auto d = relite::CreateGpuDelegate(o);
    if (!d.ok()) {
      Report(nullptr, nullptr, d.status().message());
      return nullptr;
    }
    return new ReliteDelegate{std::move(d).value(), {}};
  });
}

void ReliteGpuDelegateDelete(ReliteDelegate* delegate) { delete delegate; }

ReliteOnednnDelegateOptions ReliteOnednnDelegateOptionsDefault(void) {
  const relite::OnednnDelegateOptions d;
  ReliteOnednnDelegateOptions o;
  o.precision_bf16 = d.precision == relite::OnednnPrecision::kBf16 ? 1 : 0;
  o.force = d.force ? 1 : 0;
  o.threads = d.threads;
  o.max_delegated_partitions = d.max_delegated_partitions;
  return o;
}

ReliteDelegate* ReliteOnednnDelegateCreate(const ReliteOnednnDelegateOptions* options) {
  return Guard<ReliteDelegate*>("ReliteOnednnDelegateCreate", nullptr, [&]() -> ReliteDelegate* {
    const ReliteOnednnDelegateOptions c = options != nullptr ? *options : ReliteOnednnDelegateOptionsDefault();
    relite::OnednnDelegateOptions o;
    o.precision = c.precision_bf16 != 0 ? relite::OnednnPrecision::kBf16 : relite::OnednnPrecision::kFp32;
    o.force = c.force != 0;
    o.threads = c.threads;
    o.max_delegated_partitions = c.max_delegated_partitions;
    auto d = relite::CreateOnednnDelegate(o);
    if (!d.ok()) {
      Report(nullptr, nullptr, d.status().message());
      return nullptr;
    }
    auto* out = new ReliteDelegate{std::move(d).value(), {}};
    const relite::Status available = relite::OnednnDelegateAvailability(*out->delegate);
    if (!available.ok()) out->unavailable_reason = available.message();
    return out;
  });
}

const char* ReliteOnednnDelegateUnavailableReason(const ReliteDelegate* delegate) {
  if (delegate == nullptr || delegate->unavailable_reason.empty()) return nullptr;
  return delegate->unavailable_reason.c_str();
}

void ReliteOnednnDelegateDelete(ReliteDelegate* delegate) { delete delegate; }

}  // extern "C"
