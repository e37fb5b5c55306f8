#!/usr/bin/env bash
# Make sure the tools of the container test (tests/deploy/test_container.py) are installed:
# Debian's podman, runc (crun does not work in this kind of sandbox), mmdebstrap (builds the
# stand-in base image; eatmydata makes its dpkg runs skip fsync, about twice as fast here)
# and iproute2 (`ip netns`: the test's containers run in a private network namespace). Installs what is missing with apt-get (CI runs as root on Debian);
# exits non-zero with a one-line reason when it cannot. GNAU_NO_INSTALL=1 (make test-fast):
# only look, install nothing. Prints nothing on success.
set -euo pipefail

readonly PACKAGES=(podman runc mmdebstrap eatmydata iproute2)
readonly COMMANDS=(podman runc mmdebstrap eatmydata ip)

missing() {
    local cmd
    for cmd in "${COMMANDS[@]}"; do
        command -v "$cmd" >/dev/null || return 0
    done
    return 1
}

missing || exit 0
if [ "${GNAU_NO_INSTALL:-0}" = 1 ]; then
    echo "ensure-podman: ${PACKAGES[*]} are needed (not installed: GNAU_NO_INSTALL=1, as make test-fast sets)" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "ensure-podman: ${PACKAGES[*]} are needed and apt-get as root is not available; install them" >&2
    exit 1
fi
# Two test workers may ask at once: one installs, the other waits and finds them there.
exec 9>"${TMPDIR:-/tmp}/ensure-podman.lock"
flock 9
missing || exit 0
log="$(mktemp -t ensure-podman.XXXXXX.log)"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 "${PACKAGES[@]}"; } >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "ensure-podman: apt-get could not install ${PACKAGES[*]} (log: $log)" >&2
    exit 1
fi
if missing; then
    echo "ensure-podman: installed ${PACKAGES[*]} but a command is still missing: ${COMMANDS[*]}" >&2
    exit 1
fi
rm -f "$log"
