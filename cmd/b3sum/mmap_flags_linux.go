package main

import "golang.org/x/sys/unix"

// mmapFlags: MAP_POPULATE maps the whole file's pages up front, in the
// kernel, in one pass; faulting them in one at a time while hashing costs
// more than the hashing itself on some machines (measured with
// scripts/bench-b3sum.sh).
const mmapFlags = unix.MAP_SHARED | unix.MAP_POPULATE
