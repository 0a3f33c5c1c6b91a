#!/usr/bin/env bash
# dispatch-check.sh [PROCESSES]: measures, on this machine, zeebo,
# lukechampine, the native library through one crossing, and this package's
# Sum256 side by side, on one thread (TestDispatchTable: in each process,
# 301 batches of calls over about 100 KB of input at each size, the four
# in a new random order in each batch), in PROCESSES processes (default 5),
# each of which measures its own plan (dispatch.go). It prints the plans
# of each process's first snapshot ("first plan"), of its second, about a
# second later, with which the timing starts ("plan"), and the plan when
# the timing ended, if another ("last plan": snapshots at 4, 16 and 64 s),
# then for each size from 0 B to 64 KiB, and at 1 and 16 MiB, the median
# over the processes of each one's median time; the median over the
# processes of the ratio of this package's speed to the fastest Go
# package's and to the fastest of all three, each process's ratio taken
# from its own times (1.00 = as fast; above, faster); and the lowest ratio
# to the fastest of all that one process measured (its plan's worst). Then
# the same table for the Go path, forced in the same processes
# (TestDispatchTableGo: its own plan, and zeebo or lukechampine's tree
# above 4 KiB), against zeebo and lukechampine; and again with every thread
# of the process on one core (taskset), where lukechampine's goroutines,
# which hash on every core from 32 KiB, share it.
# Then the spread of 30 plans measured in one process (TestPlanSpread).
# Then, from 64 B to 64 KiB, where the native path's time goes
# (TestCrossingCost, needs a C compiler): the library looped in C inside
# the test process, against one crossing per call and Sum256. Last, a 16 MiB stream in 64-byte pieces taken apart
# (TestStreamParts): the stream against the one-shot, the copy of the
# pieces and the hashing of the batches alone, and zeebo's own gap.
# It prints; it never fails on a timing (CI runs it for the record).
set -euo pipefail
cd "$(dirname "$0")/.."
procs=${1:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -c -o "$out.test" . >/dev/null
trap 'rm -f "$out" "$out.test"' EXIT
for r in $(seq "$procs"); do
	BLAKE3_MEASURE_DISPATCH=1 "$out.test" -test.run '^TestDispatchTable(Go)?$' -test.count 1 -test.v >>"$out" 2>&1 || { cat "$out" >&2; exit 1; }
done
grep -o '^first plan: .*' "$out" | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1x /' | grep . || true
grep -o '^plan: .*' "$out" | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1x /' | grep . || grep -m1 -A1 -e '--- SKIP' "$out" || echo "plan: (not reported)"
# The last plan of each process whose plan changed while it timed.
awk '/^plan: /{p=substr($0,7)} /^last plan: /{if (substr($0,12) != p) print "changed while timing, " $0}' "$out"
echo "machine: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(go env GOOS)/$(go env GOARCH); one thread; $procs processes, medians"
# table PREFIX makes the table of the lines "PREFIX: size=...": without a
# native column where the lines have none (the Go path's).
table() { awk -v prefix="$1" '
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function bytes(s) { return s ~ /MiB$/ ? substr(s, 1, length(s) - 3) * 1048576 : s ~ /KiB$/ ? substr(s, 1, length(s) - 3) * 1024 : substr(s, 1, length(s) - 1) + 0 }
$1 == prefix ":" && $2 ~ /^size=/ {
	size = substr($2, 6); sizes[size] = bytes(size)
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2]; t[size, kv[1]] = t[size, kv[1]] " " kv[2] }
	if ("native" in v) has_native = 1
	g = v["zeebo"] + 0 < v["lukechampine"] + 0 ? v["zeebo"] : v["lukechampine"]
	f = !("native" in v) || g + 0 < v["native"] + 0 ? g : v["native"]
	r = f / v["auto"]
	rg[size] = rg[size] " " g / v["auto"]; rall[size] = rall[size] " " r
	if (!(size in low) || r < low[size]) low[size] = r
}
END {
	n = 0
	for (s in sizes) order[++n] = s
	if (n == 0) { print "(no times printed as " prefix ")"; exit }
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (sizes[order[j]] < sizes[order[i]]) { x = order[i]; order[i] = order[j]; order[j] = x }
	if (has_native) {
		printf "| size | zeebo ns | lukechampine ns | native ns | this package ns | vs fastest Go | vs fastest of all | lowest of one process |\n"
		printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
	} else {
		printf "| size | zeebo ns | lukechampine ns | this package ns | vs fastest Go | lowest of one process |\n"
		printf "|---|---:|---:|---:|---:|---:|\n"
	}
	for (i = 1; i <= n; i++) {
		s = order[i]
		z = median(t[s, "zeebo"]); l = median(t[s, "lukechampine"]); nt = median(t[s, "native"]); a = median(t[s, "auto"])
		if (has_native)
			printf "| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f |\n", s, z, l, nt, a, median(rg[s]), median(rall[s]), low[s]
		else
			printf "| %s | %.0f | %.0f | %.0f | %.2f | %.2f |\n", s, z, l, a, median(rg[s]), low[s]
	}
}' "$out"; }
table dispatch
echo
echo "The Go path (BLAKE3_BACKEND=go, forced in the same processes): this package's Sum256 against the Go packages"
grep -o '^first plan-go: .*' "$out" | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1x /' | grep . || true
grep -o '^plan-go: .*' "$out" | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1x /' | grep . || echo "plan-go: (not reported)"
awk '/^plan-go: /{p=substr($0,10)} /^last plan-go: /{if (substr($0,15) != p) print "changed while timing, " $0}' "$out"
table dispatch-go
# The same on one core (the target's "one core"): lukechampine's goroutines,
# which use every core from 32 KiB, share it with everything else.
echo
if command -v taskset >/dev/null 2>&1; then
	echo "The Go path on one core (taskset -c 0; lukechampine's goroutines share it): $procs processes, medians"
	: >"$out"
	for r in $(seq "$procs"); do
		BLAKE3_MEASURE_DISPATCH=1 taskset -c 0 "$out.test" -test.run '^TestDispatchTableGo$' -test.count 1 -test.v >>"$out" 2>&1 || { cat "$out" >&2; exit 1; }
	done
	table dispatch-go
else
	echo "(taskset not found: no table of the Go path on one core)"
fi
echo
echo "The plan measured 30 times in one process, as each process measures its first snapshot at its first use: how far apart two processes' first plans can be"
BLAKE3_MEASURE_PLAN=1 "$out.test" -test.run '^TestPlanSpread$' -test.count 1 -test.v >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
grep -E '^\|' "$out" || grep -m1 -A1 -e '--- SKIP' "$out" || echo "(TestPlanSpread printed no table)"
echo
echo "The crossing: the library looped in C in this process, through one crossing per call, and Sum256 on one thread (medians of 301 interleaved batches)"
BLAKE3_MEASURE_CROSSING=1 "$out.test" -test.run '^TestCrossingCost$' -test.count 1 -test.v >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
grep -E '^\|' "$out" || grep -m1 -A1 -e '--- SKIP' "$out" || echo "(TestCrossingCost printed no table)"
echo
echo "A 16 MiB stream in 64-byte pieces, taken apart (one thread, medians of 15 interleaved rounds)"
BLAKE3_MEASURE_STREAM=1 "$out.test" -test.run '^TestStreamParts$' -test.count 1 -test.v >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
grep -E '^\|' "$out" || grep -m1 -A1 -e '--- SKIP' "$out" || echo "(TestStreamParts printed no table)"
