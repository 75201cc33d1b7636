//! Device-side fills (gpu-core's own kernels): poisoning outputs in tests, generating data.

use crate::device::Gpu;
use crate::element::Element;
use crate::error::Result;
use crate::kernel_pack::{Cubins, Ptx};
use crate::memory::DeviceArray;
use crate::stream::Stream;

/// gpu-core's kernels, compiled from `kernels/core.cu`.
pub(crate) static CORE_PTX: Ptx =
    Ptx::archive("gpu-core/core", include_bytes!("ptx/core.ptx.kpack")).with_cubins(&[
        Cubins::new(80, include_bytes!("ptx/core.sm_80.kpack")),
        Cubins::new(90, include_bytes!("ptx/core.sm_90.kpack")),
    ]);

/// gpu-core's kernel packs (for size reports and preloading).
pub static KERNELS: &[&Ptx] = &[&CORE_PTX];

const BLOCK: u32 = 256;

impl<T: Element> DeviceArray<T> {
    /// Sets every element to `value`, on `stream`.
    pub fn fill(&mut self, value: T, stream: &Stream) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let kernel = self.gpu().kernel(&CORE_PTX, &format!("fill_{}", T::NAME))?;
        let config = kernel.grid_stride_config(self.len() as u64, BLOCK, 4, 0)?;
        // SAFETY: fill_T(T* out, u64 n, T value) writes out[0..n), and the array holds n elements.
        unsafe {
            kernel.launch(
                config,
                stream,
                &crate::kernel_args![self.device_ptr(), self.len() as u64, value],
            )
        }
    }
}

impl Gpu {
    /// A new array holding `0, 1, 2, …` converted to `T` (wrapping for narrow integers).
    pub fn iota<T: Element>(&self, len: usize) -> Result<DeviceArray<T>> {
        let out = self.alloc::<T>(len)?;
        if len > 0 {
            let kernel = self.kernel(&CORE_PTX, &format!("iota_{}", T::NAME))?;
            let config = kernel.grid_stride_config(len as u64, BLOCK, 4, 0)?;
            // SAFETY: iota_T(T* out, u64 n) writes out[0..n), and `out` holds n elements.
            unsafe {
                kernel.launch(
                    config,
                    self.stream(),
                    &crate::kernel_args![out.device_ptr(), len as u64],
                )?;
            }
            self.stream().synchronize()?;
        }
        Ok(out)
    }
}
