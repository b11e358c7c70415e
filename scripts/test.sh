#!/usr/bin/env bash
# The test command: install what the tests need, then lint, typecheck, build, publint, tests
# (every package, the conformance corpus and the real players), the packed wire tarball, and one
# closing line adding them up.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1

# Debian's chromium and ffmpeg for the real players' suite, when missing.
if [ -f players/setup.sh ]; then bash players/setup.sh; fi
bash packages/agent/scripts/setup.sh # Debian's nginx and node_exporter for the hop agent's tests
# Debian's postgresql and haproxy for the server's multi-instance tests, when missing.
bash packages/server/scripts/setup.sh
# Debian's logrotate and systemd (systemd-analyze) for the deployment's test, when missing.
bash deploy/scripts/setup.sh

rm -f packages/*/test-results.json tools/*/test-results.json conformance/test-results.json players/test-results.json deploy/test-results.json
bash scripts/setup.sh
pnpm lint
pnpm typecheck
pnpm build
pnpm publint
status=0
pnpm test || status=$?
if [ -f players/package.json ]; then pnpm test:players || status=$?; fi
node scripts/check-pack.mjs || status=$?
node scripts/test-summary.mjs || status=$?
exit $status
