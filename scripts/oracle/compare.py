#!/usr/bin/env python3
"""Compare two tensor dumps (tensor_<index>.npy) operator by operator.

  python scripts/oracle/compare.py MODEL REFERENCE_DIR RELITE_DIR [-v]

Prints, in execution order, every operator output that differs (count and
max |a-b|); -v prints the equal ones too. The first line printed is the
operator to look at: later ones inherit its differences.
"""
import json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    model, a_dir, b_dir = sys.argv[1:4]
    verbose = '-v' in sys.argv
    tmp = tempfile.mkdtemp()
    subprocess.check_call(['flatc', '--json', '--raw-binary', '--strict-json', '--defaults-json', '-o', tmp,
                           os.path.join(ROOT, 'schema', 'tflite.fbs'), '--', model])
    m = json.load(open(os.path.join(tmp, os.path.splitext(os.path.basename(model))[0] + '.json')))
    sg = m['subgraphs'][0]
    codes = m['operator_codes']
    tensors = sg['tensors']
    for n, op in enumerate(sg.get('operators', [])):
        c = codes[op.get('opcode_index', 0)]
        name = c.get('custom_code') or c.get('builtin_code')
        if name in ('ADD', None) and c.get('deprecated_builtin_code', 0) not in (0, 127):
            name = f'builtin {c["deprecated_builtin_code"]}'  # only the deprecated 8-bit code is set
        for t in op['outputs']:
            fa, fb = f'{a_dir}/tensor_{t}.npy', f'{b_dir}/tensor_{t}.npy'
            desc = f'node {n} {name} tensor {t} {tensors[t].get("type")} {tensors[t].get("shape")}'
            if not (os.path.exists(fa) and os.path.exists(fb)):
                print(f'{desc}: missing in {"reference" if not os.path.exists(fa) else "relite"} dump')
                continue
            a = np.load(fa).astype(np.float64).ravel()
            b = np.load(fb).astype(np.float64).ravel()
            if a.shape != b.shape:
                print(f'{desc}: {a.size} vs {b.size} elements')
                continue
            d = np.abs(a - b)
            bad = int((d > 0).sum())
            if bad or verbose:
                print(f'{desc}: ' + ('equal' if not bad else f'{bad}/{a.size} differ, max |a-b| {d.max():g}'))


if __name__ == '__main__':
    try:
        main()
    except BrokenPipeError:
        pass
