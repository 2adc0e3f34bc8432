"""The chart: each implementation's speed-up over numpy per case, as a PNG
(matplotlib, imported only here)."""

from __future__ import annotations

from typing import Any


def save_chart(report: dict[str, Any], path: str) -> None:
    """A PNG of each implementation's speed-up over numpy per case: bars from 1 (numpy), log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [i["name"] for i in report["implementations"] if i["name"] != "numpy" and i["available"]]
    rows = report["cases"]
    per = max(1, len(names))
    height = 0.84 / per
    fig, ax = plt.subplots(figsize=(9, 1.4 + 0.075 * len(rows) * per), dpi=72)
    colors = plt.get_cmap("tab10")
    for j, name in enumerate(names):
        ys, widths = [], []
        for i, case in enumerate(rows):
            r = case["results"].get(name, {})
            y = i + (j - (per - 1) / 2) * height
            if r.get("status") == "ok" and r.get("speedup_vs_numpy"):
                ys.append(y)
                widths.append(r["speedup_vs_numpy"] - 1.0)
                if r.get("note"):
                    ax.text(r["speedup_vs_numpy"], y, f" {r['note']}", va="center", fontsize=5,
                            color=colors(j))
            elif r.get("status") in ("wrong", "n/a", "error"):
                ax.text(1.0, y, f" {r['status']}", va="center", fontsize=5, color=colors(j))
        ax.barh(ys, widths, left=1.0, height=height, label=name, color=colors(j))
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([c["name"] for c in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("speed-up over numpy: numpy time / implementation time (log scale; right of 1 is faster)",
                  fontsize=8)
    meta = report["meta"]
    ax.set_title(f"fastbits {meta['versions']['fastbits']} ({meta['fastbits_backend']}, "
                 f"{meta['threads']['fastbits']} threads), {meta['machine']['cpu']}, "
                 f"{meta['machine']['cores']} cores; python -m fastbits bench"
                 + (" --full" if meta["mode"] == "full" else ""), fontsize=8)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)
