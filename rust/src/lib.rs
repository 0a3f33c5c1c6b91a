//! A thin C ABI over the official `blake3` crate, for the Go package
//! `github.com/purego-blake3/blake3`, which loads it with purego (no cgo).
//!
//! `include/blake3_purego.h` is the contract; this file translates it to the
//! crate's API. Every block, chunk, parent and output is computed by the
//! crate; the one thing done here is the bookkeeping of a tree (the "Trees"
//! section), whose state the caller can read and save, unlike the crate's
//! Hasher. Every misuse the crate would answer with a panic (which
//! `panic = "abort"` would turn into a process abort) is checked here first
//! and returned as an error code.

#![deny(unsafe_op_in_unsafe_fn)]

use blake3::hazmat::{self, HasherExt, Mode};
use blake3::platform::Platform;
use blake3::{Hasher, IncrementCounter};
use std::mem::{align_of, size_of};
use std::ptr;
use std::slice;
use std::sync::{Arc, Mutex};

const ABI_VERSION: u32 = 4;
const KEY_LEN: usize = 32;
const CHUNK_LEN: u64 = 1024;

const OK: i32 = 0;
const ERR_NULL: i32 = -1;
const ERR_STATE: i32 = -2;
const ERR_OFFSET_UNALIGNED: i32 = -3;
const ERR_SUBTREE_TOO_LARGE: i32 = -5;
const ERR_ROOT_WITH_OFFSET: i32 = -6;
const ERR_EMPTY_SUBTREE: i32 = -7;
const ERR_CONTEXT_UTF8: i32 = -8;
const ERR_LENGTH: i32 = -9;
const ERR_THREADS: i32 = -10;
const ERR_FLAGS: i32 = -11;

const MODE_HASH: u32 = 0;
const MODE_KEYED: u32 = 1;
const MODE_DERIVE_KEY: u32 = 2;

/// A fresh hasher for a MODE_* and its 32-byte key (the context key for
/// derive-key; unused for plain hashing).
fn new_hasher(mode: u32, key: &[u8; KEY_LEN]) -> Hasher {
    match mode {
        MODE_KEYED => Hasher::new_keyed(key),
        MODE_DERIVE_KEY => Hasher::new_from_context_key(key),
        _ => Hasher::new(),
    }
}

/// The crate version, from Cargo.lock through build.rs.
static CRATE_VERSION: &str = concat!(env!("BLAKE3_CRATE_VERSION"), "\0");

/// A slice from a (pointer, length) pair; NULL is valid only with length 0.
///
/// # Safety
/// A non-NULL `p` must be valid for reads of `len` bytes for the call.
unsafe fn input<'a>(p: *const u8, len: usize) -> Result<&'a [u8], i32> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(ERR_NULL);
    }
    // SAFETY: the caller guarantees p is valid for len bytes.
    Ok(unsafe { slice::from_raw_parts(p, len) })
}

/// A mutable output slice; NULL is valid only with length 0.
///
/// # Safety
/// A non-NULL `p` must be valid for writes of `len` bytes for the call.
unsafe fn output<'a>(p: *mut u8, len: usize) -> Result<&'a mut [u8], i32> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(ERR_NULL);
    }
    // SAFETY: the caller guarantees p is valid for len bytes.
    Ok(unsafe { slice::from_raw_parts_mut(p, len) })
}

/// A 32-byte array from a pointer that must not be NULL.
///
/// # Safety
/// A non-NULL `p` must be valid for reads of 32 bytes.
unsafe fn array32(p: *const u8) -> Result<[u8; KEY_LEN], i32> {
    if p.is_null() {
        return Err(ERR_NULL);
    }
    let mut a = [0u8; KEY_LEN];
    // SAFETY: p is valid for 32 bytes; `a` is a distinct local.
    unsafe { ptr::copy_nonoverlapping(p, a.as_mut_ptr(), KEY_LEN) };
    Ok(a)
}

/// Checks an output (pointer, length) pair without making a slice yet, so
/// that no `&mut` to the output exists while an input that may overlap it
/// (DeriveKey(ctx, k, k)) is still borrowed.
fn output_ok(p: *mut u8, len: usize) -> Result<(), i32> {
    if p.is_null() && len != 0 {
        return Err(ERR_NULL);
    }
    Ok(())
}

fn code(r: Result<(), i32>) -> i32 {
    match r {
        Ok(()) => OK,
        Err(e) => e,
    }
}

fn context_str(ctx: &[u8]) -> Result<&str, i32> {
    std::str::from_utf8(ctx).map_err(|_| ERR_CONTEXT_UTF8)
}

/// Test builds only (feature `planted-bug`): flip one output bit so that the
/// loader's known-answer self-test can be shown to catch a wrong library.
#[inline(always)]
fn plant(out: &mut [u8]) {
    if cfg!(feature = "planted-bug") && !out.is_empty() {
        out[0] ^= 1;
    }
}

/// Fills `out` from an output reader positioned at `seek`.
fn fill_xof(mut reader: blake3::OutputReader, seek: u64, out: &mut [u8]) {
    reader.set_position(seek);
    reader.fill(out);
    plant(out);
}

/// The largest subtree allowed at `offset`; the caller checked alignment.
fn max_len(offset: u64) -> Option<u64> {
    hazmat::max_subtree_len(offset)
}

// --- Identity ---------------------------------------------------------------

#[no_mangle]
pub extern "C" fn blake3_purego_abi_version() -> u32 {
    ABI_VERSION
}

#[no_mangle]
pub extern "C" fn blake3_purego_crate_version() -> *const u8 {
    CRATE_VERSION.as_ptr()
}

#[no_mangle]
pub extern "C" fn blake3_purego_simd() -> *const u8 {
    simd_level().as_ptr()
}

/// The level the crate's own dispatch picks, by the same feature tests.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn simd_level() -> &'static [u8] {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
        b"avx512\0"
    } else if is_x86_feature_detected!("avx2") {
        b"avx2\0"
    } else if is_x86_feature_detected!("sse4.1") {
        b"sse41\0"
    } else if is_x86_feature_detected!("sse2") {
        b"sse2\0"
    } else {
        b"portable\0"
    }
}

/// The crate uses NEON unconditionally on little-endian aarch64.
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
fn simd_level() -> &'static [u8] {
    b"neon\0"
}

#[cfg(not(any(
    target_arch = "x86",
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_endian = "little")
)))]
fn simd_level() -> &'static [u8] {
    b"portable\0"
}

// --- One-shot ---------------------------------------------------------------

/// Whether a one-shot input of `len` bytes goes through Head::short_root:
/// where its whole chunks (and an optional partial last chunk) take one
/// padded SIMD pass of chunk_cvs, and the crate's hash_many several, its
/// widest first and then narrower ones down to one chunk (5 chunks: 4 and 1;
/// 12: 8 and 4). Sum256 of 5 KiB, 7 KiB or 15 KiB + 1 byte took longer than
/// the pure Go zeebo's. A count that is a power of two (2, 4, 8) is one pass
/// of the crate's too, which was as fast as short_root or faster
/// (BenchmarkCallsHash). On a platform of fewer lanes than the padded count,
/// chunk_cvs would take the crate's passes, and short_root gain nothing.
fn short(len: usize) -> bool {
    let whole = len / CHUNK_LEN as usize;
    whole > 2
        && whole < WIDE
        && !whole.is_power_of_two()
        && whole.next_power_of_two() <= Platform::detect().simd_degree()
}

/// The one-shot calls' view of an input as a tree of nothing yet, in a
/// MODE_* with its key, for Head::short_root.
fn one_shot(mode: u32, key: [u8; KEY_LEN]) -> Head {
    Head {
        mode,
        key,
        offset: 0,
        chunks: 0,
    }
}

/// Writes the root output, from byte `seek`, of the parent whose children
/// are `left` and `right`: merge_subtrees_root for 32 bytes from 0, else
/// the root's output reader.
fn fill_root(left: &[u8; KEY_LEN], right: &[u8; KEY_LEN], mode: Mode, seek: u64, out: &mut [u8]) {
    if seek == 0 && out.len() == blake3::OUT_LEN {
        out.copy_from_slice(hazmat::merge_subtrees_root(left, right, mode).as_bytes());
        plant(out);
        return;
    }
    let reader = hazmat::merge_subtrees_root_xof(left, right, mode);
    fill_xof(reader, seek, out);
}

/// # Safety
/// `input`, `out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_hash(
    data: *const u8,
    len: usize,
    out: *mut u8,
    out_len: usize,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        output_ok(out, out_len)?;
        let data = unsafe { input(data, len) }?;
        if short(data.len()) {
            let h = one_shot(MODE_HASH, [0; KEY_LEN]);
            let (left, right) = h.short_root(data);
            // SAFETY: the input is no longer borrowed.
            fill_root(&left, &right, h.mode(), 0, unsafe { output(out, out_len) }?);
            return Ok(());
        }
        if out_len == blake3::OUT_LEN {
            // blake3::hash hashes all at once, faster than a Hasher.
            let hash = blake3::hash(data);
            // SAFETY: the input is no longer borrowed.
            let out = unsafe { output(out, out_len) }?;
            out.copy_from_slice(hash.as_bytes());
            plant(out);
            return Ok(());
        }
        let reader = Hasher::new().update(data).finalize_xof();
        // SAFETY: the input is no longer borrowed.
        fill_xof(reader, 0, unsafe { output(out, out_len) }?);
        Ok(())
    })())
}

/// # Safety
/// `key`, `input`, `out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_keyed_hash(
    key: *const u8,
    data: *const u8,
    len: usize,
    out: *mut u8,
    out_len: usize,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let key = unsafe { array32(key) }?;
        output_ok(out, out_len)?;
        let data = unsafe { input(data, len) }?;
        if short(data.len()) {
            let h = one_shot(MODE_KEYED, key);
            let (left, right) = h.short_root(data);
            // SAFETY: the input is no longer borrowed.
            fill_root(&left, &right, h.mode(), 0, unsafe { output(out, out_len) }?);
            return Ok(());
        }
        if out_len == blake3::OUT_LEN {
            let hash = blake3::keyed_hash(&key, data);
            // SAFETY: the input is no longer borrowed.
            let out = unsafe { output(out, out_len) }?;
            out.copy_from_slice(hash.as_bytes());
            plant(out);
            return Ok(());
        }
        let reader = Hasher::new_keyed(&key).update(data).finalize_xof();
        // SAFETY: the input is no longer borrowed.
        fill_xof(reader, 0, unsafe { output(out, out_len) }?);
        Ok(())
    })())
}

/// # Safety
/// `context`, `material`, `out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_derive_key(
    context: *const u8,
    context_len: usize,
    material: *const u8,
    len: usize,
    out: *mut u8,
    out_len: usize,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let ctx = context_str(unsafe { input(context, context_len) }?)?;
        output_ok(out, out_len)?;
        // The context key once, for either path (Hasher::new_derive_key
        // would hash the context again).
        let key = hazmat::hash_derive_key_context(ctx);
        let data = unsafe { input(material, len) }?;
        if short(data.len()) {
            let h = one_shot(MODE_DERIVE_KEY, key);
            let (left, right) = h.short_root(data);
            // SAFETY: the context and material are no longer borrowed.
            fill_root(&left, &right, h.mode(), 0, unsafe { output(out, out_len) }?);
            return Ok(());
        }
        let reader = Hasher::new_from_context_key(&key)
            .update(data)
            .finalize_xof();
        // SAFETY: the context and material are no longer borrowed.
        fill_xof(reader, 0, unsafe { output(out, out_len) }?);
        Ok(())
    })())
}

/// The flag of `mode_flags` (hash_xof) that asks for the rayon pool.
const FLAG_PARALLEL: u32 = 1 << 8;

/// # Safety
/// `key`, `input`, `out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_hash_xof(
    mode_flags: u32,
    key: *const u8,
    data: *const u8,
    len: usize,
    seek: u64,
    out: *mut u8,
    out_len: usize,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let m = mode_flags & 0xff;
        if m > MODE_DERIVE_KEY || mode_flags & !(0xff | FLAG_PARALLEL) != 0 {
            return Err(ERR_LENGTH);
        }
        let key = unsafe { optional_key(m, key) }?;
        if m != MODE_HASH && key.is_none() {
            return Err(ERR_NULL);
        }
        output_ok(out, out_len)?;
        let data = unsafe { input(data, len) }?;
        let key = key.unwrap_or([0; KEY_LEN]);
        if short(data.len()) {
            // With or without FLAG_PARALLEL: 16 chunks or fewer gain
            // nothing from more threads.
            let h = one_shot(m, key);
            let (left, right) = h.short_root(data);
            // SAFETY: the input is no longer borrowed.
            let out = unsafe { output(out, out_len) }?;
            fill_root(&left, &right, h.mode(), seek, out);
            return Ok(());
        }
        let mut h = new_hasher(m, &key);
        match pool().filter(|_| mode_flags & FLAG_PARALLEL != 0) {
            // Inside install, blake3's joins run on this pool's threads.
            Some(p) => p.install(|| {
                h.update_rayon(data);
            }),
            None => {
                h.update(data);
            }
        }
        // SAFETY: the input is no longer borrowed.
        fill_xof(h.finalize_xof(), seek, unsafe { output(out, out_len) }?);
        Ok(())
    })())
}

// --- Subtrees ---------------------------------------------------------------

/// # Safety
/// `context`, `context_key_out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_derive_key_context_key(
    context: *const u8,
    context_len: usize,
    context_key_out: *mut u8,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let key =
            hazmat::hash_derive_key_context(context_str(unsafe { input(context, context_len) }?)?);
        // SAFETY: the context is no longer borrowed (the output may overlap it).
        unsafe { output(context_key_out, KEY_LEN) }?.copy_from_slice(&key);
        Ok(())
    })())
}

/// The crate's merge mode for a MODE_* selector and its 32-byte key.
fn mode<'a>(mode: u32, key: Option<&'a [u8; KEY_LEN]>) -> Result<Mode<'a>, i32> {
    match (mode, key) {
        (MODE_HASH, _) => Ok(Mode::Hash),
        (MODE_KEYED, Some(k)) => Ok(Mode::KeyedHash(k)),
        (MODE_DERIVE_KEY, Some(k)) => Ok(Mode::DeriveKeyMaterial(k)),
        (MODE_KEYED, None) | (MODE_DERIVE_KEY, None) => Err(ERR_NULL),
        _ => Err(ERR_LENGTH),
    }
}

/// # Safety
/// `key` is NULL or valid for 32 bytes.
unsafe fn optional_key(m: u32, key: *const u8) -> Result<Option<[u8; KEY_LEN]>, i32> {
    if m == MODE_HASH || key.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL, valid for 32 bytes per the header.
    unsafe { array32(key) }.map(Some)
}

/// # Safety
/// All pointers: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_merge_non_root(
    left_cv: *const u8,
    right_cv: *const u8,
    m: u32,
    key: *const u8,
    cv_out: *mut u8,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let left = unsafe { array32(left_cv) }?;
        let right = unsafe { array32(right_cv) }?;
        let key = unsafe { optional_key(m, key) }?;
        let mode = mode(m, key.as_ref())?;
        let out = unsafe { output(cv_out, blake3::OUT_LEN) }?;
        out.copy_from_slice(&hazmat::merge_subtrees_non_root(&left, &right, mode));
        plant(out);
        Ok(())
    })())
}

/// # Safety
/// All pointers: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_merge_root(
    left_cv: *const u8,
    right_cv: *const u8,
    m: u32,
    key: *const u8,
    seek: u64,
    out: *mut u8,
    out_len: usize,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let left = unsafe { array32(left_cv) }?;
        let right = unsafe { array32(right_cv) }?;
        let key = unsafe { optional_key(m, key) }?;
        let mode = mode(m, key.as_ref())?;
        let out = unsafe { output(out, out_len) }?;
        fill_xof(
            hazmat::merge_subtrees_root_xof(&left, &right, mode),
            seek,
            out,
        );
        Ok(())
    })())
}

/// A root node, laid out as blake3_purego_node.
#[repr(C)]
struct Node {
    cv: [u32; 8],
    block: [u32; 16],
    block_len: u32,
    flags: u32,
}

/// The flags BLAKE3 defines: CHUNK_START to DERIVE_KEY_MATERIAL.
const NODE_FLAGS: u32 = 0x7f;
/// BLAKE3's ROOT flag, which every output block of a root node carries.
const ROOT: u8 = 8;
const BLOCK_LEN: usize = 64;

/// # Safety
/// `node`, `out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_root_output(
    node: *const u8,
    seek: u64,
    out: *mut u8,
    out_len: usize,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        if node.is_null() {
            return Err(ERR_NULL);
        }
        // SAFETY: node is valid for reads of a blake3_purego_node, at any
        // alignment; read once, into a local.
        let n = unsafe { ptr::read_unaligned(node.cast::<Node>()) };
        if n.block_len > BLOCK_LEN as u32 {
            return Err(ERR_LENGTH);
        }
        if n.flags & !NODE_FLAGS != 0 {
            return Err(ERR_FLAGS);
        }
        let mut block = [0u8; BLOCK_LEN];
        for (b, w) in block.chunks_exact_mut(4).zip(n.block) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        let out = unsafe { output(out, out_len) }?;
        node_xof(&n.cv, &block, n.block_len as u8, n.flags as u8 | ROOT, seek, out);
        plant(out);
        Ok(())
    })())
}

/// The blocks one xof_many call computes side by side with AVX-512.
const RUN: usize = 16;

/// The output of a root node from byte seek, by the platform's xof_many
/// (blocks side by side with AVX-512 on unix, one at a time elsewhere), as
/// the crate's OutputReader::fill computes it (blake3 1.8.1, lib.rs), but
/// for the blocks a read covers only in part: where fill computes each of
/// them alone (compress_xof), they are computed in the run of up to RUN
/// blocks next to them, into a buffer, so that a read of a few blocks is
/// one call of xof_many (an adversarial review measured a read of 100 bytes
/// at about 1.2 times goXOF's time, in Go, with a call per block). The
/// block counter starts at seek / 64, below 2^58, and grows by at most
/// out.len() / 64 + 2 * RUN, below 2^59: it never wraps.
fn node_xof(cv: &[u32; 8], block: &[u8; BLOCK_LEN], len: u8, flags: u8, seek: u64, mut out: &mut [u8]) {
    if out.is_empty() {
        return;
    }
    let platform = Platform::detect();
    let mut buf = [0u8; RUN * BLOCK_LEN];
    let mut counter = seek / BLOCK_LEN as u64;
    let off = (seek % BLOCK_LEN as u64) as usize;
    if off != 0 {
        // The head: the run from the block the read starts in.
        let n = ((off + out.len() + BLOCK_LEN - 1) / BLOCK_LEN).min(RUN);
        platform.xof_many(cv, block, len, counter, flags, &mut buf[..n * BLOCK_LEN]);
        let k = out.len().min(n * BLOCK_LEN - off);
        out[..k].copy_from_slice(&buf[off..off + k]);
        out = &mut out[k..];
        counter += n as u64; // all n blocks were read, or nothing is left
    }
    // From a block boundary: whole blocks straight into out, and the run
    // that ends with a partial block through the buffer.
    let blocks = (out.len() + BLOCK_LEN - 1) / BLOCK_LEN;
    let tail = if out.len() % BLOCK_LEN != 0 { blocks.min(RUN) } else { 0 };
    let direct = (blocks - tail) * BLOCK_LEN;
    platform.xof_many(cv, block, len, counter, flags, &mut out[..direct]);
    if tail != 0 {
        counter += (direct / BLOCK_LEN) as u64;
        let rest = &mut out[direct..];
        platform.xof_many(cv, block, len, counter, flags, &mut buf[..tail * BLOCK_LEN]);
        let k = rest.len();
        rest.copy_from_slice(&buf[..k]);
    }
}

/// # Safety
/// `len_out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_max_subtree_len(offset: u64, len_out: *mut u64) -> i32 {
    if len_out.is_null() {
        return ERR_NULL;
    }
    if offset % CHUNK_LEN != 0 {
        return ERR_OFFSET_UNALIGNED;
    }
    // SAFETY: non-NULL, valid for a u64 write per the header.
    unsafe { len_out.write_unaligned(max_len(offset).unwrap_or(0)) };
    OK
}

/// # Safety
/// `len_out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_left_subtree_len(input_len: u64, len_out: *mut u64) -> i32 {
    if len_out.is_null() {
        return ERR_NULL;
    }
    if input_len <= CHUNK_LEN {
        return ERR_LENGTH;
    }
    // The crate computes (input_len + 1) / 2 first, which wraps at u64::MAX;
    // every length above 2^63 has a left subtree of 2^63.
    let left = if input_len > 1 << 63 {
        1 << 63
    } else {
        hazmat::left_subtree_len(input_len)
    };
    // SAFETY: non-NULL, valid for a u64 write per the header.
    unsafe { len_out.write_unaligned(left) };
    OK
}

// --- Trees -------------------------------------------------------------------
//
// A tree is a hash in progress whose state the caller can read: instead of
// the crate's Hasher (whose fields are private), it holds the chaining
// values of the complete subtrees of the input so far. Each update is cut
// into aligned power-of-two subtrees, each hashed by the crate
// (hazmat::HasherExt::set_input_offset and finalize_non_root), and their
// chaining values are merged with hazmat::merge_subtrees_non_root as soon as
// they pair up. The input after the last update (the tail) stays with the
// caller, who passes it to each finalization.

/// Written by tree_init; a tree without it was never initialized.
const TREE_MAGIC: u64 = 0x3176_6565_7274_3362; // "b3treev1", little-endian

/// The tree state, in caller memory, laid out as the header documents. Bit
/// i of `chunks` is set when `stack[i]` holds the chaining value of a
/// subtree of 2^i chunks: the input so far, from `offset`, is the sequence
/// of those subtrees, largest first.
#[repr(C)]
pub struct Tree {
    magic: u64,
    mode: u32,
    reserved: u32,
    key: [u8; KEY_LEN],
    offset: u64,
    chunks: u64,
    stack: [[u8; KEY_LEN]; 64],
}

/// A tree in caller memory, seen through a raw pointer only: its header is
/// read once into a `Head` and checked there, and its stack is read and
/// written one entry at a time at indexes below 64. No reference to the
/// caller's memory is made, so a caller that changes the tree during a call
/// (Go code writing one Hasher from two goroutines) gets wrong hashes, never
/// a read or write out of bounds or a misuse the crate panics on.
struct TreePtr(*mut Tree);

/// The header fields of a tree, as read once at the start of a call.
#[derive(Clone, Copy)]
struct Head {
    mode: u32,
    key: [u8; KEY_LEN],
    offset: u64,
    chunks: u64,
}

impl TreePtr {
    /// Checks a tree pointer (not NULL, aligned) and reads its header: a
    /// magic, mode and offset that tree_init could have written.
    ///
    /// # Safety
    /// A non-NULL, aligned `p` must be valid for reads (and, for updates,
    /// writes) of a `Tree` for the call.
    unsafe fn new(p: *const u8) -> Result<(TreePtr, Head), i32> {
        let t = p as *mut Tree;
        if t.is_null() || (t as usize) % align_of::<Tree>() != 0 {
            return Err(ERR_NULL);
        }
        // SAFETY: fields read through raw pointers, once each.
        let (magic, head) = unsafe {
            (
                ptr::addr_of!((*t).magic).read(),
                Head {
                    mode: ptr::addr_of!((*t).mode).read(),
                    key: ptr::addr_of!((*t).key).read(),
                    offset: ptr::addr_of!((*t).offset).read(),
                    chunks: ptr::addr_of!((*t).chunks).read(),
                },
            )
        };
        if magic != TREE_MAGIC || head.mode > MODE_DERIVE_KEY || head.offset % CHUNK_LEN != 0 {
            return Err(ERR_STATE);
        }
        Ok((TreePtr(t), head))
    }

    /// Stack entry i (below 64).
    fn get(&self, i: u32) -> [u8; KEY_LEN] {
        // SAFETY: valid per TreePtr::new; the index is masked below 64.
        unsafe { ptr::addr_of!((*self.0).stack[(i & 63) as usize]).read() }
    }

    /// Writes stack entry i (below 64).
    fn set(&self, i: u32, cv: [u8; KEY_LEN]) {
        // SAFETY: valid for writes per TreePtr::new (updates only).
        unsafe { ptr::addr_of_mut!((*self.0).stack[(i & 63) as usize]).write(cv) }
    }

    /// Writes the chunk count.
    fn set_chunks(&self, chunks: u64) {
        // SAFETY: valid for writes per TreePtr::new (updates only).
        unsafe { ptr::addr_of_mut!((*self.0).chunks).write(chunks) }
    }
}

/// The most chunks whose chaining values chunk_cvs computes in one call:
/// the widest SIMD pass of hash_many (AVX-512).
const WIDE: usize = 16;

/// BLAKE3's flags and IV (its spec; the crate keeps them private).
const CHUNK_START: u8 = 1;
const CHUNK_END: u8 = 2;
const PARENT: u8 = 4;
const KEYED_HASH: u8 = 16;
const DERIVE_KEY_MATERIAL: u8 = 64;
const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
];

/// How many lanes hash_many is given for `count` inputs (chunks or parent
/// blocks): padded, with inputs whose results are dropped, up to the next
/// power of two of at least 4 where the platform has that many lanes. The
/// platform's hash_many takes its widest passes first, then narrower ones
/// (x86's assembly: 8, 4, 2 and 1 lanes; NEON: 4, then one input at a
/// time), each taking about as long as one wide pass: 7 inputs take three
/// passes, padded to 8 one. Parents padded from 3 to 4 (7 and 15 chunks)
/// were faster than unpadded, and 2 padded to 4 as fast as 2
/// (BenchmarkCallsTail).
fn lanes(count: usize, platform: Platform) -> usize {
    let pad = count.next_power_of_two().max(4);
    if count > 1 && pad <= platform.simd_degree() {
        pad
    } else {
        count
    }
}

/// Pieces from this size up are hashed on the rayon pool when the caller
/// asks for the pool; smaller ones gain nothing from more threads.
const PARALLEL_PIECE: usize = 1 << 20;

/// At most this many pieces come out of one update: sizes grow with the
/// alignment of the start, then shrink with the bits of what is left.
const MAX_PIECES: usize = 128;

impl Head {
    fn mode(&self) -> Mode<'_> {
        match self.mode {
            MODE_KEYED => Mode::KeyedHash(&self.key),
            MODE_DERIVE_KEY => Mode::DeriveKeyMaterial(&self.key),
            _ => Mode::Hash,
        }
    }

    /// The input byte offset of the first byte after the tree's chunks.
    fn end(&self) -> Result<u64, i32> {
        self.chunks
            .checked_mul(CHUNK_LEN)
            .and_then(|n| n.checked_add(self.offset))
            .ok_or(ERR_SUBTREE_TOO_LARGE)
    }

    /// Checks that `len` more bytes after the tree's chunks fit the subtree
    /// it hashes (any length at offset 0).
    fn room(&self, len: u64) -> Result<(), i32> {
        let end = self.end()?.checked_add(len).ok_or(ERR_SUBTREE_TOO_LARGE)?;
        match max_len(self.offset) {
            Some(max) if end - self.offset > max => Err(ERR_SUBTREE_TOO_LARGE),
            _ => Ok(()),
        }
    }

    /// The chaining value of `data`, the subtree that starts at input byte
    /// `at`. The callers make sure that it may (at most max_subtree_len(at)
    /// bytes, at least one), which the crate would otherwise answer with a
    /// panic.
    fn subtree(
        &self,
        at: u64,
        data: &[u8],
        pool: Option<&rayon_core::ThreadPool>,
    ) -> [u8; KEY_LEN] {
        let mut h = new_hasher(self.mode, &self.key);
        h.set_input_offset(at);
        match pool {
            // Inside install, blake3's joins run on this pool's threads.
            Some(p) if data.len() >= PARALLEL_PIECE => p.install(|| {
                h.update_rayon(data);
            }),
            _ => {
                h.update(data);
            }
        }
        let mut cv = h.finalize_non_root();
        plant(&mut cv);
        cv
    }

    /// The chaining value of the tail, the subtree right after the tree's
    /// chunks: at most as long as the smallest subtree on the stack, so that
    /// it is that one's right sibling (or a part of it).
    fn tail_cv(&self, tail: &[u8]) -> Result<[u8; KEY_LEN], i32> {
        self.room(tail.len() as u64)?;
        if self.chunks != 0 && tail.len() as u64 > CHUNK_LEN << self.chunks.trailing_zeros() {
            return Err(ERR_SUBTREE_TOO_LARGE);
        }
        let at = self.end()?;
        if tail.len() as u64 > CHUNK_LEN && tail.len() as u64 <= WIDE as u64 * CHUNK_LEN {
            let mut cvs = [[0u8; KEY_LEN]; WIDE];
            let n = self.chunk_cvs(at, tail, &mut cvs);
            return Ok(self.reduce(&cvs[..n], 1)[0]);
        }
        Ok(self.subtree(at, tail, None))
    }

    /// The chaining values of the chunks of `data`, 1 to WIDE chunks that
    /// start at input byte `at` (a multiple of CHUNK_LEN), into `cvs`; returns
    /// their count. The whole chunks go through the platform's hash_many in
    /// one call, as in the crate's own update, but padded (`lanes`): the crate
    /// hashes 3 chunks in two passes (2 and 1), where one pass of 4 lanes
    /// takes about as long as one chunk alone, and its Hasher, which keeps
    /// the last chunk apart, hashes the others in a pass per subtree, so
    /// that the root's children of 2 to 4 chunks, which the crate's Hasher
    /// cannot give, took twice the time of the input's one-shot hash
    /// (BenchmarkDigestNew, docs/stream.md). A last partial chunk is hashed
    /// alone.
    #[inline(never)] // one copy for its callers (the library's size)
    fn chunk_cvs(&self, at: u64, data: &[u8], cvs: &mut [[u8; KEY_LEN]; WIDE]) -> usize {
        const C: usize = CHUNK_LEN as usize;
        let platform = Platform::detect();
        let whole = data.len() / C;
        let mut inputs: [&[u8; C]; WIDE] = [&[0; C]; WIDE];
        for (slot, chunk) in inputs.iter_mut().zip(data.chunks_exact(C)) {
            if let Ok(c) = chunk.try_into() {
                *slot = c;
            }
        }
        let lanes = lanes(whole, platform);
        let mut out = [0u8; WIDE * KEY_LEN];
        let (key, flags) = self.words();
        platform.hash_many(
            &inputs[..lanes],
            &key,
            at / CHUNK_LEN,
            IncrementCounter::Yes,
            flags,
            CHUNK_START,
            CHUNK_END,
            &mut out[..lanes * KEY_LEN],
        );
        for (cv, o) in cvs.iter_mut().zip(out.chunks_exact(KEY_LEN)).take(whole) {
            cv.copy_from_slice(o);
            plant(cv);
        }
        if whole * C == data.len() {
            return whole;
        }
        cvs[whole] = self.subtree(at + (whole * C) as u64, &data[whole * C..], None);
        whole + 1
    }

    /// Merges the chaining values `cvs` (1 to WIDE of them: the chunks, in
    /// order, of one subtree) up BLAKE3's tree until `to` (1 or 2) nodes are
    /// left, and returns those: the subtree's chaining value, or the two
    /// children of its root. One level at a time, as the crate's
    /// compress_parents_parallel does: neighbours are paired left to right
    /// into 64-byte parent blocks, all of a level's parents are compressed
    /// side by side in one hash_many pass, and an odd last node is carried
    /// up as it is. That is BLAKE3's tree (the left subtree of n nodes holds
    /// the largest power of two below n). Merging each parent on its own
    /// (hazmat::merge_subtrees_non_root) compressed the 15 parents of 16
    /// chunks one after the other: tree_finalize with a 16-chunk tail took
    /// about 1.4 times the crate's own time (BenchmarkCallsTail).
    #[inline(never)] // one copy for its callers (the library's size)
    fn reduce(&self, cvs: &[[u8; KEY_LEN]], to: usize) -> [[u8; KEY_LEN]; 2] {
        let platform = Platform::detect();
        let (key, flags) = self.words();
        let mut nodes = [0u8; WIDE * KEY_LEN];
        for (node, cv) in nodes.chunks_exact_mut(KEY_LEN).zip(cvs) {
            node.copy_from_slice(cv);
        }
        let mut n = cvs.len().min(WIDE);
        let mut out = [0u8; WIDE / 2 * KEY_LEN];
        while n > to.max(1) {
            let pairs = n / 2;
            let mut blocks: [&[u8; BLOCK_LEN]; WIDE / 2] = [&[0; BLOCK_LEN]; WIDE / 2];
            let parents = nodes.chunks_exact(BLOCK_LEN).take(pairs);
            for (slot, block) in blocks.iter_mut().zip(parents) {
                if let Ok(b) = block.try_into() {
                    *slot = b;
                }
            }
            let lanes = lanes(pairs, platform);
            platform.hash_many(
                &blocks[..lanes],
                &key,
                0, // parents use counter 0
                IncrementCounter::No,
                flags | PARENT,
                0,
                0,
                &mut out[..lanes * KEY_LEN],
            );
            nodes[..pairs * KEY_LEN].copy_from_slice(&out[..pairs * KEY_LEN]);
            if n % 2 == 1 {
                nodes.copy_within((n - 1) * KEY_LEN..n * KEY_LEN, pairs * KEY_LEN);
            }
            n = pairs + n % 2;
        }
        let mut r = [[0u8; KEY_LEN]; 2];
        for (cv, node) in r.iter_mut().zip(nodes.chunks_exact(KEY_LEN)) {
            cv.copy_from_slice(node);
        }
        r
    }

    /// The two children of the root of a one-shot input for which `short`
    /// holds: its chunks in one chunk_cvs pass, reduced to two nodes. The
    /// caller writes the root output from them (fill_root) once the input,
    /// which may overlap the output, is no longer borrowed.
    fn short_root(&self, data: &[u8]) -> ([u8; KEY_LEN], [u8; KEY_LEN]) {
        let mut cvs = [[0u8; KEY_LEN]; WIDE];
        let n = self.chunk_cvs(0, data, &mut cvs);
        let [left, right] = self.reduce(&cvs[..n], 2);
        (left, right)
    }

    /// Hashes `data` (whole chunks) into the tree on this thread. Where it
    /// is cut into more than one subtree and is at most WIDE chunks (the
    /// front of a Hasher's first write, and what follows it), its chunks go
    /// through chunk_cvs in one pass and are pushed one by one, where the
    /// crate would hash each subtree in a pass of its own (7 chunks: 4, 2
    /// and 1); else each subtree is hashed by the crate and pushed in turn,
    /// without lists (zeroing them cost more than a parent compression at
    /// every 16 KiB batch: BenchmarkStream).
    fn update_serial(&mut self, tp: &TreePtr, data: &[u8]) {
        let (first, chunks) = (self.chunks, data.len() as u64 / CHUNK_LEN);
        let mut pieces = 0;
        cut(first, chunks, |_, _| pieces += 1);
        if pieces > 1 && chunks <= WIDE as u64 {
            let mut cvs = [[0u8; KEY_LEN]; WIDE];
            let n = self.chunk_cvs(self.offset + first * CHUNK_LEN, data, &mut cvs);
            self.push_cvs(tp, &cvs[..n]);
            return;
        }
        cut(first, chunks, |c, h| {
            let from = ((c - first) * CHUNK_LEN) as usize;
            let piece = &data[from..from + (CHUNK_LEN << h) as usize];
            let cv = self.subtree(self.offset + c * CHUNK_LEN, piece, None);
            self.push(tp, cv, h);
        });
    }

    /// Pushes the chunks whose chaining values are `cvs` as tree_update
    /// pushes them: each subtree of the cut merged from its chunks' values,
    /// so that the stack is the one the crate's subtrees would leave.
    fn push_cvs(&mut self, tp: &TreePtr, cvs: &[[u8; KEY_LEN]]) {
        let mut i = 0;
        cut(self.chunks, cvs.len() as u64, |_, h| {
            let k = 1 << h;
            let cv = self.reduce(&cvs[i..i + k], 1)[0];
            self.push(tp, cv, h);
            i += k;
        });
    }

    /// The key words and the mode's flag, as hash_many takes them.
    fn words(&self) -> ([u32; 8], u8) {
        let mut w = [0u32; 8];
        for (w, b) in w.iter_mut().zip(self.key.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        match self.mode {
            MODE_KEYED => (w, KEYED_HASH),
            MODE_DERIVE_KEY => (w, DERIVE_KEY_MATERIAL),
            _ => (IV, 0),
        }
    }

    /// Adds the chaining value of the next 2^height chunks (which start
    /// aligned to their size), merging it with the subtrees it completes on
    /// t's stack.
    fn push(&mut self, t: &TreePtr, mut cv: [u8; KEY_LEN], height: u32) {
        let mut i = height;
        while i < 63 && self.chunks & (1 << i) != 0 {
            cv = hazmat::merge_subtrees_non_root(&t.get(i), &cv, self.mode());
            i += 1;
        }
        t.set(i, cv);
        self.chunks = self.chunks.wrapping_add(1 << height);
    }

    /// The two children of the node over everything: the largest subtree on
    /// the stack, and the chaining value of all that follows it, the tail
    /// (if any) included. None when that is nothing (a single subtree and no
    /// tail, whose own children the stack no longer holds).
    fn children(
        &self,
        t: &TreePtr,
        tail_cv: Option<[u8; KEY_LEN]>,
    ) -> Option<([u8; KEY_LEN], [u8; KEY_LEN])> {
        if self.chunks == 0 {
            return None;
        }
        let top = 63 - self.chunks.leading_zeros();
        let mut rest = self.chunks & !(1 << top);
        let mut right = match tail_cv {
            Some(cv) => cv,
            None if rest == 0 => return None,
            None => {
                let low = rest.trailing_zeros();
                rest &= rest - 1;
                t.get(low)
            }
        };
        while rest != 0 {
            let low = rest.trailing_zeros();
            right = hazmat::merge_subtrees_non_root(&t.get(low), &right, self.mode());
            rest &= rest - 1;
        }
        Some((t.get(top), right))
    }
}

/// Calls `each(c, h)` for the pieces that `n` chunks starting at chunk `c`
/// are cut into: each the largest power of two, 2^h chunks, that starts at
/// a multiple of its own size and fits.
fn cut(mut c: u64, mut n: u64, mut each: impl FnMut(u64, u32)) {
    while n > 0 {
        let mut h = 63 - n.leading_zeros();
        if c != 0 {
            h = h.min(c.trailing_zeros());
        }
        each(c, h);
        c += 1 << h;
        n -= 1 << h;
    }
}

/// Runs `f(i, slot)` for every slot of `out`, slot k being piece
/// `first + k`, on the current rayon pool, halving the list at each join.
fn join_all<F: Fn(usize, &mut [u8; KEY_LEN]) + Sync>(
    f: &F,
    first: usize,
    out: &mut [[u8; KEY_LEN]],
) {
    match out.len() {
        0 => {}
        1 => f(first, &mut out[0]),
        n => {
            let (a, b) = out.split_at_mut(n / 2);
            rayon_core::join(|| join_all(f, first, a), || join_all(f, first + n / 2, b));
        }
    }
}

#[no_mangle]
pub extern "C" fn blake3_purego_tree_size() -> usize {
    size_of::<Tree>()
}

#[no_mangle]
pub extern "C" fn blake3_purego_tree_align() -> usize {
    align_of::<Tree>()
}

/// # Safety
/// `tree`, `key`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_tree_init(
    tree: *mut u8,
    m: u32,
    key: *const u8,
    offset: u64,
) -> i32 {
    code((|| {
        let t = tree as *mut Tree;
        if t.is_null() || (t as usize) % align_of::<Tree>() != 0 {
            return Err(ERR_NULL);
        }
        if m > MODE_DERIVE_KEY {
            return Err(ERR_LENGTH);
        }
        if offset % CHUNK_LEN != 0 {
            return Err(ERR_OFFSET_UNALIGNED);
        }
        // SAFETY: per the header contract.
        let key = unsafe { optional_key(m, key) }?;
        if m != MODE_HASH && key.is_none() {
            return Err(ERR_NULL);
        }
        // SAFETY: valid and aligned; written whole, without reading it.
        unsafe {
            t.write(Tree {
                magic: TREE_MAGIC,
                mode: m,
                reserved: 0,
                key: key.unwrap_or([0; KEY_LEN]),
                offset,
                chunks: 0,
                stack: [[0; KEY_LEN]; 64],
            })
        };
        Ok(())
    })())
}

/// # Safety
/// `tree`, `data`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_tree_update(
    tree: *mut u8,
    data: *const u8,
    len: usize,
    parallel: u32,
) -> i32 {
    code((|| {
        // SAFETY: per the header contract.
        let (tp, mut t) = unsafe { TreePtr::new(tree) }?;
        let data = unsafe { input(data, len) }?;
        if data.len() as u64 % CHUNK_LEN != 0 {
            return Err(ERR_LENGTH);
        }
        t.room(data.len() as u64)?;
        let (first, chunks) = (t.chunks, data.len() as u64 / CHUNK_LEN);
        let piece = |c: u64, h: u32| {
            let from = ((c - first) * CHUNK_LEN) as usize;
            &data[from..from + (CHUNK_LEN << h) as usize]
        };
        let pool = if parallel != 0 { pool() } else { None };
        match pool.as_deref() {
            None => t.update_serial(&tp, data),
            Some(p) => {
                let mut pieces = [(0u64, 0u32); MAX_PIECES];
                let mut n = 0;
                cut(first, chunks, |c, h| {
                    pieces[n] = (c, h);
                    n += 1;
                });
                let mut cvs = [[0u8; KEY_LEN]; MAX_PIECES];
                {
                    let (tree, pieces) = (&t, &pieces[..n]);
                    let hash = |i: usize, cv: &mut [u8; KEY_LEN]| {
                        let (c, h) = pieces[i];
                        *cv = tree.subtree(tree.offset + c * CHUNK_LEN, piece(c, h), Some(p));
                    };
                    if n > 1 {
                        p.install(|| join_all(&hash, 0, &mut cvs[..n]));
                    } else {
                        for (i, cv) in cvs[..n].iter_mut().enumerate() {
                            hash(i, cv);
                        }
                    }
                }
                for (cv, &(_, h)) in cvs[..n].iter().zip(&pieces[..n]) {
                    t.push(&tp, *cv, h);
                }
            }
        }
        tp.set_chunks(t.chunks);
        Ok(())
    })())
}

/// # Safety
/// `tree`, `input`, `last_cv_out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_tree_update_last(
    tree: *mut u8,
    data: *const u8,
    len: usize,
    last_cv_out: *mut u8,
) -> i32 {
    code((|| {
        // SAFETY: per the header contract.
        let (tp, mut t) = unsafe { TreePtr::new(tree) }?;
        let data = unsafe { input(data, len) }?;
        output_ok(last_cv_out, KEY_LEN)?;
        if data.is_empty() || data.len() as u64 % CHUNK_LEN != 0 {
            return Err(ERR_LENGTH);
        }
        t.room(data.len() as u64)?;
        let k = data.len() - CHUNK_LEN as usize;
        let at = t.end()? + k as u64;
        let last = if data.len() as u64 <= WIDE as u64 * CHUNK_LEN {
            // All of them in one pass, the last one's value kept apart.
            let mut cvs = [[0u8; KEY_LEN]; WIDE];
            let n = t.chunk_cvs(t.end()?, data, &mut cvs);
            t.push_cvs(&tp, &cvs[..n - 1]);
            cvs[n - 1]
        } else {
            t.update_serial(&tp, &data[..k]);
            t.subtree(at, &data[k..], None)
        };
        tp.set_chunks(t.chunks);
        // SAFETY: the input is no longer borrowed; a 32-byte output per the
        // header.
        unsafe { output(last_cv_out, KEY_LEN) }?.copy_from_slice(&last);
        Ok(())
    })())
}

/// # Safety
/// `tree`, `tail`, `out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_tree_finalize(
    tree: *const u8,
    tail: *const u8,
    tail_len: usize,
    seek: u64,
    out: *mut u8,
    out_len: usize,
) -> i32 {
    code((|| {
        // SAFETY: per the header contract.
        let (tp, t) = unsafe { TreePtr::new(tree) }?;
        let tail = unsafe { input(tail, tail_len) }?;
        output_ok(out, out_len)?;
        if t.offset != 0 {
            return Err(ERR_ROOT_WITH_OFFSET);
        }
        if t.chunks == 0 && short(tail.len()) {
            // The tail is all of the input, hashed as the one-shot calls
            // hash it: the crate's Hasher took a pass per subtree of it.
            let (left, right) = t.short_root(tail);
            // SAFETY: the tail is no longer borrowed.
            fill_root(&left, &right, t.mode(), seek, unsafe { output(out, out_len) }?);
            return Ok(());
        }
        let reader = if t.chunks == 0 {
            // The tail is all of the input.
            new_hasher(t.mode, &t.key).update(tail).finalize_xof()
        } else {
            let tail_cv = if tail.is_empty() {
                None
            } else {
                Some(t.tail_cv(tail)?)
            };
            let (left, right) = t.children(&tp, tail_cv).ok_or(ERR_LENGTH)?;
            hazmat::merge_subtrees_root_xof(&left, &right, t.mode())
        };
        // SAFETY: the tail is no longer borrowed.
        fill_xof(reader, seek, unsafe { output(out, out_len) }?);
        Ok(())
    })())
}

/// # Safety
/// `tree`, `tail`, `left_out`, `right_out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_tree_root(
    tree: *const u8,
    tail: *const u8,
    tail_len: usize,
    left_out: *mut u8,
    right_out: *mut u8,
) -> i32 {
    code((|| {
        // SAFETY: per the header contract.
        let (tp, t) = unsafe { TreePtr::new(tree) }?;
        let tail = unsafe { input(tail, tail_len) }?;
        output_ok(left_out, KEY_LEN)?;
        output_ok(right_out, KEY_LEN)?;
        if t.offset != 0 {
            return Err(ERR_ROOT_WITH_OFFSET);
        }
        let (left, right) = if t.chunks == 0 {
            // The tail is all of the input: one chunk has no children.
            if tail.len() as u64 <= CHUNK_LEN {
                return Err(ERR_LENGTH);
            }
            if tail.len() as u64 <= WIDE as u64 * CHUNK_LEN {
                let mut cvs = [[0u8; KEY_LEN]; WIDE];
                let n = t.chunk_cvs(0, tail, &mut cvs);
                let [left, right] = t.reduce(&cvs[..n], 2);
                (left, right)
            } else {
                let l = hazmat::left_subtree_len(tail.len() as u64) as usize;
                (
                    t.subtree(0, &tail[..l], None),
                    t.subtree(l as u64, &tail[l..], None),
                )
            }
        } else {
            let tail_cv = if tail.is_empty() {
                None
            } else {
                Some(t.tail_cv(tail)?)
            };
            t.children(&tp, tail_cv).ok_or(ERR_LENGTH)?
        };
        // SAFETY: the tail is no longer borrowed; the outputs are distinct
        // 32-byte buffers per the header.
        unsafe { output(left_out, KEY_LEN) }?.copy_from_slice(&left);
        unsafe { output(right_out, KEY_LEN) }?.copy_from_slice(&right);
        Ok(())
    })())
}

/// # Safety
/// `tree`, `tail`, `cv_out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_tree_finalize_non_root(
    tree: *const u8,
    tail: *const u8,
    tail_len: usize,
    cv_out: *mut u8,
) -> i32 {
    code((|| {
        // SAFETY: per the header contract.
        let (tp, t) = unsafe { TreePtr::new(tree) }?;
        let tail = unsafe { input(tail, tail_len) }?;
        output_ok(cv_out, KEY_LEN)?;
        let cv = if t.chunks == 0 {
            if tail.is_empty() {
                return Err(ERR_EMPTY_SUBTREE);
            }
            t.tail_cv(tail)?
        } else {
            let tail_cv = if tail.is_empty() {
                None
            } else {
                Some(t.tail_cv(tail)?)
            };
            match t.children(&tp, tail_cv) {
                Some((left, right)) => hazmat::merge_subtrees_non_root(&left, &right, t.mode()),
                // One subtree and nothing after it: its own chaining value.
                None => tp.get(t.chunks.trailing_zeros()),
            }
        };
        // SAFETY: the tail is no longer borrowed.
        unsafe { output(cv_out, KEY_LEN) }?.copy_from_slice(&cv);
        Ok(())
    })())
}

// --- Threads ----------------------------------------------------------------

/// The library's own rayon pool. rayon's global pool is never used: it
/// cannot be resized, and after a failed build (threads refused by a pids
/// limit, say) the global registry panics on every use. None until
/// blake3_purego_init_threads succeeds.
static POOL: Mutex<Option<Arc<rayon_core::ThreadPool>>> = Mutex::new(None);

/// The pool, if one was built. A poisoned lock cannot happen (panics abort),
/// but is not a reason to abort either.
fn pool() -> Option<Arc<rayon_core::ThreadPool>> {
    let guard = match POOL.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    guard.clone()
}

/// The pool's threads are named THREAD_NAME_PREFIX and their index, which
/// fits Linux's 15-byte thread names up to index 99 (/proc/PID/task/TID/comm,
/// where the Go tests find them).
const THREAD_NAME_PREFIX: &str = "blake3-rayon-";

/// Spawns one pool thread as rayon's default spawner would, but with every
/// asynchronous signal blocked in the spawning thread for the moment of the
/// spawn, so that the new thread starts with that mask (see `signals`). The
/// caller's mask is restored when `_blocked` drops, after the spawn. Every
/// thread the library creates goes through here: the pool is built only by
/// blake3_purego_init_threads, all its threads are spawned by `build`, and
/// rayon's global pool is never touched (update_rayon runs inside `install`).
fn spawn_masked(thread: rayon_core::ThreadBuilder) -> std::io::Result<()> {
    let mut b = std::thread::Builder::new();
    if let Some(name) = thread.name() {
        b = b.name(name.to_owned());
    }
    if let Some(size) = thread.stack_size() {
        b = b.stack_size(size);
    }
    let _blocked = signals::block_async()?;
    b.spawn(|| thread.run())?;
    Ok(())
}

#[no_mangle]
pub extern "C" fn blake3_purego_init_threads(n: usize) -> i32 {
    if n == 0 {
        return ERR_LENGTH;
    }
    let mut guard = match POOL.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(p) = guard.as_ref() {
        if p.current_num_threads() == n {
            return OK;
        }
    }
    let built = rayon_core::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("{}{}", THREAD_NAME_PREFIX, i))
        .spawn_handler(spawn_masked)
        .build();
    match built {
        Ok(p) => {
            // A pool being replaced finishes the work it holds (its users
            // keep an Arc) and its threads exit when the last user drops it.
            *guard = Some(Arc::new(p));
            OK
        }
        Err(_) => ERR_THREADS,
    }
}

#[no_mangle]
pub extern "C" fn blake3_purego_num_threads() -> usize {
    pool().map_or(0, |p| p.current_num_threads())
}

// --- Signals ----------------------------------------------------------------

/// The signal mask of the threads the library creates.
///
/// No thread the library creates may ever run a signal handler. The Go
/// runtime's handler, run on a thread Go does not know, re-raises a signal
/// that Go would ignore (SIGUSR1, SIGPIPE, SIGALRM, ...) with its default
/// action, which ends the process, and turns SIGQUIT into a bare exit
/// without Go's goroutine dump. So each pool thread is spawned while the
/// spawning thread blocks every asynchronous signal, and inherits that mask
/// (a new POSIX thread starts with its creator's mask) from its first
/// instruction: there is no moment at which it could take one. The kernel
/// then gives process-directed signals to Go's threads, and a signal sent to
/// a pool thread alone stays pending there, never handled.
///
/// The faults a thread raises itself stay unblocked (SIGSEGV, SIGBUS, SIGFPE,
/// SIGILL, SIGTRAP, SIGSYS): POSIX leaves a blocked one undefined (Linux
/// ends the process at once), and a debugger's breakpoints need SIGTRAP.
/// glibc's pthread_sigmask never blocks its own internal signals (32 and 33,
/// used for thread cancellation and set*id), whatever it is asked.
///
/// The libc functions are declared here, with each platform's sigset_t:
/// the `libc` crate is not among the vendored sources.
#[cfg(unix)]
mod signals {
    use std::io;
    use std::os::raw::c_int;
    use std::ptr;

    /// glibc's sigset_t: 1024 bits, 128 bytes, on every Linux architecture.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[repr(C)]
    struct SigSet([u64; 16]);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    const EMPTY: SigSet = SigSet([0; 16]);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    const SIG_BLOCK: c_int = 0;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    const SIG_SETMASK: c_int = 2;
    /// SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV, SIGSYS.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    const FAULTS: [c_int; 6] = [4, 5, 7, 8, 11, 31];

    /// macOS's sigset_t: a 32-bit mask.
    #[cfg(target_os = "macos")]
    #[repr(C)]
    struct SigSet(u32);
    #[cfg(target_os = "macos")]
    const EMPTY: SigSet = SigSet(0);
    #[cfg(target_os = "macos")]
    const SIG_BLOCK: c_int = 1;
    #[cfg(target_os = "macos")]
    const SIG_SETMASK: c_int = 3;
    /// SIGILL, SIGTRAP, SIGFPE, SIGBUS, SIGSEGV, SIGSYS.
    #[cfg(target_os = "macos")]
    const FAULTS: [c_int; 6] = [4, 5, 8, 10, 11, 12];

    #[cfg(not(any(all(target_os = "linux", target_env = "gnu"), target_os = "macos")))]
    compile_error!("declare this platform's sigset_t, SIG_BLOCK, SIG_SETMASK and fault signals");

    extern "C" {
        fn sigfillset(set: *mut SigSet) -> c_int;
        fn sigdelset(set: *mut SigSet, signum: c_int) -> c_int;
        fn pthread_sigmask(how: c_int, set: *const SigSet, oldset: *mut SigSet) -> c_int;
    }

    /// The calling thread's mask from before `block_async`, put back on drop.
    pub struct Blocked {
        old: SigSet,
    }

    /// Blocks every asynchronous signal in the calling thread until the
    /// returned guard drops. An error (none is expected: the arguments are
    /// valid) means nothing was changed, and no thread must be spawned.
    pub fn block_async() -> io::Result<Blocked> {
        let mut set = EMPTY;
        let mut old = EMPTY;
        // SAFETY: `set` and `old` are live, writable sigset_t values of the
        // platform's layout, and outlive the calls.
        unsafe {
            if sigfillset(&mut set) != 0 {
                return Err(io::Error::last_os_error());
            }
            for &sig in FAULTS.iter() {
                if sigdelset(&mut set, sig) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            let rc = pthread_sigmask(SIG_BLOCK, &set, &mut old);
            if rc != 0 {
                return Err(io::Error::from_raw_os_error(rc));
            }
        }
        Ok(Blocked { old })
    }

    impl Drop for Blocked {
        fn drop(&mut self) {
            // SAFETY: `old` is the mask pthread_sigmask wrote; it cannot
            // fail with a valid `how` and set.
            unsafe { pthread_sigmask(SIG_SETMASK, &self.old, ptr::null_mut()) };
        }
    }
}

/// Windows has no POSIX signals: its threads need no mask.
#[cfg(not(unix))]
mod signals {
    pub struct Blocked;

    pub fn block_async() -> std::io::Result<Blocked> {
        Ok(Blocked)
    }
}
