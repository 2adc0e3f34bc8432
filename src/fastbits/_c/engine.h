/* The engine: decides how every call runs, and runs it.

   The entry points (Cython) turn Python objects into operands and a kernel; everything about
   how the call runs is decided here, from one snapshot of the settings (fb_config_t, taken
   once per call, config.h):

   1. the broadcast of the inputs to the result's shape, and the result's size in bytes
      (fb_engine_broadcast, fb_engine_nbytes);
   2. whether ``out`` can be written as it is: no two of its indexes on one element, each
      input apart from it or mapped onto it element for element (fb_engine_writes_into,
      fb_engine_self_overlaps, fb_engine_row_writes_into);
   3. whether a fresh result comes from the output pool (fb_engine_pooled);
   4. the small-call path: a contiguous call the grain rule gives one thread runs as one row
      with no planning (fb_engine_inline);
   5. for any other call (fb_engine_plan): the coalescing of the axes (size-1 axes dropped,
      all-backwards axes turned around, axes ordered by the output's strides, or by the input's
      for a kernel that narrows it, and merged), the loop (one line; rows of the inner axis; a
      small input repeating along the outer axes, tiled once; tiles of the two inner axes where
      an input is transposed, gathered, or the output, scattered; short rows gathered into
      contiguous chunks), streaming stores, and the threads by the grain rule;
   6. whether the GIL is released while the kernels run (fb_engine_nogil);

   and fb_engine_run runs the shares on the thread team (team.h), with the snapshot's spin time.

   A kernel (loops.h) may read one width and write another (fb_kernel's in_width and width) and
   carry a table (fb_kernel's table): the engine moves elements by those widths and never looks
   inside them, so a new family of kernels needs no change here. */
#ifndef FASTBITS_ENGINE_H
#define FASTBITS_ENGINE_H

#include "loops.h"
#include "team.h"

/* Work under this many bytes runs on its caller with the GIL held.  Releasing and taking it
   back cost a median 50 ns on an int32 AND out= of 4096 elements (4095: 493 ns, 4096: 583 ns;
   31 interleaved rounds), a tenth of that call and less of every larger one, which lasts long
   enough for another Python thread to use the interpreter meanwhile. */
#define FB_NOGIL_BYTES (1 << 14)

/* An array as the entry points see it: its axes, shape, byte strides and data. */
typedef struct {
    int nd;
    const fb_ssize *n;
    const fb_ssize *s;
    char *p;
} fb_operand;

#define FB_SMALL_SLOT 1024 /* bytes of a small plan's scratch slot: 64 elements of 16 bytes */

typedef struct {
    /* filled by the caller */
    fb_config_t config;         /* the call's snapshot of the settings (fb_config_get) */
    fb_kernel kernel;           /* the operation and the element widths */
    int nd;                     /* axes (after broadcasting: one shape for all three operands) */
    fb_ssize n[FB_MAXD];        /* the result's shape */
    fb_ssize s[3][FB_MAXD];     /* byte strides of out (0), a (1) and b (2); 0 on broadcast axes */
    char *p[3];                 /* data of out, a and b (a unary op ignores b) */
    /* filled by the planner */
    int loop;                   /* which loop runs it (engine.c) */
    int tile_operand;           /* the repeated loop: the input (1 or 2) the tile stands for */
    int nthreads;               /* threads this call uses, one contiguous share of units each */
    fb_ssize nunits;            /* units of the loop (elements, rows, row blocks, tiles, chunks) */
    int transposed[3];          /* the blocked loop: inputs read through a transposed tile */
    fb_ssize tile_cols;         /* the scattered loop: columns of a tile (rows: engine.c) */
    fb_ssize total;             /* elements of the result */
    fb_ssize tile_len;          /* the repeated loop: elements of the tile */
    char *tile;
    char *scratch;              /* the blocked and gathered loops: scratch memory per thread */
    fb_ssize slot_bytes;        /* its slots (out, a, b: three per thread) */
    /* A gathered loop's scratch where one thread runs a plan of FB_SMALL_SLOT bytes or fewer a
       slot: no allocation on a small call. */
    FB_ALIGNED(64) char small_scratch[3 * FB_SMALL_SLOT];
} fb_plan;

/* The broadcast of ``ninputs`` (1 or 2) inputs: the result's shape in plan->nd and plan->n,
   each input's data and strides (0 on broadcast axes) in plan->p[1..2] and plan->s[1..2] (a
   unary kernel's second input is its first again, never read).  An input of 0 axes is a scalar
   (one value at its p).  Returns 0, or -1 when the shapes do not broadcast. */
static inline int fb_engine_broadcast(fb_plan *pl, const fb_operand *in, int ninputs) {
    int nd = 0, d, i, k;
    fb_ssize m;
    for (k = 0; k < ninputs; k++)
        if (in[k].nd > nd) nd = in[k].nd;
    for (d = 0; d < nd; d++) {
        pl->n[d] = 1;
        for (k = 0; k < ninputs; k++) {
            i = d - (nd - in[k].nd);
            m = i >= 0 ? in[k].n[i] : 1;
            if (m != 1 && pl->n[d] != 1 && m != pl->n[d]) return -1;
            if (m != 1) pl->n[d] = m;
        }
        for (k = 0; k < ninputs; k++) {
            i = d - (nd - in[k].nd);
            pl->s[k + 1][d] = i >= 0 && in[k].n[i] != 1 ? in[k].s[i] : 0;
        }
        if (ninputs == 1) pl->s[2][d] = 0;
    }
    pl->p[1] = in[0].p;
    pl->p[2] = in[ninputs - 1].p;
    pl->nd = nd;
    return 0;
}

/* Bytes of an array of ``nd`` axes of shape ``n`` and elements of ``width`` bytes, or -1 when
   that is more than a Py_ssize_t holds. */
static inline fb_ssize fb_engine_nbytes(int nd, const fb_ssize *n, fb_ssize width) {
    fb_ssize total = width;
    int d;
    for (d = 0; d < nd; d++)
        if (n[d] == 0) return 0;
    for (d = 0; d < nd; d++) {
        if (total > FB_SSIZE_MAX / n[d]) return -1;
        total *= n[d];
    }
    return total;
}

/* 1 when ``x`` (elements of ``width`` bytes) may have two indexes on one element (checked
   conservatively: its axes sorted by stride, each must step over all the inner ones). */
static inline int fb_engine_self_overlaps(const fb_operand *x, int width) {
    fb_ssize st[FB_MAXD], sz[FB_MAXD], span = width;
    int d, e, m = 0;
    for (d = 0; d < x->nd; d++) { /* the axes longer than 1, by |stride| ascending */
        if (x->n[d] == 0) return 0;
        if (x->n[d] > 1) {
            for (e = m; e > 0 && st[e - 1] > fb_abs(x->s[d]); e--) {
                st[e] = st[e - 1];
                sz[e] = sz[e - 1];
            }
            st[e] = fb_abs(x->s[d]);
            sz[e] = x->n[d];
            m++;
        }
    }
    for (d = 0; d < m; d++) {
        if (st[d] < span) return 1;
        span += st[d] * (sz[d] - 1);
    }
    return 0;
}

/* The bytes [lo, hi) that ``nd`` axes of shape n and strides s from p span (elements of
   ``width`` bytes). */
static inline void fb_engine_extent(int nd, const fb_ssize *n, const fb_ssize *s, const char *p, fb_ssize width,
                                    const char **lo, const char **hi) {
    int d;
    *lo = p;
    *hi = p + width;
    for (d = 0; d < nd; d++) {
        if (n[d] == 0) {
            *lo = *hi = p;
            return;
        }
        if (s[d] < 0) *lo += (n[d] - 1) * s[d];
        else *hi += (n[d] - 1) * s[d];
    }
}

/* Whether the engine may write ``out`` (of plan->n's shape) as it is: no two of its indexes on
   one element, and each input of a broadcast plan either apart from it or the same memory,
   element for element.  Else the caller computes a fresh result and copies it. */
static inline int fb_engine_writes_into(const fb_plan *pl, const fb_operand *out) {
    const char *lo0, *hi0, *lo1, *hi1;
    int k, d;
    if (fb_engine_self_overlaps(out, pl->kernel.width)) return 0;
    fb_engine_extent(out->nd, out->n, out->s, out->p, pl->kernel.width, &lo0, &hi0);
    for (k = 1; k < (fb_op_unary(pl->kernel.op) ? 2 : 3); k++) {
        const int width = fb_kernel_in_width(&pl->kernel, k);
        fb_engine_extent(pl->nd, pl->n, pl->s[k], pl->p[k], width, &lo1, &hi1);
        if (hi1 <= lo0 || hi0 <= lo1) continue;
        if (pl->p[k] != out->p || width != pl->kernel.width) return 0;
        for (d = 0; d < pl->nd; d++)
            if (pl->n[d] != 1 && pl->s[k][d] != out->s[d]) return 0;
    }
    return 1;
}

/* The same for one contiguous row of ``nbytes`` into o from a and b. */
static inline int fb_engine_row_writes_into(const char *o, const char *a, const char *b, fb_ssize nbytes) {
    return (a == o || a + nbytes <= o || o + nbytes <= a) && (b == o || b + nbytes <= o || o + nbytes <= b);
}

/* A fresh result of ``nbytes`` comes from the output pool (pool.h). */
static inline int fb_engine_pooled(const fb_config_t *config, fb_ssize nbytes) {
    return config->output_pool && nbytes >= config->pool_threshold;
}

/* A result of ``nbytes`` is written with streaming stores, around the cache: glibc's rule for
   memcpy's non-temporal stores, the bytes written against the threshold (a quarter of the
   last-level cache by default, _cpus.py).  The inputs read do not count: they pass through the
   cache whatever the stores do. */
static inline int fb_engine_streams(const fb_config_t *config, fb_ssize nbytes) {
    return nbytes >= config->stream_threshold;
}

/* Whether the kernels of ``work`` bytes run without the GIL. */
static inline int fb_engine_nogil(fb_ssize work) { return work >= FB_NOGIL_BYTES; }

/* The small-call path: whether ``n`` contiguous elements of ``kernel`` (each input contiguous
   too) run as one row on their caller, that is, when the grain rule gives them one thread; the
   kernel's stream flag is set as fb_engine_plan sets it.  If so, the call counts as this
   thread's last (fb_team_last_shares).  Inline: it runs on every small call. */
static inline int fb_engine_inline(const fb_config_t *config, fb_kernel *kernel, fb_ssize n) {
    const fb_ssize work = fb_kernel_work(kernel, n);
    int kind;
    kernel->stream = fb_engine_streams(config, n * kernel->width);
    kind = kernel->stream ? FB_GRAIN_STREAMED : FB_GRAIN_CACHED;
    if (fb_threads_for(config, kind, work, n) > 1) return 0;
    fb_team_note_inline();
    return 1;
}

/* Plan ``plan`` (every check already passed; out does not overlap an input other than exactly).
   Returns 0, or -1 when its scratch memory cannot be allocated (then nothing is held). */
int fb_engine_plan(fb_plan *plan);

/* Run a planned ``plan`` on its threads and free what the planner allocated. */
void fb_engine_run(fb_plan *plan);

/* Run ``fn``'s shares of ``work`` bytes of work of grain kind ``kind`` (config.h) cut into
   ``units`` pieces: the threads the grain rule gives it on ``config``, share 0 on the caller;
   *nshares is set before any share runs. */
void fb_engine_parallel(const fb_config_t *config, fb_share_fn fn, void *ctx, int kind, fb_ssize work, fb_ssize units,
                        int *nshares);

#endif /* FASTBITS_ENGINE_H */
