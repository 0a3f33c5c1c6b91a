#!/usr/bin/env bash
# Builds the test-only bcryptprimitives.dll stand-in (see processprng.c) into
# OUT_DIR (default: a new temporary folder) and prints its path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
cc=${MINGW_CC:-x86_64-w64-mingw32-gcc}
# -nostdlib and our own entry point: no C runtime, kernel32 is its only import.
"$cc" -O2 -Wall -Wextra -shared -nostdlib -s -Wl,-e,DllMain \
	-Wl,--kill-at -o "$out/bcryptprimitives.dll" "$here/processprng.c" -lkernel32
echo "$out/bcryptprimitives.dll"
