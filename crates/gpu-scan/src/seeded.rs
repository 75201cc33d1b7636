//! Scans continued from a seed: element `i` of the result is `seed ⊕ x[0] ⊕ … ⊕ x[i]`
//! (inclusive) or `seed ⊕ x[0] ⊕ … ⊕ x[i−1]` (exclusive). A scan cut into pieces is each
//! piece's scan continued from the fold of the pieces before it: the sharded scan of gpu-dist,
//! or a stream of batches. One pass: the look-back scan whose first tile takes the seed as its
//! prefix (`scan_lookback[_staged]_seeded_*`, always the fixed-order look-back), in place too.

#![allow(deprecated)] // Scanner is the engine Scan drives.

use gpu_core::{DeviceArray, Element, Error, Input, Op, Pod, Result};

use crate::gpu::{Combo, SeedValue};
use crate::{Scan, ScanMonoid};

impl Scan<'_> {
    /// The scan of `x` with `op` into `out` (the same length), continued from `seed`:
    /// inclusive `out[i] = seed ⊕ x[0] ⊕ … ⊕ x[i]`, exclusive `out[i] = seed ⊕ x[0] ⊕ … ⊕
    /// x[i−1]` (so `out[0] = seed`). With the identity as `seed`, the values of
    /// [`scan_into`](Scan::scan_into) (floats grouped otherwise: within the same bound). Not for
    /// f16 and bf16 yet (an `InvalidArgument`). Waits for the result (on the
    /// [`stream`](Scan::stream) if one was set).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// let gpu = Gpu::default_device()?;
    /// let mut out = gpu.alloc::<i64>(3)?;
    /// gpu_scan::Scan::new(&gpu).scan_from_into(&[1i64, 2, 3], &mut out, Op::Sum, 100)?;
    /// assert_eq!(out.to_vec()?, [101, 103, 106]);
    /// # Ok(()) }
    /// ```
    pub fn scan_from_into<T: Element>(
        &self,
        x: &(impl Input<T> + ?Sized),
        out: &mut DeviceArray<T>,
        op: Op,
        seed: T,
    ) -> Result<()> {
        crate::check_op_shaped::<T>(op)?;
        self.seeded_into(x, out, Combo::op::<T>(op)?, seed)
    }

    /// [`scan_from_into`](Scan::scan_from_into) for [`gpu_core::Mat2`] / [`gpu_core::Affine`]
    /// values, in sequence order: `seed` comes first.
    pub fn scan_monoid_from_into<M: ScanMonoid>(
        &self,
        x: &(impl Input<M> + ?Sized),
        out: &mut DeviceArray<M>,
        seed: M,
    ) -> Result<()> {
        self.seeded_into(x, out, Combo::monoid::<M>(), seed)
    }

    /// [`scan_from_into`](Scan::scan_from_into) in place: `data` replaced by its scan
    /// continued from `seed` (the sharded scan of an array too large for a second copy).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// let gpu = Gpu::default_device()?;
    /// let mut x = gpu.upload(&[1i64, 2, 3])?;
    /// gpu_scan::Scan::new(&gpu).scan_from_in_place(&mut x, Op::Sum, 100)?;
    /// assert_eq!(x.to_vec()?, [101, 103, 106]);
    /// # Ok(()) }
    /// ```
    pub fn scan_from_in_place<T: Element>(
        &self,
        data: &mut DeviceArray<T>,
        op: Op,
        seed: T,
    ) -> Result<()> {
        crate::check_op_shaped::<T>(op)?;
        self.gpu().check_same_device(data.gpu(), "data")?;
        let p = data.device_ptr();
        self.seeded(p, p, data.len(), Combo::op::<T>(op)?, seed)
    }

    /// [`scan_monoid_from_into`](Scan::scan_monoid_from_into) in place.
    pub fn scan_monoid_from_in_place<M: ScanMonoid>(
        &self,
        data: &mut DeviceArray<M>,
        seed: M,
    ) -> Result<()> {
        self.gpu().check_same_device(data.gpu(), "data")?;
        let p = data.device_ptr();
        self.seeded(p, p, data.len(), Combo::monoid::<M>(), seed)
    }

    fn seeded_into<T: Pod>(
        &self,
        x: &(impl Input<T> + ?Sized),
        out: &mut DeviceArray<T>,
        combo: Combo,
        seed: T,
    ) -> Result<()> {
        self.gpu().check_same_device(out.gpu(), "out")?;
        let staged = x.stage(self.gpu())?;
        let n = staged.len();
        if out.len() != n {
            return Err(Error::invalid(
                "out",
                format!("holds {} values for an input of {n}", out.len()),
            ));
        }
        self.seeded(staged.device_ptr(), out.device_ptr(), n, combo, seed)
    }

    /// The seeded scan of the `n` values at `input` into `output`: distinct arrays of `n`
    /// values on this device, or the same one (a look-back block reads its values before it
    /// writes, and no other block's).
    fn seeded<T: Pod>(
        &self,
        input: u64,
        output: u64,
        n: usize,
        combo: Combo,
        seed: T,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let seed = SeedValue::new(seed)?;
        let options = self.scan_options();
        self.with_scanner(|s, stream| {
            s.enqueue_seeded(&combo, input, output, n, seed, &options, stream)?;
            // Waits, as documented (a staged host input lives only as long as this call).
            stream.synchronize()
        })
    }
}
