#!/usr/bin/env python3
"""Where a second thread helps relite least: per-node scaling on one model.

  python3 bench/models/thread_scaling.py MODEL.tflite [--threads 2] [--runs 300]
      [--repeats 2] [--top 12] [--cpus 1,2] [--relite build/release/relite]

Runs `relite bench --profile-nodes` at 1 thread and at --threads, --repeats
times each, interleaved, and keeps every node's lowest median (the VMs this
runs on are noisy; the minimum of a few medians is the steadiest figure).
Prints the time per op type at both counts with the speed-up, then the nodes
farthest from perfect scaling (t_N - t_1 / N), with their shapes. --cpus pins
both runs to those CPUs with taskset (pick distinct physical cores).

A benchmark, not a test: compare two builds by running it on each, side by
side, and read docs/PERFORMANCE.md (issue #18, session 14) for what it found.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODE_LINE = re.compile(r"^\s*(\d+)\s+(\S+)\s+([\d.]+)\s+[\d.]+%\s+(\[[^\]]*\])\s+(\[[^\]]*\])\s*$")


def profile(relite, model, threads, runs, cpus):
    """{node: (op, us, input shape, output shape)} from one `relite bench --profile-nodes` run."""
    cmd = [relite, "bench", model, "-t", str(threads), "--runs", str(runs), "--profile-nodes", "100000"]
    if cpus:
        cmd = ["taskset", "-c", cpus] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit((proc.stderr.strip().splitlines() or ["relite bench failed"])[-1])
    nodes = {}
    in_table = False
    for line in proc.stdout.splitlines():
        if line.startswith("slowest"):
            in_table = True
            continue
        m = NODE_LINE.match(line) if in_table else None
        if m:
            nodes[int(m.group(1))] = (m.group(2), float(m.group(3)), m.group(4), m.group(5))
    if not nodes:
        sys.exit("no per-node table in relite bench's output")
    return nodes


def lowest(runs):
    """Each node's lowest median over several profiles."""
    best = {}
    for nodes in runs:
        for node, entry in nodes.items():
            if node not in best or entry[1] < best[node][1]:
                best[node] = entry
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--relite", default=os.path.join(ROOT, "build", "release", "relite"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--cpus", default="", help="taskset CPU list for both runs, e.g. 1,2")
    args = parser.parse_args()
    if args.threads < 2:
        sys.exit("--threads must be 2 or more")

    one, many = [], []
    for _ in range(args.repeats):
        one.append(profile(args.relite, args.model, 1, args.runs, args.cpus))
        many.append(profile(args.relite, args.model, args.threads, args.runs, args.cpus))
    t1, tn = lowest(one), lowest(many)
    common = sorted(set(t1) & set(tn))

    by_op = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for node in common:
        entry = by_op[t1[node][0]]
        entry[0] += t1[node][1]
        entry[1] += tn[node][1]
        entry[2] += 1
    total1 = sum(t1[n][1] for n in common)
    totaln = sum(tn[n][1] for n in common)
    n = args.threads
    print(f"{os.path.basename(args.model)}: 1 thread vs {n}, lowest of {args.repeats} profile medians per node"
          + (f", CPUs {args.cpus}" if args.cpus else ""))
    print(f"\n| op | nodes | 1 thread (us) | {n} threads (us) | speed-up |")
    print("|---|---:|---:|---:|---:|")
    for op, (a, b, count) in sorted(by_op.items(), key=lambda kv: -kv[1][0]):
        print(f"| {op} | {count} | {a:.1f} | {b:.1f} | {a / b if b > 0 else float('nan'):.2f} |")
    print(f"| total | {len(common)} | {total1:.1f} | {totaln:.1f} | {total1 / totaln if totaln > 0 else float('nan'):.2f} |")

    print(f"\nnodes farthest from {n}x (t{n} - t1/{n}):\n")
    print(f"| node | op | 1 thread (us) | {n} threads (us) | lost (us) | input | output |")
    print("|---:|---|---:|---:|---:|---|---|")
    lost = sorted(common, key=lambda node: -(tn[node][1] - t1[node][1] / n))
    for node in lost[: args.top]:
        op, a, shape_in, shape_out = t1[node]
        b = tn[node][1]
        print(f"| {node} | {op} | {a:.1f} | {b:.1f} | {b - a / n:.1f} | {shape_in} | {shape_out} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
