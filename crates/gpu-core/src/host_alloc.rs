//! Host memory for large results: an empty `Vec` whose capacity the library fills (a
//! download, the drain of a host pipeline). On Linux the capacity is advised for transparent
//! huge pages: a fresh GiB first touched in 4 KiB pages cost ~0.45 s of page faults on one
//! thread of the H100 host (0.14 s in 2 MiB pages), and a pipeline's output is first touched
//! while the link waits.

/// Results at least this large get the advice (smaller ones come from the allocator's heap,
/// not a mapping of their own).
const ADVISE_BYTES: usize = 32 << 20;

/// An empty `Vec` with room for `len` elements, for a result the library writes in full.
///
/// ```
/// let v = gpu_core::host_output_vec::<f32>(1 << 20);
/// assert!(v.is_empty() && v.capacity() >= 1 << 20);
/// ```
pub fn host_output_vec<T>(len: usize) -> Vec<T> {
    let v = Vec::<T>::with_capacity(len);
    let bytes = len.saturating_mul(std::mem::size_of::<T>());
    if bytes >= ADVISE_BYTES {
        advise_huge_pages(v.as_ptr() as usize, bytes);
    }
    v
}

/// Asks the kernel for huge pages over the whole 4 KiB pages inside `[at, at + bytes)`.
#[cfg(target_os = "linux")]
fn advise_huge_pages(at: usize, bytes: usize) {
    const PAGE: usize = 4096;
    const MADV_HUGEPAGE: i32 = 14;
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, length: usize, advice: i32) -> i32;
    }
    let start = at.next_multiple_of(PAGE);
    let end = (at + bytes) / PAGE * PAGE;
    if end > start {
        // SAFETY: the range lies inside the vector's own allocation (whole pages of it);
        // MADV_HUGEPAGE only changes how the kernel backs those pages, never their contents,
        // and a refusal (old kernels, THP off) is harmless, so the result is ignored.
        let _ = unsafe { madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_at: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_outputs_are_plain_vectors() {
        for len in [0usize, 1, 1000, (64 << 20) / 4 + 3] {
            let mut v = host_output_vec::<u32>(len);
            assert!(v.is_empty() && v.capacity() >= len);
            v.extend((0..len as u32).map(|i| i ^ 0x5a5a));
            assert!(v.iter().enumerate().all(|(i, &x)| x == (i as u32) ^ 0x5a5a));
        }
    }
}
