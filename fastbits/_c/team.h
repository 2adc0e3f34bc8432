/* The thread team: fastbits' own small pool of helper threads, and the thread limit it obeys.

   A parallel call is cut into pieces, in one share per thread; threads claim pieces with atomic
   counters, each its own share first (so that a piece, and its data, goes to the same thread
   call after call), then what is left of the others'.  The calling thread starts on the pieces
   at once and never waits for a helper that has not started: a helper joins only while the call
   is open, and the caller waits only for the helpers that joined (each finishing the piece in
   its hands).  A helper slow to wake, or kept off its core
   by other work, costs nothing, where a fork-join barrier (OpenMP's) would wait a whole
   scheduler tick for it.  One call uses the team at a time; a call made while the team is busy
   (from another Python thread) runs on its caller's thread alone.  After fork() the child has
   no helpers and makes new ones when it needs them. */
#ifndef FASTBITS_TEAM_H
#define FASTBITS_TEAM_H

#include "platform.h"

#define FB_MAX_THREADS 256 /* threads one call may use: the caller and 255 helpers */

/* Runs piece ``piece`` of a call on the thread in team slot ``slot`` (0: the caller). */
typedef void (*fb_piece_fn)(void *ctx, fb_ssize piece, int slot);

/* Run pieces [0, npieces) of fn on the calling thread and up to ``helpers`` helpers; return when
   every piece is done.  Helpers are started on first use.

   ``quick``: the call is short (some 100 µs on one thread, or less), shorter than a sleeping
   helper's wake-up is worth: waking one costs the caller a system call and, on a virtual
   machine, tens of microseconds, and the helper seldom joins in time (measured after 3 ms
   idle: a 64K int32 AND 39 µs alone, 70 µs waking a helper that ran 1 piece in 100 calls).
   Such a call uses helpers that are watching (see fb_team_set_spin); it wakes sleeping ones
   only when the previous call came within the spin time (a stream of calls has begun, which
   the woken helper will watch for), and otherwise runs on its caller alone. */
void fb_team_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers, int quick);

/* A call that could have used the team ran on its caller alone (the thread tuner chose so): it
   counts for the quick rule as a call made now, so that when the next call uses the team, a
   stream of calls has begun and the helpers are woken for it. */
void fb_team_note_call(void);

/* The thread limit: how many threads (the caller included) a call may use, at least 1.  It is
   what fastbits.set_num_threads sets and threadpoolctl reads and limits. */
int fb_threads_get(void);
void fb_threads_set(int n);

/* The same, under names threadpoolctl looks up in the loaded extension (ctypes). */
FB_EXPORT int fastbits_get_num_threads(void);
FB_EXPORT void fastbits_set_num_threads(int n);

/* How long a helper that finished a call watches for the next one before it sleeps, and how
   many helpers may do so (helpers 1..helpers; the runtime passes the CPUs the process may use,
   less the caller's, so that watching never takes a core from the caller).  A helper that
   watches answers the next call at once; one asleep is woken by the kernel, which on a virtual
   machine took 15-90 µs (measured: 1M int8 AND after a numpy call, 43 µs on two threads when
   the helper slept, 29 µs when it watched, 55 µs on one thread).  For its first
   FB_TEAM_PAUSE_NS a helper spins; after that it yields its CPU between looks (sched_yield), so
   that any other thread that wants the core gets it.  A new time applies at once, also to
   helpers watching now.  The runtime sets it from the spin_time setting; OMP_WAIT_POLICY=passive
   makes its default 0. */
#define FB_TEAM_SPIN_NS 1000000L
#define FB_TEAM_PAUSE_NS 50000L
void fb_team_set_spin(long nanoseconds, int helpers);
long fb_team_get_spin(void);

/* 1 when the build has the team (POSIX threads, not FB_NO_THREADS). */
int fb_team_available(void);

/* What the team did since the process started. */
typedef struct {
    int started;               /* helper threads started */
    fb_ssize helper_pieces;    /* pieces of work they ran */
    fb_ssize calls_watched;    /* calls a helper they allowed saw while watching for them */
    fb_ssize calls_woken;      /* calls a helper they allowed was woken from sleep for */
} fb_team_stats_t;
void fb_team_stats(fb_team_stats_t *stats);

/* Register the fork handler; 0 on success. */
int fb_team_init(void);

#endif /* FASTBITS_TEAM_H */
