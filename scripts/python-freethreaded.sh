#!/usr/bin/env bash
# Build a free-threaded CPython 3.13 (`./configure --disable-gil`) from Debian's own source
# package, or reuse the one built before, and print the path of its `python3.13t`.
#
# Debian packages no free-threaded interpreter and its archive serves no 3.14 source, so 3.13t,
# built from the python3.13 orig tarball of the archive's pool/main/p/python3.13/, is the
# free-threaded interpreter this project builds and tests on. The build (about 8 minutes on 2
# cores) is installed into $FASTBITS_PYTHONS (default /var/cache/fastbits-pythons, beside the sid
# chroots) and reused from run to run; .fastbits-built marks a finished install. Needs root for
# the build dependencies (apt-get), when they are missing.
#
#   scripts/python-freethreaded.sh          # prints /var/cache/fastbits-pythons/3.13.5t/bin/python3.13t
set -euo pipefail

version=3.13.5
mirror=${FASTBITS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
prefix="${FASTBITS_PYTHONS:-/var/cache/fastbits-pythons}/${version}t"
python="$prefix/bin/python3.13t"

mkdir -p "$(dirname "$prefix")"
exec {lock}>"$prefix.lock"
flock "$lock"
if [ -f "$prefix/.fastbits-built" ]; then
    echo "$python"
    exit 0
fi

{
    need=()
    for pkg in build-essential libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev \
               libsqlite3-dev xz-utils curl; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need+=("$pkg")
    done
    if [ ${#need[@]} -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    fi
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    echo "python-freethreaded: building CPython $version with --disable-gil into $prefix"
    curl -sSfL "$mirror/pool/main/p/python3.13/python3.13_$version.orig.tar.xz" \
        | tar -xJ -C "$work" --strip-components=1
    rm -rf "$prefix"
    (
        cd "$work"
        ./configure --disable-gil --prefix="$prefix" --with-ensurepip=install >configure.log 2>&1 \
            || { tail -30 configure.log; exit 1; }
        make -j"$(nproc)" >make.log 2>&1 || { tail -30 make.log; exit 1; }
        make install >install.log 2>&1 || { tail -30 install.log; exit 1; }
    )
    "$python" -c "import sys, ssl, zlib; assert not sys._is_gil_enabled()"
    touch "$prefix/.fastbits-built"
} >&2
echo "$python"
