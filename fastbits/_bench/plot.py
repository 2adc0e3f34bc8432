"""The chart, as a PNG (matplotlib, imported only here).

Left, the point of the suite: fastbits' speed-up over numpy per case, on a linear axis with a
line at 1x, the cases grouped by operator.  Right, the other implementations' speed-ups over
numpy on a log axis (they span four orders of magnitude), so that they never squash fastbits'
bars.
"""

from __future__ import annotations

from typing import Any

#: The panels' groups, in order: the operator a case's ``op`` names.
OPERATORS = {"and": "BitwiseAnd", "or": "BitwiseOr", "xor": "BitwiseXor", "not": "BitwiseNot",
             "shl": "BitShift", "shr": "BitShift", "bitcast": "BitCast", "pack": "pack / unpack",
             "unpack": "pack / unpack"}


def _operator(case: dict[str, Any]) -> str:
    return OPERATORS.get(case["op"], case["op"])


#: The left panel's axis ends here (or at the largest speed-up, when that is smaller): a bar
#: beyond it is cut at the edge and labelled with its value, so that one case 100 times faster
#: does not squash the others into stubs.
X_MAX = 4.0


def save_chart(report: dict[str, Any], path: str) -> None:
    """A PNG of fastbits' speed-up over numpy per case (linear) beside the others' (log)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = list(dict.fromkeys(OPERATORS.values()))
    rows = sorted(report["cases"], key=lambda c: (order.index(_operator(c)) if _operator(c) in order else len(order)))
    fb = report["fastbits"]
    others = [i["name"] for i in report["implementations"]
              if i["available"] and i["name"] not in ("numpy", fb)]
    # y positions: a heading line before each operator's cases
    ys, headings, y = [], [], 0
    for i, case in enumerate(rows):
        if i == 0 or _operator(case) != _operator(rows[i - 1]):
            headings.append((y, _operator(case)))
            y += 1
        ys.append(y)
        y += 1
    height = max(4.0, 1.2 + 0.2 * y)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, height), dpi=100, sharey=True,
                                      gridspec_kw={"width_ratios": [3, 2]})
    colors = plt.get_cmap("tab10")

    speedups = [c["results"].get(fb, {}).get("speedup_vs_numpy") for c in rows]
    top = min(X_MAX, max([s for s in speedups if s] + [1.0]) * 1.2)
    bar_colors = ["tab:green" if s and s >= 1 else "tab:red" for s in speedups]
    left.barh(ys, [min(s or 0, top) for s in speedups], color=bar_colors, height=0.7)
    for yy, s, case in zip(ys, speedups, rows):
        if not s:
            left.text(0.02, yy, case["results"].get(fb, {}).get("status", "-"), va="center", fontsize=8)
        elif s > top:
            left.text(top, yy, f"{s:.0f}x ", va="center", ha="right", fontsize=8, color="white", fontweight="bold")
        else:
            left.text(s, yy, f" {s:.2f}x", va="center", fontsize=8)
    left.axvline(1.0, color="black", linewidth=1.2)
    left.set_xlim(0, top)
    left.set_yticks(ys + [h for h, _ in headings])
    left.set_yticklabels([c["name"] for c in rows] + [name for _, name in headings], fontsize=8)
    for label in left.get_yticklabels()[len(rows):]:
        label.set_fontweight("bold")
        label.set_fontsize(9)
    left.set_ylim(y - 0.5, -0.5)
    left.set_xlabel(f"{fb}: numpy time / fastbits time (right of the black line: faster than numpy)", fontsize=9)
    left.grid(axis="x", alpha=0.3)

    per = max(1, len(others))
    bar = 0.8 / per
    for j, name in enumerate(others):
        xs, yy = [], []
        for i, case in enumerate(rows):
            r = case["results"].get(name, {})
            if r.get("status") == "ok" and r.get("speedup_vs_numpy"):
                xs.append(r["speedup_vs_numpy"])
                yy.append(ys[i] + (j - (per - 1) / 2) * bar)
        right.barh(yy, xs, height=bar, color=colors(j % 10), label=name)
    right.axvline(1.0, color="black", linewidth=1.2)
    right.set_xscale("log")
    right.set_xlabel("the others: numpy time / their time (log scale)", fontsize=9)
    right.grid(axis="x", which="both", alpha=0.3)
    right.legend(fontsize=8, loc="lower right")

    meta = report["meta"]
    fig.suptitle(f"fastbits {meta['versions']['fastbits']} ({meta['fastbits_backend']}, "
                 f"{meta['threads']['fastbits']} threads) against numpy; {meta['machine']['cpu']}, "
                 f"{meta['machine']['cores']} cores; python -m fastbits bench"
                 + (" --full" if meta["mode"] == "full" else ""), fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.4 / height))  # the title's line kept clear of the bars
    fig.savefig(path)
    plt.close(fig)
