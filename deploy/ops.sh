# shellcheck shell=bash
# The operations of an installed deployment, under either supervisor: systemd where it runs,
# deploy/supervise.mjs where it does not (a container, a CI job). Sourced by install.sh, which
# defines the paths ($units, $run, $logs, $state), $WAI_MODE and the services (SERVICES); its
# verbs status, start, stop, restart, reload and logs run `ops VERB [ARGS…]`.

# ---------------------------------------------------------------- units and their services
# A unit's file and instance: wai-steer@a.service → wai-steer@.service and a.
unit_file() {
  local name="$1"
  if [[ "$name" == *@*.service ]]; then echo "$units/${name%%@*}@.service"; else echo "$units/$name"; fi
}
unit_instance() {
  local name="$1"
  if [[ "$name" == *@*.service ]]; then
    local rest="${name#*@}"
    echo "${rest%.service}"
  fi
}

PG_UNIT=wai-steering-postgresql.service
pg_bin() {
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && echo "$d"; done | sort -V | tail -n 1
}
pg_socket() { if [ "$WAI_MODE" = systemd ]; then echo /var/run/postgresql; else echo "$state/postgresql-run"; fi; }
# Whether PostgreSQL takes connections, asked without a FATAL line in its log: as the postgres
# user (as root, pg_isready would ask for the role postgres as root, which peer authentication
# refuses), and, for the deployment's own cluster, only once its postmaster.pid says "ready" (a
# connection while it starts is refused, "the database system is starting up"; a file left by a
# postmaster that was killed names a pid that is gone).
pg_ready() {
  if [ "$WAI_MODE" = supervise ]; then
    local pidfile="$state/postgresql/postmaster.pid"
    alive "$(sed -n 1p "$pidfile" 2>/dev/null)" || return 1
    [ "$(sed -n 8p "$pidfile" 2>/dev/null | tr -d ' ')" = ready ] || return 1
  fi
  runuser -u postgres -- "$(pg_bin)/pg_isready" -q -h "$(pg_socket)" -p "$WAI_PG_PORT"
}
pg_wait() {
  for _ in $(seq 1 300); do pg_ready && return 0; sleep 0.2; done
  pg_ready || die "PostgreSQL does not answer on $(pg_socket), port $WAI_PG_PORT: see $logs/"
}

# ---------------------------------------------------------------- supervise: start and stop
# Whether a process runs: one that exited but was not reaped yet (a zombie: its parent gone, and
# an init that does not reap, as in some containers) does not.
alive() {
  [ -n "$1" ] && [ -r "/proc/$1/stat" ] || return 1
  local stat
  stat="$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null)" || return 1
  [ -n "$stat" ] && [ "${stat%% *}" != Z ]
}

# The supervisor of a service, when it runs: its pid.
supervise_pid() {
  local pidfile="$run/$1.pid" pid
  [ -f "$pidfile" ] || return 1
  pid="$(cat "$pidfile")"
  alive "$pid" || return 1
  echo "$pid"
}

supervise_stop() {
  local pidfile="$run/$1.pid"
  [ -f "$pidfile" ] || return 0
  local pid
  pid="$(cat "$pidfile")"
  if alive "$pid"; then
    kill -TERM "$pid"
    for _ in $(seq 1 300); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && kill -KILL "$pid"
  fi
  rm -f "$pidfile"
}

supervise_start() {
  local name="$1"
  supervise_stop "$name"
  mkdir -p "$run"
  setsid node "$here/supervise.mjs" "$(unit_file "$name")" "$(unit_instance "$name")" \
    >>"$logs/supervise.log" 2>&1 </dev/null &
  echo $! >"$run/$name.pid"
}

stop_all() {
  if [ "$WAI_MODE" = systemd ]; then
    systemctl stop wai-steering.target "${SERVICES[@]}" || true
  else
    local i
    for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do supervise_stop "${SERVICES[$i]}"; done
    supervise_stop "$PG_UNIT"
  fi
}

# The instances, stopped (before PostgreSQL is touched, so that none loses its store under it).
stop_instances() {
  local names=()
  for i in "${INSTANCES[@]}"; do names+=("wai-steer@$i.service"); done
  if [ "$WAI_MODE" = systemd ]; then
    systemctl stop "${names[@]}" 2>/dev/null || true
  else
    for n in "${names[@]}"; do supervise_stop "$n"; done
  fi
}

# PostgreSQL running (started when it is not; never restarted under running instances).
pg_up() {
  if [ "$WAI_MODE" = systemd ]; then
    systemctl start postgresql
  elif ! supervise_pid "$PG_UNIT" >/dev/null; then
    supervise_start "$PG_UNIT"
  fi
  pg_wait
}

# ---------------------------------------------------------------- the verbs
# The services named on the command line (wai-steer@a or wai-steer@a.service), or `default`.
pick() {
  local default="$1"
  shift
  local known=("${SERVICES[@]}")
  [ "$WAI_MODE" = supervise ] && known=("$PG_UNIT" "${known[@]}")
  if [ $# -eq 0 ]; then
    case "$default" in all) printf '%s\n' "${known[@]}" ;; services) printf '%s\n' "${SERVICES[@]}" ;;
      instances) for i in "${INSTANCES[@]}"; do echo "wai-steer@$i.service"; done ;; esac
    return
  fi
  local n
  for n in "$@"; do
    [[ "$n" == *.service ]] || n="$n.service"
    [[ " ${known[*]} " == *" $n "* ]] || die "no service $n here (${known[*]})"
    echo "$n"
  done
}

status_of() {
  local name="$1"
  if [ "$WAI_MODE" = systemd ]; then
    local state sub pid since
    { read -r state; read -r sub; read -r pid; read -r since; } < <(systemctl show -p ActiveState \
      -p SubState -p MainPID -p ActiveEnterTimestamp --value "$name")
    if [ "$state" = active ]; then echo "running  pid $pid, since $since"; else echo "$state ($sub)"; fi
    [ "$state" = active ]
    return
  fi
  local sup main
  if ! sup="$(supervise_pid "$name")"; then
    if [ -f "$run/$name.pid" ]; then echo "stopped (its supervisor is gone: start it again)"; else echo stopped; fi
    return 1
  fi
  main="$(ps -o pid= --ppid "$sup" | head -n 1 | tr -d ' ')"
  if [ -z "$main" ]; then
    echo "starting (supervisor $sup, between two runs)"
    return 1
  fi
  echo "running  pid $main (supervisor $sup), since $(ps -o lstart= -p "$main")"
}

log_of() {
  local name="$1" file
  if [ "$WAI_MODE" = systemd ] && [ "$name" = postgresql.service ]; then
    ls /var/log/postgresql/postgresql-*-main.log 2>/dev/null | tail -n 1
    return
  fi
  file="$(sed -n 's/^StandardOutput=append://p' "$(unit_file "$name")" | tail -n 1)"
  file="${file//%i/$(unit_instance "$name")}"
  [ -n "$file" ] || file="$logs/edge-error.log"
  echo "$file"
}

ops() {
  local verb="$1"
  shift
  local names n failed=0
  case "$verb" in
  status)
    mapfile -t names < <(pick all "$@")
    echo "wai-steering, under ${WAI_MODE}${WAI_ROOT:+ in $WAI_ROOT}:"
    local line
    for n in "${names[@]}"; do
      line="$(status_of "$n")" || failed=$((failed + 1))
      printf '  %-34s %s\n' "$n" "$line"
    done
    [ "$failed" -eq 0 ] && echo "all running" || echo "$failed not running"
    [ "$failed" -eq 0 ] || return 3
    ;;
  start)
    pg_up
    if [ "$WAI_MODE" = systemd ]; then
      systemctl start wai-steering.target "${SERVICES[@]}"
    else
      for n in "${SERVICES[@]}"; do supervise_pid "$n" >/dev/null || supervise_start "$n"; done
    fi
    say "started"
    ;;
  stop)
    if [ $# -eq 0 ]; then
      stop_all
    else
      mapfile -t names < <(pick all "$@")
      for n in "${names[@]}"; do
        if [ "$WAI_MODE" = systemd ]; then systemctl stop "$n"; else supervise_stop "$n"; fi
      done
    fi
    say "stopped"
    ;;
  restart)
    mapfile -t names < <(pick services "$@")
    # PostgreSQL first, started when it is not running (never restarted under the instances).
    pg_up
    for n in "${names[@]}"; do
      if [ "$WAI_MODE" = systemd ]; then systemctl restart "$n"; else supervise_start "$n"; fi
    done
    say "restarted ${names[*]}"
    ;;
  reload)
    mapfile -t names < <(pick instances "$@")
    for n in "${names[@]}"; do
      if [ "$WAI_MODE" = systemd ]; then
        systemctl reload "$n"
      else
        # The supervisor runs the unit's ExecReload= (SIGHUP to the server: the key log and the
        # policy read again).
        local sup
        sup="$(supervise_pid "$n")" || die "$n is not running: wai-steer deploy start"
        kill -HUP "$sup"
      fi
    done
    say "reloaded ${names[*]}"
    ;;
  logs)
    local lines=50 follow=()
    while [ $# -gt 0 ]; do
      case "$1" in
      -f | --follow) follow=(-F) ;;
      -n | --lines) lines="${2:?-n takes a number of lines}"; shift ;;
      *) break ;;
      esac
      shift
    done
    mapfile -t names < <(pick all "$@")
    local files=()
    for n in "${names[@]}"; do files+=("$(log_of "$n")"); done
    tail -n "$lines" "${follow[@]}" "${files[@]}"
    ;;
  *) die "usage: install.sh [install|status|start|stop|restart|reload|logs] [SERVICE…]" ;;
  esac
}
