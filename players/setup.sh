#!/usr/bin/env bash
# Installs what the players suite needs from Debian's packages: Chromium (driven by
# playwright-core; no browser download works here) and ffmpeg (makes the test stream).
# Idempotent: installs only when /usr/bin/chromium or ffmpeg is missing. Run as root.
set -euo pipefail

if [ -x /usr/bin/chromium ] && command -v ffmpeg >/dev/null 2>&1; then
  echo "players/setup.sh: chromium and ffmpeg already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "players/setup.sh: chromium or ffmpeg is missing and installing them needs root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium ffmpeg
/usr/bin/chromium --version || true
ffmpeg -hide_banner -version | head -n 1
