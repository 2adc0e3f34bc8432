/* The thread tuner: whether a call runs on its caller alone or on the thread team, chosen by
   timing both on calls like it.

   Whether a second thread pays for a call of a few MiB is a property of the machine, and of its
   state, that no fixed threshold captures.  On this project's 2-core virtual machine a 1M int32
   AND with a scalar (4 MiB read from cache, 4 MiB streamed out) took 263 µs on one thread and
   409 µs on two, while a 1M int32 AND of two arrays took 545 µs on one and 351 µs on two, and a
   256 KiB result 1.5x less time on two; at other times, when its two CPUs did not seem to share
   a cache, a 256 KiB result took 1.5x longer on two.

   So calls are sorted into classes: by the loop they run (a signature the caller gives: the
   operation, the element width, the loop, the operands' layout), their work (a power-of-two
   range), their kind (result through the cache; result streamed with one input stream;
   streamed with two) and the helpers they may use.  One call in four is timed per byte of work
   (two clock reads of 36 ns each on this VM and a lock, against the 10 µs and more of a call),
   and the four before a probe.  From time to time a class probes the mode it did not choose:
   five calls, the first untimed (it pays for the switch: helpers waking, data moving between
   caches), the four others compared with the four calls in the chosen mode just before.  The
   team is chosen when its median is at least FB_TUNE_JOIN below the caller's alone in two
   probes in a row (the first brings the second 16 calls closer; one is enough when the caller
   alone is 1.25 times slower), and kept while it is at least FB_TUNE_STAY below; otherwise the caller runs alone, which leaves the other cores to other
   work.  The gap between the two margins and the second probe are there for a class whose
   modes are close, or whose team calls are fast in some milliseconds and slow in others: with
   one margin of 5 % both ways and one probe, a 64K XOR with a scalar changed mode 9 times in
   3,100 calls of a full benchmark run, and each change brings the next probe closer.  The next probe comes 16
   calls after one that changed the choice, and after one that kept it twice as late as last
   time (four times when the probed mode was 25 % slower or more), up to 1024 calls; or, when
   the chosen mode's latest four timings are 1.5 times what they were when it was chosen,
   after four more calls, all timed (so that the probe is weighed against them, not against
   timings from before the change): a machine whose state changes is followed within a few calls, and one that does not
   spends a few calls in a thousand on the slower mode.  (An earlier form timed both modes in a
   duel of 12 calls each time: in the benchmark's rows of 100-200 calls its slower half cost
   2-6 %.)
   Classes of different loops do not share timings: per byte, a shift of bytes costs ten times
   an AND of bytes, and only the shift gains from a second thread at 1 MiB.

   The classes live in a table of FB_TUNE_CLASSES, FB_TUNE_WAYS to a set: a class that finds its
   set full takes the place of the one used least lately, which is forgotten.  Calls of
   FB_TUNE_MAX_WORK bytes of work or more always use the team (streaming from memory, where two
   threads move more than one); so do calls while tuning is off (the adaptive_threads setting). */
#ifndef FASTBITS_TUNE_H
#define FASTBITS_TUNE_H

#include "platform.h"

/* What a call moves, for its class. */
#define FB_TUNE_CACHED 0     /* its result is written through the cache */
#define FB_TUNE_STREAMED_1 1 /* streamed, read from one input stream (a scalar, a broadcast row, NOT) */
#define FB_TUNE_STREAMED_2 2 /* streamed, read from two */
#define FB_TUNE_KINDS 3

#define FB_TUNE_MIN_LOG 15               /* class 0: work below 64 KiB */
#define FB_TUNE_MAX_LOG 26               /* tuned below 64 MiB of work */
#define FB_TUNE_MAX_WORK ((fb_ssize)1 << FB_TUNE_MAX_LOG)
#define FB_TUNE_SIZES (FB_TUNE_MAX_LOG - FB_TUNE_MIN_LOG)
#define FB_TUNE_WAYS 2
#define FB_TUNE_CLASSES 256
#define FB_TUNE_JOIN 0.10 /* the team's median this much below alone's to be chosen */
#define FB_TUNE_STAY 0.02 /* ... and to be kept */

/* One call, between fb_tune_begin and fb_tune_end. */
typedef struct {
    void *slot;        /* its class, or NULL when it is not tuned */
    uint64_t key;      /* the class's key when it began */
    unsigned epoch;    /* the class's epoch when it began */
    int team;          /* 1: run the call on the team; 0: on its caller alone */
    int timed;         /* 1: fb_tune_end times it */
    long long start;   /* when it began (timed calls) */
    fb_ssize work;
} fb_tune_call_t;

/* Whether a call with ``helpers`` helpers at hand is to use them (1) or run on its caller alone
   (0), as the call's class has found faster; fills *call for fb_tune_end, which must follow
   the call (it takes its time).  ``signature``: the loop the call runs (calls that share one
   share timings; any value, chosen by the caller); ``work``: the call's bytes of work (its
   class's size); ``kind``: one of FB_TUNE_CACHED, FB_TUNE_STREAMED_1, FB_TUNE_STREAMED_2.  A
   call that is not tuned (tuning off, work of FB_TUNE_MAX_WORK or more, no helpers) uses the
   team.  Safe from any number of threads at once: a class another thread is updating is left
   as it is (the call takes the class's current choice, untimed). */
int fb_tune_begin(fb_tune_call_t *call, int helpers, uint32_t signature, fb_ssize work, int kind);
void fb_tune_end(fb_tune_call_t *call);

/* Tuning on (1) or off (0): off, every call uses the helpers it is given.  The classes are
   kept meanwhile: turned on again, they go on where they were (a stale choice lasts until the
   class's next probe). */
void fb_tune_set(int on);
int fb_tune_get(void);

/* Register the fork handler (a child made by fork() forgets every class); 0 on success. */
int fb_tune_init(void);

/* A class's state, for runtime_info(). */
typedef struct {
    uint32_t signature;          /* its calls' loop, as their caller gave it */
    fb_ssize work_from, work_to; /* its calls' work: [work_from, work_to) bytes */
    int kind;                    /* FB_TUNE_CACHED, ... */
    int helpers;                 /* the helpers its calls may use */
    int team;                    /* 1: its calls use the team now; 0: their caller alone */
    fb_ssize calls_alone;        /* calls run alone, */
    fb_ssize calls_team;         /* and on the team, probes included, */
    fb_ssize probes;             /* probes decided, */
    fb_ssize switches;           /* and those that changed the choice */
} fb_tune_class_t;

/* Copy out the classes that have had calls (at most FB_TUNE_CLASSES), in table order; return
   how many. */
int fb_tune_report(fb_tune_class_t *out);

#endif /* FASTBITS_TUNE_H */
