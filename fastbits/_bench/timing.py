"""How the suite times: modes, interleaved samples, medians, the bandwidth ceiling."""

from __future__ import annotations

import gc
import math
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# ---------------------------------------------------------------------------
# Modes

@dataclass(frozen=True)
class Mode:
    name: str
    target: float          # a sample lasts at least this long (seconds), unless one call is longer
    min_reps: int
    max_reps: int
    budget: float          # timing seconds per case, within [min_reps, max_reps]
    ceiling_elems: int     # float64 elements per array of the bandwidth ceiling
    ceiling_reps: int


MODES = {
    "smoke": Mode("smoke", 2e-5, 2, 2, 0.0, 1 << 18, 2),
    "quick": Mode("quick", 2e-4, 5, 25, 0.06, 1 << 23, 7),
    "full": Mode("full", 5e-4, 11, 61, 2.0, 1 << 25, 21),
}


# ---------------------------------------------------------------------------
# Samples

def time_once(fn: Callable[[], Any]) -> float:
    """Seconds of one call of ``fn``."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run_before(fn: Callable[[], Any]) -> None:
    """Run ``fn.before``, if ``fn`` has one: what a sample needs first, outside the timed calls."""
    hook = getattr(fn, "before", None)
    if hook is not None:
        hook()


def interleave(samplers: dict[str, Callable[[], float]], reps: int,
               rng: np.random.Generator) -> dict[str, list[float]]:
    """``reps`` samples of each sampler, a call that returns the seconds it measured.

    Every repetition takes one sample of each, in a fresh random order, so that
    no sampler always follows the same one and drift in the machine's load
    hits all of them alike.
    """
    names = list(samplers)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(reps):
        for i in rng.permutation(len(names)):
            name = names[i]
            samples[name].append(samplers[name]())
    return samples


#: Calls shorter than this get an untimed call before each sample (see time_interleaved).
WARM_CALL_BELOW = 0.01


def _batch_sampler(fn: Callable[[], Any], n: int, warm: bool) -> Callable[[], float]:
    def sample() -> float:
        run_before(fn)
        if warm:
            fn()    # untimed: thread pools awake and caches warm, whatever ran before
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t0) / n

    return sample


def time_interleaved(fns: dict[str, Callable[[], Any]], mode: Mode,
                     rng: np.random.Generator | None = None,
                     warm_below: float = WARM_CALL_BELOW) -> dict[str, dict[str, Any]]:
    """Median and spread of the time per call of each function.

    Every repetition takes one sample of each function, in a fresh random order
    (so that no function always follows the same one: thread pools that spin
    after a call slow down whatever runs next). A function faster than
    :data:`WARM_CALL_BELOW` is called once, untimed, before each of its samples,
    so that its own thread pool is awake and its data in cache whatever ran
    before it: the figures are the speed of back-to-back calls. ``warm_below=0``
    leaves that call out: each sample then follows whatever ran before it.
    """
    names = list(fns)
    rng = rng or np.random.default_rng(0)
    batch, per_sample, per_call = {}, {}, {}
    for name in names:                     # warm-up, and the batch size
        fn = fns[name]
        run_before(fn)
        fn()
        one = min(time_once(fn) for _ in range(2))
        if one < mode.target:
            n = max(1, math.ceil(mode.target / max(one, 1e-8)))
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            one = (time.perf_counter() - t0) / n
            batch[name] = max(1, math.ceil(mode.target / max(one, 1e-8)))
        else:
            batch[name] = 1
        per_call[name] = one
        per_sample[name] = one * batch[name]
    round_time = sum(per_sample[n] + (per_call[n] if per_call[n] < warm_below else 0) for n in names) or 1e-9
    reps = int(min(mode.max_reps, max(mode.min_reps, mode.budget // round_time)))
    samplers = {name: _batch_sampler(fns[name], batch[name], per_call[name] < warm_below) for name in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        samples = interleave(samplers, reps, rng)
    finally:
        if gc_was_enabled:
            gc.enable()
    stats = {}
    for name in names:
        s = sorted(samples[name])
        q1, median, q3 = _quantiles(s)
        stats[name] = {
            "median_s": median, "q1_s": q1, "q3_s": q3, "min_s": s[0], "max_s": s[-1],
            "batch": batch[name], "reps": reps, "samples_s": [float(f"{x:.4g}") for x in s],
        }
    return stats


def _quantiles(s: list[float]) -> tuple[float, float, float]:
    if len(s) < 2:
        return s[0], s[0], s[0]
    q = statistics.quantiles(s, n=4, method="inclusive")
    return q[0], statistics.median(s), q[2]


# ---------------------------------------------------------------------------
# Bandwidth ceiling

def bandwidth_ceiling(mode: Mode, threads: int) -> dict[str, Any]:
    """GB/s of np.add(a, b, out=c) on float64 arrays, one thread and ``threads`` threads."""
    n = mode.ceiling_elems
    a = np.full(n, 1.0)
    b = np.full(n, 2.0)
    c = np.zeros(n)
    nbytes = 3 * a.nbytes

    def one():
        np.add(a, b, out=c)

    chunks = [slice(i * n // threads, (i + 1) * n // threads) for i in range(threads)]
    pool = ThreadPoolExecutor(threads) if threads > 1 else None

    def parallel():
        futures = [pool.submit(np.add, a[s], b[s], out=c[s]) for s in chunks]
        for f in futures:
            f.result()

    result = {"method": "np.add(a, b, out=c), float64, bytes = 3 arrays (reads a, b; writes c)",
              "array_bytes": a.nbytes, "elements": n, "threads": threads}
    try:
        samples1, samplesT = [], []
        one()
        if pool:
            parallel()
        for _ in range(mode.ceiling_reps):
            samples1.append(time_once(one))
            if pool:
                samplesT.append(time_once(parallel))
        result["gbps_1_thread"] = nbytes / statistics.median(samples1) / 1e9
        result["gbps_threads"] = (nbytes / statistics.median(samplesT) / 1e9) if pool else result["gbps_1_thread"]
    finally:
        if pool:
            pool.shutdown()
    return result


# ---------------------------------------------------------------------------
# The compiled module's private hooks: the benchmarks reach them here and
# nowhere else, so that a public configuration API can replace them in one spot.
