"""Does the bench's spread say how sure a ratio is? Run ``python -m fastbits bench`` several
times in a row and compare each row's ratio over numpy between the runs.

    python benchmarks/bench_repeat.py [--runs 3] [--full] [--filter SUBSTRING] [--keep DIR]

Each run is a fresh process (``--json`` to a temporary file). For every row and every
implementation with a ratio over numpy, the table gives the ratio of each run with its printed
spread as the table prints it (``±``, the further end of the interval of rounds' ratios that
holds another run's ratio, every ratio of the run's table at once, with 99 % confidence, as a
whole percentage of the ratio rounded up) and ``~`` where that run marked it unsteady. A row
is *out of its spread* when a run marked it steady and another run's ratio differs from that
run's by more than that run's printed spread; the last lines count them, and the exit status
is 1 when there is one. A benchmark of the benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from fastbits._bench.report import spread_percent


def run_once(args: argparse.Namespace, path: str) -> dict:
    command = [sys.executable, "-m", "fastbits", "bench", "--json", path]
    if args.full:
        command.append("--full")
    if args.filter:
        command += ["--filter", args.filter]
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(f"bench_repeat: {' '.join(command)} failed:\n{done.stderr}")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--filter")
    parser.add_argument("--implementation", default=None,
                        help="only this implementation's ratios (default: every one's)")
    parser.add_argument("--keep", metavar="DIR", help="keep each run's JSON in DIR (run0.json, ...)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or tmp
        os.makedirs(where, exist_ok=True)
        reports = [run_once(args, os.path.join(where, f"run{i}.json")) for i in range(args.runs)]
    loads = [r["meta"].get("load_during") or {} for r in reports]
    print("runs: " + "; ".join(f"other processes {d.get('other_cores', '?')} cores, stolen {d.get('stolen_cores', '?')}"
                                 for d in loads))
    rows, out, steady_rows = [], [], 0
    for k, case in enumerate(reports[0]["cases"]):
        if case.get("baseline"):
            continue
        for name in case["results"]:
            if name == "numpy" or (args.implementation and name != args.implementation):
                continue
            found = [r["cases"][k]["results"].get(name, {}) for r in reports]
            if not all(f.get("status") == "ok" and f.get("speedup_vs_numpy") and f.get("speedup_spread")
                       for f in found):
                continue
            cells, bad = [], False
            for i, f in enumerate(found):
                ratio = f["speedup_vs_numpy"]
                percent = spread_percent(ratio, f["speedup_spread"])     # the printed ±
                cells.append(f"{ratio:.3g}x ±{percent}%" + (" ~" if f.get("unsteady") else ""))
                if not f.get("unsteady"):
                    steady_rows += 1
                    if any(abs(g["speedup_vs_numpy"] - ratio) > percent / 100 * ratio
                           for j, g in enumerate(found) if j != i):
                        bad = True
            label = f"{case['name']} [{name}]"
            rows.append((label, cells, bad))
            if bad:
                out.append(label)
    width = max(len(label) for label, _, _ in rows) if rows else 0
    for label, cells, bad in rows:
        print(f"{label:<{width}}  " + "   ".join(f"{c:<16}" for c in cells) + ("  OUT" if bad else ""))
    print(f"{len(rows)} ratios in {args.runs} runs; {steady_rows} marked steady; "
          f"{len(out)} out of a steady run's spread" + (": " + "; ".join(out) if out else ""))
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
