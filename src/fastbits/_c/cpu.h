/* The instruction sets the loops may use, chosen at run time.

   A function defined with FB_DISPATCHED is compiled twice, for AVX2 and for the baseline, and
   calls one of them by fb_cpu_avx2: set once, when the module loads (fb_cpu_init), where the
   CPU has AVX2 and the caller allows it (FASTBITS_DISABLE_CPU_FEATURES, read in Python by
   fastbits._cpus, as numpy's NPY_DISABLE_CPU_FEATURES).  So the baseline loops run, and can be
   tested, on a machine that has AVX2.  Before fb_cpu_init, the baseline.  Only GCC on x86-64
   glibc builds the AVX2 versions (FB_HAVE_AVX2, platform.h); elsewhere a dispatched function
   is the baseline one alone. */
#ifndef FASTBITS_CPU_H
#define FASTBITS_CPU_H

#include "platform.h"

/* The choice, alone on its cache line: each row of every call reads it, on every thread, and a
   line it shared with data that threads write (the team's state, the pool's counters) would be
   fetched again at each read.  Each module that compiles cpu.c has its own. */
typedef struct {
    int avx2; /* 1 where the AVX2 versions run: the CPU has AVX2 and FMA (x86-64-v3's pair) */
    int f16c; /* 1 where binary16 <-> float rows use F16C's conversions (convert.c) */
    char pad[64 - 2 * sizeof(int)];
} fb_cpu_t;
extern FB_HIDDEN FB_ALIGNED(64) fb_cpu_t fb_cpu;
#define fb_cpu_avx2 (fb_cpu.avx2)

/* Choose the versions: AVX2 where the CPU has AVX2 and FMA (every AVX2 processor has both; a
   loop may use either) and allow_avx2 is set, F16C likewise by allow_f16c; returns
   fb_cpu_avx2. */
int fb_cpu_init(int allow_avx2, int allow_f16c);

#if FB_HAVE_AVX2
#define FB_TARGET_AVX2 __attribute__((target("avx2")))
/* RET NAME PARAMS, whose body follows the macro: the body inlined into an AVX2 and a baseline
   version, and NAME calling one of them.  ARGS are PARAMS' names, in parentheses. */
#define FB_DISPATCHED(RET, NAME, PARAMS, ARGS)                                                    \
    static FB_ALWAYS_INLINE RET NAME##_body PARAMS;                                               \
    FB_TARGET_AVX2 static RET NAME##_avx2 PARAMS { return NAME##_body ARGS; }                     \
    static RET NAME##_base PARAMS { return NAME##_body ARGS; }                                    \
    static inline RET NAME PARAMS { return fb_cpu_avx2 ? NAME##_avx2 ARGS : NAME##_base ARGS; }  \
    static FB_ALWAYS_INLINE RET NAME##_body PARAMS
/* The same for a function returning nothing. */
#define FB_DISPATCHED_VOID(NAME, PARAMS, ARGS)                                                    \
    static FB_ALWAYS_INLINE void NAME##_body PARAMS;                                              \
    FB_TARGET_AVX2 static void NAME##_avx2 PARAMS { NAME##_body ARGS; }                           \
    static void NAME##_base PARAMS { NAME##_body ARGS; }                                          \
    static inline void NAME PARAMS {                                                              \
        if (fb_cpu_avx2) NAME##_avx2 ARGS;                                                        \
        else NAME##_base ARGS;                                                                    \
    }                                                                                             \
    static FB_ALWAYS_INLINE void NAME##_body PARAMS
#else
#define FB_DISPATCHED(RET, NAME, PARAMS, ARGS) static RET NAME PARAMS
#define FB_DISPATCHED_VOID(NAME, PARAMS, ARGS) static void NAME PARAMS
#endif

#endif /* FASTBITS_CPU_H */
