"""How the suite times: modes, interleaved samples, medians, the ceilings."""

from __future__ import annotations

import functools
import gc
import math
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

import numpy as np

import fastbits
from fastbits import _cpus

# ---------------------------------------------------------------------------
# Modes

@dataclass(frozen=True)
class Mode:
    name: str
    target: float          # a sample lasts at least this long (seconds), unless one call is longer
    min_reps: int
    max_reps: int
    budget: float          # timing seconds per case, within [min_reps, max_reps]
    ceiling_elems: int     # 8-byte elements per array of the streaming ceiling (out of cache but in quick)
    ceiling_reps: int
    # The cases are timed in this many passes over all of them, each taking its share of a
    # case's rounds, so that a case's rounds are spread over the whole run and its spread holds
    # what the machine did meanwhile: a host's state can hold a case's time on one level for a
    # second or more, and rounds taken back to back would all see the same one (and count as
    # more than one in the spread). Every case's arrays stay alive until the last pass.
    passes: int = 1
    # The passes run in this many fresh processes, each taking an equal run of them
    # (:mod:`.workers`), so that what one process's memory layout does shows in the spread.
    processes: int = 1
    # Implementations checked but not timed (unless one is fastbits' own, as the pure path is
    # on a pure install): the quick suite leaves the pure path's timing, a third of its rounds'
    # time, to the full one.
    untimed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.passes < 1 or self.processes < 1 or self.passes % self.processes:
            raise ValueError(f"bench mode {self.name!r}: {self.passes} passes do not split evenly over "
                             f"{self.processes} processes")

    def for_table(self, ratios: int) -> Mode:
        """The mode for a table of ``ratios`` ratios: at least :func:`min_rounds` of them rounds a
        case, so that every ratio can state its spread; in passes, at least that many, split
        evenly over the processes."""
        need = min_rounds(ratios)
        passes = self.passes
        if passes > 1 and passes < need:
            passes = -(-need // self.processes) * self.processes
        return replace(self, min_reps=max(self.min_reps, need), max_reps=max(self.max_reps, need), passes=passes)

    def share(self) -> Mode:
        """The mode of one pass: its share of the rounds and of the budget."""
        if self.passes == 1:
            return self
        return replace(self, min_reps=math.ceil(self.min_reps / self.passes),
                       max_reps=math.ceil(self.max_reps / self.passes), budget=self.budget / self.passes, passes=1,
                       processes=1)


#: A sample of the full suite lasts at least asv's ``sample_time`` (10 ms), long enough that
#: what a host takes from one (a preemption of a few hundred microseconds) is a small part of
#: it; the quick suite's, a tenth of that, keeps it short.
SAMPLE_TIME = 0.01

MODES = {
    "smoke": Mode("smoke", 2e-5, 2, 2, 0.0, 1 << 18, 2),
    # one round of each case a pass, 25 passes in 25 processes, one each (pyperf takes its
    # values from 20 worker processes): min_rounds of the quick table's
    # ratios (Mode.for_table adds passes to a table that needs more); it times what its table
    # shows and leaves the pure path and the one-thread runs to the full suite
    "quick": Mode("quick", SAMPLE_TIME / 10, 25, 25, 0.0, 1 << 22, 7, passes=25, processes=25,   # 3 x 32 MiB
                  untimed=("fastbits-py", "fastbits-c-1t", "ort-1t")),
    # at least min_rounds of the table's ratios (Mode.for_table), at most 61
    "full": Mode("full", SAMPLE_TIME, 1, 61, 2.0, 1 << 23, 21),      # 3 x 64 MiB
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


def calibrate(fns: dict[str, Callable[[], Any]], mode: Mode) -> dict[str, tuple[int, float]]:
    """Each function's batch (calls per sample, so that a sample lasts ``mode.target``) and its
    time per call, after a warm-up call."""
    out = {}
    for name, fn in fns.items():
        run_before(fn)
        fn()
        one = min(time_once(fn) for _ in range(2))
        if one < mode.target:
            n = max(1, math.ceil(mode.target / max(one, 1e-8)))
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            one = (time.perf_counter() - t0) / n
            out[name] = (max(1, math.ceil(mode.target / max(one, 1e-8))), one)
        else:
            out[name] = (1, one)
    return out


def time_interleaved(fns: dict[str, Callable[[], Any]], mode: Mode,
                     rng: np.random.Generator | None = None,
                     warm_below: float = WARM_CALL_BELOW,
                     calibration: dict[str, tuple[int, float]] | None = None) -> dict[str, dict[str, Any]]:
    """Median and spread of the time per call of each function.

    Every repetition takes one sample of each function, in a fresh random order
    (so that no function always follows the same one: thread pools that spin
    after a call slow down whatever runs next). A function faster than
    :data:`WARM_CALL_BELOW` is called once, untimed, before each of its samples,
    so that its own thread pool is awake and its data in cache whatever ran
    before it: the figures are the speed of back-to-back calls. ``warm_below=0``
    leaves that call out: each sample then follows whatever ran before it.
    ``calibration`` is :func:`calibrate`'s of an earlier pass over the same
    functions (each then gets a warm-up call only); without it, it is measured.

    Each function's ``samples_s`` are in the order taken: sample ``i`` of every
    function comes from repetition ``i``, so that two functions can be compared
    repetition by repetition (:func:`against_ceiling` does).
    """
    names = list(fns)
    rng = rng or np.random.default_rng(0)
    if calibration is None:
        calibration = calibrate(fns, mode)
    else:
        for fn in fns.values():
            run_before(fn)
            fn()
    batch = {name: calibration[name][0] for name in names}
    per_call = {name: calibration[name][1] for name in names}
    round_time = sum(per_call[n] * batch[n] + (per_call[n] if per_call[n] < warm_below else 0) for n in names) or 1e-9
    reps = int(min(mode.max_reps, max(mode.min_reps, mode.budget // round_time)))
    samplers = {name: _batch_sampler(fns[name], batch[name], per_call[name] < warm_below) for name in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        samples = interleave(samplers, reps, rng)
    finally:
        if gc_was_enabled:
            gc.enable()
    return {name: summary([float(f"{x:.4g}") for x in samples[name]], batch[name]) for name in names}


def summary(samples: list[float], batch: int) -> dict[str, Any]:
    """A function's figures from its samples in the order taken (:func:`time_interleaved`)."""
    s = sorted(samples)
    q1, median, q3 = _quantiles(s)
    return {"median_s": median, "q1_s": q1, "q3_s": q3, "min_s": s[0], "max_s": s[-1], "batch": batch,
            "reps": len(samples), "samples_s": samples}


def merged(first: dict[str, dict[str, Any]] | None, then: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Two passes' :func:`time_interleaved` figures as one: each function's samples, the first
    pass's then the next one's (so that sample ``i`` of every function is still from one round)."""
    if first is None:
        return then
    return {name: summary(first[name]["samples_s"] + then[name]["samples_s"], first[name]["batch"]) for name in then}


def _quantiles(s: list[float]) -> tuple[float, float, float]:
    if len(s) < 2:
        return s[0], s[0], s[0]
    q = statistics.quantiles(s, n=4, method="inclusive")
    return q[0], statistics.median(s), q[2]


#: How sure a table's spreads are: another run of as many rounds leaves every ratio of the table
#: inside its spread with at least this probability, if the rounds of both runs are exchangeable.
#: Each of a table's ``m`` ratios takes ``1 - (1 - SPREAD_CONFIDENCE) / m`` (Bonferroni's rule:
#: the chance that some ratio leaves is at most the sum of each one's), so that a steady ratio
#: that moved beyond its spread between two runs is a change, not one of the few that each
#: ratio's own 99 % would let through in a table of hundreds.
SPREAD_CONFIDENCE = 0.99

#: A ratio is unsteady when its spread holds 1.0x, so that the rounds do not settle which side
#: is faster, or reaches further than this fraction of the ratio from it: the rule of thumb of
#: pyperf, which calls a benchmark unstable when its standard deviation passes 10 % of its mean.
UNSTEADY_SPREAD = 0.10


def _outside(n: int, k: int) -> float:
    """An upper bound on the probability that the median of ``n`` rounds falls outside
    ``[x_(k), x_(n+1-k)]``, the k-th smallest and k-th largest of ``n`` other rounds, when all
    ``2n`` are exchangeable. The two runs' rounds, pooled and sorted, are a random arrangement of
    ``n`` of each; ``j`` of the second run's fall below the first run's k-th smallest in
    ``C(k-1+j, j) C(2n-k-j, n-j)`` of the ``C(2n, n)`` arrangements, and its median falls there
    only if ``j`` reaches ``ceil(n/2)`` (for an even ``n`` that is its lower middle one, whence
    the bound); the upper side is the mirror image."""
    below = sum(math.comb(k - 1 + j, j) * math.comb(2 * n - k - j, n - j) for j in range((n + 1) // 2, n + 1))
    return 2 * below / math.comb(2 * n, n)


@functools.lru_cache(maxsize=None)
def spread_rank(n: int, ratios: int = 1) -> int:
    """The largest ``k`` whose interval ``[x_(k), x_(n+1-k)]`` of ``n`` rounds holds another
    run's median with ``1 - (1 - SPREAD_CONFIDENCE) / ratios``, each ratio's share of a table of
    ``ratios`` (:func:`_outside`); 0 when even the whole range of ``n`` rounds does not
    (fewer than :func:`min_rounds`: there are too few to say)."""
    k = 0
    while k < n // 2 and _outside(n, k + 1) * ratios <= 1 - SPREAD_CONFIDENCE:
        k += 1
    return k


@functools.lru_cache(maxsize=None)
def min_rounds(ratios: int = 1) -> int:
    """The fewest rounds whose spread can hold another run's ratio in a table of ``ratios``
    (:func:`spread_rank` of at least 1): 13 for one ratio, 25 for up to 341, 29 for up to 1918."""
    n = 2
    while spread_rank(n, ratios) == 0:
        n += 1
    return n


def table_ratios(cases: int, timed: int) -> int:
    """The ratios a table of ``cases`` cases and ``timed`` implementations timed can state, at
    most: each case's implementations over its baseline (the spreads' family, :func:`spread_rank`)."""
    return max(1, cases * (timed - 1))


def paired_ratio(numerators: list[float], denominators: list[float], ratios: int = 1) -> dict[str, Any] | None:
    """The ratio of two implementations' times, round by round: ``numerators[i] /
    denominators[i]`` for each repetition ``i`` of :func:`time_interleaved` (both sampled in the
    same round, so that the machine's drift hits them alike). Its ``ratio`` is the median over
    the rounds, its ``spread`` the interval of them that another run's ratio falls in, with every
    other ratio of a table of ``ratios``, with :data:`SPREAD_CONFIDENCE` (:func:`spread_rank`;
    all of them when there are too few rounds for that), and ``unsteady`` says that there are too
    few rounds, or that the spread holds 1.0x or reaches further than :data:`UNSTEADY_SPREAD` of
    the ratio from it. None without rounds to pair."""
    if not numerators or len(numerators) != len(denominators) or not all(d > 0 for d in denominators):
        return None
    xs = sorted(n / d for n, d in zip(numerators, denominators))
    ratio = statistics.median(xs)
    k = spread_rank(len(xs), ratios)
    low, high = xs[max(k, 1) - 1], xs[-max(k, 1)]
    return {"ratio": ratio, "spread": [low, high],
            "unsteady": k == 0 or low <= 1.0 <= high or max(ratio - low, high - ratio) > UNSTEADY_SPREAD * ratio}


# ---------------------------------------------------------------------------
# Ceilings

#: A case whose result comes to at least this many bytes is out of cache: fastbits' own
#: ``stream_threshold`` default (a quarter of the last-level cache), from which its loops stream
#: their results.  Its rate is measured against the streaming ceiling, a smaller one's against
#: the cache ceiling.
OUT_OF_CACHE_BYTES = _cpus.default_stream_threshold()
#: A case that moves fewer bytes is bound by its call's fixed costs, not by bandwidth: no ceiling.
CEILING_MIN_BYTES = 256 << 10
#: The note of a BitCast copy that returned a view: it moved no bytes, so no ceiling applies to it.
VIEW_NOTE = "returns a view of its input, not a copy"


def bandwidth_ceiling(mode: Mode, threads: int) -> dict[str, Any]:
    """The machine's limits, measured now: the streaming ceiling out of cache on one thread and on
    ``threads`` threads (``gbps_1_thread``, ``gbps_threads``), and the cache-resident copy (``cache``).

    The streaming ceiling is the kernels' own traffic, two streams read and one written with
    streaming stores, on fastbits' thread team (``fastbits.bitwise_xor`` of uint8, see
    :func:`xor_probe`); without the
    compiled module, a 3-stream ``np.add`` on Python threads stands in (``fallback`` says so).
    This one is measured once, at the start; each case that moves at least
    :data:`OUT_OF_CACHE_BYTES` also times the probe interleaved with its own samples
    (:func:`streaming_probes`), and its rows are measured against that.
    """
    with streaming_probes(8 * mode.ceiling_elems, mode, threads) as (probes, info):
        t1, tT = _ceiling_samples(probes[PROBE_1], probes.get(PROBE_ALL), mode.ceiling_reps)
    gigabytes = info["streams"] * info["array_bytes"] / 1e9
    result = info | {"gbps_1_thread": gigabytes / t1, "gbps_threads": gigabytes / (tT or t1)}
    if info["probe"] != PROBE:
        result["fallback"] = (f"fastbits backend {fastbits.BACKEND}: no compiled kernels, "
                              "np.add over three float64 arrays instead (no streaming stores)")
    result["cache"] = cache_ceiling(mode, threads)
    result["out_of_cache_bytes"] = OUT_OF_CACHE_BYTES
    result["ceiling_min_bytes"] = CEILING_MIN_BYTES
    result["rule"] = (f"a case moving {CEILING_MIN_BYTES >> 10} KiB or more (elements read + written) is measured "
                      "against the kernels' own loop (out = a ^ b) over its own arrays where they are contiguous "
                      "(into its out; where it returns a fresh result, the faster of a fresh result and a warm out), "
                      "else fresh ones of its size, timed interleaved with it, at the threads its implementation "
                      "uses (1, or all: fastbits-c and ort): the streaming ceiling from "
                      f"a result of {OUT_OF_CACHE_BYTES >> 20} MiB (fastbits' stream_threshold), the cache ceiling "
                      "below; "
                      "a smaller one against none (its call's fixed costs, not bandwidth, bound it)")
    return result


def _ceiling_samples(one: Callable[[], Any], parallel: Callable[[], Any] | None,
                     reps: int) -> tuple[float, float | None]:
    """Median seconds of ``one`` and of ``parallel``, interleaved, after a call of each."""
    for fn in (one, parallel) if parallel else (one,):
        run_before(fn)
        fn()
    samples1, samplesT = [], []
    for _ in range(reps):
        run_before(one)
        samples1.append(time_once(one))
        if parallel:
            run_before(parallel)
            samplesT.append(time_once(parallel))
    return statistics.median(samples1), (statistics.median(samplesT) if parallel else None)


#: The names under which the streaming ceiling's calls are timed beside a case's implementations;
#: FRESH marks the calls that return a fresh result, timed beside those that write into ``out``.
PROBE_1, PROBE_ALL, FRESH = "ceiling-1t", "ceiling", "-fresh"
#: What the compiled streaming ceiling runs.
PROBE = "fastbits.bitwise_xor"


def xor_probe(out: np.ndarray | None, a: np.ndarray, b: np.ndarray | int, threads: int) -> Callable[[], Any]:
    """A call of ``out = a ^ b`` over flat uint8 arrays (``b`` an int: one input stream, as a
    unary case or one with a scalar reads; ``out`` None: a fresh result) through fastbits' public
    loop, whose ``before`` sets ``threads`` outside the timed calls, as fastbits' implementations
    do (:func:`run_before`): the grain rule and ``stream_threshold`` decide as for any call, so
    over a case's own arrays the loop streams, and shares its work, as the case's own call does."""
    fn = (lambda: fastbits.bitwise_xor(a, b)) if out is None else (lambda: fastbits.bitwise_xor(a, b, out=out))
    fn.before = lambda: fastbits.set_num_threads(threads)  # type: ignore[attr-defined]
    return fn


@contextmanager
def streaming_probes(array_bytes: int, mode: Mode, threads: int, inputs: int = 2, compiled: bool | None = None,
                     own: tuple[np.ndarray | None, np.ndarray, np.ndarray] | None = None, fresh: bool = False
                     ) -> Iterator[tuple[dict[str, Callable[[], Any]], dict[str, Any]]]:
    """Calls of a case's ceiling (streaming out of cache, the cache ceiling in it: the kernels'
    own loop decides, as for any call) that read ``inputs`` (1 or 2) arrays and write one, each of
    ``array_bytes`` bytes (rounded down to 64 bytes, at most the mode's ceiling arrays):
    ``{PROBE_1: one thread, PROBE_ALL: threads}`` (no PROBE_ALL for one thread), and what they
    are (``method``, ``probe``, ``array_bytes``, ``streams``: arrays moved, ``threads``,
    ``arrays``: "the case's" or "fresh").  With ``fresh`` (a case that returns a fresh result),
    each also has a ``FRESH`` twin that returns one: the ceiling is the faster of the two
    (:func:`measured_ceiling`), so it neither pays for an allocation that another implementation
    avoids nor writes into warm memory that the case's own result cannot have.

    With the compiled module (``compiled`` None: when it is the backend) the calls are
    :func:`xor_probe`, the kernels' own loop on fastbits' thread team (one input: ``b`` is
    ``a``, read once), over ``own`` (flat uint8 arrays ``(out, a, b)`` of a case, whatever their
    size, ``out`` None where the case returns a fresh result: the ceiling then moves the very
    memory the case does) or fresh arrays; without it ``np.add`` over fresh float64 arrays, on
    Python threads.  The thread count is put back on exit.
    """
    if compiled is None:
        compiled = fastbits.BACKEND == "cython"
    if inputs not in (1, 2):
        raise ValueError(f"streaming_probes: inputs must be 1 or 2, not {inputs!r}")
    own = own if compiled else None
    nbytes = own[1].nbytes if own else max(64, min(array_bytes, 8 * mode.ceiling_elems) // 64 * 64)
    info: dict[str, Any] = {"array_bytes": nbytes, "elements": nbytes, "streams": inputs + 1, "threads": threads,
                            "arrays": "the case's" if own else "fresh"}
    reads = "a, b" if inputs == 2 else "a (b a constant)"
    pool = None
    threads_before = fastbits.get_num_threads()
    if compiled:
        if own:
            out, a, b = own
        else:
            a = np.full(nbytes, 0x5A, np.uint8)
            b = np.full(nbytes, 0xC3, np.uint8) if inputs == 2 else a
            out = None
        if out is None:
            out = np.zeros(nbytes, np.uint8)
        if b is a:  # one input: a ^ a would load it twice, a ^ constant once, as the case does
            b = 0xC3
        probes = {PROBE_1: xor_probe(out, a, b, 1)}
        if threads > 1:
            probes[PROBE_ALL] = xor_probe(out, a, b, threads)
        if fresh:
            probes |= {name + FRESH: xor_probe(None, a, b, 1 if name == PROBE_1 else threads) for name in list(probes)}
        info |= {"method": f"{PROBE}(a, b, out=out) of uint8: out = a ^ b with streaming stores on fastbits' "
                           f"thread team, bytes = {inputs + 1} arrays (reads {reads}; writes out"
                           + ("; or a fresh result, whichever is faster" if fresh else "") + ")",
                 "probe": PROBE}
    else:
        n = nbytes // 8
        a, c = np.full(n, 1.0), np.zeros(n)
        b = np.full(n, 2.0) if inputs == 2 else a
        probes = {PROBE_1: lambda: np.add(a, b, out=c)}
        if threads > 1:
            chunks = [slice(i * n // threads, (i + 1) * n // threads) for i in range(threads)]
            pool = ThreadPoolExecutor(threads)

            def parallel():
                for f in [pool.submit(np.add, a[s], b[s], out=c[s]) for s in chunks]:
                    f.result()

            probes[PROBE_ALL] = parallel
        info |= {"method": f"np.add(a, b, out=c), float64, bytes = {inputs + 1} arrays (reads {reads}; writes c)",
                 "probe": "np.add", "elements": n}
    try:
        yield probes, info
    finally:
        fastbits.set_num_threads(threads_before)
        if pool:
            pool.shutdown()


def measured_ceiling(info: dict[str, Any], stats: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The streaming ceiling of one case from its probes' timings (:func:`time_interleaved`'s
    ``stats``, which holds PROBE_1 and, with threads, PROBE_ALL, each with its FRESH twin where
    the case returns a fresh result): GB/s from the medians, and the samples by repetition
    (of a twin pair, the faster of the two in each), against which :func:`against_ceiling`
    pairs the case's."""
    gigabytes = info["streams"] * info["array_bytes"] / 1e9

    def samples(name: str) -> list[float]:
        name = name if name in stats else PROBE_1
        twin = stats.get(name + FRESH)
        return [min(x, y) for x, y in zip(stats[name]["samples_s"], twin["samples_s"])] if twin else stats[name]["samples_s"]

    one, every = samples(PROBE_1), samples(PROBE_ALL)
    return {"probe": info["probe"], "array_bytes": info["array_bytes"], "streams": info["streams"],
            "arrays": info["arrays"], "threads": info["threads"], "gigabytes": gigabytes,
            "gbps_1_thread": gigabytes / statistics.median(one), "gbps_threads": gigabytes / statistics.median(every),
            "reps": stats[PROBE_1]["reps"], "samples_1_thread_s": one, "samples_threads_s": every}


def _l2_bytes() -> int | None:
    """The size of the first CPU's level-2 cache, from Linux's sysfs, or None."""
    import glob

    for index in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        try:
            with open(f"{index}/level") as f:
                level = f.read().strip()
            with open(f"{index}/size") as f:
                size = f.read().strip()
        except OSError:
            continue
        if level == "2" and size[:-1].isdigit():
            return int(size[:-1]) << {"K": 10, "M": 20}.get(size[-1], 0)
    return None


def cache_ceiling(mode: Mode, threads: int) -> dict[str, Any]:
    """GB/s (read + written) of the kernels' own loop on warm arrays in the L2 cache, on one thread
    and on ``threads`` (``gbps_1_thread``, ``gbps_threads``): ``fastbits.bitwise_xor`` of uint8
    into ``out``, without streaming stores, each thread's share of the three arrays a quarter
    of its L2 each (32..256 KiB; 64 KiB when the size is unknown).  Without the compiled module,
    ``np.copyto`` on one thread stands in for both."""
    l2 = _l2_bytes()
    share = min(256 << 10, max(32 << 10, l2 // 4)) if l2 else 64 << 10
    calls = max(8, (8 << 20) // share)    # a sample moves some 8 MiB a thread
    compiled = fastbits.BACKEND == "cython"

    def batch(t):
        a = np.full(share * t, 0x5A, np.uint8)
        b = np.full(share * t, 0xC3, np.uint8)
        out = np.zeros(share * t, np.uint8)
        if not compiled:
            def run():
                for _ in range(calls):
                    np.copyto(out, a)
            return run

        def run():
            with fastbits.config_context(num_threads=t, stream_threshold=1 << 62, grain_cached=share):
                for _ in range(calls):
                    fastbits.bitwise_xor(a, b, out=out)
        return run

    streams = 3 if compiled else 2
    threads = threads if compiled else 1
    t1, tT = _ceiling_samples(batch(1), batch(threads) if threads > 1 else None, max(mode.ceiling_reps, 5))
    method = (f"{PROBE}(a, b, out=out) of warm uint8 arrays in the L2 cache, {share >> 10} KiB each a thread, "
              "no streaming stores, bytes = 3 arrays" if compiled else
              "np.copyto(dst, src) of warm uint8 arrays in the L2 cache, 1 thread, bytes = 2 arrays")
    return {"method": method, "array_bytes": share, "l2_bytes": l2, "threads": threads,
            "gbps_1_thread": streams * share * calls / t1 / 1e9,
            "gbps_threads": streams * share * threads * calls / (tT or t1) / 1e9}


def against_ceiling(record: dict[str, Any], ceiling: dict[str, Any], threads_of: dict[str, int | None]) -> None:
    """Say in a case's ``record`` which ceiling it is measured against (``ceiling``: "streaming"
    for a result (``written``) of :data:`OUT_OF_CACHE_BYTES` or more, "cache" below that, or None
    for a case that moves (``bytes``) less than :data:`CEILING_MIN_BYTES`), and give each
    timed result the ceiling's GB/s and its percentage of it (not a BitCast copy that returned a
    view, :data:`VIEW_NOTE`: it moved nothing). ``threads_of`` maps an implementation to its
    threads (None: all).

    The ceiling is the record's own (``own_ceiling``: the kernels' loop over the case's arrays,
    timed interleaved with the case) when it has one, else the run's.  Against its own, a
    result's percentage is the median over repetitions of its GB/s over the ceiling's in the
    same repetition (the GB/s columns are of the medians)."""
    nbytes = record["bytes"]
    record["ceiling"] = (None if nbytes < CEILING_MIN_BYTES else
                         "streaming" if record["written"] >= ceiling["out_of_cache_bytes"] else "cache")
    own = record.get("own_ceiling")
    run = ceiling["cache"] if record["ceiling"] == "cache" else ceiling
    limits = own or run
    for name, res in record["results"].items():
        if res["status"] != "ok" or not res.get("gbps") or record["ceiling"] is None or res.get("note") == VIEW_NOTE:
            continue
        one = threads_of.get(name, 1) == 1
        threads = 1 if one else limits["threads"]
        gbps = limits["gbps_1_thread"] if one else limits["gbps_threads"]
        label = f"{record['ceiling']}, {threads} thread{'s' if threads > 1 else ''}"
        probe_samples = own and own["samples_1_thread_s" if one else "samples_threads_s"]
        if probe_samples and len(probe_samples) == len(res.get("samples_s", ())):
            # repetition by repetition: the machine's drift hits a sample and its ceiling alike
            percent = statistics.median(100 * (nbytes / t) / (own["gigabytes"] * 1e9 / p)
                                        for t, p in zip(res["samples_s"], probe_samples))
        else:
            percent = 100 * res["gbps"] / gbps
        res.update(ceiling=label, ceiling_gbps=gbps, percent_of_ceiling=percent)
