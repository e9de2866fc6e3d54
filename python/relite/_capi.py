"""ctypes declarations of relite's C API (include/relite/c_api.h).

The shared library is found in this order: $RELITE_LIBRARY; librelite.so next
to this file (an installed package); build/release/librelite.so of the source
tree this file lives in (development)."""

import ctypes
import os
import pathlib

_HERE = pathlib.Path(__file__).resolve().parent


def _find_library():
    env = os.environ.get("RELITE_LIBRARY")
    candidates = [pathlib.Path(env)] if env else []
    candidates += [_HERE / "librelite.so", _HERE.parent.parent / "build" / "release" / "librelite.so"]
    for path in candidates:
        if path.is_file():
            return str(path)
    raise ImportError(
        "relite: librelite.so not found (looked at %s); install the package with `pip install .` or set "
        "RELITE_LIBRARY" % ", ".join(str(c) for c in candidates))


lib = ctypes.CDLL(_find_library())

c_int = ctypes.c_int
c_int32 = ctypes.c_int32
c_int64 = ctypes.c_int64
c_uint64 = ctypes.c_uint64
c_size_t = ctypes.c_size_t
c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_float = ctypes.c_float
c_double = ctypes.c_double


class QuantizationParams(ctypes.Structure):
    _fields_ = [("scale", c_float), ("zero_point", c_int32)]


class GpuDelegateOptions(ctypes.Structure):
    _fields_ = [
        ("is_precision_loss_allowed", c_int32),
        ("inference_preference", c_int32),
        ("experimental_flags", c_int64),
        ("max_delegated_partitions", c_int32),
        ("device_index", c_int32),
        ("device_name", c_char_p),
        ("serialization_dir", c_char_p),
        ("model_token", c_char_p),
    ]


class OnednnDelegateOptions(ctypes.Structure):
    _fields_ = [
        ("precision_bf16", c_int32),
        ("force", c_int32),
        ("threads", c_int32),
        ("max_delegated_partitions", c_int32),
    ]


_PROTOTYPES = {
    "ReliteVersion": (c_char_p, []),
    "ReliteGetLastErrorMessage": (c_char_p, []),
    "ReliteModelCreate": (c_void_p, [c_void_p, c_size_t]),
    "ReliteModelCreateFromFile": (c_void_p, [c_char_p]),
    "ReliteModelDelete": (None, [c_void_p]),
    "ReliteInterpreterOptionsCreate": (c_void_p, []),
    "ReliteInterpreterOptionsDelete": (None, [c_void_p]),
    "ReliteInterpreterOptionsSetNumThreads": (None, [c_void_p, c_int32]),
    "ReliteInterpreterOptionsAddDelegate": (None, [c_void_p, c_void_p]),
    "ReliteInterpreterOptionsSetErrorReporter": (None, [c_void_p, c_void_p, c_void_p]),
    "ReliteInterpreterOptionsSetPreserveAllTensors": (None, [c_void_p, c_int]),
    "ReliteInterpreterOptionsSetFlushDenormals": (None, [c_void_p, c_int]),
    "ReliteInterpreterCreate": (c_void_p, [c_void_p, c_void_p]),
    "ReliteInterpreterDelete": (None, [c_void_p]),
    "ReliteInterpreterGetInputTensorCount": (c_int32, [c_void_p]),
    "ReliteInterpreterGetOutputTensorCount": (c_int32, [c_void_p]),
    "ReliteInterpreterInputTensorIndices": (ctypes.POINTER(c_int), [c_void_p]),
    "ReliteInterpreterOutputTensorIndices": (ctypes.POINTER(c_int), [c_void_p]),
    "ReliteInterpreterGetTensorCount": (c_int32, [c_void_p]),
    "ReliteInterpreterGetTensor": (c_void_p, [c_void_p, c_int32]),
    "ReliteInterpreterResizeInputTensor": (c_int, [c_void_p, c_int32, ctypes.POINTER(c_int), c_int32]),
    "ReliteInterpreterAllocateTensors": (c_int, [c_void_p]),
    "ReliteInterpreterInvoke": (c_int, [c_void_p]),
    "ReliteInterpreterResetVariableTensors": (c_int, [c_void_p]),
    "ReliteInterpreterGetSignatureCount": (c_int32, [c_void_p]),
    "ReliteInterpreterGetSignatureKey": (c_char_p, [c_void_p, c_int32]),
    "ReliteInterpreterGetSignatureRunner": (c_void_p, [c_void_p, c_char_p]),
    "ReliteSignatureRunnerGetInputCount": (c_size_t, [c_void_p]),
    "ReliteSignatureRunnerGetInputName": (c_char_p, [c_void_p, c_int32]),
    "ReliteSignatureRunnerGetOutputCount": (c_size_t, [c_void_p]),
    "ReliteSignatureRunnerGetOutputName": (c_char_p, [c_void_p, c_int32]),
    "ReliteSignatureRunnerGetInputTensor": (c_void_p, [c_void_p, c_char_p]),
    "ReliteSignatureRunnerGetOutputTensor": (c_void_p, [c_void_p, c_char_p]),
    "ReliteSignatureRunnerDelete": (None, [c_void_p]),
    "ReliteTensorType": (c_int, [c_void_p]),
    "ReliteTensorNumDims": (c_int32, [c_void_p]),
    "ReliteTensorDim": (c_int32, [c_void_p, c_int32]),
    "ReliteTensorShapeSignatureDim": (c_int32, [c_void_p, c_int32]),
    "ReliteTensorByteSize": (c_size_t, [c_void_p]),
    "ReliteTensorData": (c_void_p, [c_void_p]),
    "ReliteTensorName": (c_char_p, [c_void_p]),
    "ReliteTensorIndex": (c_int32, [c_void_p]),
    "ReliteTensorQuantizationParams": (QuantizationParams, [c_void_p]),
    "ReliteTensorQuantizationCount": (c_int32, [c_void_p]),
    "ReliteTensorQuantizationScale": (c_float, [c_void_p, c_int32]),
    "ReliteTensorQuantizationZeroPoint": (c_int64, [c_void_p, c_int32]),
    "ReliteTensorQuantizedDimension": (c_int32, [c_void_p]),
    "ReliteGpuDelegateOptionsDefault": (GpuDelegateOptions, []),
    "ReliteGpuDelegateCreate": (c_void_p, [ctypes.POINTER(GpuDelegateOptions)]),
    "ReliteGpuDelegateDelete": (None, [c_void_p]),
    "ReliteOnednnDelegateOptionsDefault": (OnednnDelegateOptions, []),
    "ReliteOnednnDelegateCreate": (c_void_p, [ctypes.POINTER(OnednnDelegateOptions)]),
    "ReliteOnednnDelegateUnavailableReason": (c_char_p, [c_void_p]),
    "ReliteOnednnDelegateDelete": (None, [c_void_p]),
}

for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _restype
    _fn.argtypes = _argtypes

# void reporter(void* user_data, const char* format, va_list args): relite
# always reports with the format "%s" and the message as the one argument;
# Python keeps the text through ReliteGetLastErrorMessage, so the reporter
# only has to stop the default print to stderr.
REPORTER = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_void_p)


def last_error():
    msg = lib.ReliteGetLastErrorMessage()
    return msg.decode("utf-8", "replace") if msg else ""
