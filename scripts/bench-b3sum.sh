#!/usr/bin/env bash
# bench-b3sum.sh - time the Rust b3sum against this repository's cmd/b3sum on
# a large file, side by side.
#
# Usage: scripts/bench-b3sum.sh [ROUNDS]
#
# Environment:
#   B3SUM       reference binary (default: b3sum on PATH)
#   SIZE_MIB    file size in MiB (default 1024)
#   ROUNDS      rounds per configuration (default 5; also the first argument)
#   TMPDIR      where the test file and the Go build go (default /tmp)
#   KEEP=1      keep the test file for the next run
#
# For each configuration (default flags, --num-threads 1, --no-mmap, and the
# file piped to stdin by cat, a pipe's cost included) the
# best wall time over the rounds is reported as GB/s (10^9 bytes/s), with
# the ratio Go/Rust (above 1 means the Go b3sum is faster). Both binaries
# must print the same hash. The page cache is warmed first, so this measures
# hashing, not the disk.
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${1:-${ROUNDS:-5}}
SIZE_MIB=${SIZE_MIB:-1024}
REF=${B3SUM:-$(command -v b3sum || true)}
[ -n "$REF" ] && [ -x "$REF" ] || {
	echo "bench-b3sum: no reference b3sum (set B3SUM or run scripts/install-b3sum.sh)" >&2
	exit 1
}
TMP=${TMPDIR:-/tmp}
WORK=$(mktemp -d "$TMP/bench-b3sum.XXXXXX")
FILE=$TMP/bench-b3sum-${SIZE_MIB}MiB.bin
cleanup() {
	rm -rf "$WORK"
	[ "${KEEP:-0}" = 1 ] || rm -f "$FILE"
}
trap cleanup EXIT

GO_B3SUM=$WORK/b3sum-go
CGO_ENABLED=0 go build -o "$GO_B3SUM" ./cmd/b3sum

if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE" 2>/dev/null || stat -f %z "$FILE")" != $((SIZE_MIB << 20)) ]; then
	echo "creating $FILE ($SIZE_MIB MiB)" >&2
	head -c $((SIZE_MIB << 20)) /dev/urandom >"$FILE"
fi
cat "$FILE" >/dev/null # warm the page cache

echo "reference: $REF ($("$REF" --version))"
echo "go:        cmd/b3sum ($("$GO_B3SUM" --version); $("$GO_B3SUM" --backend))"
echo "file:      $FILE, $SIZE_MIB MiB; $ROUNDS rounds, best time; $(nproc 2>/dev/null || sysctl -n hw.ncpu) CPUs"
echo

now() { # seconds, with sub-second precision
	if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi
}

# best BIN ARGS... - prints the best wall time over ROUNDS runs; with
# PIPE=1 the file reaches BIN through `cat FILE |` instead of as an argument.
best() {
	local bin=$1 best="" t0 t1 dt
	shift
	for _ in $(seq "$ROUNDS"); do
		t0=$(now)
		if [ "${PIPE:-0}" = 1 ]; then
			cat "$FILE" | "$bin" "$@" >/dev/null
		else
			"$bin" "$@" "$FILE" >/dev/null
		fi
		t1=$(now)
		dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
		if [ -z "$best" ] || awk -v a="$dt" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$dt; fi
	done
	echo "$best"
}

printf '%-20s %12s %12s %8s\n' "flags" "rust GB/s" "go GB/s" "go/rust"
bytes=$((SIZE_MIB << 20))
for flags in "" "--num-threads 1" "--no-mmap"; do
	# shellcheck disable=SC2086 # word splitting of $flags is intended
	{
		want=$("$REF" $flags --no-names "$FILE")
		got=$("$GO_B3SUM" $flags --no-names "$FILE")
		[ "$want" = "$got" ] || {
			echo "hash mismatch with flags '$flags': rust $want, go $got" >&2
			exit 1
		}
		tr=$(best "$REF" $flags)
		tg=$(best "$GO_B3SUM" --no-progress $flags)
	}
	awk -v f="${flags:-(default)}" -v n="$bytes" -v tr="$tr" -v tg="$tg" \
		'BEGIN { printf "%-20s %12.2f %12.2f %8.2f\n", f, n / tr / 1e9, n / tg / 1e9, tr / tg }'
done
want=$(cat "$FILE" | "$REF" --no-names)
got=$(cat "$FILE" | "$GO_B3SUM" --no-names)
[ "$want" = "$got" ] || {
	echo "hash mismatch through a pipe: rust $want, go $got" >&2
	exit 1
}
tr=$(PIPE=1 best "$REF")
tg=$(PIPE=1 best "$GO_B3SUM" --no-progress)
awk -v f="cat FILE |" -v n="$bytes" -v tr="$tr" -v tg="$tg" \
	'BEGIN { printf "%-20s %12.2f %12.2f %8.2f\n", f, n / tr / 1e9, n / tg / 1e9, tr / tg }'
