#!/bin/bash
# mutate.sh [MUTANTS_FILE] [ID_REGEX] - mutation testing of the Go glue.
#
# Applies the single-line mutants of MUTANTS_FILE (default
# scripts/mutants.txt, which documents its format) one at a time, builds the
# test binary, runs the mutant's tests with -short and a time limit, restores
# the file, and prints KILLED or SURVIVED for each. ID_REGEX (an extended
# regular expression on the mutant ids) picks some of them.
#
# Exit status: 0 when every mutant marked "kill" was killed; 1 when one
# survived (or one marked "equiv" was killed: the mark is wrong); 2 when the
# unmutated tree fails its tests, or a mutant does not apply or build (its
# line changed: update the file).
#
# Where: by default the script works on a copy of the module in a temporary
# folder, so that nobody running tests in the working tree meanwhile sees a
# mutant, and the tree cannot be left mutated. MUTATE_IN_PLACE=1 mutates the
# working tree itself: each file is copied aside first and copied back after
# its mutant, and on any exit (a trap), interrupted or not.
#
# The tests that draw random inputs or pieces draw them from one seed,
# BLAKE3_TEST_SEED (default 1), so that a mutant is killed or not the same
# way on every run: with a fresh seed each time, a mutant that only some
# draws reach was killed on one CI run and survived the next. A fixed seed
# can also hide such a weak kill: now and then run the mutants with other
# seeds (BLAKE3_TEST_SEED=2 scripts/mutate.sh), and give a mutant that one
# of them lets survive a test that reaches its case without drawing. What
# a seed does not fix still varies: the garbage collector's timing (F18),
# the scheduler (the concurrency and slot tests), the dispatch's timings.
#
# The tests run with BLAKE3_BACKEND=native (MUTATE_BACKEND overrides), so
# that a mutant that makes the loader refuse the library fails at init
# instead of passing quietly on the Go path. Per-mutant time limit:
# MUTATE_TIMEOUT seconds (default 300); a mutant that hangs counts as
# killed. MUTATE_RUN overrides every mutant's test selection (e.g. "." to run
# all tests for each). The tests are the root package's, or those of the
# package a mutant names with "pkg:".
#
# Workers: after one baseline run of every test set, MUTATE_JOBS workers
# (default: the number of CPUs, at most 4), each with its own copy of the
# module, take every MUTATE_JOBS-th mutant; the table is printed in the
# file's order once all are done. A mutant costs a compile and link of its
# test binary (about 2 s, one core) and its tests (about 4 s, one to two
# cores), so two workers on 2 cores save about a fifth, not half: 29
# mutants took 187 s with one worker, 154 s with two, 161 s with three. A
# mutant marked "equiv" that a worker kills is run again alone before it
# counts as killed, and the table says when it then survived (a test that
# fails only beside another worker's); one to be killed that survives
# beside another worker is run again alone too (a test that catches a race
# only on a quiet machine). MUTATE_JOBS=1 runs one mutant after
# another and prints each row as it is done.
#
# Pruned test files: the root package's tests are most of what a mutant's
# build compiles (about 1.4 s of 1.9 on this project's 2-core machines,
# 2026-12-06), and a mutant runs a few of them. So each test binary is
# built with an overlay (go build -overlay) that leaves out of the
# package's _test.go files the functions its mutant's tests cannot reach
# (scripts/testprune says what it keeps). On 40 mutants, two workers, two
# rounds: 65 and 88 s pruned against 109 and 123 s whole. Mutants never
# change a _test.go file (apply refuses one), so one overlay serves every
# mutant of a test set. A build that fails with the overlay is done again
# without it, and the mutant's row says so; a mutant whose tests pass is
# built whole too before it survives. The verdicts are a whole build's,
# but for a mutant that fails its tests and also breaks the compile of a
# test it does not run: killed here, NOBUILD whole (runtests).
# MUTATE_PRUNE=0 builds every binary whole.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MUTANTS=$(cd "$(dirname "${1:-$ROOT/scripts/mutants.txt}")" && pwd)/$(basename "${1:-mutants.txt}")
PICK=${2:-.}
TIMEOUT=${MUTATE_TIMEOUT:-300}
BACKEND=${MUTATE_BACKEND:-native}
export BLAKE3_TEST_SEED=${BLAKE3_TEST_SEED:-1}
[ -f "$MUTANTS" ] || { echo "mutate.sh: no mutants file $MUTANTS" >&2; exit 2; }

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/blake3-mutate.XXXXXX")
if [ "${MUTATE_IN_PLACE:-0}" = 1 ]; then
	WORK=$ROOT
else
	WORK=$SCRATCH/module
	mkdir -p "$WORK"
	# The module without its git folder and the Rust build outputs.
	(cd "$ROOT" && tar --exclude=./.git --exclude=./rust/target -cf - .) | (cd "$WORK" && tar -xf -)
fi

# save PLACE keeps a copy of the file, or the package folder's files, a
# mutant may change; restore puts them back.
CURRENT=""
save() {
	CURRENT=$1
	rm -rf "$SCRATCH/original"
	mkdir -p "$SCRATCH/original"
	if [ -d "$WORK/$1" ]; then
		cp -p "$WORK/$1"/*.go "$WORK/$1"/*.s "$SCRATCH/original/" 2>/dev/null || true
	else
		cp -p "$WORK/$1" "$SCRATCH/original/"
	fi
}
restore() {
	if [ -n "$CURRENT" ]; then
		if [ -d "$WORK/$CURRENT" ]; then
			cp -p "$SCRATCH/original"/* "$WORK/$CURRENT/"
		else
			cp -p "$SCRATCH/original"/* "$(dirname "$WORK/$CURRENT")/"
		fi
		CURRENT=""
	fi
}
WORKERS=()
cleanup() {
	# Workers started in the background ignore SIGINT (bash starts a
	# script's background jobs so), and each is the leader of its own
	# process group (setsid): stop each group, its tests with it.
	local w
	for w in "${WORKERS[@]}"; do
		kill -TERM -- "-$w" 2>/dev/null || kill -TERM "$w" 2>/dev/null || true
	done
	[ "${#WORKERS[@]}" = 0 ] || wait "${WORKERS[@]}" 2>/dev/null || true
	restore
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# mutant_ids prints the ids in the file, in order.
mutant_ids() { cut -f1 "$SCRATCH/fields.tsv"; }

# The python interpreter itself, not a version manager's shim that may
# stand for it on PATH (each start of a shim costs a fraction of a second).
PY=$(python3 -c 'import sys; print(sys.executable)')

# fields prints each mutant's fields once, tab-separated, one mutant a
# line: id, file, expect, nth, pkg, run, why; field ID NAME prints one.
"$PY" - "$MUTANTS" >"$SCRATCH/fields.tsv" <<'PY'
import re, sys
rows, cur = [], None
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    m = re.match(r"^== (\S+) (\S+) (kill|equiv)(?: nth=(\d+))?\s*$", line)
    if m:
        if any(r["id"] == m.group(1) for r in rows):
            # apply would take the last block of the id for every run of it.
            sys.exit("mutate.sh: mutant id %s is used twice in %s" % (m.group(1), sys.argv[1]))
        cur = {"id": m.group(1), "file": m.group(2), "expect": m.group(3), "nth": m.group(4) or "0", "pkg": "."}
        rows.append(cur)
        continue
    if cur is None:
        continue
    for key, prefix in (("pkg", "pkg: "), ("run", "run: "), ("why", "why: ")):
        if line.startswith(prefix):
            cur[key] = line[len(prefix):].strip().replace("\t", " ")
for r in rows:
    print("\t".join(r.get(k, "") for k in ("id", "file", "expect", "nth", "pkg", "run", "why")))
PY
field() {
	awk -F '\t' -v id="$1" -v name="$2" '
		BEGIN { split("id file expect nth pkg run why", names, " "); for (i in names) col[names[i]] = i }
		$1 == id { print $col[name]; exit }' "$SCRATCH/fields.tsv"
}

# apply ID mutates its line in $WORK, where a mutant names it by its text
# (and, with "in:", the function it is in) within a package folder or a
# file, so that code moving between the files of a package moves its
# mutants along. It prints FILE:LINE, or fails with a message when the line
# is not there exactly once (or at nth).
apply() {
	"$PY" - "$MUTANTS" "$1" "$WORK" <<'PY'
import glob, os, re, sys
path, want, work = sys.argv[1:]
cur, where, nth, func, old, new = None, None, 0, None, None, None
for line in open(path, encoding="utf-8"):
    line = line.rstrip("\n")
    m = re.match(r"^== (\S+) (\S+) (kill|equiv)(?: nth=(\d+))?\s*$", line)
    if m:
        cur = m.group(1)
        if cur == want:
            where, nth = m.group(2), int(m.group(4) or 0)
        continue
    if cur != want:
        continue
    if line.startswith("in: "):
        func = line[4:].strip()
    if line.startswith("- "):
        old = line[2:].strip()
    if line.startswith("+ "):
        new = line[2:].strip()
if not (where and old and new is not None):
    sys.exit("mutant %s: incomplete (needs a place, a - line and a + line)" % want)
target = os.path.join(work, where)
if where.endswith("_test.go"):
    # A test's mutant would test the tests, and testprune's overlay,
    # made from the unmutated tests, would hide it.
    sys.exit("mutant %s: %s is a test file; mutants change the code under test" % (want, where))
if os.path.isdir(target):
    files = sorted(f for f in glob.glob(target + "/*.go") + glob.glob(target + "/*.s") if not f.endswith("_test.go"))
else:
    files = [target]

def scope(lines, f):
    """The line numbers of function func in a file (all lines without func)."""
    if not func:
        return range(len(lines))
    if f.endswith(".s"):
        start = [i for i, l in enumerate(lines) if re.match(r"^TEXT\s+\S*" + re.escape(func) + r"\b", l)]
        stop = lambda l: l.startswith("TEXT ")
    else:
        start = [i for i, l in enumerate(lines) if re.match(r"^func (\([^)]*\) )?" + re.escape(func) + r"[\[(]", l)]
        stop = lambda l: l == "}"
    out = []
    for s in start:
        e = s + 1
        while e < len(lines) and not stop(lines[e]):
            e += 1
        out.extend(range(s, min(e + 1, len(lines))))
    return out

hits = []
for f in files:
    lines = open(f, encoding="utf-8").read().split("\n")
    hits += [(f, lines, i) for i in scope(lines, f) if lines[i].strip() == old]
what = "%s%s" % (where, " in " + func if func else "")
if nth:
    if len(hits) < nth:
        sys.exit("mutant %s: %s has %d line(s) %r, not %d" % (want, what, len(hits), old, nth))
    f, lines, i = hits[nth - 1]
elif len(hits) != 1:
    sys.exit("mutant %s: %s has %d lines %r, want exactly 1 (use in: or nth=)" % (want, what, len(hits), old))
else:
    f, lines, i = hits[0]
indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
lines[i] = indent + new
open(f, "w", encoding="utf-8").write("\n".join(lines))
print("%s:%d" % (os.path.relpath(f, work), i + 1))
PY
}

# overlay PKG REGEX prints the path of a go build overlay that leaves out
# of PKG's test files what the tests matching REGEX cannot reach
# (scripts/testprune, made once a worker for each set of tests). It prints
# nothing where MUTATE_PRUNE=0, or where testprune failed for the set
# (its message is in the folder's "err", which runtests copies to the
# mutant's log).
prunedir() { echo "$SCRATCH/prune/$(printf '%s\n%s' "$1" "$2" | sha256sum | cut -c1-32)"; }
overlay() {
	[ -n "${MUTATE_PRUNER:-}" ] || return 0
	local dir
	dir=$(prunedir "$1" "$2")
	if [ ! -f "$dir/overlay.json" ] && [ ! -f "$dir/err" ]; then
		mkdir -p "$dir"
		"$MUTATE_PRUNER" -run "$2" -out "$dir" "$WORK/$1" >/dev/null 2>"$dir/stderr" || mv "$dir/stderr" "$dir/err"
	fi
	[ ! -f "$dir/overlay.json" ] || echo "$dir/overlay.json"
}

# The line a mutant's log has where its binary was built whole though
# testprune should have pruned it: the mutant's row, and the summary, say
# so (a fault of testprune, which costs time, not a verdict).
NOPRUNE="mutate.sh: built without testprune's overlay"

# runtests PKG REGEX LOG builds the test binary of package folder PKG in
# $WORK and runs its tests matching REGEX, in that folder; its status is 0
# (pass), 1 (fail), 3 (does not build), 124 (timed out).
#
# The binary is built with the overlay of the set (above). A build that
# fails with it is done again whole, so that a fault of testprune costs
# time, never a verdict. Where the tests pass, the package and all its
# tests are built whole too before the pass counts: a mutant that breaks
# the compile of a test it does not run is one that does not build (3),
# as without the overlay, not one that survives. Where its tests fail, it
# is killed, whether or not the tests it does not run would compile: the
# one verdict that differs from a whole build's (NOBUILD), for a mutant
# that both fails its tests and breaks another test's compile.
runtests() {
	local pkg=$1 run=$2 log=$3 bin=$SCRATCH/blake3.test ov
	rm -f "$bin"
	ov=$(overlay "$pkg" "$run")
	if [ -z "$ov" ] && [ -n "${MUTATE_PRUNER:-}" ]; then
		echo "$NOPRUNE: testprune failed: $(head -n 3 "$(prunedir "$pkg" "$run")/err" | tr '\n' ' ')" >"$log"
	else
		: >"$log"
	fi
	# build [OVERLAY] builds the binary, with OVERLAY if given. Without
	# DWARF (-w) the link takes a third of the time; no test reads the
	# test binary's debug information.
	build() { (cd "$WORK" && go test -vet=off -ldflags=-w ${1:+-overlay "$1"} -c -o "$bin" "./$pkg"); }
	if [ -n "$ov" ] && build "$ov" >"$log.build" 2>&1; then
		cat "$log.build" >>"$log"
	else
		[ -z "$ov" ] || mv "$log.build" "$log.pruned"
		if ! build >"$log.build" 2>&1; then
			cat "$log.build" >>"$log" # the mutant's fault, not testprune's
			return 3
		fi
		if [ -n "$ov" ]; then
			{
				echo "$NOPRUNE: the build with it failed:"
				head -n 10 "$log.pruned"
			} >>"$log"
			ov=""
		fi
		cat "$log.build" >>"$log"
	fi
	local rc=0
	# -test.failfast: a killed mutant's tests stop at the first failure
	# (on 40 mutants, 275 s instead of 302).
	(cd "$WORK/$pkg" && BLAKE3_BACKEND=$BACKEND timeout -k 10 "$TIMEOUT" "$bin" \
		-test.short -test.count=1 -test.failfast -test.run "$run") >>"$log" 2>&1 || rc=$?
	case $rc in
	0)
		if [ -n "$ov" ] && ! build >>"$log" 2>&1; then
			return 3
		fi
		return 0
		;;
	124 | 137) return 124 ;;
	*) return 1 ;;
	esac
}

ids=$(mutant_ids | grep -E -- "$PICK" || true)
[ -n "$ids" ] || { echo "mutate.sh: no mutant id matches '$PICK'" >&2; exit 2; }

# run_one ID applies mutant ID in $WORK, runs its tests, restores the file,
# and writes its row of the table (and, for a kill, which test noticed) to
# $BLOCKS/ID. Its line's fields: id, place, expect, result, time, why.
run_one() {
	local id=$1 file expect run pkg why line rc secs start result
	file=$(field "$id" file)
	expect=$(field "$id" expect)
	run=${MUTATE_RUN:-$(field "$id" run)}
	pkg=$(field "$id" pkg)
	why=$(field "$id" why)
	save "$file"
	if ! line=$(apply "$id" 2>"$SCRATCH/apply.err"); then
		restore
		printf '%-4s %-20s %-6s %-9s %5s  %s\n' "$id" "$file" "$expect" NOAPPLY - "$(cat "$SCRATCH/apply.err")" >"$BLOCKS/$id"
		return
	fi
	start=$(date +%s)
	rc=0
	runtests "$pkg" "$run" "$SCRATCH/$id.log" || rc=$?
	secs=$(($(date +%s) - start))
	restore
	case $rc in
	0) result=SURVIVED ;;
	1) result=KILLED ;;
	124) result=KILLED/TO ;;
	3) result=NOBUILD ;;
	esac
	{
		printf '%-4s %-20s %-6s %-9s %4ss  %s\n' "$id" "$line" "$expect" "$result" "$secs" "$why"
		if grep -qF "$NOPRUNE" "$SCRATCH/$id.log"; then
			echo "       ($(grep -m 1 -F "$NOPRUNE" "$SCRATCH/$id.log" | sed 's/^mutate.sh: //; s/:$//'); a fault of scripts/testprune, a cost of time)"
		fi
		case $result in
		NOBUILD) sed -n '1,10p' "$SCRATCH/$id.log" | sed 's/^/       /' ;;
		KILLED*)
			if [ "$expect" = kill ]; then
				# Which test noticed, for the record.
				grep -m 3 -E -- '^\s*--- FAIL|^panic:|^fatal error' "$SCRATCH/$id.log" | sed 's/^ */       /' || true
			fi
			;;
		esac
	} >"$BLOCKS/$id"
}

# result ID prints the result field of mutant ID's row.
result() { awk 'NR == 1 { print $4 }' "$BLOCKS/$1"; }

if [ -n "${MUTATE_SHARD:-}" ]; then
	# A worker (started below): every MUTATE_JOBS-th mutant from number
	# MUTATE_SHARD, rows to the parent's MUTATE_BLOCKS.
	BLOCKS=$MUTATE_BLOCKS
	n=0
	for id in $ids; do
		if [ $((n % MUTATE_JOBS)) = "$MUTATE_SHARD" ]; then
			run_one "$id"
		fi
		n=$((n + 1))
	done
	exit 0
fi

JOBS=${MUTATE_JOBS:-$(nproc)}
[ "$JOBS" -le 4 ] || JOBS=4
unset MUTATE_PRUNER
if [ "${MUTATE_PRUNE:-1}" != 0 ]; then
	if (cd "$ROOT" && go build -o "$SCRATCH/testprune" ./scripts/testprune); then
		export MUTATE_PRUNER=$SCRATCH/testprune
	else
		echo "mutate.sh: scripts/testprune does not build: every test binary is built whole (slower; see Pruned test files above)"
	fi
fi
BLOCKS=$SCRATCH/blocks
mkdir -p "$BLOCKS"
echo "mutate.sh: $(echo "$ids" | wc -l | tr -d ' ') mutants from $MUTANTS; working in $WORK; BLAKE3_BACKEND=$BACKEND; BLAKE3_TEST_SEED=$BLAKE3_TEST_SEED; ${TIMEOUT}s each; $JOBS worker(s)"

# The unmutated tree must pass every test the mutants use, in its package:
# in one run a package, of the union of their test sets. A run of each set
# took 73 s for the 22 sets of 40 mutants (there are 66 in all); the union
# of the root package's sets, 19 s.
sets=$(for id in $ids; do printf '%s\t%s\n' "$(field "$id" pkg)" "${MUTATE_RUN:-$(field "$id" run)}"; done | sort -u |
	awk -F '\t' '{ if (!($1 in runs)) { order[++n] = $1; runs[$1] = $2 } else if (runs[$1] != "" && $2 != "") runs[$1] = runs[$1] "|" $2; else runs[$1] = "" }
		END { for (i = 1; i <= n; i++) printf "%s\t%s\n", order[i], runs[order[i]] }')
while IFS=$'\t' read -r pkg run; do
	start=$(date +%s)
	if ! runtests "$pkg" "$run" "$SCRATCH/baseline.log"; then
		echo "mutate.sh: the unmutated tree fails -run '$run' in $pkg:" >&2
		tail -n 30 "$SCRATCH/baseline.log" >&2
		exit 2
	fi
	echo "baseline ok: $pkg, the union of its mutants' test sets ($(($(date +%s) - start))s)"
done <<<"$sets"

printf '\n%-4s %-20s %-6s %-9s %5s  %s\n' ID WHERE EXPECT RESULT TIME WHAT
if [ "$JOBS" = 1 ]; then
	for id in $ids; do
		run_one "$id"
		cat "$BLOCKS/$id"
	done
else
	# Each worker works on its own copy of the module (the script's
	# default), so it is started without MUTATE_IN_PLACE.
	pids=()
	setsid=
	if command -v setsid >/dev/null; then
		setsid="setsid -w"
	fi
	for ((w = 0; w < JOBS; w++)); do
		MUTATE_IN_PLACE=0 MUTATE_SHARD=$w MUTATE_JOBS=$JOBS MUTATE_BLOCKS=$BLOCKS \
			$setsid "$0" "$MUTANTS" "$PICK" >"$SCRATCH/worker$w.log" 2>&1 &
		pids+=($!)
		WORKERS+=($!)
	done
	# A line a minute while the workers run, so that a long run shows it
	# is alive.
	total=$(echo "$ids" | wc -l | tr -d ' ')
	ticks=0
	while [ -n "$(jobs -rp)" ]; do
		sleep 5
		ticks=$((ticks + 1))
		if [ $((ticks % 12)) = 0 ]; then
			echo "mutate.sh: $(find "$BLOCKS" -type f | wc -l | tr -d ' ') of $total mutants done"
		fi
	done
	for ((w = 0; w < JOBS; w++)); do
		if ! wait "${pids[$w]}"; then
			echo "mutate.sh: worker $w failed:" >&2
			tail -n 30 "$SCRATCH/worker$w.log" >&2
			exit 2
		fi
	done
	WORKERS=() # all waited for: their numbers may be reused
	for id in $ids; do
		[ -f "$BLOCKS/$id" ] || { echo "mutate.sh: no result for $id" >&2; exit 2; }
		# An equivalent mutant killed while another worker ran: once
		# more alone, where its tests ran before workers.
		if [ "$(field "$id" expect)" = equiv ] && [ "$(result "$id")" != SURVIVED ] &&
			[ "$(result "$id")" != NOBUILD ] && [ "$(result "$id")" != NOAPPLY ]; then
			first=$(head -n 1 "$BLOCKS/$id")
			run_one "$id"
			if [ "$(result "$id")" = SURVIVED ]; then
				echo "       (killed beside another worker, survived alone: a test flaky under load; first run: $first)" >>"$BLOCKS/$id"
			fi
		fi
		# And one to be killed that survived there: a test that catches
		# a race only on a quiet machine (AH16 survived once so).
		if [ "$(field "$id" expect)" = kill ] && [ "$(result "$id")" = SURVIVED ]; then
			first=$(head -n 1 "$BLOCKS/$id")
			run_one "$id"
			if [ "$(result "$id")" != SURVIVED ]; then
				echo "       (survived beside another worker, killed alone: its test needs a quiet machine; first run: $first)" >>"$BLOCKS/$id"
			fi
		fi
		cat "$BLOCKS/$id"
	done
fi

bad=0 broken=0 killed=0 survived=0 equiv=0
for id in $ids; do
	expect=$(field "$id" expect)
	case $(result "$id") in
	NOBUILD | NOAPPLY) broken=$((broken + 1)) ;;
	SURVIVED)
		if [ "$expect" = equiv ]; then
			equiv=$((equiv + 1))
		else
			survived=$((survived + 1))
			bad=1
		fi
		;;
	KILLED*)
		killed=$((killed + 1))
		if [ "$expect" = equiv ]; then
			echo "mutate.sh: $id is marked equivalent, yet killed: the mark is wrong, or a test depends on more than the output"
			bad=1
		fi
		;;
	esac
done

echo
echo "mutate.sh: $killed killed, $survived survived, $equiv equivalent (survived as expected), $broken did not apply or build"
noprune=$(for id in $ids; do grep -lF "$NOPRUNE" "$BLOCKS/$id" || true; done | wc -l | tr -d ' ')
if [ "$noprune" != 0 ]; then
	echo "mutate.sh: $noprune mutants built without testprune's overlay (their rows say why): a fault of scripts/testprune"
fi
if [ "$broken" -gt 0 ]; then
	exit 2
fi
exit "$bad"
