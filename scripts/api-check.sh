#!/usr/bin/env bash
# api-check.sh [PROCESSES]: times each use of zeebo/blake3's API that a
# user swapping it for this package makes (a new Hasher written and
# summed, a reused one, a Sum or a Digest read again, the keyed and
# derive-key modes, WriteString, Clone, a stream in 64-byte pieces through
# hash.Hash, keyed, and on the caller's stack, io.Copy from a reader
# without WriteTo, Sum256, Sum512, DeriveKey) as this package and as
# zeebo, side by side in one process (TestAPITable: short
# batches taking turns, 101 pairs per use and size, after a check that
# both give the same output), on the native path where the library loads
# and on the Go path, in PROCESSES processes (default 3). It prints, for
# each path, a table of zeebo's time over this package's (above 1.00, this
# package is faster; the median over the processes of each one's median)
# for each use at each size from 0 B to 1 MiB, then the uses and sizes
# below 0.97, with the lowest process's figure. The project's rule is that
# a user is never worse off than with zeebo; this prints where a machine
# disagrees. It never fails on a timing (CI runs it for the record).
# BLAKE3_API_CALL=s times only the uses whose names contain s.
set -euo pipefail
cd "$(dirname "$0")/.."
procs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/blake3.test" . >/dev/null
for r in $(seq "$procs"); do
	BLAKE3_MEASURE_API=1 "$work/blake3.test" -test.run '^TestAPITable$' -test.count 1 -test.v >>"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
done
out=$work/out
grep -m1 '^api: no native library' "$out" || true
echo "machine: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(go env GOOS)/$(go env GOARCH); $procs processes; zeebo's time / this package's, medians"
awk '
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 == "api:" && $2 ~ /^path=/ {
	path = substr($2, 6); size = substr($3, 6); ratio = substr($4, 7)
	call = $0; sub(/^.* call=/, "", call)
	if (!(path in seen)) { seen[path] = 1; paths[++np] = path }
	if (!((path, call) in cseen)) { cseen[path, call] = 1; calls[path, ++nc[path]] = call }
	if (!(size in sseen)) { sseen[size] = 1; sizes[++ns] = size }
	r[path, call, size] = r[path, call, size] " " ratio
	if (!((path, call, size) in low) || ratio + 0 < low[path, call, size] + 0) low[path, call, size] = ratio
}
function bytes(s) { return s ~ /MiB$/ ? s * 1048576 : s ~ /KiB$/ ? s * 1024 : s + 0 }
END {
	if (np == 0) { print "(no times printed)"; exit }
	# The sizes in order: a use measured at more sizes than the first adds them after its columns.
	for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++) if (bytes(sizes[j]) < bytes(sizes[i])) { t = sizes[i]; sizes[i] = sizes[j]; sizes[j] = t }
	for (p = 1; p <= np; p++) {
		path = paths[p]
		printf "\n%s path:\n\n| use |", path
		for (s = 1; s <= ns; s++) printf " %s |", sizes[s]
		printf "\n|---|"
		for (s = 1; s <= ns; s++) printf "---:|"
		printf "\n"
		below = ""
		for (c = 1; c <= nc[path]; c++) {
			call = calls[path, c]
			printf "| %s |", call
			for (s = 1; s <= ns; s++) {
				size = sizes[s]
				if (!((path, call, size) in r)) { printf " |"; continue }
				m = median(r[path, call, size])
				printf " %.2f |", m
				if (m < 0.97) below = below sprintf("  %s, %s: %.2f (lowest process %.2f)\n", call, size, m, low[path, call, size])
			}
			printf "\n"
		}
		printf "\nbelow 0.97 on the %s path:\n%s", path, below == "" ? "  none\n" : below
	}
}' "$out"
