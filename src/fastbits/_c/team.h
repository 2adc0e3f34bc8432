/* The thread team: fastbits' own small pool of helper threads.

   A parallel call is cut into ``nshares`` contiguous shares, one per thread: the caller runs
   share 0 and helper s runs share s.  Only the helpers a call uses are woken.  The caller never
   waits for a helper that has not started: once its own share is done it runs every share that
   no helper has claimed yet, and then waits only for the shares in progress.  So a helper slow
   to wake, or kept off its core by other work, costs at most its share's time, never a
   scheduler tick.  One call uses the team at a time; a call made while the team is busy (from
   another Python thread) runs on its caller alone.  After fork() the child has no helpers and
   starts new ones when it needs them. */
#ifndef FASTBITS_TEAM_H
#define FASTBITS_TEAM_H

#include "config.h"

/* Runs share ``share`` (of the call's ``nshares``) on the thread in team slot ``slot`` (0: the
   caller); a share's scratch memory may be keyed by the slot. */
typedef void (*fb_share_fn)(void *ctx, int share, int slot);

/* Run shares [0, nshares) of fn on the caller and helpers 1..nshares-1; return when all are
   done.  Helpers are started on first use.  nshares <= 1 runs share 0 on the caller.
   ``spin_ns`` (the spin_time of the call's settings snapshot) is how long the caller watches
   for the shares in progress before it sleeps, and how long the helpers this call used watch
   for the next call after it (yielding their CPU between looks): a helper that watches answers
   the next call at once; one asleep is woken by the kernel, tens of microseconds later. */
void fb_team_run(fb_share_fn fn, void *ctx, int nshares, fb_ssize spin_ns);

/* The ``nshares`` of the last fb_team_run on the calling thread (0 before the first): what the
   grain rule chose for it, even where a busy team made it run on its caller alone. */
int fb_team_last_shares(void);

/* Count a call its caller ran alone, without fb_team_run (the entry points' one-row path), as
   this thread's last call for fb_team_last_shares. */
void fb_team_note_inline(void);

/* 1 when the build has the team (POSIX threads, not FB_NO_THREADS). */
int fb_team_available(void);

/* What the team did since the process started. */
typedef struct {
    int started;             /* helper threads started */
    fb_ssize parallel_calls; /* calls shared with helpers */
    fb_ssize helper_shares;  /* shares the helpers ran (the caller ran the others) */
} fb_team_stats_t;
void fb_team_stats(fb_team_stats_t *stats);

/* Register the fork handler; 0 on success. */
int fb_team_init(void);

#endif /* FASTBITS_TEAM_H */
