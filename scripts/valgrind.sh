#!/usr/bin/env bash
# Run a short workload of both functions (every kernel path and every error class) under
# valgrind memcheck against a debug build; fails on any memcheck error in fastbits' code.
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
"$work/venv/bin/pip" install -q --upgrade pip
"$work/venv/bin/pip" install -q "setuptools>=70.1" wheel "Cython>=3.0.10" numpy ml_dtypes
FASTBITS_DEBUG_BUILD=1 FASTBITS_REQUIRE_EXTENSIONS=1 "$work/venv/bin/pip" install -q --no-build-isolation "$repo"

cd "$work"
PYTHONMALLOC=malloc valgrind --tool=memcheck --error-exitcode=99 --track-origins=yes \
    --errors-for-leak-kinds=none --leak-check=no \
    --suppressions="$repo/scripts/valgrind-python.supp" \
    "$work/venv/bin/python" "$repo/scripts/workload.py"
echo "valgrind: no memcheck error"
