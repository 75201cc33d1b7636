//! The host's side of staged transfers: memory copies split in pieces that the calling thread
//! and a crew of rayon threads take from a shared counter, the crew spinning between batches
//! for as long as one transfer lasts.
//!
//! Why not a `par_iter` per chunk: a staged transfer copies an 8 MiB chunk, then waits on the
//! DMA engine for ~0.15 ms, then copies the next. Idle rayon workers go to sleep in that gap,
//! and waking them (a futex, an inter-processor interrupt under a hypervisor) cost more than
//! the copy itself: 1 GiB pageable through the pipeline took 38 ms with `par_iter` per chunk
//! and 99 ms with 2 MiB chunks, against a 20 ms link. A crew that stays awake for the call
//! takes every chunk at memory speed.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes one crew member copies at a time, unless `GPU_PRIMS_HOST_COPY_PIECE_KIB` sets it (for
/// benchmarks, read once; not a stable interface): 32 pieces per 8 MiB chunk, so that every
/// thread of a 16-core host can take part.
const PIECE: usize = 256 << 10;

fn piece() -> usize {
    static CELL: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CELL.get_or_init(|| {
        std::env::var("GPU_PRIMS_HOST_COPY_PIECE_KIB")
            .ok()
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|k| (4..=65536).contains(k))
            .map_or(PIECE, |k| k << 10)
    })
}

/// How a copy writes its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Store {
    /// Ordinary stores: the destination stays in cache. For copies into a staging slot, which
    /// the DMA engine reads next (from the last-level cache, where it is still held).
    Cached,
    /// Non-temporal (streaming) stores where the target has them: whole cache lines go to
    /// memory without being read first. For copies out of staging into the caller's memory,
    /// far larger than any cache: no read-for-ownership, no eviction of the staging slots
    /// (1 GiB out of a ring on the H100 host: 143 against 66–79 GB/s).
    Streaming,
}

/// A raw host pointer that may cross to rayon's threads (read through `get`, so closures
/// capture the wrapper and not the bare pointer).
#[derive(Clone, Copy)]
pub(crate) struct SharedPtr(pub(crate) *mut u8);
// SAFETY: used only by the crew and the host pipeline, whose tasks touch disjoint byte ranges
// of memory their caller borrows for the call.
unsafe impl Send for SharedPtr {}
// SAFETY: as above.
unsafe impl Sync for SharedPtr {}
impl SharedPtr {
    pub(crate) fn get(self) -> *mut u8 {
        self.0
    }
}

/// One copy of a batch: `len` bytes from `src` to `dst`.
#[derive(Clone, Copy)]
pub(crate) struct HostCopy {
    pub(crate) src: *const u8,
    pub(crate) dst: *mut u8,
    pub(crate) len: usize,
    pub(crate) store: Store,
}

/// Pieces of one batch, claimed through `next`, counted down in `left` as they finish.
struct Batch {
    pieces: Vec<(SharedPtr, SharedPtr, usize, Store)>,
    next: AtomicUsize,
    left: AtomicUsize,
}

impl Batch {
    /// Copies pieces until none is left to claim.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(&(src, dst, n, store)) = self.pieces.get(i) else {
                return;
            };
            // SAFETY: `Crew::copy`'s caller vouches for every range until `left` reaches 0,
            // which cannot happen before this piece is counted below.
            unsafe { copy_piece(src.get(), dst.get(), n, store) };
            // Release: the piece's bytes are visible to whoever sees the count.
            self.left.fetch_sub(1, Ordering::Release);
        }
    }
}

/// What the crew members watch: the current batch, bumped `generation` when there is a new
/// one, and `stop` when the transfer is over; `active` counts members still watching.
struct Shared {
    batch: Mutex<Arc<Batch>>,
    generation: AtomicU64,
    stop: AtomicBool,
    active: AtomicUsize,
}

/// The crew of one transfer ([`with_crew`]).
pub(crate) struct Crew<'a, 's> {
    shared: &'s Shared,
    scope: Option<&'a rayon::Scope<'s>>,
    members: usize,
}

impl Crew<'_, '_> {
    /// Runs every copy of `copies`, the calling thread and the crew together, and returns once
    /// all have finished (their bytes visible to the caller).
    ///
    /// # Safety
    /// Each copy's `src` must be valid for reads and `dst` for writes of `len` bytes (`dst` may
    /// be uninitialised) until this returns; no destination may overlap a source or another
    /// destination, and nothing else may access them meanwhile.
    pub(crate) unsafe fn copy(&self, copies: &[HostCopy]) {
        let piece = piece();
        let mut pieces = Vec::new();
        for c in copies {
            let mut at = 0;
            while at < c.len {
                let n = piece.min(c.len - at);
                pieces.push((
                    // SAFETY: `at < len`: inside the caller's ranges.
                    SharedPtr(unsafe { c.src.add(at) } as *mut u8),
                    SharedPtr(unsafe { c.dst.add(at) }),
                    n,
                    c.store,
                ));
                at += n;
            }
        }
        if pieces.is_empty() {
            return;
        }
        if pieces.len() > 1 {
            self.muster();
        }
        let batch = Arc::new(Batch {
            left: AtomicUsize::new(pieces.len()),
            pieces,
            next: AtomicUsize::new(0),
        });
        *self.shared.batch.lock().unwrap_or_else(|p| p.into_inner()) = batch.clone();
        self.shared.generation.fetch_add(1, Ordering::Release);
        batch.work();
        // Every piece has been claimed; wait for the members still copying theirs.
        while batch.left.load(Ordering::Acquire) != 0 {
            std::hint::spin_loop();
        }
    }

    /// Brings the crew back to strength: members leave after a while without work.
    fn muster(&self) {
        let Some(scope) = self.scope else { return };
        let shared = self.shared;
        let active = shared.active.load(Ordering::Acquire);
        for _ in active..self.members {
            shared.active.fetch_add(1, Ordering::AcqRel);
            scope.spawn(move |_| member(shared));
        }
    }
}

/// Runs `f` with a crew: rayon tasks for every pool thread but one (the calling thread copies
/// too), spinning between batches until `f` returns. The crew only helps: the calling thread
/// takes every piece no member has claimed, so a busy pool (callers inside rayon tasks)
/// delays nothing, and members leave after [`IDLE`] without work, so no wait on a crew is
/// unbounded (a rayon thread waiting for something else may have picked up a member).
pub(crate) fn with_crew<R>(f: impl FnOnce(&Crew<'_, '_>) -> R) -> R {
    let shared = Shared {
        batch: Mutex::new(Arc::new(Batch {
            pieces: Vec::new(),
            next: AtomicUsize::new(0),
            left: AtomicUsize::new(0),
        })),
        generation: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        active: AtomicUsize::new(0),
    };
    let members = rayon::current_num_threads().saturating_sub(1);
    if members == 0 {
        return f(&Crew {
            shared: &shared,
            scope: None,
            members,
        });
    }
    /// Sends the crew home however `f` ends (a panic included), so the scope can close.
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    let shared = &shared;
    rayon::in_place_scope(|scope| {
        let _stop = Stop(&shared.stop);
        f(&Crew {
            shared,
            scope: Some(scope),
            members,
        })
    })
}

/// How long a member waits for a batch before it leaves (a chunk's DMA takes ~0.15 ms; a
/// longer gap is a kernel between chunks, and the next batch musters the crew again).
const IDLE: std::time::Duration = std::time::Duration::from_millis(2);

/// One crew member: takes pieces of each new batch and spins between batches, until the
/// transfer is over or it has waited [`IDLE`].
fn member(shared: &Shared) {
    let mut seen = 0u64;
    let mut since = std::time::Instant::now();
    let mut spins = 0u32;
    while !shared.stop.load(Ordering::Acquire) {
        let g = shared.generation.load(Ordering::Acquire);
        if g != seen {
            seen = g;
            let batch = shared
                .batch
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            batch.work();
            since = std::time::Instant::now();
            continue;
        }
        std::hint::spin_loop();
        spins = spins.wrapping_add(1);
        if spins % 1024 == 0 && since.elapsed() > IDLE {
            break;
        }
    }
    shared.active.fetch_sub(1, Ordering::AcqRel);
}

/// One piece's copy.
///
/// # Safety
/// `src` valid for reads and `dst` for writes of `n` bytes, not overlapping.
unsafe fn copy_piece(src: *const u8, dst: *mut u8, n: usize, store: Store) {
    #[cfg(target_arch = "x86_64")]
    if store == Store::Streaming && n >= 256 {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        // Ordinary stores up to the destination's first 16-byte boundary, streaming stores of
        // 16 bytes (SSE2: every x86_64 has them) to its last, ordinary stores for the rest.
        let head = dst.align_offset(16).min(n);
        let body = (n - head) & !15;
        // SAFETY: the caller's ranges; `dst + head` is 16-byte aligned, as the streaming
        // store needs, and every access lies inside [0, n).
        unsafe {
            std::ptr::copy_nonoverlapping(src, dst, head);
            let (s, d) = (src.add(head), dst.add(head));
            let mut i = 0;
            while i < body {
                let v = _mm_loadu_si128(s.add(i) as *const __m128i);
                _mm_stream_si128(d.add(i) as *mut __m128i, v);
                i += 16;
            }
            std::ptr::copy_nonoverlapping(s.add(body), d.add(body), n - head - body);
            // Streaming stores are weakly ordered: fence them before the piece is counted
            // done, so whoever reads the destination after that sees them.
            _mm_sfence();
        }
        return;
    }
    let _ = store;
    // SAFETY: the caller's ranges.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, n) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(len: usize, offset: usize, store: Store) {
        let src: Vec<u8> = (0..len + 64).map(|i| (i * 7 + 3) as u8).collect();
        let mut dst = vec![0u8; len + 64];
        with_crew(|crew| {
            // SAFETY: both ranges lie inside their vectors, which nothing else touches.
            unsafe {
                crew.copy(&[HostCopy {
                    src: src.as_ptr().add(offset),
                    dst: dst.as_mut_ptr().add(offset ^ 5),
                    len,
                    store,
                }])
            }
        });
        assert_eq!(
            &dst[offset ^ 5..(offset ^ 5) + len],
            &src[offset..offset + len],
            "len {len} offset {offset} {store:?}"
        );
        assert!(dst[..offset ^ 5].iter().all(|&b| b == 0));
        assert!(dst[(offset ^ 5) + len..].iter().all(|&b| b == 0));
    }

    #[test]
    fn copies_every_size_alignment_and_store() {
        for store in [Store::Cached, Store::Streaming] {
            for len in [
                0,
                1,
                15,
                16,
                17,
                255,
                256,
                257,
                4099,
                PIECE - 1,
                PIECE,
                3 * PIECE + 77,
            ] {
                for offset in [0, 1, 13, 16] {
                    run(len, offset, store);
                }
            }
        }
    }

    #[test]
    fn many_batches_in_one_crew_and_several_copies_per_batch() {
        let src: Vec<u32> = (0..1 << 20).collect();
        let mut dst = vec![0u32; 1 << 20];
        let quarter = (1 << 20) / 4;
        with_crew(|crew| {
            for round in 0..8 {
                let copies: Vec<HostCopy> = (0..2)
                    .map(|h| {
                        let q = (round % 2) * 2 + h;
                        HostCopy {
                            // SAFETY (of the adds): quarter q lies inside both vectors.
                            src: unsafe { src.as_ptr().add(q * quarter) } as *const u8,
                            dst: unsafe { dst.as_mut_ptr().add(q * quarter) } as *mut u8,
                            len: quarter * 4,
                            store: if h == 0 {
                                Store::Cached
                            } else {
                                Store::Streaming
                            },
                        }
                    })
                    .collect();
                // SAFETY: disjoint quarters of two vectors nothing else touches.
                unsafe { crew.copy(&copies) };
            }
        });
        assert_eq!(dst, src);
    }

    #[test]
    fn a_crew_inside_busy_rayon_tasks_finishes() {
        use rayon::prelude::*;
        let out: Vec<bool> = (0..32)
            .into_par_iter()
            .map(|k| {
                let src = vec![k as u8; 3 << 20];
                let mut dst = vec![0u8; 3 << 20];
                with_crew(|crew| {
                    // SAFETY: two vectors of this task.
                    unsafe {
                        crew.copy(&[HostCopy {
                            src: src.as_ptr(),
                            dst: dst.as_mut_ptr(),
                            len: src.len(),
                            store: Store::Streaming,
                        }])
                    }
                });
                dst == src
            })
            .collect();
        assert!(out.iter().all(|&b| b));
    }
}
