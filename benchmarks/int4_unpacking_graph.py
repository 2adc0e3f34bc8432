"""What a user sees on a model: an int4-weight unpacking graph, end to end and node by node.

The graph turns a uint8 tensor holding two int4 weights per byte (unsigned, zero point 8)
into float32 weights, as a quantized model's loader does::

    W: uint8 (size x size)
    low    = BitwiseAnd(W, 15)                  # the low nibbles
    high   = BitShift(W, 4, direction="RIGHT")  # the high nibbles
    both   = Concat(low, high, axis=0)          # uint8 (2 size x size)
    floats = Cast(both, to=FLOAT)
    zeroed = Sub(floats, 8.0)                   # the zero point
    Y      = Mul(zeroed, 0.05)                  # the scale: float32 (2 size x size)

It runs in onnx's ReferenceEvaluator alone, in the ReferenceEvaluator with fastbits' operators
(``new_ops=fastbits.onnx_ops.OPS``: BitwiseAnd, BitShift and Cast on fastbits; Concat, Sub and
Mul on numpy, as before), and in onnxruntime when it is installed, and prints

* end to end: the median of ``--repeat`` interleaved runs of the whole graph, after an untimed
  one, and each one's ratio to the ReferenceEvaluator alone;
* per node: the ReferenceEvaluator's nodes timed one by one, as its run loop runs them, and
  onnxruntime's from its profiler (its kernel time; the run's own overhead is not in it).

The three must give the same Y, bit for bit, or the script stops.  The model imports opset 18
(BitShift-11: unsigned types), which onnxruntime runs.

    python benchmarks/int4_unpacking_graph.py [--size 4096] [--repeat 7]

The figures move with the machine's load: on a shared machine, run it when it is quiet and
read the ratios, not the times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np
import onnx
import onnx.helper as oh
from onnx import TensorProto as TP
from onnx.reference import ReferenceEvaluator

import fastbits
import fastbits.onnx_ops

OPSET = 18
SCALE = 0.05
#: The graph's operators that fastbits.onnx_ops runs.
FASTBITS_OPS = {cls.__name__ for cls in fastbits.onnx_ops.OPS}


def model(size: int) -> onnx.ModelProto:
    """The graph above, its nodes named after their outputs."""
    nodes = [
        oh.make_node("BitwiseAnd", ["W", "mask"], ["low"], name="low"),
        oh.make_node("BitShift", ["W", "four"], ["high"], direction="RIGHT", name="high"),
        oh.make_node("Concat", ["low", "high"], ["both"], axis=0, name="both"),
        oh.make_node("Cast", ["both"], ["floats"], to=TP.FLOAT, name="floats"),
        oh.make_node("Sub", ["floats", "zero_point"], ["zeroed"], name="zeroed"),
        oh.make_node("Mul", ["zeroed", "scale"], ["Y"], name="Y"),
    ]
    initializers = [
        oh.make_tensor("mask", TP.UINT8, [1], [15]),
        oh.make_tensor("four", TP.UINT8, [1], [4]),
        oh.make_tensor("zero_point", TP.FLOAT, [], [8.0]),
        oh.make_tensor("scale", TP.FLOAT, [], [SCALE]),
    ]
    graph = oh.make_graph(
        nodes, "int4_unpacking",
        [oh.make_tensor_value_info("W", TP.UINT8, [size, size])],
        [oh.make_tensor_value_info("Y", TP.FLOAT, [2 * size, size])],
        initializer=initializers,
    )
    result = oh.make_model(graph, opset_imports=[oh.make_opsetid("", OPSET)])
    result.ir_version = 8  # what onnxruntime releases of the last two years all load
    onnx.checker.check_model(result)
    return result


def reference_nodes(session: ReferenceEvaluator, feeds: dict) -> tuple[np.ndarray, dict[str, float]]:
    """One run of the evaluator's nodes, each timed, as its run loop runs them: Y and the
    seconds of each node, by name."""
    results = dict(session.rt_inits_)
    results.update(feeds)
    seconds = {}
    for node in session.rt_nodes_:
        inputs = [results[name] for name in node.input]
        t0 = time.perf_counter()
        outputs = node.run(*inputs)
        seconds[node.onnx_node.name] = time.perf_counter() - t0
        results.update(zip(node.output, outputs))
    return results["Y"], seconds


def ort_session(proto: onnx.ModelProto, profile: bool):
    import onnxruntime as ort

    options = ort.SessionOptions()
    if profile:
        options.enable_profiling = True
        options.profile_file_prefix = os.path.join(tempfile.mkdtemp(), "int4_unpacking")
    return ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])


def ort_nodes(proto: onnx.ModelProto, feeds: dict, runs: int) -> dict[str, float]:
    """Each node's median kernel time (seconds) over ``runs`` profiled runs, by name."""
    session = ort_session(proto, profile=True)
    session.run(None, feeds)  # untimed, as the others
    for _ in range(runs):
        session.run(None, feeds)
    path = session.end_profiling()
    with open(path) as file:
        events = json.load(file)
    durations: dict[str, list[float]] = {}
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            durations.setdefault(event["name"].removesuffix("_kernel_time"), []).append(event["dur"] * 1e-6)
    # the first run's events belong to the untimed run
    return {name: statistics.median(times[1:] or times) for name, times in durations.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=4096, help="W is size x size uint8 (default 4096)")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of each (default 7)")
    args = parser.parse_args()

    proto = model(args.size)
    rng = np.random.default_rng(0)
    feeds = {"W": rng.integers(0, 256, size=(args.size, args.size), dtype=np.uint8)}
    runners = {
        "ReferenceEvaluator": ReferenceEvaluator(proto).run,
        "ReferenceEvaluator + fastbits": ReferenceEvaluator(proto, new_ops=list(fastbits.onnx_ops.OPS)).run,
    }
    try:
        runners["onnxruntime"] = ort_session(proto, profile=False).run
    except ImportError:
        pass

    expected = np.concatenate([feeds["W"] & 15, feeds["W"] >> 4]).astype(np.float32)
    expected = (expected - np.float32(8.0)) * np.float32(SCALE)
    for name, run in runners.items():  # the untimed run, and the check
        if run(None, feeds)[0].tobytes() != expected.tobytes():
            raise SystemExit(f"{name} computes another Y")

    samples: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(args.repeat):  # interleaved: one run of each per repetition, in a fresh order
        for name in rng.permutation(list(runners)):
            t0 = time.perf_counter()
            runners[name](None, feeds)
            samples[name].append(time.perf_counter() - t0)
    end_to_end = {name: statistics.median(times) for name, times in samples.items()}

    per_node = {}
    for name, new_ops in (("ReferenceEvaluator", None), ("ReferenceEvaluator + fastbits", fastbits.onnx_ops.OPS)):
        session = ReferenceEvaluator(proto, new_ops=None if new_ops is None else list(new_ops))
        reference_nodes(session, feeds)  # untimed
        runs = [reference_nodes(session, feeds)[1] for _ in range(args.repeat)]
        per_node[name] = {node: statistics.median(run[node] for run in runs) for node in runs[0]}
    if "onnxruntime" in runners:
        per_node["onnxruntime"] = ort_nodes(proto, feeds, args.repeat)

    mib = feeds["W"].nbytes / 2**20
    print(f"int4-weight unpacking graph: W uint8 {args.size} x {args.size} ({mib:g} MiB) -> "
          f"Y float32 {2 * args.size} x {args.size} ({8 * mib:g} MiB); opset {OPSET}")
    print(f"fastbits {fastbits.__version__} ({fastbits.BACKEND}, {fastbits.get_num_threads()} threads), "
          f"numpy {np.__version__}, onnx {onnx.__version__}" + (
              f", onnxruntime {__import__('onnxruntime').__version__}" if "onnxruntime" in runners else ""))
    print(f"median of {args.repeat} interleaved runs after an untimed one; {os.cpu_count()} CPUs")
    print()
    base = end_to_end["ReferenceEvaluator"]
    width = max(len(name) for name in runners)
    print(f"{'end to end':<{width}}  {'time':>9}  speed-up over ReferenceEvaluator")
    for name, seconds in end_to_end.items():
        print(f"{name:<{width}}  {seconds * 1e3:7.1f} ms  {base / seconds:5.2f}x")
    print()
    columns = list(per_node)
    header = "".join(f"  {name:>{max(len(name), 9)}}" for name in columns)
    print(f"{'per node (ms)':<20}{header}  fastbits' speed-up")
    for node in proto.graph.node:
        label = f"{node.name} ({node.op_type})"
        cells = "".join(
            f"  {per_node[name].get(node.name, float('nan')) * 1e3:>{max(len(name), 9)}.2f}" for name in columns
        )
        ratio = per_node["ReferenceEvaluator"][node.name] / per_node["ReferenceEvaluator + fastbits"][node.name]
        # only BitwiseAnd and BitShift run on fastbits: the other nodes' two columns are alike
        print(f"{label:<20}{cells}" + (f"  {ratio:6.1f}x" if node.op_type in FASTBITS_OPS else ""))


if __name__ == "__main__":
    main()
