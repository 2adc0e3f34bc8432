# cython: language_level=3
"""The broadcast engine: plans and runs any elementwise operation over broadcast operands.

The operation is an ``fb_kernel`` (``fastbits/_c/loops.h``: AND, OR, XOR, the shifts, NOT,
BitCast's copy) at one element width; the engine knows nothing of ONNX types.  Given the
result's shape and the byte strides of the output and the inputs (``Plan``), it

1. coalesces the axes: drops size-1 axes, turns around axes every operand walks backwards,
   orders the axes by the output's strides and merges axes that are contiguous together;
2. chooses a loop: one line; rows of the inner axis; a small operand repeating along the outer
   axes, tiled once into a contiguous buffer; tiles of the two inner axes where an input is
   transposed; short rows gathered into contiguous chunks;
3. chooses its threads by the grain rule (``fastbits/_c/config.h``: one contiguous share of
   the loop's units per thread) and runs the shares on the thread team (``fastbits._runtime``).

Each row runs ``fb_row``, the C loops of ``fastbits/_c/loops.c``.
"""

cimport cython
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from ._clib cimport (
    FB_GRAIN_CACHED, FB_GRAIN_STREAMED, FB_GRAIN_STRIDED, FB_OP_COPY, fb_config_t, fb_copy_row,
    fb_gather_tile, fb_kernel, fb_op_unary, fb_prefetch_tile, fb_row, fb_rows, fb_threads_for,
)
from ._runtime cimport get_config, run_shares


cdef enum:
    LOOP_LINE = 0        # one axis, any strides
    LOOP_ROWS = 1        # rows of the inner axis
    LOOP_BLOCKED = 2     # the two inner axes in tiles (transposed inputs)
    LOOP_REPEATED = 3    # a small input repeating along the outer axes, tiled once
    LOOP_GATHERED = 4    # short rows, gathered into contiguous chunks

    SHORT_ROW = 32       # rows shorter than this are gathered or tiled
    CHUNK_ELEMS = 4096   # elements per gathered chunk: CHUNK_ELEMS * 8 <= SLOT_BYTES
    SLOT_BYTES = 65536   # one scratch slot (out, a, b: 3 slots per thread)
    SCRATCH_BYTES = 3 * SLOT_BYTES
    TILE_ROWS = 64       # blocked tile: rows (of the output) ...
    TILE_COLS = 64       # ... and columns; TILE_ROWS * TILE_COLS * 16 (complex128) <= SLOT_BYTES
    REPEAT_ELEMS = 4096  # target length of the tile of a repeating input
    BLOCK_STRIDE = 64    # an inner stride above this many bytes asks for blocking ...
    BLOCK_MIN_BYTES = 1048576  # ... in a result this large: a smaller one stays in cache anyway

# Results below this run on the calling thread without releasing the GIL.
cdef Py_ssize_t INLINE_BYTES = 1 << 14


cdef struct RowCursor:
    # C-order position over the outer axes of a plan, and the byte offset of each operand there
    Py_ssize_t idx[MAXD]
    Py_ssize_t off[3]


cdef inline Py_ssize_t _abs(Py_ssize_t x) noexcept nogil:
    return -x if x < 0 else x


@cython.cdivision(True)
cdef inline void _cursor_at(const Plan* pl, RowCursor* c, Py_ssize_t row, int nouter) noexcept nogil:
    """Position ``c`` at ``row`` of the first ``nouter`` axes (C order)."""
    cdef int d, k
    c.off[0] = c.off[1] = c.off[2] = 0
    d = nouter - 1
    while d >= 0:
        c.idx[d] = row % pl.n[d]
        row = row // pl.n[d]
        for k in range(3):
            c.off[k] += c.idx[d] * pl.s[k][d]
        d -= 1


cdef inline void _cursor_next(const Plan* pl, RowCursor* c, int nouter) noexcept nogil:
    cdef int d = nouter - 1
    cdef int k
    while d >= 0:
        c.idx[d] += 1
        for k in range(3):
            c.off[k] += pl.s[k][d]
        if c.idx[d] < pl.n[d]:
            return
        for k in range(3):
            c.off[k] -= pl.s[k][d] * pl.n[d]
        c.idx[d] = 0
        d -= 1


cdef void run_row(const fb_kernel* kernel, char* o, const char* a, const char* b, Py_ssize_t n,
                  Py_ssize_t so, Py_ssize_t sa, Py_ssize_t sb) noexcept nogil:
    fb_row(kernel, o, a, b, n, so, sa, sb)


@cython.cdivision(True)
cdef void _run_units(const Plan* pl, Py_ssize_t u0, Py_ssize_t u1, char* scratch) noexcept nogil:
    """Run units [u0, u1) of the plan: elements, rows, row blocks or tiles, by loop."""
    cdef RowCursor c, c2
    cdef fb_kernel plain
    cdef int nd = pl.nd
    cdef int width = pl.kernel.width
    cdef int ninputs, nouter, k, t
    cdef Py_ssize_t u, r, jb, j1, n0, n1, nblocks, i0, i1, inner, off, cnt, rn, rc, rows_per_chunk
    cdef char* q[3]
    cdef Py_ssize_t st[3]
    cdef Py_ssize_t step[3]
    if u0 >= u1:
        return
    if pl.loop == LOOP_LINE:
        fb_row(&pl.kernel, pl.p[0] + u0 * pl.s[0][0], pl.p[1] + u0 * pl.s[1][0],
               pl.p[2] + u0 * pl.s[2][0], u1 - u0, pl.s[0][0], pl.s[1][0], pl.s[2][0])
    elif pl.loop == LOOP_ROWS:
        nouter = nd - 1
        _cursor_at(pl, &c, u0, nouter)
        for u in range(u0, u1):
            fb_row(&pl.kernel, pl.p[0] + c.off[0], pl.p[1] + c.off[1], pl.p[2] + c.off[2],
                   pl.n[nouter], pl.s[0][nouter], pl.s[1][nouter], pl.s[2][nouter])
            _cursor_next(pl, &c, nouter)
    elif pl.loop == LOOP_BLOCKED:
        # Tiles of TILE_ROWS x TILE_COLS over the two inner axes.  An input whose inner stride
        # is large (a transposed operand) is first copied tile by tile into scratch, reading it
        # along its own contiguous axis; then every row of the tile runs contiguously.
        # Power-of-two strides no longer thrash one cache set.
        nouter = nd - 2
        n0 = pl.n[nd - 2]
        n1 = pl.n[nd - 1]
        nblocks = (n0 + TILE_ROWS - 1) // TILE_ROWS
        for u in range(u0, u1):
            _cursor_at(pl, &c, u // nblocks, nouter)
            i0 = (u % nblocks) * TILE_ROWS
            i1 = i0 + TILE_ROWS
            if i1 > n0:
                i1 = n0
            jb = 0
            while jb < n1:
                j1 = jb + TILE_COLS
                if j1 > n1:
                    j1 = n1
                for k in range(1, 3):
                    if pl.transposed[k] and j1 < n1:  # ask for the next tile's lines early
                        fb_prefetch_tile(pl.p[k] + c.off[k] + i0 * pl.s[k][nd - 2] + j1 * pl.s[k][nd - 1],
                                         pl.s[k][nd - 2], (TILE_COLS if j1 + TILE_COLS <= n1 else n1 - j1),
                                         pl.s[k][nd - 1], (i1 - i0) * _abs(pl.s[k][nd - 2]))
                for k in range(1, 3):
                    if pl.transposed[k]:
                        fb_gather_tile(scratch + k * SLOT_BYTES,
                                       pl.p[k] + c.off[k] + i0 * pl.s[k][nd - 2] + jb * pl.s[k][nd - 1],
                                       i1 - i0, j1 - jb, pl.s[k][nd - 2], pl.s[k][nd - 1], width)
                # the tile's rows: a transposed input's from scratch, the others' in place
                for k in range(3):
                    if pl.transposed[k]:
                        q[k] = scratch + k * SLOT_BYTES
                        step[k] = (j1 - jb) * width
                        st[k] = width
                    else:
                        q[k] = pl.p[k] + c.off[k] + i0 * pl.s[k][nd - 2] + jb * pl.s[k][nd - 1]
                        step[k] = pl.s[k][nd - 2]
                        st[k] = pl.s[k][nd - 1]
                fb_rows(&pl.kernel, i1 - i0, q[0], step[0], q[1], step[1], q[2], step[2], j1 - jb,
                        st[0], st[1], st[2])
                jb = j1
    elif pl.loop == LOOP_REPEATED:
        # out and the other input are flat (C-contiguous over all axes)
        t = pl.tile_operand
        for u in range(u0, u1):
            off = u * pl.tile_len
            cnt = pl.total - off
            if cnt > pl.tile_len:
                cnt = pl.tile_len
            q[0] = pl.p[0] + off * width
            q[1] = pl.tile if t == 1 else pl.p[1] + off * width
            q[2] = pl.tile if t == 2 else pl.p[2] + off * width
            fb_row(&pl.kernel, q[0], q[1], q[2], cnt, width, width, width)
    else:  # LOOP_GATHERED: short rows; gather inputs (and out) into chunks of whole rows
        plain = pl.kernel  # scratch chunks: no streaming stores
        plain.stream = 0
        ninputs = 1 if fb_op_unary(pl.kernel.op) else 2
        nouter = nd - 1
        inner = pl.n[nouter]
        rows_per_chunk = CHUNK_ELEMS // inner
        _cursor_at(pl, &c, u0, nouter)
        rc = u0
        while rc < u1:
            rn = u1 - rc
            if rn > rows_per_chunk:
                rn = rows_per_chunk
            for k in range(3):
                q[k] = scratch + k * SLOT_BYTES
            c2 = c
            for r in range(rn):
                for k in range(1, ninputs + 1):
                    fb_copy_row(q[k] + r * inner * width, width, pl.p[k] + c2.off[k], pl.s[k][nouter],
                                inner, width, 0, 0)
                _cursor_next(pl, &c2, nouter)
            fb_row(&plain, q[0], q[1], q[2] if ninputs == 2 else q[1], rn * inner, width, width, width)
            for r in range(rn):
                fb_copy_row(pl.p[0] + c.off[0], pl.s[0][nouter], q[0] + r * inner * width, width,
                            inner, width, 0, 0)
                _cursor_next(pl, &c, nouter)
            rc += rn


cdef void _run_share(void* ctx, int share, int slot) noexcept nogil:
    """Run share ``share`` of the plan's units, on the thread of team slot ``slot``."""
    cdef Plan* pl = <Plan*>ctx
    _run_units(pl, share * pl.nunits // pl.nthreads, (share + 1) * pl.nunits // pl.nthreads,
               pl.scratch + slot * SCRATCH_BYTES if pl.scratch != NULL else NULL)


cdef inline bint _flat(const Plan* pl, int k) noexcept nogil:
    """Operand k is C-contiguous over all axes of the plan."""
    cdef int d
    cdef Py_ssize_t want = pl.kernel.width
    d = pl.nd - 1
    while d >= 0:
        if pl.s[k][d] != want:
            return False
        want *= pl.n[d]
        d -= 1
    return True


cdef Py_ssize_t _bytes_moved(const Plan* pl) noexcept nogil:
    """The bytes a plan reads and writes: the result, and each input's distinct elements (a
    broadcast input is read once per element it holds)."""
    cdef Py_ssize_t moved = pl.total * pl.kernel.width
    cdef Py_ssize_t held
    cdef int k, d
    for k in range(1, 2 if fb_op_unary(pl.kernel.op) else 3):
        held = pl.kernel.width
        for d in range(pl.nd):
            if pl.s[k][d] != 0:
                held *= pl.n[d]
        moved += held
    return moved


cdef void _coalesce(Plan* pl) noexcept nogil:
    """Drop size-1 axes, turn all-backwards axes around, order by out's strides, merge."""
    cdef int nd = 0, d, k, e, w
    cdef Py_ssize_t tn, ts
    for d in range(pl.nd):
        if pl.n[d] != 1:
            pl.n[nd] = pl.n[d]
            for k in range(3):
                pl.s[k][nd] = pl.s[k][d]
            nd += 1
    pl.nd = nd
    for d in range(nd):
        if pl.s[0][d] < 0 and pl.s[1][d] <= 0 and pl.s[2][d] <= 0:
            for k in range(3):
                pl.p[k] += (pl.n[d] - 1) * pl.s[k][d]
                pl.s[k][d] = -pl.s[k][d]
    # insertion sort, |out stride| descending (stable: C order for a fresh out)
    for d in range(1, nd):
        e = d
        while e > 0 and _abs(pl.s[0][e - 1]) < _abs(pl.s[0][e]):
            tn = pl.n[e]
            pl.n[e] = pl.n[e - 1]
            pl.n[e - 1] = tn
            for k in range(3):
                ts = pl.s[k][e]
                pl.s[k][e] = pl.s[k][e - 1]
                pl.s[k][e - 1] = ts
            e -= 1
    if nd <= 1:
        return
    w = nd - 1
    d = nd - 2
    while d >= 0:
        if (pl.s[0][d] == pl.s[0][w] * pl.n[w] and pl.s[1][d] == pl.s[1][w] * pl.n[w]
                and pl.s[2][d] == pl.s[2][w] * pl.n[w]):
            pl.n[w] *= pl.n[d]
        else:
            w -= 1
            pl.n[w] = pl.n[d]
            for k in range(3):
                pl.s[k][w] = pl.s[k][d]
        d -= 1
    if w > 0:
        for d in range(w, nd):
            pl.n[d - w] = pl.n[d]
            for k in range(3):
                pl.s[k][d - w] = pl.s[k][d]
    pl.nd = nd - w


cdef void _gather_nd(int width, char* dst, const char* src, int nd, const Py_ssize_t* n,
                     const Py_ssize_t* s, Py_ssize_t inner_count) noexcept nogil:
    """Copy the C-order elements of an nd block of ``src`` to contiguous ``dst``."""
    cdef Py_ssize_t i
    if nd == 1:
        fb_copy_row(dst, width, src, s[0], n[0], width, 0, 0)
        return
    for i in range(n[0]):
        _gather_nd(width, dst + i * inner_count * width, src + i * s[0], nd - 1, n + 1, s + 1,
                   inner_count // n[1])


cdef bint _plan_repeated(Plan* pl) except -1:
    """LOOP_REPEATED when out and one input are flat and the other input is a small block
    repeating along the outer axes: tile that block once; True when chosen."""
    cdef int nd = pl.nd, x, y, j, d
    cdef int width = pl.kernel.width
    cdef Py_ssize_t block, copies
    cdef char* tile
    if fb_op_unary(pl.kernel.op) or not _flat(pl, 0):
        return False
    for x in range(2, 0, -1):
        y = 3 - x
        if not _flat(pl, y):
            continue
        j = 0
        while j < nd and pl.s[x][j] == 0:
            j += 1
        if j == 0 or j >= nd:
            continue
        block = 1
        for d in range(j, nd):
            block *= pl.n[d]
        if block > REPEAT_ELEMS:
            continue
        copies = REPEAT_ELEMS // block
        if copies * block > pl.total:
            copies = (pl.total + block - 1) // block
        tile = <char*>malloc(copies * block * width)
        if tile == NULL:
            raise MemoryError()
        _gather_nd(width, tile, pl.p[x], nd - j, &pl.n[j], &pl.s[x][j], block // pl.n[j])
        for d in range(1, copies):
            memcpy(tile + d * block * width, tile, block * width)
        pl.loop = LOOP_REPEATED
        pl.tile = tile
        pl.tile_operand = x
        pl.tile_len = copies * block
        return True
    return False


cdef int run(Plan* pl) except -1:
    cdef int nd, k, kind
    cdef Py_ssize_t total, nunits, d
    cdef fb_config_t config
    get_config(&config)
    _coalesce(pl)
    nd = pl.nd
    total = 1
    for d in range(nd):
        total *= pl.n[d]
    pl.total = total
    pl.moved = _bytes_moved(pl)
    pl.kernel.stream = pl.moved >= config.stream_threshold
    pl.tile = pl.scratch = NULL
    if total == 0:  # nothing to run, on one thread
        pl.nunits = 0
        pl.nthreads = 1
        run_shares(_run_share, pl, 1)
        return 0
    for k in range(3):
        pl.transposed[k] = False
    if nd <= 1:
        if nd == 0:
            pl.n[0] = 1
            for k in range(3):
                pl.s[k][0] = 0
            pl.nd = 1
        pl.loop = LOOP_LINE
        nunits = pl.n[0]
    elif _plan_repeated(pl):
        nunits = (total + pl.tile_len - 1) // pl.tile_len
    elif pl.n[nd - 1] >= SHORT_ROW or pl.kernel.op == FB_OP_COPY:
        pl.loop = LOOP_ROWS
        nunits = total // pl.n[nd - 1]
        if pl.n[nd - 2] >= 2 and total * pl.kernel.width >= BLOCK_MIN_BYTES:
            for k in range(1, 3):
                if _abs(pl.s[k][nd - 1]) > BLOCK_STRIDE and _abs(pl.s[k][nd - 2]) < _abs(pl.s[k][nd - 1]):
                    pl.loop = LOOP_BLOCKED
                    pl.transposed[k] = True
            if pl.loop == LOOP_BLOCKED:
                nunits = (total // (pl.n[nd - 1] * pl.n[nd - 2])) * ((pl.n[nd - 2] + TILE_ROWS - 1) // TILE_ROWS)
    else:
        pl.loop = LOOP_GATHERED
        nunits = total // pl.n[nd - 1]
    # The grain rule: one contiguous share of the units per thread.
    if pl.loop == LOOP_BLOCKED or pl.loop == LOOP_GATHERED:
        kind = FB_GRAIN_STRIDED
    else:
        kind = FB_GRAIN_STREAMED if pl.kernel.stream else FB_GRAIN_CACHED
    pl.nunits = nunits
    pl.nthreads = fb_threads_for(&config, kind, total * pl.kernel.width, nunits)
    if pl.loop == LOOP_BLOCKED or pl.loop == LOOP_GATHERED:
        pl.scratch = <char*>malloc(pl.nthreads * SCRATCH_BYTES)
        if pl.scratch == NULL:
            free(pl.tile)
            pl.tile = NULL
            raise MemoryError()
    # From here nothing raises (the loops are noexcept): no try/finally on the tiny calls' path.
    if total * pl.kernel.width >= INLINE_BYTES:
        with nogil:
            run_shares(_run_share, pl, pl.nthreads)
    else:
        run_shares(_run_share, pl, pl.nthreads)
    free(pl.scratch)
    free(pl.tile)
    pl.scratch = pl.tile = NULL
    return 0
