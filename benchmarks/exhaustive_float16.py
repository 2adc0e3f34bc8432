"""Cast between float32 and float16 on every input, with each CPU feature set the loops can use:
the F16C instructions' rows are proven bit-identical to the portable C (AVX2's clone and the
baseline) on all 2**32 float32 values and all 65,536 float16 ones, NaN payloads included.

Each feature set runs in a process of its own (``FASTBITS_DISABLE_CPU_FEATURES`` is read at
import), which casts the float32 values in chunks of 2**24 and reports a digest of each chunk's
result; the digests must agree.  Too slow for the suite (about a minute a process); the suite
holds every path to the pure reference on every float16 value and on every float32 rounding
case near the float16 range (tests/test_cast.py).

    python benchmarks/exhaustive_float16.py
"""

import hashlib
import json
import os
import subprocess
import sys
import time

CHUNK = 1 << 24
FEATURE_SETS = {"every feature": "", "no F16C": "F16C", "baseline": "AVX2,F16C"}


def digests() -> dict:
    """In the child: the features in use and a digest of every chunk's result."""
    import numpy as np

    import fastbits

    halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    out = {"features": fastbits.runtime_info()["cpu_features"],
           "halves": hashlib.sha256(fastbits.cast(halves, "FLOAT").tobytes()).hexdigest(), "floats": []}
    bits = np.empty(CHUNK, dtype=np.uint32)
    for start in range(0, 1 << 32, CHUNK):
        np.add(np.arange(CHUNK, dtype=np.uint32), np.uint32(start), out=bits)
        out["floats"].append(hashlib.sha256(fastbits.cast(bits.view(np.float32), "FLOAT16").tobytes()).hexdigest())
    return out


def main() -> int:
    results = {}
    for name, disabled in FEATURE_SETS.items():
        began = time.perf_counter()
        env = {**os.environ, "FASTBITS_DISABLE_CPU_FEATURES": disabled}
        done = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True,
                              check=True)
        results[name] = json.loads(done.stdout)
        print(f"{name:14s} features {results[name]['features']}: {time.perf_counter() - began:.0f} s")
    first, *others = results.values()
    failed = 0
    for name, result in results.items():
        if result is first:
            continue
        bad = [i for i, (a, b) in enumerate(zip(first["floats"], result["floats"], strict=True)) if a != b]
        if result["halves"] != first["halves"]:
            print(f"{name}: float16 -> float differs")
            failed = 1
        if bad:
            print(f"{name}: float -> float16 differs in chunks {bad[:8]} (inputs from {bad[0] * CHUNK:#010x})")
            failed = 1
    if len({tuple(r["features"]) for r in results.values()}) < len(results):
        print("note: some feature sets ran the same loops (this CPU lacks a feature)")
    print("identical on all 2**32 float32 and 2**16 float16 inputs" if not failed else "DIFFERENT")
    return failed


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        print(json.dumps(digests()))
    else:
        sys.exit(main())
