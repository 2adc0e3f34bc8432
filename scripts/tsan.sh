#!/usr/bin/env bash
# ThreadSanitizer runs of fastbits.
#
# The default run: fastbits' settings, thread team and output pool as C. It builds
# scripts/tsan_team.c with src/fastbits/_c/config.c, team.c and pool.c (-fsanitize=thread, the pool
# forced on with FB_FORCE_POOL: sanitizer builds otherwise make it pass-through malloc) and runs
# it.  Fails on any TSan report, or when one of the program's own checks fails.
#
# --free-threaded: the whole package under a free-threaded CPython 3.13 (GIL off; built by
# scripts/python-freethreaded.sh), fastbits compiled with -fsanitize=thread (the pool forced on)
# in a throwaway venv. It runs tests/test_free_threading.py (8 threads on every operator and
# layout while another churns the settings) and test_threads.py as they are, then the suite's
# operator, Cast, QuantizeLinear, packing and layout tests under pytest-run-parallel (4 threads
# each). The interpreter and numpy are not instrumented: their own synchronization is invisible
# to TSan, so their intercepted memory calls are ignored too (ignore_noninstrumented_modules),
# and scripts/tsan_reports.py suppresses the reports whose racing accesses are theirs, and only
# those. Fails on any other report: one whose racing access is in fastbits' code.
#
#   scripts/tsan.sh                    # CC=clang scripts/tsan.sh for clang's TSan
#   scripts/tsan.sh --free-threaded
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${CC:-gcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ "${1:-}" = "--free-threaded" ]; then
    shift
    python=$(scripts/python-freethreaded.sh)
    "$python" -m venv "$work/venv"
    export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PREFER_BINARY=1
    "$work/venv/bin/pip" install -q "setuptools>=77" "Cython>=3.1" numpy ml_dtypes onnx pytest hypothesis \
        pytest-run-parallel threadpoolctl
    mkdir "$work/src"
    git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$work/src"
    tsan="-fsanitize=thread -DFB_FORCE_POOL"
    CFLAGS="$tsan" LDFLAGS="-fsanitize=thread" FASTBITS_DEBUG_BUILD=1 FASTBITS_REQUIRE_EXTENSIONS=1 \
        "$work/venv/bin/pip" install -q --no-build-isolation "$work/src"
    # The interpreter is not instrumented: preload the runtime. Reports go to files, every one
    # of them (halt_on_error=0), so that the run shows them all, and leave the exit status to the
    # tests (exitcode=0): tsan_reports.py decides which reports fail the run.
    # ignore_noninstrumented_modules=1: the memory accesses of intercepted calls (memset, memcpy)
    # made by uninstrumented code (the interpreter, numpy) are ignored, as their plain loads and
    # stores already are. Otherwise the interpreter's allocator, whose reuse of freed memory TSan
    # cannot see (mimalloc), races every earlier access to an object whose memory it hands out
    # again: a new tuple's memset "races" with fastbits' read of a freed argument tuple. Locks
    # and threads the interpreter creates are still seen.
    export LD_PRELOAD="$("$cc" -print-file-name=libtsan.so)"
    export TSAN_OPTIONS="log_path=$work/tsan:halt_on_error=0:exitcode=0:second_deadlock_stack=1:ignore_noninstrumented_modules=1 ${TSAN_OPTIONS:-}"
    cd "$work"  # the installed package, not the source tree
    # exitcode=0 covers a crash inside the runtime too ("nested bug ... aborting"): each step must
    # also leave its evidence (the import's line, pytest's junit file), or the run fails.
    status=0
    "$work/venv/bin/python" -c "import sys, fastbits; assert not sys._is_gil_enabled(); print('tsan:', fastbits.BACKEND, 'GIL off')" \
        >"$work/import.out" || status=$?
    cat "$work/import.out"
    grep -q "GIL off" "$work/import.out" || status=1
    "$work/venv/bin/python" -m pytest -q -p no:cacheprovider --junitxml="$work/threads.xml" \
        "$work/src/tests/test_free_threading.py" "$work/src/tests/test_threads.py" "$@" || status=$?
    "$work/venv/bin/python" -m pytest -q -p no:cacheprovider --junitxml="$work/parallel.xml" --parallel-threads=4 \
        "$work/src/tests/test_bitwise_ops.py" "$work/src/tests/test_bitshift.py" "$work/src/tests/test_bitcast.py" \
        "$work/src/tests/test_cast.py" "$work/src/tests/test_quantize.py" "$work/src/tests/test_packing.py" \
        "$work/src/tests/test_layout.py" "$@" \
        || status=$?
    unset LD_PRELOAD
    cd - >/dev/null
    for run in threads parallel; do
        if [ ! -s "$work/$run.xml" ]; then
            echo "tsan: FAILED: the $run pytest run left no report (it crashed)" >&2
            status=1
        fi
    done
    if ls "$work"/tsan.* >/dev/null 2>&1 && ! python3 scripts/tsan_reports.py "$work"/tsan.*; then
        echo "tsan: FAILED: ThreadSanitizer reports in fastbits' code above" >&2
        exit 1
    fi
    if [ "$status" -ne 0 ]; then
        echo "tsan: FAILED: the tests failed (status $status)" >&2
        exit 1
    fi
    echo "tsan: no ThreadSanitizer report in fastbits (free-threaded CPython, GIL off)"
    exit 0
fi

"$cc" -fsanitize=thread -g -O1 -pthread -Wall -Wextra -Werror=implicit-function-declaration \
    -DFB_FORCE_POOL -Isrc/fastbits/_c \
    scripts/tsan_team.c src/fastbits/_c/config.c src/fastbits/_c/team.c src/fastbits/_c/pool.c -o "$work/tsan_team"

# halt_on_error with its own exit code: the first report stops the run with status 66.
# die_after_fork=0: the program forks while its threads run, and the child starts new helpers
# (fastbits' team does after fork); TSan would otherwise kill the child there.  Reports also go
# to files, so that one from a forked child is not lost.
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:die_after_fork=0:second_deadlock_stack=1:log_path=$work/tsan ${TSAN_OPTIONS:-}"
# First, that this TSan catches a race at all: a planted one must stop the program with 66.
planted=0
TSAN_OPTIONS="halt_on_error=1:exitcode=66:log_path=$work/planted" "$work/tsan_team" --planted-race >/dev/null || planted=$?
if [ "$planted" -ne 66 ] || ! grep -q "WARNING: ThreadSanitizer: data race" "$work"/planted.*; then
    echo "tsan: FAILED: ThreadSanitizer did not report the planted race (status $planted)" >&2
    exit 1
fi
echo "tsan: the planted race was reported, as it must be"

status=0
"$work/tsan_team" || status=$?

if ls "$work"/tsan.* >/dev/null 2>&1; then
    # TSan warns that threads after a multi-threaded fork are unsupported (die_after_fork=0
    # continues): that is no race report.  Anything else is.
    cat "$work"/tsan.* >&2
    if grep -v -e "starting new threads after multi-threaded fork is not supported" "$work"/tsan.* | grep -q "ThreadSanitizer"; then
        echo "tsan: FAILED: ThreadSanitizer reports above" >&2
        exit 1
    fi
fi
if [ "$status" -ne 0 ]; then
    echo "tsan: FAILED: tsan_team exited with status $status" >&2
    exit 1
fi
echo "tsan: no ThreadSanitizer report"
