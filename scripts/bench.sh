#!/usr/bin/env bash
# Runs the package's benchmarks and the Rust in-process ceiling interleaved,
# several rounds, then writes docs/benchmarks.md (median table and the ratios
# the project targets), docs/throughput.svg and docs/benchstat.txt.
#
#   scripts/bench.sh [ROUNDS] [BENCHTIME]      (defaults: 5 rounds, 300ms)
#
# Timings are noisy on shared machines: compare within one run, as ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
benchtime=${2:-300ms}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

rust=0
if [ -d rust/vendor/usr/share/cargo/registry ] && command -v cargo >/dev/null; then
	(cd rust && cargo build --release --offline --locked --example bench \
		--config "source.crates-io.replace-with='vendored'" \
		--config "source.vendored.directory='$PWD/vendor/usr/share/cargo/registry'" >&2)
	rust=1
else
	echo "bench.sh: no rust/vendor (run rust/build.sh fetch) or no cargo: the Rust ceiling is left out" >&2
fi

for r in $(seq "$rounds"); do
	echo "round $r/$rounds" >&2
	go test -run '^$' -bench 'BenchmarkSum256|BenchmarkStream' -benchtime "$benchtime" -count 1 . >>"$out/go.txt"
	if [ "$rust" = 1 ]; then
		secs=$(awk -v t="$benchtime" 'BEGIN{ if (t ~ /ms$/) { sub(/ms$/,"",t); print t/1000 } else { sub(/s$/,"",t); print t } }')
		rust/target/release/examples/bench "$secs" >>"$out/rust.txt"
	fi
done

machine="$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(go env GOOS)/$(go env GOARCH)"
mkdir -p docs
go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$out/go.txt" >docs/benchstat.txt 2>/dev/null ||
	echo "bench.sh: benchstat unavailable; docs/benchstat.txt not updated" >&2
files=("$out/go.txt")
[ "$rust" = 1 ] && files+=("$out/rust.txt")
go run ./scripts/benchreport -md docs/benchmarks.md -svg docs/throughput.svg -machine "$machine" "${files[@]}"
