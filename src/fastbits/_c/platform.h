/* Compiler and platform switches shared by fastbits' C files: the index type, CPU-dispatch
   switch, symbol export, sanitizer detection and byte order.  Nothing here allocates or computes. */
#ifndef FASTBITS_PLATFORM_H
#define FASTBITS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h> /* defines __GLIBC__ on glibc */

/* Element counts and byte strides: Py_ssize_t is ptrdiff_t on every platform CPython runs on. */
typedef ptrdiff_t fb_ssize;
#define FB_SSIZE_MAX PTRDIFF_MAX

#define FB_MAXD 64 /* axes of an array: numpy 2's NPY_MAXDIMS (numpy 1: 32) */

static inline fb_ssize fb_abs(fb_ssize x) { return x < 0 ? -x : x; }

/* CPU dispatch (cpu.h): GCC on x86-64 glibc compiles the loops for AVX2 and the baseline, and
   the module picks one at run time; musl, macOS, Windows and clang builds compile the baseline
   loops alone, as the wheels' configuration has it.  No AVX-512F version: under GCC's generic
   tuning it used 64-byte vectors, which straddle two cache lines on every access of numpy's
   16-byte-aligned arrays, and on an AVX-512 host the AVX2 version took 0.9x its time on a 64K
   int32 AND (fresh result); numpy runs its AVX2 loop for that op there too. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) \
    && defined(__GLIBC__) && !defined(FB_NO_CLONES)
#define FB_HAVE_AVX2 1
#else
#define FB_HAVE_AVX2 0
#endif

/* Symbols other code looks up by name (threadpoolctl, through ctypes). */
#if defined(_WIN32)
#define FB_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define FB_EXPORT __attribute__((visibility("default")))
#else
#define FB_EXPORT
#endif
/* Data shared by fastbits' own C files in one module: reached directly, never through the GOT. */
#if defined(__GNUC__) || defined(__clang__)
#define FB_HIDDEN __attribute__((visibility("hidden")))
#else
#define FB_HIDDEN
#endif

/* Sanitizer builds: caches that reuse memory would hide a use-after-free from them. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define FB_SANITIZED 1
#endif
#endif
#if !defined(FB_SANITIZED) && (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
#define FB_SANITIZED 1
#endif
#if !defined(FB_SANITIZED)
#define FB_SANITIZED 0
#endif

/* The host's byte order.  ONNX's bytes are little endian; loops that move several bytes as one
   word (pack.c) swap them where the host is big endian (s390x). */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FB_BIG_ENDIAN 1
#else
#define FB_BIG_ENDIAN 0
#endif

/* POSIX threads for the team (FB_NO_THREADS: a single-threaded build). */
#if (defined(__unix__) || defined(__APPLE__)) && !defined(FB_NO_THREADS)
#define FB_THREADS 1
#else
#define FB_THREADS 0
#endif

/* A variable of which each thread has its own copy. */
#if defined(_MSC_VER)
#define FB_THREAD_LOCAL __declspec(thread)
#elif defined(__GNUC__) || defined(__clang__)
#define FB_THREAD_LOCAL __thread
#else
#define FB_THREAD_LOCAL _Thread_local
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FB_ALWAYS_INLINE inline __attribute__((always_inline))
#define FB_NOINLINE __attribute__((noinline))
#define FB_ALIGNED(n) __attribute__((aligned(n)))
#define FB_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 0)
#elif defined(_MSC_VER)
#define FB_ALWAYS_INLINE __forceinline
#define FB_NOINLINE __declspec(noinline)
#define FB_ALIGNED(n) __declspec(align(n))
#define FB_PREFETCH(p) ((void)(p))
#else
#define FB_ALWAYS_INLINE inline
#define FB_NOINLINE
#define FB_ALIGNED(n)
#define FB_PREFETCH(p) ((void)(p))
#endif

/* A relaxed atomic load, store and addition of a word; and a flag published once (fb_publish, a release
   store) after the data it guards, read with an acquire load (fb_published) before that data.
   fb_claim: 1 for the one caller that turns a flag from 0 to 1 (the one that writes the data). */
#if defined(__GNUC__) || defined(__clang__)
#define FB_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define FB_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define FB_ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
static inline int fb_published(const int *flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }
static inline void fb_publish(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELEASE); }
static inline int fb_claim(int *flag) {
    int expected = 0;
    return __atomic_compare_exchange_n(flag, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}
#else /* MSVC: an aligned word is read and written whole, volatile accesses are ordered */
#define FB_LOAD(p) (*(p))
#define FB_STORE(p, v) (*(p) = (v))
#include <intrin.h>
#define FB_ADD(p, v) _InterlockedExchangeAdd((volatile long *)(p), (v))
static inline int fb_published(const int *flag) { return *(const volatile int *)flag; }
static inline void fb_publish(int *flag) { *(volatile int *)flag = 1; }
static inline int fb_claim(int *flag) { return _InterlockedCompareExchange((volatile long *)flag, 1, 0) == 0; }
#endif

#endif /* FASTBITS_PLATFORM_H */
