#!/usr/bin/env bash
# Build fastbits and run its tests on another CPU under qemu user emulation, in a Debian sid
# chroot of that architecture: s390x (big endian: BitCast's byte-order rule and the packed
# layout run their other paths there) or arm64. Debian's own python3, numpy, ml_dtypes, onnx,
# Cython, pytest, hypothesis and threadpoolctl; fastbits built with `pip install
# --no-build-isolation` into a venv that sees them, and tested from an empty directory. The
# chroot is built on the first run and reused (scripts/sid_chroot.sh). Needs root.
#
#   scripts/test-emulated.sh s390x                      # the whole suite
#   scripts/test-emulated.sh s390x tests/test_bitcast.py -k complex
#   scripts/test-emulated.sh arm64 tests/test_packing.py
#
# Under emulation on 2 cores, s390x builds its chroot in about 10 minutes and fastbits in 3 to 8
# (a busy machine takes the longer); arm64 is much slower (its chroot 30 to 37 minutes,
# fastbits about 20).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sid_chroot.sh

arch=${1:?usage: scripts/test-emulated.sh ARCH [pytest arguments]}
shift
# Paths under tests/ name the copy in the chroot.
tests=()
for a in "$@"; do
    case $a in tests*) tests+=("/root/fastbits/$a") ;; *) tests+=("$a") ;; esac
done
[ ${#tests[@]} -gt 0 ] || tests=(/root/fastbits/tests)

trap chroot_umount EXIT
chroot_ensure "$arch" python3-dev python3-venv python3-pip python3-numpy python3-ml-dtypes python3-onnx \
    cython3 python3-pytest python3-hypothesis python3-threadpoolctl python3-setuptools gcc libc6-dev ccache
chroot_copy_checkout "$chroot_dir" /root/fastbits
chroot_run "$chroot_dir" /bin/sh -c '
    set -e
    rm -rf /root/venv /root/run
    python3 -m venv --system-site-packages /root/venv
    echo "test-emulated: building fastbits ($(uname -m), $(python3 --version))"
    start=$(date +%s)
    # gcc under emulation is most of the build: ccache (its cache in the chroot, kept from run to
    # run) compiles again only the files that changed.
    CC="ccache gcc" CCACHE_DIR=/root/.ccache FASTBITS_REQUIRE_EXTENSIONS=1 /root/venv/bin/pip install \
        --quiet --no-build-isolation --no-deps --no-index /root/fastbits
    echo "test-emulated: built in $(($(date +%s) - start)) s"
    mkdir /root/run && cd /root/run
    /root/venv/bin/python -m fastbits
    exec /root/venv/bin/python -m pytest -p no:cacheprovider "$@"
' sh "${tests[@]}"
