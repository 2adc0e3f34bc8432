/* The thread team: fastbits' own small pool of helper threads, and the thread limit it obeys.

   A parallel call is cut into pieces that threads claim with an atomic counter.  The calling
   thread starts on the pieces at once and never waits for a helper that has not started: a
   helper joins only while the call is open, and the caller waits only for the helpers that
   joined (each finishing the piece in its hands).  A helper slow to wake, or kept off its core
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
   every piece is done.  Helpers are started on first use. */
void fb_team_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers);

/* The thread limit: how many threads (the caller included) a call may use, at least 1.  It is
   what fastbits.set_num_threads sets and threadpoolctl reads and limits. */
int fb_threads_get(void);
void fb_threads_set(int n);

/* The same, under names threadpoolctl looks up in the loaded extension (ctypes). */
FB_EXPORT int fastbits_get_num_threads(void);
FB_EXPORT void fastbits_set_num_threads(int n);

/* How long a helper that finished a call watches for the next one before it sleeps, and how
   many helpers may do so (helpers 1..helpers; the runtime passes the CPUs the process may use,
   less the caller's, so that spinning never takes a core from the caller).  Spinning makes
   the next call's wake-up cost nothing; OMP_WAIT_POLICY=passive turns it off (the runtime). */
#define FB_TEAM_SPIN_NS 50000L
void fb_team_set_spin(long nanoseconds, int helpers);

/* 1 when the build has the team (POSIX threads, not FB_NO_THREADS). */
int fb_team_available(void);

/* Helper threads started, and pieces they ran since the process started. */
void fb_team_stats(int *started, fb_ssize *helper_pieces);

/* Register the fork handler; 0 on success. */
int fb_team_init(void);

#endif /* FASTBITS_TEAM_H */
