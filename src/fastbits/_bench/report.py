"""The report: the run's metadata, the header, the per-case table, the markdown
summary, and the JSON."""

from __future__ import annotations

import json
import math
import os
import platform
import re
import time
from importlib import metadata
from typing import Any

import fastbits

from .timing import SPREAD_CONFIDENCE, UNSTEADY_SPREAD, WARM_CALL_BELOW, Mode, min_rounds


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def cpu_times() -> dict[str, float] | None:
    """The machine's busy and stolen CPU seconds so far (Linux's /proc/stat: every CPU's time
    neither idle nor waiting, and the time a hypervisor gave other machines), the CPU seconds of
    this process and of the workers it waited for (:mod:`.workers`) and the wall clock; None
    where /proc/stat is absent."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = fields + [0] * (8 - len(fields))
    tick = os.sysconf("SC_CLK_TCK")
    own = os.times()
    return {"busy_s": (user + nice + system + irq + softirq) / tick, "steal_s": steal / tick,
            "own_s": own.user + own.system + own.children_user + own.children_system, "wall_s": time.monotonic()}


#: Other work that took this share of the machine's cores while the cases ran makes the run
#: "busy" in the load line: as much as the spread a ratio may have before it is unsteady.
BUSY_SHARE = 0.10


def load_during(start: dict[str, float] | None, end: dict[str, float] | None, cores: int) -> dict[str, Any] | None:
    """How many cores other processes kept busy, and a hypervisor took, on average between two
    :func:`cpu_times`; None without both."""
    if not start or not end or end["wall_s"] <= start["wall_s"]:
        return None
    wall = end["wall_s"] - start["wall_s"]
    others = max(0.0, (end["busy_s"] - start["busy_s"]) - (end["own_s"] - start["own_s"])) / wall
    stolen = max(0.0, end["steal_s"] - start["steal_s"]) / wall
    return {"other_cores": round(others, 3), "stolen_cores": round(stolen, 3), "seconds": round(wall, 1),
            "busy": others + stolen >= BUSY_SHARE * cores}


def load_line(meta: dict[str, Any]) -> str:
    """One line: how loaded the machine was while the cases ran, and before."""
    cores = meta["machine"]["usable_cores"] or meta["machine"]["cores"]
    average = meta.get("load_average")
    before = f"load average before: {average[0]:g}" if average else "load average before: unknown"
    during = meta.get("load_during")
    if not during:
        return f"machine load: {before} (other work during the run is not measured on this system)"
    verdict = ("busy: other work ran beside the cases, so read the spreads and the ~ marks"
               if during["busy"] else "quiet")
    return (f"machine load while timing: other processes kept {during['other_cores']:.2f} of {cores} cores "
            f"busy and the hypervisor took {during['stolen_cores']:.2f} ({verdict}); {before}")


#: The files whose content makes the compiled kernels: a run records their digest, and the docs'
#: page of a stored run is refused when the checkout's differ (docs/_ext/generated_pages.py).
KERNEL_SOURCES = ("*.pyx", "*.pxd", "_c/*.c", "_c/*.h")


def kernels_digest(package: str | os.PathLike[str] | None = None) -> str | None:
    """SHA-256 of the kernels' sources in ``package`` (fastbits' directory; the imported one by
    default), each file's path and bytes in path order; None where they are absent (an
    install holds the built modules, not their sources)."""
    import hashlib
    import pathlib

    root = pathlib.Path(package if package is not None else os.path.dirname(fastbits.__file__))
    files = sorted({path for pattern in KERNEL_SOURCES for path in root.glob(pattern)})
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def metadata_dict(mode: Mode, threads: int, ratios: int = 1) -> dict[str, Any]:
    """The machine, the versions, the threads, the environment and the method of this run, whose
    table states at most ``ratios`` ratios (the spreads' family, :func:`~.timing.spread_rank`)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {
        "machine": {"cpu": _cpu_model(), "cores": os.cpu_count(), "usable_cores": usable,
                    "arch": platform.machine(), "system": platform.system(), "release": platform.release()},
        "python": platform.python_version(),
        "versions": {name: _version(name) for name in ("numpy", "ml_dtypes", "onnx", "onnxruntime", "matplotlib")}
        | {"fastbits": fastbits.__version__},
        "fastbits_backend": fastbits.BACKEND,
        "kernels_digest": kernels_digest(),
        "config": fastbits.get_config(),
        "threads": {"fastbits": threads, "numpy": 1, "ort-1t": 1,
                    "ort": "onnxruntime default (intra_op_num_threads=0: one per physical core)",
                    "ceiling": threads},
        "environment": {k: os.environ[k] for k in sorted(os.environ)
                        if k.startswith(("FASTBITS_", "OMP_", "GOMP_", "ORT_"))},
        "load_average": _load_average(),
        "mode": mode.name,
        "method": {"target_sample_s": mode.target, "min_reps": mode.min_reps, "max_reps": mode.max_reps,
                   "budget_per_case_s": mode.budget, "interleaved": "one sample of each implementation per repetition, in a random order",
                   "warm_call": f"one untimed call before each sample of calls under {WARM_CALL_BELOW * 1e3:g} ms",
                   "statistic": "median time per call; a ratio's spread = the rounds' ratios that hold another "
                                f"run's median ratio, every ratio of the table at once, with {SPREAD_CONFIDENCE:.0%} "
                                "confidence",
                   "spread": {"confidence": SPREAD_CONFIDENCE, "ratios": ratios,
                              "each_ratio": 1 - (1 - SPREAD_CONFIDENCE) / ratios,
                              "min_rounds": min_rounds(ratios)},
                   "gbps": "bytes of the elements read + written per call / median time",
                   "percent_of_ceiling": "gbps / the case's ceiling (see ceiling.rule) * 100"},
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def fmt_time(t: float | None) -> str:
    """Seconds in s, ms, µs or ns, three significant digits ("-" for None)."""
    if t is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def fmt_ratio(x: float | None) -> str:
    return "-" if x is None else (f"{x:.3g}x" if x < 100 else f"{x:.0f}x")


def spread_percent(ratio: float, spread: list[float]) -> int:
    """The spread as the table prints it: the further of its ends from the ratio, as a whole
    percentage of the ratio, rounded up, as an interval is rounded outward, so that the printed
    figure never says less than the spread does."""
    exact = max(ratio - spread[0], spread[1] - ratio) / ratio * 100
    return math.ceil(round(exact, 6))


def fmt_speedup(r: dict[str, Any], key: str = "speedup_vs_numpy") -> str:
    """A result's ratio with its spread over the rounds (:func:`spread_percent`):
    ``1.06x ±3%``, with ``~`` after it when the ratio is unsteady
    (:data:`~.timing.UNSTEADY_SPREAD`)."""
    if r.get("status") != "ok":
        return r.get("status", "-")
    x, spread = r.get(key), r.get("speedup_spread")
    text = fmt_ratio(x)
    if x and spread:
        text += f" ±{spread_percent(x, spread)}%"
    return text + (" ~" if r.get("unsteady") else "")


def header_lines(meta: dict[str, Any], ceiling: dict[str, Any] | None, verbose: bool = False) -> list[str]:
    """The machine, the versions, the threads, the mode and the ceilings (with how they are
    measured and applied, under ``verbose``)."""
    m, v = meta["machine"], meta["versions"]
    lines = [
        f"machine: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), {m['arch']} {m['system']}",
        f"python {meta['python']}, numpy {v['numpy']}, ml_dtypes {v['ml_dtypes']}, "
        f"onnxruntime {v['onnxruntime'] or 'absent'}, onnx {v['onnx'] or 'absent'}",
        f"fastbits {v['fastbits']}, backend {meta['fastbits_backend']}; threads: fastbits "
        f"{meta['threads']['fastbits']}, numpy 1, ort-1t 1, ort default",
        f"mode: {meta['mode']}; load average at start: "
        + (" ".join(f"{x:g}" for x in meta["load_average"]) if meta["load_average"] else "unknown")
        + "".join(f"; {k}={v}" for k, v in meta["environment"].items()),
    ]
    if ceiling:
        lines += ceiling_lines(ceiling, meta["mode"], verbose)
    return lines


def ceiling_lines(ceiling: dict[str, Any], mode: str, verbose: bool = False) -> list[str]:
    """The ceilings measured in this run, and (``verbose``) which rows are measured against which."""
    par = (f", {ceiling['gbps_threads']:.1f} on {ceiling['threads']} threads"
           if ceiling["threads"] > 1 else "")
    size = f"3 x {ceiling['array_bytes'] / (1 << 20):.0f} MiB"
    if ceiling.get("probe", "np.add") == "fastbits.bitwise_xor":
        how = f"streaming stores out of cache (fastbits.bitwise_xor of uint8: out = a ^ b, {size})"
    else:
        how = f"np.add 3-stream, {size} float64"
    lines = [f"memory-bandwidth ceilings, measured now: {how}: {ceiling['gbps_1_thread']:.1f} GB/s on 1 thread{par}"
             + (" (smoke mode: arrays fit in cache, not a real ceiling)" if mode == "smoke" else "")]
    if ceiling.get("fallback"):
        lines.append(f"  fallback: {ceiling['fallback']}")
    cache = ceiling.get("cache")
    if cache:
        cpar = f", {cache['gbps_threads']:.1f} on {cache['threads']} threads" if cache["threads"] > 1 else ""
        lines.append(f"  cache-resident ({cache['array_bytes'] >> 10} KiB arrays a thread, warm in L2): "
                     f"{cache['gbps_1_thread']:.1f} GB/s on 1 thread{cpar}")
    if verbose and ceiling.get("rule"):
        lines.append(f"  % of ceiling: {ceiling['rule']}")
    return lines


def _against(case: dict[str, Any], ceiling: dict[str, Any] | None) -> str:
    """Which ceiling a case's rows are measured against, for its title line."""
    if not ceiling or not case.get("ceiling"):
        return ""
    own = case.get("own_ceiling")
    limits = own or (ceiling["cache"] if case["ceiling"] == "cache" else ceiling)
    par = f", {limits['gbps_threads']:.1f} GB/s on {limits['threads']} threads" if limits["threads"] > 1 else ""
    return (f"; against the {case['ceiling']} ceiling{' timed with it' if own else ''}, "
            f"{limits['gbps_1_thread']:.1f} GB/s on 1 thread{par}")


def fmt_percent(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.2g}%" if x < 1 else f"{x:.1f}%" if x < 10 else f"{x:.0f}%"


#: A row above this percentage of its ceiling ran faster than the loop timed as its limit: its
#: percentage is marked, and a note below the table says why such a figure can be.
OVER_CEILING = 100


def table_lines(report: dict[str, Any], verbose: bool = False) -> list[str]:
    """The per-case detail (``verbose``), then the summary table."""
    lines = detail_lines(report) if verbose else []
    return lines + summary_lines(report)


def detail_lines(report: dict[str, Any]) -> list[str]:
    """Every implementation's figures, case by case."""
    impls = [i["name"] for i in report["implementations"]]
    fb = report["fastbits"]
    lines = []
    for case in report["cases"]:
        moved = f"{case['bytes'] / 1e6:.3g} MB moved" if case["bytes"] else "no bytes moved"
        lines.append(f"[{case['group']}] {case['name']}: {case['layout']}; {moved}"
                     + _against(case, report.get("ceiling")))
        if case.get("note"):
            lines.append(f"  note: {case['note']}")
        lines.append(f"  {'implementation':<14} {'median':>10} {'±IQR/2':>8} {'min..max':>21} "
                     f"{'numpy/impl':>10} {'impl/' + fb:>16} {'GB/s':>7} {'% ceil':>7}")
        for name in impls:
            r = case["results"].get(name)
            if r is None:
                continue
            if r["status"] != "ok":
                lines.append(f"  {name:<14} {r['status']}: {r['reason']}")
                continue
            iqr = (r["q3_s"] - r["q1_s"]) / r["median_s"] * 100 if r["median_s"] else 0.0
            gbps = f"{r['gbps']:.1f}" if r.get("gbps") else "-"
            minmax = f"{fmt_time(r['min_s'])}..{fmt_time(r['max_s'])}"
            lines.append(
                f"  {name:<14} {fmt_time(r['median_s']):>10} {f'±{iqr / 2:.1f}%':>8} {minmax:>21} "
                f"{fmt_ratio(r.get('speedup_vs_numpy')):>10} {fmt_ratio(r.get('ratio_to_fastbits')):>16} {gbps:>7} "
                f"{fmt_percent(r.get('percent_of_ceiling')):>7}"
                + (f"  ({r['note']})" if r.get("note") else ""))
        lines.append("")
    return lines


def _aligned(rows: list[list[Any]]) -> list[str]:
    """Rows of cells as lines: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(f"{str(c):<{w}}" if i == 0 else f"{str(c):>{w}}" for i, (c, w) in enumerate(zip(r, widths)))
            for r in rows]


def baseline_lines(report: dict[str, Any]) -> list[str]:
    """The rows numpy has no column in (the int4 model's: a ``baseline`` in the case's record):
    a table of their own, each implementation's median time and its ratio, the baseline's time
    over its own; then those rows' wrong results."""
    cases = [c for c in report["cases"] if c.get("baseline")]
    if not cases:
        return []
    lines = []
    for base in dict.fromkeys(c["baseline"] for c in cases):
        mine = [c for c in cases if c["baseline"] == base]
        others = [i["name"] for i in report["implementations"] if i["name"] != base
                  and any(c["results"].get(i["name"], {}).get("status") == "ok" for c in mine)]
        rows = [["case", base] + [col for n in others for col in (n, f"{n} x")]]
        for case in mine:
            res = case["results"]
            row = [f"[{case['group']}] {case['name']}", _cell(res.get(base, {}), "median_s")]
            for name in others:
                row += [_cell(res.get(name, {}), "median_s"), _cell(res.get(name, {}), "speedup_vs_baseline")]
            rows.append(row)
        lines.append("")
        lines += _aligned(rows)
        lines.append(f"x: {base}'s time over the implementation's (above 1: faster than {base}), taken round "
                     "by round and the median of those: not the ratio of the two median times beside it, which "
                     "may differ when the rounds vary; no other implementation runs these rows")
    for case in cases:
        for name, r in case["results"].items():
            if r.get("status") in ("wrong", "error"):
                lines.append(f"{name} {r['status']} in {case['name']}: {r.get('reason')}")
    return lines


def _cell(r: dict[str, Any], key: str) -> str:
    if r.get("status") != "ok":
        return r.get("status", "-")
    return fmt_time(r.get(key)) if key == "median_s" else fmt_speedup(r, key)


def summary_lines(report: dict[str, Any]) -> list[str]:
    """One table, a row a case: numpy's median time, the speed-ups over numpy of fastbits,
    onnxruntime and onnx's reference evaluator (where the run has them), each with its spread
    and its unsteady mark, and fastbits' percentage of the case's ceiling where one applies;
    then what the marks mean, the rows whose results were wrong, and the rows numpy has no
    column in (:func:`baseline_lines`)."""
    fb = report["fastbits"]
    spread = report["meta"]["method"]["spread"]
    names = {i["name"] for i in report["implementations"] if i["available"]}
    others = [n for n in ("ort", "onnx-ref") if n in names]
    cols = ["case", "numpy", f"{fb} x"] + [f"{n} x" for n in others] + [f"{fb} % ceil"]
    rows, notes, marks = [], [], set()
    for case in report["cases"]:
        if case.get("baseline"):
            continue
        res = case["results"]
        row = [f"[{case['group']}] {case['name']}", fmt_time(res.get("numpy", {}).get("median_s"))]
        for name in [fb, *others]:
            r = res.get(name, {})
            row.append(fmt_speedup(r) if r else "-")
            if r.get("unsteady"):
                marks.add("~")
            if r.get("status") in ("wrong", "error"):
                notes.append(f"{name} {r['status']} in {case['name']}: {r.get('reason')}")
        percent = res.get(fb, {}).get("percent_of_ceiling")
        over = percent is not None and percent > OVER_CEILING
        row.append(fmt_percent(percent) + (" *" if over else ""))
        if over:
            marks.add("*")
        rows.append(row)
    if not rows:   # only rows numpy has no column in
        return baseline_lines(report)[1:]
    lines = _aligned([cols] + rows)
    lines.append("x: numpy's time over the implementation's (above 1: faster than numpy), taken round by round, "
                 f"and the median of the interleaved rounds' ratios (not the ratio of two median times); ±: how far, as a percentage of it rounded up, another run's ratio may lie "
                 f"from it (its spread: the rounds' ratios that hold another run's, all {spread['ratios']} of "
                 f"the table's at once, with {SPREAD_CONFIDENCE:.0%} confidence)")
    if "~" in marks:
        lines.append(f"~: unsteady: the rounds' ratios do not settle it (its spread holds 1x or reaches more than "
                     f"{UNSTEADY_SPREAD:.0%} from it, or it has fewer than {spread['min_rounds']} rounds); run again on an "
                     "idle machine")
    lines.append(f"% ceil: of the cache or streaming ceiling at fastbits' threads, for cases moving "
                 f"{report.get('ceiling', {}).get('ceiling_min_bytes', 0) >> 10} KiB or more (--verbose: all "
                 "implementations, spreads and the rule)")
    if "*" in marks:
        lines.append(f"*: over {OVER_CEILING} %: the case ran faster than the loop timed as its ceiling, which "
                     "moves its bytes as the kernels' plain streaming loop does; a case whose result stays in "
                     "cache, or that reads less than it is counted for (a broadcast operand), can beat it, so "
                     "for that case the ceiling is no upper bound")
    lines += notes
    if report["meta"].get("machine"):    # the load line needs the machine's cores
        lines.append(load_line(report["meta"]))
    return lines + baseline_lines(report)


def dumps(report: dict[str, Any]) -> str:
    """The report as JSON, indented, with each list of numbers (the samples) on one line."""
    text = json.dumps(report, indent=1)
    return re.sub(r"\[\s*([-0-9.e+,\s]+?)\s*\]",
                  lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text) + "\n"
