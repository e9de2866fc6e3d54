#!/usr/bin/env python3
"""Files relite writes must load and run in the real TFLite runtime.

`relite zoo` and `relite convert --dequantize` write .tflite files that other
runtimes will run, so every one of them is loaded by LiteRT (the
`ai-edge-litert` Python package, which verifies the flatbuffer and refuses op
versions it does not know), run on a fixed pseudo-random input, and compared
with `relite run` on the same input.

LiteRT comes from `scripts/setup.sh --tflite` (a venv in build/tflite-venv).
Without it the test skips (exit 77) with the reason, unless
RELITE_REQUIRE_TFLITE=1, under which it fails. Converted real models need the
models folder (RELITE_MODELS_DIR, default ../shared/models): without it those
cases skip likewise unless RELITE_REQUIRE_MODELS=1.

  tests/tools/tflite_interop_test.py --relite build/release/relite
"""
import argparse
import os
import subprocess
import sys
import tempfile

SKIP = 77
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_PYTHON = os.path.join(REPO, "build", "tflite-venv", "bin", "python")

# (name, --weights): every architecture in float32, two in float16 (DEQUANTIZE
# of float16 constants, op version 3).
ZOO = [(name, "float32") for name in
       ("mobilenet_v1", "mobilenet_v2", "deeplab_v3", "ssd_mobilenet_v1", "posenet", "inception_v3")]
ZOO += [("mobilenet_v2", "float16"), ("deeplab_v3", "float16")]
CONVERTED = ["mobilenet_v1_0.25_128_quant", "mobilenet_v1_0.5_160_quant", "mobilenet_v2_1.0_224_quant",
             "tf2_mobilenet_v2_1.0_224_ptq", "deeplabv3_mnv2_pascal_quant"]


def required(var):
    return os.environ.get(var, "") not in ("", "0")


def load_litert():
    """Returns LiteRT's Interpreter class, re-running under the setup venv if needed."""
    try:
        from ai_edge_litert.interpreter import Interpreter  # noqa: PLC0415
        return Interpreter
    except ImportError as e:
        if os.path.exists(VENV_PYTHON) and not os.environ.get("RELITE_INTEROP_IN_VENV"):
            os.environ["RELITE_INTEROP_IN_VENV"] = "1"  # once: the venv may lack LiteRT too
            os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)
        why = f"LiteRT (ai-edge-litert) is not importable ({e}); run scripts/setup.sh --tflite"
        if required("RELITE_REQUIRE_TFLITE"):
            print("FAIL: " + why + " (RELITE_REQUIRE_TFLITE=1)")
            sys.exit(1)
        print("SKIP: " + why)
        sys.exit(SKIP)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


def compare(path, interpreter_class, relite, work, np, summary):
    """Runs `path` in LiteRT and in relite on one input; returns a list of problems.

    Appends "output k: max diff d" (or "agree p%") to `summary`."""
    try:
        interp = interpreter_class(model_path=path, num_threads=1)
        interp.allocate_tensors()
    except Exception as e:  # LiteRT rejects the file: exactly what this test is for
        return [f"LiteRT cannot load it: {e}"]
    rng = np.random.default_rng(7)
    inputs = []
    for i, d in enumerate(interp.get_input_details()):
        if d["dtype"] != np.float32:
            return [f"input {i} is {d['dtype']}, expected float32"]
        x = rng.uniform(-1.0, 1.0, size=d["shape"]).astype(np.float32)
        interp.set_tensor(d["index"], x)
        npy = os.path.join(work, f"input_{i}.npy")
        np.save(npy, x)
        inputs += ["--input", npy]
    interp.invoke()
    out_dir = os.path.join(work, "relite_out")
    run([relite, "run", path, *inputs, "--output-dir", out_dir, "--threads", "2"])
    problems = []
    for k, d in enumerate(interp.get_output_details()):
        want = interp.get_tensor(d["index"])
        got = np.load(os.path.join(out_dir, f"output_{k}.npy"))
        if got.shape != want.shape or got.dtype != want.dtype:
            problems.append(f"output {k}: relite {got.dtype}{list(got.shape)}, LiteRT {want.dtype}{list(want.shape)}")
            continue
        if np.issubdtype(want.dtype, np.floating):
            if not np.all(np.isfinite(want)):
                problems.append(f"output {k}: LiteRT gives non-finite values")
                continue
            # Relative to the output's own magnitude: the zoo's softmax outputs
            # are all near 1/1001.
            limit = 1e-4 * float(np.max(np.abs(want))) + 1e-6 if want.size else 0.0
            diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if want.size else 0.0
            summary.append(f"{list(want.shape)} max diff {diff:.2g}")
            if diff > limit:
                problems.append(f"output {k}: max |relite - LiteRT| = {diff:.3g} (limit {limit:.3g})")
        else:
            # ARG_MAX over float scores: equal but for exceedingly rare ties.
            agree = float(np.mean(got == want)) if want.size else 1.0
            summary.append(f"{list(want.shape)} {want.dtype} agree {100 * agree:.2f}%")
            if agree < 0.999:
                problems.append(f"output {k}: relite and LiteRT agree on {100 * agree:.2f}% of elements")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--relite", required=True, help="the relite CLI binary")
    args = parser.parse_args()
    interpreter_class = load_litert()
    import numpy as np  # noqa: PLC0415  (from the same environment as LiteRT)

    models_dir = os.environ.get("RELITE_MODELS_DIR", os.path.join(REPO, "..", "shared", "models"))
    cases = []
    with tempfile.TemporaryDirectory(prefix="relite_interop_") as tmp:
        for name, weights in ZOO:
            out = os.path.join(tmp, f"{name}_{weights}.tflite")
            cases.append((f"zoo {name} --weights {weights}", out,
                          [args.relite, "zoo", name, "--out", out, "--seed", "3", "--weights", weights]))
        if os.path.isdir(models_dir):
            for name in CONVERTED:
                out = os.path.join(tmp, f"{name}_float.tflite")
                cases.append((f"convert {name} --dequantize", out,
                              [args.relite, "convert", os.path.join(models_dir, f"{name}.tflite"), "--dequantize",
                               "--out", out]))
        elif required("RELITE_REQUIRE_MODELS"):
            print(f"FAIL: models folder {models_dir} is missing (RELITE_REQUIRE_MODELS=1)")
            return 1
        else:
            print(f"note: converted real models skipped: models folder {models_dir} is missing")

        failed = 0
        for label, path, make in cases:
            work = os.path.join(tmp, os.path.basename(path) + ".work")
            os.makedirs(work)
            summary = []
            try:
                run(make)
                problems = compare(path, interpreter_class, args.relite, work, np, summary)
            except RuntimeError as e:
                problems = [str(e)]
            print(f"{'ok  ' if not problems else 'FAIL'} {label}: {'; '.join(summary)}")
            for p in problems:
                print(f"       {p}")
            failed += bool(problems)
            os.remove(path)
        print(f"{len(cases) - failed} of {len(cases)} files load in LiteRT and match relite")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
