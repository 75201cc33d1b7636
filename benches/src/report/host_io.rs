//! Host memory for the host-to-host rows of the scan and conv1d groups: the same call from a
//! pageable slice into a pageable result made beforehand, and from page-locked into
//! page-locked memory, through the host pipeline and one-shot.

use std::cell::RefCell;

use gpu_core::{Element, Gpu, PinnedBuffer, Pipelining};

use super::{check, Verdict};

/// The two paths each host-to-host row is timed on, with their row names.
pub const PATHS: [(&str, Pipelining); 2] = [
    ("pipelined", Pipelining::Always),
    ("one_shot", Pipelining::Never),
];

/// A pageable result and page-locked input and result, made once per group.
pub struct HostIo<T: Element> {
    pageable_out: RefCell<Vec<T>>,
    pinned_in: PinnedBuffer<T>,
    pinned_out: RefCell<PinnedBuffer<T>>,
}

impl<T: Element> HostIo<T> {
    /// Room for `out_len` results, and `host` in page-locked memory.
    pub fn new(gpu: &Gpu, host: &[T], out_len: usize) -> gpu_core::Result<Self> {
        Ok(HostIo {
            pageable_out: RefCell::new(vec![T::default(); out_len]),
            pinned_in: gpu.pinned_from(host)?,
            pinned_out: RefCell::new(gpu.pinned::<T>(out_len)?),
        })
    }

    /// Runs `call(input, output)` on `host` into the pageable result, or on the page-locked
    /// copy into the page-locked result.
    pub fn run(
        &self,
        host: &[T],
        pinned: bool,
        call: impl FnOnce(&[T], &mut [T]) -> gpu_core::Result<()>,
    ) -> gpu_core::Result<()> {
        if pinned {
            let mut out = self.pinned_out.borrow_mut();
            call(self.pinned_in.as_slice()?, out.as_mut_slice()?)
        } else {
            call(host, &mut self.pageable_out.borrow_mut())
        }
    }

    /// The last result of that kind against `reference`.
    pub fn check(&self, pinned: bool, reference: &[T]) -> Verdict {
        self.check_within(pinned, reference, 0.0)
    }

    /// [`check`](Self::check) with [`check::slices_within`]'s slack (FFT results).
    pub fn check_within(&self, pinned: bool, reference: &[T], abs: f64) -> Verdict {
        if pinned {
            match self.pinned_out.borrow().as_slice() {
                Ok(v) => check::slices_within(v, reference, abs),
                Err(e) => Verdict::error(&e),
            }
        } else {
            check::slices_within(&self.pageable_out.borrow(), reference, abs)
        }
    }
}
