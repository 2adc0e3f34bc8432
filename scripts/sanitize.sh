#!/usr/bin/env bash
# Build fastbits' kernels with FASTBITS_DEBUG_BUILD=1 and -fsanitize=address,undefined in a
# throwaway venv, then run the test suite (property tests included) and a fuzz run under the
# sanitizers. Any sanitizer report aborts the run with a non-zero status.
#
#   scripts/sanitize.sh                 # the whole suite, the default hypothesis profile, 60 s fuzz
#   HYPOTHESIS_PROFILE=long FUZZ_SECONDS=600 scripts/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --upgrade pip
"$work/venv/bin/pip" install -q "setuptools>=70.1" wheel "Cython>=3.1" numpy ml_dtypes onnx pytest hypothesis

# Built from a copy of the working tree's sources: pip builds in the source tree, and
# instrumented objects left in the checkout's build/ would be linked into its next in-place build.
mkdir "$work/src"
git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$work/src"
sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="$sanitizers" LDFLAGS="$sanitizers" FASTBITS_DEBUG_BUILD=1 FASTBITS_REQUIRE_EXTENSIONS=1 \
    "$work/venv/bin/pip" install -q --no-build-isolation "$work/src"

# The interpreter is not instrumented: preload the runtimes. Leak checking is off because
# CPython itself keeps memory until exit; tests/test_reliability.py covers leaks.
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
# allocator_may_return_null: the AllocationError tests ask for 1 TiB and expect a clean refusal.
# Reports also go to files: pytest captures the test's stderr, and a report that aborts the
# process would be lost with it.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1:allocator_may_return_null=1:log_path=$work/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$work/ubsan"
reports() {
    if ls "$work"/asan.* "$work"/ubsan.* >/dev/null 2>&1; then
        echo "sanitize: sanitizer reports:" >&2
        cat "$work"/asan.* "$work"/ubsan.* >&2 2>/dev/null || true
        return 1
    fi
}
trap 'reports; rm -rf "$work"' EXIT
export PYTHONMALLOC=malloc  # let ASan see every Python allocation too

cd "$work"
"$work/venv/bin/python" -c "import fastbits, sys; print('fastbits', fastbits.__version__, fastbits.BACKEND); sys.exit(fastbits.BACKEND != 'cython')"
# Left out: the GIL test (timing-sensitive, and ASan slows everything several times) and the
# leak test (ASan's allocator keeps freed memory in quarantine, so RSS grows by design).
"$work/venv/bin/pytest" -q -p no:cacheprovider "$repo/tests" -k "not gil_is_released and not no_leaks" "$@"
"$work/venv/bin/python" "$repo/fuzz/fuzz_ops.py" --seconds "${FUZZ_SECONDS:-60}"
reports
echo "sanitize: no AddressSanitizer or UndefinedBehaviorSanitizer report"
