#!/usr/bin/env bash
# The test command: install, then lint, typecheck, build, publint, tests (every package, the
# conformance corpus and the real players), the packed wire tarball, and one closing line.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f packages/*/test-results.json conformance/test-results.json players/test-results.json
pnpm install --frozen-lockfile
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
