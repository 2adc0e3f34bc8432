/* What a variable shift costs this CPU against an AND, without Python, planning or calls.

   fastbits' shifts of 32- and 64-bit elements run on AVX2's vpsllvd/vpsrlvd/vpsravd (one
   instruction per vector: fastbits/_c/loops.c); its AND on vpand.  This program times
   o = a OP b over 4096 uint32 (the kernels benchmark's "4096 x int32" case, in cache) with those
   instructions.  The loops differ in that one instruction alone, so the difference between
   their times is what the shift instruction costs more than vpand on this CPU.

   Build and run (x86-64 with AVX2; a benchmark, not a test):

       gcc -O3 benchmarks/bench_shift_instruction.c -o /tmp/bench_shift && /tmp/bench_shift

   Prints the median of 15 interleaved rounds of each. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096
#define CALLS 20000
#define ROUNDS 15
#define AVX2 __attribute__((target("avx2"), noinline))

typedef void (*loop_fn)(uint32_t *o, const uint32_t *a, const uint32_t *b);

AVX2 static void loop_and(uint32_t *o, const uint32_t *a, const uint32_t *b) {
    for (int i = 0; i < N; i += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(a + i)), y = _mm256_loadu_si256((const __m256i *)(b + i));
        _mm256_storeu_si256((__m256i *)(o + i), _mm256_and_si256(x, y));
    }
}

AVX2 static void loop_shl(uint32_t *o, const uint32_t *a, const uint32_t *b) {
    for (int i = 0; i < N; i += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(a + i)), y = _mm256_loadu_si256((const __m256i *)(b + i));
        _mm256_storeu_si256((__m256i *)(o + i), _mm256_sllv_epi32(x, y));
    }
}

AVX2 static void loop_sar(uint32_t *o, const uint32_t *a, const uint32_t *b) {
    for (int i = 0; i < N; i += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(a + i)), y = _mm256_loadu_si256((const __m256i *)(b + i));
        _mm256_storeu_si256((__m256i *)(o + i), _mm256_srav_epi32(x, y));
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(void) {
    static uint32_t a[N] __attribute__((aligned(64))), b[N] __attribute__((aligned(64))),
        o[N] __attribute__((aligned(64)));
    const char *names[] = {"AND (vpand)", "LEFT (vpsllvd)", "RIGHT, signed (vpsravd)"};
    loop_fn fns[] = {loop_and, loop_shl, loop_sar};
    enum { K = sizeof fns / sizeof fns[0] };
    double t[K][ROUNDS], median[K];
    if (!__builtin_cpu_supports("avx2")) {
        puts("this CPU has no AVX2");
        return 1;
    }
    for (int i = 0; i < N; i++) {
        a[i] = (uint32_t)i * 2654435761u;
        b[i] = (uint32_t)(i * 7) % 40; /* amounts 32..39 are past the width */
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < K; k++) {
            double t0 = now();
            for (int c = 0; c < CALLS; c++) fns[k](o, a, b);
            t[k][r] = (now() - t0) / CALLS * 1e9;
        }
    printf("%-32s %10s %10s\n", "4096 x uint32", "ns/call", "x AND");
    for (int k = 0; k < K; k++) {
        qsort(t[k], ROUNDS, sizeof(double), by_value);
        median[k] = t[k][ROUNDS / 2];
    }
    for (int k = 0; k < K; k++)
        printf("%-32s %10.1f %10.2f\n", names[k], median[k], median[k] / median[0]);
    return 0;
}
