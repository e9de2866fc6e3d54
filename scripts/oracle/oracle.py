#!/usr/bin/env python3
"""Reference tensors for layer-by-layer diffing against TFLite (LiteRT).

Makes every operator output of MODEL a graph output (so a delegate has to
materialise it), runs the copy with LiteRT and writes each tensor as
OUTDIR/tensor_<index>.npy, the names `relite run --dump-tensors` uses.

  python scripts/oracle/oracle.py MODEL OUTDIR [--mode xnn|builtin|ref] [INPUT.bin ...]

Needs a venv with `pip install ai-edge-litert 'numpy<2'` (tooling only; the
product does not depend on it). --mode xnn (default) is TFLite with its
default XNNPACK delegate, which is what produced ../shared/models/golden.
Compare with scripts/oracle/compare.py.
"""
import argparse, os, subprocess, sys, tempfile

import numpy as np
from ai_edge_litert import interpreter as tfl

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def build_add_outputs():
    out_dir = os.path.join(ROOT, 'build', 'oracle')
    exe = os.path.join(out_dir, 'add_outputs')
    src = os.path.join(HERE, 'add_outputs.cc')
    if os.path.exists(exe) and os.path.getmtime(exe) > os.path.getmtime(src):
        return exe
    os.makedirs(out_dir, exist_ok=True)
    subprocess.check_call(['flatc', '--cpp', '--gen-object-api', '--scoped-enums', '-o', out_dir,
                           os.path.join(ROOT, 'schema', 'tflite.fbs')])
    subprocess.check_call(['g++', '-O1', '-std=c++17', '-I', out_dir, src, '-o', exe])
    return exe


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model'); ap.add_argument('outdir'); ap.add_argument('inputs', nargs='*')
    ap.add_argument('--mode', default='xnn', choices=['xnn', 'builtin', 'ref'])
    ap.add_argument('--limit', type=int, default=1 << 30, help='expose only the first LIMIT op outputs')
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    model = os.path.join(tempfile.mkdtemp(), 'all_outputs.tflite')
    subprocess.check_call([build_add_outputs(), a.model, model, str(a.limit)])
    rt = {'xnn': tfl.OpResolverType.AUTO, 'builtin': tfl.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
          'ref': tfl.OpResolverType.BUILTIN_REF}[a.mode]
    it = tfl.Interpreter(model_path=model, experimental_op_resolver_type=rt, num_threads=1)
    it.allocate_tensors()
    for i, det in enumerate(it.get_input_details()):
        if a.inputs:
            f = a.inputs[i]
            x = np.load(f) if f.endswith('.npy') else np.fromfile(f, dtype=det['dtype'])
            x = x.astype(det['dtype']).reshape(det['shape'])
        else:
            x = np.random.default_rng(i).integers(0, 255, size=det['shape']).astype(det['dtype'])
        it.set_tensor(det['index'], x)
    it.invoke()
    for det in it.get_output_details():
        np.save(os.path.join(a.outdir, 'tensor_%d.npy' % det['index']), it.get_tensor(det['index']))
    print('wrote', len(it.get_output_details()), 'tensors to', a.outdir)


if __name__ == '__main__':
    main()
