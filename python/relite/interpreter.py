"""relite.Interpreter: a drop-in for ai_edge_litert.interpreter.Interpreter
(and tflite_runtime's), on relite's C API.

    import numpy as np
    from relite import Interpreter
    interpreter = Interpreter(model_path="mobilenet_v1_0.25_128_quant.tflite", num_threads=2)
    interpreter.allocate_tensors()
    inp = interpreter.get_input_details()[0]
    interpreter.set_tensor(inp["index"], np.zeros(inp["shape"], inp["dtype"]))
    interpreter.invoke()
    scores = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])

Same methods, detail dicts, exception types and copy/view rules as LiteRT:
get_tensor copies, tensor() returns a function giving a zero-copy view, and
allocate_tensors / invoke / resize_tensor_input refuse to run while such a
view is alive (RuntimeError), because they may move the memory under it.

One keyword of relite's own: flush_denormals (default True) lets the CPU
kernels take subnormal floats (|x| < 1.2e-38) as zero during invoke, which
LiteRT does not; pass False for IEEE subnormals.
"""

import ctypes
import sys

import numpy as np

from relite import _capi

_lib = _capi.lib

# ReliteType (TfLiteType values) -> numpy type and TFLite's name.
_DTYPES = {
    1: (np.float32, "FLOAT32"),
    2: (np.int32, "INT32"),
    3: (np.uint8, "UINT8"),
    4: (np.int64, "INT64"),
    5: (np.object_, "STRING"),
    6: (np.bool_, "BOOL"),
    7: (np.int16, "INT16"),
    8: (np.complex64, "COMPLEX64"),
    9: (np.int8, "INT8"),
    10: (np.float16, "FLOAT16"),
    11: (np.float64, "FLOAT64"),
    12: (np.complex128, "COMPLEX128"),
    13: (np.uint64, "UINT64"),
    16: (np.uint32, "UINT32"),
    17: (np.uint16, "UINT16"),
}
_NUMPY_NAMES = {np.dtype(t): name for t, name in _DTYPES.values() if t is not np.object_}


def _type_name_of(array):
    return _NUMPY_NAMES.get(array.dtype, str(array.dtype).upper())


class Delegate:
    """A delegate for `experimental_delegates` (see load_delegate)."""

    def __init__(self, handle, name, delete=None, unavailable_reason=None):
        self._handle = handle
        self._delete = delete or _lib.ReliteGpuDelegateDelete
        self.name = name
        # oneDNN: why it declines every node (None when it takes nodes).
        self.unavailable_reason = unavailable_reason

    def __del__(self):
        if getattr(self, "_handle", None):
            self._delete(self._handle)
            self._handle = None


def load_delegate(library, options=None):
    """relite's delegates by name, in the place of TFLite's load_delegate:
    load_delegate("gpu", {"precision": "fp16"}). Options: precision
    (fp32|fp16), inference_preference (fast_single_answer|sustained_speed),
    device (an index or a name substring), max_delegated_partitions,
    serialization_dir, model_token. ValueError when it cannot be created.
    load_delegate("onednn", {"precision": "bf16"}): oneDNN on the CPU;
    options precision (fp32|bf16), force, threads, max_delegated_partitions.
    Where oneDNN cannot run or brings no gain it still loads and declines
    every node: its unavailable_reason says why."""
    options = dict(options or {})
    name = str(library)
    if name == "onednn":
        return _load_onednn_delegate(options)
    if name not in ("gpu", "relite_gpu", "libtensorflowlite_gpu_delegate.so"):
        raise ValueError("Failed to load delegate from %s: relite has the delegates: gpu, onednn" % name)
    o = _lib.ReliteGpuDelegateOptionsDefault()
    keep = []
    for key, value in options.items():
        if key == "precision":
            if value not in ("fp32", "fp16"):
                raise ValueError("precision must be fp32 or fp16, got %r" % (value,))
            o.is_precision_loss_allowed = 1 if value == "fp16" else 0
        elif key == "inference_preference":
            o.inference_preference = 1 if value in ("sustained_speed", 1) else 0
        elif key == "device":
            if isinstance(value, int) or str(value).isdigit():
                o.device_index = int(value)
            else:
                keep.append(str(value).encode())
                o.device_name = keep[-1]
        elif key == "max_delegated_partitions":
            o.max_delegated_partitions = int(value)
        elif key in ("serialization_dir", "model_token"):
            keep.append(str(value).encode())
            setattr(o, key, keep[-1])
        elif key == "experimental_flags":
            o.experimental_flags = int(value)
        else:
            raise ValueError("unknown GPU delegate option %r" % (key,))
    handle = _lib.ReliteGpuDelegateCreate(ctypes.byref(o))
    if not handle:
        raise ValueError("Failed to load delegate from %s\n%s" % (name, _capi.last_error()))
    return Delegate(handle, name)


def _load_onednn_delegate(options):
    o = _lib.ReliteOnednnDelegateOptionsDefault()
    for key, value in options.items():
        if key == "precision":
            if value not in ("fp32", "bf16"):
                raise ValueError("precision must be fp32 or bf16, got %r" % (value,))
            o.precision_bf16 = 1 if value == "bf16" else 0
        elif key == "force":
            o.force = 1 if value else 0
        elif key in ("threads", "max_delegated_partitions"):
            setattr(o, key, int(value))
        else:
            raise ValueError("unknown oneDNN delegate option %r" % (key,))
    handle = _lib.ReliteOnednnDelegateCreate(ctypes.byref(o))
    if not handle:
        raise ValueError("Failed to load delegate from onednn\n%s" % _capi.last_error())
    reason = _lib.ReliteOnednnDelegateUnavailableReason(handle)
    return Delegate(handle, "onednn", _lib.ReliteOnednnDelegateDelete, reason.decode() if reason else None)


class _ViewOwner:
    """Every numpy view of an interpreter's memory holds a reference to one of
    these, so the interpreter can tell (by reference count, as LiteRT does)
    whether a view is alive."""


class _Tensor:
    """Reads of one tensor through the C API."""

    __slots__ = ("handle",)

    def __init__(self, handle):
        self.handle = handle

    def type_code(self):
        return _lib.ReliteTensorType(self.handle)

    def dtype(self):
        return _DTYPES.get(self.type_code(), (None, "UNKNOWN"))[0]

    def type_name(self):
        return _DTYPES.get(self.type_code(), (None, "UNKNOWN(%d)" % self.type_code()))[1]

    def shape(self):
        n = _lib.ReliteTensorNumDims(self.handle)
        return np.array([_lib.ReliteTensorDim(self.handle, i) for i in range(max(n, 0))], dtype=np.int32)

    def shape_signature(self):
        n = _lib.ReliteTensorNumDims(self.handle)
        return np.array([_lib.ReliteTensorShapeSignatureDim(self.handle, i) for i in range(max(n, 0))], dtype=np.int32)

    def name(self):
        raw = _lib.ReliteTensorName(self.handle)
        return raw.decode("utf-8", "replace") if raw is not None else ""

    def details(self):
        q = _lib.ReliteTensorQuantizationParams(self.handle)
        count = _lib.ReliteTensorQuantizationCount(self.handle)
        scales = np.array([_lib.ReliteTensorQuantizationScale(self.handle, c) for c in range(count)], dtype=np.float32)
        zero_points = np.array([_lib.ReliteTensorQuantizationZeroPoint(self.handle, c) for c in range(count)],
                               dtype=np.int32)
        return {
            "name": self.name(),
            "index": _lib.ReliteTensorIndex(self.handle),
            "shape": self.shape(),
            "shape_signature": self.shape_signature(),
            "dtype": self.dtype(),
            "quantization": (float(q.scale), int(q.zero_point)),
            "quantization_parameters": {
                "scales": scales,
                "zero_points": zero_points,
                "quantized_dimension": int(_lib.ReliteTensorQuantizedDimension(self.handle)),
                "block_size": 0,
            },
            "sparsity_parameters": {},
        }

    def view(self, owner):
        """A numpy array over the tensor's memory (no copy); None before allocation."""
        data = _lib.ReliteTensorData(self.handle)
        dtype = self.dtype()
        if not data or dtype is None or dtype is np.object_:
            return None
        nbytes = _lib.ReliteTensorByteSize(self.handle)
        buf = (ctypes.c_uint8 * nbytes).from_address(data)
        buf._relite_owner = owner  # what keeps the interpreter "unsafe to run" while the view lives
        return np.frombuffer(buf, dtype=dtype, count=nbytes // np.dtype(dtype).itemsize).reshape(self.shape())


class Interpreter:
    """Runs a .tflite model (see the module docstring)."""

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None, num_threads=None,
                 experimental_op_resolver_type=None, experimental_preserve_all_tensors=False,
                 experimental_disable_delegate_clustering=False, experimental_default_delegate_latest_features=False,
                 flush_denormals=True):
        del experimental_op_resolver_type, experimental_disable_delegate_clustering
        del experimental_default_delegate_latest_features
        self._model = None
        self._interpreter = None
        self._options = None
        self._view_owner = _ViewOwner()
        self._allocated = False
        if model_path is not None and model_content is not None:
            raise ValueError("`model_path` and `model_content` are mutually exclusive")
        if model_path is not None:
            self._model = _lib.ReliteModelCreateFromFile(str(model_path).encode())
            if not self._model:
                raise ValueError("Could not open '%s'.\n%s" % (model_path, _capi.last_error()))
        elif model_content is not None:
            content = bytes(model_content)
            self._model = _lib.ReliteModelCreate(content, len(content))
            if not self._model:
                raise ValueError("Model provided is not a valid model: %s" % _capi.last_error())
        else:
            raise ValueError("`model_path` or `model_content` must be specified.")
        if num_threads is not None and (not isinstance(num_threads, int) or num_threads < -1):
            raise ValueError("num_threads should be an integer >= -1")
        self._delegates = list(experimental_delegates or [])
        self._options = _lib.ReliteInterpreterOptionsCreate()
        self._reporter = _capi.REPORTER(lambda user_data, fmt, args: None)  # errors reach Python as exceptions
        _lib.ReliteInterpreterOptionsSetErrorReporter(self._options, ctypes.cast(self._reporter, ctypes.c_void_p), None)
        _lib.ReliteInterpreterOptionsSetNumThreads(self._options, -1 if num_threads is None else num_threads)
        _lib.ReliteInterpreterOptionsSetPreserveAllTensors(self._options, 1 if experimental_preserve_all_tensors else 0)
        # relite's own keyword: subnormal floats as zero in the CPU kernels (the default; see InterpreterOptions).
        _lib.ReliteInterpreterOptionsSetFlushDenormals(self._options, 1 if flush_denormals else 0)
        for d in self._delegates:
            if not isinstance(d, Delegate):
                raise ValueError("experimental_delegates takes delegates made by relite.load_delegate, got %r" % (d,))
            _lib.ReliteInterpreterOptionsAddDelegate(self._options, d._handle)
        self._interpreter = _lib.ReliteInterpreterCreate(self._model, self._options)
        if not self._interpreter:
            raise ValueError(_capi.last_error())
        self._count = _lib.ReliteInterpreterGetTensorCount(self._interpreter)
        n_in = _lib.ReliteInterpreterGetInputTensorCount(self._interpreter)
        n_out = _lib.ReliteInterpreterGetOutputTensorCount(self._interpreter)
        ins = _lib.ReliteInterpreterInputTensorIndices(self._interpreter)
        outs = _lib.ReliteInterpreterOutputTensorIndices(self._interpreter)
        self._inputs = [ins[i] for i in range(n_in)]
        self._outputs = [outs[i] for i in range(n_out)]
        self._signatures = self._read_signatures()

    def __del__(self):
        if getattr(self, "_interpreter", None):
            _lib.ReliteInterpreterDelete(self._interpreter)
        if getattr(self, "_options", None):
            _lib.ReliteInterpreterOptionsDelete(self._options)
        if getattr(self, "_model", None):
            _lib.ReliteModelDelete(self._model)

    # --- helpers ---
    def _tensor(self, tensor_index):
        if not isinstance(tensor_index, (int, np.integer)) or tensor_index < 0 or tensor_index >= self._count:
            raise ValueError("Invalid tensor index %s exceeds max tensor index %d" % (tensor_index, self._count - 1))
        return _Tensor(_lib.ReliteInterpreterGetTensor(self._interpreter, int(tensor_index)))

    def _safe_to_run(self):
        # One reference in self, one in getrefcount's argument: no view alive.
        return sys.getrefcount(self._view_owner) == 2

    def _ensure_safe(self):
        if not self._safe_to_run():
            raise RuntimeError("""There is at least 1 reference to internal data
      in the interpreter in the form of a numpy array or slice. Be sure to
      only hold the function returned from tensor() if you are using raw
      data access.""")

    def _read_signatures(self):
        sigs = {}
        for i in range(_lib.ReliteInterpreterGetSignatureCount(self._interpreter)):
            key = _lib.ReliteInterpreterGetSignatureKey(self._interpreter, i).decode()
            sigs[key] = None
        return sigs

    # --- the LiteRT Interpreter API ---
    def allocate_tensors(self):
        self._ensure_safe()
        if _lib.ReliteInterpreterAllocateTensors(self._interpreter) != 0:
            raise RuntimeError(_capi.last_error())
        self._allocated = True

    def invoke(self):
        self._ensure_safe()
        if not self._allocated:
            raise RuntimeError("Invoke called on model that is not ready.")
        if _lib.ReliteInterpreterInvoke(self._interpreter) != 0:
            raise RuntimeError(_capi.last_error())

    def get_input_details(self):
        return [self._tensor(i).details() for i in self._inputs]

    def get_output_details(self):
        return [self._tensor(i).details() for i in self._outputs]

    def get_tensor_details(self):
        return [self._tensor(i).details() for i in range(self._count)]

    def set_tensor(self, tensor_index, value):
        t = self._tensor(tensor_index)
        value = np.asarray(value)
        want = t.dtype()
        if want is None or want is np.object_:
            raise ValueError("Cannot set tensor: tensor %d has type %s, which relite does not set from Python" %
                             (tensor_index, t.type_name()))
        if value.dtype != np.dtype(want):
            raise ValueError("Cannot set tensor: Got value of type %s but expected type %s for input %d, name: %s " %
                             (_type_name_of(value), t.type_name(), tensor_index, t.name()))
        shape = t.shape()
        if value.ndim != len(shape):
            raise ValueError("Cannot set tensor: Dimension mismatch. Got %d but expected %d for input %d." %
                             (value.ndim, len(shape), tensor_index))
        for d, (got, expected) in enumerate(zip(value.shape, shape)):
            if got != expected:
                raise ValueError("Cannot set tensor: Dimension mismatch. Got %d but expected %d for dimension %d of "
                                 "input %d." % (got, expected, d, tensor_index))
        data = _lib.ReliteTensorData(t.handle)
        if not data:
            raise ValueError("Cannot set tensor: Tensor is unallocated. Try calling allocate_tensors() first")
        value = np.ascontiguousarray(value)
        ctypes.memmove(data, value.ctypes.data, value.nbytes)

    def get_tensor(self, tensor_index, subgraph_index=0):
        if subgraph_index != 0:
            raise ValueError("relite runs only subgraph 0")
        view = self._tensor(tensor_index).view(self._view_owner)
        if view is None:
            raise ValueError("Tensor data is null. Run allocate_tensors() first")
        return view.copy()

    def tensor(self, tensor_index):
        t = self._tensor(tensor_index)
        # The function holds the interpreter, not the view owner: holding it is
        # fine, holding the array it returns blocks invoke (as in LiteRT).
        return lambda: t.view(self._view_owner)

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        self._ensure_safe()
        if input_index not in self._inputs:
            raise RuntimeError("Attempting to resize a fixed-size tensor.")
        size = np.array(tensor_size, dtype=np.int32)
        t = self._tensor(input_index)
        if strict:
            sig = t.shape_signature()
            cur = t.shape()
            if len(size) != len(sig):
                raise RuntimeError("ResizeInputTensorStrict only allows mutating unknown dimensions identified by -1.")
            for d, (s, c, n) in enumerate(zip(sig, cur, size)):
                if s != -1 and c != n:
                    raise RuntimeError("Attempting to resize dimension %d of tensor %d with value %d to %d. "
                                       "ResizeInputTensorStrict only allows mutating unknown dimensions identified "
                                       "by -1." % (d, input_index, c, n))
        dims = (ctypes.c_int * len(size))(*[int(x) for x in size])
        if _lib.ReliteInterpreterResizeInputTensor(self._interpreter, self._inputs.index(input_index), dims,
                                                   len(size)) != 0:
            raise RuntimeError(_capi.last_error())
        self._allocated = False

    def reset_all_variables(self):
        if _lib.ReliteInterpreterResetVariableTensors(self._interpreter) != 0:
            raise RuntimeError(_capi.last_error())

    def get_signature_list(self):
        out = {}
        for key in self._signatures:
            runner = _lib.ReliteInterpreterGetSignatureRunner(self._interpreter, key.encode())
            if not runner:
                continue
            try:
                out[key] = {
                    "inputs": [_lib.ReliteSignatureRunnerGetInputName(runner, i).decode()
                               for i in range(_lib.ReliteSignatureRunnerGetInputCount(runner))],
                    "outputs": [_lib.ReliteSignatureRunnerGetOutputName(runner, i).decode()
                                for i in range(_lib.ReliteSignatureRunnerGetOutputCount(runner))],
                }
            finally:
                _lib.ReliteSignatureRunnerDelete(runner)
        return out

    def get_signature_runner(self, signature_key=None):
        if signature_key is None:
            if len(self._signatures) != 1:
                raise ValueError("SignatureDef signature_key is None and model has %d Signatures. None is only "
                                 "allowed when the model has 1 SignatureDef" % len(self._signatures))
            signature_key = next(iter(self._signatures))
        if signature_key not in self._signatures:
            raise ValueError("Invalid signature_key provided: %r" % (signature_key,))
        return SignatureRunner(self, signature_key)

    def num_subgraphs(self):
        return 1


class SignatureRunner:
    """Runs one SignatureDef by input and output names:
    outputs = runner(x=...); as LiteRT's SignatureRunner."""

    def __init__(self, interpreter, signature_key):
        self._interpreter = interpreter
        self._key = signature_key
        self._runner = _lib.ReliteInterpreterGetSignatureRunner(interpreter._interpreter, signature_key.encode())
        if not self._runner:
            raise ValueError(_capi.last_error())
        r = self._runner
        self._input_names = [_lib.ReliteSignatureRunnerGetInputName(r, i).decode()
                             for i in range(_lib.ReliteSignatureRunnerGetInputCount(r))]
        self._output_names = [_lib.ReliteSignatureRunnerGetOutputName(r, i).decode()
                              for i in range(_lib.ReliteSignatureRunnerGetOutputCount(r))]

    def __del__(self):
        if getattr(self, "_runner", None):
            _lib.ReliteSignatureRunnerDelete(self._runner)

    def _input(self, name):
        return _Tensor(_lib.ReliteSignatureRunnerGetInputTensor(self._runner, name.encode()))

    def _output(self, name):
        return _Tensor(_lib.ReliteSignatureRunnerGetOutputTensor(self._runner, name.encode()))

    def get_input_details(self):
        return {name: self._input(name).details() for name in self._input_names}

    def get_output_details(self):
        return {name: self._output(name).details() for name in self._output_names}

    def __call__(self, **kwargs):
        it = self._interpreter
        if len(kwargs) != len(self._input_names):
            raise ValueError("Invalid number of inputs provided for running a SignatureDef, expected %d vs "
                             "provided %d" % (len(self._input_names), len(kwargs)))
        for name, value in kwargs.items():
            if name not in self._input_names:
                raise ValueError("Invalid Input name (%s) for SignatureDef" % name)
            value = np.asarray(value)
            t = self._input(name)
            if list(value.shape) != list(t.shape()):
                it.resize_tensor_input(_lib.ReliteTensorIndex(t.handle), value.shape)
        if not it._allocated:
            it.allocate_tensors()
        for name, value in kwargs.items():
            it.set_tensor(_lib.ReliteTensorIndex(self._input(name).handle), np.asarray(value))
        it.invoke()
        return {name: it.get_tensor(_lib.ReliteTensorIndex(self._output(name).handle)) for name in self._output_names}
