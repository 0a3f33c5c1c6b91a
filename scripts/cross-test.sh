#!/usr/bin/env bash
# Cross-platform checks: every platform builds, the native ones run
# their cross-compiled tests under emulation, and a static build is static.
#
#   scripts/cross-test.sh [STEP...]     (default: all steps, in this order)
#
#   windows   windows/amd64 test binary under wine: native backend, loaded
#             from the cache folder by absolute path; vectors, differential,
#             subtree, loader-environment tests
#   arm64     linux/arm64 test binary under qemu-aarch64: native, NEON;
#             vectors, differential, subtree, cache tests; and staticprog
#             against Debian 11's glibc (rust/debian11/arm64/libc6)
#   bigendian linux/s390x test binaries under qemu-s390x (the Go path: no
#             library there): internal/ffi, whose mirror of zeebo's layouts
#             has big-endian code (words that are not their bytes) that runs
#             nowhere else, and the Go path's vectors, differential, Digest,
#             dispatch and fold tests
#   narrow    linux/386 test binaries, run natively on an x86-64 host:
#             internal/ffi, whose ZeeboXOF is not laid out as zeebo's Digest
#             where int has 32 bits (its copy paths run nowhere else), and the
#             Go path's tests of the bigendian step
#   darwin    darwin/amd64 and darwin/arm64: the package and ./cmd/b3sum build
#             (CGO_ENABLED=0) and pass go vet
#   others    every target `go tool dist list` names where a program using
#             github.com/zeebo/blake3 builds with CGO_ENABLED=0 (42 with Go
#             1.26; scripts/targetcheck finds them): every package and test
#             of the module type-checks there, and purego is absent from the
#             dependencies outside the native platforms; then a few targets
#             compiled for real (go vet ./... and go build ./...), and
#             -tags blake3_nonative on the native platforms (build, no purego)
#   static    TestStaticBuild: -tags blake3_nonative is static and hashes
#             right in an empty chroot; without it, PT_INTERP and libc
#
# Prints one "PASS|FAIL <platform>" line per platform at the end and exits
# non-zero if any failed. Run as root, it installs what is missing with
# apt-get (wine, wine64, qemu-user, libc6:arm64, gcc-mingw-w64-x86-64).
# Emulated runs unset BLAKE3_STRICT (tests that need the b3sum binary or gcc
# are not selected) and set BLAKE3_BACKEND=native, so that a library that
# does not load fails loudly.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$repo"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cross-test.XXXXXX")
export WINEPREFIX="$tmp/wine" WINEDEBUG=-all
cleanup() {
	if [ -d "$WINEPREFIX" ]; then
		# Only the wineserver of this private prefix.
		WINEPREFIX="$WINEPREFIX" wineserver -k >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The tests read testdata/ from the package folder; a bounded run each.
EMU_TIMEOUT=${CROSS_EMU_TIMEOUT:-300}

# Tests run under emulation. Left out everywhere: tests that need the b3sum
# binary (TestDifferentialB3sum, TestDifferentialNativeWrap,
# TestOracleVectors), gcc or amd64 fault libraries (TestFaultMatrix), and the
# large sparse file (-test.short). Under qemu-user (no binfmt_misc) a test
# binary cannot start copies of itself, so the tests that run children are
# left out there; wine runs them.
common_tests='TestVectors|TestVectorsFile|TestDifferentialNativeGo|TestDifferentialGoRef|TestDifferentialSeekLimits|TestSubtree.*|TestSumReaderAtSizes|TestSumReaderAtErrors|TestConcurrency|TestHasherSizes|TestDigestSeekErrors|TestNewKeyedKeySize|FuzzDifferential|Example.*'
# wine: TestLoaderEnvNativePanics and TestLoaderInitTime are left out: wine
# says "Path not found." for a missing file (Windows: "cannot find"), and
# t.TempDir cannot remove a folder holding a loaded DLL (nor, with Go 1.26,
# any file: "unlinkat ...: Invalid function", which leaves out the tests
# that write files). TestAllocations, TestAllocationsDigest,
# TestDigestAheadAllocatesOnce and TestBadInputBatching are here for the
# Hasher's and the Digest's allocations and batching, where what calls are
# passed moves to the heap (internal/ffi/call_purego.go), and the Digest's
# read tests for the paths that pool the calls' memory there. The reader
# tests of ReadFrom and SumReaderAt, for the goroutines that run a
# reader's Read or ReadAt and how they end there.
windows_tests="^($common_tests|TestAllocations|TestAllocationsDigest|TestDigestAheadAllocatesOnce|TestDifferentialDigestSmallReads|TestDigestFirstRead|TestBadInputBatching|TestReadFromLikeCopy|TestReaderAtWorkersEnd|TestReadFromPanicOnFault|TestLoaderEnv(Default|Go|Bogus|NativeGood|LibraryGood|LibraryRelative))\$"
arm64_tests="^($common_tests|TestLoaderNoFDLeak|TestLoaderDlerrorText|TestLoaderInitTime|TestCache(Load|Damaged|Unwritable|OthersWritable|OtherOwner))\$"
# The big-endian run: the Go path's tests (the native ones skip there).
bigendian_tests="^($common_tests|TestDigest.*|TestGoFold|TestGoFront|TestReread|TestDispatchBlock|TestSetTail|TestMarshal.*)\$"
# Tests that must have PASSed (not skipped) in an emulated run.
must_pass='TestVectors TestDifferentialNativeGo TestDifferentialGoRef TestSubtreeNativeEqualsGo'

# staticprog hashes this many bytes of the pattern i%251 (over the Go path's
# and the multi-core thresholds).
probe_n=$((1 << 20 | 12345))

# The targets compiled for real in the others step, for what type-checking
# cannot see (assembly, and its Go declarations); CROSS_OTHER_TARGETS
# overrides the list. Each costs a compile of the standard library for that
# target, 30 s to a minute on 2 cores with a cold GOCACHE; scripts/targetcheck
# covers the whole list by type-checking, in about a minute.
others=${CROSS_OTHER_TARGETS:-linux/386 linux/arm linux/riscv64 linux/ppc64le linux/s390x linux/loong64 freebsd/amd64 windows/arm64 windows/386 android/arm64}
native_targets='linux/amd64 linux/arm64 windows/amd64 darwin/amd64 darwin/arm64'

say() { printf '%s\n' "$*"; }
# result OK PLATFORM: one summary line per platform.
results=()
result() {
	if [ "$1" = 0 ]; then results+=("PASS $2"); else results+=("FAIL $2"); fi
	say "${results[-1]}"
	return "$1"
}
# x runs a command and shows it.
x() { printf '+ %s\n' "$*"; "$@"; }
fail() { say "FAIL: $*" >&2; return 1; }

# --- tools -------------------------------------------------------------------

wine64_bin() {
	if [ -x /usr/lib/wine/wine64 ]; then say /usr/lib/wine/wine64; else command -v wine64 || command -v wine; fi
}
have_arm64_libc() { [ -e /lib/ld-linux-aarch64.so.1 ] || [ -e /usr/lib/ld-linux-aarch64.so.1 ]; }

# install_missing PKG... installs the packages with apt-get when root.
apt_updated=
install_missing() {
	if [ "$(id -u)" != 0 ]; then
		fail "missing $*; not root, so not installing (apt-get install $*)"
		return 1
	fi
	if [[ " $* " == *":arm64 "* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		x dpkg --add-architecture arm64 || return 1
		apt_updated=
	fi
	if [ -z "$apt_updated" ]; then
		x apt-get update -qq || return 1
		apt_updated=1
	fi
	x env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

need_windows_tools() {
	local pkgs=()
	[ -n "$(wine64_bin)" ] || pkgs+=(wine wine64)
	command -v wineserver >/dev/null || [ -x /usr/lib/wine/wineserver ] || pkgs+=(wine64)
	command -v x86_64-w64-mingw32-gcc >/dev/null || pkgs+=(gcc-mingw-w64-x86-64)
	[ ${#pkgs[@]} -eq 0 ] || install_missing "${pkgs[@]}"
}

need_s390x_tools() {
	command -v qemu-s390x >/dev/null || install_missing qemu-user
}

need_arm64_tools() {
	local pkgs=()
	command -v qemu-aarch64 >/dev/null || pkgs+=(qemu-user)
	have_arm64_libc || [ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || pkgs+=(libc6:arm64)
	[ ${#pkgs[@]} -eq 0 ] || install_missing "${pkgs[@]}"
}

# qemu_cmd runs an arm64 binary: with multiarch libc6:arm64, plainly; with
# only the cross libc, through -L (and its libraries first, so that two glibc
# builds are not mixed).
qemu_cmd() {
	if have_arm64_libc; then
		qemu=(qemu-aarch64)
	else
		qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
	fi
}

# --- shared checks ---------------------------------------------------------

# reference is staticprog's hash on the host's Go path.
reference() {
	if [ ! -s "$tmp/reference" ]; then
		CGO_ENABLED=0 go build -buildvcs=false -tags blake3_nonative -o "$tmp/staticprog-ref" ./testdata/staticprog &&
			"$tmp/staticprog-ref" -n "$probe_n" | awk '$1 == "sum256" { print $2 }' >"$tmp/reference"
	fi
	cat "$tmp/reference"
}

# check_probe OUTPUT WHAT LIBRARY_PATTERN SIMD_PATTERN: staticprog's output
# names the native backend and the reference hash.
check_probe() {
	local out=$1 what=$2 lib=$3 simd=$4 ref
	ref=$(reference) || return 1
	say "$out"
	grep -q "^sum256 $ref\$" <<<"$out" || { fail "$what: hash differs from the Go path's $ref"; return 1; }
	grep -q '^backend {"Name":"native"' <<<"$out" || { fail "$what: backend is not native"; return 1; }
	grep -Eq "\"Library\":\"$lib" <<<"$out" || { fail "$what: Library does not match /$lib/"; return 1; }
	grep -Eq "\"SIMD\":\"($simd)\"" <<<"$out" || { fail "$what: SIMD is not /$simd/"; return 1; }
}

# check_test_log LOG RC WHAT: the emulated test run passed, and the tests in
# $must_pass ran and passed.
check_test_log() {
	local log=$1 rc=$2 what=$3 t ok=0
	grep -E '^(--- (PASS|FAIL|SKIP)|PASS$|FAIL|ok|panic:)' "$log" | grep -v '^    ' | sed 's/^/  /'
	if [ "$rc" != 0 ]; then
		say "  ... exit status $rc; last lines:"
		tail -40 "$log" | sed 's/^/  | /'
		ok=1
	fi
	for t in $must_pass; do
		grep -q "^--- PASS: $t " "$log" || { fail "$what: $t did not run and pass"; ok=1; }
	done
	return $ok
}

# --- steps -------------------------------------------------------------------

windows_amd64() {
	need_windows_tools || return 1
	local wine pp bin="$tmp/windows"
	wine=$(wine64_bin)
	mkdir -p "$bin"
	# Go's runtime needs ProcessPrng from bcryptprimitives.dll (wine < 9 has
	# none): a test-only stand-in goes into this private prefix's System32.
	say "+ scripts/wine-processprng/build.sh $tmp/processprng"
	pp=$(scripts/wine-processprng/build.sh "$tmp/processprng" | tail -1) || return 1
	say "+ WINEPREFIX=$WINEPREFIX $wine wineboot -i"
	"$wine" wineboot -i >"$tmp/wineboot.log" 2>&1 || { cat "$tmp/wineboot.log"; fail "wineboot"; return 1; }
	x cp "$pp" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" || return 1
	export WINEDLLOVERRIDES="bcryptprimitives=n,b"

	x env GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -o "$bin/blake3.test.exe" . || return 1
	x env GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -buildvcs=false -o "$bin/staticprog.exe" ./testdata/staticprog || return 1

	local out rc
	out=$(x env -u BLAKE3_LIBRARY BLAKE3_BACKEND=native timeout "$EMU_TIMEOUT" "$wine" "$bin/staticprog.exe" -n "$probe_n" -backend 2>&1)
	rc=$?
	[ $rc = 0 ] || { say "$out"; fail "staticprog.exe under wine: exit $rc"; return 1; }
	# Loaded by absolute path from the per-user cache folder (no memfd here).
	check_probe "$out" "windows/amd64" 'embedded \(cached at [A-Za-z]:\\\\' 'avx512|avx2|sse41|sse2' || return 1

	x env -u BLAKE3_STRICT -u BLAKE3_LIBRARY BLAKE3_BACKEND=native timeout "$EMU_TIMEOUT" \
		"$wine" "$bin/blake3.test.exe" -test.short -test.v -test.run "$windows_tests" >"$tmp/windows.log" 2>&1
	rc=$?
	grep -m1 'default: {Name:native' "$tmp/windows.log" | sed 's/^ */  /'
	check_test_log "$tmp/windows.log" $rc "windows/amd64"
}
step_windows() { windows_amd64; result $? "windows/amd64 (wine: native backend from the cache folder, tests)"; }

linux_arm64() {
	need_arm64_tools || return 1
	local bin="$tmp/arm64" out rc qemu
	qemu_cmd
	mkdir -p "$bin"
	x env GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go test -c -o "$bin/blake3.test" . || return 1
	x env GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -buildvcs=false -o "$bin/staticprog" ./testdata/staticprog || return 1
	out=$(x env -u BLAKE3_LIBRARY BLAKE3_BACKEND=native timeout "$EMU_TIMEOUT" "${qemu[@]}" "$bin/staticprog" -n "$probe_n" -backend 2>&1)
	rc=$?
	[ $rc = 0 ] || { say "$out"; fail "staticprog under qemu-aarch64: exit $rc"; return 1; }
	check_probe "$out" "linux/arm64" 'embedded \(memfd\)' 'neon' || return 1
	# Again against nothing but Debian 11's glibc 2.31 (rust/build.sh fetch
	# extracts its libc6): qemu looks absolute paths up under -L first, so
	# the dynamic loader and every library it finds are that glibc's.
	local d11=rust/debian11/arm64/libc6
	if [ -f "$d11/lib/aarch64-linux-gnu/libc.so.6" ]; then
		out=$(x env -u BLAKE3_LIBRARY BLAKE3_BACKEND=native timeout "$EMU_TIMEOUT" \
			qemu-aarch64 -L "$d11" -E LD_LIBRARY_PATH=/lib/aarch64-linux-gnu "$bin/staticprog" -n "$probe_n" -backend 2>&1)
		rc=$?
		[ $rc = 0 ] || { say "$out"; fail "staticprog under qemu-aarch64 with Debian 11's glibc: exit $rc"; return 1; }
		check_probe "$out" "linux/arm64 on glibc 2.31" 'embedded \(memfd\)' 'neon' || return 1
	elif [ "${BLAKE3_STRICT:-}" = 1 ]; then
		fail "BLAKE3_STRICT=1: no $d11 for the glibc 2.31 check (rust/build.sh fetch)"
		return 1
	else
		say "SKIP linux/arm64 on glibc 2.31: no $d11 (rust/build.sh fetch)"
	fi

	x env -u BLAKE3_STRICT -u BLAKE3_LIBRARY BLAKE3_BACKEND=native timeout "$EMU_TIMEOUT" \
		"${qemu[@]}" "$bin/blake3.test" -test.short -test.v -test.run "$arm64_tests" >"$tmp/arm64.log" 2>&1
	rc=$?
	check_test_log "$tmp/arm64.log" $rc "linux/arm64"
}
step_arm64() { linux_arm64; result $? "linux/arm64 (qemu-aarch64: native backend, NEON, tests)"; }

# linux_s390x runs the big-endian test binaries: static (purego is not a
# dependency there), so qemu-s390x runs them without a sysroot.
linux_s390x() {
	need_s390x_tools || return 1
	local bin="$tmp/s390x" rc ok=0 must_pass='TestVectors TestDifferentialGoRef TestDigestHeldSource TestDispatchBlock'
	mkdir -p "$bin"
	x env GOOS=linux GOARCH=s390x CGO_ENABLED=0 go test -c -o "$bin/ffi.test" ./internal/ffi || return 1
	x env GOOS=linux GOARCH=s390x CGO_ENABLED=0 go test -c -o "$bin/blake3.test" . || return 1
	(cd internal/ffi && x env -u BLAKE3_STRICT timeout "$EMU_TIMEOUT" qemu-s390x "$bin/ffi.test" -test.short -test.v) >"$tmp/s390x-ffi.log" 2>&1
	rc=$?
	must_pass='TestZeeboDigestOK TestZeeboXOF TestZeeboChunk TestZeeboChunkOutput TestZeeboParent TestCVWords' check_test_log "$tmp/s390x-ffi.log" $rc "linux/s390x internal/ffi" || ok=1
	x env -u BLAKE3_STRICT -u BLAKE3_LIBRARY BLAKE3_BACKEND=go timeout "$EMU_TIMEOUT" \
		qemu-s390x "$bin/blake3.test" -test.short -test.v -test.run "$bigendian_tests" >"$tmp/s390x.log" 2>&1
	rc=$?
	check_test_log "$tmp/s390x.log" $rc "linux/s390x" || ok=1
	return $ok
}
step_bigendian() { linux_s390x; result $? "linux/s390x (qemu-s390x: big-endian, the Go path, tests)"; }

# linux_386 runs the 32-bit test binaries on this x86-64 host, as its
# kernel runs 32-bit programs (static: no purego there).
linux_386() {
	local bin="$tmp/386" rc ok=0 must_pass='TestVectors TestDifferentialGoRef TestSetTail TestDispatchBlock'
	mkdir -p "$bin"
	x env GOOS=linux GOARCH=386 CGO_ENABLED=0 go test -c -o "$bin/ffi.test" ./internal/ffi || return 1
	x env GOOS=linux GOARCH=386 CGO_ENABLED=0 go test -c -o "$bin/blake3.test" . || return 1
	(cd internal/ffi && x env -u BLAKE3_STRICT timeout "$EMU_TIMEOUT" "$bin/ffi.test" -test.short -test.v) >"$tmp/386-ffi.log" 2>&1
	rc=$?
	must_pass='TestZeeboDigestOK TestZeeboDigestGuard TestZeeboChunk TestZeeboChunkOutput TestZeeboParent' check_test_log "$tmp/386-ffi.log" $rc "linux/386 internal/ffi" || ok=1
	x env -u BLAKE3_STRICT -u BLAKE3_LIBRARY BLAKE3_BACKEND=go timeout "$EMU_TIMEOUT" \
		"$bin/blake3.test" -test.short -test.v -test.run "$bigendian_tests" >"$tmp/386.log" 2>&1
	rc=$?
	check_test_log "$tmp/386.log" $rc "linux/386" || ok=1
	return $ok
}
step_narrow() {
	local what="linux/386 (int of 32 bits: ZeeboXOF's copy paths, the Go path, tests)"
	if [ "$(uname -m)" != x86_64 ] && [ "${BLAKE3_STRICT:-}" != 1 ]; then
		results+=("SKIP $what: not an x86-64 host ($(uname -m)), which runs them")
		say "${results[-1]}"
		return 0
	fi
	linux_386
	result $? "$what"
}

# purego_absent TARGET [TAGS]: github.com/ebitengine/purego is not a
# dependency of any package of the module.
purego_absent() {
	local t=$1 tags=${2:-} deps
	deps=$(GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go list -tags="$tags" -deps ./...) || return 1
	if grep -qx 'github.com/ebitengine/purego' <<<"$deps"; then
		fail "$t${tags:+ -tags $tags}: imports github.com/ebitengine/purego"
		return 1
	fi
	say "  $t${tags:+ -tags $tags}: no purego"
}

step_darwin() {
	local t ok=0
	for t in darwin/amd64 darwin/arm64; do
		(
			export GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0
			set -e
			x go vet . ./cmd/b3sum
			x go build . ./cmd/b3sum
			x go build -buildvcs=false -o "$tmp/b3sum-$GOOS-$GOARCH" ./cmd/b3sum
		)
		result $? "$t (CGO_ENABLED=0 build and vet of . and ./cmd/b3sum)" || ok=1
	done
	return $ok
}

step_others() {
	local t ok=0
	# Every target where a zeebo/blake3 program builds: type-checked, with
	# purego absent outside the native platforms (targetcheck prints one
	# line per target). Built first: go run would rebuild it per call.
	x go build -o "$tmp/targetcheck" ./scripts/targetcheck &&
		x "$tmp/targetcheck" -native "$native_targets"
	result $? "every target where a zeebo/blake3 program builds (CGO_ENABLED=0: type-check of all packages and tests, no purego off the native platforms)" || ok=1
	for t in $others; do
		# vet first: it compiles every dependency, and build then reuses them.
		(
			export GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0
			set -e
			x go vet ./...
			x go build ./...
			purego_absent "$t"
		)
		result $? "$t (CGO_ENABLED=0 vet, build, no purego: Go path)" || ok=1
	done
	for t in $native_targets; do
		(
			export GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0
			set -e
			x go build -tags blake3_nonative ./...
			purego_absent "$t" blake3_nonative
		)
		result $? "$t -tags blake3_nonative (build, no purego)" || ok=1
	done
	return $ok
}

step_static() {
	x env BLAKE3_STRICT=1 CGO_ENABLED=0 go test -count=1 -run '^TestStaticBuild$' -v . 2>&1 | sed 's/^/  /'
	result "${PIPESTATUS[0]}" "linux/$(go env GOARCH) static build (-tags blake3_nonative: no PT_INTERP/DT_NEEDED, runs in an empty chroot)"
}

# --- main --------------------------------------------------------------------

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(windows arm64 bigendian narrow darwin others static)
for s in "${steps[@]}"; do
	case $s in
	windows | arm64 | bigendian | narrow | darwin | others | static) ;;
	*) say "unknown step $s (windows arm64 bigendian narrow darwin others static)" >&2; exit 2 ;;
	esac
done

unset GOOS GOARCH
failed=0
total_start=$SECONDS
for s in "${steps[@]}"; do
	say "=== $s"
	start=$SECONDS
	"step_$s" || failed=1
	say "=== $s: $((SECONDS - start))s"
done

say ""
say "=== cross-test summary ($((SECONDS - total_start))s)"
printf '%s\n' "${results[@]}"
exit $failed
