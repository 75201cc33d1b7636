//! Scans continued from a seed: element `i` of the result is `seed ⊕ x[0] ⊕ … ⊕ x[i]`
//! (inclusive) or `seed ⊕ x[0] ⊕ … ⊕ x[i−1]` (exclusive). A scan cut into pieces is each
//! piece's scan continued from the fold of the pieces before it: the sharded scan of gpu-dist,
//! or a stream of batches. Sums take one pass: the look-back scan whose first tile takes the
//! seed as its prefix (`scan_lookback[_staged]_seeded_sum_*`, always the fixed-order
//! look-back). The other operators and the monoids run as one lane of the lane kernels (split
//! across the device, the splits' seeds scanned from `seed`): about one more read of the input
//! (their seeded look-back kernels would push the crate past crates.io's 10 MB). In place too.

#![allow(deprecated)] // Scanner is the engine Scan drives.

use gpu_core::{AxisLanes, DeviceArray, Element, Error, Input, LaneBatches, Op, Pod, Result};

use crate::gpu::{Combo, LaneKind, SeedValue};
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
        crate::check_op_seeded::<T>(op)?;
        self.seeded_into(x, out, Path::op::<T>(op)?, seed)
    }

    /// [`scan_from_into`](Scan::scan_from_into) for [`gpu_core::Mat2`] / [`gpu_core::Affine`]
    /// values, in sequence order: `seed` comes first.
    pub fn scan_monoid_from_into<M: ScanMonoid>(
        &self,
        x: &(impl Input<M> + ?Sized),
        out: &mut DeviceArray<M>,
        seed: M,
    ) -> Result<()> {
        self.seeded_into(x, out, Path::monoid::<M>(), seed)
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
        crate::check_op_seeded::<T>(op)?;
        self.gpu().check_same_device(data.gpu(), "data")?;
        let p = data.device_ptr();
        self.seeded(p, p, data.len(), Path::op::<T>(op)?, seed)
    }

    /// [`scan_monoid_from_into`](Scan::scan_monoid_from_into) in place.
    pub fn scan_monoid_from_in_place<M: ScanMonoid>(
        &self,
        data: &mut DeviceArray<M>,
        seed: M,
    ) -> Result<()> {
        self.gpu().check_same_device(data.gpu(), "data")?;
        let p = data.device_ptr();
        self.seeded(p, p, data.len(), Path::monoid::<M>(), seed)
    }

    fn seeded_into<T: Pod>(
        &self,
        x: &(impl Input<T> + ?Sized),
        out: &mut DeviceArray<T>,
        path: Path,
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
        self.seeded(staged.device_ptr(), out.device_ptr(), n, path, seed)
    }

    /// The seeded scan of the `n` values at `input` into `output`: distinct arrays of `n`
    /// values on this device, or the same one (a look-back block, and a lane kernel's thread,
    /// reads its values before it writes them, and no other's).
    fn seeded<T: Pod>(&self, input: u64, output: u64, n: usize, path: Path, seed: T) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        match path {
            Path::LookBack(combo) => {
                let seed = SeedValue::new(seed)?;
                let options = self.scan_options();
                self.with_scanner(|s, stream| {
                    s.enqueue_seeded(&combo, input, output, n, seed, &options, stream)?;
                    // Waits, as documented (a staged host input lives only as long as this call).
                    stream.synchronize()
                })
            }
            Path::Lanes(suffix) => self.lane_seeded(input, output, n, &suffix, seed),
        }
    }

    /// The lane kernels' seeded scan: the array as one lane, split across the device.
    fn lane_seeded<T: Pod>(
        &self,
        input: u64,
        output: u64,
        n: usize,
        suffix: &str,
        seed: T,
    ) -> Result<()> {
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
        let kind = LaneKind::new(suffix, std::mem::size_of::<T>());
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

/// How a seeded scan runs: the seeded look-back (sums) or the lane kernels (the rest).
enum Path {
    LookBack(Combo),
    Lanes(String),
}

impl Path {
    fn op<T: Element>(op: Op) -> Result<Self> {
        Ok(if op == Op::Sum {
            Path::LookBack(Combo::op::<T>(op)?)
        } else {
            Path::Lanes(format!("{}_{}", op.name(), T::NAME))
        })
    }

    fn monoid<M: ScanMonoid>() -> Self {
        Path::Lanes(M::NAME.to_string())
    }
}
