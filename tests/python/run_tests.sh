#!/usr/bin/env bash
# CTest: the Python suite (tests/python), on relite and on LiteRT.
#   run_tests.sh MODELS_BIN LIBRARY WORK_DIR VENV
# Uses the LiteRT venv (scripts/setup.sh --tflite: numpy, pytest, LiteRT) when
# it exists, else a system python with numpy and pytest (relite's half only);
# exit 77 (skipped) when neither can run it.
set -euo pipefail
models_bin="$1" library="$2" work="$3" venv="$4"
here="$(cd "$(dirname "$0")" && pwd)"
py=""
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import numpy, pytest" 2>/dev/null; then
  py="$venv/bin/python"
elif python3 -c "import numpy, pytest" 2>/dev/null; then
  py=python3
fi
if [ -z "$py" ]; then
  if [ "${RELITE_REQUIRE_TFLITE:-0}" = 1 ]; then echo "no python with numpy and pytest (scripts/setup.sh --tflite)" >&2; exit 1; fi
  echo "no python with numpy and pytest; skipping (scripts/setup.sh --tflite installs them)"
  exit 77
fi
mkdir -p "$work"
"$models_bin" "$work"
export RELITE_LIBRARY="$library" RELITE_PY_TEST_MODELS="$work"
exec "$py" -m pytest -q -p no:cacheprovider "$here"
