/* The run-time choice of instruction sets (cpu.h). */
#include "cpu.h"

FB_HIDDEN FB_ALIGNED(64) fb_cpu_t fb_cpu;

int fb_cpu_init(int allow_avx2, int allow_f16c) {
#if FB_HAVE_AVX2
    __builtin_cpu_init();
    fb_cpu.avx2 = allow_avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    fb_cpu.f16c = allow_f16c && __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
#else
    (void)allow_avx2, (void)allow_f16c;
    fb_cpu.avx2 = 0;
    fb_cpu.f16c = 0;
#endif
    return fb_cpu.avx2;
}
