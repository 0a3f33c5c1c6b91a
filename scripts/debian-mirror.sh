#!/bin/sh
# debian-mirror.sh: print the Debian archive mirror to fetch packages from.
#
# $BLAKE3_DEBIAN_MIRROR when it is set; otherwise the first URI of the
# machine's own apt configuration that serves a Debian suite other than a
# security one: the "deb" lines of /etc/apt/sources.list and
# /etc/apt/sources.list.d/*.list, and the Types: deb stanzas (not
# Enabled: no) of /etc/apt/sources.list.d/*.sources, in the order apt reads
# them. No mirror is named here: the tree never spells out a registry's host.
# Exits 1, saying so on stderr, when there is none. BLAKE3_APT_ETC names
# another folder to read than /etc/apt (for the tests).
#
# Used by rust/build.sh and scripts/install-b3sum.sh. POSIX sh.
set -eu

if [ -n "${BLAKE3_DEBIAN_MIRROR:-}" ]; then
	printf '%s\n' "${BLAKE3_DEBIAN_MIRROR%/}"
	exit 0
fi

etc=${BLAKE3_APT_ETC:-/etc/apt}
found=""
for f in "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
	[ -r "$f" ] || continue
	case $f in
	*.sources)
		# deb822 stanzas, separated by blank lines.
		found=$(awk '
			function flush() {
				if (!done && types ~ /(^|[ \t])deb([ \t]|$)/ && enabled != "no" && uri != "" && suites !~ /security/)
					{ print uri; done = 1; exit }
				types = ""; uri = ""; suites = ""; enabled = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:" { types = $0; sub(/^[^:]*:/, "", types) }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "suites:" { suites = $0; sub(/^[^:]*:/, "", suites) }
			tolower($1) == "enabled:" { enabled = tolower($2) }
			END { flush() }
		' "$f")
		;;
	*)
		# One-line style: deb [options] URI SUITE COMPONENTS...
		found=$(awk '
			$1 != "deb" { next }
			{
				i = 2
				if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) !~ /security/ && $i != "") { print $i; exit }
			}
		' "$f")
		;;
	esac
	case $found in
	cdrom:* | "") found="" ;;
	*) break ;;
	esac
done

if [ -z "$found" ]; then
	echo "debian-mirror.sh: no Debian mirror in $etc/sources.list or $etc/sources.list.d/; set BLAKE3_DEBIAN_MIRROR to one (the URL that holds dists/ and pool/)" >&2
	exit 1
fi
printf '%s\n' "${found%/}"
