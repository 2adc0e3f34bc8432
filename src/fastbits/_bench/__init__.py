"""The benchmark suite behind ``python -m fastbits bench``.

fastbits' BitwiseAnd, its siblings (BitwiseOr, BitwiseXor, BitwiseNot, BitShift),
BitCast, Cast, QuantizeLinear, DequantizeLinear and the packed layout side by side
with numpy, onnxruntime and the onnx reference evaluator, in one process; and a
quantized model (a MatMul by a blocked int4 weight), its construction and one run,
in onnx's reference evaluator alone and in fastbits' subclass of it
(``fastbits.onnx_ops.ReferenceEvaluator``), tabled apart (numpy has no column there):

* every case first runs each implementation once and compares its result with
  numpy's, byte for byte; an implementation that differs is reported as
  ``wrong`` and not timed;
* after a warm-up, the implementations are timed interleaved: every
  repetition takes one sample of each, in a fresh random order; a sample is a
  batch of calls that takes at least ``Mode.target`` seconds (10 ms in the
  full suite, asv's sample time, a tenth of that in the quick one), or one
  call for big arrays, preceded by one untimed call when calls are short (so
  that each is measured warm, its thread pool awake, whatever ran before it);
  a case takes at least the rounds its table's spreads need
  (``timing.min_rounds``, ``Mode.for_table``); the figures are the median time per
  call, its interquartile range and min..max, the ratios numpy/impl and
  impl/fastbits, and the bytes of the elements read and written per second;
* fastbits compiled runs at its configured thread count (``--threads``) and,
  when that is more than one, also at one thread (``fastbits-c-1t``), the fair
  match for numpy and ``ort-1t``; the quick suite checks those and the pure
  path but times only what its table shows;
* the ceilings are measured in the same run: the streaming ceiling, the
  kernels' own traffic out of cache (``fastbits.bitwise_xor`` of uint8:
  ``out = a ^ b`` with streaming stores, two streams read and one written,
  on one thread and on fastbits' threads; without the compiled module a
  3-stream ``np.add`` stands in, and the header says so), and the cache
  ceiling (the same loop without streaming stores on warm arrays in each
  thread's L2 cache, on one thread and on fastbits' threads), both for the
  header. A case that moves :data:`~.timing.CEILING_MIN_BYTES` (256 KiB,
  elements read + written) or more also times that loop over its own arrays
  (as many read streams as the case reads, 1 or 2, and one written: its
  ``out``, or a fresh result where the case returns one; fresh arrays of its
  size where its own are not contiguous), interleaved with its
  implementations' samples, on one thread and on all, and its rows are
  measured against it, repetition by repetition, at each implementation's
  threads: the loop streams its result, and so is the streaming ceiling,
  where the case's result is as large as fastbits' ``stream_threshold``
  default (:data:`~.timing.OUT_OF_CACHE_BYTES`), and is the cache ceiling
  below. A
  smaller case has no ceiling, its call's fixed costs bounding it. A row
  over 100 % of its ceiling is marked, and a note below the table says why:
  it ran faster than the loop timed as its limit, so for that case the
  ceiling is no upper bound;
* the quick suite checks every case, then times them in 25 passes over
  them all (``Mode.passes``), each taking one round of every case, so
  that a case's rounds are spread over the whole run and not taken back to
  back; each pass runs in a fresh process of its own (``Mode.processes``,
  ``.workers``), as pyperf takes its values from 20 worker processes, and
  each process measures its own batch sizes (so that no figure of one
  process holds for the whole run);
* every ratio over numpy is the median of the rounds' ratios (each round
  times both alike), with its spread: the rounds' ratios from the k-th
  smallest to the k-th largest, k the largest that holds another run's
  median ratio, every ratio of the table at once, with 99 % confidence
  (Bonferroni's rule: each of the table's m ratios with 1 % / m;
  ``timing.spread_rank``); a ratio whose
  spread holds 1x or reaches more than 10 % from it is marked unsteady
  (``~``) in the table and hatched in the chart; a last line says how busy
  the machine was while the cases ran: the cores other processes kept busy,
  and what a hypervisor took.

The default output is one table, a row a case; ``--verbose`` adds every
implementation's figures (median, spread, GB/s) case by case.

Nothing here is imported by ``import fastbits``; onnx, onnxruntime and
matplotlib are imported only when the suite runs.

One concern a module: :mod:`.cases` (what is timed), :mod:`.timing`
(interleaved samples, medians, the ceilings), :mod:`.impls` (the
implementations compared), :mod:`.ort` (the one builder of onnx models and
onnxruntime sessions), :mod:`.run` (one case: checked, then timed),
:mod:`.report` (metadata, table, JSON) and :mod:`.plot` (the chart); this
module is the command line.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time

import fastbits

from .cases import Case, select
from .impls import fastbits_name, implementations
from .plot import save_chart
from .report import cpu_times, dumps, header_lines, load_during, metadata_dict, table_lines
from .run import CaseRun, run_case, times
from .timing import MODES, Mode, against_ceiling, bandwidth_ceiling, table_ratios
from .workers import case_rng, time_passes


class _Progress:
    """Where the suite is, on stderr: one line rewritten in place on a terminal; elsewhere (a log, a
    pipe) nothing until the closing "done in" line, as pip and pytest print progress."""

    def __init__(self, total: int, stream=None):
        self.total, self.stream = total, stream or sys.stderr
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.start = time.perf_counter()

    def show(self, i: int, text: str) -> None:
        if self.tty:
            line = f"[{i}/{self.total} {time.perf_counter() - self.start:5.1f}s] {text}"
            self.stream.write("\r\033[K" + line[:120])
            self.stream.flush()

    def clear(self) -> None:
        """Erase the line in place, so that what is printed next starts on a clean line."""
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def done(self) -> None:
        self.clear()
        self.stream.write(f"done in {time.perf_counter() - self.start:.1f}s\n")
        self.stream.flush()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m fastbits bench",
        description="Time fastbits' BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, BitShift, BitCast, Cast, "
                    "QuantizeLinear, DequantizeLinear, MatMulInteger, QLinearMatMul, DynamicQuantizeLinear and "
                    "packing against numpy (Cast: numpy's or ml_dtypes' astype; the quantizers: the numpy formula; "
                    "MatMulInteger and QLinearMatMul: a float64 matmul), onnxruntime and the onnx reference evaluator "
                    "(alone, and with fastbits' operators), interleaved in one process, after checking that "
                    "every result equals numpy's bit for bit, and an int4 model's construction and one run in "
                    "onnx's evaluator and fastbits' subclass; each rate as a "
                    "percentage of the machine's ceilings, measured in the same run. Quick by default "
                    "(about 90 s on an idle 2-core machine, longer under load); --full for the whole suite.",
    )
    p.add_argument("--full", action="store_true", help="the whole suite (arrays up to 64M elements; minutes)")
    p.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)  # one tiny case per group, 2 reps
    p.add_argument("--json", metavar="PATH", help="write the raw figures and the metadata as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a PNG chart of the speed-ups over numpy (needs matplotlib)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="threads of fastbits' compiled kernels and of the all-threads streaming ceiling "
                        "(default: fastbits.get_num_threads())")
    p.add_argument("--filter", metavar="SUBSTRING", help="run only the cases whose group or name contains it")
    p.add_argument("--verbose", action="store_true",
                   help="every implementation's figures case by case, the implementations and the ceilings' rule")
    args = p.parse_args(argv)
    if args.full and args.smoke:
        p.error("--full and --smoke exclude each other")
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the suite; print the table; return 1 if fastbits differs from numpy anywhere."""
    args = parse_args(argv)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("--plot needs matplotlib: pip install 'fastbits[bench]' (or pip install matplotlib)",
                  file=sys.stderr)
            return 2
    mode = MODES["full" if args.full else "smoke" if args.smoke else "quick"]
    chosen = select(mode.name, args.filter)
    if args.smoke:   # one case per group
        seen: set[str] = set()
        chosen = [c for c in chosen if not (c.group in seen or seen.add(c.group))]
    if not chosen:
        print(f"no case matches --filter {args.filter!r}", file=sys.stderr)
        return 2
    threads_before = fastbits.get_num_threads()
    try:
        if args.threads is not None:
            fastbits.set_num_threads(args.threads)
        return _run(args, mode, chosen)
    finally:
        fastbits.set_num_threads(threads_before)


def _run(args: argparse.Namespace, mode: Mode, chosen: list[Case]) -> int:
    threads = fastbits.get_num_threads()    # what the kernels will use (1 when built without threads)
    progress = _Progress(len(chosen) + 2)
    progress.show(0, "loading onnx and onnxruntime")
    impls = implementations(threads)
    # the spreads' family: every ratio the table can state (timing.spread_rank), and enough
    # rounds for each to state its spread (the smoke suite only checks that everything runs)
    ratios = table_ratios(len(chosen), sum(i.available and times(mode, i) for i in impls))
    if not args.smoke:
        mode = mode.for_table(ratios)
    meta = metadata_dict(mode, threads, ratios)
    progress.show(1, "measuring the memory-bandwidth ceilings")
    ceiling = bandwidth_ceiling(mode, args.threads or threads)
    progress.clear()    # on a terminal the header would otherwise follow the progress line
    for line in header_lines(meta, ceiling, args.verbose):
        print(line)
    absent = [i for i in impls if not i.available]
    if args.verbose:
        for impl in impls:
            print(f"  {impl.name:<14} {impl.description}" + ("" if impl.available else f"  [absent: {impl.reason}]"))
    print(flush=True)

    before = cpu_times()
    if mode.passes == 1:
        results = []
        for k, case in enumerate(chosen):
            progress.show(k + 2, case.name)
            results.append(run_case(case, impls, mode, case_rng(k), ceiling["threads"], ratios))
            fastbits.set_num_threads(threads)   # whatever fastbits-c-1t set last
            gc.collect()
    else:   # every case built and checked here, then timed in passes over them all, in fresh
        # processes (timing.Mode.passes and .processes, .workers)
        runs = []
        for k, case in enumerate(chosen):
            progress.show(k + 2, f"{case.name} (checking)")
            runs.append(CaseRun(case, impls, case_rng(k), mode, ceiling["threads"]))
            fastbits.set_num_threads(threads)
        def show(one: int, k: int, name: str) -> None:
            progress.show(k + 2, f"{name} (pass {one + 1} of {mode.passes})")
        per = mode.passes // mode.processes
        for worker in range(mode.processes):
            passes = range(worker * per, (worker + 1) * per)
            for run, timed in zip(runs, time_passes(chosen, runs, mode, threads, ceiling["threads"], passes, show)):
                run.add(timed)
        results = [run.record(ratios) for run in runs]
        del runs
    for record in results:
        against_ceiling(record, ceiling, {i.name: i.threads for i in impls})
    progress.done()
    meta["load_during"] = load_during(before, cpu_times(), meta["machine"]["usable_cores"] or 1)
    report = {
        "meta": meta,
        "ceiling": ceiling,
        "fastbits": fastbits_name(),
        "implementations": [{"name": i.name, "description": i.description, "available": i.available,
                             "reason": i.reason, "threads": i.threads} for i in impls],
        "cases": results,
    }
    for line in table_lines(report, args.verbose):
        print(line)
    if absent:
        print()
        print("absent: " + "; ".join(f"{i.name} ({i.reason})" for i in absent))
    if args.json:
        with open(args.json, "w") as f:
            f.write(dumps(report))
        print(f"wrote {args.json}")
    if args.plot:
        save_chart(report, args.plot)
        print(f"wrote {args.plot}")
    # fastbits' implementations; in the model rows, fastbits' evaluator (onnx-ref+fb)
    wrong = [(c["name"], n) for c in results
             for n in ("fastbits-c", "fastbits-c-1t", "fastbits-py") + (("onnx-ref+fb",) if c.get("baseline") else ())
             if c["results"].get(n, {}).get("status") in ("wrong", "error")]
    if wrong:
        print("fastbits differs from numpy: " + ", ".join(f"{n} in {c}" for c, n in wrong), file=sys.stderr)
        return 1
    return 0
