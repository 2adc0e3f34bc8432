"""The benchmark suite runs end to end (smoke mode: one tiny case per group, 2 repetitions).

No timing is asserted: only that the suite runs, checks results, and writes its
JSON and PNG.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

import fastbits

IMPLS = {"fastbits-c", "fastbits-py", "numpy", "ort-1t", "ort", "onnx-ref"}


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "bench.json"
    result = subprocess.run(
        [sys.executable, "-m", "fastbits", "bench", "--smoke", "--json", str(path)],
        capture_output=True, text=True, timeout=120,
    )
    return result, path


def test_bench_runs_and_prints_the_table(smoke_run):
    result, _ = smoke_run
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert out.startswith("machine: ")
    assert f"fastbits {fastbits.__version__}, backend {fastbits.BACKEND}" in out
    assert "memory-bandwidth ceiling" in out
    assert "| case " in out and "numpy" in out
    for group in ("[contiguous]", "[broadcast]", "[strided]", "[out]", "[bitcast]"):
        assert group in out
    assert "done in" in result.stderr   # the progress display goes to stderr


def test_bench_json(smoke_run):
    result, path = smoke_run
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(path.read_text())
    assert set(report) >= {"meta", "ceiling", "fastbits", "implementations", "cases"}
    meta = report["meta"]
    assert set(meta) >= {"machine", "python", "versions", "fastbits_backend", "threads", "mode", "method"}
    assert meta["fastbits_backend"] == fastbits.BACKEND and meta["mode"] == "smoke"
    assert meta["machine"]["cores"] >= 1 and meta["versions"]["numpy"]
    assert report["ceiling"]["gbps_1_thread"] > 0
    names = {impl["name"] for impl in report["implementations"]}
    assert names >= IMPLS
    assert report["fastbits"] == ("fastbits-c" if fastbits.BACKEND == "cython" else "fastbits-py")
    assert {case["group"] for case in report["cases"]} == {"contiguous", "broadcast", "strided", "out", "bitcast"}
    for case in report["cases"]:
        assert set(case) >= {"name", "group", "op", "layout", "bytes", "results"}
        assert set(case["results"]) == names
        numpy = case["results"]["numpy"]
        assert numpy["status"] == "ok" and numpy["speedup_vs_numpy"] == 1.0
        assert numpy["reps"] == 2 and len(numpy["samples_s"]) == 2
        assert numpy["q1_s"] <= numpy["median_s"] <= numpy["q3_s"]
        fb = case["results"][report["fastbits"]]
        assert fb["status"] == "ok" and fb["ratio_to_fastbits"] == 1.0
        for res in case["results"].values():
            assert res["status"] in ("ok", "absent", "n/a", "wrong", "error")
            if res["status"] != "ok":
                assert res["reason"]
        # both fastbits paths agree with numpy bit for bit
        assert case["results"]["fastbits-py"]["status"] == "ok"
        assert case["results"]["fastbits-c"]["status"] in ("ok", "absent")
    if fastbits.BACKEND == "python":
        impl = next(i for i in report["implementations"] if i["name"] == "fastbits-c")
        assert not impl["available"] and impl["reason"]


def test_bench_filter_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from fastbits import _bench

    png = tmp_path / "bench.png"
    threads = fastbits.get_num_threads()
    assert _bench.main(["--smoke", "--filter", "bitcast", "--threads", "1", "--plot", str(png)]) == 0
    assert fastbits.get_num_threads() == threads   # restored
    out = capsys.readouterr().out
    assert "[bitcast]" in out and "[contiguous]" not in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_plot_without_matplotlib(monkeypatch, capsys, tmp_path):
    from fastbits import _bench

    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib raises ImportError
    assert _bench.main(["--smoke", "--plot", str(tmp_path / "x.png")]) == 2
    assert "--plot needs matplotlib" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_bench_filter_matching_nothing(capsys):
    from fastbits import _bench

    assert _bench.main(["--smoke", "--filter", "no such case"]) == 2
    assert "no case matches" in capsys.readouterr().err


def test_bench_clears_the_progress_line_before_the_header(monkeypatch):
    from fastbits import _bench

    class Terminal(io.StringIO):   # stdout and stderr on one screen
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr(sys, "stderr", screen)
    assert _bench.main(["--smoke", "--filter", "bitcast"]) == 0
    text = screen.getvalue()
    assert "ceilingmachine: " not in text
    assert "memory-bandwidth ceiling\r\x1b[Kmachine: " in text   # the progress line erased first


def test_cases_cover_the_issue():
    from fastbits._bench.cases import select

    full = [c.name for c in select("full")]
    quick = [c.name for c in select("quick")]
    assert set(quick) < set(full)
    for dtype in ("int8", "int32", "int64"):
        assert f"and {dtype} n=64M" in full and f"and {dtype} n=64M" not in quick
    assert "and int32 n=16" in quick
    for needle in ("scalar", "row", "column", "(5,)", "(3,4,5) & (5,)", "(3,4,5,6) & (4,5,6)",
                   "[::2]", ".T", "out=", "view", "copy", ">i4", "int4->uint4"):
        assert any(needle in name for name in quick), needle


def test_import_fastbits_does_not_import_the_bench():
    code = "import sys, fastbits; print('fastbits._bench' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ}).stdout.strip()
    assert out == "False False"
