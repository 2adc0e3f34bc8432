# Declarations of fastbits' C sources (fastbits/_c/*.h), written once for every Cython module
# that calls them.  The C is compiled into the module that owns it (setup.py says which).

from cpython.object cimport PyObject
from libc.stddef cimport size_t
from libc.stdint cimport int16_t, int32_t, uint8_t


cdef extern from "_c/platform.h":
    const int FB_SANITIZED
    enum: FB_MAXD
    Py_ssize_t fb_abs(Py_ssize_t x) noexcept nogil
    bint fb_published(const int* flag) noexcept nogil
    void fb_publish(int* flag) noexcept nogil
    bint fb_claim(int* flag) noexcept nogil


cdef extern from "_c/entries.h":
    enum: FB_MAX_ENTRIES
    ctypedef PyObject* (*fb_entry_handler)(PyObject* entry, PyObject** args, Py_ssize_t nargs, PyObject* kwnames)
    void* fb_entry_function(PyObject* entry, fb_entry_handler handler)


cdef extern from "_c/config.h":
    enum:
        FB_MAX_THREADS
        FB_GRAIN_CACHED
        FB_GRAIN_STREAMED
        FB_GRAIN_STRIDED
        FB_NUM_THREADS
        FB_STREAM_THRESHOLD
        FB_OUTPUT_POOL
        FB_POOL_THRESHOLD
        FB_SPIN_NS
        FB_TASK_THREADS
        FB_SETTINGS
    ctypedef struct fb_config_t:
        int num_threads
        Py_ssize_t stream_threshold
        bint output_pool
        Py_ssize_t pool_threshold
        Py_ssize_t spin_ns
    void fb_config_get(fb_config_t* config) noexcept nogil  # _runtime's own: others call its snapshot()
    ctypedef struct fb_local_t:
        unsigned mask
        int limit
        Py_ssize_t value[FB_SETTINGS]
    fb_local_t fb_local
    Py_ssize_t fb_setting(int k) noexcept nogil
    void fb_setting_set(int k, Py_ssize_t value) noexcept nogil
    void fb_local_clear() noexcept nogil
    void fb_local_set(int k, Py_ssize_t value) noexcept nogil
    int fb_local_threads_set(int n) noexcept nogil
    int fastbits_get_num_threads() noexcept nogil


cdef extern from "_c/team.h":
    ctypedef void (*fb_share_fn)(void* ctx, int share, int slot) noexcept nogil
    int fb_team_last_shares() noexcept nogil
    int fb_team_available() noexcept nogil
    ctypedef struct fb_team_stats_t:
        int started
        Py_ssize_t parallel_calls
        Py_ssize_t helper_shares
    void fb_team_stats(fb_team_stats_t* stats) noexcept nogil
    int fb_team_init() noexcept nogil


cdef extern from "_c/pool.h":
    ctypedef struct fb_pool_stats_t:
        size_t hits
        size_t misses
        size_t idle_bytes
        size_t idle_blocks
    const size_t FB_POOL_MAX_BYTES
    const double FB_POOL_MAX_AGE
    int fb_pool_available() noexcept nogil
    void* fb_pool_malloc(void* ctx, size_t size) noexcept nogil
    void* fb_pool_calloc(void* ctx, size_t nelem, size_t elsize) noexcept nogil
    void* fb_pool_realloc(void* ctx, void* ptr, size_t new_size) noexcept nogil
    void fb_pool_free(void* ctx, void* ptr, size_t size) noexcept nogil
    size_t fb_pool_release() noexcept nogil
    void fb_pool_stats(fb_pool_stats_t* stats) noexcept nogil
    int fb_pool_init() noexcept nogil


cdef extern from "_c/cpu.h":
    ctypedef struct fb_cpu_t:
        int avx2
        int f16c
    fb_cpu_t fb_cpu
    int fb_cpu_init(int allow_avx2, int allow_f16c) noexcept nogil


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
        FB_OP_LOOKUP
        FB_OP_CONVERT
        FB_OP_QUANT
    ctypedef struct fb_kernel:
        int op
        int width
        int in_width
        int b_width
        int swap
        int mask
        int stream
        const void* table
    void fb_row(const fb_kernel* k, char* o, const char* a, const char* b, Py_ssize_t n,
                Py_ssize_t so, Py_ssize_t sa, Py_ssize_t sb) noexcept nogil


cdef extern from "_c/convert.h":
    ctypedef enum fb_num:
        FB_NUM_I8, FB_NUM_I16, FB_NUM_I32, FB_NUM_I64, FB_NUM_U8, FB_NUM_U16, FB_NUM_U32, FB_NUM_U64
        FB_NUM_F32, FB_NUM_F64, FB_NUM_BOOL, FB_NUM_F16, FB_NUM_BF16, FB_NUM_FORMAT, FB_NUM_SMALL, FB_NUM_E8M0
    ctypedef enum fb_special:
        FB_SPECIAL_IEEE, FB_SPECIAL_FN, FB_SPECIAL_UZ, FB_SPECIAL_NONE
    ctypedef struct fb_cast:
        int src
        int dst
        int ebits, mbits, bias, special, saturate, signed_zero
        int bits
        int round_mode


cdef extern from "_c/quant.h":
    ctypedef enum fb_quant_kind:
        FB_DEQUANTIZE, FB_QUANTIZE
    ctypedef struct fb_qparam:
        float scale
        float zero
    ctypedef struct fb_quant:
        int kind
        int exact
        int x
        int xbits
        int y
        int low
        int high
        fb_cast format
        int precision
        fb_cast precision_format
        float value[256]


cdef extern from "_c/imatmul.h":
    enum:
        FB_IMATMUL_ROWS
        FB_IMATMUL_COLS
    ctypedef struct fb_imatmul:
        const int16_t* a
        const char* b
        const int16_t* zb
        int32_t* c
        Py_ssize_t m, k, n, lda, ldb, ldc
        int b_signed
    void fb_imatmul_block(const fb_imatmul* p, Py_ssize_t m0, Py_ssize_t m1, Py_ssize_t n0,
                          Py_ssize_t n1) noexcept nogil
    void fb_requantize(const int32_t* s, const double* p, Py_ssize_t p_step, Py_ssize_t count, double y_scale,
                       int zero, int low, int high, uint8_t* y) noexcept nogil


cdef extern from "_c/reduce.h":
    void fb_range_f32(const float* x, Py_ssize_t n, float* low, float* high) noexcept nogil


cdef extern from "_c/engine.h":
    ctypedef struct fb_operand:
        int nd
        const Py_ssize_t* n
        const Py_ssize_t* s
        char* p
    ctypedef struct fb_plan:
        fb_config_t config
        fb_kernel kernel
        int nd
        Py_ssize_t n[FB_MAXD]
        Py_ssize_t s[3][FB_MAXD]
        char* p[3]
        Py_ssize_t total
    int fb_engine_broadcast(fb_plan* plan, const fb_operand* inputs, int ninputs) noexcept nogil
    Py_ssize_t fb_engine_nbytes(int nd, const Py_ssize_t* n, Py_ssize_t width) noexcept nogil
    bint fb_engine_self_overlaps(const fb_operand* x, int width) noexcept nogil
    bint fb_engine_writes_into(const fb_plan* plan, const fb_operand* out) noexcept nogil
    bint fb_engine_row_writes_into(const char* o, const char* a, const char* b, Py_ssize_t nbytes) noexcept nogil
    bint fb_engine_pooled(const fb_config_t* config, Py_ssize_t nbytes) noexcept nogil
    bint fb_engine_nogil(Py_ssize_t work) noexcept nogil
    bint fb_engine_inline(const fb_config_t* config, fb_kernel* kernel, Py_ssize_t n) noexcept nogil
    int fb_engine_plan(fb_plan* plan) noexcept nogil
    void fb_engine_run(fb_plan* plan) noexcept nogil
    void fb_engine_parallel(const fb_config_t* config, fb_share_fn fn, void* ctx, int kind, Py_ssize_t work,
                            Py_ssize_t units, int* nshares) noexcept nogil


cdef extern from "_c/pack.h":
    Py_ssize_t fb_packed_size(Py_ssize_t n, int bits) noexcept nogil
    void fb_pack(uint8_t* o, const uint8_t* a, Py_ssize_t n, int bits) noexcept nogil
    void fb_pack_mapped(uint8_t* o, const uint8_t* a, Py_ssize_t n, int bits, const uint8_t* map) noexcept nogil
    void fb_unpack(uint8_t* o, const uint8_t* a, Py_ssize_t n, int bits) noexcept nogil


cdef extern from "_c/layout.h":
    enum:
        FB_ORDER_K
        FB_ORDER_C
        FB_ORDER_F
        FB_ORDER_A
    int fb_layout(int order, int nd, const Py_ssize_t* shape, Py_ssize_t itemsize, int nop,
                  const Py_ssize_t* const* strides, int all_f, Py_ssize_t* out_strides) noexcept nogil
    int fb_layout_copy(int nd, const Py_ssize_t* shape, const Py_ssize_t* strides, Py_ssize_t itemsize,
                       int c_contiguous, int f_contiguous, Py_ssize_t* out_strides) noexcept nogil
