#!/usr/bin/env bash
# build-fault-libs.sh OUTDIR: the broken libraries of the loader's fault
# matrix (faults_test.go), for trying them by hand:
#
#   BLAKE3_BACKEND=native BLAKE3_LIBRARY=$OUTDIR/abi999.so go run ./cmd/...
#
# The tests build what they need themselves; this script is not needed to
# run them. With --planted-bug it also runs rust/build.sh planted-bug
# (linux/amd64, needs cargo and rust/vendor), whose path CI passes to the
# tests as BLAKE3_TEST_BAD_LIBRARY.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
planted=0
if [ "${1:-}" = --planted-bug ]; then planted=1; shift; fi
[ $# = 1 ] || { echo "usage: $0 [--planted-bug] OUTDIR" >&2; exit 2; }
mkdir -p "$1"
OUT=$(cd "$1" && pwd -P)

case $(uname -m) in
x86_64) arch=amd64 other=arm64 ;;
aarch64 | arm64) arch=arm64 other=amd64 ;;
*) echo "unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
REAL=$ROOT/libs/linux_$arch/libblake3_purego.so
[ -f "$REAL" ] || { echo "no $REAL" >&2; exit 1; }
CC=${CC:-gcc}

stub() { # stub NAME [DEFINES...]
	local name=$1
	shift
	"$CC" -shared -fPIC -O1 -Wall -Werror -I "$ROOT/rust/include" \
		-DREAL_LIB="\"$REAL\"" "$@" -o "$OUT/$name.so" "$ROOT/testdata/faults/forward.c" -ldl
	echo "$OUT/$name.so"
}

stub control                           # forwards everything: must load
stub missing-update -DFAULT_OMIT_UPDATE # no blake3_purego_tree_update
stub abi999 -DFAULT_ABI=999             # unknown ABI version
stub tree-size8 -DFAULT_TREE_SIZE=8     # another tree layout
stub tree-align16 -DFAULT_TREE_ALIGN=16
stub bad-hash -DFAULT_BAD_HASH          # fails the self-test

# planted library: its constructor appends a line to $OUT/constructor-ran
# whenever it is loaded (the swap tests: it must never be)
"$CC" -shared -fPIC -O1 -Wall -Werror -DMARKER="\"$OUT/constructor-ran\"" \
	-o "$OUT/constructor.so" "$ROOT/testdata/faults/constructor.c" && echo "$OUT/constructor.so"

size=$(wc -c <"$REAL" | tr -d ' ')
head -c $((size / 2)) "$REAL" >"$OUT/truncated.so" && echo "$OUT/truncated.so"
: >"$OUT/empty.so" && echo "$OUT/empty.so"
printf 'this is a text file, not a shared library\n%.0s' 1 2 3 4 5 6 7 8 >"$OUT/text.so" && echo "$OUT/text.so"
head -c 65536 /dev/urandom >"$OUT/random.so" && echo "$OUT/random.so"
if [ -f "$ROOT/libs/linux_$other/libblake3_purego.so" ]; then
	cp "$ROOT/libs/linux_$other/libblake3_purego.so" "$OUT/other-arch.so" && echo "$OUT/other-arch.so"
fi
if [ $planted = 1 ]; then
	bash "$ROOT/rust/build.sh" planted-bug "$OUT/planted-bug.so" >&2
	echo "$OUT/planted-bug.so"
fi
