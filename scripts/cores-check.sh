#!/usr/bin/env bash
# cores-check.sh: this package against the blake3 crate on every core a
# machine has, from binaries built beforehand, so that the machine measured
# needs neither Go nor cargo nor a network.
#
#   scripts/cores-check.sh build DIR          build what run needs into DIR
#   scripts/cores-check.sh run DIR [OUTDIR]   measure (report in OUTDIR,
#                                             default DIR/report)
#
# build needs Go, cargo and rust/vendor (rust/build.sh fetch), and for the
# reference b3sum what scripts/install-b3sum.sh needs. DIR gets:
#   blake3.test   the root package's test binary (CGO_ENABLED=0; it embeds
#                 the library): BenchmarkCores (cores_bench_test.go)
#   b3sum         cmd/b3sum (CGO_ENABLED=0)
#   rust-bench    rust/examples/bench.rs, linked statically (any glibc)
#   b3sum-rust    the reference b3sum 1.8.1 (Debian's: glibc 2.34 or later;
#                 lib/libgcc_s.so.1 is used if the machine has none)
#   manifest.txt  what they were built from
# Cargo builds in $CORES_TARGET (default /tmp/cores-target), never in
# rust/target.
#
# run, on however many cores the machine has (GOMAXPROCS and
# RAYON_NUM_THREADS unset, so both sides take all of them):
#   (a) one-shot hashes of 256 KiB to 256 MiB: Sum256 on all cores (auto)
#       and capped at one (auto-1core), and the crate in-process,
#       blake3::hash (rust-1core) and update_rayon on all cores (rust-rayon);
#   (b) a thread sweep at 16 MiB and 256 MiB: SetMaxThreads 1, 2, 4, 8, ...,
#       all, against update_rayon with RAYON_NUM_THREADS the same (each count
#       in its own process: the global pool is sized once);
#   (c) files of 1 GiB and 4 GiB in /dev/shm (or /tmp), warm in the page
#       cache: cmd/b3sum against the reference b3sum (which maps the file),
#       both multi-threaded, runs alternated, wall time, outputs compared.
# (a) and (b) run in rounds, each the Go binary then the Rust one; the
# tables give the medians over rounds. No round starts once it would end
# past CORES_BUDGET seconds, and no file run starts past CORES_DEADLINE.
#
# Settings (environment): CORES_ROUNDS (9), CORES_BENCHTIME (seconds a cell,
# 0.3), CORES_FILE_MIB ("1024 4096"), CORES_FILE_RUNS (5), CORES_BUDGET
# (240), CORES_DEADLINE (330).
#
# OUTDIR gets report.md (the tables), machine.txt, go.txt and rust.txt (raw
# benchmark lines of every round), files.txt (every file run) and log.txt
# (all that was printed).
set -euo pipefail

say() { echo "cores-check: $*" >&2; }
die() { say "$*"; exit 1; }
usage() { die "usage: $0 build DIR | run DIR [OUTDIR]"; }

[ $# -ge 2 ] || usage
mode=$1
dir=$2
root=$(cd "$(dirname "$0")/.." && pwd -P)

# The one-shot sizes (BenchmarkCores's coresSizes) and the sweep's.
sizes="262144 524288 1048576 2097152 4194304 16777216 67108864 268435456"
sweep_sizes="16777216 268435456"

size_name() {
	awk -v n="$1" 'BEGIN {
		if (n >= 1048576 && n % 1048576 == 0) printf "%dMiB\n", n / 1048576
		else if (n >= 1024 && n % 1024 == 0) printf "%dKiB\n", n / 1024
		else printf "%dB\n", n }'
}

build() {
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	cd "$root"
	command -v go >/dev/null || die "build needs Go"
	say "go test -c (CGO_ENABLED=0) -> $dir/blake3.test"
	CGO_ENABLED=0 go test -c -trimpath -o "$dir/blake3.test" .
	say "go build ./cmd/b3sum (CGO_ENABLED=0) -> $dir/b3sum"
	CGO_ENABLED=0 go build -trimpath -o "$dir/b3sum" ./cmd/b3sum

	local target=${CORES_TARGET:-/tmp/cores-target}
	local registry=$root/rust/vendor/usr/share/cargo/registry
	rm -f "$dir/rust-bench"
	if ! command -v cargo >/dev/null; then
		say "no cargo: $dir/rust-bench left out (run will skip the Rust side)"
	elif [ ! -d "$registry" ]; then
		say "no $registry (run rust/build.sh fetch): $dir/rust-bench left out"
	else
		say "cargo build --example bench (static, target dir $target) -> $dir/rust-bench"
		# Statically linked, so that it runs on whatever glibc the machine
		# has; an explicit --target keeps RUSTFLAGS off the build scripts.
		(cd rust && RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --offline --locked \
			--example bench --target x86_64-unknown-linux-gnu --target-dir "$target" \
			--config "source.crates-io.replace-with='vendored'" \
			--config "source.vendored.directory='$registry'" >&2)
		cp "$target/x86_64-unknown-linux-gnu/release/examples/bench" "$dir/rust-bench"
	fi

	rm -f "$dir/b3sum-rust"
	if B3SUM_WORK=${B3SUM_WORK:-${TMPDIR:-/tmp}/b3ref} "$root/scripts/install-b3sum.sh" "$dir/b3sum-rust"; then
		# Debian's b3sum needs libgcc_s: ship this machine's, for a machine
		# without one (run uses it only if b3sum-rust does not start).
		local gcc_s
		gcc_s=$(ldd "$dir/b3sum-rust" 2>/dev/null | awk '$1 == "libgcc_s.so.1" { print $3 }') || true
		if [ -n "$gcc_s" ] && [ -f "$gcc_s" ]; then
			mkdir -p "$dir/lib"
			cp -L "$gcc_s" "$dir/lib/libgcc_s.so.1"
		fi
	else
		say "the reference b3sum could not be installed: run will skip its side of (c)"
	fi

	{
		echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(nproc) cores"
		echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown) ($(git status --porcelain 2>/dev/null | wc -l | tr -d ' ') paths changed in the tree)"
		echo "go: $(go version)"
		command -v cargo >/dev/null && echo "cargo: $(cargo --version); rustc: $(rustc --version)"
		local lib=libs/linux_amd64/libblake3_purego.so
		if [ -f "$lib" ]; then echo "embedded $lib: sha256 $(sha256sum "$lib" | cut -d' ' -f1)"; fi
		(cd "$dir" && for f in blake3.test b3sum rust-bench b3sum-rust lib/libgcc_s.so.1; do
			if [ -f "$f" ]; then echo "$f: $(wc -c <"$f" | tr -d ' ') bytes, sha256 $(sha256sum "$f" | cut -d' ' -f1)"; fi
		done)
	} >"$dir/manifest.txt"
	cat "$dir/manifest.txt" >&2
	rm -rf "$dir/report"
	local kib
	kib=$(du -sk "$dir" | cut -f1)
	say "$dir: $((kib / 1024)) MiB"
	[ "$kib" -lt $((48 * 1024)) ] || die "$dir is $((kib / 1024)) MiB: over the 48 MiB it may take"
}

# medians FILE...: "KEY MEDIAN_NS COUNT" for each benchmark name (less its
# -N suffix) in the go test -bench lines of FILE...
medians() {
	awk '/^BenchmarkCores\// {
		name = $1; sub(/-[0-9]+$/, "", name)
		for (i = 2; i <= NF; i++) if ($i == "ns/op") { n[name]++; v[name, n[name]] = $(i - 1) }
	}
	END {
		for (k in n) {
			m = n[k]
			for (i = 1; i <= m; i++) a[i] = v[k, i] + 0
			for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			med = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
			print k, med, m
		}
	}' "$@"
}

run() {
	[ -d "$dir" ] || die "no $dir (make it with: $0 build DIR)"
	dir=$(cd "$dir" && pwd -P)
	local out=${3:-$dir/report}
	mkdir -p "$out"
	out=$(cd "$out" && pwd -P)
	: >"$out/log.txt"
	exec > >(tee -a "$out/log.txt") 2>&1
	local tee_pid=$!

	local rounds=${CORES_ROUNDS:-9} benchtime=${CORES_BENCHTIME:-0.3}
	local budget=${CORES_BUDGET:-240} deadline=${CORES_DEADLINE:-330}
	local file_mib=${CORES_FILE_MIB:-1024 4096} file_runs=${CORES_FILE_RUNS:-5}
	unset GOMAXPROCS RAYON_NUM_THREADS
	local T=$dir/blake3.test RB=$dir/rust-bench OURS=$dir/b3sum REF=$dir/b3sum-rust
	local P
	P=$(nproc)

	# The machine.
	local model
	model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1) || true
	[ -n "$model" ] || model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -1) || true
	{
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "nproc: $P (nproc --all: $(nproc --all))"
		echo "cpu: ${model:-unknown}"
		lscpu 2>/dev/null | grep -E '^(Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)|L3 cache):' | sed 's/  */ /g' || true
		echo "avx512f: $(grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo yes || echo no); avx2: $(grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo yes || echo no)"
		if [ -r /sys/fs/cgroup/cpu.max ]; then echo "cgroup cpu.max: $(cat /sys/fs/cgroup/cpu.max)"; fi
		echo "kernel: $(uname -sr); glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown)"
		echo "memory: $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
		if [ -f "$dir/manifest.txt" ]; then sed 's/^/build: /' "$dir/manifest.txt"; fi
	} >"$out/machine.txt"

	local go_ok=0 rust_ok=0 ref_ok=0 ours_ok=0 ref_env='' p_go='' p_rust=''
	if [ -x "$T" ]; then
		if "$T" -test.run '^$' -test.bench '^BenchmarkCores$/^size=256KiB$/^impl=auto$' -test.benchtime 1x -test.v >"$out/probe.txt" 2>&1; then
			go_ok=1
			sed -n 's/^cpu: */cpu (Go): /p; s/.*backend: /backend: /p; s/.*pool below parallelMin: /the pool below 2 MiB: /p' "$out/probe.txt" | head -3 >>"$out/machine.txt" || true
			p_go=$(sed -n 's/.*GOMAXPROCS \([0-9]*\);.*/\1/p' "$out/probe.txt" | head -1) || true
		else
			say "$T does not run:"
			cat "$out/probe.txt" >&2
		fi
		rm -f "$out/probe.txt"
	else
		say "no $T: this package's side of (a) and (b) is left out"
	fi
	if [ -x "$RB" ]; then
		local probe
		if probe=$("$RB" 0 cores 1024 2>&1); then
			rust_ok=1
			p_rust=$(echo "$probe" | sed -n 's/.*impl=rust-rayon-\([0-9]*\)[[:space:]].*/\1/p')
		else
			say "$RB does not run: the Rust side of (a) and (b) is left out"
			echo "$probe" | head -3 >&2
		fi
	else
		say "no $RB: the Rust side of (a) and (b) is left out"
	fi
	if [ -x "$OURS" ] && "$OURS" --version >/dev/null 2>&1; then
		ours_ok=1
		echo "b3sum (ours): $("$OURS" --version)" >>"$out/machine.txt"
	else
		say "no working $OURS: (c) is left out"
	fi
	if [ -x "$REF" ]; then
		if "$REF" --version >/dev/null 2>&1; then
			ref_ok=1
		elif [ -f "$dir/lib/libgcc_s.so.1" ] && LD_LIBRARY_PATH=$dir/lib "$REF" --version >/dev/null 2>&1; then
			ref_ok=1 ref_env=$dir/lib
		else
			say "$REF does not run here (Debian's build needs glibc 2.34 or later and libgcc_s): its side of (c) is left out"
			"$REF" --version 2>&1 | head -3 >&2 || true
		fi
		if [ "$ref_ok" = 1 ]; then echo "b3sum (reference): $(LD_LIBRARY_PATH=${ref_env:-${LD_LIBRARY_PATH:-}} "$REF" --version)" >>"$out/machine.txt"; fi
	else
		say "no $REF: the reference side of (c) is left out"
	fi
	cat "$out/machine.txt"

	# All cores: what Go takes (GOMAXPROCS, which follows the affinity mask
	# and a cgroup's CPU limit), else what Rust does, else nproc.
	P=${p_go:-${p_rust:-$P}}
	echo "cores: $P (Go GOMAXPROCS ${p_go:-?}, Rust available_parallelism ${p_rust:-?}, nproc $(nproc))" | tee -a "$out/machine.txt"

	# The Rust sweep: 1, 2, 4, ... below P (all cores is rust-rayon).
	local sweep="" t=1
	while [ "$t" -lt "$P" ]; do
		sweep="$sweep $t"
		t=$((t * 2))
	done

	# (a) and (b), in rounds.
	: >"$out/go.txt"
	: >"$out/rust.txt"
	local r start=$SECONDS last=0 done_rounds=0
	if [ "$go_ok" = 1 ] || [ "$rust_ok" = 1 ]; then
		for r in $(seq "$rounds"); do
			if [ "$r" -gt 1 ] && [ $((SECONDS - start + last)) -gt "$budget" ]; then
				say "round $r would end past CORES_BUDGET=${budget}s: stopping after $done_rounds rounds"
				break
			fi
			local t0=$SECONDS
			say "round $r/$rounds ($((SECONDS - start))s so far)"
			if [ "$go_ok" = 1 ]; then
				"$T" -test.run '^$' -test.bench '^BenchmarkCores$' -test.benchtime "${benchtime}s" -test.count 1 >>"$out/go.txt" ||
					say "round $r: $T failed"
			fi
			if [ "$rust_ok" = 1 ]; then
				# shellcheck disable=SC2086 # the size lists split on purpose
				"$RB" "$benchtime" cores $sizes >>"$out/rust.txt" || say "round $r: $RB cores failed"
				for t in $sweep; do
					# shellcheck disable=SC2086
					RAYON_NUM_THREADS=$t "$RB" "$benchtime" rayon $sweep_sizes >>"$out/rust.txt" ||
						say "round $r: $RB rayon with RAYON_NUM_THREADS=$t failed"
				done
			fi
			last=$((SECONDS - t0))
			done_rounds=$r
		done
	fi
	say "(a) and (b): $done_rounds rounds in $((SECONDS - start))s"
	for t in $sweep; do
		local want=rust-rayon-${t}cores
		if [ "$t" = 1 ]; then want=rust-rayon-1core; fi
		if [ "$rust_ok" = 1 ] && [ "$done_rounds" -gt 0 ] && ! grep -q "impl=$want-" "$out/rust.txt"; then
			say "RAYON_NUM_THREADS=$t was not honoured: no $want rows (rows: $(grep -o 'impl=rust-rayon-[0-9]*cores*' "$out/rust.txt" | sort -u | tr '\n' ' '))"
		fi
	done

	local med=$out/.medians
	medians "$out/go.txt" "$out/rust.txt" >"$med"
	# get SIZE IMPL: the median ns/op, or nothing.
	get() { awk -v k="BenchmarkCores/size=$1/impl=$2" '$1 == k { print $2 }' "$med"; }
	gbs() { [ -n "$2" ] && awk -v b="$1" -v ns="$2" 'BEGIN { printf "%.2f", b / ns }' || printf -- '-'; }
	# ratio X Y: the throughput of X over Y's, from their ns/op.
	ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v x="$1" -v y="$2" 'BEGIN { printf "%.3f", y / x }' || printf -- '-'; }

	# (c) files.
	: >"$out/files.txt"
	local frows="" fdir="" need_kib=$((1024 * 1024)) m
	for m in $file_mib; do need_kib=$((need_kib + m * 1024)); done
	if [ "$ours_ok" = 1 ]; then
		for d in /dev/shm /tmp; do
			if [ -d "$d" ] && [ -w "$d" ] && [ "$(df -Pk "$d" | awk 'NR == 2 { print $4 }')" -gt "$need_kib" ]; then
				fdir=$(mktemp -d "$d/cores-check.XXXXXX")
				break
			fi
		done
		[ -n "$fdir" ] || say "neither /dev/shm nor /tmp has $((need_kib / 1024)) MiB free: (c) is left out"
	fi
	if [ -n "$fdir" ]; then
		# The folder's name now: fdir is local, gone when the trap runs.
		# shellcheck disable=SC2064
		trap "rm -rf '$fdir'" EXIT
		say "(c) files in $fdir"
		# 64 MiB from /dev/urandom, repeated: not zeros, and quick to make.
		head -c $((64 << 20)) /dev/urandom >"$fdir/seed"
		now() { date +%s%N; }
		# hashfile ours|ref FILE: the tool's output for FILE, in $fdir/run.out.
		hashfile() {
			if [ "$1" = ours ]; then
				"$OURS" "$2" >"$fdir/run.out"
			else
				LD_LIBRARY_PATH=${ref_env:-${LD_LIBRARY_PATH:-}} "$REF" "$2" >"$fdir/run.out"
			fi
		}
		for m in $file_mib; do
			local f=$fdir/file-${m}MiB.bin
			if ! {
				for _ in $(seq $((m / 64))); do cat "$fdir/seed"; done
				head -c $((m % 64 << 20)) "$fdir/seed"
			} >"$f"; then
				say "could not write $f: no ${m} MiB file"
				rm -f "$f"
				continue
			fi
			# One untimed run of each: the page cache, and the outputs.
			if ! hashfile ours "$f"; then
				say "$OURS failed on $f"
				rm -f "$f"
				continue
			fi
			mv "$fdir/run.out" "$fdir/ours.out"
			local eq=n/a ref_here=$ref_ok
			if [ "$ref_ok" = 1 ]; then
				if hashfile ref "$f"; then
					if cmp -s "$fdir/ours.out" "$fdir/run.out"; then eq=yes; else eq=NO; fi
					echo "${m}MiB outputs: ours $(cat "$fdir/ours.out"); reference $(cat "$fdir/run.out"); equal: $eq" >>"$out/files.txt"
				else
					say "$REF failed on $f"
					ref_here=0
				fi
			fi
			local k tool a b
			for k in $(seq "$file_runs"); do
				if [ $((SECONDS - start)) -gt "$deadline" ]; then
					say "past CORES_DEADLINE=${deadline}s: no more file runs"
					break
				fi
				for tool in ours ref; do
					if [ "$tool" = ref ] && [ "$ref_here" != 1 ]; then continue; fi
					a=$(now)
					if ! hashfile "$tool" "$f"; then
						say "$tool failed on $f (run $k)"
						eq=NO
						continue
					fi
					b=$(now)
					cmp -s "$fdir/run.out" "$fdir/ours.out" || eq=NO
					echo "${m}MiB $tool run $k: $(((b - a) / 1000)) us" >>"$out/files.txt"
				done
			done
			local o rr
			o=$(awk -v s="${m}MiB" '$1 == s && $2 == "ours" && $3 == "run" { print $5 }' "$out/files.txt" | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
			rr=$(awk -v s="${m}MiB" '$1 == s && $2 == "ref" && $3 == "run" { print $5 }' "$out/files.txt" | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
			local bytes=$((m << 20))
			frows="$frows| $(size_name "$bytes") | $(awk -v u="$o" 'BEGIN { if (u == "") print "-"; else printf "%.3f", u / 1e6 }') | $(gbs "$bytes" "${o:+$((o * 1000))}") | $(awk -v u="$rr" 'BEGIN { if (u == "") print "-"; else printf "%.3f", u / 1e6 }') | $(gbs "$bytes" "${rr:+$((rr * 1000))}") | $(ratio "${o:+$((o * 1000))}" "${rr:+$((rr * 1000))}") | $eq |
"
			rm -f "$f"
		done
		rm -rf "$fdir"
	fi

	# The report.
	{
		echo "# cores-check: $P cores, ${model:-unknown cpu}"
		echo
		sed 's/^/    /' "$out/machine.txt"
		echo
		echo "Medians of $done_rounds rounds (${benchtime}s a cell); GB/s = 10^9 bytes/s; ratios of throughputs."
		echo
		echo "## (a) one-shot hash"
		echo
		echo "| size | auto | auto-1core | rust-1core | rust-rayon | auto/rust-rayon | auto/auto-1core | rust-rayon/rust-1core |"
		echo "|---|---|---|---|---|---|---|---|"
		local n s
		for n in $sizes; do
			s=$(size_name "$n")
			local A A1 R1 RR
			A=$(get "$s" auto) A1=$(get "$s" auto-1core) R1=$(get "$s" rust-1core) RR=$(get "$s" rust-rayon)
			echo "| $s | $(gbs "$n" "$A") | $(gbs "$n" "$A1") | $(gbs "$n" "$R1") | $(gbs "$n" "$RR") | $(ratio "$A" "$RR") | $(ratio "$A" "$A1") | $(ratio "$RR" "$R1") |"
		done
		local r16
		r16=$(ratio "$(get 16MiB auto)" "$(get 16MiB rust-rayon)")
		echo
		echo "Target, all cores at 16 MiB >= 0.95x update_rayon: auto/rust-rayon = $r16$(awk -v r="$r16" 'BEGIN { if (r != "-") print (r >= 0.95 ? " (met)" : " (NOT met)") }')"
		echo
		echo "## (b) thread sweep (ours: SetMaxThreads; rust: update_rayon, RAYON_NUM_THREADS)"
		echo
		echo "| size | threads | ours | rust update_rayon | ours/rust |"
		echo "|---|---|---|---|---|"
		for n in $sweep_sizes; do
			s=$(size_name "$n")
			for t in $sweep all; do
				local oi ri label=$t
				case $t in
				1) oi=auto-1core ri=rust-rayon-1core ;;
				all) oi=auto ri=rust-rayon label="all ($P)" ;;
				*) oi=auto-${t}cores ri=rust-rayon-${t}cores ;;
				esac
				local O R
				O=$(get "$s" "$oi") R=$(get "$s" "$ri")
				echo "| $s | $label | $(gbs "$n" "$O") | $(gbs "$n" "$R") | $(ratio "$O" "$R") |"
			done
		done
		echo
		echo "## (c) files, warm in the page cache (${file_runs} alternated runs, median wall time)"
		echo
		echo "| file | ours s | ours GB/s | reference s | reference GB/s | ours/reference | outputs equal |"
		echo "|---|---|---|---|---|---|---|"
		printf '%s' "$frows"
	} >"$out/report.md"
	rm -f "$med"
	echo
	cat "$out/report.md"
	say "total $((SECONDS - start))s; report in $out"
	exec >&- 2>&-
	wait "$tee_pid" 2>/dev/null || true
}

case $mode in
build) build ;;
run) run "$@" ;;
*) usage ;;
esac
