#!/usr/bin/env bash
# ThreadSanitizer run of fastbits' settings, thread team and output pool as C: builds
# scripts/tsan_team.c with fastbits/_c/config.c, team.c and pool.c (-fsanitize=thread, the pool
# forced on with FB_FORCE_POOL: sanitizer builds otherwise make it pass-through malloc) and
# runs it.  Fails on any TSan
# report, or when one of the program's own checks fails.
#
#   scripts/tsan.sh            # CC=clang scripts/tsan.sh for clang's TSan
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${CC:-gcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$cc" -fsanitize=thread -g -O1 -pthread -Wall -Wextra -Werror=implicit-function-declaration \
    -DFB_FORCE_POOL -Ifastbits/_c \
    scripts/tsan_team.c fastbits/_c/config.c fastbits/_c/team.c fastbits/_c/pool.c -o "$work/tsan_team"

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
