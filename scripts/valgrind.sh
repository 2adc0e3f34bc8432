#!/usr/bin/env bash
# Run a short workload of both functions (every kernel path and every error class) under
# valgrind memcheck against a debug build; fails on any memcheck error with a frame in
# fastbits' compiled module.
#
#   scripts/valgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "setuptools>=70.1" wheel "Cython>=3.1" numpy ml_dtypes
FASTBITS_DEBUG_BUILD=1 FASTBITS_REQUIRE_EXTENSIONS=1 "$work/venv/bin/pip" install -q --no-build-isolation "$repo"

cd "$work"
# CPython and the dynamic loader show memcheck errors of their own (uninitialised bytes from
# getrandom, ld.so's string reads); only errors with a fastbits frame (_ops_c) count here.
PYTHONMALLOC=malloc valgrind --tool=memcheck --track-origins=yes --num-callers=40 \
    --errors-for-leak-kinds=none --leak-check=no --log-file="$work/memcheck.log" \
    "$work/venv/bin/python" "$repo/scripts/workload.py"
"$work/venv/bin/python" - "$work/memcheck.log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.split(r"\n==\d+== \n", text)
errors = [b for b in blocks if re.search(r"==\d+== (Invalid|Conditional|Use of uninitialised|Syscall param|Mismatched|Source and destination)", b)]
ours = [b for b in errors if "_ops_c" in b]
summary = re.search(r"ERROR SUMMARY: .*", text)
print(f"valgrind: {len(errors)} error contexts in all ({summary.group(0) if summary else 'no summary'}); "
      f"{len(ours)} with a fastbits frame")
for block in ours:
    print(block)
sys.exit(1 if ours else 0)
PY
echo "valgrind: no memcheck error in fastbits' code"
