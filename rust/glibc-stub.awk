# glibc-stub.awk: reads `readelf -W --dyn-syms` of one of glibc's shared
# libraries and writes the assembly of a link-time stand-in for it that
# defines each of its public functions and data objects at the versions up
# to GLIBC_<floor> (awk -v floor=2.17), and nothing newer. rust/build.sh
# links the Linux libraries against these stand-ins (README.md, "glibc, and
# nothing else"):
#
#   - a reference binds to the newest version at or below the floor, made the
#     default version here even when the real library has a newer default
#     (glob64@GLIBC_2.2.5, not glob64@@GLIBC_2.27);
#   - a function that appeared after the floor is not defined at all, so a
#     weak reference to it (Rust's std probes gettid, statx and
#     __cxa_thread_atexit_impl that way) stays unversioned and resolves, at
#     run time, to whatever the process's glibc has, or to null; a strong
#     one fails the link (-z defs).
#
# The stand-in is never loaded: it only tells the linker which symbols and
# versions exist. Private (GLIBC_PRIVATE) and thread-local symbols are left
# out.

function vercmp(a, b,    x, y, n, m, i) {
	n = split(a, x, ".")
	m = split(b, y, ".")
	for (i = 1; i <= n || i <= m; i++) {
		if ((x[i] + 0) < (y[i] + 0)) return -1
		if ((x[i] + 0) > (y[i] + 0)) return 1
	}
	return 0
}

$1 ~ /^[0-9]+:$/ && NF >= 8 {
	size = $3; type = $4; bind = $5; ndx = $7; name = $8
	if (ndx == "UND" || ndx == "ABS") next
	if (bind != "GLOBAL" && bind != "WEAK") next
	if (type != "FUNC" && type != "IFUNC" && type != "OBJECT") next
	at = index(name, "@")
	if (at == 0) next
	sym = substr(name, 1, at - 1)
	ver = substr(name, at)
	sub(/^@+/, "", ver)
	if (ver !~ /^GLIBC_[0-9]+(\.[0-9]+)*$/) next
	num = substr(ver, 7)
	if (vercmp(num, floor) > 0) next
	n++
	syms[n] = sym; vers[n] = ver; nums[n] = num
	binds[n] = bind; objs[n] = (type == "OBJECT"); sizes[n] = size + 0
	if (!(sym in best) || vercmp(num, best[sym]) > 0) best[sym] = num
	if (!(ver in seen)) { seen[ver] = 1; nv++; nodes[nv] = ver }
}

END {
	for (i = 1; i <= n; i++) {
		label = "stub_" i
		print (objs[i] ? "\t.data" : "\t.text")
		print (binds[i] == "WEAK" ? "\t.weak\t" : "\t.globl\t") label
		print "\t.type\t" label ", " (objs[i] ? "%object" : "%function")
		if (objs[i]) print "\t.size\t" label ", " sizes[i]
		print label ":"
		if (objs[i] && sizes[i] > 0) print "\t.zero\t" sizes[i]
		print "\t.symver\t" label ", " syms[i] (nums[i] == best[syms[i]] ? "@@" : "@") vers[i] ", remove"
	}
	# The version nodes, for the version script (a separate file).
	for (i = 1; i <= nv; i++) print nodes[i] > versions
}
