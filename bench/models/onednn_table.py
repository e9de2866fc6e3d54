#!/usr/bin/env python3
"""The oneDNN delegate's table (issue 20, BRIEF.md section 3): per model, CPU only
against the oneDNN delegate in fp32 and bf16 (and the GPU delegate where one
runs), init beside latency, from `relite bench --json`.

  python3 bench/models/onednn_table.py --relite build/release/relite \
      --models ../shared/models [--threads 2] [--runs 50] [--rounds 3] [--gpu] [--taskset 0,1]

Models: the five float MediaPipe models and relite zoo's MobileNet V2 and
Inception V3 (float32 weights), written to a temporary folder. Prints a
markdown table; times in ms; speed-up = CPU median / delegate median.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

FLOAT_MODELS = ["face_detection_short_range", "face_detection_full_range", "hand_landmark_lite",
                "pose_landmark_lite", "selfie_segmentation"]
ZOO = ["mobilenet_v2", "inception_v3"]


def bench(args, model, extra):
    cmd = [args.relite, "bench", model, "--threads", str(args.threads), "--runs", str(args.runs), "--warmup", "5", "--json"]
    cmd += extra
    if args.taskset:
        cmd = ["taskset", "-c", args.taskset] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        return None, (p.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(lines[-1]), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--relite", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the table shows their median")
    ap.add_argument("--gpu", action="store_true", help="also the GPU delegate (fp32)")
    ap.add_argument("--taskset", default="", help="pin to these cores, e.g. 0,1")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    models = [(m, os.path.join(args.models, m + ".tflite")) for m in FLOAT_MODELS]
    for z in ZOO:
        path = os.path.join(tmp, z + ".tflite")
        subprocess.run([args.relite, "zoo", z, "--out", path], check=True, capture_output=True)
        models.append((z + " (zoo)", path))
    # "oneDNN fp32" is what a user gets (the delegate may decline the model:
    # no gain); "forced" runs every node on oneDNN anyway.
    configs = [("CPU", []), ("oneDNN fp32", ["--delegate", "onednn"]),
               ("oneDNN fp32 forced", ["--delegate", "onednn", "--onednn-force"]),
               ("oneDNN bf16", ["--delegate", "onednn", "--precision", "bf16"])]
    if args.gpu:
        configs.append(("GPU fp32", ["--delegate", "gpu"]))
    head = "| model | " + " | ".join(f"{c} init / median" for c, _ in configs) + " | bf16 speed-up |"
    print(head)
    print("|---" * (len(configs) + 2) + "|")
    for name, path in models:
        cells, med = [], {}
        # Interleaved rounds (every configuration once per round), so that
        # the machine's drift hits all alike; the median over the rounds.
        runs = {cname: [] for cname, _ in configs}
        errors = {}
        for _ in range(args.rounds):
            for cname, extra in configs:
                r, err = bench(args, path, extra)
                if r is None:
                    errors[cname] = err
                else:
                    runs[cname].append(r)
        for cname, _ in configs:
            if not runs[cname]:
                cells.append(f"failed: {errors.get(cname, '')[:60]}")
                continue
            rs = runs[cname]
            med[cname] = statistics.median(r["median_ms"] for r in rs)
            init = statistics.median(r["init_ms"] for r in rs)
            declined = cname.startswith("oneDNN") and rs[0].get("onednn", {}).get("partitions", 0) == 0
            cells.append(f"{init:.1f} / {med[cname]:.3f}" + (" (declined: CPU)" if declined else ""))
        speed = f"{med['CPU'] / med['oneDNN bf16']:.2f}x" if "CPU" in med and "oneDNN bf16" in med else "-"
        print(f"| {name} | " + " | ".join(cells) + f" | {speed} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
