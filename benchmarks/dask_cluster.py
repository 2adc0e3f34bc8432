"""fastbits on a dask.distributed LocalCluster against dask's own numpy-based operators.

Starts a LocalCluster of 2 worker processes with one thread each, makes two random int32
arrays of ``--gib`` GiB each on the workers (generated there by dask, never on the client),
and times each row's result computed into chunks held by the workers (``client.persist``,
then waiting for every chunk; nothing is gathered to the client, and the result is released
before the next run): one untimed run of each side, then ``--rounds`` rounds alternating them.

* ``x & y``: dask's own operator, numpy's ufunc on each pair of chunks;
* ``fastbits.bitwise_and(x, y)``: fastbits on the same chunks;
* ``x.view(float32)`` with a copy per chunk, against ``fastbits.bitcast(x, FLOAT, copy=True)``.

It prints each row's time per round, the median, and the ratio dask / fastbits.  Memory: the
workers hold both inputs and one result, 3 x ``--gib`` GiB (6 GiB at the default 2).

Run it after a change to the dask integration (``src/fastbits/_dask.py``) or to the kernels'
large-array loops, on a machine that runs nothing else; docs/scaling-out.md quotes a run.

    python benchmarks/dask_cluster.py [--gib 2] [--rounds 5] [--chunk-mib 64]

A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import statistics
import time

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster, wait

import fastbits


def rows(x, y):
    """(name, dask's lazy result, fastbits' lazy result) of each comparison."""
    return [
        ("AND", x & y, fastbits.bitwise_and(x, y)),
        ("bitcast copy", x.view(np.float32).map_blocks(np.copy), fastbits.bitcast(x, "FLOAT", copy=True)),
    ]


def timed(client, result):
    """Seconds to compute ``result`` into chunks on the workers."""
    start = time.perf_counter()
    held = client.persist(result)
    wait(held)
    seconds = time.perf_counter() - start
    del held
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gib", type=float, default=2.0, help="GiB of each int32 input (default 2)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chunk-mib", type=int, default=64, help="MiB of each chunk (default 64)")
    args = parser.parse_args()
    columns = 1 << 14
    count = int(args.gib * (1 << 30)) // 4 // columns
    chunk_rows = max(1, (args.chunk_mib << 20) // 4 // columns)
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        rng = da.random.default_rng(0)
        x = rng.integers(0, 1 << 31, (count, columns), dtype=np.int32, chunks=(chunk_rows, columns))
        y = rng.integers(0, 1 << 31, (count, columns), dtype=np.int32, chunks=(chunk_rows, columns))
        x, y = client.persist([x, y])
        wait([x, y])
        print(f"fastbits {fastbits.__version__} ({fastbits.BACKEND}); {x.nbytes / (1 << 30):.2f} GiB int32 each, "
              f"{x.npartitions} chunks of {chunk_rows * columns * 4 >> 20} MiB; 2 worker processes x 1 thread; "
              f"task_threads={fastbits.get_config()['task_threads']}")
        for name, with_dask, with_fastbits in rows(x, y):
            times = {"dask": [], "fastbits": []}
            timed(client, with_dask)  # untimed: the workers' first touch of the result's memory
            timed(client, with_fastbits)
            for _ in range(args.rounds):
                times["dask"].append(timed(client, with_dask))
                times["fastbits"].append(timed(client, with_fastbits))
            medians = {side: statistics.median(values) for side, values in times.items()}
            for side, values in times.items():
                print(f"{name:>13} {side:>8}: median {medians[side]:.3f} s   rounds "
                      + " ".join(f"{value:.3f}" for value in values))
            print(f"{name:>13} dask / fastbits: {medians['dask'] / medians['fastbits']:.2f}")


if __name__ == "__main__":
    main()
