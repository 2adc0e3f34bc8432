/* The monotonic clock, in nanoseconds, for the team's spin time and the pool's idle ages.
   POSIX only: the team and the pool exist only there. */
#ifndef FASTBITS_CLOCK_H
#define FASTBITS_CLOCK_H

#include <time.h>

static inline long long fb_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

#endif /* FASTBITS_CLOCK_H */
