"""The layouts of issue 29's table against numpy: transposed, permuted and Fortran-ordered
operands, whose fresh results take their layout (numpy's order='K').

Each case alternates fastbits' call and numpy's, 41 rounds, and prints the medians and
numpy's time over fastbits' (above 1: fastbits is faster).  A benchmark, not a test:

    python benchmarks/layouts.py
"""

import statistics
import time

import numpy as np

import fastbits


def main() -> None:
    rng = np.random.default_rng(0)

    def ints(shape):
        return rng.integers(-2**31, 2**31 - 1, shape, dtype=np.int32)

    a, b = ints((1024, 1024)), ints((1024, 1024))
    p, q = ints((128, 64, 128)), ints((128, 64, 128))
    f, column = np.asfortranarray(ints((2048, 2048))), ints((2048, 1))
    cases = [
        ("and(a.T, b.T) (1K,1K)", lambda: fastbits.bitwise_and(a.T, b.T), lambda: np.bitwise_and(a.T, b.T)),
        ("xor permuted (128,64,128)", lambda: fastbits.bitwise_xor(p.transpose(2, 0, 1), q.transpose(2, 0, 1)),
         lambda: np.bitwise_xor(p.transpose(2, 0, 1), q.transpose(2, 0, 1))),
        ("not(a.T) (1K,1K)", lambda: fastbits.bitwise_not(a.T), lambda: np.invert(a.T)),
        ("Fortran (2K,2K) & column", lambda: fastbits.bitwise_and(f, column), lambda: np.bitwise_and(f, column)),
        ("bitcast(a.T, FLOAT, copy=True)", lambda: fastbits.bitcast(a.T, "FLOAT", copy=True),
         lambda: np.copy(a.T).view(np.float32)),
    ]
    for name, ours, theirs in cases:
        ours(), theirs()
        times = {"ours": [], "theirs": []}
        for _ in range(41):
            for key, call in (("ours", ours), ("theirs", theirs)):
                start = time.perf_counter()
                call()
                times[key].append(time.perf_counter() - start)
        mine, numpy = statistics.median(times["ours"]), statistics.median(times["theirs"])
        print(f"{name:32s} fastbits {mine * 1e3:7.3f} ms  numpy {numpy * 1e3:7.3f} ms  "
              f"numpy/fastbits {numpy / mine:5.2f}")


if __name__ == "__main__":
    main()
