#!/usr/bin/env python3
"""Benchmarks relite against native LiteRT on the same machine.

The reference medians of reference_table.py come from LiteRT's WebAssembly
build on another machine. This script measures the competitor where relite
runs: LiteRT's native x86-64 build (the `ai-edge-litert` package; its default
CPU path is the XNNPACK delegate plus builtin kernels) with the same thread
count, in interleaved rounds (LiteRT, relite, relite, LiteRT, ...) so that the
machine's drift hits both alike. LiteRT is timed in-process around invoke();
relite with `relite bench --json`. Each round takes the median over --runs
runs; the table shows the median over the rounds.

LiteRT comes from `scripts/setup.sh --tflite` (build/tflite-venv); the script
re-runs itself under that venv when needed.

  python3 bench/models/litert_table.py [--relite build/release/relite]
      [--threads 2] [--runs 50] [--rounds 3] [--models a,b,...] [--cap-isa avx2]

--cap-isa avx2|avx512 runs both runtimes as on an x86-64 CPU without the
extensions above that level: the script re-runs itself with
build/release/bench/librelite_cpuid_cap.so preloaded (bench/models/cpuid_cap.c:
CPUID answers with those feature bits cleared), which LiteRT's kernel choice
(XNNPACK, ruy) and relite's both see; the relite subprocess inherits it.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_PYTHON = os.path.join(ROOT, "build", "tflite-venv", "bin", "python")
CPUID_CAP_LIB = os.path.join(ROOT, "build", "release", "bench", "librelite_cpuid_cap.so")


def apply_isa_cap(cap):
    """Re-executes this script with CPUID capped at `cap` (before LiteRT or numpy load)."""
    if os.environ.get("RELITE_CPUID_CAP") == cap and CPUID_CAP_LIB in os.environ.get("LD_PRELOAD", ""):
        return
    if not os.path.exists(CPUID_CAP_LIB):
        sys.exit(f"--cap-isa needs {CPUID_CAP_LIB}: build the release preset")
    os.environ["RELITE_CPUID_CAP"] = cap
    os.environ["LD_PRELOAD"] = CPUID_CAP_LIB
    os.execv(sys.executable, [sys.executable] + sys.argv)


def load_litert():
    try:
        from ai_edge_litert.interpreter import Interpreter  # noqa: PLC0415
        return Interpreter
    except ImportError:
        if os.path.exists(VENV_PYTHON) and not os.environ.get("RELITE_BENCH_IN_VENV"):
            os.environ["RELITE_BENCH_IN_VENV"] = "1"
            os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)
        sys.exit("LiteRT (ai-edge-litert) is not importable; run scripts/setup.sh --tflite")


def litert_median_ms(interpreter_class, path, threads, runs, warmup, np):
    interp = interpreter_class(model_path=path, num_threads=threads)
    interp.allocate_tensors()
    rng = np.random.default_rng(1)
    for d in interp.get_input_details():
        dtype = d["dtype"]
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            x = rng.integers(info.min, info.max, size=d["shape"], endpoint=True).astype(dtype)
        else:
            x = rng.uniform(-1.0, 1.0, size=d["shape"]).astype(dtype)
        interp.set_tensor(d["index"], x)
    for _ in range(warmup):
        interp.invoke()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        interp.invoke()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def relite_median_ms(relite, path, threads, runs):
    proc = subprocess.run([relite, "bench", path, "--threads", str(threads), "--runs", str(runs), "--json"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError((proc.stderr.strip().splitlines() or ["relite bench failed"])[-1])
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return result["median_ms"], result.get("cpu_isa", "?")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--relite", default=os.path.join(ROOT, "build", "release", "relite"))
    parser.add_argument("--models-dir",
                        default=os.environ.get("RELITE_MODELS_DIR", os.path.join(ROOT, "..", "shared", "models")))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--models", default="", help="comma-separated model names (default: all with golden cases)")
    parser.add_argument("--cap-isa", choices=["avx2", "avx512"],
                        help="run both runtimes as on a CPU without the x86-64 extensions above this level")
    args = parser.parse_args()
    if args.cap_isa:
        apply_isa_cap(args.cap_isa)
    interpreter_class = load_litert()
    import numpy as np  # noqa: PLC0415  (the venv's, next to LiteRT)

    models = [m for m in args.models.split(",") if m] or sorted(os.listdir(os.path.join(args.models_dir, "golden")))
    cap = f"; CPUID capped at {args.cap_isa} for both" if args.cap_isa else ""
    print(f"{args.threads} threads; median of {args.rounds} interleaved rounds of {args.runs} runs each{cap}\n")
    print("| model | LiteRT native median (ms) | relite median (ms) | relite / LiteRT |")
    print("|---|---:|---:|---:|")
    failed = False
    for model in models:
        path = os.path.join(args.models_dir, model + ".tflite")
        litert, relite, isas = [], [], set()
        try:
            for r in range(args.rounds):
                order = ("litert", "relite") if r % 2 == 0 else ("relite", "litert")
                for who in order:
                    if who == "litert":
                        litert.append(litert_median_ms(interpreter_class, path, args.threads, args.runs, 5, np))
                    else:
                        median, isa = relite_median_ms(args.relite, path, args.threads, args.runs)
                        relite.append(median)
                        isas.add(isa)
        except (RuntimeError, ValueError) as e:  # e.g. a custom op LiteRT does not have
            print(f"| {model} | {str(e).splitlines()[0][:80]} | | |")
            failed = True
            continue
        a, b = statistics.median(litert), statistics.median(relite)
        print(f"| {model} | {a:.3f} | {b:.3f} | {b / a:.2f} |")
        levels = {isa.split()[0] for isa in isas}  # "avx2 (detected)" -> "avx2"
        if len(levels) != 1 or (args.cap_isa and args.cap_isa not in levels):
            print(f"relite ran at kernel level(s) {sorted(isas)}, not the cap {args.cap_isa}", file=sys.stderr)
            failed = True
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
