/* The broadcast engine: plans and runs any elementwise operation over broadcast operands.

   The operation is an fb_kernel (loops.h: AND, OR, XOR, the shifts, NOT, BitCast's copy) at
   one element width; the engine knows nothing of ONNX types.  Given the result's shape and the
   byte strides of the output and the inputs (fb_plan), fb_engine_plan

   1. coalesces the axes: drops size-1 axes, turns around axes every operand walks backwards,
      orders the axes by the output's strides and merges axes that are contiguous together;
   2. chooses a loop: one line; rows of the inner axis; a small operand repeating along the
      outer axes, tiled once into a contiguous buffer; tiles of the two inner axes where an
      input is transposed; short rows gathered into contiguous chunks;
   3. decides whether the result is streamed around the cache and how many threads share the
      loop's units, from one snapshot of the settings (config.h: the grain rule);

   and fb_engine_run runs the shares on the thread team (team.h). */
#ifndef FASTBITS_ENGINE_H
#define FASTBITS_ENGINE_H

#include "loops.h"
#include "team.h"

typedef struct {
    /* filled by the caller */
    fb_kernel kernel;           /* the operation and element width */
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
    fb_ssize total;             /* elements of the result */
    fb_ssize tile_len;          /* the repeated loop: elements of the tile */
    char *tile;
    char *scratch;              /* the blocked and gathered loops: scratch memory per thread */
} fb_plan;

/* Plan ``plan`` (every check already passed; out does not overlap an input other than exactly).
   Returns 0, or -1 when its scratch memory cannot be allocated (then nothing is held). */
int fb_engine_plan(fb_plan *plan);

/* Run a planned ``plan`` on its threads and free what the planner allocated. */
void fb_engine_run(fb_plan *plan);

/* Whether ``n`` contiguous elements of ``kernel`` (each input contiguous too) run on their
   caller by the grain rule, with the kernel's stream flag set as fb_engine_plan sets it for
   them; if so, the call counts as this thread's last (fb_team_last_shares).  The entry points'
   one-row path for small calls asks it; inline, as it runs on every small call. */
static inline int fb_engine_inline(fb_kernel *kernel, fb_ssize n) {
    const fb_ssize work = n * kernel->width;
    fb_config_t config;
    int kind;
    fb_config_get(&config);
    kernel->stream = work * (fb_op_unary(kernel->op) ? 2 : 3) >= config.stream_threshold;
    kind = kernel->stream ? FB_GRAIN_STREAMED : FB_GRAIN_CACHED;
    if (fb_threads_for(&config, kind, work, n) > 1) return 0;
    fb_team_note_inline();
    return 1;
}

/* Run ``fn``'s shares of ``work`` bytes of work of grain kind ``kind`` (config.h) cut into
   ``units`` pieces: the threads the grain rule gives it, share 0 on the caller. */
void fb_engine_parallel(fb_share_fn fn, void *ctx, int kind, fb_ssize work, fb_ssize units, int *nshares);

#endif /* FASTBITS_ENGINE_H */
