#!/usr/bin/env bash
# Installs what the deployment's test needs from Debian's packages, beyond what the server's,
# the agent's and the players' setup scripts install (PostgreSQL, HAProxy, nginx, Chromium,
# ffmpeg): logrotate (the test rotates the deployment's logs) and systemd (its
# `systemd-analyze verify` checks the units; no service of it is started here).
# Idempotent: installs only what is missing. Run as root.
set -euo pipefail

missing=()
command -v logrotate >/dev/null 2>&1 || [ -x /usr/sbin/logrotate ] || missing+=(logrotate)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -eq 0 ]; then
  echo "deploy/scripts/setup.sh: logrotate, systemd-analyze and curl already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "deploy/scripts/setup.sh: ${missing[*]} missing and installing needs root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# No service is started by the install (a container has no init; a CI machine needs none).
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
trap 'rm -f /usr/sbin/policy-rc.d' EXIT
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "deploy/scripts/setup.sh: installed ${missing[*]}"
