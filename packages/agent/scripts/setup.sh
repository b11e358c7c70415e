#!/usr/bin/env bash
# Installs what the agent's tests run against from Debian's packages: nginx (the traffic
# source's access log), prometheus-node-exporter (an energy counter through its textfile
# collector) and faketime (libfaketime: an agent process whose system clock the tests set forward
# and back). The tests start both themselves on loopback ports in temporary directories; the
# packages' own services are not needed, and are stopped and disabled when the install starts them.
# Idempotent: installs only what is missing. Run as root.
set -euo pipefail

missing=()
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -x /usr/bin/prometheus-node-exporter ] || missing+=(prometheus-node-exporter)
compgen -G '/usr/lib/*/faketime/libfaketime.so.1' >/dev/null || missing+=(faketime)
if [ ${#missing[@]} -eq 0 ]; then
  echo "packages/agent/scripts/setup.sh: nginx, prometheus-node-exporter and faketime already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "packages/agent/scripts/setup.sh: ${missing[*]} missing and installing needs root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# No service is started by the install (a container has no init; a CI machine needs none).
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
trap 'rm -f /usr/sbin/policy-rc.d' EXIT
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
/usr/sbin/nginx -v
/usr/bin/prometheus-node-exporter --version 2>&1 | head -n 1
faketime --version 2>&1 | head -n 1
