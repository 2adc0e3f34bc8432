"""The defaults the machine and the environment decide: threads, and the cache size.

Threads, in order: ``FASTBITS_NUM_THREADS``; else ``OMP_NUM_THREADS`` (its first value), which
joblib/loky set in their workers to keep nested parallelism in check; else the CPUs this
process may run on (its affinity mask), capped by the CPU quota of its cgroup (a container
allowed 2 CPUs of a 64-CPU host gets 2).

The streaming threshold: a result of a quarter of the last-level cache or more is written around
the cache (streaming stores).  This is glibc's rule for memcpy's non-temporal stores (from 2.38:
a copy of "1/4 of size of the chip's cache" or more): the last-level cache is shared with the
other cores, and on a virtual machine with every core of a large host, whose reported cache is
mostly not this process's to fill.

The spin time: how long the thread team's helpers watch for the next call before they sleep;
``OMP_WAIT_POLICY=passive`` (OpenMP's way to ask threads not to spin) makes it 0.

The instruction sets the compiled loops may use: every one the CPU has (AVX2 with FMA, which
every AVX2 processor has, and F16C for the float16 conversions, on x86-64 in builds with GCC on
glibc) but those ``FASTBITS_DISABLE_CPU_FEATURES`` names (comma- or space-separated, any case),
as numpy's ``NPY_DISABLE_CPU_FEATURES``: ``AVX2,F16C`` runs the baseline loops on a machine
that has both, to test or compare them.  Read once, at import.

The settings' table (:data:`fastbits._config.SETTINGS`) takes its defaults from here.
"""

from __future__ import annotations

import math
import os
import warnings

__all__ = [
    "CPU_FEATURES", "SPIN_TIME", "allowed_cpu_features", "available_cpus", "cgroup_cpu_limit", "default_num_threads",
    "default_spin_time", "default_stream_threshold", "last_level_cache_bytes",
]

#: The last-level cache assumed where the system does not say how large its caches are.
FALLBACK_CACHE_BYTES = 8 << 20

#: The streaming threshold is the last-level cache's size divided by this (glibc's divisor).
STREAM_DIVISOR = 4


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _quota_v2(text: str | None) -> float | None:
    """CPUs allowed by a cgroup v2 ``cpu.max`` ("max 100000" or "200000 100000")."""
    if not text:
        return None
    parts = text.split()
    if len(parts) != 2 or parts[0] == "max":
        return None
    try:
        quota, period = int(parts[0]), int(parts[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def _quota_v1(quota_text: str | None, period_text: str | None) -> float | None:
    """CPUs allowed by cgroup v1's ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (-1: none)."""
    try:
        quota, period = int((quota_text or "").strip()), int((period_text or "").strip())
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def cgroup_cpu_limit(proc_cgroup: str = "/proc/self/cgroup", root: str = "/sys/fs/cgroup") -> float | None:
    """The CPU quota of this process's cgroup and its ancestors, in CPUs; None without one.

    Reads cgroup v2 (``cpu.max``) or v1 (``cpu.cfs_quota_us``); the smallest quota on the
    path from the process's cgroup to the root applies.
    """
    listing = _read(proc_cgroup)
    if listing is None:
        return None
    limits = []
    for line in listing.splitlines():
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, path = fields
        path = path.strip().strip("/")
        parts = path.split("/") if path else []
        if controllers == "":  # v2: one unified hierarchy
            for depth in range(len(parts), -1, -1):
                directory = os.path.join(root, *parts[:depth])
                limits.append(_quota_v2(_read(os.path.join(directory, "cpu.max"))))
        elif "cpu" in controllers.split(","):  # v1: the cpu controller's hierarchy
            for name in (controllers, "cpu", "cpu,cpuacct"):
                base = os.path.join(root, name)
                if os.path.isdir(base):
                    break
            for depth in range(len(parts), -1, -1):
                directory = os.path.join(base, *parts[:depth])
                limits.append(
                    _quota_v1(
                        _read(os.path.join(directory, "cpu.cfs_quota_us")),
                        _read(os.path.join(directory, "cpu.cfs_period_us")),
                    )
                )
    found = [limit for limit in limits if limit is not None]
    return min(found) if found else None


def available_cpus() -> int:
    """CPUs this process may use: its affinity mask, capped by its cgroup's CPU quota."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    quota = cgroup_cpu_limit()
    if quota is not None:
        count = min(count, math.ceil(quota))
    return max(1, count)


def _positive(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    first = value.split(",")[0].strip()  # OMP_NUM_THREADS may list one value per nesting level
    try:
        count = int(first)
    except ValueError:
        count = 0
    if count >= 1:
        return count
    warnings.warn(f"fastbits: {name}={value!r} is not a positive int; ignored", RuntimeWarning, stacklevel=3)
    return None


def default_num_threads() -> int:
    """``FASTBITS_NUM_THREADS``, else ``OMP_NUM_THREADS``, else :func:`available_cpus`."""
    for name in ("FASTBITS_NUM_THREADS", "OMP_NUM_THREADS"):
        count = _positive(name)
        if count is not None:
            return count
    return available_cpus()


def _cache_size(text: str | None) -> int | None:
    """Bytes of a sysfs cache ``size`` ("32K", "8192K", "1M" or a plain number)."""
    text = (text or "").strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if scale > 1 else text
    return int(digits) * scale if digits.isdigit() and int(digits) > 0 else None


def last_level_cache_bytes(root: str = "/sys/devices/system/cpu/cpu0/cache") -> int | None:
    """The size of CPU 0's largest data or unified cache (its last level) from Linux's sysfs;
    None where the system does not say (other systems, or a sysfs without cache entries)."""
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return None
    sizes = []
    for entry in entries:
        if not entry.startswith("index"):
            continue
        kind = (_read(os.path.join(root, entry, "type")) or "").strip()
        if kind in ("Data", "Unified"):
            size = _cache_size(_read(os.path.join(root, entry, "size")))
            if size is not None:
                sizes.append(size)
    return max(sizes) if sizes else None


def default_stream_threshold() -> int:
    """Bytes of a result from which it is written with streaming stores: a quarter
    (:data:`STREAM_DIVISOR`) of the last-level cache's size, else of
    :data:`FALLBACK_CACHE_BYTES`."""
    return (last_level_cache_bytes() or FALLBACK_CACHE_BYTES) // STREAM_DIVISOR


#: Seconds a helper that ran a share watches for the next call before it sleeps.
SPIN_TIME = 0.0005

def default_spin_time() -> float:
    """Seconds the team's helpers watch for the next call before they sleep: :data:`SPIN_TIME`,
    or 0 when ``OMP_WAIT_POLICY`` is ``passive``."""
    return 0.0 if os.environ.get("OMP_WAIT_POLICY", "").strip().lower() == "passive" else SPIN_TIME


#: The instruction sets the compiled loops have versions for, beside the baseline.
CPU_FEATURES = ("AVX2", "F16C")


def allowed_cpu_features(value: str | None = None) -> tuple[str, ...]:
    """The features of :data:`CPU_FEATURES` that ``FASTBITS_DISABLE_CPU_FEATURES`` (or
    ``value``) does not name; a name that is none of them is ignored with a warning."""
    if value is None:
        value = os.environ.get("FASTBITS_DISABLE_CPU_FEATURES", "")
    names = {name.upper() for name in value.replace(",", " ").split()}
    unknown = sorted(names - set(CPU_FEATURES))
    if unknown:
        warnings.warn(f"fastbits: FASTBITS_DISABLE_CPU_FEATURES names {', '.join(unknown)}, which the loops have no "
                      f"version for (they have: {', '.join(CPU_FEATURES)}); ignored", RuntimeWarning, stacklevel=2)
    return tuple(feature for feature in CPU_FEATURES if feature not in names)
