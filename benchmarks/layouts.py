"""Layouts against numpy: transposed, permuted and Fortran-ordered operands, whose fresh
results take their layout (numpy's order='K'); and Cast into a preallocated ``out=``, into
another order, and from a byte-swapped input, against numpy's and ml_dtypes' ``astype`` and
assignment (4M float32: into float16, numpy's; into FLOAT8E4M3FN without saturation,
ml_dtypes'); Cast into FLOAT8E8M0 in each layout against fastbits' own fresh cast of the
same values into FLOAT8E4M3FN; and Cast in order "F" and from a byte-swapped input against
the same conversion's fresh call.

Each case alternates fastbits' call and the other's, 41 rounds, and prints the medians and
the other's time over fastbits' (above 1: fastbits is faster).  A benchmark, not a test:

    python benchmarks/layouts.py
"""

import statistics
import time

import ml_dtypes
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
    x = rng.standard_normal((2048, 2048)).astype(np.float32) * 100
    swapped = x.astype(">f4")
    half, f8 = np.empty(x.shape, np.float16), np.empty(x.shape, ml_dtypes.float8_e4m3fn)
    e4m3, e8m0 = fastbits.DataType.FLOAT8E4M3FN, fastbits.DataType.FLOAT8E8M0
    scales = np.empty(x.shape, ml_dtypes.float8_e8m0fnu)

    def assign(out, values):
        out[...] = values
        return out

    cases += [
        ("cast float16 fresh (2K,2K)", lambda: fastbits.cast(x, np.float16), lambda: x.astype(np.float16)),
        ("cast float16 out=", lambda: fastbits.cast(x, np.float16, out=half), lambda: assign(half, x)),
        ("cast float16 order=F", lambda: fastbits.cast(x, np.float16, order="F"),
         lambda: x.astype(np.float16, order="F")),
        ("cast float16 from >f4", lambda: fastbits.cast(swapped, np.float16), lambda: swapped.astype(np.float16)),
        ("cast e4m3fn out= (ml_dtypes)", lambda: fastbits.cast(x, e4m3, saturate=False, out=f8),
         lambda: assign(f8, x)),
        ("cast e4m3fn from >f4 (ml_dtypes)", lambda: fastbits.cast(swapped, e4m3, saturate=False),
         lambda: swapped.astype(ml_dtypes.float8_e4m3fn)),
        # FLOAT8E8M0 against fastbits' own fresh float8e4m3fn cast of the same values
        ("cast e8m0 fresh (vs e4m3fn fresh)", lambda: fastbits.cast(x, e8m0), lambda: fastbits.cast(x, e4m3)),
        ("cast e8m0 out= (vs e4m3fn fresh)", lambda: fastbits.cast(x, e8m0, out=scales),
         lambda: fastbits.cast(x, e4m3)),
        ("cast e8m0 order=F (vs e4m3fn fresh)", lambda: fastbits.cast(x, e8m0, order="F"),
         lambda: fastbits.cast(x, e4m3)),
        ("cast e8m0 from >f4 (vs e4m3fn fresh)", lambda: fastbits.cast(swapped, e8m0), lambda: fastbits.cast(x, e4m3)),
        # each layout against the same conversion's fresh call
        ("cast e4m3fn order=F (vs its fresh)", lambda: fastbits.cast(x, e4m3, order="F"),
         lambda: fastbits.cast(x, e4m3)),
        ("cast e4m3fn from >f4 (vs its fresh)", lambda: fastbits.cast(swapped, e4m3), lambda: fastbits.cast(x, e4m3)),
        ("cast float16 order=F (vs its fresh)", lambda: fastbits.cast(x, np.float16, order="F"),
         lambda: fastbits.cast(x, np.float16)),
        ("cast float16 from >f4 (vs its fresh)", lambda: fastbits.cast(swapped, np.float16),
         lambda: fastbits.cast(x, np.float16)),
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
        print(f"{name:38s} fastbits {mine * 1e3:7.3f} ms  other {numpy * 1e3:7.3f} ms  "
              f"other/fastbits {numpy / mine:5.2f}")


if __name__ == "__main__":
    main()
