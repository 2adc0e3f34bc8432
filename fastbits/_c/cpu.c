/* The run-time choice of instruction sets (cpu.h). */
#include "cpu.h"

FB_HIDDEN int fb_cpu_avx2 = 0;

int fb_cpu_init(int allow_avx2) {
#if FB_HAVE_AVX2
    __builtin_cpu_init();
    fb_cpu_avx2 = allow_avx2 && __builtin_cpu_supports("avx2");
#else
    (void)allow_avx2;
    fb_cpu_avx2 = 0;
#endif
    return fb_cpu_avx2;
}
