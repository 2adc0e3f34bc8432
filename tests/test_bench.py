"""The benchmark suite runs end to end (smoke mode: one tiny case per group, 2 repetitions).

No timing is asserted: only that the suite runs, checks results, and writes its
JSON and PNG.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import pytest

import fastbits
from fastbits import _cpus
from support import import_required, module_from_file, run_into_closed_pipe

IMPLS = {"fastbits-c", "fastbits-py", "numpy", "ort-1t", "ort", "onnx-ref", "onnx-ref+fb"}
GROUPS = {"contiguous", "broadcast", "strided", "out", "or", "xor", "not", "bitshift", "bitcast", "cast",
          "quantize", "model"}
SIBLINGS = ("or", "xor", "not", "shl", "shr")   # BitwiseAnd's siblings, by Case.op


def report_fastbits() -> str:
    return "fastbits-c" if fastbits.BACKEND == "cython" else "fastbits-py"


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "bench.json"
    result = subprocess.run(
        [sys.executable, "-m", "fastbits", "bench", "--smoke", "--verbose", "--json", str(path)],
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
    assert "cache-resident (" in out and "% of ceiling: " in out
    assert ("fastbits.bitwise_xor of uint8" in out) == (fastbits.BACKEND == "cython")
    assert ("fallback: " in out) == (fastbits.BACKEND != "cython")
    assert f"case  " in out and f"{report_fastbits()} x" in out and f"{report_fastbits()} % ceil" in out
    assert "implementation " in out   # --verbose: the per-case detail
    for group in GROUPS:
        assert f"[{group}]" in out
    assert "done in" in result.stderr   # the progress display goes to stderr


def test_bench_json(smoke_run):
    result, path = smoke_run
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(path.read_text())
    assert set(report) >= {"meta", "ceiling", "fastbits", "implementations", "cases"}
    meta = report["meta"]
    assert set(meta["config"]) == set(fastbits.get_config())
    assert set(meta) >= {"machine", "python", "versions", "fastbits_backend", "threads", "mode", "method"}
    assert meta["fastbits_backend"] == fastbits.BACKEND and meta["mode"] == "smoke"
    assert meta["machine"]["cores"] >= 1 and meta["versions"]["numpy"]
    ceiling = report["ceiling"]
    assert ceiling["gbps_1_thread"] > 0 and ceiling["gbps_threads"] > 0 and ceiling["threads"] >= 1
    assert ceiling["probe"] == ("fastbits.bitwise_xor" if fastbits.BACKEND == "cython" else "np.add")
    assert ("fallback" in ceiling) == (fastbits.BACKEND != "cython")
    assert ceiling["cache"]["gbps_1_thread"] > 0 and ceiling["cache"]["array_bytes"] > 0
    assert ceiling["cache"]["gbps_threads"] > 0
    assert ceiling["out_of_cache_bytes"] == _cpus.default_stream_threshold() and ceiling["rule"]
    assert ceiling["ceiling_min_bytes"] == 256 << 10
    names = {impl["name"] for impl in report["implementations"]}
    available = {impl["name"] for impl in report["implementations"] if impl["available"]}
    assert all(impl["threads"] is None or impl["threads"] >= 1 for impl in report["implementations"])
    assert names >= IMPLS
    assert report["fastbits"] == ("fastbits-c" if fastbits.BACKEND == "cython" else "fastbits-py")
    assert {case["group"] for case in report["cases"]} >= GROUPS
    for case in report["cases"]:
        assert set(case) >= {"name", "group", "op", "layout", "bytes", "results", "ceiling", "note"}
        # smoke cases are small: bound by their calls' fixed costs, measured against no ceiling
        assert case["bytes"] < 256 << 10 and case["ceiling"] is None
        assert set(case["results"]) == names
        if case["group"] == "model":   # no numpy column: onnx's evaluators against each other
            assert case["baseline"] == "onnx-ref" and case["bytes"] == 0
            for name, res in case["results"].items():
                if name in ("onnx-ref", "onnx-ref+fb"):
                    assert res["status"] == ("ok" if name in available else "absent"), (name, res)
                else:
                    assert res["status"] in ("n/a", "absent") and res["reason"], (name, res)
            if "onnx-ref" in available:
                assert case["results"]["onnx-ref"]["speedup_vs_baseline"] == 1.0
                assert case["results"]["onnx-ref+fb"]["speedup_vs_baseline"] > 0
            continue
        assert "baseline" not in case
        numpy = case["results"]["numpy"]
        assert numpy["status"] == "ok" and numpy["speedup_vs_numpy"] == 1.0
        assert numpy["reps"] == 2 and len(numpy["samples_s"]) == 2
        assert numpy["q1_s"] <= numpy["median_s"] <= numpy["q3_s"]
        fb = case["results"][report["fastbits"]]
        assert fb["status"] == "ok" and fb["ratio_to_fastbits"] == 1.0 and fb["ratio_to_fastbits_paired"] == 1.0
        for res in case["results"].values():
            assert res["status"] in ("ok", "absent", "n/a", "wrong", "error")
            if res["status"] != "ok":
                assert res["reason"]
                continue
            ratios = sorted(x / y for x, y in zip(res["samples_s"], fb["samples_s"]))   # each repetition's
            assert res["ratio_to_fastbits_paired"] == pytest.approx((ratios[0] + ratios[1]) / 2)
            assert "percent_of_ceiling" not in res
        # both fastbits paths agree with numpy bit for bit
        assert case["results"]["fastbits-py"]["status"] == "ok"
        assert case["results"]["fastbits-c"]["status"] in ("ok", "absent")
    if fastbits.BACKEND == "python":
        impl = next(i for i in report["implementations"] if i["name"] == "fastbits-c")
        assert not impl["available"] and impl["reason"]


def test_bench_filter_and_plot(tmp_path, capsys):
    # The test extras hold matplotlib where it has wheels: this runs wherever they install it.
    import_required("matplotlib")
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


def test_bench_into_a_closed_pipe_exits_quietly():
    """``python -m fastbits bench | head -3``: when the reader goes away, no traceback, status 141."""
    returncode, stderr = run_into_closed_pipe("bench", "--smoke", "--filter", "bitcast")
    assert returncode == 141
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr


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
    assert "ceilingsmachine: " not in text
    assert "memory-bandwidth ceilings\r\x1b[Kmachine: " in text   # the progress line erased first


def test_progress_off_a_terminal_is_one_closing_line():
    """Off a terminal (a log, a pipe) the progress writes nothing but its closing line."""
    from fastbits._bench import _Progress

    log = io.StringIO()
    progress = _Progress(3, log)
    for i in range(3):
        progress.show(i, f"case {i}")
    progress.clear()
    progress.done()
    assert re.fullmatch(r"done in \d+\.\ds\n", log.getvalue())


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
    # BitwiseAnd's siblings: a row each in quick, a shift by a scalar amount among them
    for prefix in ("or int32", "xor int32", "not int32", "bitshift LEFT uint32", "bitshift RIGHT uint32"):
        assert any(name.startswith(prefix) for name in quick), prefix
    assert "bitshift RIGHT uint32 (64K,) >> scalar" in quick
    # and BitwiseAnd's layouts in full (NOT: those that do not broadcast b; shifts: unsigned)
    for layout in ("n=16", "n=16M", "n=1M out=", "n=16M out=", "[::2] n=1M", "[::-1] n=1M"):
        for prefix in ("or int32", "xor int32", "not int32", "bitshift LEFT uint32", "bitshift RIGHT uint32"):
            assert f"{prefix} {layout}" in full
    for op, symbol in (("or", "|"), ("xor", "^"), ("bitshift LEFT", "<<"), ("bitshift RIGHT", ">>")):
        dtype = "uint32" if op.startswith("bitshift") else "int32"
        for layout in ("(1M,) {} scalar", "(1K,1K) {} (1K,) row", "(1K,1K) {} (1K,1) column",
                       "(200K,5) {} (5,)", "(1K,1K).T {} (1K,1K)"):
            assert f"{op} {dtype} {layout.format(symbol)}" in full
    assert "not int32 (1K,1K).T" in full and "bitshift RIGHT int32 n=1M" in full
    assert not any(name.startswith("not") and "scalar" in name for name in full)


def test_sibling_rows_run_and_agree_with_numpy():
    """Every smoke row of BitwiseOr, BitwiseXor, BitwiseNot and BitShift (LEFT and RIGHT, by an array
    and by a scalar), and the arithmetic RIGHT shift of int32, through every implementation."""
    import numpy as np

    from fastbits._bench.cases import select
    from fastbits._bench.impls import implementations
    from fastbits._bench.run import run_case
    from fastbits._bench.timing import MODES

    cases = [c for c in select("smoke") if c.op in SIBLINGS]
    cases += [c for c in select("full") if c.name == "bitshift RIGHT int32 n=1M"]
    assert {c.op for c in cases} == set(SIBLINGS)
    assert any(c.op == "shl" and "scalar" in c.name for c in cases)
    assert any(c.op == "shr" and "scalar" in c.name for c in cases)
    impls = implementations(fastbits.get_num_threads())
    for case in cases:
        record = run_case(case, impls, MODES["smoke"], np.random.default_rng(1))
        results = record["results"]
        assert record["bytes"] > 0, case.name
        assert results["numpy"]["status"] == "ok", case.name
        assert results["fastbits-py"]["status"] == "ok", (case.name, results["fastbits-py"])
        assert results["fastbits-c"]["status"] == ("ok" if fastbits.BACKEND == "cython" else "absent")
        if "onnx-ref" in [i.name for i in impls if i.available]:
            assert results["onnx-ref"]["status"] == "ok", (case.name, results["onnx-ref"])
        else:  # the lowest env has no onnx
            assert results["onnx-ref"]["status"] == "absent", (case.name, results["onnx-ref"])
        if case.op in ("shl", "shr"):
            assert "in [0, bits)" in record["note"]
            assert ("<<" if case.op == "shl" else ">>") in record["layout"]
        else:
            assert record["note"] is None
        ort = results["ort-1t"]
        if "ort-1t" in [i.name for i in impls if i.available]:
            if case.name == "bitshift RIGHT int32 n=1M":   # BitShift-11: unsigned types only
                assert ort["status"] == "n/a" and "unsigned" in ort["reason"]
            else:
                assert ort["status"] == "ok", (case.name, ort)


def test_ceilings():
    """The streaming ceiling (fastbits.bitwise_xor with the compiled module, np.add without, said so) and the
    cache copy, measured; no figure is asserted but that each is positive."""
    from fastbits._bench.timing import MODES, bandwidth_ceiling

    ceiling = bandwidth_ceiling(MODES["smoke"], 2)
    assert ceiling["probe"] == ("fastbits.bitwise_xor" if fastbits.BACKEND == "cython" else "np.add")
    assert ceiling["array_bytes"] == 8 * MODES["smoke"].ceiling_elems and ceiling["threads"] == 2
    assert ceiling["gbps_1_thread"] > 0 and ceiling["gbps_threads"] > 0
    cache = ceiling["cache"]
    assert cache["gbps_1_thread"] > 0 and cache["gbps_threads"] > 0
    assert cache["threads"] == (2 if fastbits.BACKEND == "cython" else 1)


def test_ceiling_without_the_compiled_module(monkeypatch):
    from fastbits._bench.timing import MODES, bandwidth_ceiling

    monkeypatch.setattr(fastbits, "BACKEND", "python")
    ceiling = bandwidth_ceiling(MODES["smoke"], 1)
    assert ceiling["probe"] == "np.add" and "np.add" in ceiling["fallback"]
    assert ceiling["gbps_1_thread"] > 0 and ceiling["gbps_threads"] == ceiling["gbps_1_thread"]


def test_against_ceiling_rule():
    """Out of cache (a result of 8 MiB or more here, fastbits' streaming rule): the streaming
    ceiling at the implementation's threads; a smaller result, of a case that moves 256 KiB or
    more: the cache ceiling at its threads; less, or no bytes (a BitCast view): none."""
    from fastbits._bench.timing import VIEW_NOTE, against_ceiling

    ceiling = {"gbps_1_thread": 10.0, "gbps_threads": 20.0, "threads": 2, "out_of_cache_bytes": 8 << 20,
               "cache": {"gbps_1_thread": 50.0, "gbps_threads": 100.0, "threads": 2}}
    threads = {"numpy": 1, "fastbits-c": 2, "ort": None}

    def record(nbytes, written=None):
        ok = {"status": "ok", "gbps": 5.0}
        return {"bytes": nbytes, "written": nbytes // 3 if written is None else written,
                "results": {n: dict(ok) for n in threads} | {"onnx-ref": {"status": "n/a"}}}

    big = record(12 << 20, written=8 << 20)
    against_ceiling(big, ceiling, threads)
    assert big["ceiling"] == "streaming"
    assert big["results"]["numpy"]["percent_of_ceiling"] == pytest.approx(50.0)
    assert big["results"]["fastbits-c"]["percent_of_ceiling"] == pytest.approx(25.0)
    assert big["results"]["ort"]["ceiling"] == "streaming, 2 threads"
    assert "percent_of_ceiling" not in big["results"]["onnx-ref"]
    small = record(24 << 20, written=(8 << 20) - 1)   # moves more, but its result stays in cache
    against_ceiling(small, ceiling, threads)
    assert small["ceiling"] == "cache"
    assert small["results"]["numpy"]["percent_of_ceiling"] == pytest.approx(10.0)
    assert small["results"]["numpy"]["ceiling"] == "cache, 1 thread"
    assert small["results"]["fastbits-c"]["percent_of_ceiling"] == pytest.approx(5.0)
    assert small["results"]["ort"]["ceiling"] == "cache, 2 threads"
    tiny = record((256 << 10) - 1)
    against_ceiling(tiny, ceiling, threads)
    assert tiny["ceiling"] is None and not any("percent_of_ceiling" in r for r in tiny["results"].values())
    # the case's own ceiling, not the run's, paired with each result repetition by repetition
    # (a repetition's percentage: the probe's time over the result's, both moving 8 MiB)
    own = {"gbps_1_thread": 5.0, "gbps_threads": 8.0, "threads": 2, "gigabytes": (8 << 20) / 1e9,
           "samples_1_thread_s": [1.0, 1.0, 4.0], "samples_threads_s": [1.0, 3.0, 1.5]}
    timed_with_it = record(8 << 20) | {"own_ceiling": own}
    for r in timed_with_it["results"].values():
        r["samples_s"] = [2.0, 1.0, 2.0]
    timed_with_it["results"]["ort"]["samples_s"] = [2.0]   # not one per repetition: the medians
    against_ceiling(timed_with_it, ceiling, threads)
    assert timed_with_it["results"]["numpy"]["percent_of_ceiling"] == pytest.approx(100.0)    # 50, 100, 200
    assert timed_with_it["results"]["fastbits-c"]["percent_of_ceiling"] == pytest.approx(75.0)  # 50, 300, 75
    assert timed_with_it["results"]["fastbits-c"]["ceiling_gbps"] == 8.0
    assert timed_with_it["results"]["numpy"]["ceiling_gbps"] == 5.0
    assert timed_with_it["results"]["ort"]["percent_of_ceiling"] == pytest.approx(62.5)        # 5 / 8
    view = record(0)
    for r in view["results"].values():
        r.pop("gbps", None)
    against_ceiling(view, ceiling, threads)
    assert view["ceiling"] is None and not any("percent_of_ceiling" in r for r in view["results"].values())
    # a BitCast copy that returned a view moved nothing: no percentage for it
    copied = record(8 << 20, written=8 << 20)
    copied["results"]["numpy"]["note"] = VIEW_NOTE
    against_ceiling(copied, ceiling, threads)
    assert "percent_of_ceiling" not in copied["results"]["numpy"]
    assert copied["results"]["fastbits-c"]["percent_of_ceiling"] == pytest.approx(25.0)


def test_ceiling_of_a_fresh_result_is_the_faster_twin():
    """A case that returns a fresh result times each probe twice, into a warm out and into a
    fresh result: in each repetition the faster is the ceiling's sample."""
    from fastbits._bench.timing import FRESH, PROBE_1, PROBE_ALL, measured_ceiling

    info = {"probe": "p", "array_bytes": 1 << 20, "streams": 3, "arrays": "the case's", "threads": 2}

    def timed(*samples):
        return {"samples_s": list(samples), "median_s": sorted(samples)[len(samples) // 2], "reps": len(samples)}

    stats = {PROBE_1: timed(4.0, 1.0, 3.0), PROBE_1 + FRESH: timed(2.0, 5.0, 3.0),
             PROBE_ALL: timed(1.0, 1.0, 1.0), PROBE_ALL + FRESH: timed(0.5, 2.0, 0.25)}
    got = measured_ceiling(info, stats)
    assert got["samples_1_thread_s"] == [2.0, 1.0, 3.0] and got["samples_threads_s"] == [0.5, 1.0, 0.25]
    assert got["gbps_1_thread"] == pytest.approx(got["gigabytes"] / 2.0)
    assert got["gbps_threads"] == pytest.approx(got["gigabytes"] / 0.5)
    alone = measured_ceiling(info, {PROBE_1: timed(4.0, 1.0, 3.0)})    # one thread, out= only
    assert alone["samples_threads_s"] == alone["samples_1_thread_s"] == [4.0, 1.0, 3.0]


def test_out_of_cache_case_times_its_ceiling_with_it():
    """A case moving more than the last-level cache times the streaming probe interleaved with its
    implementations, on arrays of a third of its bytes (capped at the mode's ceiling arrays), and
    its rows are measured against that; one from 256 KiB up to the last-level cache times the
    same loop as its cache ceiling; a smaller case has no ceiling."""
    import numpy as np

    from fastbits._bench.cases import Case
    from fastbits._bench.impls import implementations
    from fastbits._bench.run import run_case
    from fastbits._bench.timing import MODES, OUT_OF_CACHE_BYTES, against_ceiling, bandwidth_ceiling

    mode = MODES["smoke"]
    impls = [i for i in implementations(2) if i.name in ("numpy", "fastbits-c", "fastbits-c-1t", "fastbits-py")]

    def case(n):
        return Case("contiguous", f"and uint8 n={n}", "and",
                    lambda rng: {"a": np.full(n, 0x5A, np.uint8), "b": np.full(n, 0x3C, np.uint8)}, "s")

    n = OUT_OF_CACHE_BYTES // 3 + 1
    big = run_case(case(n), impls, mode, np.random.default_rng(0), 2)
    own = big["own_ceiling"]
    assert own["probe"] == ("fastbits.bitwise_xor" if fastbits.BACKEND == "cython" else "np.add")
    assert own["streams"] == 3    # reads a and b, writes the result
    if fastbits.BACKEND == "cython":   # over the case's own a and b, whatever their size
        assert own["arrays"] == "the case's" and own["array_bytes"] == n
    else:
        assert own["arrays"] == "fresh" and own["array_bytes"] == min(n, 8 * mode.ceiling_elems) // 64 * 64
    assert own["threads"] == 2 and own["reps"] == mode.min_reps
    assert own["gbps_1_thread"] > 0 and own["gbps_threads"] > 0
    assert len(own["samples_1_thread_s"]) == len(own["samples_threads_s"]) == mode.min_reps
    assert not {"ceiling", "ceiling-1t", "ceiling-fresh", "ceiling-1t-fresh"} & set(big["results"])  # not implementations
    against_ceiling(big, bandwidth_ceiling(mode, 2), {i.name: i.threads for i in impls})
    numpy = big["results"]["numpy"]
    assert numpy["ceiling_gbps"] == own["gbps_1_thread"]
    paired = [100 * (big["bytes"] / t) / (own["gigabytes"] * 1e9 / p)    # repetition by repetition
              for t, p in zip(numpy["samples_s"], own["samples_1_thread_s"])]
    assert numpy["percent_of_ceiling"] == pytest.approx(np.median(paired))
    if fastbits.BACKEND == "cython":
        assert big["results"]["fastbits-c"]["ceiling_gbps"] == own["gbps_threads"]
    unary = Case("not", "not uint8", "not", lambda rng: {"a": np.full(OUT_OF_CACHE_BYTES // 2, 7, np.uint8)}, "s")
    one_stream = run_case(unary, impls, mode, np.random.default_rng(0), 2)["own_ceiling"]
    assert one_stream["streams"] == 2
    strided = Case("strided", "and uint8 [::2]", "and",
                   lambda rng: {"a": np.zeros(OUT_OF_CACHE_BYTES, np.uint8)[::2],
                                "b": np.zeros(OUT_OF_CACHE_BYTES // 2, np.uint8)}, "s")
    fresh = run_case(strided, impls, mode, np.random.default_rng(0), 2)["own_ceiling"]
    assert fresh["arrays"] == "fresh" and fresh["streams"] == 3
    assert fresh["array_bytes"] == min(3 * OUT_OF_CACHE_BYTES // 2 // 3, 8 * mode.ceiling_elems) // 64 * 64
    small = run_case(case(1000), impls, mode, np.random.default_rng(0), 2)
    assert "own_ceiling" not in small      # under 256 KiB: no ceiling at all
    cached = run_case(case(1 << 18), impls, mode, np.random.default_rng(0), 2)   # 768 KiB moved, in cache
    assert cached["own_ceiling"]["arrays"] == ("the case's" if fastbits.BACKEND == "cython" else "fresh")
    against_ceiling(cached, bandwidth_ceiling(mode, 2), {i.name: i.threads for i in impls})
    assert cached["ceiling"] == "cache" and cached["results"]["numpy"]["ceiling"] == "cache, 1 thread"
    assert "own_ceiling" not in run_case(case(OUT_OF_CACHE_BYTES), impls, mode, np.random.default_rng(0))


def test_probe_operands():
    """The case's own arrays for its ceiling: its out (None: a fresh result) and its result-sized
    contiguous operands, as flat bytes; None for strided operands, BitCast and packing."""
    import numpy as np

    from fastbits._bench.cases import Case, probe_operands

    def own(op, **arrays):
        return probe_operands(Case("g", "n", op, lambda rng: arrays, "s"), arrays)

    a, b, out = (np.zeros((64, 64), np.int32) for _ in range(3))
    row = np.zeros(64, np.int32)
    got = own("and", a=a, b=b, out=out)
    assert [x.dtype for x in got] == [np.uint8] * 3 and [x.nbytes for x in got] == [a.nbytes] * 3
    assert np.shares_memory(got[0], out) and np.shares_memory(got[1], a) and np.shares_memory(got[2], b)
    o, x, y = own("or", a=a, b=row)          # one stream: b is a; a fresh result, as the case's
    assert y is x and np.shares_memory(x, a) and o is None
    unary = own("not", a=a)
    assert unary[2] is unary[1] and np.shares_memory(unary[1], a)
    assert own("and", a=a.T, b=b) is None and own("and", a=a[:, ::2], b=b[:, ::2]) is None
    assert own("bitcast", x=a) is None and own("pack", x=a) is None


def test_read_streams():
    """The read streams a case's ceiling copies: both operands when both are result-sized."""
    import numpy as np

    from fastbits._bench.cases import Case, read_streams

    def streams(op, **arrays):
        return read_streams(Case("g", "n", op, lambda rng: arrays, "s"), arrays)

    big, row = np.zeros((64, 64), np.int32), np.zeros(64, np.int32)
    assert streams("and", a=big, b=big) == 2
    two, three = np.zeros((2, 64), np.int32), np.zeros((3, 64), np.int32)
    assert streams("and", a=two, b=row) == 2 and streams("xor", a=row, b=two) == 2   # half the result
    assert streams("and", a=three, b=row) == 1                                       # a third
    assert streams("or", a=big, b=row) == 1 and streams("and", a=row, b=big) == 1
    assert streams("shl", a=big, b=np.uint32(3)) == 1
    assert streams("not", a=big) == 1
    assert streams("bitcast", x=big) == 1 and streams("pack", x=big) == 1


@pytest.mark.compiled
def test_import_fastbits_does_not_import_the_bench():
    code = "import sys, fastbits; print('fastbits._bench' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ}).stdout.strip()
    assert out == "False False"


def _fake_report(ncases, percent=None, unsteady=False):
    """A report of ``ncases`` cases as the suite writes it, for the table's tests."""
    from fastbits._bench.report import metadata_dict
    from fastbits._bench.timing import MODES

    ok = {"status": "ok", "median_s": 1e-6, "speedup_vs_numpy": 1.5, "speedup_spread": [1.44, 1.56],
          "unsteady": unsteady, "percent_of_ceiling": percent, "ceiling": "cache, 2 threads"}
    cases = [{"group": "contiguous", "name": f"and int32 n={i}", "op": "and", "bytes": 1 << 20,
              "results": {"numpy": {"status": "ok", "median_s": 1.5e-6, "speedup_vs_numpy": 1.0},
                          "fastbits-c": dict(ok), "ort": dict(ok, speedup_vs_numpy=0.2, speedup_spread=[0.19, 0.23]),
                          "onnx-ref": {"status": "n/a", "reason": "no model"}}}
             for i in range(ncases)]
    impls = [{"name": n, "available": True} for n in ("fastbits-c", "numpy", "ort", "onnx-ref")]
    meta = {"method": metadata_dict(MODES["quick"], 2, 3 * ncases)["method"]}
    return {"fastbits": "fastbits-c", "implementations": impls, "cases": cases, "meta": meta,
            "ceiling": {"ceiling_min_bytes": 256 << 10}}


def test_the_table_is_one_line_a_case():
    """Without --verbose: a header line, a row a case (case, numpy, then fastbits, onnxruntime and
    onnx's evaluator over numpy, each ratio with its spread, and % ceil) and a legend."""
    from fastbits._bench.report import table_lines

    lines = table_lines(_fake_report(35, percent=96.0))
    assert len(lines) == 35 + 3
    assert lines[0].split() == ["case", "numpy", "fastbits-c", "x", "ort", "x", "onnx-ref", "x", "fastbits-c", "%",
                                "ceil"]
    assert lines[1].split() == ["[contiguous]", "and", "int32", "n=0", "1.5", "µs", "1.5x", "±4%", "0.2x", "±15%",
                                "n/a", "96%"]
    assert lines[-2].startswith("x: numpy's time over the implementation's") and "±: how far" in lines[-2]
    assert lines[-1].startswith("% ceil: ")


def test_the_printed_spread_is_rounded_up():
    """The table's ± is the spread's further end as a whole percentage of the ratio, rounded
    outward: never less than the spread, and exact percentages stay as they are."""
    from fastbits._bench.report import spread_percent

    assert spread_percent(1.0, [0.99, 1.031]) == 4        # 3.1 %: printed 4 %
    assert spread_percent(2.0, [1.9, 2.01]) == 5          # the further end counts
    assert spread_percent(1.5, [1.44, 1.56]) == 4         # 4 % exactly, whatever the float error
    assert spread_percent(1.0, [1.0, 1.0]) == 0


def test_the_table_marks_what_it_is_not_sure_of():
    """An unsteady ratio is marked ~ and a percentage over 100 % of its ceiling *, each mark
    explained below the table once; a report with its metadata ends with the load line."""
    from fastbits._bench.report import load_during, table_lines

    lines = table_lines(_fake_report(3, percent=135.0, unsteady=True))
    row = lines[1].split()
    assert row[6:9] == ["1.5x", "±4%", "~"] and row[-2:] == ["135%", "*"]
    legend = [line[:2] for line in lines[4:]]
    assert legend.count("~:") == 1 and legend.count("*:") == 1
    assert "holds 1x or reaches more than 10% from it" in next(x for x in lines if x.startswith("~:"))
    assert "no upper bound" in next(x for x in lines if x.startswith("*:"))

    report = _fake_report(1)
    start = {"busy_s": 100.0, "steal_s": 1.0, "own_s": 10.0, "wall_s": 0.0}
    end = {"busy_s": 116.0, "steal_s": 1.5, "own_s": 20.0, "wall_s": 10.0}
    report["meta"] |= {"machine": {"cores": 2, "usable_cores": 2}, "load_average": [0.25, 0.5, 0.5],
                       "load_during": load_during(start, end, 2)}
    assert report["meta"]["load_during"] == {"other_cores": 0.6, "stolen_cores": 0.05, "seconds": 10.0, "busy": True}
    assert table_lines(report)[-1] == ("machine load while timing: other processes kept 0.60 of 2 cores busy and "
                                       "the hypervisor took 0.05 (busy: other work ran beside the cases, so read "
                                       "the spreads and the ~ marks); load average before: 0.25")


def test_a_ratio_is_taken_round_by_round_with_its_spread():
    """paired_ratio: the median of the rounds' ratios, the spread_rank interval of them, and
    unsteady when there are too few rounds, or the spread holds 1x or reaches further than
    UNSTEADY_SPREAD of the ratio from it."""
    from fastbits._bench.timing import UNSTEADY_SPREAD, min_rounds, paired_ratio

    rounds = [2.0 + i / 100 for i in range(-8, 9)]          # 17 rounds: the 2nd smallest to 2nd largest
    steady = paired_ratio(rounds, [1.0] * len(rounds))
    assert steady == {"ratio": 2.0, "spread": [1.93, 2.07], "unsteady": False}
    # a slow round of both is one round: the ratio does not move with the machine's drift
    assert paired_ratio([2.0, 20.0, 2.0], [1.0, 10.0, 1.0])["ratio"] == 2.0
    few = paired_ratio(rounds[:min_rounds() - 1], [1.0] * (min_rounds() - 1))   # too few rounds to say
    assert few["unsteady"] and few["spread"] == [1.92, 2.03]                    # whose spread is their range
    assert not paired_ratio(rounds[:min_rounds()], [1.0] * min_rounds())["unsteady"]
    assert paired_ratio([r - 1.0 for r in rounds], [1.0] * len(rounds))["unsteady"]          # holds 1x
    wide = [2.0] * 15 + [2.0 * (1 + 1.5 * UNSTEADY_SPREAD)] * 2     # the 2nd largest reaches too far
    assert paired_ratio(wide, [1.0] * len(wide))["unsteady"]
    assert not paired_ratio(wide[:-1] + [2.0], [1.0] * len(wide))["unsteady"]
    assert paired_ratio([], []) is None and paired_ratio([1.0], [0.0]) is None
    # in a table of 100 ratios, each takes a hundredth of the 1 %: 17 rounds are too few to say
    # anything, 25 give their range
    assert paired_ratio(rounds, [1.0] * len(rounds), 100)["unsteady"]
    many = [2.0 + i / 100 for i in range(-12, 13)]
    assert paired_ratio(many, [1.0] * len(many), 100) == {"ratio": 2.0, "spread": [1.88, 2.12], "unsteady": False}


def test_the_spread_holds_another_runs_median_as_often_as_it_says():
    """spread_rank's exact count against runs drawn at random: the median of one run of n
    rounds falls outside another's [x_(k), x_(n+1-k)] no more often than SPREAD_CONFIDENCE
    allows, and k is the largest that does so; min_rounds is the fewest with a k."""
    import numpy as np

    from fastbits._bench.timing import SPREAD_CONFIDENCE, _outside, min_rounds, spread_rank

    assert spread_rank(min_rounds()) >= 1 and spread_rank(min_rounds() - 1) == 0 and min_rounds() == 13
    rng = np.random.default_rng(7)
    for n in (13, 17, 24, 61):
        k = spread_rank(n)
        assert _outside(n, k) <= 1 - SPREAD_CONFIDENCE < _outside(n, k + 1)
        a = np.sort(rng.standard_normal((20000, n)), axis=1)
        b = np.median(rng.standard_normal((20000, n)), axis=1)
        missed = np.mean((b < a[:, k - 1]) | (b > a[:, n - k]))
        assert missed <= _outside(n, k) + 0.003                  # a bound, and for odd n exact
        if n % 2:
            assert abs(missed - _outside(n, k)) < 0.003


def test_a_tables_spreads_hold_another_run_all_at_once():
    """In a table of m ratios each spread takes (1 - SPREAD_CONFIDENCE) / m (Bonferroni), so that
    another run leaves every ratio inside its spread with SPREAD_CONFIDENCE: drawn at random,
    tables of 40 ratios whose rounds are exchangeable lose a ratio no more often than that, and
    as many each with its own 99 % lose one in a table of 40 far more often."""
    import numpy as np

    from fastbits._bench.timing import SPREAD_CONFIDENCE, _outside, min_rounds, spread_rank

    for m, rounds in ((1, 13), (40, 21), (288, 25), (341, 25), (342, 27), (1134, 29)):
        assert min_rounds(m) == rounds and spread_rank(rounds - 1, m) == 0
        k = spread_rank(rounds, m)
        assert _outside(rounds, k) * m <= 1 - SPREAD_CONFIDENCE < _outside(rounds, k + 1) * m
    rng = np.random.default_rng(11)
    m, tables = 40, 2000

    def lost(n: int, k: int) -> float:
        a = np.sort(rng.standard_normal((tables, m, n)), axis=2)
        b = np.median(rng.standard_normal((tables, m, n)), axis=2)
        return float(np.mean(((b < a[..., k - 1]) | (b > a[..., n - k])).any(axis=1)))

    n = min_rounds(m)
    assert lost(n, spread_rank(n, m)) <= 1 - SPREAD_CONFIDENCE + 0.007     # 3 standard deviations
    assert lost(n, spread_rank(n)) > 0.1                                   # each ratio's own 99 %


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(*parts):
    path = os.path.join(ROOT, *parts)
    if not os.path.exists(path):
        pytest.skip(f"{parts[-1]} not beside the tests")
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_the_quick_suite_takes_what_its_docs_say(capsys):
    """README, docs/performance.md and --help give the quick suite's duration alike."""
    from fastbits import _bench

    with pytest.raises(SystemExit):
        _bench.parse_args(["--help"])
    texts = {"--help": " ".join(capsys.readouterr().out.split()),
             "README": _read("README.md").split("## Performance", 1)[1].split("\n## ", 1)[0],
             "performance.md": _read("docs", "performance.md").split("## Reproduce", 1)[1]}
    said = {name: set(re.findall(r"\b((?:about|under) \d+ s)\b", text)) for name, text in texts.items()}
    assert all(len(found) == 1 for found in said.values()), said
    assert len(set.union(*said.values())) == 1, said


def test_the_dev_setup_venv_has_what_the_bench_needs():
    """./dev setup installs the test extras; they hold every requirement of the bench extra
    (README: in .venv the bench needs nothing more), where that has wheels."""
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads(_read("pyproject.toml"))["project"]["optional-dependencies"]

    def names(requirements):
        return {re.match(r"[\w.-]+", r).group().lower() for r in requirements}

    assert names(extras["bench"]) <= names(extras["test"] + extras["test-all"])
    assert "fastbits[test]" in extras["test-all"]
    assert "--editable '.[test-all,typing]'" in _read("dev")


def _chart_report():
    """docs/bench.json where it is beside the tests (the docs' charts), else a small made-up run
    with a bar past the left axis' end and a wrong result."""
    path = os.path.join(ROOT, "docs", "bench.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    report = _fake_report(4, percent=50.0)
    report["cases"][0]["results"]["fastbits-c"]["speedup_vs_numpy"] = 30.0
    report["cases"][1]["results"]["ort"] = {"status": "wrong", "reason": "made up"}
    report["meta"] = {"versions": {"fastbits": "0"}, "fastbits_backend": "cython", "mode": "quick",
                      "machine": {"cpu": "a CPU", "cores": 2}, "threads": {"fastbits": 2}}
    return report


def test_chart_reads_at_page_width():
    """Each panel has a title; the legend is below the panels, clear of them; the text is at
    least 11 pt on a figure 1000 px wide; green and red mean fastbits faster and slower only,
    every other implementation has a colour and a marker of its own; a bar cut at the axis'
    end has an arrowhead; one figure draws one operator's cases."""
    pytest.importorskip("matplotlib")
    import matplotlib.colors as mcolors
    import matplotlib.pyplot as plt

    from fastbits._bench import plot

    report = _chart_report()
    groups = plot.operators(report)
    for operator in (None, groups[0]):
        fig = plot.chart_figure(report, operator)
        try:
            fig.canvas.draw()
            left, right = fig.axes
            assert left.get_title() and right.get_title()
            assert fig.get_size_inches()[0] * fig.dpi == 1000
            (legend,) = fig.legends
            box = legend.get_window_extent()
            assert all(not box.overlaps(ax.get_window_extent()) for ax in fig.axes)
            assert box.y1 < min(ax.get_window_extent().y0 for ax in fig.axes)   # below the panels
            texts = [t for t in fig.findobj(plt.Text) if t.get_text() and t.get_visible()]
            assert min(t.get_fontsize() for t in texts) >= 10
            assert min(t.get_fontsize() for t in left.get_yticklabels()) >= 11
            bars = {mcolors.to_hex(p.get_facecolor()) for p in left.patches}
            assert bars <= {mcolors.to_hex(plot.FASTER), mcolors.to_hex(plot.SLOWER)}
            marks = [line for line in right.get_lines() if line.get_label() and not line.get_label().startswith("_")]
            styles = [(mcolors.to_hex(m.get_color()), m.get_marker()) for m in marks
                      if m.get_marker() != "x"]
            assert len(set(styles)) == len(styles) >= 1
            assert not {c for c, _ in styles} & {mcolors.to_hex(plot.FASTER), mcolors.to_hex(plot.SLOWER)}
            top = plot.axis_end(report)
            cut = [s for c in report["cases"] if (operator is None or plot.operator_of(c) == operator)
                   and (s := c["results"][report["fastbits"]].get("speedup_vs_numpy")) and s > top]
            arrows = [line for line in left.get_lines() if line.get_marker() == ">"]
            assert sum(len(line.get_xdata()) for line in arrows) == len(cut)
            names = [t.get_text() for t in left.get_yticklabels()]
            if operator is not None:
                assert all(plot.operator_of(c) == operator for c in report["cases"] if c["name"] in names)
        finally:
            plt.close(fig)


def test_bench_cast_rows():
    """Cast's rows: the pairs the issue names, each checked against numpy's or ml_dtypes' astype
    (the smoke one run here), in onnx's evaluator alone and with fastbits' operators."""
    from fastbits._bench.cases import select
    from fastbits._bench.impls import implementations
    from fastbits._bench.run import run_case
    from fastbits._bench.timing import MODES

    import numpy as np

    pairs = {(c.name.split()[1], c.saturate) for c in select("full") if c.op == "cast" and "n=16M" in c.name}
    assert pairs >= {("float->float16", True), ("double->float", True), ("int64->int32", True),
                     ("float->bfloat16", True), ("float->float8e4m3fn", False), ("float->float8e4m3fn", True),
                     ("float8e4m3fn->float", True), ("float->int4", True)}
    impls = implementations(fastbits.get_num_threads())
    available = {i.name for i in impls if i.available}
    (case,) = [c for c in select("smoke") if c.op == "cast"]
    record = run_case(case, impls, MODES["smoke"], np.random.default_rng(1))
    results = record["results"]
    assert record["layout"].endswith("-> FLOAT8E4M3FN, saturate=False") and record["bytes"] == 5 * 1024
    for name in ("numpy", "fastbits-py", "fastbits-c", "onnx-ref", "onnx-ref+fb"):
        assert results[name]["status"] == ("ok" if name in available else "absent"), (name, results[name])


def test_bench_quantize_rows():
    """QuantizeLinear (float32 -> int4, -> float8e4m3fn, a per-tensor scale) and DequantizeLinear
    (int4 with blocked float32 scales -> float32): at 16M values and (4K,4K) in full, 1M and
    (1K,1K) in quick; each smoke row through every implementation, checked against the numpy
    formula (int4: the formula stored as int4, numpy's int8 column a bar); onnxruntime reports
    n/a, said why, where its Python API cannot take or give int4."""
    import numpy as np

    from fastbits._bench.cases import bytes_moved, select
    from fastbits._bench.impls import implementations
    from fastbits._bench.run import run_case
    from fastbits._bench.timing import MODES

    full = {c.name: c for c in select("full") if c.group == "quantize"}
    quick = {c.name: c.tiers for c in select("quick") if c.group == "quantize"}
    assert set(full) >= {"dequantize int4->float (4K,4K) block 32", "quantize float->int4 n=16M",
                         "quantize float->float8e4m3fn n=16M"}
    assert set(quick) == {"dequantize int4->float (1K,1K) block 32", "quantize float->int4 n=1M",
                          "quantize float->float8e4m3fn n=1M", "matmul_integer uint8@int8 (16,1K)@(1K,1K)",
                          "qlinear_matmul uint8@int8 (16,1K)@(1K,1K)", "dynamic_quantize float n=1M"}
    assert all(full[name].tiers == "f" for name in full if name not in quick)
    impls = implementations(fastbits.get_num_threads())
    available = {i.name for i in impls if i.available}
    cases = [c for c in select("smoke") if c.op in ("quantize", "dequantize")]
    assert {(c.op, c.to) for c in select("smoke") if c.group == "quantize"} == {
        ("dequantize", "FLOAT"), ("quantize", "INT4"), ("quantize", "FLOAT8E4M3FN"), ("matmul_integer", "INT32"),
        ("qlinear_matmul", "UINT8"), ("dynamic_quantize", "UINT8")}
    for case in cases:
        arrays = case.build(np.random.default_rng(1))
        x, scale = arrays["x"], arrays["scale"]
        out_size = 4 if case.to == "FLOAT" else 1
        assert bytes_moved(case, arrays) == x.nbytes + scale.nbytes + x.size * out_size
        record = run_case(case, impls, MODES["smoke"], np.random.default_rng(1))
        results = record["results"]
        assert record["note"] and "no zero point" in record["layout"] and "graph inputs" in record["layout"]
        for name in ("numpy", "fastbits-py", "fastbits-c", "fastbits-c-1t", "onnx-ref", "onnx-ref+fb"):
            if name in results:
                assert results[name]["status"] == ("ok" if name in available else "absent"), (name, results[name])
        if case.op == "dequantize":
            assert "block_size=32 axis=1" in record["layout"] and "np.copy" in record["note"]
        else:
            assert "per-tensor scale" in record["layout"]
        if "ort-1t" not in available:
            continue
        for name in ("ort-1t", "ort"):
            if case.to == "FLOAT8E4M3FN":  # an onnxruntime that returns no float 8 to Python: n/a, said so
                assert results[name]["status"] == "ok" or (
                    results[name]["status"] == "n/a"
                    and "returns no float8e4m3fn output to Python" in results[name]["reason"]), (name, results[name])
            else:   # int4 in (DequantizeLinear) or out (QuantizeLinear)
                assert results[name]["status"] == "n/a" and "int4" in results[name]["reason"], results[name]
                assert ("input" if case.op == "dequantize" else "output") in results[name]["reason"]


def test_bench_quantized_arithmetic_rows():
    """MatMulInteger (uint8 @ int8, 16 rows, as quantize_dynamic's models) and
    DynamicQuantizeLinear: each smoke row through every implementation, every result equal to
    numpy's (MatMulInteger: float64 BLAS, exact at these sizes; DynamicQuantizeLinear: the
    text's formulas, y)."""
    import numpy as np

    from fastbits._bench.cases import bytes_moved, select
    from fastbits._bench.impls import implementations
    from fastbits._bench.run import run_case
    from fastbits._bench.timing import MODES

    products = ("matmul_integer", "qlinear_matmul")
    full = {c.name for c in select("full") if c.op in (*products, "dynamic_quantize")}
    assert full >= {"matmul_integer uint8@int8 (16,4K)@(4K,4K)", "qlinear_matmul uint8@int8 (16,4K)@(4K,4K)",
                    "dynamic_quantize float n=16M"}
    impls = implementations(fastbits.get_num_threads())
    available = {i.name for i in impls if i.available}
    for case in [c for c in select("smoke") if c.op in (*products, "dynamic_quantize")]:
        arrays = case.build(np.random.default_rng(1))
        if case.op in products:  # a product: no rate, no ceiling
            assert bytes_moved(case, arrays) == 0 and "@" in case.describe(arrays)
        else:
            assert bytes_moved(case, arrays) == arrays["x"].nbytes + arrays["x"].size
        record = run_case(case, impls, MODES["smoke"], np.random.default_rng(1))
        assert record["note"]
        for name, result in record["results"].items():
            if name not in available:
                continue
            if name.startswith("ort") and case.op in products:
                # onnxruntime's uint8-by-int8 kernel adds pairs of products in int16 with
                # saturation on an AVX2 host without VNNI (docs/quantize.md): the bench reports
                # its wrong sums as such, the other columns must be right on every host
                assert result["status"] in ("ok", "wrong"), (case.name, name, result)
            else:
                assert result["status"] == "ok", (case.name, name, result)


def test_bench_quantize_expected_is_the_formula():
    """The int4 row's numpy column computes int8, a bar; the results are held to that formula
    stored as int4, not to fastbits' own result; the float 8 row's inputs stay where ml_dtypes'
    astype agrees with saturate=True (far inside the range), at the full size too."""
    import ml_dtypes
    import numpy as np

    from fastbits._bench.cases import select

    (int4,) = [c for c in select("smoke") if c.op == "quantize" and c.to == "INT4"]
    arrays = int4.build(np.random.default_rng(3))
    bar = int4.reference(arrays["x"], arrays["scale"])
    assert bar.dtype == np.int8
    expected = int4.expected(arrays)
    assert expected.dtype == ml_dtypes.int4 and np.array_equal(expected.astype(np.int8), bar)
    assert np.array_equal(fastbits.quantize_linear(arrays["x"], arrays["scale"], output_dtype="INT4").view(np.uint8),
                          expected.view(np.uint8))
    (f8,) = [c for c in select("full") if c.op == "quantize" and c.to == "FLOAT8E4M3FN" and "16M" in c.name]
    big = f8.build(np.random.default_rng(2026))
    assert np.abs(big["x"] / big["scale"]).max() < 200


def test_bench_model_rows():
    """The int4 model as two rows, its construction and one run, at 4096 in full and 1024 in
    quick, in onnx's evaluator (onnx-ref) and fastbits' subclass (onnx-ref+fb); the others n/a;
    the construction's evaluator checked by its output, a wrong one caught."""
    import numpy as np

    from fastbits._bench.cases import bytes_moved, select
    from fastbits._bench.impls import implementations
    from fastbits._bench.run import run_case
    from fastbits._bench.timing import MODES

    full = {c.name for c in select("full") if c.group == "model"}
    quick = {c.name for c in select("quick") if c.group == "model"}
    assert {"int4 model construction 4096", "int4 model one run 4096"} <= full - quick
    assert quick == {"int4 model construction 1024", "int4 model one run 1024"}
    impls = implementations(fastbits.get_num_threads())
    available = {i.name for i in impls if i.available}
    cases = [c for c in select("smoke") if c.group == "model"]
    assert {c.op for c in cases} == {"model-build", "model-run"}
    for case in cases:
        record = run_case(case, impls, MODES["smoke"], np.random.default_rng(1))
        results = record["results"]
        assert record["bytes"] == 0 and record["baseline"] == "onnx-ref"
        assert "fastbits.onnx_ops.ReferenceEvaluator" in record["layout"] and record["note"]
        for name, res in results.items():
            if name in ("onnx-ref", "onnx-ref+fb"):
                assert res["status"] == ("ok" if name in available else "absent"), (name, res)
                if res["status"] == "ok":
                    assert res["speedup_vs_baseline"] > 0 and res["speedup_vs_numpy"] is None
            else:
                assert res["status"] in ("n/a", "absent") and res["reason"], (name, res)
    if "onnx-ref+fb" not in available:
        pytest.skip("onnx is not installed: the evaluator with fastbits' operators was not timed")
    from fastbits import onnx_ops

    (build,) = [c for c in cases if c.op == "model-build"]
    arrays = build.build(np.random.default_rng(1))
    fb = next(i for i in impls if i.name == "onnx-ref+fb")
    evaluator = fb.prepare(build, arrays)()
    assert isinstance(evaluator, onnx_ops.ReferenceEvaluator)     # the subclass, not new_ops
    assert bytes_moved(build, arrays) == 0
    # a wrong evaluator is caught: the construction's check runs what was built
    import dataclasses

    wrong = dataclasses.replace(build, expected=lambda a: build.expected(a) + np.float32(1))
    record = run_case(wrong, impls, MODES["smoke"], np.random.default_rng(1))
    assert record["results"]["onnx-ref+fb"]["status"] == "wrong"


def test_the_model_rows_are_tabled_apart():
    """The model rows have no numpy column: they are left out of the main table and the chart,
    and tabled after it, each evaluator's time and onnx-ref's over it."""
    from fastbits._bench.plot import operators
    from fastbits._bench.report import table_lines

    report = _fake_report(2)
    report["implementations"] += [{"name": "onnx-ref", "available": True}, {"name": "onnx-ref+fb", "available": True}]
    na = {"status": "n/a", "reason": "the model rows time onnx's evaluators only"}
    report["cases"].append({"group": "model", "name": "int4 model one run 1024", "op": "model-run", "bytes": 0,
                            "baseline": "onnx-ref",
                            "results": {"numpy": na, "fastbits-c": na, "ort": na,
                                        "onnx-ref": {"status": "ok", "median_s": 2e-3, "speedup_vs_baseline": 1.0},
                                        "onnx-ref+fb": {"status": "ok", "median_s": 1e-3, "speedup_vs_baseline": 2.0}}})
    lines = table_lines(report)
    assert not any(line.startswith("[model]") and "n/a" in line for line in lines)
    (row,) = [line for line in lines if line.startswith("[model]")]
    assert row.split() == ["[model]", "int4", "model", "one", "run", "1024", "2", "ms", "1", "ms", "2x"]
    header = lines[lines.index(row) - 1]
    assert header.split() == ["case", "onnx-ref", "onnx-ref+fb", "onnx-ref+fb", "x"]
    assert "model-run" not in operators(report) and "model" not in operators(report)
    only = dict(report, cases=report["cases"][-1:])   # --filter model: the model table alone
    assert table_lines(only)[0].split()[0] == "case" and len(table_lines(only)) == 3


def test_int4_model_script_uses_the_bench_builder():
    """benchmarks/int4_model.py builds its model with the bench's builder, not a copy of its own."""
    import numpy as np

    pytest.importorskip("onnx")
    from fastbits._bench.models import int4_matmul_model, int4_weight

    script = module_from_file(os.path.join(ROOT, "benchmarks", "int4_model.py"), "int4_model")
    assert "make_graph" not in _read("benchmarks", "int4_model.py")
    theirs = script.model(64, np.random.default_rng(5))
    ours = int4_matmul_model(*int4_weight(64, np.random.default_rng(5)))
    assert theirs.SerializeToString() == ours.SerializeToString()
    # a process's loads: each load timed, and every load (in either evaluator) the same result
    got = {who: script.loads(who, 64, 2) for who in ("onnx", "fastbits")}
    assert all(len(g["times"][step]) == 2 for g in got.values() for step in script.STEPS)
    assert got["onnx"]["digests"] == got["fastbits"]["digests"] and len(got["onnx"]["digests"]) == 1


def test_chart_hatches_an_unsteady_ratio_and_whiskers_its_spread():
    """In the left panel an unsteady ratio's bar is hatched and the others are not, and each
    bar has a whisker spanning its spread over the rounds."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from fastbits._bench import plot

    report = _fake_report(3, percent=50.0)
    report["cases"][1]["results"]["fastbits-c"]["unsteady"] = True
    report["meta"] = {"versions": {"fastbits": "0"}, "fastbits_backend": "cython", "mode": "quick",
                      "machine": {"cpu": "a CPU", "cores": 2}, "threads": {"fastbits": 2}}
    fig = plot.chart_figure(report)
    try:
        left = fig.axes[0]
        assert [bool(p.get_hatch()) for p in left.patches] == [False, True, False]
        whiskers = [seg for coll in left.collections for seg in coll.get_segments()]
        assert sorted((round(seg[0][0], 2), round(seg[1][0], 2)) for seg in whiskers) == [(1.44, 1.56)] * 3
        assert "hatched: unsteady" in left.get_xlabel()
    finally:
        plt.close(fig)


def test_a_case_timed_in_passes_keeps_every_passes_rounds():
    """The quick suite times its cases in passes over them all (Mode.passes): a case's samples
    are every pass's, in order, so that each implementation's sample i is from one round, and
    its ceiling's probes are timed in each pass too."""
    import dataclasses

    import numpy as np

    from fastbits._bench.cases import select
    from fastbits._bench.impls import implementations
    from fastbits._bench.run import CaseRun
    from fastbits._bench.timing import CEILING_MIN_BYTES, MODES, min_rounds, table_ratios

    assert MODES["quick"].passes == MODES["quick"].processes > 1 and MODES["full"].passes == 1  # a pass a process
    quick = MODES["quick"].share()
    assert quick.passes == quick.processes == 1 and quick.budget * MODES["quick"].passes == MODES["quick"].budget
    # the quick suite's passes are enough for its whole table, every implementation present
    timed = len(implementations(2)) - len(MODES["quick"].untimed)
    ratios = table_ratios(len(select("quick")), timed)
    assert MODES["quick"].for_table(ratios) == MODES["quick"] and MODES["quick"].passes >= min_rounds(ratios)
    # a table that needs more rounds gets them: more passes, split evenly over the processes
    more = MODES["quick"].for_table(5000)
    assert more.passes >= min_rounds(5000) > MODES["quick"].passes and more.passes % more.processes == 0
    assert MODES["full"].for_table(1134).min_reps == min_rounds(1134) == 29
    assert quick.min_reps * MODES["quick"].passes >= MODES["quick"].min_reps
    assert quick.min_reps == quick.max_reps == 1      # a case's rounds are not taken back to back
    with pytest.raises(ValueError, match="do not split evenly over 2 processes"):
        dataclasses.replace(MODES["smoke"], passes=3, processes=2)
    mode = dataclasses.replace(MODES["smoke"], passes=3)
    case = next(c for c in select("quick") if c.name == "and int32 n=1M")
    rng = np.random.default_rng(1)
    run = CaseRun(case, implementations(fastbits.get_num_threads()), rng, mode, 2)
    for _ in range(mode.passes):
        run.time(mode.share(), rng)
    record = run.record()
    timed = [r for r in record["results"].values() if r["status"] == "ok"]
    assert timed and all(r["reps"] == len(r["samples_s"]) == mode.passes * mode.share().min_reps for r in timed)
    assert record["bytes"] >= CEILING_MIN_BYTES and record["own_ceiling"]["reps"] == mode.passes * mode.share().min_reps


def test_passes_in_a_fresh_process_time_what_the_parent_checked():
    """.workers: passes of the quick suite run in a fresh process, which builds each case's
    arrays as the parent did (case_rng), times only the implementations the parent checked, with
    its share of the rounds in each of its passes, and tells the parent pass by pass and case by
    case where it is."""
    import dataclasses
    import types

    import numpy as np

    from fastbits._bench.cases import select
    from fastbits._bench.impls import fastbits_name
    from fastbits._bench.timing import MODES
    from fastbits._bench.workers import case_rng, time_passes

    assert np.array_equal(case_rng(3).integers(0, 1 << 30, 8), case_rng(3).integers(0, 1 << 30, 8))
    mode = dataclasses.replace(MODES["smoke"], passes=4, processes=2)
    chosen = [c for c in select("smoke") if c.op in ("and", "not")][:2]
    checked = [["numpy", fastbits_name()], ["numpy"]]
    runs = [types.SimpleNamespace(fns=dict.fromkeys(names)) for names in checked]
    seen = []
    timed = time_passes(chosen, runs, mode, 1, 1, range(2, 4), lambda *where: seen.append(where))
    assert seen == [(p, k, chosen[k].name) for p in (2, 3) for k in (0, 1)]
    assert [sorted(t) for t in timed] == [sorted(c) for c in checked]
    assert all(r["reps"] == 2 * mode.share().min_reps for t in timed for r in t.values())
    # a worker that fails: the parent says so, with the worker's own error
    bogus = [types.SimpleNamespace(name="no such case")]
    with pytest.raises(RuntimeError, match="passes 3 to 4 failed(.|\n)*KeyError: 'no such case'"):
        time_passes(bogus, runs[:1], mode, 1, 1, range(2, 4), lambda *where: None)
