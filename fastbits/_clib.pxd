# Declarations of fastbits' C sources (fastbits/_c/*.h), written once for every Cython module
# that calls them.  The C is compiled into the module that owns it (setup.py says which).

from libc.stddef cimport size_t
from libc.stdint cimport uint8_t, uint32_t


cdef extern from "_c/platform.h":
    const int FB_HAVE_CLONES
    const int FB_SANITIZED


cdef extern from "_c/team.h":
    const int FB_MAX_THREADS
    ctypedef void (*fb_piece_fn)(void* ctx, Py_ssize_t piece, int slot) noexcept nogil
    void fb_team_run(fb_piece_fn fn, void* ctx, Py_ssize_t npieces, int helpers, int quick) noexcept nogil
    int fb_threads_get() noexcept nogil
    void fb_threads_set(int n) noexcept nogil
    int fb_team_available() noexcept nogil
    void fb_team_note_call() noexcept nogil
    ctypedef struct fb_team_stats_t:
        int started
        Py_ssize_t helper_pieces
        Py_ssize_t calls_watched
        Py_ssize_t calls_woken
    void fb_team_stats(fb_team_stats_t* stats) noexcept nogil
    int fb_team_init() noexcept nogil
    void fb_team_set_spin(long nanoseconds, int helpers) noexcept nogil
    long fb_team_get_spin() noexcept nogil


cdef extern from "_c/tune.h":
    const int FB_TUNE_CACHED
    const int FB_TUNE_STREAMED_1
    const int FB_TUNE_STREAMED_2
    const int FB_TUNE_CLASSES
    const double FB_TUNE_MARGIN
    ctypedef struct fb_tune_call_t:
        pass
    int fb_tune_begin(fb_tune_call_t* call, int helpers, uint32_t signature, Py_ssize_t work, int kind) noexcept nogil
    void fb_tune_end(fb_tune_call_t* call) noexcept nogil
    void fb_tune_set(int on) noexcept nogil
    int fb_tune_get() noexcept nogil
    int fb_tune_init() noexcept nogil
    ctypedef struct fb_tune_class_t:
        uint32_t signature
        Py_ssize_t work_from
        Py_ssize_t work_to
        int kind
        int helpers
        int team
        Py_ssize_t calls_alone
        Py_ssize_t calls_team
        Py_ssize_t probes
        Py_ssize_t switches
    int fb_tune_report(fb_tune_class_t* out) noexcept nogil


cdef extern from "_c/pool.h":
    ctypedef struct fb_pool_stats_t:
        size_t hits
        size_t misses
        size_t idle_bytes
        size_t idle_blocks
    const size_t FB_POOL_MAX_BYTES
    const int FB_POOL_SLOTS
    const double FB_POOL_MAX_AGE
    int fb_pool_available() noexcept nogil
    void* fb_pool_malloc(void* ctx, size_t size) noexcept nogil
    void* fb_pool_calloc(void* ctx, size_t nelem, size_t elsize) noexcept nogil
    void* fb_pool_realloc(void* ctx, void* ptr, size_t new_size) noexcept nogil
    void fb_pool_free(void* ctx, void* ptr, size_t size) noexcept nogil
    size_t fb_pool_release() noexcept nogil
    void fb_pool_stats(fb_pool_stats_t* stats) noexcept nogil
    int fb_pool_init() noexcept nogil


cdef extern from "_c/loops.h":
    ctypedef enum fb_op:
        FB_OP_AND
        FB_OP_OR
        FB_OP_XOR
        FB_OP_SHL
        FB_OP_SHR
        FB_OP_SAR
        FB_OP_NOT
        FB_OP_COPY
    ctypedef struct fb_kernel:
        int op
        int width
        int swap
        int mask
        int stream
        const uint8_t* byte_map
    int fb_op_unary(int op) noexcept nogil
    int fb_op_supported(int op, int width) noexcept nogil
    void fb_row(const fb_kernel* k, char* o, const char* a, const char* b, Py_ssize_t n,
                Py_ssize_t so, Py_ssize_t sa, Py_ssize_t sb) noexcept nogil
    void fb_rows(const fb_kernel* k, Py_ssize_t count, char* o, Py_ssize_t o_step, const char* a,
                 Py_ssize_t a_step, const char* b, Py_ssize_t b_step, Py_ssize_t n, Py_ssize_t so,
                 Py_ssize_t sa, Py_ssize_t sb) noexcept nogil
    void fb_stream_probe(char* o, const char* a, const char* b, Py_ssize_t nbytes) noexcept nogil


cdef extern from "_c/bytes.h":
    void fb_copy_row(char* o, Py_ssize_t so, const char* a, Py_ssize_t sa, Py_ssize_t n,
                     Py_ssize_t itemsize, int swap, int mask) noexcept nogil
    void fb_map_row(char* o, Py_ssize_t so, const char* a, Py_ssize_t sa, Py_ssize_t n,
                    const uint8_t* byte_map) noexcept nogil
    void fb_gather_tile(char* dst, const char* src, Py_ssize_t rows, Py_ssize_t cols,
                        Py_ssize_t row_stride, Py_ssize_t col_stride, Py_ssize_t width) noexcept nogil
    void fb_prefetch_tile(const char* p, Py_ssize_t line_stride, Py_ssize_t ncols,
                          Py_ssize_t col_stride, Py_ssize_t nbytes) noexcept nogil


cdef extern from "_c/pack.h":
    Py_ssize_t fb_packed_size(Py_ssize_t n, int bits) noexcept nogil
    void fb_pack(uint8_t* o, const uint8_t* a, Py_ssize_t n, int bits) noexcept nogil
    void fb_pack_mapped(uint8_t* o, const uint8_t* a, Py_ssize_t n, int bits, const uint8_t* map) noexcept nogil
    void fb_unpack(uint8_t* o, const uint8_t* a, Py_ssize_t n, int bits) noexcept nogil
