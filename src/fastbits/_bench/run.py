"""One case end to end: every implementation's result checked against numpy's,
bit for bit, then the ones that agree timed interleaved, with their ratios."""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import numpy as np


from .cases import Case, bytes_moved, bytes_written, probe_operands, read_streams
from .impls import Impl, fastbits_name, first_line, numpy_prepare
from .timing import (CEILING_MIN_BYTES, VIEW_NOTE, Mode, calibrate, measured_ceiling, merged, paired_ratio, run_before,
                     streaming_probes, time_interleaved)


def _native(r: np.ndarray) -> np.ndarray:
    r = np.asarray(r)
    if r.dtype.byteorder == ">":
        r = r.astype(r.dtype.newbyteorder("="))
    return r


def differs(result: Any, expected: np.ndarray) -> str | None:
    """Why ``result`` is not bit for bit ``expected``, or None."""
    if not isinstance(result, np.ndarray):
        return f"returned {type(result).__name__}"
    r = _native(result)
    if r.shape != expected.shape:
        return f"shape {r.shape}, expected {expected.shape}"
    if r.dtype != expected.dtype:
        return f"dtype {result.dtype}, expected {expected.dtype}"
    rb = np.ascontiguousarray(r).reshape(-1).view(np.uint8)
    eb = np.ascontiguousarray(expected).reshape(-1).view(np.uint8)
    if not np.array_equal(rb, eb):
        bad = np.flatnonzero(rb != eb)
        return f"differs from numpy in {bad.size} of {rb.size} bytes"
    return None


def times(mode: Mode, impl: Impl) -> bool:
    """Whether ``mode`` times ``impl`` (once it is available and right): all but its ``untimed``,
    and fastbits' own path always."""
    return impl.name not in mode.untimed or impl.name == fastbits_name()


class CaseRun:
    """One case through the suite: built and checked (the constructor), timed in one pass or
    more (:meth:`time`), and its record (:meth:`record`).

    With ``ceiling_threads``, a case that moves at least CEILING_MIN_BYTES also times its
    ceiling, the kernels' own loop on its own arrays (or fresh ones of its size), reading as many
    streams as it does (1 or 2), on one thread and on ``ceiling_threads``, interleaved with its
    implementations: the record's ``own_ceiling``.

    ``checked`` names the implementations another process checked on the same arrays
    (:mod:`.workers`): only those are prepared, and nothing is checked again."""

    def __init__(self, case: Case, impls: list[Impl], rng: np.random.Generator, mode: Mode,
                 ceiling_threads: int | None = None, checked: set[str] | None = None):
        self.case = case
        arrays = case.build(rng)
        if checked is not None:
            impls = [i for i in impls if i.name in checked]
        numpy_fn = numpy_prepare(case, arrays)
        expected = (None if checked is not None else
                    np.array(_native(case.expected(arrays) if case.expected else numpy_fn()), copy=True))
        self.nbytes = nbytes = bytes_moved(case, arrays)
        self.written = bytes_written(case, arrays)
        self.results: dict[str, dict[str, Any]] = {}
        self.fns: dict[str, Callable[[], Any]] = {}
        self.notes: dict[str, str] = {}
        results, fns, notes = self.results, self.fns, self.notes
        for impl in impls:
            if not impl.available:
                results[impl.name] = {"status": "absent", "reason": impl.reason}
                continue
            try:
                fn = impl.prepare(case, arrays)
            except Exception as exc:
                results[impl.name] = {"status": "n/a", "reason": first_line(exc)}
                continue
            if isinstance(fn, str):
                results[impl.name] = {"status": "n/a", "reason": fn}
                continue
            try:
                if expected is None:
                    fns[impl.name] = fn
                    continue
                run_before(fn)
                result = fn()
                if case.result is not None:     # the array the call's result is checked by
                    result = case.result(result, arrays)
                # numpy's call is a bar that computes something else when the case says what is expected
                why = None if impl.name == "numpy" and case.expected else differs(result, expected)
                if not why and case.op == "bitcast" and result is not arrays["x"]:
                    if np.shares_memory(result, arrays["x"]) and (case.copy or case.reference(arrays["x"]).base is None):
                        notes[impl.name] = VIEW_NOTE
                del result
            except Exception as exc:
                results[impl.name] = {"status": "error", "reason": first_line(exc)}
                continue
            if why:
                results[impl.name] = {"status": "wrong", "reason": why}
                continue
            if not times(mode, impl):
                results[impl.name] = {"status": "untimed",
                                      "reason": f"right; timed by --full, not by the {mode.name} suite"}
                continue
            fns[impl.name] = fn
        del expected
        self.arrays = arrays
        self.timed: dict[str, dict[str, Any]] | None = None
        self.calibration: dict[str, tuple[int, float]] | None = None
        self.probes: dict[str, Callable[[], Any]] = {}
        self.info: dict[str, Any] | None = None
        self._held = contextlib.ExitStack()
        if fns and ceiling_threads is not None and nbytes >= CEILING_MIN_BYTES:
            inputs = read_streams(case, arrays)
            own = probe_operands(case, arrays)
            self.probes, self.info = self._held.enter_context(
                streaming_probes(nbytes // (inputs + 1), mode, ceiling_threads, inputs, own=own, fresh=not case.out))

    def time(self, mode: Mode, rng: np.random.Generator) -> None:
        """One pass: each checked implementation (and the ceiling's probes) timed interleaved, its
        samples added to those of the passes before. The first pass calibrates the batches, and
        the later ones reuse them."""
        if self.fns:
            fns = self.fns | self.probes
            if self.calibration is None:
                self.calibration = calibrate(fns, mode)
            self.timed = merged(self.timed, time_interleaved(fns, mode, rng, calibration=self.calibration))

    def add(self, timed: dict[str, dict[str, Any]] | None) -> None:
        """A pass timed elsewhere (:mod:`.workers`): its samples added to those before."""
        if timed:
            self.timed = merged(self.timed, timed)

    def record(self, ratios: int = 1) -> dict[str, Any]:
        """The case's record of the report, from every pass's samples, its spreads those of a table
        of ``ratios`` (:func:`~.timing.paired_ratio`); the arrays are let go."""
        case, results, notes, nbytes = self.case, self.results, self.notes, self.nbytes
        timed = dict(self.timed or {})
        own_ceiling = None
        if self.info is not None and timed:
            own_ceiling = measured_ceiling(self.info, timed)
        for name in self.probes:
            timed.pop(name, None)
        self._held.close()
        layout = case.describe(self.arrays)
        self.arrays = self.fns = self.probes = None
        for name, stats in timed.items():
            results[name] = {"status": "ok", **stats}
            if name in notes:
                results[name]["note"] = notes[name]
        ours = results.get(fastbits_name(), {})
        fb = ours.get("median_s")
        for name, res in results.items():
            if res["status"] != "ok":
                continue
            t = res["median_s"]
            res["ratio_to_fastbits"] = t / fb if fb else None
            res["gbps"] = nbytes / t / 1e9 if nbytes and t > 0 else None
            # the ratios round by round (timing.paired_ratio): a machine that changes state between
            # rounds moves them less than a ratio of medians, and their spread says how sure each is
            paired = paired_ratio(res["samples_s"], ours["samples_s"]) if fb else None
            res["ratio_to_fastbits_paired"] = paired and paired["ratio"]
            # over numpy, or where numpy has no column (the model rows) over the case's baseline
            base = case.baseline or "numpy"
            key = "speedup_vs_baseline" if case.baseline else "speedup_vs_numpy"
            res["speedup_vs_numpy"] = None
            over = (paired_ratio(results[base]["samples_s"], res["samples_s"], ratios)
                    if results.get(base, {}).get("status") == "ok" else None)
            if over:
                res[key] = 1.0 if name == base else over["ratio"]
                if name != base:
                    res.update(speedup_spread=over["spread"], unsteady=over["unsteady"])
            elif case.baseline:
                res[key] = None
        return {
            "group": case.group, "name": case.name, "op": case.op, "layout": layout,
            "out": case.out, "copy": case.copy, "to": case.to, "bytes": nbytes, "written": self.written,
            "results": results,
            "note": case.note, **({"own_ceiling": own_ceiling} if own_ceiling else {}),
            **({"baseline": case.baseline} if case.baseline else {}),
        }


def run_case(case: Case, impls: list[Impl], mode: Mode, rng: np.random.Generator,
             ceiling_threads: int | None = None, ratios: int = 1) -> dict[str, Any]:
    """Build the case's arrays, check and time every implementation in one pass: the case's
    record of the report (:class:`CaseRun`), in a table of ``ratios``."""
    run = CaseRun(case, impls, rng, mode, ceiling_threads)
    run.time(mode, rng)
    return run.record(ratios)
