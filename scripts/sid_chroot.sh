# Shared by scripts/test-sid.sh and scripts/test-emulated.sh (sourced, not run): build or reuse a
# Debian sid chroot, mount what it needs, copy the checkout into it and run a command there.
#
# Chroots live in $FASTBITS_CHROOTS (default /var/cache/fastbits-chroots), outside any clone, one
# directory per architecture, and are reused from run to run. A chroot is reused once debootstrap
# finished (.fastbits-bootstrapped); .fastbits-packages lists what was installed in it, and a run
# that asks for other packages installs them. Foreign architectures run under qemu-user-static
# through binfmt-support. Needs root.

chroots=${FASTBITS_CHROOTS:-/var/cache/fastbits-chroots}
mirror=${FASTBITS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Directories that pip's configuration on this machine names (find-links, extra indexes): they
# are bind-mounted read-only at the same path where they exist.
pip_dirs=(/opt/wheels /opt/pypi /opt/pypi-more)
mounted=()

# The host packages debootstrap and a foreign chroot need, installed when missing.
chroot_host_tools() {
    local arch=$1 need=()
    command -v debootstrap >/dev/null || need+=(debootstrap)
    if [ "$arch" != "$(dpkg --print-architecture)" ]; then
        command -v qemu-s390x-static >/dev/null || need+=(qemu-user-static)
        command -v update-binfmts >/dev/null || need+=(binfmt-support)
    fi
    if [ ${#need[@]} -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    fi
    if [ "$arch" != "$(dpkg --print-architecture)" ]; then
        # Where no init system started binfmt-support, mount binfmt_misc and register qemu.
        mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
        update-binfmts --enable >/dev/null 2>&1 || true
        local qemu_name
        qemu_name=$(chroot_qemu_name "$arch")
        if [ ! -e "/proc/sys/fs/binfmt_misc/$qemu_name" ]; then
            echo "sid_chroot: binfmt_misc has no $qemu_name: cannot run $arch binaries" >&2
            return 1
        fi
    fi
}

chroot_qemu_name() {
    case $1 in
        arm64) echo qemu-aarch64 ;;
        ppc64el) echo qemu-ppc64le ;;
        *) echo "qemu-$1" ;;
    esac
}

chroot_mount() {
    local dir=$1 d
    mount -t proc proc "$dir/proc" && mounted+=("$dir/proc")
    mount -t sysfs sysfs "$dir/sys" && mounted+=("$dir/sys")
    mount --bind /dev "$dir/dev" && mounted+=("$dir/dev")
    mount --bind /dev/pts "$dir/dev/pts" && mounted+=("$dir/dev/pts")
    for d in "${pip_dirs[@]}"; do
        [ -d "$d" ] || continue
        mkdir -p "$dir$d"
        mount --bind "$d" "$dir$d" && mounted+=("$dir$d")
        mount -o remount,bind,ro "$dir$d"
    done
}

# Unmounts what chroot_mount mounted, last first; the caller traps it on EXIT.
chroot_umount() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
    done
    mounted=()
}

# The machine's pip configuration and CA bundle, and its DNS resolver.
chroot_copy_config() {
    local dir=$1 f
    for f in /etc/pip.conf /etc/ssl/certs/ca-certificates.crt /etc/resolv.conf; do
        [ -f "$f" ] || continue
        mkdir -p "$dir$(dirname "$f")"
        cp -L "$f" "$dir$f"
    done
    if [ -d /etc/xdg/pip ]; then
        mkdir -p "$dir/etc/xdg"
        rm -rf "$dir/etc/xdg/pip"
        cp -rL /etc/xdg/pip "$dir/etc/xdg/pip"
    fi
    if [ -f "$HOME/.config/pip/pip.conf" ]; then
        mkdir -p "$dir/root/.config/pip"
        cp -L "$HOME/.config/pip/pip.conf" "$dir/root/.config/pip/pip.conf"
    fi
}

# chroot_run DIR COMMAND...: run COMMAND in the chroot as root, with a clean environment but
# for the variables pip and the tests read.
chroot_run() {
    local dir=$1
    shift
    local env_vars=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
                    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive)
    local v
    for v in CI HYPOTHESIS_PROFILE FASTBITS_NUM_THREADS PIP_DEFAULT_TIMEOUT PIP_DISABLE_PIP_VERSION_CHECK \
             PIP_CERT PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL; do
        [ -n "${!v:-}" ] && env_vars+=("$v=${!v}")
    done
    chroot "$dir" /usr/bin/env -i "${env_vars[@]}" "$@"
}

# chroot_ensure ARCH PACKAGES...: build the chroot of ARCH (or reuse it), mount it and install
# PACKAGES; sets $chroot_dir and holds a lock on it until the script exits. The caller traps
# chroot_umount.
chroot_ensure() {
    local arch=$1
    shift
    chroot_dir="$chroots/sid-$arch"
    chroot_host_tools "$arch"
    # One run at a time per chroot (a second waits): runs share its mounts and the copy.
    mkdir -p "$chroots"
    exec {chroot_lock}>"$chroots/sid-$arch.lock"
    flock "$chroot_lock"
    if [ ! -f "$chroot_dir/.fastbits-bootstrapped" ]; then
        echo "sid_chroot: building $chroot_dir (debootstrap, Debian sid $arch)"
        # Never delete through a mount left by a killed run (the host's /dev, say).
        if grep -q " $chroot_dir/" /proc/mounts; then
            echo "sid_chroot: $chroot_dir has mounts left; unmount them first" >&2
            return 1
        fi
        rm -rf "$chroot_dir"
        if [ "$arch" = "$(dpkg --print-architecture)" ]; then
            debootstrap --variant=minbase sid "$chroot_dir" "$mirror" >/dev/null
        else
            debootstrap --arch="$arch" --foreign --variant=minbase sid "$chroot_dir" "$mirror" >/dev/null
            chroot "$chroot_dir" /debootstrap/debootstrap --second-stage >/dev/null
        fi
        touch "$chroot_dir/.fastbits-bootstrapped"
    fi
    # A mirror may serve sid's index some days after its Valid-Until date: accept it.
    echo 'Acquire::Check-Valid-Until "false";' >"$chroot_dir/etc/apt/apt.conf.d/99fastbits"
    chroot_copy_config "$chroot_dir"
    chroot_mount "$chroot_dir"
    local have
    have=$(cat "$chroot_dir/.fastbits-packages" 2>/dev/null || true)
    if [ "$have" != "$*" ]; then
        echo "sid_chroot: installing in $chroot_dir: $*"
        chroot_run "$chroot_dir" apt-get update -qq
        chroot_run "$chroot_dir" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
        echo "$*" >"$chroot_dir/.fastbits-packages"
        # ca-certificates, pulled in by the packages, writes its own bundle over the host's:
        # the host's again, or pip in the chroot cannot verify the registry it reaches.
        chroot_copy_config "$chroot_dir"
    fi
}

# chroot_copy_checkout DIR DEST: the checkout's files (tracked and untracked, not ignored) into
# DEST inside the chroot, afresh; the host's .venv, .tox and built kernels stay out. The operator
# specs beside the checkout (../shared/spec, which tests/test_spec_examples.py reads when it is
# there) go beside the copy.
chroot_copy_checkout() {
    local dir=$1 dest=$2 repo
    repo=$(pwd)
    rm -rf "${dir:?}$dest" "$dir$(dirname "$dest")/shared"
    mkdir -p "$dir$dest"
    if [ -d ../shared/spec ]; then
        mkdir -p "$dir$(dirname "$dest")/shared"
        cp -r ../shared/spec "$dir$(dirname "$dest")/shared/spec"
    fi
    if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$repo" ls-files -z --cached --others --exclude-standard \
            | (cd "$repo" && xargs -0 tar -cf - --no-recursion --ignore-failed-read) \
            | tar -xf - -C "$dir$dest"
    else
        tar -cf - --exclude=.venv --exclude=.tox --exclude=build --exclude='*.so' . | tar -xf - -C "$dir$dest"
    fi
}
