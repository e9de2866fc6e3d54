#!/usr/bin/env python3
"""Benchmarks relite on the real models next to the reference runtime.

For each model with golden cases in $RELITE_MODELS_DIR (default ../shared/models),
runs `relite bench MODEL --threads T --json` and prints a Markdown table with the
reference runtime's median latency from golden/MODEL/*/meta.json (LiteRT, 1
thread, WebAssembly) beside relite's, and whether relite meets the target of at
most half the reference median.

  python3 bench/models/reference_table.py [--relite build/release/relite]
      [--threads 2] [--runs 50] [--models a,b,...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def reference_median(models_dir, model):
    medians = []
    golden = os.path.join(models_dir, "golden", model)
    for case in sorted(os.listdir(golden)):
        meta = os.path.join(golden, case, "meta.json")
        if os.path.exists(meta):
            with open(meta) as f:
                medians.append(json.load(f)["latency_ms"]["median"])
    return statistics.median(medians) if medians else None


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--relite", default=os.path.join(root, "build", "release", "relite"))
    parser.add_argument("--models-dir", default=os.environ.get("RELITE_MODELS_DIR", os.path.join(root, "..", "shared", "models")))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--models", default="", help="comma-separated model names (default: all with golden cases)")
    args = parser.parse_args()

    models = [m for m in args.models.split(",") if m] or sorted(os.listdir(os.path.join(args.models_dir, "golden")))
    print(f"| model | reference median (ms, 1 thread) | relite median (ms, {args.threads} threads) | relite min | ratio | target ≤ 0.5× |")
    print("|---|---:|---:|---:|---:|:---:|")
    failed = False
    for model in models:
        path = os.path.join(args.models_dir, model + ".tflite")
        ref = reference_median(args.models_dir, model)
        proc = subprocess.run([args.relite, "bench", path, "--threads", str(args.threads), "--runs", str(args.runs), "--json"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            err = (proc.stderr.strip().splitlines() or ["?"])[-1]
            print(f"| {model} | {ref} | {err} | | | |")
            failed = True
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        ratio = r["median_ms"] / ref if ref else float("nan")
        print(f"| {model} | {ref:.3f} | {r['median_ms']:.3f} | {r['min_ms']:.3f} | {ratio:.2f} | {'yes' if ratio <= 0.5 else 'no'} |")
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
