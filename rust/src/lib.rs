//! A thin C ABI over the official `blake3` crate, for the Go package
//! `github.com/purego-blake3/blake3`, which loads it with purego (no cgo).
//!
//! `include/blake3_purego.h` is the contract; this file only translates it to
//! the crate's API. Every misuse the crate would answer with a panic (which
//! `panic = "abort"` would turn into a process abort) is checked here first
//! and returned as an error code.

#![deny(unsafe_op_in_unsafe_fn)]

use blake3::hazmat::{self, HasherExt, Mode};
use blake3::Hasher;
use std::mem::{align_of, size_of};
use std::ptr;
use std::slice;
use std::sync::{Arc, Mutex};

const ABI_VERSION: u32 = 1;
const KEY_LEN: usize = 32;
const CHUNK_LEN: u64 = 1024;

const OK: i32 = 0;
const ERR_NULL: i32 = -1;
const ERR_STATE: i32 = -2;
const ERR_OFFSET_UNALIGNED: i32 = -3;
const ERR_OFFSET_AFTER_INPUT: i32 = -4;
const ERR_SUBTREE_TOO_LARGE: i32 = -5;
const ERR_ROOT_WITH_OFFSET: i32 = -6;
const ERR_EMPTY_SUBTREE: i32 = -7;
const ERR_CONTEXT_UTF8: i32 = -8;
const ERR_LENGTH: i32 = -9;
const ERR_THREADS: i32 = -10;

const MODE_HASH: u32 = 0;
const MODE_KEYED: u32 = 1;
const MODE_DERIVE_KEY: u32 = 2;

/// Written by the init functions; a state without it was never initialized,
/// and is refused before it is read as a `Hasher`.
const MAGIC: u64 = 0x6233_7075_7265_676f; // "b3purego"

/// The caller-owned state. `Hasher` holds no pointers or resources, so the
/// whole struct may be copied byte for byte and dropped without a call.
#[repr(C)]
struct State {
    magic: u64,
    /// The hazmat input offset, tracked here because the crate keeps it
    /// private and panics on the misuses that depend on it.
    input_offset: u64,
    /// MODE_* and its 32-byte key (the context key for derive-key), kept so
    /// that reset can rebuild the hasher: the crate's own reset leaves a
    /// hazmat offset half-cleared.
    mode: u32,
    key: [u8; KEY_LEN],
    hasher: Hasher,
}

/// A fresh hasher for a MODE_* and its key.
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

/// The initialized state behind `p`.
///
/// # Safety
/// A non-NULL `p` must be valid for `size_of::<State>()` bytes with
/// `align_of::<State>()` alignment, and not aliased for the call.
unsafe fn state_mut<'a>(p: *mut u8) -> Result<&'a mut State, i32> {
    // SAFETY: forwarded; p is the caller's exclusive state.
    let s = unsafe { checked_state(p) }? as *mut State;
    // SAFETY: initialized by an init function, as the magic shows.
    Ok(unsafe { &mut *s })
}

/// # Safety
/// As for `state_mut`, for reads only: no `&mut` is made, so several
/// readers of one state (copies of a Digest) never alias a unique borrow.
unsafe fn state_ref<'a>(p: *const u8) -> Result<&'a State, i32> {
    // SAFETY: forwarded.
    let s = unsafe { checked_state(p) }?;
    // SAFETY: initialized by an init function, as the magic shows.
    Ok(unsafe { &*s })
}

/// Checks a state pointer: not NULL, aligned, and initialized (its magic).
///
/// # Safety
/// A non-NULL, aligned `p` must be valid for reads of a `State`.
unsafe fn checked_state(p: *const u8) -> Result<*const State, i32> {
    let s = p as *const State;
    if s.is_null() || (s as usize) % align_of::<State>() != 0 {
        return Err(ERR_NULL);
    }
    // SAFETY: read the magic through a raw field pointer, so that no
    // reference to a possibly invalid Hasher is made before it is checked.
    if unsafe { ptr::addr_of!((*s).magic).read() } != MAGIC {
        return Err(ERR_STATE);
    }
    Ok(s)
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

/// Writes a fresh state into caller memory.
///
/// # Safety
/// As for `state_mut`; the memory may be uninitialized.
unsafe fn write_state(p: *mut u8, mode: u32, key: [u8; KEY_LEN]) -> i32 {
    let s = p as *mut State;
    if s.is_null() || (s as usize) % align_of::<State>() != 0 {
        return ERR_NULL;
    }
    // SAFETY: valid, aligned, and written whole without reading the old value.
    unsafe {
        s.write(State {
            magic: MAGIC,
            input_offset: 0,
            mode,
            key,
            hasher: new_hasher(mode, &key),
        })
    };
    OK
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

/// Checks that `len` more bytes fit the subtree the state hashes, which the
/// crate would otherwise answer with a panic (or, per its docs, garbage).
fn check_room(s: &State, len: usize) -> Result<(), i32> {
    if let Some(max) = max_len(s.input_offset) {
        let total = s
            .hasher
            .count()
            .checked_add(len as u64)
            .ok_or(ERR_SUBTREE_TOO_LARGE)?;
        if total > max {
            return Err(ERR_SUBTREE_TOO_LARGE);
        }
    }
    Ok(())
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

// --- State ------------------------------------------------------------------

#[no_mangle]
pub extern "C" fn blake3_purego_state_size() -> usize {
    size_of::<State>()
}

#[no_mangle]
pub extern "C" fn blake3_purego_state_align() -> usize {
    align_of::<State>()
}

/// # Safety
/// `state`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_init(state: *mut u8) -> i32 {
    // SAFETY: per the header contract.
    unsafe { write_state(state, MODE_HASH, [0; KEY_LEN]) }
}

/// # Safety
/// `state`, `key`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_init_keyed(state: *mut u8, key: *const u8) -> i32 {
    // SAFETY: per the header contract.
    match unsafe { array32(key) } {
        Ok(k) => unsafe { write_state(state, MODE_KEYED, k) },
        Err(e) => e,
    }
}

/// # Safety
/// `state`, `context`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_init_derive_key(
    state: *mut u8,
    context: *const u8,
    context_len: usize,
) -> i32 {
    // SAFETY: per the header contract.
    let ctx = match unsafe { input(context, context_len) }.and_then(context_str) {
        Ok(c) => c,
        Err(e) => return e,
    };
    unsafe { write_state(state, MODE_DERIVE_KEY, hazmat::hash_derive_key_context(ctx)) }
}

/// # Safety
/// `state`, `context_key`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_init_context_key(
    state: *mut u8,
    context_key: *const u8,
) -> i32 {
    // SAFETY: per the header contract.
    match unsafe { array32(context_key) } {
        Ok(k) => unsafe { write_state(state, MODE_DERIVE_KEY, k) },
        Err(e) => e,
    }
}

/// # Safety
/// `state`, `input`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_update(state: *mut u8, data: *const u8, len: usize) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let s = unsafe { state_mut(state) }?;
        let data = unsafe { input(data, len) }?;
        check_room(s, data.len())?;
        s.hasher.update(data);
        Ok(())
    })())
}

/// # Safety
/// `state`, `input`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_update_rayon(
    state: *mut u8,
    data: *const u8,
    len: usize,
) -> i32 {
    // SAFETY: per the header contract; rayon's workers only read `data` and
    // are joined before update_rayon returns.
    code((|| {
        let s = unsafe { state_mut(state) }?;
        let data = unsafe { input(data, len) }?;
        check_room(s, data.len())?;
        match pool() {
            // Inside install, blake3's joins run on this pool's threads.
            Some(p) => p.install(|| {
                s.hasher.update_rayon(data);
            }),
            None => {
                s.hasher.update(data);
            }
        }
        Ok(())
    })())
}

/// # Safety
/// `state`, `out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_finalize(
    state: *const u8,
    seek: u64,
    out: *mut u8,
    out_len: usize,
) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let s = unsafe { state_ref(state) }?;
        let out = unsafe { output(out, out_len) }?;
        if s.input_offset != 0 {
            return Err(ERR_ROOT_WITH_OFFSET);
        }
        fill_xof(s.hasher.finalize_xof(), seek, out);
        Ok(())
    })())
}

/// # Safety
/// `state`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_reset(state: *mut u8) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let s = unsafe { state_mut(state) }?;
        // Not Hasher::reset: it zeroes the chunk counter but keeps the hazmat
        // starting counter, after which count() underflows.
        s.hasher = new_hasher(s.mode, &s.key);
        s.input_offset = 0;
        Ok(())
    })())
}

/// # Safety
/// `state`, `count`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_count(state: *const u8, count: *mut u64) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let s = unsafe { state_ref(state) }?;
        if count.is_null() {
            return Err(ERR_NULL);
        }
        unsafe { count.write_unaligned(s.hasher.count()) };
        Ok(())
    })())
}

// --- One-shot ---------------------------------------------------------------

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
        let reader = Hasher::new_derive_key(ctx)
            .update(unsafe { input(material, len) }?)
            .finalize_xof();
        // SAFETY: the context and material are no longer borrowed.
        fill_xof(reader, 0, unsafe { output(out, out_len) }?);
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
        let ctx = context_str(unsafe { input(context, context_len) }?)?;
        let out = unsafe { output(context_key_out, KEY_LEN) }?;
        out.copy_from_slice(&hazmat::hash_derive_key_context(ctx));
        Ok(())
    })())
}

/// # Safety
/// `state`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_set_input_offset(state: *mut u8, offset: u64) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let s = unsafe { state_mut(state) }?;
        if offset % CHUNK_LEN != 0 {
            return Err(ERR_OFFSET_UNALIGNED);
        }
        if s.hasher.count() != 0 {
            return Err(ERR_OFFSET_AFTER_INPUT);
        }
        s.hasher.set_input_offset(offset);
        s.input_offset = offset;
        Ok(())
    })())
}

/// # Safety
/// `state`, `cv_out`: see the header.
#[no_mangle]
pub unsafe extern "C" fn blake3_purego_finalize_non_root(state: *const u8, cv_out: *mut u8) -> i32 {
    // SAFETY: per the header contract.
    code((|| {
        let s = unsafe { state_ref(state) }?;
        let out = unsafe { output(cv_out, blake3::OUT_LEN) }?;
        if s.hasher.count() == 0 {
            return Err(ERR_EMPTY_SUBTREE);
        }
        out.copy_from_slice(&s.hasher.finalize_non_root());
        plant(out);
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
