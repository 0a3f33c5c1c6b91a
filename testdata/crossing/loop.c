/*
 * loop.c: the library called in a loop from C, inside the Go test process,
 * for TestCrossingCost (crossing_linux_test.go): the time a hash takes in
 * the library without Go's crossing around each call. It opens its own copy
 * of the library (REAL_LIB), the same bytes the package loads.
 *
 *   gcc -shared -fPIC -O2 -I rust/include -DREAL_LIB='"/abs/libblake3_purego.so"' \
 *       -o loop.so testdata/crossing/loop.c -ldl
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "blake3_purego.h"

#ifndef REAL_LIB
#error "REAL_LIB must name the real library"
#endif

typedef int32_t (*hash_fn)(const uint8_t *, size_t, uint8_t *, size_t);

/*
 * Calls blake3_purego_hash(in, len, out, 32) iters times (at least once)
 * and returns the nanoseconds they took in all; 0 when the library cannot
 * be opened or a call fails.
 */
uint64_t blake3_loop(const uint8_t *in, size_t len, uint8_t *out, uint64_t iters) {
	static hash_fn hash;
	if (!hash) {
		void *h = dlopen(REAL_LIB, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "loop.c: %s\n", dlerror());
			return 0;
		}
		hash = (hash_fn)dlsym(h, "blake3_purego_hash");
		if (!hash) {
			return 0;
		}
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t i = 0;
	do {
		if (hash(in, len, out, 32) != 0) {
			return 0;
		}
	} while (++i < iters);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)(t1.tv_nsec - t0.tv_nsec);
	return ns ? ns : 1;
}
