#!/usr/bin/env bash
# Runs smoke.c against each library in libs/ that this machine can load:
# linux/amd64 natively, linux/arm64 under qemu-aarch64, windows/amd64 under wine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
libs=$(dirname "$(dirname "$here")")/libs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { echo "== $1"; shift; "$@" || fail=1; }

if [ -f "$libs/linux_amd64/libblake3_purego.so" ] && [ "$(uname -m)" = x86_64 ]; then
	cc -O2 -o "$tmp/smoke-amd64" "$here/smoke.c" -ldl
	run linux_amd64 "$tmp/smoke-amd64" "$libs/linux_amd64/libblake3_purego.so"
fi
if [ -f "$libs/linux_arm64/libblake3_purego.so" ] && command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
	aarch64-linux-gnu-gcc -O2 -o "$tmp/smoke-arm64" "$here/smoke.c" -ldl
	run "linux_arm64 (qemu-aarch64)" qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib "$tmp/smoke-arm64" "$libs/linux_arm64/libblake3_purego.so"
fi
if [ -f "$libs/windows_amd64/blake3_purego.dll" ] && command -v x86_64-w64-mingw32-gcc >/dev/null && command -v wine >/dev/null; then
	# Static, so the test program itself needs no mingw DLL either.
	x86_64-w64-mingw32-gcc -O2 -static -o "$tmp/smoke.exe" "$here/smoke.c"
	cp "$libs/windows_amd64/blake3_purego.dll" "$tmp/"
	run "windows_amd64 (wine)" env WINEDEBUG=-all WINEPREFIX="${WINEPREFIX:-$tmp/wineprefix}" wine "$tmp/smoke.exe" blake3_purego.dll
fi
exit $fail
