# cython: language_level=3
"""The compiled implementation: C-level dispatch and Cython kernels.

Same four functions, signatures, results and errors as :mod:`fastbits._ops_py`
(the reference).  A call first tries a fast path decided at C level from
tables prepared once at import from :mod:`fastbits.spec` (dtype number ->
ONNX type, allowed BitCast pairs).  Anything unusual (non-ndarray operands,
mismatched or unsupported dtypes, non-native byte order, an ``out`` the fast
path does not take, shapes that do not broadcast) goes through the slow
path, which calls the spec functions: they raise the errors, so no check or
message is written twice.  Kernels only run after every check passed.

Kernels work on bits: BitwiseAnd runs on the unsigned integer of the
operands' width (fused type over uint8/16/32/64), on raw pointers with byte
strides, without the GIL, split across a small thread team above a size
threshold.
"""

cimport cython
cimport numpy as cnp
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import os
import warnings

import numpy as np

from . import _ops_py, spec
from .spec import BITCAST, BITWISE_AND

cnp.import_array()

__all__ = ["bitcast", "bitwise_and", "get_num_threads", "set_num_threads"]


cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #include <stdint.h>
    #include "pythread.h"
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif

    /* ---- The thread team: fastbits' own, small and fork-safe ----
       A parallel call is cut into pieces that threads claim with an atomic counter.
       The calling thread starts on the pieces at once and never waits for a helper
       that has not started yet: a helper joins only while the call is open, and the
       caller waits only for the helpers that joined (each finishing the piece in its
       hands).  So a helper that is slow to wake, or kept off its core by other work
       on a busy machine, costs nothing, where a fork-join barrier (OpenMP's) would
       wait for it for a whole scheduler tick.  One call uses the team at a time;
       a concurrent call from another Python thread runs on its own thread.  After
       fork() the child starts with no helpers and makes new ones when it needs them. */
    #if (defined(__unix__) || defined(__APPLE__)) && !defined(FB_NO_THREADS)
    #define FB_THREADS 1
    #include <pthread.h>
    #include <signal.h>
    #else
    #define FB_THREADS 0
    #endif
    #define FB_MAX_HELPERS 255

    typedef void (*fb_piece_fn)(void *ctx, Py_ssize_t piece, int slot);

    #if FB_THREADS
    typedef struct {
        pthread_mutex_t mu;
        pthread_cond_t wake;        /* helpers wait here for a call */
        pthread_cond_t idle;        /* the caller waits here for joined helpers to leave */
        int started;                /* helper threads running */
        int busy;                   /* a call is using the team */
        int open;                   /* the call still takes helpers */
        int allowed;                /* helpers 1..allowed may join it */
        int joined;                 /* helpers inside it */
        unsigned long gen;          /* call number */
        fb_piece_fn fn;
        void *ctx;
        Py_ssize_t npieces;
        Py_ssize_t next;            /* next unclaimed piece (atomic) */
        Py_ssize_t helper_pieces;   /* pieces run by helpers so far (statistics) */
    } fb_team_t;
    static fb_team_t fb_team = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

    static void *fb_helper(void *arg) {
        int slot = (int)(intptr_t)arg;
        unsigned long seen;
        fb_piece_fn fn;
        void *ctx;
        Py_ssize_t n, p, done;
        pthread_mutex_lock(&fb_team.mu);
        seen = fb_team.gen;
        for (;;) {
            while (fb_team.gen == seen) pthread_cond_wait(&fb_team.wake, &fb_team.mu);
            seen = fb_team.gen;
            if (!fb_team.open || slot > fb_team.allowed) continue;
            fb_team.joined++;
            fn = fb_team.fn;
            ctx = fb_team.ctx;
            n = fb_team.npieces;
            pthread_mutex_unlock(&fb_team.mu);
            done = 0;
            for (;;) {
                p = __atomic_fetch_add(&fb_team.next, 1, __ATOMIC_RELAXED);
                if (p >= n) break;
                fn(ctx, p, slot);
                done++;
            }
            pthread_mutex_lock(&fb_team.mu);
            fb_team.helper_pieces += done;
            if (--fb_team.joined == 0 && !fb_team.open) pthread_cond_signal(&fb_team.idle);
        }
        return NULL;
    }

    /* Start helpers up to ``want`` (called with mu held); returns how many run. */
    static int fb_team_grow(int want) {
        pthread_attr_t attr;
        sigset_t all, old;
        pthread_t thread;
        if (want > FB_MAX_HELPERS) want = FB_MAX_HELPERS;
        if (fb_team.started >= want) return fb_team.started;
        if (pthread_attr_init(&attr) != 0) return fb_team.started;
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 1 << 20);
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);   /* helpers take no signals */
        while (fb_team.started < want) {
            if (pthread_create(&thread, &attr, fb_helper, (void *)(intptr_t)(fb_team.started + 1)) != 0) break;
            fb_team.started++;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
        return fb_team.started;
    }

    /* Run pieces [0, npieces) of fn on the calling thread (slot 0) and up to
       ``helpers`` helpers (slots 1..helpers); return when every piece is done. */
    static void fb_team_run(fb_piece_fn fn, void *ctx, Py_ssize_t npieces, int helpers) {
        Py_ssize_t p;
        if (helpers > 0) {
            pthread_mutex_lock(&fb_team.mu);
            if (!fb_team.busy && fb_team_grow(helpers) > 0) {
                fb_team.busy = 1;
                fb_team.open = 1;
                fb_team.allowed = helpers;
                fb_team.joined = 0;
                fb_team.fn = fn;
                fb_team.ctx = ctx;
                fb_team.npieces = npieces;
                __atomic_store_n(&fb_team.next, 0, __ATOMIC_RELAXED);
                fb_team.gen++;
                pthread_cond_broadcast(&fb_team.wake);
                pthread_mutex_unlock(&fb_team.mu);
                for (;;) {
                    p = __atomic_fetch_add(&fb_team.next, 1, __ATOMIC_RELAXED);
                    if (p >= npieces) break;
                    fn(ctx, p, 0);
                }
                pthread_mutex_lock(&fb_team.mu);
                fb_team.open = 0;
                while (fb_team.joined > 0) pthread_cond_wait(&fb_team.idle, &fb_team.mu);
                fb_team.busy = 0;
                fb_team.fn = NULL;
                fb_team.ctx = NULL;
                pthread_mutex_unlock(&fb_team.mu);
                return;
            }
            pthread_mutex_unlock(&fb_team.mu);
        }
        for (p = 0; p < npieces; p++) fn(ctx, p, 0);
    }

    /* In a child made by fork() no helper exists and the mutex may be held by a
       thread that does not exist there: start afresh. */
    static void fb_team_after_fork_child(void) {
        pthread_mutex_init(&fb_team.mu, NULL);
        pthread_cond_init(&fb_team.wake, NULL);
        pthread_cond_init(&fb_team.idle, NULL);
        fb_team.started = 0;
        fb_team.busy = 0;
        fb_team.open = 0;
        fb_team.joined = 0;
        fb_team.fn = NULL;
        fb_team.ctx = NULL;
    }
    static int fb_team_init(void) { return pthread_atfork(NULL, NULL, fb_team_after_fork_child); }
    static void fb_team_info(int *started, Py_ssize_t *helper_pieces) {
        pthread_mutex_lock(&fb_team.mu);
        *started = fb_team.started;
        *helper_pieces = fb_team.helper_pieces;
        pthread_mutex_unlock(&fb_team.mu);
    }
    #else
    static void fb_team_run(fb_piece_fn fn, void *ctx, Py_ssize_t npieces, int helpers) {
        Py_ssize_t p;
        (void)helpers;
        for (p = 0; p < npieces; p++) fn(ctx, p, 0);
    }
    static int fb_team_init(void) { return 0; }
    static void fb_team_info(int *started, Py_ssize_t *helper_pieces) { *started = 0; *helper_pieces = 0; }
    #endif

    /* ---- Runtime CPU dispatch for the hot contiguous loops ----
       The distributed build targets the baseline ISA (no -march=native); GCC's
       function multi-versioning compiles the loops below twice, for AVX2 and for
       the baseline, and picks one when the module is loaded (an ifunc). */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) \
        && !defined(FB_NO_CLONES)
    #define FB_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
    #else
    #define FB_CLONES
    #endif

    /* o = a & b over nbytes: bits are bits, one loop serves every integer type. */
    FB_CLONES static void fb_and_bytes(char *o, const char *a, const char *b, Py_ssize_t nbytes) {
        Py_ssize_t i;
        for (i = 0; i < nbytes; i++) o[i] = (char)(a[i] & b[i]);
    }
    /* o &= b (o is also an input). */
    FB_CLONES static void fb_and_inplace(char *o, const char *b, Py_ssize_t nbytes) {
        Py_ssize_t i;
        for (i = 0; i < nbytes; i++) o[i] = (char)(o[i] & b[i]);
    }
    /* o = a & v for one value v repeated, per element width. */
    #define FB_AND_SCALAR(T) \
    FB_CLONES static void fb_and_scalar_##T(T *o, const T *a, T v, Py_ssize_t n) { \
        Py_ssize_t i; \
        for (i = 0; i < n; i++) o[i] = (T)(a[i] & v); \
    }
    FB_AND_SCALAR(uint8_t)
    FB_AND_SCALAR(uint16_t)
    FB_AND_SCALAR(uint32_t)
    FB_AND_SCALAR(uint64_t)

    /* ---- byte-order helpers (compilers turn these into bswap) ---- */
    static inline uint16_t fb_bswap16(uint16_t x) { return (uint16_t)((x >> 8) | (x << 8)); }
    static inline uint32_t fb_bswap32(uint32_t x) {
        return ((x & 0xff000000u) >> 24) | ((x & 0x00ff0000u) >> 8)
             | ((x & 0x0000ff00u) << 8) | ((x & 0x000000ffu) << 24);
    }
    static inline uint64_t fb_bswap64(uint64_t x) {
        return ((uint64_t)fb_bswap32((uint32_t)x) << 32) | (uint64_t)fb_bswap32((uint32_t)(x >> 32));
    }

    /* ---- Long contiguous AND with non-temporal stores (x86-64 SSE2) ----
       A large result is not read again soon: writing it around the cache saves
       the read-for-ownership of every output line.  Returns 0 (nothing done)
       where unsupported or when out overlaps an input other than exactly. */
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    static int fb_and_stream(char *o, const char *a, const char *b, Py_ssize_t nbytes, int bcast) {
        /* bcast: b is a 16-byte pattern (one element repeated) rather than an array */
        Py_ssize_t i = 0, head;
        __m128i vb = _mm_loadu_si128((const __m128i *)b);
        if (o != a && o < a + nbytes && a < o + nbytes) return 0;
        if (!bcast && o != b && o < b + nbytes && b < o + nbytes) return 0;
        head = (Py_ssize_t)((16 - ((uintptr_t)o & 15)) & 15);
        if (head > nbytes) head = nbytes;
        for (; i < head; i++) o[i] = (char)(a[i] & b[bcast ? (i & 15) : i]);
        if (bcast) {
            for (; i + 64 <= nbytes; i += 64) {
                __m128i x0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(a + i)), vb);
                __m128i x1 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(a + i + 16)), vb);
                __m128i x2 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(a + i + 32)), vb);
                __m128i x3 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(a + i + 48)), vb);
                _mm_stream_si128((__m128i *)(o + i), x0);
                _mm_stream_si128((__m128i *)(o + i + 16), x1);
                _mm_stream_si128((__m128i *)(o + i + 32), x2);
                _mm_stream_si128((__m128i *)(o + i + 48), x3);
            }
        } else {
            for (; i + 64 <= nbytes; i += 64) {
                __m128i x0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(a + i)), _mm_loadu_si128((const __m128i *)(b + i)));
                __m128i x1 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(a + i + 16)), _mm_loadu_si128((const __m128i *)(b + i + 16)));
                __m128i x2 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(a + i + 32)), _mm_loadu_si128((const __m128i *)(b + i + 32)));
                __m128i x3 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(a + i + 48)), _mm_loadu_si128((const __m128i *)(b + i + 48)));
                _mm_stream_si128((__m128i *)(o + i), x0);
                _mm_stream_si128((__m128i *)(o + i + 16), x1);
                _mm_stream_si128((__m128i *)(o + i + 32), x2);
                _mm_stream_si128((__m128i *)(o + i + 48), x3);
            }
        }
        _mm_sfence();
        for (; i < nbytes; i++) o[i] = (char)(a[i] & b[bcast ? (i & 15) : i]);
        return 1;
    }
    #else
    static int fb_and_stream(char *o, const char *a, const char *b, Py_ssize_t nbytes, int bcast) {
        (void)o; (void)a; (void)b; (void)nbytes; (void)bcast; return 0;
    }
    #endif

    /* ---- software prefetch of the next transposed tile ---- */
    #if defined(__GNUC__) || defined(__clang__)
    #define fb_prefetch(p) __builtin_prefetch((const void *)(p), 0, 0)
    #else
    #define fb_prefetch(p) ((void)(p))
    #endif
    static void fb_prefetch_tile(const char *p, Py_ssize_t s_line, Py_ssize_t ncols, Py_ssize_t s_col, Py_ssize_t nbytes) {
        Py_ssize_t j, l;
        for (j = 0; j < ncols; j++)
            for (l = 0; l < nbytes; l += 64) fb_prefetch(p + j * s_col + l * (s_line > 0 ? 1 : -1));
    }

    /* ---- byte swaps of contiguous runs ---- */
    FB_CLONES static void fb_swap_contig(char *o, const char *a, Py_ssize_t n, Py_ssize_t isz, int swap) {
        Py_ssize_t i, m = n * (isz / swap);
        if (swap == 2) {
            for (i = 0; i < m; i++) { uint16_t v; memcpy(&v, a + 2 * i, 2); v = fb_bswap16(v); memcpy(o + 2 * i, &v, 2); }
        } else if (swap == 4) {
            for (i = 0; i < m; i++) { uint32_t v; memcpy(&v, a + 4 * i, 4); v = fb_bswap32(v); memcpy(o + 4 * i, &v, 4); }
        } else {
            for (i = 0; i < m; i++) { uint64_t v; memcpy(&v, a + 8 * i, 8); v = fb_bswap64(v); memcpy(o + 8 * i, &v, 8); }
        }
    }

    /* ---- BitCast row copy: any itemsize, unaligned-safe (memcpy loads) ----
       swap: 0, or the byte-swap unit (2, 4, 8; a complex swaps each half).
       mask: 0, or the mask of a sub-byte copy (itemsize 1). */
    static void fb_copy_row(char *o, Py_ssize_t so, const char *a, Py_ssize_t sa,
                            Py_ssize_t n, Py_ssize_t isz, int swap, int mask)
    {
        Py_ssize_t i, h;
        if (mask) {
            const uint8_t m = (uint8_t)mask;
            if (so == 1 && sa == 1) {
                fb_and_scalar_uint8_t((uint8_t *)o, (const uint8_t *)a, m, n);
            } else {
                for (i = 0; i < n; i++) *(uint8_t *)(o + i * so) = (uint8_t)(*(const uint8_t *)(a + i * sa) & m);
            }
            return;
        }
        if (swap == 0) {
            if (so == isz && sa == isz) { memcpy(o, a, (size_t)(n * isz)); return; }
            switch (isz) {
            case 1: for (i = 0; i < n; i++) o[i * so] = a[i * sa]; return;
            case 2: for (i = 0; i < n; i++) { uint16_t v; memcpy(&v, a + i * sa, 2); memcpy(o + i * so, &v, 2); } return;
            case 4: for (i = 0; i < n; i++) { uint32_t v; memcpy(&v, a + i * sa, 4); memcpy(o + i * so, &v, 4); } return;
            case 8: for (i = 0; i < n; i++) { uint64_t v; memcpy(&v, a + i * sa, 8); memcpy(o + i * so, &v, 8); } return;
            default: for (i = 0; i < n; i++) memcpy(o + i * so, a + i * sa, (size_t)isz); return;
            }
        }
        if (so == isz && sa == isz) { fb_swap_contig(o, a, n, isz, swap); return; }
        if (isz == swap) {
            switch (swap) {
            case 2: for (i = 0; i < n; i++) { uint16_t v; memcpy(&v, a + i * sa, 2); v = fb_bswap16(v); memcpy(o + i * so, &v, 2); } return;
            case 4: for (i = 0; i < n; i++) { uint32_t v; memcpy(&v, a + i * sa, 4); v = fb_bswap32(v); memcpy(o + i * so, &v, 4); } return;
            default: for (i = 0; i < n; i++) { uint64_t v; memcpy(&v, a + i * sa, 8); v = fb_bswap64(v); memcpy(o + i * so, &v, 8); } return;
            }
        }
        for (i = 0; i < n; i++) {
            const char *p = a + i * sa;
            char *q = o + i * so;
            for (h = 0; h < isz; h += swap) {
                if (swap == 2) { uint16_t v; memcpy(&v, p + h, 2); v = fb_bswap16(v); memcpy(q + h, &v, 2); }
                else if (swap == 4) { uint32_t v; memcpy(&v, p + h, 4); v = fb_bswap32(v); memcpy(q + h, &v, 4); }
                else { uint64_t v; memcpy(&v, p + h, 8); v = fb_bswap64(v); memcpy(q + h, &v, 8); }
            }
        }
    }

    /* ---- The output pool: the remedy for page faults on fresh outputs ----
       A numpy memory handler (PyDataMem_Handler), installed only around the
       allocation of a large fresh result.  When such an array dies, its block
       goes back to a small bounded pool instead of to the OS, and the next
       large result of a similar size reuses it: its pages are already mapped,
       so writing it costs no page faults.  A block is handed out only after
       the array that owned it was freed, so no live arrays share memory. */
    #define FB_HDR 64
    #define FB_POOL_SLOTS 4
    #define FB_POOL_MAX ((size_t)256 << 20)
    #define FB_ROUND ((size_t)1 << 21)
    typedef struct { char *base; size_t cap; } fb_block;
    static fb_block fb_pool[FB_POOL_SLOTS];
    static size_t fb_pool_bytes = 0, fb_pool_hits = 0, fb_pool_misses = 0;
    static PyThread_type_lock fb_pool_lock = NULL;

    static int fb_pool_init(void) {
        if (fb_pool_lock == NULL) fb_pool_lock = PyThread_allocate_lock();
        return fb_pool_lock == NULL ? -1 : 0;
    }

    /* In a child made by fork() the lock may be held by a thread that does not exist
       there: replace it (the old one is left as it is) so the child cannot deadlock. */
    static int fb_pool_after_fork_child(void) {
        fb_pool_lock = PyThread_allocate_lock();
        return fb_pool_lock == NULL ? -1 : 0;
    }

    static char *fb_raw_alloc(size_t cap) {
        void *base = NULL;
    #if defined(_WIN32)
        base = malloc(cap + FB_HDR);
    #else
        if (posix_memalign(&base, FB_ROUND, cap + FB_HDR) != 0) base = NULL;
    #endif
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (base != NULL) (void)madvise(base, cap + FB_HDR, MADV_HUGEPAGE);
    #endif
        if (base != NULL) *(size_t *)base = cap;
        return (char *)base;
    }

    static void *fb_malloc(void *ctx, size_t size) {
        int i, best = -1;
        char *base;
        size_t cap;
        (void)ctx;
        if (size == 0) size = 1;
        PyThread_acquire_lock(fb_pool_lock, WAIT_LOCK);
        for (i = 0; i < FB_POOL_SLOTS; i++) {
            if (fb_pool[i].base != NULL && fb_pool[i].cap >= size && fb_pool[i].cap <= 2 * size + FB_ROUND
                && (best < 0 || fb_pool[i].cap < fb_pool[best].cap)) best = i;
        }
        if (best >= 0) {
            base = fb_pool[best].base;
            fb_pool_bytes -= fb_pool[best].cap;
            fb_pool[best].base = NULL;
            fb_pool[best].cap = 0;
            fb_pool_hits++;
            PyThread_release_lock(fb_pool_lock);
            return base + FB_HDR;
        }
        fb_pool_misses++;
        PyThread_release_lock(fb_pool_lock);
        cap = (size + FB_ROUND - 1) / FB_ROUND * FB_ROUND;
        base = fb_raw_alloc(cap);
        return base == NULL ? NULL : base + FB_HDR;
    }

    static void fb_free(void *ctx, void *ptr, size_t size) {
        int i, slot = -1;
        char *base, *drop;
        size_t cap;
        (void)ctx; (void)size;
        if (ptr == NULL) return;
        base = (char *)ptr - FB_HDR;
        cap = *(size_t *)base;
        drop = base;
        PyThread_acquire_lock(fb_pool_lock, WAIT_LOCK);
        for (i = 0; i < FB_POOL_SLOTS; i++) {
            if (fb_pool[i].base == NULL) { slot = i; break; }
        }
        if (slot < 0) {  /* full: replace the smallest block if this one is larger */
            for (i = 0; i < FB_POOL_SLOTS; i++)
                if (slot < 0 || fb_pool[i].cap < fb_pool[slot].cap) slot = i;
            if (fb_pool[slot].cap >= cap) slot = -1;
        }
        if (slot >= 0 && fb_pool_bytes - fb_pool[slot].cap + cap <= FB_POOL_MAX) {
            drop = fb_pool[slot].base;  /* NULL when the slot was empty */
            fb_pool_bytes = fb_pool_bytes - fb_pool[slot].cap + cap;
            fb_pool[slot].base = base;
            fb_pool[slot].cap = cap;
        }
        PyThread_release_lock(fb_pool_lock);
        free(drop);
    }

    static void *fb_calloc(void *ctx, size_t nelem, size_t elsize) {
        void *p;
        if (elsize != 0 && nelem > ((size_t)-1) / elsize) return NULL;
        p = fb_malloc(ctx, nelem * elsize);
        if (p != NULL) memset(p, 0, nelem * elsize);
        return p;
    }

    static void *fb_realloc(void *ctx, void *ptr, size_t new_size) {
        size_t cap;
        void *q;
        if (ptr == NULL) return fb_malloc(ctx, new_size);
        cap = *(size_t *)((char *)ptr - FB_HDR);
        if (new_size <= cap) return ptr;
        q = fb_malloc(ctx, new_size);
        if (q == NULL) return NULL;
        memcpy(q, ptr, cap);
        fb_free(ctx, ptr, cap);
        return q;
    }

    static void fb_pool_clear(void) {
        int i;
        char *drop[FB_POOL_SLOTS];
        PyThread_acquire_lock(fb_pool_lock, WAIT_LOCK);
        for (i = 0; i < FB_POOL_SLOTS; i++) { drop[i] = fb_pool[i].base; fb_pool[i].base = NULL; fb_pool[i].cap = 0; }
        fb_pool_bytes = 0;
        PyThread_release_lock(fb_pool_lock);
        for (i = 0; i < FB_POOL_SLOTS; i++) free(drop[i]);
    }

    static PyDataMem_Handler fb_handler = {
        "fastbits_output_pool", 1, {NULL, fb_malloc, fb_calloc, fb_realloc, fb_free}
    };
    static PyObject *fb_handler_capsule(void) {
        return PyCapsule_New((void *)&fb_handler, "mem_handler", NULL);
    }
    """
    const int FB_THREADS
    ctypedef void (*fb_piece_fn)(void* ctx, Py_ssize_t piece, int slot) noexcept nogil
    void fb_team_run(fb_piece_fn fn, void* ctx, Py_ssize_t npieces, int helpers) noexcept nogil
    int fb_team_init()
    void fb_team_info(int* started, Py_ssize_t* helper_pieces)
    uint16_t fb_bswap16(uint16_t) nogil
    void fb_and_bytes(char*, const char*, const char*, Py_ssize_t) noexcept nogil
    void fb_and_inplace(char*, const char*, Py_ssize_t) noexcept nogil
    void fb_and_scalar_uint8_t(uint8_t*, const uint8_t*, uint8_t, Py_ssize_t) noexcept nogil
    void fb_and_scalar_uint16_t(uint16_t*, const uint16_t*, uint16_t, Py_ssize_t) noexcept nogil
    void fb_and_scalar_uint32_t(uint32_t*, const uint32_t*, uint32_t, Py_ssize_t) noexcept nogil
    void fb_and_scalar_uint64_t(uint64_t*, const uint64_t*, uint64_t, Py_ssize_t) noexcept nogil
    bint fb_and_stream(char*, const char*, const char*, Py_ssize_t, int) noexcept nogil
    void fb_prefetch_tile(const char*, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t) noexcept nogil
    void fb_copy_row(char*, Py_ssize_t, const char*, Py_ssize_t, Py_ssize_t, Py_ssize_t, int, int) noexcept nogil
    int fb_pool_init()
    int fb_pool_after_fork_child()
    void fb_pool_clear()
    size_t fb_pool_bytes, fb_pool_hits, fb_pool_misses
    object fb_handler_capsule()


cdef extern from "numpy/arrayobject.h":
    # Declared here with PyObject* so that the stolen descr references are explicit.
    object fb_empty "PyArray_Empty"(int nd, cnp.npy_intp* dims, void* descr, int fortran)
    object fb_view "PyArray_View"(cnp.ndarray arr, void* descr, void* subtype)
    object PyDataMem_SetHandler(object handler)


# ---------------------------------------------------------------------------
# Tables, built once at import from fastbits.spec

cdef enum:
    MAXD = 64            # numpy 2's NPY_MAXDIMS (numpy 1: 32)
    NTAB = 32            # builtin dtype numbers covered by the BitwiseAnd table
    NBC = 1024           # dtype numbers covered by the BitCast table (ml_dtypes' are user types, >= 256)
    NCODES = 29          # ONNX DataType codes 0..28

cdef signed char AND_CODE[NTAB]   # dtype num -> ONNX code in BitwiseAnd's T, or -1
cdef signed char BC_CODE[NBC]     # dtype num -> ONNX code in BitCast's T1, or -1
cdef char BC_OK[NCODES][NCODES]   # 1 when spec.check_bitcast accepts (src, dst)
cdef int BITS[NCODES]             # ONNX bit width per code
cdef int ISZ[NCODES]              # itemsize of the numpy dtype per code
cdef long long INT_LO[NCODES]     # range a Python int operand must fit (within long long)
cdef long long INT_HI[NCODES]
cdef PyObject* DESCR[NCODES]      # native numpy dtype per code (references held by _DESCRS)
cdef int SWAP_UNIT[NTAB]          # byte-swap unit for builtin dtype nums (0: cannot)

_DESCRS = {}
_DataType = spec.DataType
_TO_KINDS = (type, np.dtype)
_TO_CACHE = {}        # resolved BitCast 'to' values (str, type, dtype) -> code
cdef Py_ssize_t TO_CACHE_MAX = 256
_POOL_HANDLER = fb_handler_capsule()
if fb_pool_init() != 0:
    raise ImportError("fastbits._ops_c: could not allocate the output-pool lock")




cdef void _build_tables() except *:
    cdef int i, j, code
    for i in range(NTAB):
        AND_CODE[i] = -1
        SWAP_UNIT[i] = 0
    for i in range(NBC):
        BC_CODE[i] = -1
    for i in range(NCODES):
        DESCR[i] = NULL
        BITS[i] = 0
        ISZ[i] = 0
        for j in range(NCODES):
            BC_OK[i][j] = 0
    for c, info in spec.TYPES.items():
        code = int(c)
        BITS[code] = info.bits or 0
        if info.dtype is not None and c != spec.DataType.STRING:
            dt = info.dtype.newbyteorder("=")
            _DESCRS[code] = dt
            DESCR[code] = <PyObject*>dt
            ISZ[code] = dt.itemsize
    # Every dtype numpy or ml_dtypes knows that maps to an ONNX type (aliases
    # such as 'l' and 'q' have different numbers but the same ONNX type).
    candidates = [np.dtype(ch) for ch in np.typecodes["All"] if ch not in "OSUVMm"]
    # ('l'/'L' are in typecodes; np.long does not exist in numpy 1.24-1.26)
    candidates += [np.dtype(t) for t in (np.intp, np.uintp, np.longlong, np.ulonglong)]
    candidates += [info.dtype for info in spec.TYPES.values() if info.dtype is not None]
    for dt in candidates:
        c = spec.datatype_of(dt)
        if c is None or dt.num >= NBC or dt.num < 0:
            continue
        if c in spec.BITCAST_T1:
            BC_CODE[dt.num] = int(c)
        if dt.num < NTAB:
            if c in spec.BITWISE_AND_T:
                AND_CODE[dt.num] = int(c)
            if dt.kind in "biuf" and dt.itemsize in (2, 4, 8):
                SWAP_UNIT[dt.num] = dt.itemsize
            elif dt.kind == "c" and dt.itemsize in (8, 16):
                SWAP_UNIT[dt.num] = dt.itemsize // 2
    for c in spec.BITWISE_AND_T:
        info = np.iinfo(spec.numpy_dtype(c))
        INT_LO[int(c)] = max(int(info.min), -(2**63))
        INT_HI[int(c)] = min(int(info.max), 2**63 - 1)
    for src in spec.BITCAST_T1:
        for dst in spec.DataType:
            try:
                spec.check_bitcast(spec.numpy_dtype(src), dst)
            except spec.TypeConstraintError:
                continue
            except (ValueError, TypeError):
                continue
            BC_OK[int(src)][int(dst)] = 1


_build_tables()


# ---------------------------------------------------------------------------
# Threads

cdef int _nthreads = 1
cdef Py_ssize_t PAR_BYTES = 1 << 23     # below this much output, streaming loops run on one thread
# Waking a helper costs tens of microseconds and a memory-bound loop gains little from a
# second core below several MiB (measured: 1 MiB of int8 AND ran slower on two threads than
# on one); transposes and gathered short rows do more work per byte and gain from 512 KiB.
cdef Py_ssize_t FAST_BYTES = 1 << 18    # same-shape contiguous calls below this: straight loop
cdef Py_ssize_t PIECE_BYTES = 1 << 18   # output bytes per piece of parallel work


def _default_threads():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _threads_from_env():
    value = os.environ.get("FASTBITS_NUM_THREADS", "").strip()
    if not value:
        return _default_threads()
    try:
        return spec.check_num_threads(int(value))
    except (ValueError, TypeError):
        warnings.warn(
            f"fastbits: FASTBITS_NUM_THREADS={value!r} is not a positive int; ignored",
            RuntimeWarning,
            stacklevel=2,
        )
        return _default_threads()


_nthreads = _threads_from_env()

def _set_parallel_threshold(nbytes):
    """Set the output size from which streaming loops use threads (transposes and gathers:
    a 16th of it); return the old one (tests use 0 to run threads on small arrays)."""
    global PAR_BYTES
    old = PAR_BYTES
    PAR_BYTES = max(0, int(nbytes))
    return old


#: True when the kernels can use threads (POSIX threads; not with FASTBITS_NO_THREADS).
_HAVE_THREADS = bool(FB_THREADS)
if fb_team_init() != 0:
    raise ImportError("fastbits._ops_c: could not register the thread team's fork handler")


def get_num_threads():
    """Threads the kernels use for large arrays (1 when built without threads)."""
    return _nthreads if FB_THREADS else 1


def set_num_threads(n):
    """Set the threads the kernels use above the size threshold (a positive int).

    Built without threads, the value is accepted and the kernels stay on one thread.
    """
    global _nthreads
    _nthreads = spec.check_num_threads(n)


def _after_fork_child():
    """Run in the child after ``os.fork()``: the output pool's lock may be held by a
    thread that does not exist in the child, so the child gets a new one.  (The
    thread team resets itself in its own fork handler.)"""
    if fb_pool_after_fork_child() != 0:
        raise MemoryError("fastbits._ops_c: could not allocate the output-pool lock after fork")


os.register_at_fork(after_in_child=_after_fork_child)


# ---------------------------------------------------------------------------
# Output allocation

cdef Py_ssize_t POOL_MIN = 1 << 25      # fresh results at least this large use the pool
# (below 32 MiB glibc's malloc already reuses freed memory, whose pages are mapped and often
# still in cache; the pool measured slower there: 4 MiB of int32 took 330 us against 190)


cdef object _alloc(int nd, cnp.npy_intp* dims, int code, Py_ssize_t nbytes, bint is_and):
    """A new C-contiguous native array of type ``code``.

    When it cannot be allocated, BitwiseAnd's error comes from
    ``spec.allocate``; BitCast's is numpy's, as on the pure path.
    """
    cdef PyObject* descr = DESCR[code]
    try:
        Py_INCREF(<object>descr)  # PyArray_Empty steals it
        if nbytes < POOL_MIN:
            return fb_empty(nd, dims, <void*>descr, 0)
        Py_INCREF(<object>descr)
        old = PyDataMem_SetHandler(_POOL_HANDLER)
        try:
            return fb_empty(nd, dims, <void*>descr, 0)
        finally:
            PyDataMem_SetHandler(old)
    except (MemoryError, ValueError):
        if not is_and:
            raise
        shape = tuple([dims[i] for i in range(nd)])
        return spec.allocate(BITWISE_AND, shape, <object>descr)


def _set_pool_threshold(nbytes):
    """Fresh results from this size on use the pool; return the old size.

    ``_set_pool_threshold(2**62)`` turns the pool off (the benchmark's --no-pool).
    """
    global POOL_MIN
    old = POOL_MIN
    POOL_MIN = max(0, int(nbytes))
    return old


def _pool_info():
    """(hits, misses, idle bytes) of the fresh-output pool (for tests and benchmarks)."""
    return int(fb_pool_hits), int(fb_pool_misses), int(fb_pool_bytes)


def _pool_clear():
    """Return the idle blocks of the output pool to the system."""
    fb_pool_clear()


# ---------------------------------------------------------------------------
# Kernels: BitwiseAnd on the unsigned integer of the element width

cdef Py_ssize_t STREAM_BYTES = 1 << 23   # results this large use streaming stores (beyond a typical LLC)


ctypedef fused uint_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t


cdef inline void _and_scalar(uint_t* o, const uint_t* a, uint_t v, Py_ssize_t n) noexcept nogil:
    """o[i] = a[i] & v, contiguous (o may be a)."""
    if uint_t is uint8_t:
        fb_and_scalar_uint8_t(o, a, v, n)
    elif uint_t is uint16_t:
        fb_and_scalar_uint16_t(o, a, v, n)
    elif uint_t is uint32_t:
        fb_and_scalar_uint32_t(o, a, v, n)
    else:
        fb_and_scalar_uint64_t(o, a, v, n)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void _and_1d(uint_t* o, const char* pa, const char* pb, Py_ssize_t n,
                         Py_ssize_t so, Py_ssize_t sa, Py_ssize_t sb, bint stream) noexcept nogil:
    """o[i] = a[i] & b[i] for i < n, strides in bytes (any sign, 0 for broadcast).

    ``stream``: the whole result is large, write contiguous runs around the cache.
    """
    cdef uint_t pat[16]
    cdef Py_ssize_t i
    cdef Py_ssize_t w = sizeof(uint_t)
    cdef const uint_t* a = <const uint_t*>pa
    cdef const uint_t* b = <const uint_t*>pb
    cdef uint_t v
    cdef char* po
    cdef const char* pt
    cdef Py_ssize_t st
    if so == w:
        if sb == w and sa != w:
            # AND commutes: make a the contiguous operand, so each layout has one branch
            pt = pa; pa = pb; pb = pt
            st = sa; sa = sb; sb = st
            a = <const uint_t*>pa
            b = <const uint_t*>pb
        if sa == w:
            if sb == w:
                if <const uint_t*>o == a:
                    fb_and_inplace(<char*>o, pb, n * w)
                elif <const uint_t*>o == b:
                    fb_and_inplace(<char*>o, pa, n * w)
                elif stream and n >= 64 and fb_and_stream(<char*>o, pa, pb, n * w, 0):
                    pass
                else:
                    fb_and_bytes(<char*>o, pa, pb, n * w)
                return
            if sb == 0:
                v = b[0]
                if stream and n >= 64 and <const uint_t*>o != a:
                    for i in range(16 // w):
                        pat[i] = v
                    if fb_and_stream(<char*>o, pa, <char*>pat, n * w, 1):
                        return
                _and_scalar(o, a, v, n)
                return
            if sb == 2 * w:
                for i in range(n):
                    o[i] = a[i] & b[2 * i]
                return
        elif sa == 0 and sb == 0:
            v = a[0] & b[0]
            for i in range(n):
                o[i] = v
            return
        elif sa == 2 * w and sb == 2 * w:
            for i in range(n):
                o[i] = a[2 * i] & b[2 * i]
            return
        for i in range(n):
            o[i] = (<const uint_t*>(pa + i * sa))[0] & (<const uint_t*>(pb + i * sb))[0]
        return
    po = <char*>o
    for i in range(n):
        (<uint_t*>(po + i * so))[0] = (<const uint_t*>(pa + i * sa))[0] & (<const uint_t*>(pb + i * sb))[0]


cdef inline void _and_row(int isz, char* o, const char* a, const char* b, Py_ssize_t n,
                          Py_ssize_t so, Py_ssize_t sa, Py_ssize_t sb, bint stream=False) noexcept nogil:
    if isz == 4:
        _and_1d(<uint32_t*>o, a, b, n, so, sa, sb, stream)
    elif isz == 8:
        _and_1d(<uint64_t*>o, a, b, n, so, sa, sb, stream)
    elif isz == 1:
        _and_1d(<uint8_t*>o, a, b, n, so, sa, sb, stream)
    else:
        _and_1d(<uint16_t*>o, a, b, n, so, sa, sb, stream)


# ---------------------------------------------------------------------------
# The loop plan: the broadcast after coalescing, and the loops that run it

cdef enum:
    OP_AND = 0           # o = a & b (itemsize 1, 2, 4, 8)
    OP_COPY = 1          # o = a, byte-swapped or masked (BitCast)

    K_1D = 0             # one axis, any strides
    K_ROWS = 1           # rows of the inner axis
    K_BLOCKED = 2        # the two inner axes in tiles (transposed operands)
    K_TILE = 3           # a small operand repeating along the outer axes
    K_GATHER = 4         # short rows, gathered into contiguous chunks

    ROW_MIN = 32         # rows shorter than this are gathered or tiled
    CHUNK = 4096         # elements per gathered chunk: CHUNK * 8 <= SLOT
    SLOT = 65536         # bytes of one scratch slot (out, a, b: 3 slots per thread)
    SCRATCH = 3 * SLOT   # scratch bytes per thread
    BI = 64              # blocked tile: rows (of the output) ...
    BJ = 64              # ... and columns; BI * BJ * 16 (complex128) <= SLOT
    TILE_ELEMS = 4096    # target length of a tiled repeating operand
    BLOCK_STRIDE = 64    # an inner stride above this many bytes asks for blocking


cdef struct Plan:
    int nd
    int isz
    int op
    int swap
    int mask
    int kind
    int tile_op          # K_TILE: which input (1 or 2) the tile replaces
    int nthreads         # threads allowed for this call (read once)
    bint stream          # the result is large: contiguous runs use streaming stores
    bint tr[3]           # K_BLOCKED: inputs read through a transposed tile
    Py_ssize_t total
    Py_ssize_t tile_len
    char* tile
    char* scratch        # K_GATHER, K_BLOCKED: SCRATCH bytes per thread
    Py_ssize_t n[MAXD]
    Py_ssize_t s[3][MAXD]   # byte strides of out (0), a (1), b (2)
    char* p[3]


cdef struct RowIt:
    Py_ssize_t idx[MAXD]
    Py_ssize_t off[3]


@cython.cdivision(True)
cdef inline void _it_init(const Plan* pl, RowIt* it, Py_ssize_t r, int ndo) noexcept nogil:
    """Position ``it`` at row ``r`` of the first ``ndo`` axes (C order)."""
    cdef int d, k
    it.off[0] = 0
    it.off[1] = 0
    it.off[2] = 0
    d = ndo - 1
    while d >= 0:
        it.idx[d] = r % pl.n[d]
        r = r // pl.n[d]
        for k in range(3):
            it.off[k] += it.idx[d] * pl.s[k][d]
        d -= 1


cdef inline void _it_next(const Plan* pl, RowIt* it, int ndo) noexcept nogil:
    cdef int d = ndo - 1
    cdef int k
    while d >= 0:
        it.idx[d] += 1
        for k in range(3):
            it.off[k] += pl.s[k][d]
        if it.idx[d] < pl.n[d]:
            return
        for k in range(3):
            it.off[k] -= pl.s[k][d] * pl.n[d]
        it.idx[d] = 0
        d -= 1


cdef inline void _row(const Plan* pl, char* o, const char* a, const char* b, Py_ssize_t n,
                      Py_ssize_t so, Py_ssize_t sa, Py_ssize_t sb) noexcept nogil:
    if pl.op == OP_AND:
        _and_row(pl.isz, o, a, b, n, so, sa, sb, pl.stream)
    else:
        fb_copy_row(o, so, a, sa, n, pl.isz, pl.swap, pl.mask)


@cython.cdivision(True)
cdef void _work(const Plan* pl, Py_ssize_t u0, Py_ssize_t u1, char* scratch) noexcept nogil:
    """Run units [u0, u1) of the plan: elements, rows, row blocks or tiles, by kind."""
    cdef RowIt it, it2
    cdef int nd = pl.nd
    cdef int isz = pl.isz
    cdef int ndo, k, t
    cdef Py_ssize_t u, r, i, j, jb, j1, n0, n1, nbi, i0, i1, inner, off, cnt, rn, rc, R
    cdef char* q[3]
    cdef Py_ssize_t st[3]
    if u0 >= u1:
        return
    if pl.kind == K_1D:
        _row(pl, pl.p[0] + u0 * pl.s[0][0], pl.p[1] + u0 * pl.s[1][0], pl.p[2] + u0 * pl.s[2][0],
             u1 - u0, pl.s[0][0], pl.s[1][0], pl.s[2][0])
    elif pl.kind == K_ROWS:
        ndo = nd - 1
        _it_init(pl, &it, u0, ndo)
        for u in range(u0, u1):
            _row(pl, pl.p[0] + it.off[0], pl.p[1] + it.off[1], pl.p[2] + it.off[2], pl.n[ndo],
                 pl.s[0][ndo], pl.s[1][ndo], pl.s[2][ndo])
            _it_next(pl, &it, ndo)
    elif pl.kind == K_BLOCKED:
        # Tiles of BI x BJ over the two inner axes.  An input whose inner stride
        # is large (a transposed operand) is first copied tile by tile into
        # scratch, reading it along its own contiguous axis; then every row of
        # the tile runs contiguously.  Power-of-two strides no longer thrash
        # one cache set.
        ndo = nd - 2
        n0 = pl.n[nd - 2]
        n1 = pl.n[nd - 1]
        nbi = (n0 + BI - 1) // BI
        for u in range(u0, u1):
            _it_init(pl, &it, u // nbi, ndo)
            i0 = (u % nbi) * BI
            i1 = i0 + BI
            if i1 > n0:
                i1 = n0
            jb = 0
            while jb < n1:
                j1 = jb + BJ
                if j1 > n1:
                    j1 = n1
                for k in range(1, 3):
                    if pl.tr[k] and j1 < n1:  # ask for the next tile's lines early
                        fb_prefetch_tile(pl.p[k] + it.off[k] + i0 * pl.s[k][nd - 2] + j1 * pl.s[k][nd - 1],
                                         pl.s[k][nd - 2], (BJ if j1 + BJ <= n1 else n1 - j1),
                                         pl.s[k][nd - 1], (i1 - i0) * _abs(pl.s[k][nd - 2]))
                for k in range(1, 3):
                    if pl.tr[k]:
                        for j in range(jb, j1):
                            fb_copy_row(scratch + k * SLOT + (j - jb) * isz, (j1 - jb) * isz,
                                        pl.p[k] + it.off[k] + i0 * pl.s[k][nd - 2] + j * pl.s[k][nd - 1],
                                        pl.s[k][nd - 2], i1 - i0, isz, 0, 0)
                for i in range(i0, i1):
                    for k in range(3):
                        if pl.tr[k]:
                            q[k] = scratch + k * SLOT + (i - i0) * (j1 - jb) * isz
                            st[k] = isz
                        else:
                            q[k] = pl.p[k] + it.off[k] + i * pl.s[k][nd - 2] + jb * pl.s[k][nd - 1]
                            st[k] = pl.s[k][nd - 1]
                    _row(pl, q[0], q[1], q[2], j1 - jb, st[0], st[1], st[2])
                jb = j1
    elif pl.kind == K_TILE:
        # out and the other input are flat (C-contiguous over all axes)
        t = pl.tile_op
        for u in range(u0, u1):
            off = u * pl.tile_len
            cnt = pl.total - off
            if cnt > pl.tile_len:
                cnt = pl.tile_len
            q[0] = pl.p[0] + off * isz
            q[1] = pl.tile if t == 1 else pl.p[1] + off * isz
            q[2] = pl.tile if t == 2 else pl.p[2] + off * isz
            _and_row(isz, q[0], q[1], q[2], cnt, isz, isz, isz, pl.stream)
    else:  # K_GATHER: short rows; gather inputs (and out) into chunks of whole rows
        ndo = nd - 1
        inner = pl.n[ndo]
        R = CHUNK // inner
        _it_init(pl, &it, u0, ndo)
        rc = u0
        while rc < u1:
            rn = u1 - rc
            if rn > R:
                rn = R
            for k in range(3):
                q[k] = scratch + k * SLOT
            it2 = it
            for r in range(rn):
                for k in range(1, 3):
                    fb_copy_row(q[k] + r * inner * isz, isz, pl.p[k] + it2.off[k], pl.s[k][ndo],
                                inner, isz, 0, 0)
                _it_next(pl, &it2, ndo)
            _and_row(isz, q[0], q[1], q[2], rn * inner, isz, isz, isz)
            for r in range(rn):
                fb_copy_row(pl.p[0] + it.off[0], pl.s[0][ndo], q[0] + r * inner * isz, isz,
                            inner, isz, 0, 0)
                _it_next(pl, &it, ndo)
            rc += rn


cdef enum:
    MAX_THREADS = 256    # threads one call may use (the team has at most 255 helpers)


cdef struct DriveCtx:
    Plan* pl
    Py_ssize_t nunits
    Py_ssize_t npieces


cdef void _piece(void* ctx, Py_ssize_t c, int slot) noexcept nogil:
    """Run piece ``c`` of a parallel call on the thread of team slot ``slot``."""
    cdef DriveCtx* d = <DriveCtx*>ctx
    cdef Plan* pl = d.pl
    _work(pl, c * d.nunits // d.npieces, (c + 1) * d.nunits // d.npieces,
          pl.scratch + slot * SCRATCH if pl.scratch != NULL else NULL)


cdef void _drive(Plan* pl, Py_ssize_t nunits) noexcept nogil:
    """Split the units of ``pl`` across the thread team when the work is large enough.

    The work is cut into pieces of about PIECE_BYTES that the calling thread
    and the helpers claim one at a time; the caller never waits for a helper
    that has not started (see the team's comment above).
    """
    cdef int nt = pl.nthreads
    cdef DriveCtx d
    cdef Py_ssize_t bytes = pl.total * pl.isz
    if bytes < (PAR_BYTES if pl.kind == K_1D or pl.kind == K_ROWS or pl.kind == K_TILE
                else PAR_BYTES // 16):
        nt = 1
    if nt > nunits:
        nt = <int>nunits
    if nt > MAX_THREADS:
        nt = MAX_THREADS
    if nt <= 1:
        _work(pl, 0, nunits, pl.scratch)
        return
    d.pl = pl
    d.nunits = nunits
    d.npieces = bytes // PIECE_BYTES
    if d.npieces < 4 * nt:
        d.npieces = 4 * nt
    if d.npieces > nunits:
        d.npieces = nunits
    fb_team_run(_piece, &d, d.npieces, nt - 1)


def _team_info():
    """(helper threads started, pieces run by helpers so far): for tests."""
    cdef int started = 0
    cdef Py_ssize_t pieces = 0
    fb_team_info(&started, &pieces)
    return started, pieces


cdef inline bint _flat(const Plan* pl, int k) noexcept nogil:
    """Operand k is C-contiguous over all axes of the plan."""
    cdef int d
    cdef Py_ssize_t want = pl.isz
    d = pl.nd - 1
    while d >= 0:
        if pl.s[k][d] != want:
            return False
        want *= pl.n[d]
        d -= 1
    return True


cdef void _coalesce(Plan* pl, bint sort) noexcept nogil:
    """Drop size-1 axes, turn all-negative axes around, order by out's strides, merge."""
    cdef int nd = 0, d, k, e, w
    cdef Py_ssize_t tn, ts
    cdef bint flip, ok
    for d in range(pl.nd):
        if pl.n[d] != 1:
            pl.n[nd] = pl.n[d]
            for k in range(3):
                pl.s[k][nd] = pl.s[k][d]
            nd += 1
    pl.nd = nd
    if sort:
        for d in range(nd):
            flip = pl.s[0][d] < 0 and pl.s[1][d] <= 0 and pl.s[2][d] <= 0
            if flip:
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
        ok = True
        for k in range(3):
            if pl.s[k][d] != pl.s[k][w] * pl.n[w]:
                ok = False
        if ok:
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


cdef inline Py_ssize_t _abs(Py_ssize_t x) noexcept nogil:
    return -x if x < 0 else x


cdef void _gather_nd(int isz, char* dst, const char* src, int nd, const Py_ssize_t* n,
                     const Py_ssize_t* s, Py_ssize_t inner_count) noexcept nogil:
    """Copy the C-order elements of an nd block of ``src`` to contiguous ``dst``."""
    cdef Py_ssize_t i
    if nd == 1:
        fb_copy_row(dst, isz, src, s[0], n[0], isz, 0, 0)
        return
    for i in range(n[0]):
        _gather_nd(isz, dst + i * inner_count * isz, src + i * s[0], nd - 1, n + 1, s + 1,
                   inner_count // n[1])


cdef int _plan_and_run(Plan* pl) except -1:
    """Choose the loop for a filled plan (out, a, b set; checks passed) and run it."""
    cdef int nd, k, x, y, j
    cdef Py_ssize_t total, P, m, nunits, d
    cdef char* tile = NULL
    cdef char* scratch = NULL
    cdef int nt
    pl.nthreads = min(_nthreads, <int>MAX_THREADS) if FB_THREADS and _nthreads > 1 else 1
    _coalesce(pl, True)
    nd = pl.nd
    total = 1
    for d in range(nd):
        total *= pl.n[d]
    pl.total = total
    pl.stream = total * pl.isz >= STREAM_BYTES
    pl.tile = NULL
    pl.scratch = NULL
    if total == 0:
        return 0
    if nd <= 1:
        if nd == 0:
            pl.n[0] = 1
            for k in range(3):
                pl.s[k][0] = 0
            pl.nd = 1
        pl.kind = K_1D
        nunits = pl.n[0]
        if total * pl.isz < 1 << 14 and total * pl.isz < PAR_BYTES:
            _work(pl, 0, nunits, NULL)
        else:
            with nogil:
                _drive(pl, nunits)
        return 0
    # a small operand repeating along the outer axes: tile it
    if pl.op == OP_AND and _flat(pl, 0):
        for x in range(2, 0, -1):
            y = 3 - x
            if not _flat(pl, y):
                continue
            j = 0
            while j < nd and pl.s[x][j] == 0:
                j += 1
            if j == 0 or j >= nd:
                continue
            P = 1
            for d in range(j, nd):
                P *= pl.n[d]
            if P > TILE_ELEMS:
                continue
            m = TILE_ELEMS // P
            if m * P > total:
                m = (total + P - 1) // P
            tile = <char*>malloc(m * P * pl.isz)
            if tile == NULL:
                raise MemoryError()
            _gather_nd(pl.isz, tile, pl.p[x], nd - j, &pl.n[j], &pl.s[x][j], P // pl.n[j])
            for d in range(1, m):
                memcpy(tile + d * P * pl.isz, tile, P * pl.isz)
            pl.kind = K_TILE
            pl.tile = tile
            pl.tile_op = x
            pl.tile_len = m * P
            nunits = (total + pl.tile_len - 1) // pl.tile_len
            try:
                with nogil:
                    _drive(pl, nunits)
            finally:
                free(tile)
            return 0
    if pl.n[nd - 1] >= ROW_MIN or pl.op != OP_AND:
        pl.kind = K_ROWS
        nunits = total // pl.n[nd - 1]
        pl.tr[0] = False
        pl.tr[1] = False
        pl.tr[2] = False
        if pl.n[nd - 2] >= 2:
            for k in range(1, 3):
                if _abs(pl.s[k][nd - 1]) > BLOCK_STRIDE and _abs(pl.s[k][nd - 2]) < _abs(pl.s[k][nd - 1]):
                    pl.kind = K_BLOCKED
                    pl.tr[k] = True
            if pl.kind == K_BLOCKED:
                nunits = (total // (pl.n[nd - 1] * pl.n[nd - 2])) * ((pl.n[nd - 2] + BI - 1) // BI)
                scratch = <char*>malloc(pl.nthreads * SCRATCH)
                if scratch == NULL:
                    raise MemoryError()
                pl.scratch = scratch
    else:
        pl.kind = K_GATHER
        nunits = total // pl.n[nd - 1]
        scratch = <char*>malloc(pl.nthreads * SCRATCH)
        if scratch == NULL:
            raise MemoryError()
        pl.scratch = scratch
    try:
        if total * pl.isz < 1 << 14 and total * pl.isz < PAR_BYTES:
            _work(pl, 0, nunits, pl.scratch)
        else:
            with nogil:
                _drive(pl, nunits)
    finally:
        free(scratch)
    return 0


# ---------------------------------------------------------------------------
# BitwiseAnd: dispatch

cdef inline int _and_code(cnp.ndarray arr) noexcept:
    """The ONNX code of a native, aligned array of a BitwiseAnd type, else -1."""
    cdef int t = cnp.PyArray_TYPE(arr)
    if t < 0 or t >= NTAB:
        return -1
    if not cnp.PyArray_ISNOTSWAPPED(arr) or not cnp.PyArray_ISALIGNED(arr):
        return -1
    return AND_CODE[t]


cdef inline void _extent(char* data, int nd, const cnp.npy_intp* n, const cnp.npy_intp* s,
                         int isz, char** lo, char** hi) noexcept:
    cdef int d
    cdef char* l = data
    cdef char* h = data + isz
    for d in range(nd):
        if n[d] == 0:
            lo[0] = data
            hi[0] = data
            return
        if s[d] < 0:
            l += (n[d] - 1) * s[d]
        else:
            h += (n[d] - 1) * s[d]
    lo[0] = l
    hi[0] = h


cdef bint _self_overlaps(cnp.ndarray out) noexcept:
    """True when ``out`` may have two indexes on one element (checked conservatively)."""
    cdef int nd = cnp.PyArray_NDIM(out), d, e, m = 0
    cdef cnp.npy_intp* n = cnp.PyArray_DIMS(out)
    cdef cnp.npy_intp* s = cnp.PyArray_STRIDES(out)
    cdef Py_ssize_t st[MAXD]
    cdef Py_ssize_t sz[MAXD]
    cdef Py_ssize_t span, ts, tn
    for d in range(nd):
        if n[d] == 0:
            return False
        if n[d] > 1:
            st[m] = _abs(s[d])
            sz[m] = n[d]
            m += 1
    for d in range(1, m):
        e = d
        while e > 0 and st[e - 1] > st[e]:
            ts = st[e]; st[e] = st[e - 1]; st[e - 1] = ts
            tn = sz[e]; sz[e] = sz[e - 1]; sz[e - 1] = tn
            e -= 1
    span = cnp.PyArray_ITEMSIZE(out)
    for d in range(m):
        if st[d] < span:
            return True
        span += st[d] * (sz[d] - 1)
    return False


cdef Py_ssize_t _nbytes_or_minus_one(int nd, const cnp.npy_intp* shape, Py_ssize_t isz) noexcept nogil:
    """Bytes of an array of ``shape`` and itemsize ``isz``, or -1 when that overflows."""
    cdef int d
    cdef Py_ssize_t total = isz
    for d in range(nd):
        if shape[d] == 0:
            return 0
    for d in range(nd):
        if total > PY_SSIZE_T_MAX // shape[d]:
            return -1
        total *= shape[d]
    return total


cdef object _and_core(int code, object A, object B, char* pa, int nda, cnp.npy_intp* da,
                      cnp.npy_intp* sa, char* pb, int ndb, cnp.npy_intp* db, cnp.npy_intp* sb,
                      object out):
    """BitwiseAnd of two checked operands of type ``code`` (native, aligned).

    ``A``/``B`` are the arrays behind ``pa``/``pb`` (None for a scalar held in a
    C buffer).  Returns None, having written nothing, when the shapes do not
    broadcast or ``out`` is not one the fast path takes: the caller then goes
    the slow way, where the spec functions raise or the odd ``out`` is handled.
    """
    cdef Plan pl
    cdef int nd, d, ia, ib, k, isz = ISZ[code]
    cdef cnp.npy_intp shape[MAXD]
    cdef cnp.npy_intp na, nb
    cdef cnp.ndarray O, C
    cdef char* lo0
    cdef char* hi0
    cdef char* lo1
    cdef char* hi1
    cdef bint same
    cdef Py_ssize_t total = 1
    nd = nda if nda > ndb else ndb
    for d in range(nd):
        ia = d - (nd - nda)
        ib = d - (nd - ndb)
        na = da[ia] if ia >= 0 else 1
        nb = db[ib] if ib >= 0 else 1
        if na == nb or nb == 1:
            shape[d] = na
        elif na == 1:
            shape[d] = nb
        else:
            return None
        pl.n[d] = shape[d]
        pl.s[1][d] = sa[ia] if (ia >= 0 and na != 1) else 0
        pl.s[2][d] = sb[ib] if (ib >= 0 and nb != 1) else 0
    total = _nbytes_or_minus_one(nd, shape, isz)
    if total < 0:
        return None  # more bytes than an array can hold: spec.allocate raises on the slow path
    total //= isz
    if out is None:
        O = _alloc(nd, shape, code, total * isz, True)
    else:
        if not cnp.PyArray_CheckExact(out):
            return None
        O = <cnp.ndarray>out
        if _and_code(O) != code or cnp.PyArray_NDIM(O) != nd or not cnp.PyArray_ISWRITEABLE(O):
            return None
        for d in range(nd):
            if cnp.PyArray_DIMS(O)[d] != shape[d]:
                return None
        if _self_overlaps(O):
            return None
        if total == 0:
            return out
        # an input that overlaps out, unless it maps element to element onto it,
        # is read from a copy made before anything is written
        _extent(<char*>cnp.PyArray_DATA(O), nd, cnp.PyArray_DIMS(O), cnp.PyArray_STRIDES(O), isz, &lo0, &hi0)
        for k in range(1, 3):
            C = A if k == 1 else B
            if C is None:
                continue
            _extent(<char*>cnp.PyArray_DATA(C), cnp.PyArray_NDIM(C), cnp.PyArray_DIMS(C),
                    cnp.PyArray_STRIDES(C), isz, &lo1, &hi1)
            if hi1 <= lo0 or hi0 <= lo1:
                continue
            same = (<char*>cnp.PyArray_DATA(C)) == (<char*>cnp.PyArray_DATA(O))
            for d in range(nd):
                if shape[d] != 1 and pl.s[k][d] != cnp.PyArray_STRIDES(O)[d]:
                    same = False
            if same:
                continue
            C = cnp.PyArray_NewCopy(C, cnp.NPY_KEEPORDER)
            if k == 1:
                A = C
                pa = <char*>cnp.PyArray_DATA(C)
            else:
                B = C
                pb = <char*>cnp.PyArray_DATA(C)
            ia = nd - cnp.PyArray_NDIM(C)
            for d in range(cnp.PyArray_NDIM(C)):
                if cnp.PyArray_DIMS(C)[d] != 1:
                    pl.s[k][d + ia] = cnp.PyArray_STRIDES(C)[d]
    for d in range(nd):
        pl.s[0][d] = cnp.PyArray_STRIDES(O)[d]
    pl.nd = nd
    pl.isz = isz
    pl.op = OP_AND
    pl.p[0] = <char*>cnp.PyArray_DATA(O)
    pl.p[1] = pa
    pl.p[2] = pb
    _plan_and_run(&pl)
    return O


cdef inline bint _int_bits(object value, int code, char* buf) noexcept:
    """A Python int in the range of ``code``, stored at ``buf`` in its width; else False."""
    cdef int ovf = 0
    cdef long long v = PyLong_AsLongLongAndOverflow(value, &ovf)
    if ovf != 0 or v < INT_LO[code] or v > INT_HI[code]:
        return False
    if ISZ[code] == 4:
        (<uint32_t*>buf)[0] = <uint32_t>v
    elif ISZ[code] == 8:
        (<uint64_t*>buf)[0] = <uint64_t>v
    elif ISZ[code] == 2:
        (<uint16_t*>buf)[0] = <uint16_t>v
    else:
        (<uint8_t*>buf)[0] = <uint8_t>v
    return True


def bitwise_and(a, b, /, *, out=None):
    """ONNX BitwiseAnd-18: elementwise ``a & b`` with multidirectional broadcasting.

    See :func:`fastbits._ops_py.bitwise_and` for the full contract: the
    results, errors and policies are the same.
    """
    cdef cnp.ndarray A, B, O
    cdef int ca, cb
    cdef uint64_t scalar = 0
    cdef char* buf = <char*>&scalar
    cdef Py_ssize_t n
    if cnp.PyArray_CheckExact(a):
        A = <cnp.ndarray>a
        ca = _and_code(A)
        if ca >= 0:
            if cnp.PyArray_CheckExact(b):
                B = <cnp.ndarray>b
                if _and_code(B) == ca:
                    # the most common call: same shape, both C-contiguous, fresh out
                    if (out is None and cnp.PyArray_NDIM(A) == cnp.PyArray_NDIM(B)
                            and cnp.PyArray_IS_C_CONTIGUOUS(A) and cnp.PyArray_IS_C_CONTIGUOUS(B)
                            and _same_dims(A, B)):
                        n = cnp.PyArray_SIZE(A)
                        if n * ISZ[ca] < FAST_BYTES:
                            O = _alloc(cnp.PyArray_NDIM(A), cnp.PyArray_DIMS(A), ca, n * ISZ[ca], True)
                            _and_row(ISZ[ca], <char*>cnp.PyArray_DATA(O), <char*>cnp.PyArray_DATA(A),
                                     <char*>cnp.PyArray_DATA(B), n, ISZ[ca], ISZ[ca], ISZ[ca])
                            return O
                    r = _and_core(ca, A, B, <char*>cnp.PyArray_DATA(A), cnp.PyArray_NDIM(A),
                                  cnp.PyArray_DIMS(A), cnp.PyArray_STRIDES(A),
                                  <char*>cnp.PyArray_DATA(B), cnp.PyArray_NDIM(B),
                                  cnp.PyArray_DIMS(B), cnp.PyArray_STRIDES(B), out)
                    if r is not None:
                        return r
            elif type(b) is int and _int_bits(b, ca, buf):
                r = _and_core(ca, A, None, <char*>cnp.PyArray_DATA(A), cnp.PyArray_NDIM(A),
                              cnp.PyArray_DIMS(A), cnp.PyArray_STRIDES(A),
                              buf, 0, NULL, NULL, out)
                if r is not None:
                    return r
    elif type(a) is int and cnp.PyArray_CheckExact(b):
        B = <cnp.ndarray>b
        cb = _and_code(B)
        if cb >= 0 and _int_bits(a, cb, buf):
            r = _and_core(cb, None, B, buf, 0, NULL, NULL,
                          <char*>cnp.PyArray_DATA(B), cnp.PyArray_NDIM(B),
                          cnp.PyArray_DIMS(B), cnp.PyArray_STRIDES(B), out)
            if r is not None:
                return r
    return _and_slow(a, b, out)


cdef inline bint _same_dims(cnp.ndarray A, cnp.ndarray B) noexcept:
    cdef int d
    for d in range(cnp.PyArray_NDIM(A)):
        if cnp.PyArray_DIMS(A)[d] != cnp.PyArray_DIMS(B)[d]:
            return False
    return True


cdef object _plain(object x):
    """``x`` as a native, aligned, base-class ndarray with the same values."""
    if type(x) is not np.ndarray:
        x = x.view(np.ndarray)
    if not x.dtype.isnative or not x.flags.aligned:
        x = x.astype(x.dtype.newbyteorder("="))
    return x


cdef object _and_slow(object a, object b, object out):
    """The checks of the spec, then the kernels on normalised operands."""
    cdef cnp.ndarray A, B
    a, b, code = spec.check_bitwise_and(a, b)
    shape = spec.broadcast_shape(BITWISE_AND, a.shape, b.shape)
    if out is not None:
        spec.check_out(BITWISE_AND, out, shape, code)
    A = _plain(a)
    B = _plain(b)
    target = out
    if out is not None and not (
        type(out) is np.ndarray and out.dtype.isnative and out.flags.aligned
        and not _self_overlaps(<cnp.ndarray>out)
    ):
        if type(out) is not np.ndarray or _self_overlaps(<cnp.ndarray>out):
            # an ndarray subclass, or an out with two indexes on one element:
            # numpy's own rules decide what such an out receives, as on the pure path
            np.bitwise_and(A, B, out=out)
            return out
        target = None  # non-native or unaligned out: compute, then assign by value
    r = _and_core(int(code), A, B, <char*>cnp.PyArray_DATA(A), cnp.PyArray_NDIM(A),
                  cnp.PyArray_DIMS(A), cnp.PyArray_STRIDES(A),
                  <char*>cnp.PyArray_DATA(B), cnp.PyArray_NDIM(B),
                  cnp.PyArray_DIMS(B), cnp.PyArray_STRIDES(B), target)
    if r is None:  # cannot happen once the spec checks passed; stay exact anyway
        return _ops_py.bitwise_and(a, b, out=out)
    if out is not None and r is not out:
        np.copyto(out, r, casting="unsafe")
        return out
    return r


# ---------------------------------------------------------------------------
# BitCast

cdef inline int _to_code(object to):
    """The ONNX code of a common ``to`` (int, DataType, cached name/type/dtype), else -1."""
    cdef long long v
    cdef int ovf = 0
    tt = type(to)
    if tt is int or tt is _DataType:
        v = PyLong_AsLongLongAndOverflow(to, &ovf)
        if ovf == 0 and 0 <= v < NCODES:
            return <int>v
        return -1
    if tt is str or isinstance(to, _TO_KINDS):
        c = _TO_CACHE.get(to)
        if c is not None:
            return <int>c
    return -1


cdef object _bc_copy(cnp.ndarray x, int dst, int swap):
    """A new C-contiguous array of type ``dst`` with the bytes of ``x``, swapped by
    ``swap``-byte units if non-zero, masked to the low bits of a sub-byte type."""
    cdef Plan pl
    cdef int nd = cnp.PyArray_NDIM(x), d
    cdef int isz = <int>cnp.PyArray_ITEMSIZE(x)
    cdef Py_ssize_t total = cnp.PyArray_SIZE(x)
    cdef cnp.ndarray O = _alloc(nd, cnp.PyArray_DIMS(x), dst, total * isz, False)
    if total == 0:
        return O
    pl.nd = nd
    pl.isz = isz
    pl.op = OP_COPY
    pl.swap = swap
    pl.mask = ((1 << BITS[dst]) - 1) if BITS[dst] < 8 else 0
    for d in range(nd):
        pl.n[d] = cnp.PyArray_DIMS(x)[d]
        pl.s[0][d] = cnp.PyArray_STRIDES(O)[d]
        pl.s[1][d] = cnp.PyArray_STRIDES(x)[d]
        pl.s[2][d] = 0
    pl.p[0] = <char*>cnp.PyArray_DATA(O)
    pl.p[1] = <char*>cnp.PyArray_DATA(x)
    pl.p[2] = pl.p[1]
    _plan_and_run(&pl)
    return O


def bitcast(x, to, /, *, copy=False):
    """ONNX BitCast-26: reinterpret the bits of ``x`` as type ``to``.

    See :func:`fastbits._ops_py.bitcast` for the full contract: the results,
    errors and policies are the same.
    """
    cdef cnp.ndarray X
    cdef int t, src, dst
    if cnp.PyArray_CheckExact(x) and (copy is False or copy is True):
        X = <cnp.ndarray>x
        t = cnp.PyArray_TYPE(X)
        if 0 <= t < NBC:
            src = BC_CODE[t]
            dst = _to_code(to)
            if src >= 0 and dst >= 0 and BC_OK[src][dst]:
                if cnp.PyArray_ISNOTSWAPPED(X):
                    if copy is False:
                        Py_INCREF(<object>DESCR[dst])  # PyArray_View steals it
                        return fb_view(X, <void*>DESCR[dst], NULL)
                    return _bc_copy(X, dst, 0)
                if t < NTAB and SWAP_UNIT[t]:
                    return _bc_copy(X, dst, SWAP_UNIT[t])
    return _bc_slow(x, to, copy)


cdef object _bc_slow(object x, object to, object copy):
    """The checks of the spec; remembers how ``to`` resolved; then the kernels."""
    cdef int src, dst, t
    copy = spec.check_copy(BITCAST, copy)
    x = spec.as_array(BITCAST, x, "input", spec.BITCAST_T1)
    s, d = spec.check_bitcast(x.dtype, to)
    src = int(s)
    dst = int(d)
    if (type(to) is str or isinstance(to, (type, np.dtype))) and len(_TO_CACHE) < TO_CACHE_MAX:
        try:
            _TO_CACHE[to] = dst
        except TypeError:  # unhashable dtype-like: do not cache
            pass
    if type(x) is not np.ndarray:
        # an ndarray subclass: its own view / copy rules apply, as on the pure path
        return _ops_py.bitcast(x, to, copy=copy)
    t = cnp.PyArray_TYPE(<cnp.ndarray>x)
    if cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>x):
        if not copy:
            return x.view(_DESCRS[dst])
        return _bc_copy(<cnp.ndarray>x, dst, 0)
    if 0 <= t < NTAB and SWAP_UNIT[t]:
        return _bc_copy(<cnp.ndarray>x, dst, SWAP_UNIT[t])
    return _ops_py.bitcast(x, to, copy=copy)
