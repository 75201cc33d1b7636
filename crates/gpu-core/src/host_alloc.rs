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

/// An array of shape `dim` (standard layout) filled with `value` (by rayon's pool where
/// `parallel`), in memory from [`host_output_vec`]: a large result's pages are first touched as
/// huge pages where the kernel allows. (The CPU scans along an axis: 2^24 f32, lanes of 4 along
/// the last axis in C order, 1.41-1.42 → 2.66-2.67 GB/s serial; docs/shapes.md, *The CPU
/// references*.)
///
/// ```
/// let a = gpu_core::host_output_array(ndarray::Ix2(2, 3), 7u8, true);
/// assert_eq!(a, ndarray::Array2::from_elem((2, 3), 7u8));
/// ```
pub fn host_output_array<T, D>(dim: D, value: T, parallel: bool) -> ndarray::Array<T, D>
where
    T: Clone + Send + Sync,
    D: ndarray::Dimension,
{
    use rayon::prelude::*;
    let len = dim.size();
    let mut v = host_output_vec::<T>(len);
    if parallel {
        v.par_extend(rayon::iter::repeat_n(value, len));
    } else {
        v.resize(len, value);
    }
    ndarray::Array::from_shape_vec(dim, v).expect("as many values as the shape holds")
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
    fn arrays_are_filled_whole_serial_or_parallel() {
        // Past the advice threshold, and not a whole number of pages.
        let big = (ADVISE_BYTES / 4) + 5;
        for (dim, parallel) in [(big, false), (big, true), (0, true), (3, false)] {
            let a = host_output_array(ndarray::Ix2(dim, 1), 0x5a5a_5a5au32, parallel);
            assert_eq!(a.dim(), (dim, 1));
            assert!(a.is_standard_layout() && a.iter().all(|&v| v == 0x5a5a_5a5a));
        }
    }

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
