"""Two builds of fastbits, one harness: the same calls, timed alike in each.

Run it when a change may cost the small calls something (the entry points, the engine's
planning, the runtime's per-call work): the suite's own figures come from each checkout's own
harness, so a difference between two checkouts' tables may come from the harnesses. This
script times the same calls (``fastbits._ops_c.bitwise_and`` and ``bitcast``, the API every
build has had) the same way in each build: every round runs each checkout in a fresh subprocess, in alternating
order, and each case there is the median of 15 samples of back-to-back calls (a batch of
about 2 ms each, after one untimed call). It prints, per case, the median over the rounds of
each build's time and the ratio new / old, with the ratio of every round.

Usage::

    python benchmarks/compare_builds.py OLD_CHECKOUT NEW_CHECKOUT [--rounds 5]

Each checkout must have its compiled modules built in place (``python setup.py build_ext
--inplace``; an old commit can be checked out with ``git worktree add /tmp/old COMMIT``).
A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SAMPLES = 15
BATCH_SECONDS = 2e-3


def cases():
    """(label, call) of BitwiseAnd and BitCast calls from 16 elements to 64 MiB, in every layout
    the engine plans, written against the API every build has had."""
    import numpy as np
    from fastbits import _ops_c as fb

    rng = np.random.default_rng(0)

    def ints(shape, dtype=np.int32):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)

    big, side = 1 << 24, 4096
    a16, b16, o16 = ints(16), ints(16), np.empty(16, np.int32)
    a4k, b4k = ints(4096), ints(4096)
    x345, y5 = ints((3, 4, 5), np.uint64), ints(5, np.uint64)
    abig, bbig, obig = ints(big), ints(big), np.empty(big, np.int32)
    m5, r5 = ints((big // 16, 5)), ints(5)
    M, M2 = ints((side, side)), ints((side, side))
    col, row, zero = ints((side, 1)), ints((1, side)), np.array(ints(()))
    f16, f_big, swapped = a16.view(np.float32), abig.view(np.float32), abig.astype(">i4")
    AND = fb.bitwise_and
    return [
        ("16 x int32", lambda: AND(a16, b16)),
        ("16 x int32, out=", lambda: AND(a16, b16, out=o16)),
        ("4096 x int32", lambda: AND(a4k, b4k)),
        ("(3,4,5) uint64 & (5,)", lambda: AND(x345, y5)),
        ("16M int32, out=", lambda: AND(abig, bbig, out=obig)),
        ("16M int32, fresh", lambda: AND(abig, bbig)),
        ("(1024K,5) & (5,) int32", lambda: AND(m5, r5)),
        ("(4096,4096) & (4096,1) int32", lambda: AND(M, col)),
        ("(4096,4096) & (1,4096) int32", lambda: AND(M, row)),
        ("(4096,4096) & 0-d int32", lambda: AND(M, zero)),
        ("(4096,4096)[:, ::2] & [:, 1::2] int32", lambda: AND(M[:, ::2], M2[:, 1::2])),
        ("(4096,4096).T & (4096,4096) int32", lambda: AND(M.T, M2)),
        ("bitcast view, 16 x float32", lambda: fb.bitcast(f16, 6)),
        ("bitcast copy=True, 16M float32", lambda: fb.bitcast(f_big, 6, copy=True)),
        ("bitcast copy=True, (4096,4096).T int32", lambda: fb.bitcast(M.T, 1, copy=True)),
        ("bitcast byte swap, 16M >i4", lambda: fb.bitcast(swapped, 6)),
    ]


def measure() -> dict[str, float]:
    """Seconds per call of every case in this process's fastbits (median of SAMPLES)."""
    result = {}
    for label, call in cases():
        call()
        t0 = time.perf_counter()
        call()
        one = time.perf_counter() - t0
        batch = max(1, int(BATCH_SECONDS / max(one, 1e-9)))
        samples = []
        for _ in range(SAMPLES):
            t0 = time.perf_counter()
            for _ in range(batch):
                call()
            samples.append((time.perf_counter() - t0) / batch)
        result[label] = statistics.median(samples)
    return result


def package_root(checkout: str) -> str:
    """The directory that holds a checkout's ``fastbits``: ``src/`` (the src layout), or the
    checkout itself (older commits)."""
    src = os.path.join(checkout, "src")
    return src if os.path.isdir(os.path.join(src, "fastbits")) else checkout


def run_in(checkout: str) -> dict[str, float]:
    code = (f"import sys; sys.path.insert(0, {package_root(checkout)!r}); sys.path.insert(0, {sys.path[0]!r})\n"
            "import json, compare_builds; print(json.dumps(compare_builds.measure()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fmt(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the older checkout (its modules built in place)")
    parser.add_argument("new", help="the newer checkout")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each running both (default 5)")
    args = parser.parse_args(argv)
    rounds = {"old": [], "new": []}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for which in order:
            rounds[which].append(run_in(getattr(args, which)))
        print(f"  round {r + 1} of {args.rounds} done", file=sys.stderr)
    print(f"| case | old | new | new / old | per round |\n|---|---:|---:|---:|---|")
    for label in rounds["new"][0]:
        old = [x[label] for x in rounds["old"]]
        new = [x[label] for x in rounds["new"]]
        per_round = " ".join(f"{n / o:.2f}" for o, n in zip(old, new))
        o, n = statistics.median(old), statistics.median(new)
        print(f"| {label} | {fmt(o)} | {fmt(n)} | {n / o:.2f} | {per_round} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
