/*
 * blake3_purego.h: the C ABI of libblake3_purego, the contract between the
 * Rust cdylib in rust/ and the Go package that loads it through purego.
 *
 * The library is a thin layer over the official `blake3` Rust crate; it holds
 * no hashing logic of its own.
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
 *   - The hasher state lives in caller memory: blake3_purego_state_size()
 *     bytes aligned to blake3_purego_state_align(). It holds no pointers and
 *     no resources, so it may be copied byte for byte (clone) and dropped
 *     without a call. It must be initialized by one of the init functions
 *     before any other use; a state that was not is BLAKE3_PUREGO_ERR_STATE.
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
#define BLAKE3_PUREGO_ABI_VERSION 1

#define BLAKE3_PUREGO_KEY_LEN 32
#define BLAKE3_PUREGO_OUT_LEN 32
#define BLAKE3_PUREGO_CHUNK_LEN 1024

#define BLAKE3_PUREGO_OK 0
/* A NULL pointer with a non-zero length, or a NULL required pointer. */
#define BLAKE3_PUREGO_ERR_NULL (-1)
/* The state was not initialized by an init function. */
#define BLAKE3_PUREGO_ERR_STATE (-2)
/* An input offset that is not a multiple of BLAKE3_PUREGO_CHUNK_LEN. */
#define BLAKE3_PUREGO_ERR_OFFSET_UNALIGNED (-3)
/* blake3_purego_set_input_offset after input was accepted. */
#define BLAKE3_PUREGO_ERR_OFFSET_AFTER_INPUT (-4)
/* An update that would make a subtree longer than its offset allows. */
#define BLAKE3_PUREGO_ERR_SUBTREE_TOO_LARGE (-5)
/* A root finalization of a state that has a non-zero input offset. */
#define BLAKE3_PUREGO_ERR_ROOT_WITH_OFFSET (-6)
/* A non-root finalization of a state that accepted no input. */
#define BLAKE3_PUREGO_ERR_EMPTY_SUBTREE (-7)
/* A derive-key context that is not valid UTF-8 (the crate takes &str). */
#define BLAKE3_PUREGO_ERR_CONTEXT_UTF8 (-8)
/* A length argument outside what the function accepts. */
#define BLAKE3_PUREGO_ERR_LENGTH (-9)
/* The rayon thread pool could not be built (already built with another
 * size, or the threads could not be spawned). */
#define BLAKE3_PUREGO_ERR_THREADS (-10)

/* Mode selectors for the subtree merge functions. */
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

/* --- Hasher state in caller memory ---------------------------------------- */

size_t blake3_purego_state_size(void);
size_t blake3_purego_state_align(void);

/* Initialize a state for plain hashing. */
int32_t blake3_purego_init(void *state);
/* Initialize a state for keyed hashing with a 32-byte key. */
int32_t blake3_purego_init_keyed(void *state, const uint8_t *key);
/* Initialize a state for key derivation with a context string (UTF-8). */
int32_t blake3_purego_init_derive_key(void *state, const uint8_t *context,
                                      size_t context_len);
/* Initialize a state for key derivation from a 32-byte context key
 * (see blake3_purego_derive_key_context_key). */
int32_t blake3_purego_init_context_key(void *state, const uint8_t *context_key);

/* Add input on the calling thread. */
int32_t blake3_purego_update(void *state, const uint8_t *input, size_t len);
/* Add input on the library's rayon pool (blake3's update_rayon), or on the
 * calling thread while no pool has been built
 * (blake3_purego_init_threads). */
int32_t blake3_purego_update_rayon(void *state, const uint8_t *input, size_t len);

/* Write out_len bytes of the root output (XOF) starting at output byte
 * offset seek. The state is not changed; more input may follow. */
int32_t blake3_purego_finalize(const void *state, uint64_t seek, uint8_t *out,
                               size_t out_len);

/* Back to the state right after init, keeping the mode and key; the input
 * offset goes back to 0. */
int32_t blake3_purego_reset(void *state);

/* Bytes of input accepted since init or reset. */
int32_t blake3_purego_count(const void *state, uint64_t *count);

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

/* --- Subtrees (the crate's hazmat module) --------------------------------- */

/* The 32-byte context key of a UTF-8 context, for MODE_DERIVE_KEY merges and
 * blake3_purego_init_context_key. */
int32_t blake3_purego_derive_key_context_key(const uint8_t *context,
                                             size_t context_len,
                                             uint8_t *context_key_out);

/* Make the state hash the subtree that starts at input byte offset (a
 * multiple of 1024), before any input. */
int32_t blake3_purego_set_input_offset(void *state, uint64_t offset);

/* The 32-byte non-root chaining value of the subtree hashed so far. */
int32_t blake3_purego_finalize_non_root(const void *state, uint8_t *cv_out);

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
