"""The Python suite runs every test twice: against relite.Interpreter and
against ai_edge_litert.interpreter.Interpreter (LiteRT, from the venv that
scripts/setup.sh --tflite makes). LiteRT's half is skipped when it is not
installed, unless RELITE_REQUIRE_TFLITE=1."""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

MODELS = pathlib.Path(os.environ.get("RELITE_MODELS_DIR", str(ROOT.parent / "shared" / "models")))
TEST_MODELS = pathlib.Path(os.environ.get("RELITE_PY_TEST_MODELS", str(ROOT / "build" / "release" / "python_test_models")))


def _litert():
    try:
        from ai_edge_litert.interpreter import Interpreter
        return Interpreter
    except ImportError as e:
        return e


@pytest.fixture(params=["relite", "litert"])
def impl(request):
    if request.param == "relite":
        import relite
        return relite.Interpreter
    cls = _litert()
    if isinstance(cls, Exception):
        if os.environ.get("RELITE_REQUIRE_TFLITE") == "1":
            pytest.fail("LiteRT is required (RELITE_REQUIRE_TFLITE=1) but cannot be imported: %s" % cls)
        pytest.skip("LiteRT not installed (scripts/setup.sh --tflite): %s" % cls)
    return cls


@pytest.fixture
def litert():
    cls = _litert()
    if isinstance(cls, Exception):
        if os.environ.get("RELITE_REQUIRE_TFLITE") == "1":
            pytest.fail("LiteRT is required (RELITE_REQUIRE_TFLITE=1) but cannot be imported: %s" % cls)
        pytest.skip("LiteRT not installed: %s" % cls)
    return cls


@pytest.fixture
def models():
    if not MODELS.is_dir():
        if os.environ.get("RELITE_REQUIRE_MODELS") == "1":
            pytest.fail("models folder %s is missing and RELITE_REQUIRE_MODELS=1" % MODELS)
        pytest.skip("models folder %s not found (set RELITE_MODELS_DIR)" % MODELS)
    return MODELS


@pytest.fixture
def test_models():
    if not (TEST_MODELS / "signature_add.tflite").is_file():
        pytest.fail("%s/signature_add.tflite is missing (written by relite_python_test_models; "
                    "set RELITE_PY_TEST_MODELS)" % TEST_MODELS)
    return TEST_MODELS
