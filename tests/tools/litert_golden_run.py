#!/usr/bin/env python3
"""Runs every case folder under DIR in native LiteRT (tests/testing/litert_golden.h).

Each DIR/case_K holds model.tflite (and `reference_kernels` where the case
runs on LiteRT's reference kernels), invokes.txt (how many Invokes in all) and
inputs.txt ("tensor dtype d0,d1,..|-"
per line, raw bytes in in_<tensor>.bin; "tensor dtype dims step" for an input
fed again before Invoke number `step`, bytes in in_<tensor>_<step>.bin). The
case is invoked once per step; outputs are those of the last. Writes out_<tensor>.bin and
out_<tensor>.txt ("dtype d0,d1,..|-") for every output, or error.txt when
LiteRT refuses the case.
"""
import os
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def dims(text):
    return () if text == "-" else tuple(int(d) for d in text.split(","))


def run_case(case):
    # TFLite's own builtin kernels, without the default XNNPACK delegate (a
    # delegate with its own edge behaviour); or, where the case asks, the
    # reference kernels, the op's definition where the optimized kernel's
    # answer depends on lane positions (NaNs in a min/max reduction).
    resolver = (OpResolverType.BUILTIN_REF if os.path.exists(os.path.join(case, "reference_kernels"))
                else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interp = Interpreter(model_path=os.path.join(case, "model.tflite"), num_threads=1,
                         experimental_op_resolver_type=resolver)
    interp.allocate_tensors()
    steps = {}
    with open(os.path.join(case, "inputs.txt")) as f:
        for line in f:
            if not line.strip():
                continue
            index, dtype, shape, *step = line.split()
            step = int(step[0]) if step else 0
            name = f"in_{index}.bin" if step == 0 else f"in_{index}_{step}.bin"
            x = np.fromfile(os.path.join(case, name), dtype=np.dtype(dtype)).reshape(dims(shape))
            steps.setdefault(step, []).append((int(index), x))
    invokes_file = os.path.join(case, "invokes.txt")
    invokes = int(open(invokes_file).read()) if os.path.exists(invokes_file) else 1
    for step in range(max(max(steps) + 1 if steps else 1, invokes)):
        for index, x in steps.get(step, []):
            interp.set_tensor(index, x)
        interp.invoke()
    for d in interp.get_output_details():
        y = interp.get_tensor(d["index"])
        name = np.dtype(y.dtype).name
        shape = ",".join(str(s) for s in y.shape) or "-"
        with open(os.path.join(case, f"out_{d['index']}.txt"), "w") as f:
            f.write(f"{name} {shape}\n")
        np.ascontiguousarray(y).tofile(os.path.join(case, f"out_{d['index']}.bin"))


def main():
    root = sys.argv[1]
    for name in sorted(os.listdir(root)):
        case = os.path.join(root, name)
        if not os.path.isdir(case):
            continue
        try:
            run_case(case)
        except Exception as e:  # the C++ side reports it against the case's name
            with open(os.path.join(case, "error.txt"), "w") as f:
                f.write(f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
