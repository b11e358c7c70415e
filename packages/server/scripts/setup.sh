#!/usr/bin/env bash
# Installs what the server's tests need from Debian's packages: PostgreSQL 15 (the tests run
# `initdb` and `pg_ctl` themselves, a throwaway cluster in a temporary directory on a free port)
# and HAProxy (the two-instance test starts its own). The package's own cluster service is never
# used: nothing here starts it, and the tests do not connect to it.
# Idempotent: installs only what is missing. Run as root.
set -euo pipefail

pg_bin() {
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; fi
  done | sort -V | tail -n 1
}

missing=()
if [ -z "$(pg_bin)" ]; then missing+=(postgresql); fi
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then missing+=(haproxy); fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "server/scripts/setup.sh: postgresql ($(pg_bin)) and haproxy already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "server/scripts/setup.sh: ${missing[*]} missing and installing needs root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "server/scripts/setup.sh: installed ${missing[*]}; postgresql binaries in $(pg_bin)"
