#!/usr/bin/env bash
# ffmpeg makes the players page's demo stream (the console's build, or `pnpm demo` at its start).
# Installed here, quietly, when it is missing and this runs as root on a machine with apt-get;
# otherwise nothing is done, and the demo's first lines say how to install it.
set -uo pipefail

command -v ffmpeg >/dev/null 2>&1 && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  exit 0
fi
echo "setup: installing ffmpeg (for the players page's demo stream)"
export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null 2>&1; }
if ! install && ! { apt-get update -qq >/dev/null 2>&1 && install; }; then
  echo "setup: ffmpeg could not be installed: the demo runs without its stream, and says how to add it" >&2
fi
exit 0
