/* relite's C API: TensorFlow Lite's C API with the prefix Relite for TfLite,
 * so C code written for TFLite (tensorflow/lite/c/c_api.h) ports by renaming.
 * C99, no C++ types; every object is opaque and owned by the caller who
 * created it (Create/Delete pairs).
 *
 *   ReliteModel* model = ReliteModelCreateFromFile("mobilenet.tflite");
 *   ReliteInterpreterOptions* options = ReliteInterpreterOptionsCreate();
 *   ReliteInterpreterOptionsSetNumThreads(options, 2);
 *   ReliteInterpreter* interpreter = ReliteInterpreterCreate(model, options);
 *   ReliteInterpreterAllocateTensors(interpreter);
 *   ReliteTensor* input = ReliteInterpreterGetInputTensor(interpreter, 0);
 *   ReliteTensorCopyFromBuffer(input, pixels, sizeof(pixels));
 *   ReliteInterpreterInvoke(interpreter);
 *   const ReliteTensor* output = ReliteInterpreterGetOutputTensor(interpreter, 0);
 *   ReliteTensorCopyToBuffer(output, scores, sizeof(scores));
 *   ReliteInterpreterDelete(interpreter);
 *   ReliteInterpreterOptionsDelete(options);
 *   ReliteModelDelete(model);
 *
 * Errors: a function returning ReliteStatus returns kReliteError (or
 * kReliteDelegateError) and a creator returns NULL; the message goes to the
 * options' error reporter (ReliteInterpreterOptionsSetErrorReporter; default:
 * stderr, as TFLite) and is kept, per thread, for ReliteGetLastErrorMessage().
 * No function aborts or throws on bad input. */
#ifndef RELITE_C_API_H_
#define RELITE_C_API_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define RELITE_CAPI_EXPORT __declspec(dllexport)
#else
#define RELITE_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* TfLiteStatus. */
typedef enum ReliteStatus {
  kReliteOk = 0,
  kReliteError = 1,
  kReliteDelegateError = 2,
  kReliteApplicationError = 3,
  kReliteUnresolvedOps = 5,
} ReliteStatus;

/* TfLiteType: the same values as TFLite's C API (not the .tflite schema's). */
typedef enum ReliteType {
  kReliteNoType = 0,
  kReliteFloat32 = 1,
  kReliteInt32 = 2,
  kReliteUInt8 = 3,
  kReliteInt64 = 4,
  kReliteString = 5,
  kReliteBool = 6,
  kReliteInt16 = 7,
  kReliteComplex64 = 8,
  kReliteInt8 = 9,
  kReliteFloat16 = 10,
  kReliteFloat64 = 11,
  kReliteComplex128 = 12,
  kReliteUInt64 = 13,
  kReliteResource = 14,
  kReliteVariant = 15,
  kReliteUInt32 = 16,
  kReliteUInt16 = 17,
  kReliteInt4 = 18,
} ReliteType;

/* TfLiteQuantizationParams: per-tensor affine quantization (the first
 * channel's for a per-channel tensor; scale 0 when not quantized). */
typedef struct ReliteQuantizationParams {
  float scale;
  int32_t zero_point;
} ReliteQuantizationParams;

typedef struct ReliteModel ReliteModel;
typedef struct ReliteInterpreterOptions ReliteInterpreterOptions;
typedef struct ReliteInterpreter ReliteInterpreter;
typedef struct ReliteTensor ReliteTensor;
typedef struct ReliteSignatureRunner ReliteSignatureRunner;
typedef struct ReliteDelegate ReliteDelegate;

/* "0.1.0". */
RELITE_CAPI_EXPORT const char* ReliteVersion(void);
/* "FLOAT32", "UINT8", ... (TfLiteTypeGetName). */
RELITE_CAPI_EXPORT const char* ReliteTypeGetName(ReliteType type);
/* The last error of this thread (empty string when none); valid until the
 * next failing call on this thread. */
RELITE_CAPI_EXPORT const char* ReliteGetLastErrorMessage(void);

/* --- Model: verified at creation; NULL when the file is not a valid model. */
/* Copies `model_size` bytes: the buffer may be freed afterwards. */
RELITE_CAPI_EXPORT ReliteModel* ReliteModelCreate(const void* model_data, size_t model_size);
RELITE_CAPI_EXPORT ReliteModel* ReliteModelCreateFromFile(const char* model_path);
RELITE_CAPI_EXPORT void ReliteModelDelete(ReliteModel* model);

/* --- Interpreter options. */
RELITE_CAPI_EXPORT ReliteInterpreterOptions* ReliteInterpreterOptionsCreate(void);
RELITE_CAPI_EXPORT void ReliteInterpreterOptionsDelete(ReliteInterpreterOptions* options);
/* <= 0: one per hardware core (TFLite's -1). */
RELITE_CAPI_EXPORT void ReliteInterpreterOptionsSetNumThreads(ReliteInterpreterOptions* options, int32_t num_threads);
/* Applied in order at ReliteInterpreterCreate; must outlive the interpreter. */
RELITE_CAPI_EXPORT void ReliteInterpreterOptionsAddDelegate(ReliteInterpreterOptions* options, ReliteDelegate* delegate);
RELITE_CAPI_EXPORT void ReliteInterpreterOptionsSetErrorReporter(ReliteInterpreterOptions* options,
                                                                 void (*reporter)(void* user_data, const char* format,
                                                                                  va_list args),
                                                                 void* user_data);
/* relite extensions: keep every intermediate tensor readable after Invoke
 * (debugging), and the resource limits (0 lifts one; see docs/SECURITY.md). */
RELITE_CAPI_EXPORT void ReliteInterpreterOptionsSetPreserveAllTensors(ReliteInterpreterOptions* options, int preserve);
/* relite extension: nonzero (the default) takes subnormal floats as zero in
 * the CPU kernels during Invoke (InterpreterOptions::flush_denormals); 0
 * keeps IEEE subnormals. */
RELITE_CAPI_EXPORT void ReliteInterpreterOptionsSetFlushDenormals(ReliteInterpreterOptions* options, int flush);
RELITE_CAPI_EXPORT void ReliteInterpreterOptionsSetResourceLimits(ReliteInterpreterOptions* options,
                                                                  uint64_t max_arena_bytes, uint64_t max_tensor_bytes,
                                                                  double max_macs);

/* --- Interpreter: NULL when a kernel or a delegate cannot be created. The
 * model must outlive it; options may be NULL and are copied. */
RELITE_CAPI_EXPORT ReliteInterpreter* ReliteInterpreterCreate(const ReliteModel* model,
                                                             const ReliteInterpreterOptions* optional_options);
RELITE_CAPI_EXPORT void ReliteInterpreterDelete(ReliteInterpreter* interpreter);
RELITE_CAPI_EXPORT int32_t ReliteInterpreterGetInputTensorCount(const ReliteInterpreter* interpreter);
/* Tensor indices of the inputs / outputs (arrays of the counts above). */
RELITE_CAPI_EXPORT const int* ReliteInterpreterInputTensorIndices(const ReliteInterpreter* interpreter);
RELITE_CAPI_EXPORT const int* ReliteInterpreterOutputTensorIndices(const ReliteInterpreter* interpreter);
RELITE_CAPI_EXPORT ReliteTensor* ReliteInterpreterGetInputTensor(const ReliteInterpreter* interpreter,
                                                               int32_t input_index);
/* Then ReliteInterpreterAllocateTensors before the next Invoke. */
RELITE_CAPI_EXPORT ReliteStatus ReliteInterpreterResizeInputTensor(ReliteInterpreter* interpreter, int32_t input_index,
                                                                 const int* input_dims, int32_t input_dims_size);
RELITE_CAPI_EXPORT ReliteStatus ReliteInterpreterAllocateTensors(ReliteInterpreter* interpreter);
RELITE_CAPI_EXPORT ReliteStatus ReliteInterpreterInvoke(ReliteInterpreter* interpreter);
RELITE_CAPI_EXPORT int32_t ReliteInterpreterGetOutputTensorCount(const ReliteInterpreter* interpreter);
RELITE_CAPI_EXPORT const ReliteTensor* ReliteInterpreterGetOutputTensor(const ReliteInterpreter* interpreter,
                                                                      int32_t output_index);
/* Every tensor of the main subgraph, by index (TfLiteInterpreterGetTensor). */
RELITE_CAPI_EXPORT int32_t ReliteInterpreterGetTensorCount(const ReliteInterpreter* interpreter);
RELITE_CAPI_EXPORT ReliteTensor* ReliteInterpreterGetTensor(const ReliteInterpreter* interpreter, int32_t tensor_index);
/* Variables (recurrent state) back to their initial values. */
RELITE_CAPI_EXPORT ReliteStatus ReliteInterpreterResetVariableTensors(ReliteInterpreter* interpreter);

/* --- Signatures (the model's SignatureDefs). */
RELITE_CAPI_EXPORT int32_t ReliteInterpreterGetSignatureCount(const ReliteInterpreter* interpreter);
RELITE_CAPI_EXPORT const char* ReliteInterpreterGetSignatureKey(const ReliteInterpreter* interpreter,
                                                              int32_t signature_index);
/* NULL (and the error) when no signature has the key; NULL key: the only one. */
RELITE_CAPI_EXPORT ReliteSignatureRunner* ReliteInterpreterGetSignatureRunner(const ReliteInterpreter* interpreter,
                                                                            const char* signature_key);
RELITE_CAPI_EXPORT size_t ReliteSignatureRunnerGetInputCount(const ReliteSignatureRunner* signature_runner);
RELITE_CAPI_EXPORT const char* ReliteSignatureRunnerGetInputName(const ReliteSignatureRunner* signature_runner,
                                                               int32_t input_index);
RELITE_CAPI_EXPORT ReliteStatus ReliteSignatureRunnerResizeInputTensor(ReliteSignatureRunner* signature_runner,
                                                                     const char* input_name, const int* input_dims,
                                                                     int32_t input_dims_size);
RELITE_CAPI_EXPORT ReliteStatus ReliteSignatureRunnerAllocateTensors(ReliteSignatureRunner* signature_runner);
RELITE_CAPI_EXPORT ReliteTensor* ReliteSignatureRunnerGetInputTensor(ReliteSignatureRunner* signature_runner,
                                                                   const char* input_name);
RELITE_CAPI_EXPORT ReliteStatus ReliteSignatureRunnerInvoke(ReliteSignatureRunner* signature_runner);
RELITE_CAPI_EXPORT size_t ReliteSignatureRunnerGetOutputCount(const ReliteSignatureRunner* signature_runner);
RELITE_CAPI_EXPORT const char* ReliteSignatureRunnerGetOutputName(const ReliteSignatureRunner* signature_runner,
                                                                int32_t output_index);
RELITE_CAPI_EXPORT const ReliteTensor* ReliteSignatureRunnerGetOutputTensor(
    const ReliteSignatureRunner* signature_runner, const char* output_name);
RELITE_CAPI_EXPORT void ReliteSignatureRunnerDelete(ReliteSignatureRunner* signature_runner);

/* --- Tensors: owned by their interpreter. */
RELITE_CAPI_EXPORT ReliteType ReliteTensorType(const ReliteTensor* tensor);
RELITE_CAPI_EXPORT int32_t ReliteTensorNumDims(const ReliteTensor* tensor);
RELITE_CAPI_EXPORT int32_t ReliteTensorDim(const ReliteTensor* tensor, int32_t dim_index);
RELITE_CAPI_EXPORT size_t ReliteTensorByteSize(const ReliteTensor* tensor);
/* NULL before ReliteInterpreterAllocateTensors. */
RELITE_CAPI_EXPORT void* ReliteTensorData(const ReliteTensor* tensor);
RELITE_CAPI_EXPORT const char* ReliteTensorName(const ReliteTensor* tensor);
RELITE_CAPI_EXPORT ReliteQuantizationParams ReliteTensorQuantizationParams(const ReliteTensor* tensor);
/* kReliteError unless the sizes match exactly. */
RELITE_CAPI_EXPORT ReliteStatus ReliteTensorCopyFromBuffer(ReliteTensor* tensor, const void* input_data,
                                                         size_t input_data_size);
RELITE_CAPI_EXPORT ReliteStatus ReliteTensorCopyToBuffer(const ReliteTensor* output_tensor, void* output_data,
                                                       size_t output_data_size);
/* relite extensions, for bindings that need more than TFLite's C API gives:
 * the tensor's index in the interpreter; the shape signature (-1 marks a
 * dimension the model leaves free; the shape when the file has none); the
 * per-channel quantization (scale and zero point counts are equal). */
RELITE_CAPI_EXPORT int32_t ReliteTensorIndex(const ReliteTensor* tensor);
RELITE_CAPI_EXPORT int32_t ReliteTensorShapeSignatureDim(const ReliteTensor* tensor, int32_t dim_index);
RELITE_CAPI_EXPORT int32_t ReliteTensorQuantizationCount(const ReliteTensor* tensor);
RELITE_CAPI_EXPORT float ReliteTensorQuantizationScale(const ReliteTensor* tensor, int32_t channel);
RELITE_CAPI_EXPORT int64_t ReliteTensorQuantizationZeroPoint(const ReliteTensor* tensor, int32_t channel);
RELITE_CAPI_EXPORT int32_t ReliteTensorQuantizedDimension(const ReliteTensor* tensor);

/* --- The GPU delegate (TfLiteGpuDelegateOptionsV2 / TfLiteGpuDelegateV2Create). */
typedef struct ReliteGpuDelegateOptions {
  /* 1: allow float16 storage (TFLite's is_precision_loss_allowed). */
  int32_t is_precision_loss_allowed;
  /* 0: fast single answer, 1: sustained speed (TFLite's inference_preference). */
  int32_t inference_preference;
  /* Bits: 1 quantized models, 2 serialization (relite::GpuExperimentalFlags). */
  int64_t experimental_flags;
  /* Partitions given to the GPU, largest first; 0: all. */
  int32_t max_delegated_partitions;
  /* A device: index (-1: first GPU, else any), or a name substring (may be NULL). */
  int32_t device_index;
  const char* device_name;
  const char* serialization_dir;
  const char* model_token;
} ReliteGpuDelegateOptions;

RELITE_CAPI_EXPORT ReliteGpuDelegateOptions ReliteGpuDelegateOptionsDefault(void);
/* NULL (and the error) when no OpenCL device can be used. */
RELITE_CAPI_EXPORT ReliteDelegate* ReliteGpuDelegateCreate(const ReliteGpuDelegateOptions* options);
RELITE_CAPI_EXPORT void ReliteGpuDelegateDelete(ReliteDelegate* delegate);

/* --- The oneDNN delegate (relite/onednn_delegate.h): float ops on Intel's
 * oneDNN (libdnnl.so.2, loaded at run time), reaching AVX-512 BF16 and AMX. */
typedef struct ReliteOnednnDelegateOptions {
  /* 1: bfloat16 inside partitions, float accumulation (precision loss: opt-in). */
  int32_t precision_bf16;
  /* 1: take nodes even where the CPU check expects no gain (below AVX-512). */
  int32_t force;
  /* oneDNN's threads; 0: the interpreter's. */
  int32_t threads;
  /* Partitions given to oneDNN, largest first; 0: all. */
  int32_t max_delegated_partitions;
} ReliteOnednnDelegateOptions;

RELITE_CAPI_EXPORT ReliteOnednnDelegateOptions ReliteOnednnDelegateOptionsDefault(void);
/* NULL (and the error) only for invalid options. Where oneDNN cannot run or
 * brings no gain, the delegate declines every node (each keeps its CPU
 * kernel) and ReliteOnednnDelegateUnavailableReason says why. */
RELITE_CAPI_EXPORT ReliteDelegate* ReliteOnednnDelegateCreate(const ReliteOnednnDelegateOptions* options);
/* NULL when the delegate takes nodes, else why not (valid while it lives). */
RELITE_CAPI_EXPORT const char* ReliteOnednnDelegateUnavailableReason(const ReliteDelegate* delegate);
RELITE_CAPI_EXPORT void ReliteOnednnDelegateDelete(ReliteDelegate* delegate);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* RELITE_C_API_H_ */
