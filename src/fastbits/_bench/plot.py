"""The chart, as a PNG (matplotlib, imported only here).

Left, the point of the suite: fastbits' speed-up over numpy per case, on a linear axis with a
line at 1x, green where fastbits is faster, red where it is slower, a whisker for its spread over
the rounds, and hatched where it is unsteady.  Right, every other
implementation's speed-up over numpy as a dot per case, on a log axis (they span five orders
of magnitude), so that they never squash fastbits' bars; each has a colour and a marker of its
own, none of them green or red.  The cases are grouped by operator; the docs draw one figure
per operator (``operator=``), ``python -m fastbits bench --plot`` one of them all.
"""

from __future__ import annotations

import math
from typing import Any

#: The groups, in order: the operator a case's ``op`` names.
OPERATORS = {"and": "BitwiseAnd", "or": "BitwiseOr", "xor": "BitwiseXor", "not": "BitwiseNot",
             "shl": "BitShift", "shr": "BitShift", "bitcast": "BitCast",
             "quantize": "QuantizeLinear", "dequantize": "DequantizeLinear", "matmul_integer": "MatMulInteger",
             "qlinear_matmul": "QLinearMatMul",
             "dynamic_quantize": "DynamicQuantizeLinear", "pack": "pack / unpack",
             "unpack": "pack / unpack"}

#: The left panel's axis ends here (or at the largest speed-up, when that is smaller): a bar
#: beyond it is cut at the edge, ends in an arrowhead and is labelled with its value, so that
#: one case 100 times faster does not squash the others into stubs.
X_MAX = 4.0

#: fastbits' faster / slower than numpy: these two colours mean that and nothing else.
FASTER, SLOWER = "tab:green", "tab:red"

#: The other implementations' titles, colours and markers in the right panel (no green, no red).
OTHERS = {
    "fastbits-c-1t": ("fastbits, 1 thread", "tab:blue", "o"),
    "fastbits-py": ("fastbits, pure Python", "tab:gray", "s"),
    "ort": ("onnxruntime", "tab:orange", "D"),
    "ort-1t": ("onnxruntime, 1 thread", "tab:purple", "^"),
    "onnx-ref": ("onnx reference evaluator", "tab:brown", "v"),
    "onnx-ref+fb": ("onnx reference evaluator with fastbits' ops", "tab:cyan", "*"),
}
#: For an implementation OTHERS does not name.
SPARE_STYLES = [("tab:pink", "P"), ("tab:olive", "X"), ("black", "p")]

#: Text sizes, in points: readable when the docs scale a figure to the page's width.
FONT, SMALL, TITLE = 12, 11, 14
#: Height of one row, and the figure's width, in inches (at 100 dpi).
ROW, WIDTH, DPI = 0.34, 10.0, 100


def operator_of(case: dict[str, Any]) -> str:
    """The group a case is drawn in: the operator its ``op`` names."""
    return OPERATORS.get(case["op"], case["op"])


def charted(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The cases the chart draws: those with a numpy column (not the model rows, which have a
    ``baseline`` instead)."""
    return [c for c in report["cases"] if not c.get("baseline")]


def operators(report: dict[str, Any]) -> list[str]:
    """The operator groups the report has cases of, in the chart's order."""
    order = list(dict.fromkeys(OPERATORS.values()))
    present = dict.fromkeys(operator_of(c) for c in charted(report))
    return sorted(present, key=lambda name: order.index(name) if name in order else len(order))


def _speedup(case: dict[str, Any], name: str) -> float | None:
    result = case["results"].get(name, {})
    value = result.get("speedup_vs_numpy")
    return value if result.get("status") == "ok" and value else None


def axis_end(report: dict[str, Any]) -> float:
    """Where fastbits' bars are cut: :data:`X_MAX`, or just past the report's largest speed-up."""
    fb = report["fastbits"]
    return min(X_MAX, max([s for c in report["cases"] if (s := _speedup(c, fb))] + [1.0]) * 1.15)


def _styles(names: list[str]) -> dict[str, tuple[str, str, str]]:
    styles, spare = {}, iter(SPARE_STYLES)
    for name in names:
        styles[name] = OTHERS.get(name) or (name, *next(spare, ("black", "o")))
    return styles


def save_chart(report: dict[str, Any], path: str, operator: str | None = None) -> None:
    """A PNG of fastbits' speed-up over numpy per case (linear) beside the others' (log).

    ``operator`` (one of :func:`operators`) draws that group's cases only, on the axes of
    the whole report, so that the figures of one run compare; None draws every case.
    """
    import matplotlib.pyplot as plt

    fig = chart_figure(report, operator)
    fig.savefig(path)
    plt.close(fig)


def chart_figure(report: dict[str, Any], operator: str | None = None) -> Any:
    """The matplotlib figure :func:`save_chart` saves (the caller closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fb = report["fastbits"]
    groups = operators(report) if operator is None else [operator]
    rows = [c for group in groups for c in charted(report) if operator_of(c) == group]
    others = [i["name"] for i in report["implementations"]
              if i["available"] and i["name"] not in ("numpy", fb)]
    styles = _styles(others)

    # y positions; with more than one group, a heading line before each group's cases
    ys, headings, y = [], [], 0
    for i, case in enumerate(rows):
        if len(groups) > 1 and (i == 0 or operator_of(case) != operator_of(rows[i - 1])):
            headings.append((y, operator_of(case)))
            y += 1
        ys.append(y)
        y += 1

    # The axes' ranges come from every case of the report, whichever are drawn.
    every = report["cases"]
    top = axis_end(report)
    theirs = [s for c in every for name in others if (s := _speedup(c, name))] + [1.0]
    # decades, with room for a marker at either end
    low = 10 ** math.floor(math.log10(min(theirs) / 1.5))
    high = 10 ** math.ceil(math.log10(max(theirs) * 1.5))

    height = 2.6 + ROW * max(y, 3)
    fig, (left, right) = plt.subplots(1, 2, figsize=(WIDTH, height), dpi=DPI, sharey=True,
                                      gridspec_kw={"width_ratios": [1.1, 1]}, layout="constrained")

    # Left: fastbits' bars; a bar past the axis' end stops there with an arrowhead and its value.
    speedups = [_speedup(c, fb) for c in rows]
    bars = left.barh(ys, [min(s or 0, top) for s in speedups], height=0.75,
                     color=[FASTER if s and s >= 1 else SLOWER for s in speedups])
    # An unsteady ratio's bar is hatched and pale; every bar's spread over the rounds is a
    # whisker (timing.paired_ratio's spread of the rounds' ratios), drawn where it fits the axis.
    unsteady = False
    for bar, s, case in zip(bars, speedups, rows):
        result = case["results"].get(fb, {})
        if s and result.get("unsteady"):
            unsteady = True
            bar.set_hatch("//")
            bar.set_alpha(0.45)
        spread = result.get("speedup_spread")
        if s and spread and spread[1] <= top:
            left.errorbar(s, bar.get_y() + bar.get_height() / 2, xerr=[[max(0.0, s - spread[0])],
                          [max(0.0, spread[1] - s)]], color="black", linewidth=1, capsize=3)
    cut = [(yy, s) for yy, s in zip(ys, speedups) if s and s > top]
    if cut:
        left.plot([top] * len(cut), [yy for yy, _ in cut], linestyle="none", marker=">",
                  markersize=11, color="black", clip_on=False, zorder=3)
    for yy, s, case in zip(ys, speedups, rows):
        if not s:
            left.text(0.03, yy, case["results"].get(fb, {}).get("status", "-"), va="center", fontsize=SMALL)
        elif s > top:
            left.text(top * 0.97, yy, f"{s:.1f}x" if s < 10 else f"{s:.0f}x", va="center", ha="right",
                      fontsize=SMALL, color="white", fontweight="bold")
        else:
            spread = case["results"].get(fb, {}).get("speedup_spread") or [s, s]
            left.text(max(s, min(spread[1], top)) + top * 0.015, yy, f"{s:.2f}x", va="center", fontsize=SMALL,
                      bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5, "alpha": 0.8})
    left.axvline(1.0, color="black", linewidth=1.2)
    left.set_xlim(0, top * 1.08)
    left.set_yticks(ys + [h for h, _ in headings])
    left.set_yticklabels([c["name"] for c in rows] + [name for _, name in headings], fontsize=SMALL)
    for label in left.get_yticklabels()[len(rows):]:
        label.set_fontweight("bold")
        label.set_fontsize(FONT)
    left.set_ylim(y - 0.5, -0.5)
    threads = report.get("meta", {}).get("threads", {}).get("fastbits")
    left.set_title(f"fastbits{f', {threads} threads' if threads else ''}", fontsize=FONT, fontweight="bold")
    note = (f"; ▶ cut at {top:.1f}x" if cut else "") + ("; hatched: unsteady" if unsteady else "")
    left.set_xlabel(f"numpy's time / fastbits' time\n({FASTER[4:]}: faster, {SLOWER[4:]}: slower{note})",
                    fontsize=SMALL)
    left.tick_params(axis="x", labelsize=SMALL)
    left.grid(axis="x", alpha=0.3)

    # Right: a dot per implementation and case, each implementation a little apart in the row
    # so that equal figures do not hide each other; a result that differs from numpy's (not
    # timed) is a cross in the implementation's colour at the axis' left end.
    wrong_at = low * 1.6
    any_wrong = False
    for j, name in enumerate(others):
        title, colour, marker = styles[name]
        offset = (j - (len(others) - 1) / 2) * min(0.14, 0.6 / max(1, len(others) - 1))
        points = [(s, yy + offset) for case, yy in zip(rows, ys) if (s := _speedup(case, name))]
        right.plot([p[0] for p in points], [p[1] for p in points], linestyle="none", marker=marker,
                   markersize=7, color=colour, alpha=0.9, label=title)
        wrong = [yy + offset for case, yy in zip(rows, ys)
                 if case["results"].get(name, {}).get("status") == "wrong"]
        if wrong:
            any_wrong = True
            right.plot([wrong_at] * len(wrong), wrong, linestyle="none", marker="x", markersize=8,
                       markeredgewidth=2, color=colour)
    if any_wrong:
        right.plot([], [], linestyle="none", marker="x", markersize=8, markeredgewidth=2, color="black",
                   label="a wrong result (not timed)")
    right.axvline(1.0, color="black", linewidth=1.2)
    right.set_xscale("log")
    right.set_xlim(low, high)
    right.set_title("the others (log scale)", fontsize=FONT, fontweight="bold")
    right.set_xlabel("numpy's time / theirs\n(right of 1: faster than numpy)", fontsize=SMALL)
    right.tick_params(axis="x", labelsize=SMALL)
    right.tick_params(axis="y", left=False)
    right.grid(axis="x", which="major", alpha=0.3)
    for yy in ys:  # a faint line a row, to follow a case across
        right.axhline(yy, color="0.9", linewidth=0.6, zorder=0)

    meta = report["meta"]
    command = "python -m fastbits bench" + (" --full" if meta["mode"] == "full" else "")
    fig.suptitle(f"{operator or 'fastbits against numpy'}\n"
                 f"fastbits {meta['versions']['fastbits']} ({meta['fastbits_backend']}) on "
                 f"{meta['machine']['cpu']}, {meta['machine']['cores']} cores: {command}", fontsize=TITLE)
    # Below the panels, clear of every bar and dot.
    if others:
        fig.legend(loc="outside lower center", ncol=3, fontsize=SMALL, frameon=False)
    return fig
