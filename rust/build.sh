#!/usr/bin/env bash
# build.sh: the one build entry point for libblake3_purego (see README.md).
#
#   build.sh                    fetch, then build every target this machine can
#   build.sh fetch              download + sha256-check + extract rust/vendor/
#                               (crate sources, and Debian 11's glibc: rust/debian11/)
#   build.sh install-deps       apt-get install the Debian toolchain (root)
#   build.sh linux_amd64 | linux_arm64 | windows_amd64 | darwin   one target
#   build.sh verify [TARGET]    rebuild from clean in a temp dir, compare with libs/
#   build.sh planted-bug OUT    linux/amd64 library with --features planted-bug
#   build.sh narrow LEVEL OUT   linux/amd64 library whose crate stops at LEVEL
#                               (avx2, sse41): for the tests of the calls
#
# --verify, --planted-bug and --mac are accepted as spellings of verify,
# planted-bug and darwin.
#
# Kept to bash 3.2 (macOS /bin/bash): no associative arrays, no mapfile, no
# expansion of possibly empty arrays under set -u.
set -euo pipefail

RUST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
ROOT=$(dirname "$RUST_DIR")
LIBS=$ROOT/libs
VENDOR=$RUST_DIR/vendor
REGISTRY=$VENDOR/usr/share/cargo/registry
STAMP=$VENDOR/.deps.stamp
APT_DIR=$RUST_DIR/.apt
DEPS=$RUST_DIR/deps.list
# Debian 11's glibc and gcc runtime: the Linux libraries link against them
# (ARCH/sysroot/), and the Go tests run a program in a chroot holding only
# its libc6 (ARCH/libc6/). Kept apart from vendor/, which a Mac copies alone.
GLIBC_LIST=$RUST_DIR/debian11.list
GLIBC=$RUST_DIR/debian11
GLIBC_STAMP=$GLIBC/.debian11.stamp
# gcc 10's folder in the sysroot, for its static unwinder (libgcc_eh.a).
SYSROOT_GCC=10
# The newest glibc symbol version a Linux library may need: glibc 2.17 is
# the oldest that Rust's std supports, and aarch64's first.
GLIBC_FLOOR=2.17

# The largest library accepted (512 KiB; 500 KiB until the one-pass chunk
# hashing of ABI 4 took linux/amd64 past it, see README.md).
SIZE_LIMIT=524288
# The rustup toolchain for linux_amd64 and darwin, and the rustc version the
# committed libraries were built with (a different one still builds, but
# verify will not match byte for byte).
RUSTUP_TOOLCHAIN_NAME=${BLAKE3_RUSTUP_TOOLCHAIN:-stable}
EXPECTED_RUSTUP_RUSTC="rustc 1.95.0 (59807616e 2026-04-14)"
# Debian bookworm's toolchain for linux_arm64 and windows_amd64.
DEB_CARGO=/usr/bin/cargo
DEB_RUSTC=/usr/bin/rustc
EXPECTED_DEB_RUSTC="rustc 1.63.0"
DEBIAN_SUITE=trixie
GLIBC_SUITE=bullseye
# The mirror comes from the machine's apt configuration, or
# $BLAKE3_DEBIAN_MIRROR (scripts/debian-mirror.sh).
MIRROR_SCRIPT=$ROOT/scripts/debian-mirror.sh
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
DEB_TOOL_PACKAGES="rustc cargo libstd-rust-dev libstd-rust-dev-windows libstd-rust-dev:arm64 gcc gcc-mingw-w64-x86-64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu binutils-mingw-w64-x86-64 debian-archive-keyring"

export SOURCE_DATE_EPOCH=1700000000
export LC_ALL=C
export TZ=UTC
umask 022

log() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'build.sh: warning: %s\n' "$*" >&2; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

case $RUST_DIR in
*[[:space:]]*) die "the checkout path must not contain whitespace: $RUST_DIR" ;;
esac

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

file_size() { wc -c <"$1" | tr -d ' '; }

is_mac() { [ "$(uname -s)" = Darwin ]; }

# Temp dirs made by this run, removed on exit.
TMP_DIRS=""
cleanup() {
	local d
	for d in $TMP_DIRS; do rm -rf "$d"; done
}
trap cleanup EXIT
# new_tmp sets NEW_TMP (not printed: a $(...) subshell would lose TMP_DIRS).
NEW_TMP=""
new_tmp() {
	NEW_TMP=$(mktemp -d "${TMPDIR:-/tmp}/blake3-purego-build.XXXXXX")
	NEW_TMP=$(cd "$NEW_TMP" && pwd -P)
	TMP_DIRS="$TMP_DIRS $NEW_TMP"
}

# A package list without comments and blank lines: "name[:arch] version sha256".
list_lines() { grep -v '^[[:space:]]*#' "$1" | awk 'NF == 3 { print $1, $2, $3 }'; }

# multiarch_of ARCH: Debian's multiarch triplet (amd64, arm64).
multiarch_of() {
	case $1 in
	amd64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	*) die "no multiarch triplet for $1" ;;
	esac
}

# --- fetch -----------------------------------------------------------------

vendor_ok() {
	[ -f "$STAMP" ] && [ -d "$REGISTRY" ] || return 1
	[ "$(cat "$STAMP")" = "$(sha256 "$DEPS")" ] || return 1
	# Every crate of the lockfile (but ours) must be there.
	local name version
	while read -r name version; do
		[ -f "$REGISTRY/$name-$version/Cargo.toml" ] || return 1
	done <<EOF
$(awk '/^name = /{gsub(/"/,"",$3); n=$3} /^version = /{gsub(/"/,"",$3); if (n != "" && n != "blake3_purego") print n, $3; n=""}' "$RUST_DIR/Cargo.lock")
EOF
}

# debian11/ holds the sysroot and runtime of every architecture in
# debian11.list.
glibc_ok() {
	[ -f "$GLIBC_STAMP" ] && [ "$(cat "$GLIBC_STAMP")" = "$(sha256 "$GLIBC_LIST")" ] || return 1
	local spec arch m
	for spec in $(list_lines "$GLIBC_LIST" | cut -d' ' -f1 | grep '^libc6:'); do
		arch=${spec#*:}
		m=$(multiarch_of "$arch")
		[ -f "$GLIBC/$arch/sysroot/usr/lib/$m/libc.so" ] && [ -f "$GLIBC/$arch/libc6/lib/$m/libc.so.6" ] &&
			[ -f "$GLIBC/$arch/sysroot/usr/lib/gcc/$m/$SYSROOT_GCC/libgcc_eh.a" ] || return 1
	done
}

# apt_opts DIR ARCH...: options for an apt of its own in DIR, with the
# package lists of these architectures.
apt_opts() {
	# Everything apt reads or writes but its main configuration (proxies)
	# is private to rust/.apt/SUITE/; the machine's sources are never
	# changed (only read, for the mirror).
	local dir=$1 a
	shift
	printf '%s\n' \
		-o "Dir::Etc::SourceList=$dir/sources.list" \
		-o "Dir::Etc::SourceParts=/dev/null" \
		-o "Dir::Etc::Preferences=/dev/null" \
		-o "Dir::Etc::PreferencesParts=/dev/null" \
		-o "Dir::State::Lists=$dir/lists" \
		-o "Dir::State::status=$dir/status" \
		-o "Dir::Cache=$dir/cache" \
		-o "APT::Architecture=amd64" \
		-o "Acquire::Languages=none" \
		-o "APT::Sandbox::User=root"
	for a in "$@"; do printf '%s\n' -o "APT::Architectures::=$a"; done
}

# deb_of DIR SPEC VERSION: the downloaded .deb of a list line ("" if none).
# SPEC is NAME (amd64 or architecture-independent) or NAME:ARCH.
deb_of() {
	local dir=$1 spec=$2 version=${3//:/%3a} name arch f
	name=${spec%%:*}
	arch=amd64
	case $spec in *:*) arch=${spec#*:} ;; esac
	for f in "$dir/debs/${name}_${version}_$arch.deb" "$dir/debs/${name}_${version}_all.deb"; do
		if [ -f "$f" ]; then
			printf '%s\n' "$f"
			return
		fi
	done
}

# download LIST SUITE ARCH...: every package of LIST, from SUITE, into
# rust/.apt/SUITE/debs/, each checked against its sha256.
download() {
	local list=$1 suite=$2
	shift 2
	local dir=$APT_DIR/$suite
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs"
	local opts=() o
	while IFS= read -r o; do opts+=("$o"); done <<EOF
$(apt_opts "$dir" "$@")
EOF
	local updated=0 spec version sum deb got mirror
	while read -r spec version sum; do
		deb=$(deb_of "$dir" "$spec" "$version")
		if [ -n "$deb" ] && [ "$(sha256 "$deb")" = "$sum" ]; then
			continue
		fi
		if [ -n "$deb" ]; then rm -f "$deb"; fi
		if [ $updated = 0 ]; then
			mirror=$("$MIRROR_SCRIPT") || die "no Debian mirror: set BLAKE3_DEBIAN_MIRROR"
			printf 'deb [signed-by=%s] %s %s main\n' "$DEBIAN_KEYRING" "$mirror" "$suite" >"$dir/sources.list"
			: >"$dir/status"
			log "apt-get update (Debian $suite from $mirror, private lists in $dir)"
			apt-get "${opts[@]}" -q update >&2 || die "apt-get update failed (another mirror: BLAKE3_DEBIAN_MIRROR)"
			updated=1
		fi
		log "download $spec=$version"
		(cd "$dir/debs" && apt-get "${opts[@]}" -q download "$spec=$version" >&2) ||
			die "apt-get download $spec=$version failed"
	done <<EOF
$(list_lines "$list")
EOF
	while read -r spec version sum; do
		deb=$(deb_of "$dir" "$spec" "$version")
		[ -n "$deb" ] || die "no .deb for $spec=$version in $dir/debs"
		got=$(sha256 "$deb")
		if [ "$got" != "$sum" ]; then
			printf 'build.sh: SHA256 MISMATCH for %s\n  expected %s\n  got      %s\n' "$deb" "$sum" "$got" >&2
			rm -f "$deb"
			die "refusing $spec=$version: its sha256 does not match $(basename "$list")"
		fi
		log "ok  $got  $(basename "$deb")"
	done <<EOF
$(list_lines "$list")
EOF
}

# relink_absolute DIR: turn every symbolic link under DIR that names an
# absolute path into the relative link to the same path under DIR, so that
# the extracted tree is self-contained: a link such as libpthread.so ->
# /lib/x86_64-linux-gnu/libpthread.so.0 would otherwise reach this
# machine's own glibc.
relink_absolute() {
	local root=$1 link target rel
	find "$root" -type l | while read -r link; do
		target=$(readlink "$link")
		case $target in /*) ;; *) continue ;; esac
		rel=$(dirname "${link#"$root"/}" | sed -e 's#[^/][^/]*#..#g')
		ln -sfn "$rel$target" "$link"
	done
}

fetch() {
	if vendor_ok && glibc_ok; then
		log "vendor/ and debian11/ are complete and match deps.list and debian11.list"
		return 0
	fi
	command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 ||
		die "fetch needs apt-get and dpkg (Debian/Ubuntu). Elsewhere, run 'rust/build.sh fetch' on a Linux machine and copy rust/vendor/ (with its .deps.stamp) here, and rust/debian11/ too for the Linux targets."
	[ -f "$DEBIAN_KEYRING" ] || die "$DEBIAN_KEYRING is missing: apt-get install debian-archive-keyring"
	vendor_ok || fetch_crates
	glibc_ok || fetch_glibc
}

fetch_crates() {
	download "$DEPS" "$DEBIAN_SUITE" amd64
	local fresh spec version sum
	new_tmp
	fresh=$NEW_TMP
	while read -r spec version sum; do
		dpkg -x "$(deb_of "$APT_DIR/$DEBIAN_SUITE" "$spec" "$version")" "$fresh/vendor"
	done <<EOF
$(list_lines "$DEPS")
EOF
	rm -rf "$VENDOR"
	mv "$fresh/vendor" "$VENDOR"
	sha256 "$DEPS" >"$STAMP"
	vendor_ok || die "vendor/ is incomplete after extraction: deps.list does not cover Cargo.lock"
	log "vendor/ ready: $REGISTRY"
}

fetch_glibc() {
	download "$GLIBC_LIST" "$GLIBC_SUITE" amd64 arm64
	local fresh spec version sum deb arch
	new_tmp
	fresh=$NEW_TMP/glibc
	# Every package into its architecture's sysroot/, and libc6 (the runtime
	# alone: no libgcc_s, nothing else) also into libc6/.
	while read -r spec version sum; do
		case $spec in *:*) arch=${spec#*:} ;; *) die "debian11.list: $spec names no architecture" ;; esac
		deb=$(deb_of "$APT_DIR/$GLIBC_SUITE" "$spec" "$version")
		mkdir -p "$fresh/$arch"
		dpkg -x "$deb" "$fresh/$arch/sysroot"
		if [ "${spec%%:*}" = libc6 ]; then
			dpkg -x "$deb" "$fresh/$arch/libc6"
		fi
	done <<EOF
$(list_lines "$GLIBC_LIST")
EOF
	local root
	for root in "$fresh"/*/*; do relink_absolute "$root"; done
	rm -rf "$GLIBC"
	mv "$fresh" "$GLIBC"
	sha256 "$GLIBC_LIST" >"$GLIBC_STAMP"
	glibc_ok || die "debian11/ is incomplete after extraction: debian11.list needs libc6, libc6-dev and libgcc-$SYSROOT_GCC-dev for each architecture"
	log "debian11/ ready: $GLIBC"
}

# ensure_vendor [glibc]: the crate sources, and Debian 11's glibc too when
# asked (the Linux targets).
ensure_vendor() {
	vendor_ok && { [ "${1:-}" != glibc ] || glibc_ok; } && return 0
	fetch
}

# --- toolchains --------------------------------------------------------------

rustup_bin() {
	if command -v rustup >/dev/null 2>&1; then
		command -v rustup
	elif [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/rustup" ]; then
		printf '%s\n' "${CARGO_HOME:-$HOME/.cargo}/bin/rustup"
	else
		return 1
	fi
}

# Prints "CARGO RUSTC" of the rustup toolchain, or fails.
rustup_tools() {
	local r c rc
	r=$(rustup_bin) || return 1
	c=$("$r" which --toolchain "$RUSTUP_TOOLCHAIN_NAME" cargo 2>/dev/null) || return 1
	rc=$("$r" which --toolchain "$RUSTUP_TOOLCHAIN_NAME" rustc 2>/dev/null) || return 1
	printf '%s %s\n' "$c" "$rc"
}

rustup_has_target() {
	local r
	r=$(rustup_bin) || return 1
	"$r" target list --installed --toolchain "$RUSTUP_TOOLCHAIN_NAME" 2>/dev/null | grep -qx "$1"
}

deb_has_target() {
	[ -x "$DEB_CARGO" ] && [ -x "$DEB_RUSTC" ] && [ -d "/usr/lib/rustlib/$1/lib" ]
}

# Is TARGET buildable here? (No output; status only.)
can_build() {
	case $1 in
	linux_amd64)
		! is_mac && rustup_tools >/dev/null && rustup_has_target x86_64-unknown-linux-gnu &&
			command -v x86_64-linux-gnu-gcc >/dev/null 2>&1 ;;
	linux_arm64)
		! is_mac && deb_has_target aarch64-unknown-linux-gnu &&
			command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ;;
	windows_amd64)
		! is_mac && deb_has_target x86_64-pc-windows-gnu &&
			command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 ;;
	darwin_arm64)
		is_mac && rustup_tools >/dev/null && rustup_has_target aarch64-apple-darwin ;;
	darwin_amd64)
		is_mac && rustup_tools >/dev/null && rustup_has_target x86_64-apple-darwin ;;
	*) return 1 ;;
	esac
}

install_deps() {
	is_mac && die "install-deps is for Debian; on macOS: rustup target add aarch64-apple-darwin x86_64-apple-darwin"
	command -v apt-get >/dev/null 2>&1 || die "install-deps needs apt-get (Debian 12)"
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "install-deps needs root"
		sudo=sudo
	fi
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		log "dpkg --add-architecture arm64"
		$sudo dpkg --add-architecture arm64
	fi
	log "apt-get install $DEB_TOOL_PACKAGES"
	$sudo apt-get update
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $DEB_TOOL_PACKAGES
	if ! rustup_tools >/dev/null; then
		warn "no rustup toolchain '$RUSTUP_TOOLCHAIN_NAME' (linux_amd64 uses it): install rustup from https://rustup.rs and run 'rustup toolchain install stable'"
	fi
}

# --- build -------------------------------------------------------------------

triple_of() {
	case $1 in
	linux_amd64) echo x86_64-unknown-linux-gnu ;;
	linux_arm64) echo aarch64-unknown-linux-gnu ;;
	windows_amd64) echo x86_64-pc-windows-gnu ;;
	darwin_arm64) echo aarch64-apple-darwin ;;
	darwin_amd64) echo x86_64-apple-darwin ;;
	*) die "unknown target: $1" ;;
	esac
}

libname_of() {
	case $1 in
	linux_*) echo libblake3_purego.so ;;
	windows_*) echo blake3_purego.dll ;;
	darwin_*) echo libblake3_purego.dylib ;;
	esac
}

# glibc_link_dir ARCH CC OUT: fills OUT with what a Linux library links
# against in place of glibc's shared libraries: for each one Rust's std
# names (-lc -lpthread -ldl -lrt -lm -lutil, and the dynamic loader), a stub
# with its symbols at their versions up to GLIBC_FLOOR only, made from
# Debian 11's library by glibc-stub.awk; the -l names for them (libc.so
# adds the sysroot's libc_nonshared.a, as glibc's own does); and
# libgcc_s.so, a linker script that answers std's -lgcc_s with Debian 11's
# gcc 10 libgcc, statically (as gcc -static-libgcc would: the unwinder,
# libgcc_eh.a, and libgcc.a, which holds aarch64's outline atomics), kept
# out of sight by the cdylib's export list, so that the library needs no
# libgcc_s.so.1 (panic = "abort": the unwinder only walks the stack for a
# panic message's backtrace). Not this machine's gcc 12 libgcc: built
# against glibc 2.36, its unwinder calls _dl_find_object, which glibc has
# only since 2.35.
glibc_link_dir() {
	local arch=$1 cc=$2 out=$3 multi sys ldso soname
	multi=$(multiarch_of "$arch")
	sys=$GLIBC/$arch/sysroot
	case $arch in
	amd64) ldso=ld-linux-x86-64.so.2 ;;
	arm64) ldso=ld-linux-aarch64.so.1 ;;
	esac
	mkdir -p "$out"
	for soname in libc.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libm.so.6 libutil.so.1 $ldso; do
		readelf -W --dyn-syms "$sys/lib/$multi/$soname" |
			awk -v floor="$GLIBC_FLOOR" -v versions="$out/$soname.versions" -f "$RUST_DIR/glibc-stub.awk" >"$out/$soname.s"
		sed 's/$/ { };/' "$out/$soname.versions" >"$out/$soname.map"
		"$cc" -shared -nostdlib "-Wl,-soname,$soname" "-Wl,--version-script=$out/$soname.map" -o "$out/$soname" "$out/$soname.s"
		case $soname in
		"$ldso") ;;
		libc.so.6)
			printf 'GROUP ( %s %s AS_NEEDED ( %s ) )\n' "$out/libc.so.6" "$sys/usr/lib/$multi/libc_nonshared.a" "$out/$ldso" >"$out/libc.so" ;;
		*) ln -s "$soname" "$out/${soname%.so.*}.so" ;;
		esac
	done
	local gcc=$sys/usr/lib/gcc/$multi/$SYSROOT_GCC
	printf '%s\n' "/* rust/build.sh: std's -lgcc_s, answered with libgcc statically. */" \
		"GROUP ( $gcc/libgcc_eh.a $gcc/libgcc.a )" >"$out/libgcc_s.so"
}

# build_lib TARGET OUTFILE [FEATURES]: a clean build in a fresh temp dir.
build_lib() {
	local target=$1 out=$2 features=${3:-}
	local triple tmp cargo rustc rusthome up cc ar linker tv tu
	triple=$(triple_of "$target")
	can_build "$target" || die "the toolchain for $target is not here (try: build.sh install-deps)"
	case $target in
	linux_*) ensure_vendor glibc ;;
	*) ensure_vendor ;;
	esac
	new_tmp
	tmp=$NEW_TMP
	tv=$(printf '%s' "$triple" | tr 'a-z-' 'A-Z_')
	tu=$(printf '%s' "$triple" | tr '-' '_')

	local extra_cargo="" rflags=""
	case $target in
	linux_amd64 | darwin_*)
		up=$(rustup_tools)
		cargo=${up% *}
		rustc=${up#* }
		;;
	*)
		cargo=$DEB_CARGO
		rustc=$DEB_RUSTC
		# constant_time_eq 0.3.1 declares rust-version 1.66; it builds with
		# Debian 12's rustc 1.63.
		extra_cargo="--ignore-rust-version"
		;;
	esac
	case $target in
	linux_amd64) cc=x86_64-linux-gnu-gcc ar=x86_64-linux-gnu-ar linker=x86_64-linux-gnu-gcc ;;
	linux_arm64) cc=aarch64-linux-gnu-gcc ar=aarch64-linux-gnu-ar linker=aarch64-linux-gnu-gcc ;;
	windows_amd64)
		cc=x86_64-w64-mingw32-gcc ar=x86_64-w64-mingw32-ar linker=x86_64-w64-mingw32-gcc
		# Static libgcc/libgcc_eh/winpthread: the DLL needs only system DLLs.
		# No PE timestamp, so two builds are byte-identical.
		rflags="-Ctarget-feature=+crt-static -Clink-arg=-static-libgcc -Clink-arg=-static -Clink-arg=-Wl,--no-insert-timestamp"
		;;
	darwin_*) cc=clang ar=ar linker=clang ;;
	esac
	case $target in
	darwin_arm64) export MACOSX_DEPLOYMENT_TARGET=11.0 ;;
	darwin_amd64) export MACOSX_DEPLOYMENT_TARGET=10.12 ;;
	esac
	if is_mac; then export ZERO_AR_DATE=1; fi

	local cargo_home=${CARGO_HOME:-$HOME/.cargo}
	# Later --remap-path-prefix flags win over earlier ones, so the more
	# specific paths come last. (The build uses a private CARGO_HOME inside
	# $tmp; the real one and the rustup toolchain are remapped in case.)
	local remap="--remap-path-prefix=$cargo_home=/cargo"
	case $rustc in
	/usr/bin/*) ;;
	*)
		rusthome=$(dirname "$(dirname "$rustc")")
		remap="$remap --remap-path-prefix=$rusthome=/rust-toolchain" ;;
	esac
	remap="$remap --remap-path-prefix=$RUST_DIR=/blake3_purego --remap-path-prefix=$REGISTRY=/vendor --remap-path-prefix=$tmp=/build"
	local cflags="-ffile-prefix-map=$RUST_DIR=/blake3_purego -ffile-prefix-map=$REGISTRY=/vendor -ffile-prefix-map=$tmp=/build"
	case $target in
	linux_amd64 | linux_arm64)
		# Nothing but glibc, and glibc 2.17 or later (README.md, "glibc, and
		# nothing else"): the link sees only glibc_link_dir's stand-ins for
		# glibc's shared libraries (-L ahead of everything, then Debian 11's sysroot ahead
		# of the compiler's own folders, which hold this machine's glibc),
		# the sysroot's crti.o/crtn.o (-B) and libc_nonshared.a, and gcc
		# 10's static unwinder; -z defs makes any other undefined symbol an
		# error. blake3's C sees only the compiler's own headers and glibc
		# 2.31's.
		local arch=${target#linux_} multi sys gccinc
		multi=$(multiarch_of "$arch")
		sys=$GLIBC/$arch/sysroot
		gccinc=$("$cc" -print-file-name=include)
		cflags="$cflags -ffile-prefix-map=$GLIBC=/debian11 -nostdinc -isystem $gccinc -isystem $sys/usr/include/$multi -isystem $sys/usr/include"
		glibc_link_dir "$arch" "$cc" "$tmp/link"
		rflags="-Clink-arg=--sysroot=$sys -Clink-arg=-B$sys/usr/lib/$multi/ -Clink-arg=-L$tmp/link -Clink-arg=-L$sys/lib/$multi -Clink-arg=-L$sys/usr/lib/$multi -Clink-arg=-Wl,-z,defs"
		;;
	esac
	local all_rflags="$remap${rflags:+ $rflags}"

	log "build $target ($triple) with $("$rustc" -V)${features:+, features $features}"
	case $target in
	linux_amd64 | darwin_*)
		[ "$("$rustc" -V)" = "$EXPECTED_RUSTUP_RUSTC" ] ||
			warn "libs/ was built with $EXPECTED_RUSTUP_RUSTC, this is $("$rustc" -V): the output will differ" ;;
	*)
		case $("$rustc" -V) in
		"$EXPECTED_DEB_RUSTC"*) ;;
		*) warn "libs/ was built with $EXPECTED_DEB_RUSTC, this is $("$rustc" -V): the output will differ" ;;
		esac ;;
	esac

	# A copy of the crate, so the build never writes into the checkout and
	# the build script sees the same relative layout everywhere.
	mkdir -p "$tmp/src" "$tmp/cargo-home"
	cp "$RUST_DIR/Cargo.toml" "$RUST_DIR/Cargo.lock" "$RUST_DIR/build.rs" "$tmp/src/"
	cp -R "$RUST_DIR/src" "$RUST_DIR/include" "$tmp/src/"
	# (The remaps above name $tmp, so the copy's paths are remapped as /build.)

	local feat_args=""
	[ -n "$features" ] && feat_args="--features $features"
	# shellcheck disable=SC2086
	(
		cd "$tmp/src"
		# Nothing from the caller's environment steers the build.
		unset RUSTFLAGS RUSTDOCFLAGS CARGO_BUILD_RUSTFLAGS CARGO_TARGET_DIR CARGO_BUILD_TARGET \
			CFLAGS CXXFLAGS LDFLAGS CC CXX AR CPPFLAGS RUSTC_WRAPPER CARGO_BUILD_RUSTC_WRAPPER \
			CARGO_PROFILE_RELEASE_DEBUG CARGO_INCREMENTAL
		export CARGO_HOME="$tmp/cargo-home"
		export RUSTC="$rustc"
		export CARGO_TARGET_DIR="$tmp/target"
		export CARGO_ENCODED_RUSTFLAGS
		CARGO_ENCODED_RUSTFLAGS=$(printf '%s' "$all_rflags" | tr ' ' '\037')
		export "CC_$tu=$cc" "AR_$tu=$ar" "CFLAGS_$tu=$cflags"
		export "CARGO_TARGET_${tv}_LINKER=$linker"
		"$cargo" build --release --offline --locked $extra_cargo \
			--target "$triple" $feat_args \
			--config "source.crates-io.replace-with='vendored'" \
			--config "source.vendored.directory='$REGISTRY'" >&2
	)
	local built="$tmp/target/$triple/release/$(libname_of "$target")"
	[ -f "$built" ] || die "cargo did not produce $built"
	if [ "${target#darwin_}" != "$target" ]; then
		# Ad-hoc signature: needed to load on Apple silicon; it holds only
		# hashes of the contents, so it is reproducible.
		codesign --force -s - "$built" >&2
	fi
	mkdir -p "$(dirname "$out")"
	cp "$built" "$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	rm -rf "$tmp"
}

lib_path() { printf '%s/%s/%s\n' "$LIBS" "$1" "$(libname_of "$1")"; }

check_size() {
	local f=$1 n
	n=$(file_size "$f")
	if [ "$n" -gt "$SIZE_LIMIT" ]; then
		printf 'build.sh: %s is %s bytes, over the %s-byte limit\n' "$f" "$n" "$SIZE_LIMIT" >&2
		return 1
	fi
}

report() {
	local f=$1
	printf '%s  %8s bytes  %s\n' "$(sha256 "$f")" "$(file_size "$f")" "${f#$ROOT/}"
}

build_target() {
	local t=$1 out
	out=$(lib_path "$t")
	build_lib "$t" "$out"
	check_size "$out"
	report "$out"
}

expand_targets() {
	case $1 in
	darwin) echo darwin_arm64 darwin_amd64 ;;
	*) echo "$1" ;;
	esac
}

default_targets() {
	if is_mac; then echo darwin_arm64 darwin_amd64; else echo linux_amd64 linux_arm64 windows_amd64; fi
}

build_all() {
	fetch
	local t missing=0
	for t in $(default_targets); do can_build "$t" || missing=1; done
	if [ $missing = 1 ] && ! is_mac && command -v apt-get >/dev/null 2>&1; then
		log "a toolchain is missing: install-deps"
		install_deps
	fi
	local built=0
	for t in $(default_targets); do
		if can_build "$t"; then
			build_target "$t"
			built=$((built + 1))
		else
			warn "skipping $t: its toolchain is not here"
		fi
	done
	[ $built -gt 0 ] || die "nothing could be built"
}

# verify [TARGET...]: rebuild from clean and compare with libs/.
verify() {
	local targets="" t explicit=0
	if [ $# -gt 0 ]; then
		explicit=1
		for t in "$@"; do targets="$targets $(expand_targets "$t")"; done
	else
		targets=$(default_targets)
	fi
	ensure_vendor
	local tmp fail=0 checked=0 want got
	new_tmp
	tmp=$NEW_TMP
	for t in $targets; do
		triple_of "$t" >/dev/null
		want=$(lib_path "$t")
		if ! can_build "$t"; then
			if [ $explicit = 1 ]; then
				printf 'FAIL %s: its toolchain is not here\n' "$t"
				fail=1
			else
				printf 'SKIP %s: its toolchain is not here\n' "$t"
			fi
			continue
		fi
		if [ ! -f "$want" ]; then
			printf 'FAIL %s: %s is missing\n' "$t" "${want#$ROOT/}"
			fail=1
			continue
		fi
		got="$tmp/$t/$(libname_of "$t")"
		build_lib "$t" "$got"
		checked=$((checked + 1))
		printf 'libs/    %s\n' "$(report "$want")"
		printf 'rebuilt  %s  %8s bytes\n' "$(sha256 "$got")" "$(file_size "$got")"
		if cmp -s "$want" "$got"; then
			printf 'OK   %s: byte-identical\n' "$t"
		else
			printf 'FAIL %s: the rebuilt library differs from %s\n' "$t" "${want#$ROOT/}"
			fail=1
		fi
		if ! check_size "$want"; then
			printf 'FAIL %s: over %s bytes\n' "$t" "$SIZE_LIMIT"
			fail=1
		fi
	done
	[ $checked -gt 0 ] || { printf 'FAIL: nothing could be verified\n'; fail=1; }
	return $fail
}

planted_bug() {
	[ $# = 1 ] || die "usage: build.sh planted-bug OUTFILE"
	local out=$1
	case $out in /*) ;; *) out="$PWD/$out" ;; esac
	build_lib linux_amd64 "$out" planted-bug
	report "$out"
}

narrow() {
	[ $# = 2 ] || die "usage: build.sh narrow avx2|sse41 OUTFILE"
	local features out=$2
	case $1 in
	avx2) features=no-avx512 ;;
	sse41) features=no-avx512,no-avx2 ;;
	*) die "narrow: no level $1 (avx2, sse41)" ;;
	esac
	case $out in /*) ;; *) out="$PWD/$out" ;; esac
	build_lib linux_amd64 "$out" "$features"
	report "$out"
}

usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

cmd=${1:-all}
[ $# -gt 0 ] && shift
case $cmd in
all) build_all ;;
fetch) fetch ;;
install-deps) install_deps ;;
linux_amd64 | linux_arm64 | windows_amd64 | darwin_arm64 | darwin_amd64)
	build_target "$cmd"
	for t in "$@"; do build_target "$t"; done ;;
darwin | --mac | mac)
	is_mac || die "the darwin targets build only on macOS"
	build_target darwin_arm64
	build_target darwin_amd64 ;;
verify | --verify) verify "$@" ;;
planted-bug | --planted-bug) planted_bug "$@" ;;
narrow) narrow "$@" ;;
-h | --help | help) usage ;;
*) usage >&2; exit 2 ;;
esac
