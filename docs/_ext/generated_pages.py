"""The parts of the docs that are data, generated from their sources so that they cannot go stale.

Each is a block committed in its page, between the markers :data:`BEGIN` and :data:`END`, so
that it reads in the repository as in the built site; ``python docs/_ext/generated_pages.py``
(in the checkout's ``.venv``) writes the blocks again, and the docs build and
``tests/test_docs.py`` refuse a block that is not what its source gives now:

* ``performance.md``: the tables of the benchmark run committed as ``docs/bench.json``
  (``python -m fastbits bench --full --json docs/bench.json``, in ``.venv``), with the machine it
  ran on.  Its charts (one per operator, so that each reads at the page's width) are drawn at
  build time into ``_generated/bench-*.png``.  The build refuses a stored run that is not the
  checkout's (:func:`check_current`): made with other kernels (the digest of their sources
  differs) or lacking a case of the full suite.
* ``threads.md``: the settings' table (``fastbits._config.SETTINGS``: each setting's name,
  default and what it does).
* ``errors.md``: the bad-input catalogue (``fastbits._bad_inputs``, which
  ``tests/test_bad_inputs.py`` runs on both paths), each row run through fastbits for the error
  and the message it gets (the same on both paths).

Nothing here needs pytest or hypothesis: the ``docs`` extra is all a build needs.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

from fastbits._bench import plot
from fastbits._bench.cases import select
from fastbits._bench.plot import operator_of, operators, save_chart
from fastbits._bench.report import (OVER_CEILING, fmt_percent, fmt_ratio, fmt_speedup, fmt_time, kernels_digest,
                                   load_line)
from fastbits._bench.timing import SPREAD_CONFIDENCE, UNSTEADY_SPREAD

DOCS = pathlib.Path(__file__).resolve().parents[1]
OUT = DOCS / "_generated"
BENCH_JSON = DOCS / "bench.json"

#: The implementations the tables show after fastbits, with their column titles; the JSON
#: holds the others (the pure path, onnxruntime on one thread) and the chart draws them.
OTHERS = {"fastbits-c-1t": "1 thread", "ort": "onnxruntime", "onnx-ref": "onnx ref."}


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|")


def _table(header: list[str], rows: list[list[Any]], right_from: int = 1) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines + [""]


def chart_file(operator: str) -> str:
    """The chart of one operator's cases, in ``_generated/``."""
    return "bench-" + re.sub(r"[^a-z0-9]+", "-", operator.lower()).strip("-") + ".png"


def _speedup(result: dict[str, Any] | None, key: str = "speedup_vs_numpy") -> str:
    return fmt_speedup(result, key) if result else "-"


def _percent(result: dict[str, Any] | None) -> str:
    percent = (result or {}).get("percent_of_ceiling")
    return fmt_percent(percent) + (" \\*" if percent is not None and percent > OVER_CEILING else "")


def _gbps(ceiling: dict[str, Any]) -> str:
    more = (f", {ceiling['gbps_threads']:.1f} GB/s on {ceiling['threads']} threads"
            if ceiling.get("threads", 1) > 1 else "")
    return f"{ceiling['gbps_1_thread']:.1f} GB/s on 1 thread{more}"


def performance_markdown(report: dict[str, Any]) -> str:
    """The run's machine and ceilings, a summary, the chart and a table per group of cases."""
    meta, fb = report["meta"], report["fastbits"]
    machine, versions = meta["machine"], meta["versions"]
    available = {i["name"] for i in report["implementations"] if i["available"]}
    shown = [fb] + [name for name in OTHERS if name in available]
    titles = {fb: "fastbits", **OTHERS}
    command = "python -m fastbits bench" + (" --full" if meta["mode"] == "full" else "")
    lines = [
        f"Measured by `{command}` on **{machine['cpu']}**, {machine['cores']} cores "
        f"({machine.get('usable_cores', machine['cores'])} usable), {machine['arch']} "
        f"{machine['system']}; Python {meta['python']}, numpy {versions['numpy']}, ml_dtypes "
        f"{versions['ml_dtypes']}, onnx {versions['onnx'] or 'absent'}, onnxruntime "
        f"{versions['onnxruntime'] or 'absent'}; fastbits {versions['fastbits']} "
        f"({meta['fastbits_backend']} path) on {meta['threads']['fastbits']} threads.",
        "",
    ]
    if meta.get("load_during"):
        lines += [load_line(meta)[0].upper() + load_line(meta)[1:] + ".", ""]
    if meta["mode"] != "full":
        lines += [f"This is a `{meta['mode']}` run: its arrays are smaller than the full suite's.", ""]
    ceiling = report.get("ceiling")
    if ceiling:
        lines += ["The ceilings, measured in the same run:", ""]
        lines.append(f"* streaming, out of cache ({ceiling['method']}): {_gbps(ceiling)};")
        if ceiling.get("cache"):
            lines.append(f"* in cache ({ceiling['cache']['method']}): {_gbps(ceiling['cache'])}.")
        if ceiling.get("rule"):
            lines += ["", f"Each row's percentage of its ceiling: {ceiling['rule']}."]
        lines.append("")

    cases = report["cases"]
    charted_cases = [c for c in cases if not c.get("baseline")]
    speedups = [(c["results"].get(fb, {}).get("speedup_vs_numpy"), c) for c in cases
                if c["results"].get(fb, {}).get("status") == "ok"]
    slower = sorted((s, c["name"]) for s, c in speedups if s is not None and s < 1)
    values = sorted(s for s, _ in speedups if s is not None)
    if values:
        median = values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
        lines += [f"Of {len(charted_cases)} cases, fastbits is faster than numpy in {len(values) - len(slower)}; "
                  f"its median speed-up is {fmt_ratio(median)}."
                  + (" Slower than numpy: " + "; ".join(f"`{name}` ({fmt_ratio(s)})" for s, name in slower) + "."
                     if slower else ""), ""]
    spread = meta["method"]["spread"]
    lines += ["The tables give numpy's median time per call and each implementation's speed-up over "
              "numpy (numpy's time over its own: above 1x it is faster), the median of the "
              "interleaved rounds' ratios, with its spread: ±, how far another run's ratio may lie from "
              f"it, every one of the run's {spread['ratios']} ratios at once with {SPREAD_CONFIDENCE:.0%} "
              "confidence, as a percentage of it rounded up (how it is "
              "computed is told above). A ratio whose spread holds 1x or reaches more than "
              f"{UNSTEADY_SPREAD:.0%} from it is unsteady, marked ~ (hatched in the charts): the rounds "
              "did not settle it. "
              "\"wrong\" marks a result "
              "that differs from numpy's (it is not timed), \"n/a\" a case the implementation has "
              "no form of. The last column is fastbits' percentage of the case's ceiling, for the "
              f"cases large enough to have one; \\* marks one over {OVER_CEILING} %: that case ran "
              "faster than the loop timed as its ceiling, which moves its bytes as the kernels' plain "
              "streaming loop does (a result that stays in cache, or a broadcast operand read less "
              "often than it is counted, can beat it), so for it the ceiling is no upper bound. "
              "The implementations:", ""]
    for impl in report["implementations"]:
        if impl["name"] in shown or impl["name"] == "numpy":
            description = impl["description"].removeprefix(f"{impl['name']}: ")
            lines.append(f"* **{titles.get(impl['name'], impl['name'])}**: {description}")
    lines += ["", "The JSON holds the others too (the pure path, onnxruntime on one thread), and the "
              "charts' right panels draw them.", ""]
    lines += ["Each operator has a chart, then its tables. On the left, fastbits' speed-up over numpy "
              "(green: faster, red: slower; a bar that ends in ▶ is cut at the axis' end, its value "
              "written on it); on the right, every other implementation's, a marker each, on a log "
              "scale (a cross: a wrong result). The charts of one run share their axes.", ""]

    groups: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        groups.setdefault(case["group"], []).append(case)
    header = ["case", "numpy"] + [titles[name] for name in shown] + ["% ceiling"]
    for operator in operators(report):
        # A width makes Sphinx link the image to its full size.
        lines += [f"### {operator}", "", f"```{{image}} /_generated/{chart_file(operator)}",
                  f":alt: {operator}: fastbits' speed-up over numpy per case, and the others'",
                  ":width: 100%", "```", ""]
        mine = [(group, members) for group, members in groups.items()
                if operator_of(members[0]) == operator]
        for group, members in mine:
            if len(mine) > 1:
                lines += [f"#### {group}", ""]
            rows = []
            for case in members:
                res = case["results"]
                rows.append([case["name"], fmt_time(res.get("numpy", {}).get("median_s"))]
                            + [_speedup(res.get(name)) for name in shown]
                            + [_percent(res.get(fb))])
            lines += _table(header, rows)
    models = [case for case in cases if case.get("baseline")]
    if models:
        lines += ["### A quantized model", "",
                  "The int4 MatMul model of {doc}`quantize`: building the evaluator and one run, in onnx's "
                  "`ReferenceEvaluator` and in `fastbits.onnx_ops.ReferenceEvaluator`, loaded again and "
                  "again in the bench's process; the ratio is onnx's time over fastbits'. "
                  "`python benchmarks/int4_model.py` times a process's first load too.", ""]
        rows = []
        for case in models:
            res = case["results"]
            ours = res.get("onnx-ref+fb", {})
            rows.append([case["name"], fmt_time(res.get(case["baseline"], {}).get("median_s")),
                         fmt_time(ours.get("median_s")), _speedup(ours, "speedup_vs_baseline")])
        lines += _table(["case", "onnx's evaluator", "with fastbits", "ratio"], rows)
    return "\n".join(lines)


def bad_inputs_markdown() -> str:
    """Each row of the catalogue, run through fastbits: its name, the error and the message."""
    import fastbits
    from fastbits._bad_inputs import CATALOGUE

    rows = []
    for name, call, error, _pattern in CATALOGUE:
        try:
            call(fastbits)
        except error as exc:
            base = next(b.__name__ for b in type(exc).__mro__ if b in (TypeError, ValueError))
            rows.append([name, f"`{type(exc).__name__}` (a `{base}`)", str(exc).replace("\n", " ")])
        else:
            raise RuntimeError(f"fastbits._bad_inputs: {name!r} raised nothing")
    return "\n".join(_table(["wrong input", "error", "message"], rows, right_from=3))


def settings_markdown() -> str:
    """The settings' table, from the one place that names them."""
    from fastbits._config import SETTINGS

    rows = [[f"`{s.name}`", s.default_doc, s.doc] for s in SETTINGS]
    return "\n".join(_table(["setting", "default", "what it does"], rows, right_from=3))


class StaleRunError(Exception):
    """docs/bench.json is not a run of the checkout: the performance page would not be its."""


#: The command that makes docs/bench.json (docs/performance.md says it too).
BENCH_COMMAND = "python -m fastbits bench --full --json docs/bench.json"


def check_current(report: dict[str, Any], package: pathlib.Path = DOCS.parent / "src" / "fastbits") -> None:
    """Raise :class:`StaleRunError` unless ``report`` is a full run of the kernels whose sources
    are in ``package`` and holds every case of the full suite; a package without the sources
    (not a checkout) is not compared."""
    meta = report["meta"]
    why = []
    if meta.get("mode") != "full":
        why.append(f"it is a {meta.get('mode')!r} run, not a full one")
    current = kernels_digest(package)
    if current is not None and meta.get("kernels_digest") != current:
        why.append(f"it was made with other kernels (sources digest {str(meta.get('kernels_digest'))[:12]}, "
                   f"the checkout's {current[:12]})")
    if "spread" not in meta.get("method", {}):
        why.append("its spreads are each ratio's own, not the table's (an older bench made it)")
    missing = sorted({case.name for case in select("full")} - {case["name"] for case in report["cases"]})
    if missing:
        why.append(f"it lacks {len(missing)} case(s) of the full suite: {', '.join(missing[:5])}"
                   + (", ..." if len(missing) > 5 else ""))
    if why:
        raise StaleRunError(f"docs/bench.json is not a run of this checkout: {'; '.join(why)}. Make it again "
                            f"on an idle machine: {BENCH_COMMAND}")


#: The pages that hold a generated block, each with what writes it.  The block is committed in
#: the page, so that it reads where the page is read (a repository's file view, an editor) and
#: not only in the built site; the build and tests/test_docs.py refuse a block that is not what
#: its source gives now, and ``python docs/_ext/generated_pages.py`` writes them all again.
BLOCKS = {"threads.md": "settings", "errors.md": "bad inputs", "performance.md": "performance"}
BEGIN = "<!-- generated: {name}. `python docs/_ext/generated_pages.py` writes it again; do not edit -->"
END = "<!-- end of the generated block -->"


def block_text(name: str) -> str:
    """The Markdown of the block ``name``, from its source as it is now."""
    if name == "performance":
        report = json.loads(BENCH_JSON.read_text(encoding="utf-8"))
        check_current(report)
        return performance_markdown(report)
    return bad_inputs_markdown() if name == "bad inputs" else settings_markdown()


def stale_blocks(write: bool = False) -> list[str]:
    """The pages whose generated block differs from what its source gives now; with ``write``,
    each such block rewritten in its page."""
    stale = []
    for page, name in BLOCKS.items():
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        begin = BEGIN.format(name=name)
        if text.count(begin) != 1 or text.count(END) != 1:
            raise ValueError(f"docs/{page} must hold the block {begin!r} ... {END!r} once")
        head, rest = text.split(begin, 1)
        current, tail = rest.split(END, 1)
        fresh = "\n" + block_text(name) + "\n"
        if current != fresh:
            stale.append(page)
            if write:
                path.write_text(head + begin + fresh + END + tail, encoding="utf-8")
    return stale


def generate(app: Any) -> None:
    """The charts, drawn into ``_generated/``; then the generated blocks, checked."""
    OUT.mkdir(exist_ok=True)
    report = json.loads(BENCH_JSON.read_text(encoding="utf-8"))
    check_current(report)
    # A chart is drawn again when the run or the code that draws it is newer.
    drawn_from = max(BENCH_JSON.stat().st_mtime, pathlib.Path(plot.__file__).stat().st_mtime)
    for operator in operators(report):
        chart = OUT / chart_file(operator)
        if not chart.exists() or chart.stat().st_mtime < drawn_from:
            save_chart(report, str(chart), operator)
    stale = stale_blocks()
    if stale:
        raise StaleRunError(f"the generated blocks of {', '.join('docs/' + page for page in stale)} are not what "
                            "their sources give now: run `python docs/_ext/generated_pages.py` (in .venv) and "
                            "commit the pages")


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    rewritten = stale_blocks(write=True)
    print("rewrote " + ", ".join("docs/" + page for page in rewritten) if rewritten else "every block is current")
