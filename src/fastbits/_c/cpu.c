/* The run-time choice of instruction sets (cpu.h). */
#include "cpu.h"

FB_HIDDEN FB_ALIGNED(64) fb_cpu_t fb_cpu;

int fb_cpu_init(int allow_avx2) {
#if FB_HAVE_AVX2
    __builtin_cpu_init();
    fb_cpu.avx2 = allow_avx2 && __builtin_cpu_supports("avx2");
#else
    (void)allow_avx2;
    fb_cpu.avx2 = 0;
#endif
    return fb_cpu.avx2;
}
