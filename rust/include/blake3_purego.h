/*
 * blake3_purego.h: the C ABI of libblake3_purego, the contract between the
 * Rust cdylib in rust/ and the Go package that loads it through purego.
 *
 * The library is a thin layer over the official `blake3` Rust crate: every
 * block, chunk, parent node and output is computed by the crate. The one
 * thing it adds is the bookkeeping of a tree (below), a hash in progress
 * whose state the caller can read and save.
 *
 * Rules that every function follows:
 *   - Nothing panics across the boundary (the library is built with
 *     panic = "abort", and every documented misuse is checked first and
 *     reported as an error code instead).
 *   - A NULL pointer with length 0 is valid input everywhere a (pointer,
 *     length) pair is taken. A NULL pointer with a non-zero length is
 *     BLAKE3_PUREGO_ERR_NULL.
 *   - The library keeps no pointer after a call returns, and never calls
 *     back into its caller: the Go side keeps a call's argument block on the
 *     calling goroutine's stack, which a callback into Go could move.
 *   - A hash in progress (a tree) lives in caller memory, laid out as
 *     blake3_purego_tree below. It holds no pointers and no resources, so
 *     it may be copied byte for byte (clone) and dropped without a call. It
 *     must be initialized by blake3_purego_tree_init before any other use;
 *     one that was not (or whose mode or offset is not one tree_init
 *     writes) is BLAKE3_PUREGO_ERR_STATE.
 *   - No global mutable state but the library's rayon thread pool.
 *   - Inputs may overlap outputs (e.g. derive a key in place): every input
 *     is read in full before the output is written.
 *
 * Return values: the int32_t functions return BLAKE3_PUREGO_OK (0) or one of
 * the negative error codes below.
 */
#ifndef BLAKE3_PUREGO_H
#define BLAKE3_PUREGO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI described by this header. A caller refuses a library that reports
 * any other value from blake3_purego_abi_version(). */
#define BLAKE3_PUREGO_ABI_VERSION 4

#define BLAKE3_PUREGO_KEY_LEN 32
#define BLAKE3_PUREGO_OUT_LEN 32
#define BLAKE3_PUREGO_CHUNK_LEN 1024

#define BLAKE3_PUREGO_OK 0
/* A NULL pointer with a non-zero length, or a NULL required pointer. */
#define BLAKE3_PUREGO_ERR_NULL (-1)
/* The tree was not initialized by blake3_purego_tree_init. */
#define BLAKE3_PUREGO_ERR_STATE (-2)
/* An input offset that is not a multiple of BLAKE3_PUREGO_CHUNK_LEN. */
#define BLAKE3_PUREGO_ERR_OFFSET_UNALIGNED (-3)
/* (-4 was "input offset set after input" in ABI version 1.) */
/* An update that would make a subtree longer than its offset allows. */
#define BLAKE3_PUREGO_ERR_SUBTREE_TOO_LARGE (-5)
/* A root finalization of a tree that has a non-zero input offset. */
#define BLAKE3_PUREGO_ERR_ROOT_WITH_OFFSET (-6)
/* A non-root finalization of a tree that has no input. */
#define BLAKE3_PUREGO_ERR_EMPTY_SUBTREE (-7)
/* A derive-key context that is not valid UTF-8 (the crate takes &str). */
#define BLAKE3_PUREGO_ERR_CONTEXT_UTF8 (-8)
/* A length argument outside what the function accepts. */
#define BLAKE3_PUREGO_ERR_LENGTH (-9)
/* The rayon thread pool could not be built (already built with another
 * size, or the threads could not be spawned). */
#define BLAKE3_PUREGO_ERR_THREADS (-10)
/* Node flags outside the seven BLAKE3 defines (0x7f). */
#define BLAKE3_PUREGO_ERR_FLAGS (-11)

/* Mode selectors (tree_init, hash_xof, the merge functions). */
#define BLAKE3_PUREGO_MODE_HASH 0
#define BLAKE3_PUREGO_MODE_KEYED 1
#define BLAKE3_PUREGO_MODE_DERIVE_KEY 2

/* --- Identity ------------------------------------------------------------ */

/* BLAKE3_PUREGO_ABI_VERSION of the header the library was built against. */
uint32_t blake3_purego_abi_version(void);

/* The blake3 crate version, a static NUL-terminated string such as "1.8.1". */
const char *blake3_purego_crate_version(void);

/* The SIMD level the crate will use on this CPU, detected at run time: a
 * static NUL-terminated string, one of "avx512", "avx2", "sse41", "sse2",
 * "neon", "portable". */
const char *blake3_purego_simd(void);

/* --- One-shot (one crossing for the common case) -------------------------- */

/* out_len bytes of the plain hash of input, starting at output offset 0. */
int32_t blake3_purego_hash(const uint8_t *input, size_t len, uint8_t *out,
                           size_t out_len);
/* out_len bytes of the keyed hash of input under a 32-byte key. */
int32_t blake3_purego_keyed_hash(const uint8_t *key, const uint8_t *input,
                                 size_t len, uint8_t *out, size_t out_len);
/* out_len bytes derived from key material under a UTF-8 context string. */
int32_t blake3_purego_derive_key(const uint8_t *context, size_t context_len,
                                 const uint8_t *material, size_t len,
                                 uint8_t *out, size_t out_len);

/* The flag of hash_xof's mode_flags that hashes on the library's rayon pool
 * (blake3's update_rayon), while one has been built. */
#define BLAKE3_PUREGO_FLAG_PARALLEL 0x100

/* out_len bytes of the output of input, starting at output byte offset seek,
 * in any mode: mode_flags is a MODE_* selector, ORed with FLAG_PARALLEL or
 * not; key is the 32-byte key (MODE_KEYED) or context key
 * (MODE_DERIVE_KEY), and NULL for MODE_HASH. */
int32_t blake3_purego_hash_xof(uint32_t mode_flags, const uint8_t *key,
                               const uint8_t *input, size_t len,
                               uint64_t seek, uint8_t *out, size_t out_len);

/* --- Subtrees (the crate's hazmat module) --------------------------------- */

/* The 32-byte context key of a UTF-8 context, the key of every other
 * MODE_DERIVE_KEY function. */
int32_t blake3_purego_derive_key_context_key(const uint8_t *context,
                                             size_t context_len,
                                             uint8_t *context_key_out);

/* Merge two child chaining values into their parent's non-root chaining
 * value. mode is a MODE_* selector; key is the 32-byte key (MODE_KEYED) or
 * context key (MODE_DERIVE_KEY), and NULL for MODE_HASH. */
int32_t blake3_purego_merge_non_root(const uint8_t *left_cv,
                                     const uint8_t *right_cv, uint32_t mode,
                                     const uint8_t *key, uint8_t *cv_out);

/* Merge two child chaining values into the root, writing out_len bytes of
 * its output starting at output byte offset seek. */
int32_t blake3_purego_merge_root(const uint8_t *left_cv,
                                 const uint8_t *right_cv, uint32_t mode,
                                 const uint8_t *key, uint64_t seek,
                                 uint8_t *out, size_t out_len);

/* The largest subtree allowed to start at offset (a multiple of 1024);
 * writes 0 for offset 0, which has no limit. */
int32_t blake3_purego_max_subtree_len(uint64_t offset, uint64_t *len_out);

/* How many of input_len bytes (input_len > 1024) go to the left subtree. */
int32_t blake3_purego_left_subtree_len(uint64_t input_len, uint64_t *len_out);

/* --- Root nodes ------------------------------------------------------------ */

/* A node of the BLAKE3 tree as the compression function takes it: the
 * input chaining value, the message block (block_len bytes of input, then
 * zeros, as 16 little-endian words) and the node's flags. Its size is 104
 * bytes, its alignment 4. */
typedef struct {
  uint32_t cv[8];
  uint32_t block[16];
  uint32_t block_len; /* 0 to 64 (ERR_LENGTH) */
  uint32_t flags;     /* CHUNK_START 1, CHUNK_END 2, PARENT 4, ROOT 8,
                         KEYED_HASH 16, DERIVE_KEY_CONTEXT 32,
                         DERIVE_KEY_MATERIAL 64 (others: ERR_FLAGS) */
} blake3_purego_node;

/* out_len bytes of the root output of node, from output byte offset seek:
 * output block i is the compression of the node with ROOT added to its
 * flags and block counter i. This is the output of an input whose root
 * node the caller computed itself: the last block of a one-chunk input
 * (after the chunk's other blocks), or a parent node. The crate computes
 * it with its `platform` module (Platform::xof_many, blocks side by side
 * with AVX-512 on unix, as its OutputReader does), which blake3 1.8.1
 * exports but hides from its documentation as unstable: the library is
 * built against that version only (Cargo.lock). The node is read in full
 * before out is written, at any alignment. An output that runs past 2^64
 * bytes goes on with block counters past 2^58 (the crate's OutputReader
 * does the same), not from counter 0 again. */
int32_t blake3_purego_root_output(const blake3_purego_node *node,
                                  uint64_t seek, uint8_t *out,
                                  size_t out_len);

/* --- Trees: a hash in progress whose state the caller can read ---------- */

/* The tree state. Bit i of chunks is set when stack[i] holds the 32-byte
 * chaining value of a subtree of 2^i chunks (of 1024 bytes): the input
 * hashed into the tree, which starts at input byte offset `offset`, is the
 * sequence of those subtrees, largest first. The input after it (the tail:
 * what the caller has not handed over yet, never part of the tree) is
 * passed to each finalization. The caller may read every field, and may
 * write a tree (to resume a saved one) whose chunks and stack describe a
 * real input: a stack entry is only a chaining value, and a wrong one gives
 * a wrong hash, never a fault. magic, mode and offset are checked at every
 * call. Each call reads the header once and indexes the stack below 64, so
 * a tree changed during a call (a caller's own bug) gives a wrong hash or an
 * error code, never a fault. */
typedef struct {
  uint64_t magic;      /* written by tree_init */
  uint32_t mode;       /* MODE_* */
  uint32_t reserved;   /* 0 */
  uint8_t key[32];     /* the key or context key; zeros for MODE_HASH */
  uint64_t offset;     /* input byte offset of the first byte, a multiple
                          of 1024 (0 for a whole input) */
  uint64_t chunks;     /* chunks hashed into the stack */
  uint8_t stack[64][32];
} blake3_purego_tree;

/* sizeof and alignof blake3_purego_tree, for the caller to check. */
size_t blake3_purego_tree_size(void);
size_t blake3_purego_tree_align(void);

/* Initialize a tree in a MODE_* with its key (NULL for MODE_HASH), for the
 * input (offset 0) or for the subtree of an input that starts at input byte
 * offset, a multiple of 1024. Nothing is read from *tree before. */
int32_t blake3_purego_tree_init(void *tree, uint32_t mode, const uint8_t *key,
                                uint64_t offset);

/* Hash len bytes (a multiple of 1024) into the tree: they are cut into
 * subtrees of 2^h chunks, each the largest that starts at a multiple of its
 * own size and fits, hashed by the crate, and merged into the stack. With
 * parallel non-zero, pieces run side by side, and pieces of 1 MiB and more
 * on all of the rayon pool (while one has been built). Beyond offset 0, the
 * tree may not grow past the largest subtree its offset allows, and no tree
 * past 2^64 bytes of input (ERR_SUBTREE_TOO_LARGE). */
int32_t blake3_purego_tree_update(void *tree, const uint8_t *input, size_t len,
                                  uint32_t parallel);

/* Like tree_update on one thread, for len bytes (a positive multiple of
 * 1024, else ERR_LENGTH), but the last chunk is not added to the tree: its
 * 32-byte chaining value is written to last_cv_out, the value it has as a
 * chunk that is not the whole input (where it is the whole input, its root
 * output is hash_xof's). Up to 16 chunks are hashed together, the last one
 * with the others (in one SIMD pass where the CPU has as many lanes: 16 with
 * AVX-512, 8 with AVX2, 4 with SSE4.1 and NEON; in the crate's passes of
 * fewer lanes beyond): a caller that keeps the last chunk of a write
 * (which the next input may follow) gets the value it will need for the
 * root without hashing that chunk again. The same limits as tree_update. */
int32_t blake3_purego_tree_update_last(void *tree, const uint8_t *input,
                                       size_t len, uint8_t *last_cv_out);

/* out_len bytes of the root output of the tree's input followed by the tail,
 * from output byte offset seek. The tail, the subtree right after the
 * tree's chunks, may be at most as long as the smallest subtree on the
 * stack; it may be empty only when the stack holds two subtrees or more. A
 * tree with a non-zero offset has no root (ERR_ROOT_WITH_OFFSET). */
int32_t blake3_purego_tree_finalize(const void *tree, const uint8_t *tail,
                                    size_t tail_len, uint64_t seek,
                                    uint8_t *out, size_t out_len);

/* The chaining values of the two children of the root of the tree's input
 * followed by the tail (as for tree_finalize), for merge_root to read the
 * output from: ERR_LENGTH when that input is one chunk or less, whose root
 * is no parent (use hash_xof). */
int32_t blake3_purego_tree_root(const void *tree, const uint8_t *tail,
                                size_t tail_len, uint8_t *left_out,
                                uint8_t *right_out);

/* The 32-byte non-root chaining value of the tree's input followed by the
 * tail (as for tree_finalize), which must not be empty
 * (ERR_EMPTY_SUBTREE). */
int32_t blake3_purego_tree_finalize_non_root(const void *tree,
                                             const uint8_t *tail,
                                             size_t tail_len,
                                             uint8_t *cv_out);

/* --- Threads -------------------------------------------------------------- */

/* Build (or rebuild, when n differs) the library's own rayon pool with n
 * threads (n >= 1). rayon's global pool is never used. On failure
 * (BLAKE3_PUREGO_ERR_THREADS: the threads could not be spawned) any earlier
 * pool stays in use. A pool being replaced finishes the updates running on
 * it first.
 *
 * Signals (POSIX systems): the pool's threads are the only threads the
 * library ever creates, and they never handle a signal. Each is spawned
 * while the calling thread blocks every signal but the faults a thread
 * raises itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS), so it
 * starts with, and keeps, that mask; the caller's own mask is restored
 * before this function returns. A process-directed signal therefore goes
 * to one of the caller's threads, and one sent to a pool thread alone stays
 * pending, unhandled. (A Go runtime handling a signal on a thread it did not
 * create re-raises it with the default action: SIGUSR1, SIGPIPE and the like
 * would end the process, and SIGQUIT would lose Go's goroutine dump.) The
 * threads are named "blake3-rayon-" and their index. */
int32_t blake3_purego_init_threads(size_t n);

/* Threads in the library's pool; 0 while none has been built. */
size_t blake3_purego_num_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* BLAKE3_PUREGO_H */
