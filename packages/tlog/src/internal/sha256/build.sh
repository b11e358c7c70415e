#!/bin/sh
# Builds sha256.c into module.ts (the WebAssembly module, base64). Needs clang and lld (Debian:
# `apt-get install clang lld`); the module in the repository was built with Debian 12's clang 14.
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
clang --target=wasm32 -msimd128 -O3 -nostdlib -fno-builtin -Wall -Werror \
  -Wl,--no-entry -Wl,--strip-all -Wl,-z,stack-size=16384 -Wl,--initial-memory=327680 \
  -o "$out/sha256.wasm" sha256.c
{
  echo '// Built by build.sh from sha256.c: do not edit.'
  echo '/** The WebAssembly module of `sha256.c`, base64. */'
  printf "export const SHA256_WASM =\n  '%s';\n" "$(base64 -w0 "$out/sha256.wasm")"
} > module.ts
echo "module.ts: $(wc -c < "$out/sha256.wasm") bytes of WebAssembly"
