#!/usr/bin/env python3
"""Benchmarks the zoo architectures (`relite zoo`) and prints one Markdown table.

Writes every zoo model (float32 weights, and float16 weights with --float16)
into a cache folder (reused while the relite binary is older than the file),
then runs `relite bench MODEL --json` on the CPU and, when this relite lists a
gpu delegate under `bench --delegate`, with `--delegate gpu` in fp32 and fp16
too (where no OpenCL device exists those runs fall back to the CPU, with a
warning).

  python3 bench/models/zoo_table.py [--relite build/release/relite]
      [--cache ~/.cache/relite/zoo] [--threads 2] [--runs 20] [--models a,b,...]
      [--seed 1] [--float16]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ZOO = ["mobilenet_v1", "mobilenet_v2", "deeplab_v3", "ssd_mobilenet_v1", "posenet", "inception_v3"]


def gpu_delegate_status(relite):
    """(available, note): whether `relite bench --delegate gpu` can run here."""
    proc = subprocess.run([relite, "bench", "--help"], capture_output=True, text=True)
    if "--delegate" not in proc.stdout:
        return False, "this relite has no --delegate option: CPU only"
    m = re.search(r"--delegate[^\n]*\(available: ([^)]*)\)", proc.stdout)
    names = [n.strip() for n in m.group(1).split(",")] if m else []
    if "gpu" not in names:
        return False, f"no gpu delegate in this build (available: {', '.join(names) or 'none'}): CPU only"
    return True, "CPU and --delegate gpu"


def write_model(relite, cache, name, seed, weights):
    path = os.path.join(cache, f"{name}_seed{seed}_{weights}.tflite")
    if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(relite):
        proc = subprocess.run([relite, "zoo", name, "--out", path, "--seed", str(seed), "--weights", weights],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError((proc.stderr.strip().splitlines() or ["relite zoo failed"])[-1])
    return path


def bench(relite, path, threads, runs, extra):
    proc = subprocess.run([relite, "bench", path, "--threads", str(threads), "--runs", str(runs), "--json"] + extra,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return None, (proc.stderr.strip().splitlines() or ["?"])[-1]
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--relite", default=os.path.join(root, "build", "release", "relite"))
    parser.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "relite", "zoo"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--models", default="", help="comma-separated zoo names (default: all)")
    parser.add_argument("--float16", action="store_true", help="also benchmark the float16-weight variants")
    args = parser.parse_args()

    os.makedirs(args.cache, exist_ok=True)
    models = [m for m in args.models.split(",") if m] or ZOO
    variants = ["float32"] + (["float16"] if args.float16 else [])
    gpu, gpu_note = gpu_delegate_status(args.relite)
    backends = [("cpu", [])] + ([("gpu fp32", ["--delegate", "gpu"]), ("gpu fp16", ["--delegate", "gpu", "--precision", "fp16"])]
                                if gpu else [])

    header = ["model", "weights", "file MiB"]
    for b, _ in backends:
        header += [f"{b} init ms", f"{b} first ms", f"{b} median ms", f"{b} min ms"]
    header += ["peak RSS MiB"]
    print(f"relite zoo benchmark: {args.threads} threads, {args.runs} runs, seed {args.seed}; {gpu_note}")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(header) - 2)) + "|")
    failed = False
    for name in models:
        for weights in variants:
            try:
                path = write_model(args.relite, args.cache, name, args.seed, weights)
            except RuntimeError as e:
                print(f"| {name} | {weights} | {e} |")
                failed = True
                continue
            row = [name, weights, f"{os.path.getsize(path) / 2**20:.1f}"]
            rss = 0.0
            for backend, extra in backends:
                r, err = bench(args.relite, path, args.threads, args.runs, extra)
                if r is None:
                    row += [err, "", "", ""]
                    failed = True
                    continue
                row += [f"{r['init_ms']:.1f}", f"{r['first_ms']:.2f}", f"{r['median_ms']:.2f}", f"{r['min_ms']:.2f}"]
                rss = max(rss, r["peak_rss_mb"])
            row.append(f"{rss:.0f}")
            print("| " + " | ".join(row) + " |")
            sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
