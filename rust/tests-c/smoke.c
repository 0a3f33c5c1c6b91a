/*
 * smoke.c: loads a built libblake3_purego at run time (as the Go package does,
 * without linking against it) and checks a few known answers.
 *
 *   linux/arm64:   aarch64-linux-gnu-gcc -O2 -o smoke smoke.c -ldl
 *                  qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib ./smoke ../../libs/linux_arm64/libblake3_purego.so
 *   windows/amd64: x86_64-w64-mingw32-gcc -O2 -o smoke.exe smoke.c
 *                  wine smoke.exe ../../libs/windows_amd64/blake3_purego.dll
 *   linux/amd64:   cc -O2 -o smoke smoke.c -ldl && ./smoke ../../libs/linux_amd64/libblake3_purego.so
 *
 * rust/tests-c/run.sh does all three. Exit status 0 when every check passes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/blake3_purego.h"

#ifdef _WIN32
#include <windows.h>
typedef HMODULE lib_t;
static lib_t lib_open(const char *p) { return LoadLibraryA(p); }
static void *lib_sym(lib_t l, const char *n) { return (void *)GetProcAddress(l, n); }
#else
#include <dlfcn.h>
typedef void *lib_t;
static lib_t lib_open(const char *p) { return dlopen(p, RTLD_NOW | RTLD_LOCAL); }
static void *lib_sym(lib_t l, const char *n) { return dlsym(l, n); }
#endif

typedef uint32_t (*u32_fn)(void);
typedef const char *(*str_fn)(void);
typedef size_t (*size_fn)(void);
typedef int32_t (*hash_fn)(const uint8_t *, size_t, uint8_t *, size_t);
typedef int32_t (*tree_init_fn)(void *, uint32_t, const uint8_t *, uint64_t);
typedef int32_t (*tree_update_fn)(void *, const uint8_t *, size_t, uint32_t);
typedef int32_t (*tree_finalize_fn)(const void *, const uint8_t *, size_t, uint64_t, uint8_t *, size_t);
typedef int32_t (*init_threads_fn)(size_t);
typedef int32_t (*root_output_fn)(const blake3_purego_node *, uint64_t, uint8_t *, size_t);
typedef int32_t (*tree_update_last_fn)(void *, const uint8_t *, size_t, uint8_t *);
typedef int32_t (*tree_root_fn)(const void *, const uint8_t *, size_t, uint8_t *, uint8_t *);
typedef int32_t (*merge_root_fn)(const uint8_t *, const uint8_t *, uint32_t, const uint8_t *, uint64_t, uint8_t *, size_t);
typedef int32_t (*merge_non_root_fn)(const uint8_t *, const uint8_t *, uint32_t, const uint8_t *, uint8_t *);

static int failures;

static void hex(const uint8_t *b, size_t n, char *out) {
	for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static void check(const char *what, int ok) {
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok) failures++;
}

static void *need(lib_t l, const char *name) {
	void *p = lib_sym(l, name);
	if (!p) {
		fprintf(stderr, "missing symbol %s\n", name);
		exit(2);
	}
	return p;
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
		return 2;
	}
	lib_t l = lib_open(argv[1]);
	if (!l) {
#ifdef _WIN32
		fprintf(stderr, "LoadLibrary(%s) failed: %lu\n", argv[1], (unsigned long)GetLastError());
#else
		fprintf(stderr, "dlopen: %s\n", dlerror());
#endif
		return 2;
	}
	u32_fn abi = (u32_fn)need(l, "blake3_purego_abi_version");
	str_fn crate = (str_fn)need(l, "blake3_purego_crate_version");
	str_fn simd = (str_fn)need(l, "blake3_purego_simd");
	size_fn tree_size = (size_fn)need(l, "blake3_purego_tree_size");
	size_fn num_threads = (size_fn)need(l, "blake3_purego_num_threads");
	hash_fn hash = (hash_fn)need(l, "blake3_purego_hash");
	tree_init_fn tree_init = (tree_init_fn)need(l, "blake3_purego_tree_init");
	tree_update_fn tree_update = (tree_update_fn)need(l, "blake3_purego_tree_update");
	tree_finalize_fn tree_finalize = (tree_finalize_fn)need(l, "blake3_purego_tree_finalize");
	init_threads_fn init_threads = (init_threads_fn)need(l, "blake3_purego_init_threads");
	root_output_fn root_output = (root_output_fn)need(l, "blake3_purego_root_output");
	tree_update_last_fn tree_update_last = (tree_update_last_fn)need(l, "blake3_purego_tree_update_last");
	tree_root_fn tree_root = (tree_root_fn)need(l, "blake3_purego_tree_root");
	merge_root_fn merge_root = (merge_root_fn)need(l, "blake3_purego_merge_root");
	merge_non_root_fn merge_non_root = (merge_non_root_fn)need(l, "blake3_purego_merge_non_root");

	printf("abi_version   %u\n", abi());
	printf("crate_version %s\n", crate());
	printf("simd          %s\n", simd());
	printf("tree          %zu bytes\n", tree_size());
	check("abi_version == 4", abi() == 4);
	check("tree_size == sizeof(blake3_purego_tree)", tree_size() == sizeof(blake3_purego_tree));
	check("crate_version == 1.8.1", strcmp(crate(), "1.8.1") == 0);

	uint8_t out[32];
	char h[65];
	check("hash(\"abc\") returns 0", hash((const uint8_t *)"abc", 3, out, 32) == 0);
	hex(out, 32, h);
	printf("blake3(\"abc\") %s\n", h);
	check("blake3(\"abc\")", strcmp(h, "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85") == 0);
	check("hash(NULL, 0) returns 0", hash(NULL, 0, out, 32) == 0);
	hex(out, 32, h);
	printf("blake3(\"\")    %s\n", h);
	check("blake3(\"\")", strcmp(h, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262") == 0);
	check("hash(NULL, 1) is ERR_NULL", hash(NULL, 1, out, 32) == -1);

	/* The root node of the empty input: the IV, an empty block, CHUNK_START
	 * and CHUNK_END; its output from byte 7, across a block's end, against
	 * the one-shot hash's. */
	static const uint32_t iv[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
	                               0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};
	blake3_purego_node node;
	memset(&node, 0, sizeof node);
	memcpy(node.cv, iv, sizeof iv);
	node.flags = 3;
	uint8_t xof[200], want[200];
	check("sizeof(blake3_purego_node) == 104", sizeof node == 104);
	check("root_output returns 0", root_output(&node, 7, xof, 193) == 0);
	hash(NULL, 0, want, 200);
	check("root_output(empty node, seek 7) == hash(\"\")[7:200]", memcmp(xof, want + 7, 193) == 0);
	node.flags = 0x80;
	check("root_output with flag 0x80 is ERR_FLAGS", root_output(&node, 0, xof, 32) == -11);

	/* 1 MiB through a tree, serially and with rayon, against one-shot. */
	size_t n = 1 << 20;
	uint8_t *data = malloc(n);
	for (size_t i = 0; i < n; i++) data[i] = (uint8_t)(i % 251);
	uint8_t one[64], ser[64], par[64];
	hash(data, n, one, 64);
	blake3_purego_tree tree;
	memset(&tree, 0, sizeof tree);
	check("finalize before init is ERR_STATE", tree_finalize(&tree, NULL, 0, 0, ser, 64) == -2);
	tree_init(&tree, 0, NULL, 0);
	tree_update(&tree, data, 1024, 0);
	tree_update(&tree, data + 1024, n - 2048, 0);
	tree_finalize(&tree, data + n - 1024, 1024, 0, ser, 64);
	check("tree_update x2 == one-shot (64-byte XOF)", memcmp(one, ser, 64) == 0);

	/* 8 KiB: tree_update_last keeps the 8th chunk's value; the root of
	 * chunks 0-3 and 4-7 from it (two merges) and tree_root of 7 chunks
	 * handed over and the 8th as the tail, against the one-shot hash. The
	 * same for 3 chunks (the root's children: chunks 0-1 and chunk 2). */
	for (size_t chunks = 3; chunks <= 8; chunks += 5) {
		uint8_t last[32], l1[32], r1[32], l2[32], r2[32], st[32], whole[64], got[64];
		hash(data, chunks * 1024, whole, 64);
		tree_init(&tree, 0, NULL, 0);
		check("tree_update_last returns 0", tree_update_last(&tree, data, chunks * 1024, last) == 0);
		check("tree_update_last leaves the last chunk out", tree.chunks == chunks - 1);
		if (chunks == 8) {
			/* stack: 4 chunks at 2, 2 at 1, 1 at 0 */
			merge_non_root(tree.stack[0], last, 0, NULL, st);
			merge_non_root(tree.stack[1], st, 0, NULL, r1);
			memcpy(l1, tree.stack[2], 32);
		} else {
			memcpy(l1, tree.stack[1], 32);
			memcpy(r1, last, 32);
		}
		merge_root(l1, r1, 0, NULL, 0, got, 64);
		check("tree_update_last's value and stack give the one-shot root", memcmp(whole, got, 64) == 0);
		tree_init(&tree, 0, NULL, 0);
		check("tree_root of all of it as the tail returns 0", tree_root(&tree, data, chunks * 1024, l2, r2) == 0);
		check("tree_root's children are the same", memcmp(l1, l2, 32) == 0 && memcmp(r1, r2, 32) == 0);
	}
	/* Short one-shots (3 KiB + 1 byte, 5 KiB + 1, 7 KiB, 12 KiB + 100:
	 * whole chunks that the crate hashes in several SIMD passes, hashed by
	 * the library in one where it has the lanes; 32 and 64 bytes of
	 * output), against a tree updated one chunk at a time (each chunk
	 * alone, merged at each push) and finalized with what is left, or the
	 * last chunk, as its tail. */
	static const size_t shorts[4] = {3 * 1024 + 1, 5 * 1024 + 1, 7 * 1024, 12 * 1024 + 100};
	for (int i = 0; i < 4; i++) {
		size_t len = shorts[i], head = (len - 1) / 1024 * 1024;
		uint8_t h32[32], h64[64], t64[64];
		char what[80];
		snprintf(what, sizeof what, "hash of %zu bytes returns 0", len);
		check(what, hash(data, len, h32, 32) == 0 && hash(data, len, h64, 64) == 0);
		tree_init(&tree, 0, NULL, 0);
		for (size_t off = 0; off < head; off += 1024) tree_update(&tree, data + off, 1024, 0);
		snprintf(what, sizeof what, "tree_finalize of %zu bytes returns 0", len);
		check(what, tree_finalize(&tree, data + head, len - head, 0, t64, 64) == 0);
		snprintf(what, sizeof what, "hash of %zu bytes == chunk-by-chunk tree (32, 64 bytes)", len);
		check(what, memcmp(h32, t64, 32) == 0 && memcmp(h64, t64, 64) == 0);
	}
	uint8_t cv[32];
	check("tree_update_last of part of a chunk is ERR_LENGTH", tree_update_last(&tree, data, 1000, cv) == -9);
	check("tree_update_last of nothing is ERR_LENGTH", tree_update_last(&tree, data, 0, cv) == -9);
	check("init_threads(2) returns 0", init_threads(2) == 0);
	tree_init(&tree, 0, NULL, 0);
	check("tree_update (parallel) returns 0", tree_update(&tree, data, n - 1024, 1) == 0);
	tree_finalize(&tree, data + n - 1024, 1024, 0, par, 64);
	check("parallel tree == one-shot", memcmp(one, par, 64) == 0);
	printf("rayon threads %zu\n", num_threads());

	printf("%s\n", failures ? "FAILED" : "PASS");
	return failures ? 1 : 0;
}
