#!/usr/bin/env bash
# Debian's packages some tests drive: Chromium for the browser tests (playwright-core cannot
# download a browser on these machines), Prometheus (promtool and a real server) for the
# metrics tests, and podman with debootstrap for the container image's test (its base).
# Installs only what is missing.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v promtool >/dev/null || missing+=(prometheus)
command -v podman >/dev/null || missing+=(podman)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
echo "installed: ${missing[*]}"
