/* The broadcast engine (see engine.h). */
#include "engine.h"

#include "bytes.h"
#include "config.h"
#include "team.h"

#include <string.h>

enum { LOOP_LINE, LOOP_ROWS, LOOP_BLOCKED, LOOP_SCATTERED, LOOP_REPEATED, LOOP_GATHERED };

#define SHORT_ROW 32                  /* rows shorter than this are gathered or tiled */
#define CHUNK_ELEMS 4096              /* elements per gathered chunk: CHUNK_ELEMS * 8 <= SLOT_BYTES */
#define SLOT_BYTES 65536              /* one scratch slot (out, a, b: 3 slots per thread) */
#define SCRATCH_BYTES (3 * SLOT_BYTES)
#define TILE_ROWS 64                  /* a blocked tile: rows (of the output) ... */
#define TILE_COLS 64                  /* ... and columns; 64 * 64 * 16 (complex128) <= SLOT_BYTES */
/* A tile scattered to a transposed out: 16 rows (one 16 x 16 byte transpose) of up to
   OUT_TILE_COLS columns, as the slot holds, each row OUT_TILE_PAD bytes apart from the next in
   scratch (rows a power of two apart would share one set of the cache, and the scatter reads a
   column across them).  4M float32 into float8 in order "F", over the order "C" call's time, 2
   threads (1 thread), medians of 25 interleaved calls: 64 x 64 tiles 3.4x (3.5x), 16 x 256
   1.95x (2.3x), 16 x 1024 1.9x (2.0x), 16 x 2048 1.55x (1.5x); bands of 1024 columns walked
   down their rows instead 1.5x (1.5x), with fewer units to share. */
#define OUT_TILE_ROWS 16
#define OUT_TILE_COLS 2048
#define OUT_TILE_PAD 64
#define REPEAT_ELEMS 4096             /* target length of the tile of a repeating input */
#define BLOCK_STRIDE 64               /* an inner stride above this many bytes asks for blocking ... */
#define BLOCK_MIN_BYTES (1 << 20)     /* ... in a result this large: a smaller one stays in cache */

/* Bytes per element of operand k (0: out; 1, 2: the inputs). */
static inline fb_ssize width_of(const fb_plan *pl, int k) {
    return k ? fb_kernel_in_width(&pl->kernel, k) : pl->kernel.width;
}

/* C-order position over the outer axes of a plan, and the byte offset of each operand there. */
typedef struct {
    fb_ssize idx[FB_MAXD];
    fb_ssize off[3];
} cursor_t;

static void cursor_at(const fb_plan *pl, cursor_t *c, fb_ssize row, int nouter) {
    int d, k;
    c->off[0] = c->off[1] = c->off[2] = 0;
    for (d = nouter - 1; d >= 0; d--) {
        c->idx[d] = row % pl->n[d];
        row /= pl->n[d];
        for (k = 0; k < 3; k++) c->off[k] += c->idx[d] * pl->s[k][d];
    }
}

static void cursor_next(const fb_plan *pl, cursor_t *c, int nouter) {
    int d, k;
    for (d = nouter - 1; d >= 0; d--) {
        c->idx[d]++;
        for (k = 0; k < 3; k++) c->off[k] += pl->s[k][d];
        if (c->idx[d] < pl->n[d]) return;
        for (k = 0; k < 3; k++) c->off[k] -= pl->s[k][d] * pl->n[d];
        c->idx[d] = 0;
    }
}

/* The loops: units [u0, u1) of a plan, with a thread's scratch memory. */

static void run_line(const fb_plan *pl, fb_ssize u0, fb_ssize u1, char *scratch) {
    (void)scratch;
    fb_row(&pl->kernel, pl->p[0] + u0 * pl->s[0][0], pl->p[1] + u0 * pl->s[1][0], pl->p[2] + u0 * pl->s[2][0],
           u1 - u0, pl->s[0][0], pl->s[1][0], pl->s[2][0]);
}

static void run_rows(const fb_plan *pl, fb_ssize u0, fb_ssize u1, char *scratch) {
    const int nouter = pl->nd - 1;
    cursor_t c;
    fb_ssize u;
    (void)scratch;
    cursor_at(pl, &c, u0, nouter);
    for (u = u0; u < u1; u++) {
        fb_row(&pl->kernel, pl->p[0] + c.off[0], pl->p[1] + c.off[1], pl->p[2] + c.off[2], pl->n[nouter],
               pl->s[0][nouter], pl->s[1][nouter], pl->s[2][nouter]);
        cursor_next(pl, &c, nouter);
    }
}

/* Tiles of TILE_ROWS x TILE_COLS over the two inner axes.  An input whose inner stride is large
   (a transposed operand) is first copied tile by tile into scratch, read along its own
   contiguous axis; then every row of the tile runs contiguously.  Power-of-two strides no
   longer thrash one cache set. */
static void run_blocked(const fb_plan *pl, fb_ssize u0, fb_ssize u1, char *scratch) {
    const int nd = pl->nd;
    const fb_ssize n0 = pl->n[nd - 2], n1 = pl->n[nd - 1];
    const fb_ssize nblocks = (n0 + TILE_ROWS - 1) / TILE_ROWS;
    cursor_t c;
    fb_ssize u, i0, i1, jb, j1, st[3], step[3];
    char *q[3];
    int k;
    for (u = u0; u < u1; u++) {
        cursor_at(pl, &c, u / nblocks, nd - 2);
        i0 = (u % nblocks) * TILE_ROWS;
        i1 = i0 + TILE_ROWS < n0 ? i0 + TILE_ROWS : n0;
        for (jb = 0; jb < n1; jb = j1) {
            j1 = jb + TILE_COLS < n1 ? jb + TILE_COLS : n1;
            for (k = 1; k < 3; k++) {
                const char *at = pl->p[k] + c.off[k] + i0 * pl->s[k][nd - 2];
                if (!pl->transposed[k]) continue;
                if (j1 < n1) /* ask for the next tile's lines early */
                    fb_prefetch_tile(at + j1 * pl->s[k][nd - 1], pl->s[k][nd - 2],
                                     j1 + TILE_COLS <= n1 ? TILE_COLS : n1 - j1, pl->s[k][nd - 1],
                                     (i1 - i0) * fb_abs(pl->s[k][nd - 2]));
                fb_gather_tile(scratch + k * pl->slot_bytes, at + jb * pl->s[k][nd - 1], i1 - i0, j1 - jb,
                               pl->s[k][nd - 2], pl->s[k][nd - 1], (int)width_of(pl, k));
            }
            /* the tile's rows: a transposed input's from scratch, the others' in place */
            for (k = 0; k < 3; k++) {
                if (pl->transposed[k]) {
                    q[k] = scratch + k * pl->slot_bytes;
                    step[k] = (j1 - jb) * width_of(pl, k);
                    st[k] = width_of(pl, k);
                } else {
                    q[k] = pl->p[k] + c.off[k] + i0 * pl->s[k][nd - 2] + jb * pl->s[k][nd - 1];
                    step[k] = pl->s[k][nd - 2];
                    st[k] = pl->s[k][nd - 1];
                }
            }
            fb_rows(&pl->kernel, i1 - i0, q[0], step[0], q[1], step[1], q[2], step[2], j1 - jb, st[0], st[1], st[2]);
        }
    }
}

/* A narrowing kernel's out transposed against its one input (a plan ordered by the input:
   lead_operand): tiles of OUT_TILE_ROWS rows of the two inner axes by as many columns as
   tile_cols, the input read along its rows into scratch and scattered along out's own
   contiguous axis.  Few rows: few lines of out in flight; long ones: each kernel call long. */
static void run_scattered(const fb_plan *pl, fb_ssize u0, fb_ssize u1, char *scratch) {
    const int nd = pl->nd;
    const fb_ssize n0 = pl->n[nd - 2], n1 = pl->n[nd - 1], cols = pl->tile_cols, wo = pl->kernel.width;
    const fb_ssize nblocks = (n0 + OUT_TILE_ROWS - 1) / OUT_TILE_ROWS, pitch = cols * wo + OUT_TILE_PAD;
    const fb_ssize *so = pl->s[0], *sa = pl->s[1];
    fb_kernel plain = pl->kernel; /* into scratch: no streaming stores */
    cursor_t c;
    fb_ssize u, i0, i1, jb, j1;
    plain.stream = 0;
    for (u = u0; u < u1; u++) {
        cursor_at(pl, &c, u / nblocks, nd - 2);
        i0 = (u % nblocks) * OUT_TILE_ROWS;
        i1 = i0 + OUT_TILE_ROWS < n0 ? i0 + OUT_TILE_ROWS : n0;
        for (jb = 0; jb < n1; jb = j1) {
            const char *a = pl->p[1] + c.off[1] + i0 * sa[nd - 2] + jb * sa[nd - 1];
            j1 = jb + cols < n1 ? jb + cols : n1;
            fb_rows(&plain, i1 - i0, scratch, pitch, a, sa[nd - 2], a, sa[nd - 2], j1 - jb, wo, sa[nd - 1], sa[nd - 1]);
            fb_scatter_tile(pl->p[0] + c.off[0] + i0 * so[nd - 2] + jb * so[nd - 1], scratch, pitch, i1 - i0, j1 - jb,
                            so[nd - 2], so[nd - 1], wo);
        }
    }
}

/* out and the other input are flat (C-contiguous over all axes); the tile repeats. */
static void run_repeated(const fb_plan *pl, fb_ssize u0, fb_ssize u1, char *scratch) {
    const int t = pl->tile_operand;
    const fb_ssize wo = pl->kernel.width, w1 = width_of(pl, 1), w2 = width_of(pl, 2);
    fb_ssize u, off, count;
    char *q[3];
    (void)scratch;
    for (u = u0; u < u1; u++) {
        off = u * pl->tile_len;
        count = pl->total - off < pl->tile_len ? pl->total - off : pl->tile_len;
        q[0] = pl->p[0] + off * wo;
        q[1] = t == 1 ? pl->tile : pl->p[1] + off * w1;
        q[2] = t == 2 ? pl->tile : pl->p[2] + off * w2;
        fb_row(&pl->kernel, q[0], q[1], q[2], count, wo, w1, w2);
    }
}

/* Short rows: the inputs' rows gathered into contiguous chunks of whole rows, run, and the
   results scattered back to out. */
static void run_gathered(const fb_plan *pl, fb_ssize u0, fb_ssize u1, char *scratch) {
    const int nouter = pl->nd - 1, wo = pl->kernel.width;
    const fb_ssize w[3] = {wo, width_of(pl, 1), width_of(pl, 2)};
    const int ninputs = fb_op_unary(pl->kernel.op) ? 1 : 2;
    const fb_ssize inner = pl->n[nouter], per_chunk = CHUNK_ELEMS / inner;
    fb_kernel plain = pl->kernel; /* scratch chunks: no streaming stores */
    cursor_t c, c2;
    fb_ssize row, r, count;
    char *q[3] = {scratch, scratch + pl->slot_bytes, scratch + 2 * pl->slot_bytes};
    int k;
    plain.stream = 0;
    cursor_at(pl, &c, u0, nouter);
    for (row = u0; row < u1; row += count) {
        count = u1 - row < per_chunk ? u1 - row : per_chunk;
        c2 = c;
        for (r = 0; r < count; r++) {
            for (k = 1; k <= ninputs; k++)
                fb_copy_row(q[k] + r * inner * w[k], w[k], pl->p[k] + c2.off[k], pl->s[k][nouter], inner, (int)w[k],
                            0, 0);
            cursor_next(pl, &c2, nouter);
        }
        fb_row(&plain, q[0], q[1], q[ninputs], count * inner, wo, w[1], w[ninputs]);
        for (r = 0; r < count; r++) {
            fb_copy_row(pl->p[0] + c.off[0], pl->s[0][nouter], q[0] + r * inner * wo, wo, inner, wo, 0, 0);
            cursor_next(pl, &c, nouter);
        }
    }
}

typedef void (*loop_fn)(const fb_plan *pl, fb_ssize u0, fb_ssize u1, char *scratch);
static const loop_fn loops[] = {run_line, run_rows, run_blocked, run_scattered, run_repeated, run_gathered};

static void run_share(void *ctx, int share, int slot) {
    const fb_plan *pl = ctx;
    const fb_ssize u0 = share * pl->nunits / pl->nthreads, u1 = (share + 1) * pl->nunits / pl->nthreads;
    if (u0 < u1) loops[pl->loop](pl, u0, u1, pl->scratch ? pl->scratch + (fb_ssize)slot * 3 * pl->slot_bytes : NULL);
}

/* Operand k is C-contiguous over all axes of the plan. */
static int is_flat(const fb_plan *pl, int k) {
    fb_ssize want = width_of(pl, k);
    int d;
    for (d = pl->nd - 1; d >= 0; d--) {
        if (pl->s[k][d] != want) return 0;
        want *= pl->n[d];
    }
    return 1;
}

/* Axis ``from`` of every operand to position ``to``. */
static void move_axis(fb_plan *pl, int to, int from) {
    int k;
    pl->n[to] = pl->n[from];
    for (k = 0; k < 3; k++) pl->s[k][to] = pl->s[k][from];
}

static void swap_axes(fb_plan *pl, int d, int e) {
    fb_ssize t;
    int k;
    t = pl->n[d];
    pl->n[d] = pl->n[e];
    pl->n[e] = t;
    for (k = 0; k < 3; k++) {
        t = pl->s[k][d];
        pl->s[k][d] = pl->s[k][e];
        pl->s[k][e] = t;
    }
}

/* Drop size-1 axes, turn all-backwards axes around, order by the strides of operand ``lead``
   (out, or a narrowing kernel's input), merge. */
static void coalesce(fb_plan *pl, int lead) {
    int nd = 0, d, e, k, w;
    for (d = 0; d < pl->nd; d++)
        if (pl->n[d] != 1) move_axis(pl, nd++, d);
    pl->nd = nd;
    for (d = 0; d < nd; d++) {
        if (pl->s[0][d] < 0 && pl->s[1][d] <= 0 && pl->s[2][d] <= 0) {
            for (k = 0; k < 3; k++) {
                pl->p[k] += (pl->n[d] - 1) * pl->s[k][d];
                pl->s[k][d] = -pl->s[k][d];
            }
        }
    }
    /* insertion sort, |lead stride| descending (stable: C order for a fresh out) */
    for (d = 1; d < nd; d++)
        for (e = d; e > 0 && fb_abs(pl->s[lead][e - 1]) < fb_abs(pl->s[lead][e]); e--) swap_axes(pl, e, e - 1);
    if (nd <= 1) return;
    /* merge from the inner axis out: axis d joins axis w when every operand steps over w whole */
    for (w = nd - 1, d = nd - 2; d >= 0; d--) {
        if (pl->s[0][d] == pl->s[0][w] * pl->n[w] && pl->s[1][d] == pl->s[1][w] * pl->n[w] &&
            pl->s[2][d] == pl->s[2][w] * pl->n[w]) {
            pl->n[w] *= pl->n[d];
        } else {
            move_axis(pl, --w, d);
        }
    }
    for (d = w; d < nd; d++) move_axis(pl, d - w, d);
    pl->nd = nd - w;
}

/* Copy the C-order elements of an nd block of ``src`` to contiguous ``dst``. */
static void gather_nd(int width, char *dst, const char *src, int nd, const fb_ssize *n, const fb_ssize *s,
                      fb_ssize inner_count) {
    fb_ssize i;
    if (nd == 1) {
        fb_copy_row(dst, width, src, s[0], n[0], width, 0, 0);
        return;
    }
    for (i = 0; i < n[0]; i++)
        gather_nd(width, dst + i * inner_count * width, src + i * s[0], nd - 1, n + 1, s + 1, inner_count / n[1]);
}

/* The repeated loop where out and one input are flat and the other input is a small block
   repeating along the outer axes: that block tiled once.  1 when chosen, -1 when the tile
   cannot be allocated, else 0. */
static int plan_repeated(fb_plan *pl) {
    const int nd = pl->nd;
    fb_ssize block, copies, width;
    int x, j, d;
    if (fb_op_unary(pl->kernel.op) || !is_flat(pl, 0)) return 0;
    for (x = 2; x >= 1; x--) {
        if (!is_flat(pl, 3 - x)) continue;
        width = width_of(pl, x);
        for (j = 0; j < nd && pl->s[x][j] == 0; j++) {
        }
        if (j == 0 || j >= nd) continue;
        for (block = 1, d = j; d < nd; d++) block *= pl->n[d];
        if (block > REPEAT_ELEMS) continue;
        copies = REPEAT_ELEMS / block;
        if (copies * block > pl->total) copies = (pl->total + block - 1) / block;
        pl->tile = malloc((size_t)(copies * block * width));
        if (pl->tile == NULL) return -1;
        gather_nd((int)width, pl->tile, pl->p[x], nd - j, &pl->n[j], &pl->s[x][j], block / pl->n[j]);
        for (d = 1; d < copies; d++) memcpy(pl->tile + d * block * width, pl->tile, (size_t)(block * width));
        pl->loop = LOOP_REPEATED;
        pl->tile_operand = x;
        pl->tile_len = copies * block;
        return 1;
    }
    return 0;
}

/* Operand k steps far along the inner axis and less along the next: it is read or written
   across its own rows. */
static int transposed(const fb_plan *pl, int k) {
    const int nd = pl->nd;
    return fb_abs(pl->s[k][nd - 1]) > BLOCK_STRIDE && fb_abs(pl->s[k][nd - 2]) < fb_abs(pl->s[k][nd - 1]);
}

/* The loop of a plan of at least two axes and its units; -1 when its tile cannot be allocated. */
static int choose_loop(fb_plan *pl) {
    const int nd = pl->nd;
    int k, repeated = plan_repeated(pl);
    if (repeated < 0) return -1;
    if (repeated) {
        pl->nunits = (pl->total + pl->tile_len - 1) / pl->tile_len;
        return 0;
    }
    if (pl->n[nd - 1] < SHORT_ROW && pl->kernel.op != FB_OP_COPY) {
        pl->loop = LOOP_GATHERED;
        pl->nunits = pl->total / pl->n[nd - 1];
        return 0;
    }
    pl->loop = LOOP_ROWS;
    pl->nunits = pl->total / pl->n[nd - 1];
    if (pl->n[nd - 2] < 2 || pl->total * pl->kernel.width < BLOCK_MIN_BYTES) return 0;
    if (transposed(pl, 0)) { /* only in a plan ordered by its one input, whose inner stride is its least */
        pl->loop = LOOP_SCATTERED;
        /* a row and its pad within a 16th of the slot, and not a power of two apart */
        pl->tile_cols = (SLOT_BYTES / OUT_TILE_ROWS - 2 * OUT_TILE_PAD) / pl->kernel.width;
        if (pl->tile_cols > OUT_TILE_COLS) pl->tile_cols = OUT_TILE_COLS;
        pl->nunits = pl->total / (pl->n[nd - 1] * pl->n[nd - 2]) * ((pl->n[nd - 2] + OUT_TILE_ROWS - 1) / OUT_TILE_ROWS);
        return 0;
    }
    for (k = 1; k < 3; k++) {
        if (transposed(pl, k)) {
            pl->loop = LOOP_BLOCKED;
            pl->transposed[k] = 1;
        }
    }
    if (pl->loop == LOOP_BLOCKED)
        pl->nunits = pl->total / (pl->n[nd - 1] * pl->n[nd - 2]) * ((pl->n[nd - 2] + TILE_ROWS - 1) / TILE_ROWS);
    return 0;
}

/* The operand whose strides order the plan's axes: out, but for a kernel that narrows its one
   input (a Cast of float32 into a float 8 type) the input, so that a transposed layout is
   gathered or scattered in the narrower elements and the wide input is read along its rows.
   Not an input that repeats along an axis (a stride of 0): that axis would become the inner
   one. */
static int lead_operand(const fb_plan *pl) {
    int d;
    if (!fb_op_unary(pl->kernel.op) || pl->kernel.in_width <= pl->kernel.width) return 0;
    for (d = 0; d < pl->nd; d++)
        if (pl->n[d] != 1 && pl->s[1][d] == 0) return 0;
    return 1;
}

int fb_engine_plan(fb_plan *pl) {
    int d, kind;
    coalesce(pl, lead_operand(pl));
    for (pl->total = 1, d = 0; d < pl->nd; d++) pl->total *= pl->n[d];
    pl->kernel.stream = fb_engine_streams(&pl->config, pl->total * pl->kernel.width);
    pl->tile = pl->scratch = NULL;
    pl->transposed[0] = pl->transposed[1] = pl->transposed[2] = 0;
    if (pl->nd == 0) { /* a 0-d result: one element */
        pl->nd = 1;
        pl->n[0] = 1;
        pl->s[0][0] = pl->s[1][0] = pl->s[2][0] = 0;
    }
    if (pl->total == 0) {
        pl->loop = LOOP_LINE;
        pl->nunits = 0;
    } else if (pl->nd == 1) {
        pl->loop = LOOP_LINE;
        pl->nunits = pl->n[0];
    } else if (choose_loop(pl) < 0) {
        return -1;
    }
    if (pl->loop == LOOP_BLOCKED || pl->loop == LOOP_SCATTERED || pl->loop == LOOP_GATHERED) kind = FB_GRAIN_STRIDED;
    else kind = pl->kernel.stream ? FB_GRAIN_STREAMED : FB_GRAIN_CACHED;
    pl->nthreads = fb_threads_for(&pl->config, kind, fb_kernel_work(&pl->kernel, pl->total), pl->nunits);
    pl->slot_bytes = SLOT_BYTES;
    if (pl->loop == LOOP_GATHERED && pl->nthreads == 1 && pl->total * 16 <= FB_SMALL_SLOT) {
        pl->slot_bytes = FB_SMALL_SLOT; /* a chunk is at most the whole plan: total elements */
        pl->scratch = pl->small_scratch;
    } else if (pl->loop == LOOP_BLOCKED || pl->loop == LOOP_SCATTERED || pl->loop == LOOP_GATHERED) {
        pl->scratch = malloc((size_t)pl->nthreads * SCRATCH_BYTES);
        if (pl->scratch == NULL) {
            free(pl->tile);
            pl->tile = NULL;
            return -1;
        }
    }
    return 0;
}

void fb_engine_run(fb_plan *pl) {
    fb_team_run(run_share, pl, pl->nthreads, pl->config.spin_ns);
    if (pl->scratch != pl->small_scratch) free(pl->scratch);
    free(pl->tile);
    pl->scratch = pl->tile = NULL;
}

void fb_engine_parallel(const fb_config_t *config, fb_share_fn fn, void *ctx, int kind, fb_ssize work, fb_ssize units,
                        int *nshares) {
    *nshares = fb_threads_for(config, kind, work, units);
    fb_team_run(fn, ctx, *nshares, config->spin_ns);
}
