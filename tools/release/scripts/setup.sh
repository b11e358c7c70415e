#!/usr/bin/env bash
# Installs what the release and its test need from Debian's packages, when missing: dpkg-dev
# (dpkg-shlibdeps for the Debian package's Depends:), binutils (strip), lintian (the package is
# checked with it) and util-linux (unshare: the single executable is run where no node is found).
# Idempotent: installs only what is missing. Run as root.
set -euo pipefail

missing=()
command -v dpkg-shlibdeps >/dev/null 2>&1 || missing+=(dpkg-dev)
command -v strip >/dev/null 2>&1 || missing+=(binutils)
command -v lintian >/dev/null 2>&1 || missing+=(lintian)
command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
if [ ${#missing[@]} -eq 0 ]; then
  echo "tools/release/scripts/setup.sh: dpkg-dev, binutils, lintian and util-linux already installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "tools/release/scripts/setup.sh: ${missing[*]} missing and installing needs root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "tools/release/scripts/setup.sh: installed ${missing[*]}"
