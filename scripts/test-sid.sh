#!/usr/bin/env bash
# Run tox envs of Pythons this machine lacks (default py314 and py315) in a Debian sid chroot,
# which has python3.14 and python3.15 (their -dev and -venv packages) and gcc: `./dev test -e
# ENVS` on a copy of this checkout, so that tox builds fastbits and installs the newest releases
# from PyPI as it does on the host. The chroot is built on the first run (about 2 minutes) and
# reused (scripts/sid_chroot.sh). Needs root.
#
#   scripts/test-sid.sh                    # py314 and py315
#   scripts/test-sid.sh -e py314 -- -k bitcast
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sid_chroot.sh

args=("$@")
[ ${#args[@]} -gt 0 ] || args=(-e py314,py315)

trap chroot_umount EXIT
chroot_ensure amd64 python3.14-dev python3.14-venv python3.15-dev python3.15-venv gcc libc6-dev ccache
chroot_copy_checkout "$chroot_dir" /root/fastbits
# A fresh .venv and .tox each run, as in a fresh clone; uv's and ccache's caches in the chroot
# are kept (gcc through ccache: a later run compiles only what changed).
chroot_run "$chroot_dir" /bin/sh -c 'cd /root/fastbits && CC="ccache gcc" PYTHON=python3.14 exec ./dev test "$@"' \
    sh "${args[@]}"
