#!/usr/bin/env bash
# Runs the test suite of a built preset (default: release), e.g.
#   scripts/test.sh            release build
#   scripts/test.sh asan       AddressSanitizer + UBSan build
# Model tests read RELITE_MODELS_DIR (default ../shared/models) and skip with a
# reason when it is absent, unless RELITE_REQUIRE_MODELS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)"
