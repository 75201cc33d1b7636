//! [`DeviceScan`]: method syntax for device arrays (`x.scan(Op::Sum)?`), thin wrappers over
//! [`Scan`] with its defaults.

use gpu_core::{DeviceArray, Element, Op, Result};

use crate::Scan;

/// Method syntax for device arrays: `x.scan(op)?`, `x.exclusive_scan(op)?`, … with the
/// default algorithm on the array's device. For options, streams or reused scratch, use
/// [`Scan`].
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::Op;
/// use gpu_scan::DeviceScan;
/// let gpu = gpu_core::Gpu::default_device()?;
/// let mut x = gpu.upload(&[2u64, 9, 4])?;
/// assert_eq!(x.scan(Op::Sum)?, vec![2, 11, 15]);
/// assert_eq!(x.exclusive_scan(Op::Max)?, vec![0, 2, 9]);
/// x.scan_in_place(Op::Sum)?;
/// assert_eq!(x.to_vec()?, vec![2, 11, 15]);
/// # Ok(()) }
/// ```
pub trait DeviceScan<T: Element> {
    /// The inclusive scan with `op`, on the host (see [`Scan::scan`]).
    fn scan(&self, op: Op) -> Result<Vec<T>>;
    /// The exclusive scan with `op`, on the host.
    fn exclusive_scan(&self, op: Op) -> Result<Vec<T>>;
    /// The inclusive scan into `out` (see [`Scan::scan_into`]); waits.
    fn scan_into(&self, out: &mut DeviceArray<T>, op: Op) -> Result<()>;
    /// The inclusive scan in place (see [`Scan::scan_in_place`]); waits.
    fn scan_in_place(&mut self, op: Op) -> Result<()>;
}

impl<T: Element> DeviceScan<T> for DeviceArray<T> {
    fn scan(&self, op: Op) -> Result<Vec<T>> {
        Scan::new(self.gpu()).scan(self, op)
    }
    fn exclusive_scan(&self, op: Op) -> Result<Vec<T>> {
        Scan::new(self.gpu()).exclusive().scan(self, op)
    }
    fn scan_into(&self, out: &mut DeviceArray<T>, op: Op) -> Result<()> {
        Scan::new(self.gpu()).scan_into(self, out, op)
    }
    fn scan_in_place(&mut self, op: Op) -> Result<()> {
        Scan::new(self.gpu()).scan_in_place(self, op)
    }
}
