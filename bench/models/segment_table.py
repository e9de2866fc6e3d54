#!/usr/bin/env python3
"""Where in a model relite gains or loses against native LiteRT.

Neither runtime can profile the other's operators, and LiteRT's Python API has
no per-operator profiler. This script cuts the model instead: for each cut
point it writes a prefix model (the operators up to and including the cut,
the cut's outputs as the model's outputs), times every prefix with
litert_table.py (both runtimes, interleaved rounds) and prints the cumulative
medians and each segment's share (the difference between consecutive
prefixes). Differences of medians are noisy: use several rounds and read the
trend, not one segment's figure.

By default the cuts are the block boundaries: the operators after which a
single activation tensor is live (the input of the next residual block).

  python3 bench/models/segment_table.py MODEL [--cuts 8,19,29] [--threads 2]
      [--runs 300] [--rounds 5] [--cap-isa avx2] [--keep DIR]

Needs the LiteRT venv (scripts/setup.sh --tflite), whose ai-edge-litert
package carries the flatbuffer schema's generated Python.
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_PYTHON = os.path.join(ROOT, "build", "tflite-venv", "bin", "python")
LITERT_TABLE = os.path.join(ROOT, "bench", "models", "litert_table.py")


def load_schema():
    try:
        from ai_edge_litert import schema_py_generated  # noqa: PLC0415
        import flatbuffers  # noqa: PLC0415
        return schema_py_generated, flatbuffers
    except ImportError:
        if os.path.exists(VENV_PYTHON) and not os.environ.get("RELITE_SEGMENTS_IN_VENV"):
            os.environ["RELITE_SEGMENTS_IN_VENV"] = "1"
            os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)
        sys.exit("ai-edge-litert and flatbuffers are not importable; run scripts/setup.sh --tflite")


def op_name(schema, model, op):
    code = model.operatorCodes[op.opcodeIndex]
    builtin = max(code.builtinCode, code.deprecatedBuiltinCode)
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    return names.get(builtin, str(builtin))


def block_boundaries(model):
    """Operators after which exactly one activation (not derived from constants) is live."""
    graph = model.subgraphs[0]
    constant = set()
    for i, t in enumerate(graph.tensors):
        buf = model.buffers[t.buffer] if t.buffer < len(model.buffers) else None
        if buf is not None and buf.data is not None and len(buf.data) > 0:
            constant.add(i)
    for op in graph.operators:  # e.g. DEQUANTIZE of a constant weight
        inputs = [i for i in op.inputs if i >= 0]
        if inputs and all(i in constant for i in inputs):
            constant.update(op.outputs)
    last_use = {}
    for index, op in enumerate(graph.operators):
        for i in op.inputs:
            if i >= 0:
                last_use[i] = index
    for out in graph.outputs:
        last_use[out] = len(graph.operators)
    cuts = []
    live = set(i for i in graph.inputs)
    for index, op in enumerate(graph.operators):
        live.update(o for o in op.outputs if o not in constant)
        live = {t for t in live if last_use.get(t, -1) > index}
        if all(o in constant for o in op.outputs):
            continue
        if len(live) == 1 and set(op.outputs) == live:
            cuts.append(index)
    last = len(graph.operators) - 1
    if not cuts or cuts[-1] != last:
        cuts.append(last)
    return cuts


def write_prefix(schema, flatbuffers, data, cut, path):
    model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    graph = model.subgraphs[0]
    graph.operators = graph.operators[: cut + 1]
    graph.outputs = list(graph.operators[cut].outputs)
    builder = flatbuffers.Builder(len(data) + 4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    with open(path, "wb") as f:
        f.write(builder.Output())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--cuts", help="operator indices to cut after (default: the block boundaries)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cap-isa", choices=["avx2", "avx512"])
    parser.add_argument("--keep", help="write the prefix models here (default: a temporary folder)")
    args = parser.parse_args()
    schema, flatbuffers = load_schema()

    with open(args.model, "rb") as f:
        data = f.read()
    model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    if len(model.subgraphs) != 1:
        sys.exit("only single-subgraph models can be cut")
    count = len(model.subgraphs[0].operators)
    cuts = [int(c) for c in args.cuts.split(",")] if args.cuts else block_boundaries(model)
    if any(c < 0 or c >= count for c in cuts):
        sys.exit(f"cuts must be operator indices in [0, {count})")
    cuts = sorted(set(cuts))

    folder = args.keep or tempfile.mkdtemp(prefix="relite-segments-")
    os.makedirs(folder, exist_ok=True)
    names = []
    for cut in cuts:
        name = f"cut{cut:04d}"
        write_prefix(schema, flatbuffers, data, cut, os.path.join(folder, name + ".tflite"))
        names.append(name)

    command = [sys.executable, LITERT_TABLE, "--models-dir", folder, "--models", ",".join(names), "--threads",
               str(args.threads), "--runs", str(args.runs), "--rounds", str(args.rounds)]
    if args.cap_isa:
        command += ["--cap-isa", args.cap_isa]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(proc.stderr.strip() or "litert_table.py failed")
    medians = {}
    for line in proc.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] in names:
            medians[cells[0]] = (float(cells[1]), float(cells[2]))

    graph = model.subgraphs[0]
    print(f"{os.path.basename(args.model)}: {args.threads} thread(s), median of {args.rounds} interleaved rounds "
          f"of {args.runs} runs" + (f", CPUID capped at {args.cap_isa}" if args.cap_isa else ""))
    print()
    print("| up to operator | LiteRT (ms) | relite (ms) | ratio | segment LiteRT (us) | segment relite (us) |")
    print("|---|---:|---:|---:|---:|---:|")
    previous = (0.0, 0.0)
    for cut, name in zip(cuts, names):
        litert, relite = medians[name]
        label = f"{cut} {op_name(schema, model, graph.operators[cut])}"
        print(f"| {label} | {litert:.3f} | {relite:.3f} | {relite / litert:.2f} | "
              f"{(litert - previous[0]) * 1e3:+.0f} | {(relite - previous[1]) * 1e3:+.0f} |")
        previous = (litert, relite)
    if not args.keep:
        for name in names:
            os.remove(os.path.join(folder, name + ".tflite"))
        os.rmdir(folder)


if __name__ == "__main__":
    main()
