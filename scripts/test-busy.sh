#!/usr/bin/env bash
# The test command on a busy machine: `stress-ng` (Debian's) keeps twice as many workers busy
# as the machine has cores (`stress-ng --cpu 4` on two; STRESS_CPUS to choose) while
# `scripts/test.sh` runs RUNS times in a row (default 3). The suite waits on events, never on the
# clock, so it passes as it does on an idle machine, only slower. Each run's closing line is kept
# in test-busy.log, and the last line is the tally; the exit status is the number of runs that
# failed (0: all passed).
set -euo pipefail
cd "$(dirname "$0")/.."
# Every run runs every test: none of turbo's cached results.
export TURBO_FORCE=true
runs="${RUNS:-3}"
cpus="${STRESS_CPUS:-$(($(nproc) * 2))}"
if ! command -v stress-ng >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y stress-ng >/dev/null
  else
    echo "test-busy: stress-ng is missing: install Debian's stress-ng (apt-get install -y stress-ng)" >&2
    exit 2
  fi
fi
# Bounded: the load stops after three hours a run at the latest, and when this script ends.
stress-ng --cpu "$cpus" --timeout "$((runs * 3))h" --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null || true' EXIT
failed=0
: >test-busy.log
for i in $(seq "$runs"); do
  start=$(date +%s)
  if bash scripts/test.sh >"test-busy-$i.out" 2>&1; then result=passed; else result=failed; failed=$((failed + 1)); fi
  summary=$(grep -E '^Tests: ' "test-busy-$i.out" | tail -1 || true)
  echo "run $i of $runs beside stress-ng --cpu $cpus: $result in $(($(date +%s) - start)) s; ${summary:-no summary line}" | tee -a test-busy.log
done
echo "test-busy: $((runs - failed)) of $runs runs passed beside stress-ng --cpu $cpus" | tee -a test-busy.log
exit "$failed"
