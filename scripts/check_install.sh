#!/usr/bin/env bash
# Installs the release build into a temporary prefix, then builds and runs
# the two consumers in examples/ against it: C++ through find_package(relite)
# and C through pkg-config. What CI runs after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
models="${RELITE_MODELS_DIR:-../shared/models}"
prefix="$(mktemp -d /tmp/relite-install.XXXXXX)"
trap 'rm -rf "$prefix"' EXIT
cmake --install build/release --prefix "$prefix" >/dev/null
cmake -S examples/cpp -B "$prefix/build-cpp" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/build-cpp" >/dev/null
export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name relite.pc | head -n 1)")"
cc -std=c99 -Wall -Wextra -Werror examples/c/classify.c $(pkg-config --cflags --libs relite) -o "$prefix/classify-c" \
   -Wl,-rpath,"$(pkg-config --variable=libdir relite)"
model="$models/mobilenet_v1_0.25_128_quant.tflite"
"$prefix/build-cpp/classify" "$model"
"$prefix/classify-c" "$model"
"$prefix/bin/relite" --version
# Only the public API leaves the shared library.
lib="$(find "$prefix" -name 'librelite.so.0' | head -n 1)"
if nm -D --defined-only "$lib" | grep -E ' T ' | grep -v -E 'Relite|relite' | head -n 5 | grep -q .; then
  echo "check_install: librelite.so exports symbols outside relite's API:" >&2
  nm -D --defined-only "$lib" | grep -E ' T ' | grep -v -E 'Relite|relite' | head -n 20 >&2
  exit 1
fi
echo "check_install: OK ($(nm -D --defined-only "$lib" | grep -c ' T ') functions exported)"
