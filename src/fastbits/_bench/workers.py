"""The passes of a suite timed in passes (``Mode.passes``), in fresh processes
(``Mode.processes``).

One process's memory layout, hash seeds and the addresses its arrays landed at can move a
case's time for as long as the process lives, most of all for calls of a microsecond or less:
rounds taken in one process do not show it, and another run lands elsewhere. So the passes run
in processes of their own, as pyperf spreads its values over worker processes, and a case's
rounds come from each of them.

The parent (:func:`time_passes`) sends the request as JSON on the worker's standard input; the
worker (``python -m fastbits._bench.workers``) builds every case's arrays as the parent did
(:func:`case_rng`), prepares the implementations the parent checked, times its passes over them
all, and writes a line of JSON a case as it goes and then every case's figures.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
from typing import Any, Callable

import numpy as np

import fastbits

from .cases import Case, all_cases
from .impls import implementations
from .run import CaseRun
from .timing import Mode


def case_rng(index: int) -> np.random.Generator:
    """The generator the ``index``-th case of a run builds its arrays with: the same in every
    process, whatever the cases before it drew."""
    return np.random.default_rng([2026, index])


def pass_rng(index: int) -> np.random.Generator:
    """The generator of the ``index``-th pass's orders of the implementations."""
    return np.random.default_rng([2027, index])


def time_passes(chosen: list[Case], runs: list[CaseRun], mode: Mode, threads: int, ceiling_threads: int,
                passes: range, progress: Callable[[int, int, str], None]) -> list[dict[str, dict[str, Any]] | None]:
    """The ``passes`` over ``chosen`` in one fresh process: in each, the implementations each
    case's run checked (and its ceiling's probes) timed interleaved, with ``mode.share()``'s
    rounds and batch sizes of its own; each case's figures over those passes.
    ``progress(p, k, name)`` is called as the worker reaches case ``k`` in pass ``p``."""
    request = {"mode": dataclasses.asdict(mode), "cases": [c.name for c in chosen],
               "checked": [list(run.fns or ()) for run in runs],
               "threads": threads, "ceiling_threads": ceiling_threads, "passes": list(passes)}
    # The worker's standard error goes to a file, not a pipe: a pipe read only at the end would
    # stall a worker that writes more than its buffer holds while the parent reads stdout.
    with tempfile.TemporaryFile("w+") as stderr:
        worker = subprocess.Popen([sys.executable, "-m", "fastbits._bench.workers"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr, text=True)
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(json.dumps(request))
        worker.stdin.close()
        timed = None
        for line in worker.stdout:
            message = json.loads(line)
            if "case" in message:
                progress(message["pass"], message["case"], chosen[message["case"]].name)
            else:
                timed = message["timed"]
        if worker.wait() != 0 or timed is None:
            stderr.seek(0)
            raise RuntimeError(f"the bench's worker for passes {passes.start + 1} to {passes.stop} failed:\n"
                               f"{stderr.read()}")
    return timed


def _serve(request: dict[str, Any]) -> None:
    """The worker: its passes as :func:`time_passes` asks, its messages on standard output."""
    mode = Mode(**{**request["mode"], "untimed": tuple(request["mode"]["untimed"])})
    threads = request["threads"]
    fastbits.set_num_threads(threads)
    impls = implementations(threads)
    by_name = {c.name: c for c in all_cases()}
    runs = []
    for k, (name, checked) in enumerate(zip(request["cases"], request["checked"])):
        runs.append(CaseRun(by_name[name], impls, case_rng(k), mode, request["ceiling_threads"], checked=set(checked)))
        fastbits.set_num_threads(threads)
    for index in request["passes"]:
        rng = pass_rng(index)
        for k, run in enumerate(runs):
            print(json.dumps({"pass": index, "case": k}), flush=True)
            run.time(mode.share(), rng)
            fastbits.set_num_threads(threads)
    print(json.dumps({"timed": [run.timed for run in runs]}), flush=True)


if __name__ == "__main__":
    _serve(json.loads(sys.stdin.read()))
