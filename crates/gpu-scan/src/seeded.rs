//! Scans continued from a seed: element `i` of the result is `seed ⊕ x[0] ⊕ … ⊕ x[i]`
//! (inclusive) or `seed ⊕ x[0] ⊕ … ⊕ x[i−1]` (exclusive). A scan cut into pieces is each
//! piece's scan continued from the fold of the pieces before it: the sharded scan of gpu-dist,
//! or a stream of batches. The array is one lane of the lane kernels (split across the device,
//! the splits' seeds scanned from `seed`), since the look-back scan has no way to start from a
//! value yet; that costs about one more read of the input than `scan_into`.

#![allow(deprecated)] // Scanner is the engine Scan drives.

use gpu_core::{AxisLanes, DeviceArray, Element, Error, Input, LaneBatches, Op, Pod, Result};

use crate::gpu::LaneKind;
use crate::{Scan, ScanKind, ScanMonoid};

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
        self.lane_from_into(x, out, &format!("{}_{}", op.name(), T::NAME), seed)
    }

    /// [`scan_from_into`](Scan::scan_from_into) for [`gpu_core::Mat2`] / [`gpu_core::Affine`]
    /// values, in sequence order: `seed` comes first.
    pub fn scan_monoid_from_into<M: ScanMonoid>(
        &self,
        x: &(impl Input<M> + ?Sized),
        out: &mut DeviceArray<M>,
        seed: M,
    ) -> Result<()> {
        self.lane_from_into(x, out, M::NAME, seed)
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
        self.lane_from(
            p,
            p,
            data.len(),
            &format!("{}_{}", op.name(), T::NAME),
            seed,
        )
    }

    /// [`scan_monoid_from_into`](Scan::scan_monoid_from_into) in place.
    pub fn scan_monoid_from_in_place<M: ScanMonoid>(
        &self,
        data: &mut DeviceArray<M>,
        seed: M,
    ) -> Result<()> {
        self.gpu().check_same_device(data.gpu(), "data")?;
        let p = data.device_ptr();
        self.lane_from(p, p, data.len(), M::NAME, seed)
    }

    fn lane_from_into<T: Pod>(
        &self,
        x: &(impl Input<T> + ?Sized),
        out: &mut DeviceArray<T>,
        suffix: &str,
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
        self.lane_from(staged.device_ptr(), out.device_ptr(), n, suffix, seed)
    }

    /// The seeded scan of the `n` values at `input` into `output`: distinct arrays of `n`
    /// values on this device, or the same one (the lane kernel scans a lane in place).
    fn lane_from<T: Pod>(
        &self,
        input: u64,
        output: u64,
        n: usize,
        suffix: &str,
        seed: T,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let seed = self.gpu().upload(&[seed])?;
        let lanes = LaneBatches {
            lanes: AxisLanes {
                count: 1,
                inner: 1,
                len: n as u64,
                outer_stride: 0,
                inner_stride: 1,
                axis_stride: 1,
            },
            batches: vec![0],
        };
        let kind = LaneKind {
            suffix,
            value_size: std::mem::size_of::<T>(),
        };
        let exclusive = self.scan_options().kind == ScanKind::Exclusive;
        self.with_scanner(|s, stream| {
            let plan = s.axis_plan(&kind, &lanes.lanes)?;
            s.in_order(stream, |s| {
                s.enqueue_lanes(
                    &kind,
                    input,
                    &lanes,
                    output,
                    &lanes,
                    plan,
                    exclusive,
                    seed.device_ptr(),
                    stream,
                )
            })?;
            // The seed's upload is freed on return: wait for the launches that read it.
            stream.synchronize()
        })
    }
}
