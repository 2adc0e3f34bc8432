/* The thread tuner: whether a call runs on its caller alone or on the thread team, chosen by
   timing both on calls like it.

   Whether a second thread pays for a call of a few MiB is a property of the machine, and of its
   state, that no fixed threshold captures.  On this project's 2-core virtual machine a 1M int32
   AND with a scalar (4 MiB read from cache, 4 MiB streamed out) took 263 µs on one thread and
   409 µs on two, while a 1M int32 AND of two arrays took 545 µs on one and 351 µs on two, and a
   256 KiB result 1.5x less time on two; at other times, when its two CPUs did not seem to share
   a cache, a 256 KiB result took 1.5x longer on two.

   So calls are sorted into classes, by their work (a power-of-two range) and their kind (result
   through the cache; result streamed with one input stream; streamed with two), and each class
   holds a duel from time to time: 12 calls in four blocks of three, the block's mode alternating
   (the one not chosen first), the first call of each block untimed (it pays for the switch:
   helpers waking, data moving between caches).  The team wins when the median of its four
   timings per byte of work is at least FB_TUNE_MARGIN below the caller's alone; otherwise the
   caller runs alone, which leaves the other cores to other work.  Between duels the winner runs
   untimed, for 16 calls after a duel that changed the choice and twice as many as last time after
   one that kept it, up to 1024: a machine whose state changes is followed within a few duels,
   and one that does not pays for a duel a few times in a thousand calls.

   Calls of FB_TUNE_MAX_WORK bytes of work or more always use the team (streaming from memory,
   where two threads move more than one); so do calls while tuning is off (the adaptive_threads
   setting).  A class's measurements are forgotten when the team's size changes. */
#ifndef FASTBITS_TUNE_H
#define FASTBITS_TUNE_H

#include "team.h"

/* What a call moves, for its class. */
#define FB_TUNE_CACHED 0     /* its result is written through the cache */
#define FB_TUNE_STREAMED_1 1 /* streamed, read from one input stream (a scalar, a broadcast row, NOT) */
#define FB_TUNE_STREAMED_2 2 /* streamed, read from two */
#define FB_TUNE_KINDS 3

#define FB_TUNE_MIN_LOG 15               /* class 0: work below 64 KiB */
#define FB_TUNE_MAX_LOG 26               /* tuned below 64 MiB of work */
#define FB_TUNE_MAX_WORK ((fb_ssize)1 << FB_TUNE_MAX_LOG)
#define FB_TUNE_SIZES (FB_TUNE_MAX_LOG - FB_TUNE_MIN_LOG)
#define FB_TUNE_CLASSES (FB_TUNE_SIZES * FB_TUNE_KINDS)
#define FB_TUNE_MARGIN 0.05

/* Run pieces [0, npieces) of fn like fb_team_run, with ``helpers`` helpers or none, whichever the
   call's class has found faster.  ``work``: the call's bytes of work (its class's size);
   ``kind``: one of FB_TUNE_CACHED, FB_TUNE_STREAMED_1, FB_TUNE_STREAMED_2.  Safe from any number
   of threads at once: a class another thread is updating is left as it is (the call runs the
   class's current choice, untimed). */
void fb_tuned_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers, fb_ssize work, int quick, int kind);

/* Tuning on (1) or off (0): off, every call runs with the helpers it is given.  Turning it on
   forgets every class's measurements. */
void fb_tune_set(int on);
int fb_tune_get(void);

/* Register the fork handler (a child made by fork() forgets every class); 0 on success. */
int fb_tune_init(void);

/* A class's state, for runtime_info(). */
typedef struct {
    fb_ssize work_from, work_to; /* its calls' work: [work_from, work_to) bytes */
    int kind;                    /* FB_TUNE_CACHED, ... */
    int helpers;                 /* the team size its measurements are for */
    int team;                    /* 1: its calls use the team now; 0: their caller alone */
    fb_ssize calls_alone;        /* calls run alone, */
    fb_ssize calls_team;         /* and on the team, duels included, */
    fb_ssize duels;              /* duels decided, */
    fb_ssize switches;           /* and those that changed the choice */
} fb_tune_class_t;

/* Copy out the classes that have had calls (at most FB_TUNE_CLASSES); return how many. */
int fb_tune_report(fb_tune_class_t *out);

#endif /* FASTBITS_TUNE_H */
