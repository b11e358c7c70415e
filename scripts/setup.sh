#!/usr/bin/env bash
# Sets up a checkout: pnpm (pinned), then the workspace's dependencies, then ffmpeg for the
# players page's demo stream (as root, where apt-get is: scripts/ffmpeg.sh). better-sqlite3 builds
# from source where no prebuilt binary can be fetched; node-gyp then needs Node's headers, which
# this script points it to when npm is configured with them (`nodedir`) or they sit beside the
# node binary, since pnpm does not pass npm's own `nodedir` setting to build scripts.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "12.4.2" ]; then
  npm install --global --loglevel=error pnpm@12.4.2
fi

if [ -z "${npm_config_nodedir:-}" ]; then
  nodedir="$(npm config get nodedir 2>/dev/null || true)"
  if [ -z "$nodedir" ] || [ "$nodedir" = "undefined" ] || [ "$nodedir" = "null" ]; then
    nodedir="$(dirname "$(dirname "$(command -v node)")")"
  fi
  if [ -f "$nodedir/include/node/node.h" ]; then
    export npm_config_nodedir="$nodedir"
  fi
fi

pnpm install --frozen-lockfile

# ffmpeg for the players page's demo stream, as root where apt-get is (quietly).
bash scripts/ffmpeg.sh
