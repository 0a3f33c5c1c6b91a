#!/usr/bin/env bash
# xof-check.sh [ROUNDS]: times long outputs (XOF) of this repository's
# cmd/b3sum against the Rust b3sum, side by side: `--raw -l LEN` (default
# 10^9 bytes) of inputs of 1, 700 and 100,000 bytes, to /dev/null, on every
# thread and with --num-threads 1, the two binaries alternated in each of
# ROUNDS rounds (default 5). It prints each configuration's median wall
# time and the ratio Rust/Go (above 1 means the Go b3sum is faster), after
# checking that the first 10 MB of both outputs are the same. It never
# fails on a timing (CI runs it for the record); without a Rust b3sum it
# says so and stops, and fails under BLAKE3_STRICT=1.
#
# Environment:
#   B3SUM    the reference binary, a path or a name on PATH (default: b3sum;
#            scripts/install-b3sum.sh installs 1.8.1)
#   LEN      the output length (default 1000000000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
LEN=${LEN:-1000000000}
REF=$(command -v "${B3SUM:-b3sum}" || true)
if [ -z "$REF" ]; then
	if [ "${BLAKE3_STRICT:-0}" = 1 ]; then
		echo "xof-check: FAIL: no reference b3sum (BLAKE3_STRICT=1; set B3SUM or run scripts/install-b3sum.sh)" >&2
		exit 1
	fi
	echo "xof-check: SKIP: no reference b3sum (set B3SUM or run scripts/install-b3sum.sh)"
	exit 0
fi
REF=$(cd "$(dirname "$REF")" && pwd)/$(basename "$REF")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
GO_B3SUM=$WORK/b3sum-go
CGO_ENABLED=0 go build -o "$GO_B3SUM" ./cmd/b3sum
head -c 1 /dev/urandom >"$WORK/1B"
head -c 700 /dev/urandom >"$WORK/700B"
head -c 100000 /dev/urandom >"$WORK/100000B"

now() { # seconds, with sub-second precision
	if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi
}

# timed BIN ARGS...: the wall time of one run, output to /dev/null.
timed() {
	local t0 t1
	t0=$(now)
	"$@" >/dev/null
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }

echo "reference: $REF ($("$REF" --version)); go: cmd/b3sum ($("$GO_B3SUM" --backend))"
echo "--raw -l $LEN to /dev/null; $ROUNDS rounds, the two alternated; median wall times; $(nproc) CPUs"
printf '%-10s %-16s %10s %10s %10s\n' "input" "threads" "rust ms" "go ms" "rust/go"
for in in 1B 700B 100000B; do
	cmp <("$REF" --raw -l 10000000 "$WORK/$in") <("$GO_B3SUM" --raw -l 10000000 "$WORK/$in") || {
		echo "xof-check: the first 10 MB of the outputs of $in differ" >&2
		exit 1
	}
	for threads in "" "--num-threads 1"; do
		: >"$WORK/rust"
		: >"$WORK/go"
		for _ in $(seq "$ROUNDS"); do
			# shellcheck disable=SC2086 # word splitting of $threads is intended
			timed "$REF" --raw -l "$LEN" $threads "$WORK/$in" >>"$WORK/rust"
			# shellcheck disable=SC2086
			timed "$GO_B3SUM" --raw -l "$LEN" $threads "$WORK/$in" >>"$WORK/go"
		done
		tr=$(median <"$WORK/rust")
		tg=$(median <"$WORK/go")
		awk -v i="$in" -v f="${threads:-(all)}" -v tr="$tr" -v tg="$tg" \
			'BEGIN { printf "%-10s %-16s %10.0f %10.0f %10.2f\n", i, f, tr * 1000, tg * 1000, tr / tg }'
	done
done
