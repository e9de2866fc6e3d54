#!/usr/bin/env python3
"""Python invoke() against the C++ Invoke on the same model, same thread
count, in interleaved rounds: relite's Python overhead per inference.

  RELITE_LIBRARY=build/release/librelite.so python3 bench/python/invoke_overhead.py \
      --relite build/release/relite --runs 2000 --rounds 5 MODEL...

C++ times come from `relite bench --json` (median of --runs); Python times
are the median of --runs timed invoke() calls; both take inputs as they are
(pseudo-random for the CLI, zeros in Python: the kernels' time does not
depend on the values)."""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import numpy as np  # noqa: E402

import relite  # noqa: E402


def python_median_us(model, threads, runs):
    it = relite.Interpreter(model_path=model, num_threads=threads)
    it.allocate_tensors()
    for d in it.get_input_details():
        it.set_tensor(d["index"], np.zeros(d["shape"], d["dtype"]))
    for _ in range(max(10, runs // 20)):
        it.invoke()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        it.invoke()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def cpp_median_us(cli, model, threads, runs):
    out = subprocess.run([cli, "bench", model, "--threads", str(threads), "--runs", str(runs), "--warmup",
                          str(max(10, runs // 20)), "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"] * 1e3


def main():
    p = argparse.ArgumentParser()
    p.add_argument("models", nargs="+")
    p.add_argument("--relite", default=str(ROOT / "build" / "release" / "relite"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    print("| model | C++ Invoke median us | Python invoke median us | overhead |")
    print("|---|---:|---:|---:|")
    for model in a.models:
        cpp, py = [], []
        for _ in range(a.rounds):
            cpp.append(cpp_median_us(a.relite, model, a.threads, a.runs))
            py.append(python_median_us(model, a.threads, a.runs))
        c, q = statistics.median(cpp), statistics.median(py)
        print("| %s | %.1f | %.1f | %+.1f%% |" % (pathlib.Path(model).stem, c, q, 100.0 * (q - c) / c))


if __name__ == "__main__":
    main()
