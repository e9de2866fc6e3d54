#!/usr/bin/env python3
"""relite against native LiteRT in counted work, not time: instructions,
loads, stores and simulated L1 misses per inference, from valgrind's
cachegrind.

  python3 bench/models/instruction_counts.py MODEL.tflite [--runs 10]
      [--top 10] [--relite build/release/relite]

The development VMs swing by 1.5-2.5x within the hour (docs/PERFORMANCE.md),
so a change worth 5% cannot be timed there; counts are the same on every run.
Each runtime runs twice under `valgrind --tool=cachegrind --cache-sim=yes`, one
thread: relite as `relite bench --runs R --warmup 2` and `--runs 2 --warmup
0`, LiteRT (`ai-edge-litert` from `scripts/setup.sh --tflite`, XNNPACK) as a
loop of R + 2 and 2 `invoke()` calls. The difference over R is one
inference, free of loading and preparing. Prints the totals side by side,
then each runtime's functions with the most instructions an inference.

Counts are not time: fewer instructions with the same work usually run
faster, but the instruction mix and the real caches decide. About 1-4
minutes a model (valgrind runs relite ~1000x slower than natively).
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_PYTHON = os.path.join(ROOT, "build", "tflite-venv", "bin", "python")
# cg_annotate's columns with --cache-sim=yes.
EVENTS = ["Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw"]

LITERT_LOOP = """
import sys
import numpy as np
from ai_edge_litert.interpreter import Interpreter
interpreter = Interpreter(model_path=sys.argv[1], num_threads=1)
interpreter.allocate_tensors()
for detail in interpreter.get_input_details():
    rng = np.random.default_rng(0)
    if np.issubdtype(detail["dtype"], np.floating):
        value = rng.random(detail["shape"], dtype=np.float32).astype(detail["dtype"])
    else:
        info = np.iinfo(detail["dtype"])
        value = rng.integers(info.min, info.max, detail["shape"], endpoint=True).astype(detail["dtype"])
    interpreter.set_tensor(detail["index"], value)
for _ in range(int(sys.argv[2])):
    interpreter.invoke()
"""


def cachegrind(cmd, out_file):
    """{function: [9 event counts]} of one run of cmd under cachegrind."""
    full = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--cachegrind-out-file={out_file}"] + cmd
    proc = subprocess.run(full, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"failed under valgrind: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    annotated = subprocess.run(["cg_annotate", "--show-percs=no", out_file], capture_output=True, text=True, check=True)
    counts = {}
    in_table = False
    for line in annotated.stdout.splitlines():
        if line.rstrip().endswith("file:function"):
            in_table = True
            continue
        if not in_table or not line.strip() or line.startswith("-"):
            if in_table and counts and not line.strip():
                break
            continue
        parts = line.split(None, len(EVENTS))
        if len(parts) <= len(EVENTS):
            continue
        try:
            counts[parts[-1].strip()] = [int(p.replace(",", "")) for p in parts[: len(EVENTS)]]
        except ValueError:
            continue
    if not counts:
        sys.exit(f"no per-function counts from cg_annotate for {' '.join(cmd)}")
    return counts


def per_inference(long_run, short_run, inferences):
    """{function: counts} of one inference: the two runs' difference over `inferences`."""
    result = {}
    for fn, counts in long_run.items():
        base = short_run.get(fn, [0] * len(EVENTS))
        result[fn] = [(a - b) / inferences for a, b in zip(counts, base)]
    return result


def short_name(fn):
    name = fn.split(":", 1)[1] if fn.startswith("???:") else fn
    for prefix in ("void ", "relite::cpu::", "(anonymous namespace)::"):
        name = name.replace(prefix, "")
    return name.split("(")[0] if name.startswith("xnn_") else name[:90]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--runs", type=int, default=10, help="inferences the difference is taken over")
    parser.add_argument("--top", type=int, default=10, help="functions listed per runtime")
    parser.add_argument("--relite", default=os.path.join(ROOT, "build", "release", "relite"))
    args = parser.parse_args()
    for tool in ("valgrind", "cg_annotate"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            sys.exit(f"{tool} not found (Debian package valgrind)")
    if not os.path.exists(VENV_PYTHON):
        sys.exit(f"{VENV_PYTHON} not found: run scripts/setup.sh --tflite")
    if args.runs < 1:
        sys.exit("--runs must be at least 1")

    with tempfile.TemporaryDirectory() as tmp:
        loop = os.path.join(tmp, "litert_loop.py")
        with open(loop, "w") as f:
            f.write(LITERT_LOOP)
        bench = [args.relite, "bench", args.model, "-t", "1"]
        relite = per_inference(
            cachegrind(bench + ["--runs", str(args.runs), "--warmup", "2"], os.path.join(tmp, "relite_long")),
            cachegrind(bench + ["--runs", "2", "--warmup", "0"], os.path.join(tmp, "relite_short")), args.runs)
        litert = per_inference(
            cachegrind([VENV_PYTHON, loop, args.model, str(args.runs + 2)], os.path.join(tmp, "litert_long")),
            cachegrind([VENV_PYTHON, loop, args.model, "2"], os.path.join(tmp, "litert_short")), args.runs)

    def total(counts, event):
        i = EVENTS.index(event)
        return sum(c[i] for c in counts.values()) / 1e6

    print(f"{os.path.basename(args.model)}: per inference, 1 thread (millions)\n")
    print("| count | relite | LiteRT | relite / LiteRT |")
    print("|---|---:|---:|---:|")
    for event, label in (("Ir", "instructions"), ("Dr", "loads"), ("Dw", "stores"), ("D1mr", "L1 load misses"),
                         ("D1mw", "L1 store misses"), ("DLmr", "last-level load misses")):
        r, l = total(relite, event), total(litert, event)
        ratio = f"{r / l:.2f}" if l > 0 else "-"
        print(f"| {label} | {r:.3f} | {l:.3f} | {ratio} |")
    for name, counts in (("relite", relite), ("LiteRT", litert)):
        print(f"\n{name}: functions with the most instructions an inference")
        print("| instructions | loads | L1 load misses | function |")
        print("|---:|---:|---:|---|")
        ranked = sorted(counts.items(), key=lambda kv: -kv[1][0])[: args.top]
        for fn, c in ranked:
            print(f"| {c[0] / 1e6:.3f} | {c[3] / 1e6:.3f} | {c[4] / 1e6:.4f} | {short_name(fn)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
