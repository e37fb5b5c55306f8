#!/usr/bin/env bash
# Make sure Debian's chromium is installed (the browser test and the docs screenshot use it).
# Prints the browser's path: $CHROMIUM if set, else `chromium` on PATH. Installs it with
# apt-get when missing (CI runs as root), without the recommended packages (upower, udev,
# notification-daemon, printer tools...: none is needed headless); exits non-zero with a
# one-line reason when it cannot. GNAU_NO_INSTALL=1 (make test-fast): only look, install
# nothing.
set -euo pipefail

find_browser() {
    if [ -n "${CHROMIUM:-}" ]; then
        if [ -x "$CHROMIUM" ]; then echo "$CHROMIUM"; fi
    else
        command -v chromium || true
    fi
}

browser="$(find_browser)"
if [ -n "$browser" ]; then
    echo "$browser"
    exit 0
fi
wanted="${CHROMIUM:-chromium (on PATH)}"
if [ "${GNAU_NO_INSTALL:-0}" = 1 ]; then
    echo "ensure-chromium: $wanted is missing (not installed: GNAU_NO_INSTALL=1, as make test-fast sets); install Debian's chromium or set CHROMIUM" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "ensure-chromium: $wanted is missing and apt-get as root is not available; install Debian's chromium" >&2
    exit 1
fi
# Two test workers may ask at once: one installs, the other waits and finds it there.
exec 9>"${TMPDIR:-/tmp}/ensure-chromium.lock"
flock 9
browser="$(find_browser)"
if [ -n "$browser" ]; then
    echo "$browser"
    exit 0
fi
log="$(mktemp -t ensure-chromium.XXXXXX.log)"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 chromium; } >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "ensure-chromium: apt-get could not install chromium (log: $log)" >&2
    exit 1
fi
browser="$(find_browser)"
if [ -z "$browser" ]; then
    echo "ensure-chromium: chromium installed but $wanted is not there" >&2
    exit 1
fi
rm -f "$log"
echo "$browser"
