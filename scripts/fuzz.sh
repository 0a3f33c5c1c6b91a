#!/bin/sh
# fuzz.sh [TIME] [PATTERN] - run each fuzz target of the package in turn.
#
#   scripts/fuzz.sh            1m per target (the default)
#   scripts/fuzz.sh 10s        a short round, for CI
#   scripts/fuzz.sh 30m Seek   30 minutes for each target matching "Seek"
#
# The targets are those `go test -list 'Fuzz.*' .` prints (PATTERN, an
# extended regular expression, narrows them). go test -fuzz accepts one
# target per run, so they run one after the other, each for TIME (a
# duration, or Nx for N inputs) with -parallel 2 (FUZZ_PARALLEL overrides).
# Minimization of a new input is capped at FUZZ_MINIMIZE (default 50x:
# inputs that repeat their data make it slow otherwise).
#
# A failing input is kept where go test puts it, testdata/fuzz/TARGET/HASH,
# and replays as part of the ordinary `go test .` from then on; this script
# prints its path and the failure, and exits 1 if any target failed. Each
# target's full output is in $FUZZ_LOGS (default a temporary folder). A run
# that fails with only Go's "context deadline exceeded" at the end of TIME,
# and no failing input, is run once more (see the loop).
#
# Environment: whatever the tests read (BLAKE3_BACKEND, BLAKE3_STRICT, ...).
set -eu

TIME=${1:-1m}
PATTERN=${2:-.}
PARALLEL=${FUZZ_PARALLEL:-2}
MINIMIZE=${FUZZ_MINIMIZE:-50x}

cd "$(dirname "$0")/.."
LOGS=${FUZZ_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/blake3-fuzz.XXXXXX")}
mkdir -p "$LOGS"

targets=$(go test -list 'Fuzz.*' . | grep '^Fuzz' | grep -E -- "$PATTERN" || true)
if [ -z "$targets" ]; then
	echo "fuzz.sh: no fuzz target matches '$PATTERN'" >&2
	exit 2
fi
echo "fuzz.sh: $(echo "$targets" | wc -l | tr -d ' ') target(s), $TIME each, -parallel $PARALLEL; logs in $LOGS"

# fuzz_one TARGET LOG - fuzzes TARGET for TIME into LOG; prints PASS or FAIL.
fuzz_one() {
	if go test -run '^$' -fuzz "^$1\$" -fuzztime "$TIME" -fuzzminimizetime "$MINIMIZE" \
		-parallel "$PARALLEL" . >"$2" 2>&1; then
		echo PASS
	else
		echo FAIL
	fi
}

failed=""
for t in $targets; do
	log="$LOGS/$t.log"
	before=$(ls "testdata/fuzz/$t" 2>/dev/null | sort || true)
	start=$(date +%s)
	status=$(fuzz_one "$t" "$log")
	# Go before 1.27 can fail a run that found nothing with a bare "context
	# deadline exceeded" as -fuzztime expires (a race in its coordinator,
	# go.dev/issue/75804). A real finding writes an input and a test
	# failure; without either, the target runs once more, visibly.
	if [ "$status" = FAIL ] && grep -q 'context deadline exceeded' "$log" &&
		! grep -qE 'Failing input|panic:|_test\.go:[0-9]+:' "$log" &&
		[ "$(ls "testdata/fuzz/$t" 2>/dev/null | sort || true)" = "$before" ]; then
		echo "$t: context deadline exceeded at the -fuzztime boundary, no failing input (go.dev/issue/75804): running it once more"
		mv "$log" "$log.first"
		status=$(fuzz_one "$t" "$log")
	fi
	secs=$(($(date +%s) - start))
	# The last progress line: "fuzz: elapsed: 10s, execs: 1234 (123/sec), new interesting: 5 (total: 20)".
	progress=$(grep '^fuzz: elapsed' "$log" | tail -n 1 | sed 's/^fuzz: //' || true)
	printf '%-24s %s  %4ss  %s\n' "$t" "$status" "$secs" "$progress"
	if [ "$status" = FAIL ]; then
		failed="$failed $t"
		after=$(ls "testdata/fuzz/$t" 2>/dev/null | sort || true)
		new=$(printf '%s\n' "$after" | grep -vxF -e "$before" -e '' || true)
		[ -n "$before" ] || new=$after
		for f in $new; do
			echo "    failing input kept: testdata/fuzz/$t/$f (replay: go test -run '^$t/$f\$' .)"
		done
		grep -E -- '--- FAIL|panic:|_test\.go:[0-9]+:|Failing input' "$log" | head -n 15 | sed 's/^/    /'
		echo "    full output: $log"
	fi
done

if [ -n "$failed" ]; then
	echo "fuzz.sh: FAILED:$failed"
	exit 1
fi
echo "fuzz.sh: all targets passed"
