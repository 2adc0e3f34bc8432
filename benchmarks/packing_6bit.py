"""fastbits' pack and unpack of a 6-bit float against onnx's numpy_helper and np.copy.

The two bars of the 6-bit packed layout: pack and unpack of ``--n`` FLOAT6E2M3 (or
FLOAT6E3M2) values against ``onnx.numpy_helper._pack_6bit`` / ``_unpack_6bit`` (onnx 1.23's,
which ``from_array`` and ``to_array`` run), and unpack against ``np.copy`` of the array it
returns (the same bytes written, read from one byte per value).  Each pair is timed by itself,
``--rounds`` rounds of the other's call then fastbits' (as benchmarks/interleaved.py does); the
figures are the medians.  Each side's last result is kept until its next call, as a loop
``out = f(x)`` keeps it.  Run it on a machine that runs nothing else.  Results of a few MiB come
from malloc (below the output pool's threshold): a call whose memory the allocator has just
handed back to the system pays its page faults, which can double a pack's time; the last column
counts fastbits' calls that met them.

    python benchmarks/packing_6bit.py [--n 4194304] [--rounds 61] [--to FLOAT6E3M2] [--threads 1]

Prints each pair's medians and their ratio (the other's time over fastbits': above 1 is faster).
"""

from __future__ import annotations

import argparse
import statistics
import time

try:
    import resource  # the page faults a call met (Unix)
except ImportError:
    resource = None

import numpy as np

import fastbits
from fastbits import spec


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4 << 20)
    parser.add_argument("--rounds", type=int, default=61)
    parser.add_argument("--to", default="FLOAT6E2M3", choices=["FLOAT6E2M3", "FLOAT6E3M2"])
    parser.add_argument("--threads", type=int, default=None, help="fastbits' threads (default: its own)")
    args = parser.parse_args(argv)
    from onnx import numpy_helper

    code = spec.DataType[args.to]
    raw = np.random.default_rng(0).integers(0, 64, args.n, dtype=np.uint8)
    x = raw.view(spec.numpy_dtype(code))
    packed = fastbits.pack(x)
    unpacked = fastbits.unpack(packed, code, x.shape)
    assert packed.tobytes() == numpy_helper._pack_6bit(raw).tobytes()
    assert unpacked.view(np.uint8).tobytes() == numpy_helper._unpack_6bit(packed, x.shape).tobytes()
    pack = lambda: fastbits.pack(x)  # noqa: E731
    unpack = lambda: fastbits.unpack(packed, code, x.shape)  # noqa: E731
    pairs = {
        "pack": (pack, lambda: numpy_helper._pack_6bit(raw), "numpy_helper._pack_6bit"),
        "unpack": (unpack, lambda: numpy_helper._unpack_6bit(packed, x.shape), "numpy_helper._unpack_6bit"),
        "unpack ": (unpack, lambda: np.copy(unpacked), "np.copy of unpack's result"),
    }
    clock = time.perf_counter
    faults = (lambda: resource.getrusage(resource.RUSAGE_SELF).ru_minflt) if resource else (lambda: 0)
    median = {}
    with fastbits.config_context(num_threads=args.threads or fastbits.get_num_threads()):
        threads = fastbits.get_num_threads()
        for name, (ours, theirs, their_name) in pairs.items():
            times: tuple[list[float], list[float]] = ([], [])
            kept: list[object] = [None, None]  # each side's last result, as a loop's `out = f(x)`
            faulted = 0  # fastbits' calls that met fresh pages
            for _ in range(args.rounds):
                for side, call in ((1, theirs), (0, ours)):  # the other's call, then fastbits'
                    before = faults()
                    start = clock()
                    kept[side] = call()
                    times[side].append(clock() - start)
                    faulted += side == 0 and faults() - before > 64
            median[name] = (statistics.median(times[0]), statistics.median(times[1]), their_name, faulted)
    print(f"{args.to}, n={args.n}, {args.rounds} interleaved rounds a pair, fastbits on {threads} thread(s); "
          f"medians:")
    for name, (ours, theirs, their_name, faulted) in median.items():
        print(f"  fastbits.{name.strip():6s} {ours * 1e3:7.3f} ms   {their_name:26s} {theirs * 1e3:7.3f} ms   "
              f"{theirs / ours:5.2f}x   (fresh pages in {faulted} of fastbits' {args.rounds} calls)")

if __name__ == "__main__":
    main()
