"""The defaults the machine and the environment decide (fastbits._cpus): the thread count from
``FASTBITS_NUM_THREADS``, ``OMP_NUM_THREADS``, the affinity mask and cgroup quotas (fake trees,
v1 and v2), and the streaming threshold from the last-level cache (fake sysfs trees)."""

from __future__ import annotations

import os

import pytest

from fastbits import _cpus

from support import run_python


# --------------------------------------------------------------------------
# the default thread count: FASTBITS_NUM_THREADS, OMP_NUM_THREADS, CPUs


THREADS_CODE = (
    "import fastbits, fastbits._cpus as c\n"
    "print(c.default_num_threads(), c.available_cpus(), fastbits.get_num_threads(),"
    " int(fastbits.runtime_info()['threads_available']))"
)


def _default_threads(**env):
    done = run_python(THREADS_CODE, **env)
    default, cpus, used, threaded = map(int, done.stdout.split())
    return default, cpus, (used, bool(threaded)), done.stderr


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"OMP_NUM_THREADS": "1"}, 1),
        ({"OMP_NUM_THREADS": "3,2"}, 3),  # one value per nesting level: the first
        ({"OMP_NUM_THREADS": " 4 "}, 4),
        ({"FASTBITS_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"}, 2),  # fastbits' own wins
        ({"FASTBITS_NUM_THREADS": "1", "OMP_NUM_THREADS": "3"}, 1),
    ],
    ids=["omp-1", "omp-nested", "omp-spaces", "fastbits-wins", "fastbits-wins-lower"],
)
def test_default_threads_from_the_environment(env, expected):
    default, _, (used, threaded), stderr = _default_threads(**env)
    assert default == expected
    assert used == (expected if threaded else 1)  # what the runtime took at import
    assert "Warning" not in stderr, stderr


@pytest.mark.parametrize(
    "env, warned, fallback",
    [
        ({"OMP_NUM_THREADS": "zero"}, "OMP_NUM_THREADS='zero'", None),
        ({"OMP_NUM_THREADS": "0"}, "OMP_NUM_THREADS='0'", None),
        ({"FASTBITS_NUM_THREADS": "-2"}, "FASTBITS_NUM_THREADS='-2'", None),
        ({"FASTBITS_NUM_THREADS": "1.5", "OMP_NUM_THREADS": "3"}, "FASTBITS_NUM_THREADS='1.5'", 3),
    ],
    ids=["omp-word", "omp-zero", "fastbits-negative", "fastbits-bad-omp-good"],
)
def test_bad_thread_variables_warn_and_are_ignored(env, warned, fallback):
    default, cpus, (used, threaded), stderr = _default_threads(**env)
    assert f"RuntimeWarning: fastbits: {warned} is not a positive int; ignored" in stderr, stderr
    expected = cpus if fallback is None else fallback
    assert default == expected
    assert used == (expected if threaded else 1)


def test_no_variables_gives_the_available_cpus():
    default, cpus, (used, threaded), _ = _default_threads()
    assert default == cpus >= 1
    assert used == (cpus if threaded else 1)


# --------------------------------------------------------------------------
# cgroup CPU quotas, on fake trees


def _tree(tmp_path, proc_cgroup, files):
    """A fake /proc/self/cgroup and /sys/fs/cgroup: ``files`` maps paths under root to text."""
    root = tmp_path / "cgroup"
    root.mkdir()
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    listing = tmp_path / "proc-self-cgroup"
    listing.write_text(proc_cgroup)
    return {"proc_cgroup": str(listing), "root": str(root)}


def test_cgroup_v2_quota(tmp_path):
    tree = _tree(tmp_path, "0::/app.slice/job\n", {"app.slice/job/cpu.max": "200000 100000\n"})
    assert _cpus.cgroup_cpu_limit(**tree) == 2.0


def test_cgroup_v2_fractional_quota(tmp_path):
    tree = _tree(tmp_path, "0::/job\n", {"job/cpu.max": "150000 100000\n"})
    assert _cpus.cgroup_cpu_limit(**tree) == 1.5


def test_cgroup_v2_no_quota(tmp_path):
    tree = _tree(tmp_path, "0::/app.slice/job\n", {"app.slice/job/cpu.max": "max 100000\n", "app.slice/cpu.max": "max 100000\n"})
    assert _cpus.cgroup_cpu_limit(**tree) is None


def test_cgroup_v2_parent_quota_applies(tmp_path):
    files = {
        "kubepods/pod1/cpu.max": "400000 100000\n",
        "kubepods/pod1/ctr/cpu.max": "max 100000\n",
        "kubepods/cpu.max": "300000 100000\n",
        "cpu.max": "max 100000\n",
    }
    tree = _tree(tmp_path, "0::/kubepods/pod1/ctr\n", files)
    assert _cpus.cgroup_cpu_limit(**tree) == 3.0
    (tmp_path / "ctr-quota").mkdir()
    files["kubepods/pod1/ctr/cpu.max"] = "100000 100000\n"  # the smallest on the path wins
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path / "ctr-quota", "0::/kubepods/pod1/ctr\n", files)) == 1.0


def test_cgroup_v2_namespaced_root(tmp_path):
    """Inside a cgroup namespace the process sees itself at "/": the root's cpu.max applies."""
    tree = _tree(tmp_path, "0::/\n", {"cpu.max": "50000 100000\n"})
    assert _cpus.cgroup_cpu_limit(**tree) == 0.5


def test_cgroup_v1_quota(tmp_path):
    listing = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n"
    files = {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "250000\n", "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"}
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path, listing, files)) == 2.5


def test_cgroup_v1_no_quota(tmp_path):
    listing = "4:cpu,cpuacct:/docker/abc\n"
    files = {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"}
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path, listing, files)) is None


def test_cgroup_v1_cpu_directory(tmp_path):
    listing = "3:cpuacct,cpu:/batch\n"  # the hierarchy mounted as "cpu" only
    files = {"cpu/batch/cpu.cfs_quota_us": "100000\n", "cpu/batch/cpu.cfs_period_us": "50000\n"}
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path, listing, files)) == 2.0


@pytest.mark.parametrize(
    "listing, files",
    [
        ("0::/job\n", {}),  # no cpu.max anywhere
        ("0::/job\n", {"job/cpu.max": "garbage\n"}),
        ("0::/job\n", {"job/cpu.max": "0 100000\n"}),
        ("4:cpu,cpuacct:/x\n", {"cpu,cpuacct/x/cpu.cfs_quota_us": "100000\n"}),  # no period
        ("4:cpu,cpuacct:/x\n", {}),
        ("4:memory:/x\n", {"memory/x/cpu.cfs_quota_us": "100000\n"}),  # not the cpu controller
        ("", {}),
    ],
    ids=["v2-missing", "v2-garbage", "v2-zero", "v1-no-period", "v1-missing", "v1-not-cpu", "empty"],
)
def test_cgroup_without_a_usable_quota(tmp_path, listing, files):
    assert _cpus.cgroup_cpu_limit(**_tree(tmp_path, listing, files)) is None


# --------------------------------------------------------------------------
# the streaming threshold's default: the last-level cache, from sysfs


def _caches(tmp_path, entries):
    """A fake /sys/devices/system/cpu/cpu0/cache: entries of (type, size) as index0, 1, ..."""
    root = tmp_path / "cache"
    for i, (kind, size) in enumerate(entries):
        (root / f"index{i}").mkdir(parents=True)
        (root / f"index{i}" / "type").write_text(kind + "\n")
        (root / f"index{i}" / "size").write_text(size + "\n")
    return str(root)


def test_last_level_cache_is_the_largest_data_or_unified_cache(tmp_path):
    root = _caches(tmp_path, [("Data", "32K"), ("Instruction", "64M"), ("Unified", "512K"), ("Unified", "8192K")])
    assert _cpus.last_level_cache_bytes(root) == 8 << 20  # the instruction cache does not count


@pytest.mark.parametrize("size, expected", [("32M", 32 << 20), ("1G", 1 << 30), ("524288", 1 << 19), ("768K", 768 << 10)])
def test_cache_size_units(tmp_path, size, expected):
    assert _cpus.last_level_cache_bytes(_caches(tmp_path, [("Unified", size)])) == expected


@pytest.mark.parametrize("entries", [[], [("Instruction", "32K")], [("Unified", "")], [("Unified", "lots")], [("Data", "0K")]])
def test_no_cache_size_falls_back(tmp_path, entries, monkeypatch):
    root = _caches(tmp_path, entries)
    assert _cpus.last_level_cache_bytes(root) is None
    assert _cpus.last_level_cache_bytes(str(tmp_path / "absent")) is None
    monkeypatch.setattr(_cpus, "last_level_cache_bytes", lambda: None)
    assert _cpus.FALLBACK_CACHE_BYTES == 8 << 20
    assert _cpus.default_stream_threshold() == 2 << 20  # a quarter of it




def test_cgroup_without_proc_file(tmp_path):
    assert _cpus.cgroup_cpu_limit(proc_cgroup=str(tmp_path / "absent"), root=str(tmp_path)) is None


def test_available_cpus_takes_the_quota(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 2.0)
    assert _cpus.available_cpus() == 2
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 2.5)  # a part of a CPU counts
    assert _cpus.available_cpus() == 3
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 0.25)
    assert _cpus.available_cpus() == 1
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: None)
    assert _cpus.available_cpus() == 64
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 128.0)  # a quota above the mask
    assert _cpus.available_cpus() == 64
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3, 5}, raising=False)
    monkeypatch.setattr(_cpus, "cgroup_cpu_limit", lambda: 8.0)
    assert _cpus.available_cpus() == 2


def test_default_num_threads_in_process(monkeypatch):
    monkeypatch.delenv("FASTBITS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "5,1")
    assert _cpus.default_num_threads() == 5
    monkeypatch.setenv("FASTBITS_NUM_THREADS", "6")
    assert _cpus.default_num_threads() == 6
    monkeypatch.setenv("FASTBITS_NUM_THREADS", "six")
    with pytest.warns(RuntimeWarning, match="FASTBITS_NUM_THREADS='six' is not a positive int; ignored"):
        assert _cpus.default_num_threads() == 5
    monkeypatch.delenv("FASTBITS_NUM_THREADS")
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr(_cpus, "available_cpus", lambda: 7)
    assert _cpus.default_num_threads() == 7
