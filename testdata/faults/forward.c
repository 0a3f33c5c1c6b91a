/*
 * forward.c: a stand-in for libblake3_purego that forwards every call to a
 * real library (REAL_LIB, opened at load time), so that it passes every check
 * of the Go loader unless one fault is compiled in:
 *
 *   -DFAULT_ABI=N          blake3_purego_abi_version() returns N
 *   -DFAULT_OMIT_UPDATE    blake3_purego_tree_update is not defined
 *   -DFAULT_TREE_SIZE=N    blake3_purego_tree_size() returns N
 *   -DFAULT_TREE_ALIGN=N   blake3_purego_tree_align() returns N
 *   -DFAULT_BAD_HASH       blake3_purego_hash flips one output bit
 *
 * Built without any fault it must load: that is the negative control that
 * shows each refusal is caused by its fault alone (faults_test.go, and
 * scripts/build-fault-libs.sh for a manual build).
 *
 *   gcc -shared -fPIC -O1 -I rust/include -DREAL_LIB='"/abs/libblake3_purego.so"' \
 *       [-DFAULT_...] -o out.so testdata/faults/forward.c -ldl
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "blake3_purego.h"

#ifndef REAL_LIB
#error "REAL_LIB must name the real library"
#endif

static void *real_handle;

static void *real(const char *name) {
	if (!real_handle) {
		real_handle = dlopen(REAL_LIB, RTLD_NOW | RTLD_LOCAL);
		if (!real_handle) {
			fprintf(stderr, "forward.c: %s\n", dlerror());
			abort();
		}
	}
	void *p = dlsym(real_handle, name);
	if (!p) {
		fprintf(stderr, "forward.c: no %s in %s\n", name, REAL_LIB);
		abort();
	}
	return p;
}

/* FWD(ret, name, (params), (args)): ret name(params) { return real name(args); } */
#define FWD(ret, name, params, args)                                  \
	ret name params {                                             \
		static ret(*fn) params;                               \
		if (!fn)                                              \
			fn = (ret(*) params)real(#name);              \
		return fn args;                                       \
	}

uint32_t blake3_purego_abi_version(void) {
#ifdef FAULT_ABI
	return FAULT_ABI;
#else
	static uint32_t (*fn)(void);
	if (!fn)
		fn = (uint32_t(*)(void))real("blake3_purego_abi_version");
	return fn();
#endif
}

size_t blake3_purego_tree_size(void) {
#ifdef FAULT_TREE_SIZE
	return FAULT_TREE_SIZE;
#else
	static size_t (*fn)(void);
	if (!fn)
		fn = (size_t(*)(void))real("blake3_purego_tree_size");
	return fn();
#endif
}

size_t blake3_purego_tree_align(void) {
#ifdef FAULT_TREE_ALIGN
	return FAULT_TREE_ALIGN;
#else
	static size_t (*fn)(void);
	if (!fn)
		fn = (size_t(*)(void))real("blake3_purego_tree_align");
	return fn();
#endif
}

int32_t blake3_purego_hash(const uint8_t *input, size_t len, uint8_t *out, size_t out_len) {
	static int32_t (*fn)(const uint8_t *, size_t, uint8_t *, size_t);
	if (!fn)
		fn = (int32_t(*)(const uint8_t *, size_t, uint8_t *, size_t))real("blake3_purego_hash");
	int32_t rc = fn(input, len, out, out_len);
#ifdef FAULT_BAD_HASH
	if (rc == 0 && out_len > 0)
		out[out_len - 1] ^= 1;
#endif
	return rc;
}

#ifndef FAULT_OMIT_UPDATE
FWD(int32_t, blake3_purego_tree_update, (void *t, const uint8_t *p, size_t n, uint32_t par), (t, p, n, par))
#endif

FWD(const char *, blake3_purego_crate_version, (void), ())
FWD(const char *, blake3_purego_simd, (void), ())
FWD(int32_t, blake3_purego_keyed_hash,
    (const uint8_t *k, const uint8_t *p, size_t n, uint8_t *o, size_t on), (k, p, n, o, on))
FWD(int32_t, blake3_purego_derive_key,
    (const uint8_t *c, size_t cn, const uint8_t *m, size_t n, uint8_t *o, size_t on), (c, cn, m, n, o, on))
FWD(int32_t, blake3_purego_hash_xof,
    (uint32_t m, const uint8_t *k, const uint8_t *p, size_t n, uint64_t seek, uint8_t *o, size_t on),
    (m, k, p, n, seek, o, on))
FWD(int32_t, blake3_purego_derive_key_context_key, (const uint8_t *c, size_t n, uint8_t *o), (c, n, o))
FWD(int32_t, blake3_purego_merge_non_root,
    (const uint8_t *l, const uint8_t *r, uint32_t m, const uint8_t *k, uint8_t *cv), (l, r, m, k, cv))
FWD(int32_t, blake3_purego_merge_root,
    (const uint8_t *l, const uint8_t *r, uint32_t m, const uint8_t *k, uint64_t seek, uint8_t *o, size_t n),
    (l, r, m, k, seek, o, n))
FWD(int32_t, blake3_purego_max_subtree_len, (uint64_t off, uint64_t *n), (off, n))
FWD(int32_t, blake3_purego_left_subtree_len, (uint64_t len, uint64_t *n), (len, n))
FWD(int32_t, blake3_purego_init_threads, (size_t n), (n))
FWD(size_t, blake3_purego_num_threads, (void), ())
FWD(int32_t, blake3_purego_tree_init, (void *t, uint32_t m, const uint8_t *k, uint64_t off), (t, m, k, off))
FWD(int32_t, blake3_purego_tree_finalize,
    (const void *t, const uint8_t *p, size_t n, uint64_t seek, uint8_t *o, size_t on), (t, p, n, seek, o, on))
FWD(int32_t, blake3_purego_tree_root,
    (const void *t, const uint8_t *p, size_t n, uint8_t *l, uint8_t *r), (t, p, n, l, r))
FWD(int32_t, blake3_purego_tree_finalize_non_root, (const void *t, const uint8_t *p, size_t n, uint8_t *cv),
    (t, p, n, cv))
FWD(int32_t, blake3_purego_root_output, (const blake3_purego_node *nd, uint64_t seek, uint8_t *o, size_t n),
    (nd, seek, o, n))
FWD(int32_t, blake3_purego_tree_update_last, (void *t, const uint8_t *p, size_t n, uint8_t *cv), (t, p, n, cv))
