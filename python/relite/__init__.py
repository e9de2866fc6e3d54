"""relite: run TensorFlow Lite (.tflite) models, from Python.

relite.Interpreter is a drop-in for ai_edge_litert.interpreter.Interpreter
(relite.interpreter.Interpreter is the same class); relite.load_delegate("gpu")
gives the GPU delegate for `experimental_delegates`.
"""

from relite import _capi
from relite.interpreter import Delegate, Interpreter, SignatureRunner, load_delegate

__version__ = _capi.lib.ReliteVersion().decode()

__all__ = ["Interpreter", "SignatureRunner", "Delegate", "load_delegate", "__version__"]
