#!/bin/sh
# install-b3sum.sh [DEST] - install the reference Rust b3sum 1.8.1 (Debian 13
# "trixie" package b3sum 1.8.1-2, amd64) to DEST (default /usr/local/bin/b3sum)
# for the cmd/b3sum golden tests, without touching the system's apt sources.
#
# The .deb is fetched with apt-get using a private source list, state and
# cache under $B3SUM_WORK (default ${TMPDIR:-/tmp}/b3ref); if apt-get or the
# Debian archive keyring is not available it is fetched directly from the
# archive pool with curl or wget. Either way its SHA-256 is verified against
# the pinned value before anything is installed. Idempotent: does nothing if
# DEST already reports "b3sum 1.8.1". The Debian mirror is read from the
# machine's apt configuration, or set with BLAKE3_DEBIAN_MIRROR
# (debian-mirror.sh beside this script; DEBIAN_MIRROR is read too).
set -eu

VERSION=1.8.1
DEBVER=1.8.1-2
DEB=b3sum_${DEBVER}_amd64.deb
SHA256=c662ad6cc46fc8ee16087b05aff904275995ee371a6e3d1579baf1bfaac27a2e
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
DEST=${1:-/usr/local/bin/b3sum}
WORK=${B3SUM_WORK:-${TMPDIR:-/tmp}/b3ref}

say() { echo "install-b3sum: $*" >&2; }
die() { say "$*"; exit 1; }

if [ -x "$DEST" ] && [ "$("$DEST" --version 2>/dev/null || true)" = "b3sum $VERSION" ]; then
	say "$DEST is already b3sum $VERSION"
	exit 0
fi

case "$(uname -s)/$(uname -m)" in
Linux/x86_64 | Linux/amd64) ;;
*) die "only linux/amd64 is supported (this is $(uname -s)/$(uname -m))" ;;
esac

sha_ok() {
	[ -f "$1" ] || return 1
	if command -v sha256sum >/dev/null 2>&1; then
		sum=$(sha256sum "$1" | cut -d' ' -f1)
	else
		sum=$(shasum -a 256 "$1" | cut -d' ' -f1)
	fi
	[ "$sum" = "$SHA256" ]
}

here=$(cd "$(dirname "$0")" && pwd -P)
mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial"
cd "$WORK"

if ! sha_ok "$DEB"; then
	rm -f "$DEB"
	MIRROR=$(BLAKE3_DEBIAN_MIRROR=${BLAKE3_DEBIAN_MIRROR:-${DEBIAN_MIRROR:-}} "$here/debian-mirror.sh") ||
		die "no Debian mirror: set BLAKE3_DEBIAN_MIRROR"
	POOL_URL=$MIRROR/pool/main/r/rust-b3sum/$DEB
	if command -v apt-get >/dev/null 2>&1 && [ -r "$KEYRING" ]; then
		echo "deb [signed-by=$KEYRING] $MIRROR trixie main" >"$WORK/sources.list"
		set -- -o "Dir::Etc::SourceList=$WORK/sources.list" -o Dir::Etc::SourceParts=/dev/null \
			-o "Dir::State::Lists=$WORK/lists" -o "Dir::Cache=$WORK/cache"
		if apt-get "$@" update >"$WORK/apt-update.log" 2>&1 &&
			apt-get "$@" download "b3sum=$DEBVER" >"$WORK/apt-download.log" 2>&1; then
			:
		else
			say "apt-get failed (see $WORK/apt-*.log); trying $POOL_URL"
		fi
	fi
	if ! sha_ok "$DEB"; then
		rm -f "$DEB"
		if command -v curl >/dev/null 2>&1; then
			curl -fsSL -o "$DEB" "$POOL_URL" || true
		elif command -v wget >/dev/null 2>&1; then
			wget -q -O "$DEB" "$POOL_URL" || true
		fi
	fi
	[ -f "$DEB" ] || die "could not download $DEB"
	sha_ok "$DEB" || {
		rm -f "$DEB"
		die "SHA-256 mismatch for $DEB (want $SHA256)"
	}
fi

rm -rf x
if command -v dpkg >/dev/null 2>&1; then
	dpkg -x "$DEB" x
else
	# Without dpkg: a .deb is an ar archive holding data.tar.*.
	mkdir x
	(cd x && ar x "../$DEB" && tar -xf data.tar.*)
fi
[ -x x/usr/bin/b3sum ] || die "x/usr/bin/b3sum missing from $DEB"
got=$(x/usr/bin/b3sum --version) || die "the extracted b3sum does not run"
[ "$got" = "b3sum $VERSION" ] || die "unexpected version: $got"

destdir=$(dirname "$DEST")
if mkdir -p "$destdir" 2>/dev/null && [ -w "$destdir" ]; then
	install -m 0755 x/usr/bin/b3sum "$DEST"
elif command -v sudo >/dev/null 2>&1; then
	sudo mkdir -p "$destdir"
	sudo install -m 0755 x/usr/bin/b3sum "$DEST"
else
	die "cannot write to $destdir"
fi
say "installed b3sum $VERSION to $DEST"
