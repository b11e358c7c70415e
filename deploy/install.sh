#!/usr/bin/env bash
# Installs a wai-steering deployment on one Debian machine, as root, and checks it with
# `wai-steer doctor`: two instances of the steering server (`--workers auto`) on PostgreSQL,
# HAProxy in front, the console behind a bearer token, an edge (nginx) serving the media on two
# pathways, a hop agent metering each, and log rotation. Idempotent: run it again after an
# upgrade or a change of its settings; keys, the room, the key log and the store are kept.
#
#   sudo deploy/install.sh           install (or update) and start everything, then check it
#   sudo deploy/install.sh status    each service: running (its pid, since when) or not
#   sudo deploy/install.sh start     start what is not running (after a reboot, a container's restart)
#   sudo deploy/install.sh stop      stop every service of the deployment
#   sudo deploy/install.sh restart [SERVICE…]   restart the services (all of them by default)
#   sudo deploy/install.sh reload [SERVICE…]    the instances (by default) read the key log and policy again
#   sudo deploy/install.sh logs [-f] [-n N] [SERVICE…]   the services' logs
# `wai-steer deploy VERB` runs the same. The verbs work under both supervisors, with the settings
# the last install saved in /etc/wai-steering/install.env.
#
# Where systemd runs (PID 1), the units of deploy/systemd/ are installed and started with
# systemctl. Where it does not (a container, a CI job), each unit's own command is run by
# deploy/supervise.mjs, a supervisor that reads the unit file, and PostgreSQL is a cluster of
# Debian's binaries under /var/lib/wai-steering/postgresql instead of Debian's service.
#
# Settings (environment variables; defaults in brackets) — docs/deploy.md explains each:
#   WAI_HOST [127.0.0.1]    the host players and hops reach the deployment at (the policy's URIs)
#   WAI_BIND [0.0.0.0]      the address HAProxy and the edge listen on
#   WAI_PORT [8080]         HAProxy's port: the steering server's public URL is http://WAI_HOST:WAI_PORT
#   WAI_PORT_A [8081], WAI_PORT_B [8082]            the two instances (on 127.0.0.1)
#   WAI_EDGE_PORT_A [8090], WAI_EDGE_PORT_B [8091]  the edge's two pathways, cdn-a and cdn-b
#   WAI_PERIOD [10s], WAI_WINDOW [30s], WAI_LAG [2s] the policy's P, W and L
#   WAI_CLI [this checkout's packages/cli/dist/main.js, or the release's dist/main.js]  the wai-steer to run
#   WAI_USER [wai-steering] the user the services run as
#   WAI_ROOT []             a root to install under instead of / (a test's directory)
#   WAI_MODE [auto]         systemd, supervise, or auto (systemd when it runs and WAI_ROOT is empty)
#   WAI_PG_PORT [5432]      PostgreSQL's port (its own cluster's, under supervise)
#   WAI_DOCTOR_TIMEOUT [180] seconds to wait for doctor to find nothing wrong
#   WAI_APT [1]             install the Debian packages that are missing (0: only say which)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
repo="$(dirname "$here")"
# From a checkout (deploy/ beside packages/), or from a release (share/deploy/ of the CLI's
# package: the npm tarball, the Debian package).
if [ -f "$repo/packages/cli/package.json" ]; then
  default_cli="$repo/packages/cli/dist/main.js"
  nginx_log_conf="$repo/packages/agent/nginx/wai-steering-log.conf"
else
  default_cli="$(dirname "$repo")/dist/main.js"
  nginx_log_conf="$repo/agent/nginx/wai-steering-log.conf"
fi
verb="${1:-install}"
[ $# -eq 0 ] || shift
: "${WAI_ROOT:=}"
# The verbs other than install act on the deployment as the last install made it.
if [ "$verb" != install ] && [ -f "$WAI_ROOT/etc/wai-steering/install.env" ]; then
  # shellcheck source=/dev/null
  . "$WAI_ROOT/etc/wai-steering/install.env"
fi

: "${WAI_HOST:=127.0.0.1}"
: "${WAI_BIND:=0.0.0.0}"
: "${WAI_PORT:=8080}"
: "${WAI_PORT_A:=8081}"
: "${WAI_PORT_B:=8082}"
: "${WAI_EDGE_PORT_A:=8090}"
: "${WAI_EDGE_PORT_B:=8091}"
: "${WAI_PERIOD:=10s}"
: "${WAI_WINDOW:=30s}"
: "${WAI_LAG:=2s}"
: "${WAI_CLI:=$default_cli}"
: "${WAI_USER:=wai-steering}"
: "${WAI_MODE:=auto}"
: "${WAI_PG_PORT:=5432}"
: "${WAI_DOCTOR_TIMEOUT:=180}"
: "${WAI_APT:=1}"

etc="$WAI_ROOT/etc/wai-steering"
state="$WAI_ROOT/var/lib/wai-steering"
logs="$WAI_ROOT/var/log/wai-steering"
units="$WAI_ROOT/etc/systemd/system"
bin="$WAI_ROOT/usr/local/bin/wai-steer"
rotate="$WAI_ROOT/etc/logrotate.d/wai-steering"
run="$state/run"
INSTANCES=(a b)
# Every path below is absolute; the services' user and postgres need not read the caller's.
cd /
HOPS=(a b)

say() { printf 'install.sh: %s\n' "$*"; }
die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}

case "$WAI_ROOT" in "" | /*) ;; *) die "WAI_ROOT is an absolute path, not $WAI_ROOT" ;; esac
if [ "$WAI_MODE" = auto ]; then
  if [ -z "$WAI_ROOT" ] && [ -d /run/systemd/system ]; then WAI_MODE=systemd; else WAI_MODE=supervise; fi
fi
case "$WAI_MODE" in systemd | supervise) ;; *) die "WAI_MODE is systemd, supervise or auto, not $WAI_MODE" ;; esac
if [ "$WAI_MODE" = systemd ] && [ -n "$WAI_ROOT" ]; then die "WAI_ROOT goes with WAI_MODE=supervise"; fi

# The units' services, in the order they start.
SERVICES=(wai-steering-edge.service)
for i in "${INSTANCES[@]}"; do SERVICES+=("wai-steer@$i.service"); done
for h in "${HOPS[@]}"; do SERVICES+=("wai-steer-hop@$h.service"); done
SERVICES+=(wai-steering-haproxy.service)

# shellcheck source=deploy/ops.sh
. "$here/ops.sh"
case "$verb" in
install) [ $# -eq 0 ] || die "install takes no arguments (settings are environment variables)" ;;
*)
  [ -f "$etc/install.env" ] || [ "$verb" = stop ] ||
    die "no deployment installed at $etc (no install.env there): install it first (wai-steer deploy install, or deploy/install.sh)"
  ops "$verb" "$@"
  exit $?
  ;;
esac
[ "$(id -u)" -eq 0 ] || die "run it as root (it creates a user, installs units and packages)"

# ---------------------------------------------------------------- what it needs
missing=()
[ -n "$(pg_bin)" ] || missing+=(postgresql)
[ -x /usr/sbin/haproxy ] || missing+=(haproxy)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v logrotate >/dev/null 2>&1 || [ -x /usr/sbin/logrotate ] || missing+=(logrotate)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  [ "$WAI_APT" = 1 ] || die "missing Debian packages: ${missing[*]} (apt-get install ${missing[*]})"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Their own services are not started by the install: this deployment runs its own.
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
  rm -f /usr/sbin/policy-rc.d
  trap - EXIT
fi
PG_BIN="$(pg_bin)"
NODE="$(command -v node)" || die "Node 20.19 or later is needed (Debian's nodejs, or nodejs.org's)"
[ -f "$WAI_CLI" ] || die "no wai-steer at $WAI_CLI: build it first (bash scripts/setup.sh && pnpm build), or set WAI_CLI"

# ---------------------------------------------------------------- the user and the directories
if ! id -u "$WAI_USER" >/dev/null 2>&1; then
  say "creating the system user $WAI_USER"
  adduser --system --group --home /var/lib/wai-steering --no-create-home --quiet "$WAI_USER"
fi
install -d -m 0755 "$WAI_ROOT/etc" "$WAI_ROOT/usr/local/bin" "$units" "$(dirname "$rotate")"
install -d -m 0750 -o root -g "$WAI_USER" "$etc" "$etc/keys" "$etc/nginx"
install -d -m 0700 -o root -g root "$etc/keys/offline"
install -d -m 0755 -o "$WAI_USER" -g "$WAI_USER" "$state" "$state/media"
install -d -m 0750 -o "$WAI_USER" -g "$WAI_USER" "$logs" "$state/spool-a" "$state/spool-b"
install -d -m 0700 -o "$WAI_USER" -g "$WAI_USER" "$state/edge-tmp"
install -d -m 0755 "$run"
# The services append to their logs (StandardOutput=append:): made theirs first, so that the
# rotation (as their user, copytruncate) may truncate them.
for f in "${INSTANCES[@]/#/steer-}" "${HOPS[@]/#/hop-}" haproxy; do
  [ -f "$logs/$f.log" ] || install -m 0640 -o "$WAI_USER" -g "$WAI_USER" /dev/null "$logs/$f.log"
done
# The CLI must be readable by the services' user.
runuser -u "$WAI_USER" -- "$NODE" "$WAI_CLI" --version >/dev/null 2>&1 ||
  die "$WAI_USER cannot run $WAI_CLI: put the checkout where it can read it (such as /opt/wai-steering)"
cat >"$bin.new" <<EOF
#!/bin/sh
# wai-steer, as deploy/install.sh installed it: the command line of $WAI_CLI.
exec "$NODE" "$WAI_CLI" "\$@"
EOF
chmod 0755 "$bin.new"
mv "$bin.new" "$bin"
wai() { "$bin" "$@"; }

# ---------------------------------------------------------------- keys, room, key log (kept)
# The room authority and the origin sign the room and the key log: the origin's key belongs off
# this machine once the deployment runs (docs/deploy.md), so both are kept apart, root's alone.
key() {
  local file="$1" owner="$2"
  if [ ! -f "$file" ]; then wai keygen --out "$file" >/dev/null; fi
  chown "$owner:$owner" "$file"
  chmod 0600 "$file"
}
key "$etc/keys/offline/authority.jwk" root
key "$etc/keys/offline/origin.jwk" root
key "$etc/keys/steer.jwk" "$WAI_USER"
for h in "${HOPS[@]}"; do key "$etc/keys/hop-$h.jwk" "$WAI_USER"; done
if [ ! -f "$etc/session.secret" ]; then head -c 32 /dev/urandom >"$etc/session.secret"; fi
chown "$WAI_USER:$WAI_USER" "$etc/session.secret"
chmod 0600 "$etc/session.secret"
if [ ! -f "$etc/console.token" ]; then
  od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$etc/console.token"
fi
chmod 0600 "$etc/console.token"
TOKEN="$(cat "$etc/console.token")"
# /metrics through HAProxy from another machine (Prometheus): with this token alone.
if [ ! -f "$etc/metrics.token" ]; then
  od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$etc/metrics.token"
fi
chmod 0600 "$etc/metrics.token"

if [ ! -f "$etc/room.wrd" ]; then
  wai room create --authority "$etc/keys/offline/authority.jwk" --origin "$etc/keys/offline/origin.jwk" \
    --name "wai-steering $(hostname -s 2>/dev/null || echo host)" --out "$etc/room.wrd" >/dev/null
fi
if [ ! -f "$etc/keylog.wkl" ]; then
  # The hops state ModelBased figures (the edge's model, below); the steering key restates them.
  wai keylog create --origin "$etc/keys/offline/origin.jwk" \
    --entry "$etc/keys/offline/authority.jwk=live/room" \
    --entry "$etc/keys/steer.jwk=live/steer,energy/ModelBased,energy/OnChipCounter" \
    --entry "$etc/keys/hop-a.jwk=live/hop,energy/ModelBased" \
    --entry "$etc/keys/hop-b.jwk=live/hop,energy/ModelBased" \
    --out "$etc/keylog.wkl" >/dev/null
fi
ROOM_ID="$(wai room inspect "$etc/room.wrd" --json | sed -n 's/.*"room":"\([0-9a-f]\{64\}\)".*/\1/p')"
[ -n "$ROOM_ID" ] || die "cannot read the room id of $etc/room.wrd"

# ---------------------------------------------------------------- the policy (written once, compiled each run)
PUBLIC="http://$WAI_HOST:$WAI_PORT"
if [ ! -f "$etc/policy.yaml" ]; then
  cat >"$etc/policy.yaml" <<EOF
# The deployment's steering policy (docs/cli.md, "The policy config"): edit it, then run
# deploy/install.sh again (it compiles it and reloads the servers), or compile it yourself and
# send the servers SIGHUP (systemctl reload 'wai-steer@*').
room: room.wrd
period: $WAI_PERIOD
window: $WAI_WINDOW
lag: $WAI_LAG
basis: bytes
tiers: ["400k", "2M", "6M"]
floor: 0
latency_ceiling: 150ms
min_buffer: 4s
hysteresis: 5%
ttl: 30s
min_ttl: 10s
server_uri: $PUBLIC/steer
reload_uri: $PUBLIC/steer
decision_uri: $PUBLIC/decisions/
pathways:
  - id: cdn-a
    latency: 40ms
    hops:
      - { key: $(wai pubkey "$etc/keys/hop-a.jwk"), place: edge }
  - id: cdn-b
    latency: 40ms
    hops:
      - { key: $(wai pubkey "$etc/keys/hop-b.jwk"), place: edge }
EOF
fi
wai policy compile "$etc/policy.yaml" --key "$etc/keys/steer.jwk" --room "$etc/room.wrd" \
  --key-log "$etc/keylog.wkl" --out "$etc/policy.wsp.new" >/dev/null
mv "$etc/policy.wsp.new" "$etc/policy.wsp"
chmod 0644 "$etc/room.wrd" "$etc/keylog.wkl" "$etc/policy.wsp" "$etc/policy.yaml"

# ---------------------------------------------------------------- PostgreSQL
# A running deployment's instances are stopped first: none loses its store under it (a restart
# of PostgreSQL ends their connections, 57P01). The end of the install starts them again.
stop_instances
PG_SOCKET="$(pg_socket)"
if [ "$WAI_MODE" = systemd ]; then
  systemctl enable postgresql >/dev/null 2>&1
  pg_up
else
  install -d -m 0755 -o postgres -g postgres "$PG_SOCKET"
  if [ ! -f "$state/postgresql/PG_VERSION" ]; then
    say "creating a PostgreSQL cluster in $state/postgresql"
    install -d -m 0700 -o postgres -g postgres "$state/postgresql"
    runuser -u postgres -- "$PG_BIN/initdb" -D "$state/postgresql" -U postgres \
      --auth-local=peer --auth-host=reject --no-instructions >/dev/null
  fi
  # The stand-in for Debian's postgresql.service where systemd does not run: its binary, in the
  # foreground, under the same supervisor as the other units. Restarted only when it changed.
  cat >"$units/$PG_UNIT.new" <<EOF
[Unit]
Description=PostgreSQL for wai-steering (Debian's binaries; where systemd does not run)

[Service]
User=postgres
ExecStart=$PG_BIN/postgres -D $state/postgresql -k $PG_SOCKET -p $WAI_PG_PORT -c listen_addresses=
ExecReload=/bin/kill -HUP \$MAINPID
KillSignal=SIGINT
TimeoutStopSec=30
Restart=on-failure
RestartSec=1
StandardOutput=append:$logs/postgresql.log
StandardError=append:$logs/postgresql.log
EOF
  if cmp -s "$units/$PG_UNIT.new" "$units/$PG_UNIT"; then
    rm "$units/$PG_UNIT.new"
  else
    mv "$units/$PG_UNIT.new" "$units/$PG_UNIT"
    supervise_stop "$PG_UNIT"
  fi
  pg_up
fi
psql_postgres() { runuser -u postgres -- psql -h "$PG_SOCKET" -p "$WAI_PG_PORT" -v ON_ERROR_STOP=1 -qtA "$@"; }
if [ "$(psql_postgres -c "SELECT 1 FROM pg_roles WHERE rolname = '$WAI_USER'")" != 1 ]; then
  psql_postgres -c "CREATE ROLE \"$WAI_USER\" LOGIN"
fi
if [ "$(psql_postgres -c "SELECT 1 FROM pg_database WHERE datname = 'wai_steering'")" != 1 ]; then
  psql_postgres -c "CREATE DATABASE wai_steering OWNER \"$WAI_USER\""
fi
STORE_URL="postgres://$WAI_USER@/wai_steering?host=$PG_SOCKET&port=$WAI_PG_PORT"

# ---------------------------------------------------------------- configs (rewritten each run)
for i in "${INSTANCES[@]}"; do
  port_var="WAI_PORT_${i^^}"
  cat >"$etc/steer-$i.yaml" <<EOF
# Instance $i of the steering server (deploy/install.sh writes this file; docs/server.md).
room: room.wrd
key_log: keylog.wkl
policy: policy.wsp
signing_key: keys/steer.jwk
listen: { host: 127.0.0.1, port: ${!port_var} }
public_url: $PUBLIC
store: { url: "$STORE_URL" }
sessions: { secret: session.secret }
budget: { trusted_proxies: ["127.0.0.1"] }
console: { auth: { bearer: "$TOKEN" } }
EOF
  chown "$WAI_USER:$WAI_USER" "$etc/steer-$i.yaml"
  chmod 0600 "$etc/steer-$i.yaml"
done
declare -A IDLE=([a]=30 [b]=20) NJ=([a]=60 [b]=45)
for h in "${HOPS[@]}"; do
  cat >"$etc/hop-$h.yaml" <<EOF
# The hop agent of the edge's pathway cdn-$h (docs/metering.md). The edge's energy is a stated
# model here (ModelBased): on a machine of its own, a CDN node meters RAPL or an exporter.
room: room.wrd
key_log: keylog.wkl
key: keys/hop-$h.jwk
policy: policy.wsp
servers: ["$PUBLIC"]
spool: $state/spool-$h
energy: { source: model, idle_watts: ${IDLE[$h]}, nanojoules_per_byte: ${NJ[$h]} }
traffic:
  source: nginx
  log: $logs/edge-$h.log
  routes:
    - { match: '\.(ts|m4s|mp4)$', track: 1, kind: media, tier: 0 }
    - { match: '\.(m3u8|mpd)$', track: 2, kind: other }
EOF
  chown "root:$WAI_USER" "$etc/hop-$h.yaml"
  chmod 0640 "$etc/hop-$h.yaml"
done
cp "$nginx_log_conf" "$etc/nginx/wai-steering-log.conf"
cat >"$etc/nginx/nginx.conf" <<EOF
# The edge: one nginx serving $state/media on the ports of the two pathways, each with its own
# access log in the wai_steering format, which its hop agent meters (deploy/install.sh).
user $WAI_USER;
worker_processes 1;
pid $state/edge-nginx.pid;
error_log $logs/edge-error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  include $etc/nginx/wai-steering-log.conf;
  client_body_temp_path $state/edge-tmp/body;
  proxy_temp_path $state/edge-tmp/proxy;
  fastcgi_temp_path $state/edge-tmp/fastcgi;
  uwsgi_temp_path $state/edge-tmp/uwsgi;
  scgi_temp_path $state/edge-tmp/scgi;
  sendfile on;
  server {
    listen $WAI_BIND:$WAI_EDGE_PORT_A;
    root $state/media;
    access_log $logs/edge-a.log wai_steering;
    add_header Access-Control-Allow-Origin * always;
  }
  server {
    listen $WAI_BIND:$WAI_EDGE_PORT_B;
    root $state/media;
    access_log $logs/edge-b.log wai_steering;
    add_header Access-Control-Allow-Origin * always;
  }
}
EOF
cp "$here/haproxy.cfg" "$etc/haproxy.cfg"
cat >"$etc/haproxy.env" <<EOF
WAI_LISTEN=$WAI_BIND:$WAI_PORT
WAI_INSTANCE_A=127.0.0.1:$WAI_PORT_A
WAI_INSTANCE_B=127.0.0.1:$WAI_PORT_B
WAI_METRICS_TOKEN=$(cat "$etc/metrics.token")
EOF
chmod 0644 "$etc/haproxy.cfg" "$etc/nginx/"*
chmod 0600 "$etc/haproxy.env"

# ---------------------------------------------------------------- units and log rotation
# The units of deploy/systemd/ as they are, their paths moved under WAI_ROOT when it is given.
place() {
  if [ -z "$WAI_ROOT" ]; then
    cat "$1"
  else
    sed -e "s#/usr/local/bin/wai-steer#$bin#g" -e "s#/etc/wai-steering#$etc#g" \
      -e "s#/var/lib/wai-steering#$state#g" -e "s#/var/log/wai-steering#$logs#g" "$1"
  fi
}
for f in "$here"/systemd/*; do place "$f" >"$units/$(basename "$f")"; done
place "$here/logrotate/wai-steering" >"$rotate"
chmod 0644 "$units"/wai-st* "$rotate"
# The settings of this install, for its verbs (status, restart, logs…) and `wai-steer deploy`.
{
  echo "# Written by deploy/install.sh: the settings of the last install (the environment wins)."
  for v in WAI_HOST WAI_BIND WAI_PORT WAI_PORT_A WAI_PORT_B WAI_EDGE_PORT_A WAI_EDGE_PORT_B \
    WAI_PERIOD WAI_WINDOW WAI_LAG WAI_CLI WAI_USER WAI_MODE WAI_PG_PORT; do
    printf '[ -n "${%s:-}" ] || %s=%q\n' "$v" "$v" "${!v}"
  done
} >"$etc/install.env"
chmod 0644 "$etc/install.env"

# ---------------------------------------------------------------- start (or restart) everything
if [ "$WAI_MODE" = systemd ]; then
  systemctl daemon-reload
  systemctl enable wai-steering.target "${SERVICES[@]}" >/dev/null 2>&1
  systemctl restart "${SERVICES[@]}"
else
  for s in "${SERVICES[@]}"; do supervise_start "$s"; done
fi

for _ in $(seq 1 300); do
  curl -fsS -o /dev/null "http://127.0.0.1:$WAI_PORT/healthz" 2>/dev/null && break
  sleep 0.2
done
curl -fsS -o /dev/null "http://127.0.0.1:$WAI_PORT/healthz" ||
  die "HAProxy does not answer at http://127.0.0.1:$WAI_PORT/healthz: see $logs/"

# ---------------------------------------------------------------- the check
# Until the hops' records fill a window (W + L after the start), the pathways are stale: doctor
# is run until it finds nothing wrong, within WAI_DOCTOR_TIMEOUT.
doctor() {
  local i="$1"
  local hops=()
  if [ "$i" = "${INSTANCES[0]}" ]; then for h in "${HOPS[@]}"; do hops+=(--hop "$etc/hop-$h.yaml"); done; fi
  runuser -u "$WAI_USER" -- "$bin" doctor --config "$etc/steer-$i.yaml" "${hops[@]}"
}
deadline=$((SECONDS + WAI_DOCTOR_TIMEOUT))
for i in "${INSTANCES[@]}"; do
  until out="$(doctor "$i" 2>&1)"; do
    if [ $SECONDS -ge $deadline ]; then
      printf '%s\n' "$out"
      die "doctor finds problems with instance $i (above); the services' logs are in $logs/"
    fi
    sleep 2
  done
  say "doctor, instance $i:"
  printf '%s\n' "$out" | sed 's/^/  /'
done

say "installed ($WAI_MODE)"
cat <<EOF
  steering URL    $PUBLIC/steer
  console         $PUBLIC/console/  (bearer token in $etc/console.token)
  metrics         http://127.0.0.1:$WAI_PORT/metrics from this machine; from others, bearer token in $etc/metrics.token
  room            $ROOM_ID
  edge            http://$WAI_HOST:$WAI_EDGE_PORT_A (cdn-a), http://$WAI_HOST:$WAI_EDGE_PORT_B (cdn-b), serving $state/media
  HLS tag         $(wai hls-tag "$etc/policy.wsp")
  logs            $logs/
EOF
