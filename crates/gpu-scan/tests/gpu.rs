//! gpu-scan on a real GPU: every algorithm × form × type × operator against the serial CPU scan.
//! Skipped (visibly) without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
//!
//! Float tolerance. Sums and products are compared with an f64 reference (the exact scan of the
//! same f32/f64 inputs, up to f64 rounding), element by element, relative to the *running fold of
//! |x|*: for a sum, S_i = |x_0| + … + |x_i|; for a product, S_i = |x_0 · … · x_i|:
//!
//!     |gpu_i − ref_i| ≤ K · u · S_i        (u = 2^-24 for f32, 2^-53 for f64; K = 64)
//!
//! Why S_i and not |ref_i|: a sum of values of both signs can cancel to nearly zero while every
//! partial sum on the way carried rounding errors of the size of u times those partials, so
//! relative error against ref_i means nothing; S_i bounds every partial. The worst-case bound for
//! any summation tree is γ_d · S_i (γ_d ≈ d·u) with d the number of roundings on an element's
//! path; K = 64 is that bound for d ≤ 64, which covers the in-tile / in-block depth of every
//! algorithm here (look-back: ≤ 4 in-vector + 5 warp + 4 rows + 32 warps + 2; Hillis–Steele
//! log2(B) per level; Blelloch 2·log2(2B) per level). Across tiles the depth grows with the
//! number of tiles, but those errors are independent roundings of partial sums of random-sign
//! data: they add up like a random walk, ~√d · u · max|partial| ≪ K·u·S_i. For a float32 cumsum
//! of 10^8 values in [−1, 1] that is ~0.1 at the end against K·u·S ≈ 190 (S ≈ 5·10^7), while
//! the values themselves wander by ~±6000: the check cannot tell a small bug in late elements
//! from rounding, which is why the same kernels are also checked bit-exactly on integers (same
//! templates, same indexing). Products have no cancellation: S_i = |ref_i|, a relative bound;
//! but every one of the i multiplications that built element i rounds once, whatever the tree
//! (unlike a sum, where only the roundings on an element's path count), so products get
//! K = 64 + (i + 1). Monoids (matrix / affine, float) use the scan of entrywise |·| as S_i with
//! K = 128 + 2·(i + 1) (each combine rounds up to twice per entry, and their `a` parts are
//! products), plus an absolute (i + 1)·MIN_POSITIVE for the products that sink into subnormals,
//! where relative precision ends.
#![cfg(feature = "cuda")]

use gpu_core::data::{self, SplitMix64};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{Affine, DeviceArray, Element, Gpu, Mat2, Monoid, Op};
use gpu_scan::{cpu, is_exact, Algorithm, Scan, ScanKind, ScanMonoid, ScanOptions, TileStaging};
use ndarray::{s, Array1};

const KINDS: [ScanKind; 2] = [ScanKind::Inclusive, ScanKind::Exclusive];
const GPU_ALGORITHMS: [Algorithm; 6] = Algorithm::GPU;
const BLOCKS: [u32; 6] = [32, 64, 128, 256, 512, 1024];

/// 0, 1, 2^k and 2^k ± 1 up to 2^16, and the sizes the issue names.
fn sizes() -> Vec<usize> {
    let mut v = vec![0, 1, 2, 3, 1000, 4097 * 3];
    for k in 2..=16 {
        v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    v.sort_unstable();
    v.dedup();
    v
}

const LARGE: [usize; 4] = [(1 << 18) + 1, (1 << 20) - 1, (1 << 20) + 1, 3 << 19];

fn unit_roundoff<T>() -> f64 {
    if std::mem::size_of::<T>() == 4 {
        2f64.powi(-24)
    } else {
        2f64.powi(-53)
    }
}

// ---- data ------------------------------------------------------------------------------------

/// Values that exercise `op` over `T` without collapsing: random bits for integer sums (they
/// wrap), odd integers for products (never 0), dense/sparse bits for and/or, floats in [-1, 1),
/// float products near 1.
fn data_for<T: Element>(op: Op, n: usize, seed: u64) -> Vec<T> {
    let mut r = SplitMix64::new(seed);
    let mut bits = move || T::from_f64((r.next_u64() >> 11) as f64);
    if T::IS_FLOAT {
        return match op {
            Op::Product => data::uniform(n, seed, 0.99, 1.01),
            _ => data::typical(n, seed),
        };
    }
    let one = T::from_f64(1.0);
    (0..n)
        .map(|_| match op {
            Op::Product => T::combine(Op::BitOr, bits(), one),
            Op::BitAnd => T::combine(Op::BitOr, T::combine(Op::BitOr, bits(), bits()), bits()),
            Op::BitOr => T::combine(Op::BitAnd, T::combine(Op::BitAnd, bits(), bits()), bits()),
            _ => bits(),
        })
        .collect()
}

fn poison<T: Element>() -> T {
    if T::IS_FLOAT {
        T::from_f64(f64::NAN)
    } else {
        T::from_f64(-123_456_789.0)
    }
}

// ---- comparisons -----------------------------------------------------------------------------

/// Exact for operators where grouping cannot matter; otherwise the tolerance of the header.
fn assert_scan<T: Element>(got: &[T], x: &[T], op: Op, kind: ScanKind, what: &str) {
    assert_eq!(got.len(), x.len(), "{what}: length");
    if is_exact::<T>(op) {
        let want = cpu::scan(x, op, kind).unwrap();
        if let Some(i) =
            (0..x.len()).find(|&i| got[i] != want[i] && !(got[i].is_nan() && want[i].is_nan()))
        {
            panic!(
                "{what}: first difference at {i} of {}: got {:?}, want {:?}",
                x.len(),
                got[i],
                want[i]
            );
        }
        return;
    }
    let u = unit_roundoff::<T>();
    const K: f64 = 64.0;
    let (mut acc, mut scale) = match op {
        Op::Sum => (0.0f64, 0.0f64),
        _ => (1.0, 1.0),
    };
    for (i, (&g, &xi)) in got.iter().zip(x).enumerate() {
        let (want, s) = match kind {
            ScanKind::Exclusive => (acc, scale),
            ScanKind::Inclusive => (
                f64::combine(op, acc, xi.to_f64()),
                f64::combine(op, scale, xi.to_f64().abs()),
            ),
        };
        let g = g.to_f64();
        let exclusive_identity = kind == ScanKind::Exclusive && i == 0;
        let k = if op == Op::Product {
            K + (i + 1) as f64
        } else {
            K
        };
        let ok = if exclusive_identity {
            g == want
        } else {
            (g - want).abs() <= k * u * s
        };
        assert!(
            ok,
            "{what}: at {i} of {}: got {g}, want {want} (tolerance {:e})",
            x.len(),
            k * u * s
        );
        acc = f64::combine(op, acc, xi.to_f64());
        scale = f64::combine(op, scale, xi.to_f64().abs());
    }
}

/// Test-side view of the monoids: f64 copies and entrywise absolute values.
trait TestMonoid: ScanMonoid {
    type Wide: Monoid;
    fn random(r: &mut SplitMix64) -> Self;
    fn wide(self) -> Self::Wide;
    fn wide_abs(self) -> Self::Wide;
    fn parts(w: Self::Wide) -> Vec<f64>;
    fn unit_roundoff() -> f64;
}

fn random_element<T: Element>(r: &mut SplitMix64) -> T {
    T::from_f64((r.next_u64() >> 11) as f64)
}

impl<T: Element> TestMonoid for Mat2<T>
where
    Mat2<T>: ScanMonoid,
{
    type Wide = Mat2<f64>;
    fn random(r: &mut SplitMix64) -> Self {
        if T::IS_FLOAT {
            // Rows whose absolute values sum to 1: products neither blow up nor vanish at once.
            let mut row = || {
                let c = r.next_f64();
                let s1 = if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
                let s2 = if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
                [T::from_f64(s1 * c), T::from_f64(s2 * (1.0 - c))]
            };
            let (a, b) = (row(), row());
            Mat2([a[0], a[1], b[0], b[1]])
        } else {
            Mat2([(); 4].map(|_| random_element(r)))
        }
    }
    fn wide(self) -> Mat2<f64> {
        Mat2(self.0.map(|v| v.to_f64()))
    }
    fn wide_abs(self) -> Mat2<f64> {
        Mat2(self.0.map(|v| v.to_f64().abs()))
    }
    fn parts(w: Mat2<f64>) -> Vec<f64> {
        w.0.to_vec()
    }
    fn unit_roundoff() -> f64 {
        unit_roundoff::<T>()
    }
}

impl<T: Element> TestMonoid for Affine<T>
where
    Affine<T>: ScanMonoid,
{
    type Wide = Affine<f64>;
    fn random(r: &mut SplitMix64) -> Self {
        if T::IS_FLOAT {
            let sign = if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
            Affine {
                a: T::from_f64(sign * (0.5 + 0.49 * r.next_f64())),
                b: T::from_f64(2.0 * r.next_f64() - 1.0),
            }
        } else {
            Affine {
                a: random_element(r),
                b: random_element(r),
            }
        }
    }
    fn wide(self) -> Affine<f64> {
        Affine {
            a: self.a.to_f64(),
            b: self.b.to_f64(),
        }
    }
    fn wide_abs(self) -> Affine<f64> {
        Affine {
            a: self.a.to_f64().abs(),
            b: self.b.to_f64().abs(),
        }
    }
    fn parts(w: Affine<f64>) -> Vec<f64> {
        vec![w.a, w.b]
    }
    fn unit_roundoff() -> f64 {
        unit_roundoff::<T>()
    }
}

fn assert_monoid_scan<M: TestMonoid>(got: &[M], x: &[M], kind: ScanKind, what: &str) {
    assert_eq!(got.len(), x.len(), "{what}: length");
    if M::EXACT {
        let want = cpu::scan_monoid(x, kind);
        if let Some(i) = (0..x.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "{what}: first difference at {i}: got {:?}, want {:?}",
                got[i], want[i]
            );
        }
        return;
    }
    let u = M::unit_roundoff();
    let min_normal = if u > 1e-10 {
        f32::MIN_POSITIVE as f64
    } else {
        f64::MIN_POSITIVE
    };
    let mut acc = M::Wide::identity();
    let mut scale = M::Wide::identity();
    for (i, (&g, &xi)) in got.iter().zip(x).enumerate() {
        let (want, s) = match kind {
            ScanKind::Exclusive => (acc, scale),
            ScanKind::Inclusive => (
                M::Wide::combine(acc, xi.wide()),
                M::Wide::combine(scale, xi.wide_abs()),
            ),
        };
        for ((gp, wp), sp) in M::parts(g.wide())
            .into_iter()
            .zip(M::parts(want))
            .zip(M::parts(s))
        {
            let n = (i + 1) as f64;
            assert!(
                (gp - wp).abs() <= (128.0 + 2.0 * n) * u * sp + n * min_normal,
                "{what}: at {i} of {}: got {g:?}, want {want:?}",
                x.len()
            );
        }
        acc = M::Wide::combine(acc, xi.wide());
        scale = M::Wide::combine(scale, xi.wide_abs());
    }
}

// ---- drivers ---------------------------------------------------------------------------------

fn options(kind: ScanKind, algorithm: Algorithm, block: Option<u32>) -> ScanOptions {
    ScanOptions {
        kind,
        algorithm,
        block_size: block,
        staging: TileStaging::Auto,
        ..ScanOptions::default()
    }
}

/// The look-back algorithms, for the staged-tile tests.
const LOOKBACKS: [Algorithm; 3] = [
    Algorithm::LookBack,
    Algorithm::LookBackDeterministic,
    Algorithm::Auto,
];

/// Whether this GPU runs staged tiles (compute capability 8.0+); says so when it does not.
fn staged_supported(gpu: &Gpu) -> bool {
    let cc = gpu.properties().compute_capability;
    let ok = gpu_scan::plan::staged_tiles_available(cc);
    if !ok {
        eprintln!(
            "staged tiles not tested: compute capability {}.{} < 8.0",
            cc.0, cc.1
        );
    }
    ok
}

/// Every operator of `T`, every size, both forms, the given algorithms and block sizes; out of
/// place into a poisoned output, plus one in-place run per (operator, size, form).
fn check_type<T: Element>(
    gpu: &Gpu,
    sizes: &[usize],
    algorithms: &[Algorithm],
    blocks: &[Option<u32>],
    ops: &[Op],
    staging: TileStaging,
) {
    let stream = gpu.stream();
    for &op in ops.iter().filter(|op| op.supports::<T>()) {
        for &n in sizes {
            let x: Vec<T> = data_for(op, n, n as u64 * 31 + op as u64);
            let dx = gpu.upload(&x).unwrap();
            let mut out = gpu.alloc::<T>(n).unwrap();
            for kind in KINDS {
                for &algorithm in algorithms {
                    for &block in blocks {
                        out.fill(poison::<T>(), stream).unwrap();
                        let o = options(kind, algorithm, block).staging(staging);
                        let scan = Scan::new(gpu).options(o);
                        scan.scan_into(&dx, &mut out, op).unwrap();
                        let what = format!(
                            "{} {op} {kind:?} {algorithm:?} {staging:?} block {block:?} n={n}",
                            T::NAME
                        );
                        assert_scan(&out.to_vec().unwrap(), &x, op, kind, &what);
                    }
                }
                let algorithm = algorithms[n % algorithms.len()];
                let mut inplace = dx.try_clone().unwrap();
                let o = options(kind, algorithm, blocks[0]).staging(staging);
                Scan::new(gpu)
                    .options(o)
                    .scan_in_place(&mut inplace, op)
                    .unwrap();
                let what = format!(
                    "{} {op} {kind:?} {algorithm:?} {staging:?} in place n={n}",
                    T::NAME
                );
                assert_scan(&inplace.to_vec().unwrap(), &x, op, kind, &what);
            }
        }
    }
}

fn check_monoid<M: TestMonoid>(
    gpu: &Gpu,
    sizes: &[usize],
    algorithms: &[Algorithm],
    blocks: &[Option<u32>],
) {
    for &n in sizes {
        let mut r = SplitMix64::new(n as u64 + 99);
        let x: Vec<M> = (0..n).map(|_| M::random(&mut r)).collect();
        let dx = gpu.upload(&x).unwrap();
        let mut out = gpu.alloc::<M>(n).unwrap();
        for kind in KINDS {
            for &algorithm in algorithms {
                for &block in blocks {
                    out.memset_bytes(0xA5, gpu.stream()).unwrap();
                    Scan::new(gpu)
                        .options(options(kind, algorithm, block))
                        .scan_monoid_into(&dx, &mut out)
                        .unwrap();
                    let what = format!("{} {kind:?} {algorithm:?} block {block:?} n={n}", M::NAME);
                    assert_monoid_scan(&out.to_vec().unwrap(), &x, kind, &what);
                }
            }
            let mut inplace = dx.try_clone().unwrap();
            let algorithm = algorithms[n % algorithms.len()];
            Scan::new(gpu)
                .options(options(kind, algorithm, None))
                .scan_monoid_in_place(&mut inplace)
                .unwrap();
            let what = format!("{} {kind:?} {algorithm:?} in place n={n}", M::NAME);
            assert_monoid_scan(&inplace.to_vec().unwrap(), &x, kind, &what);
        }
    }
}

// ---- the matrix ------------------------------------------------------------------------------

// Per element type: every GPU algorithm with the default tiles, and the staged look-back tiles
// (scan_sm80.cu) forced on every size with the three look-back algorithms; every operator,
// both forms.
macro_rules! every_op_tests {
    ($all:ident, $staged:ident, $t:ty) => {
        #[test]
        fn $all() {
            let Some(gpu) = gpu_or_skip() else { return };
            let algorithms = &GPU_ALGORITHMS;
            check_type::<$t>(
                &gpu,
                &sizes(),
                algorithms,
                &[None],
                &Op::ALL,
                TileStaging::Auto,
            );
        }

        #[test]
        fn $staged() {
            let Some(gpu) = gpu_or_skip() else { return };
            if staged_supported(&gpu) {
                let staged = TileStaging::Staged;
                check_type::<$t>(&gpu, &sizes(), &LOOKBACKS, &[None], &Op::ALL, staged);
            }
        }
    };
}
every_op_tests!(
    gpu_every_algorithm_form_op_i32,
    gpu_staged_lookback_every_form_op_i32,
    i32
);
every_op_tests!(
    gpu_every_algorithm_form_op_u32,
    gpu_staged_lookback_every_form_op_u32,
    u32
);
every_op_tests!(
    gpu_every_algorithm_form_op_i64,
    gpu_staged_lookback_every_form_op_i64,
    i64
);
every_op_tests!(
    gpu_every_algorithm_form_op_u64,
    gpu_staged_lookback_every_form_op_u64,
    u64
);
every_op_tests!(
    gpu_every_algorithm_form_op_f32,
    gpu_staged_lookback_every_form_op_f32,
    f32
);
every_op_tests!(
    gpu_every_algorithm_form_op_f64,
    gpu_staged_lookback_every_form_op_f64,
    f64
);

macro_rules! every_monoid_test {
    ($name:ident, $m:ty) => {
        #[test]
        fn $name() {
            let Some(gpu) = gpu_or_skip() else { return };
            check_monoid::<$m>(&gpu, &sizes(), &GPU_ALGORITHMS, &[None]);
        }
    };
}
every_monoid_test!(gpu_every_algorithm_form_mat2_i32, Mat2<i32>);
every_monoid_test!(gpu_every_algorithm_form_mat2_u32, Mat2<u32>);
every_monoid_test!(gpu_every_algorithm_form_mat2_i64, Mat2<i64>);
every_monoid_test!(gpu_every_algorithm_form_mat2_u64, Mat2<u64>);
every_monoid_test!(gpu_every_algorithm_form_mat2_f32, Mat2<f32>);
every_monoid_test!(gpu_every_algorithm_form_mat2_f64, Mat2<f64>);
every_monoid_test!(gpu_every_algorithm_form_affine_i32, Affine<i32>);
every_monoid_test!(gpu_every_algorithm_form_affine_u32, Affine<u32>);
every_monoid_test!(gpu_every_algorithm_form_affine_i64, Affine<i64>);
every_monoid_test!(gpu_every_algorithm_form_affine_u64, Affine<u64>);
every_monoid_test!(gpu_every_algorithm_form_affine_f32, Affine<f32>);
every_monoid_test!(gpu_every_algorithm_form_affine_f64, Affine<f64>);

#[test]
fn gpu_large_sizes_for_a_few_combinations() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_type::<i32>(
        &gpu,
        &LARGE,
        &GPU_ALGORITHMS,
        &[None],
        &[Op::Sum],
        TileStaging::Auto,
    );
    check_type::<f32>(
        &gpu,
        &LARGE,
        &GPU_ALGORITHMS,
        &[None],
        &[Op::Sum],
        TileStaging::Auto,
    );
    check_type::<u64>(
        &gpu,
        &LARGE[..2],
        &GPU_ALGORITHMS,
        &[None],
        &[Op::BitXor, Op::Max],
        TileStaging::Auto,
    );
    check_monoid::<Mat2<u32>>(&gpu, &LARGE[..2], &GPU_ALGORITHMS, &[None]);
    check_monoid::<Affine<f64>>(&gpu, &LARGE[..2], &GPU_ALGORITHMS, &[None]);
    if staged_supported(&gpu) {
        let staged = TileStaging::Staged;
        check_type::<i32>(&gpu, &LARGE, &LOOKBACKS, &[None], &[Op::Sum], staged);
        check_type::<f32>(&gpu, &LARGE, &LOOKBACKS, &[None], &[Op::Sum], staged);
        check_type::<u64>(
            &gpu,
            &LARGE[..2],
            &LOOKBACKS,
            &[None],
            &[Op::BitXor, Op::Max],
            staged,
        );
        check_type::<f64>(
            &gpu,
            &LARGE[..2],
            &LOOKBACKS,
            &[None],
            &[Op::Product],
            staged,
        );
    }
}

/// Every block size of the sweep on every GPU algorithm, including the smallest tiles (block 32:
/// thousands of look-back tiles in flight at once, the deep look-back path) and the largest
/// shared-memory footprints (32-byte matrices at 1024 threads need the opt-in above 48 KiB).
#[test]
fn gpu_every_block_size() {
    let Some(gpu) = gpu_or_skip() else { return };
    let blocks: Vec<Option<u32>> = BLOCKS.iter().map(|&b| Some(b)).collect();
    let sizes = [1, 33, 1025, 65_537, (1 << 20) + 1];
    check_type::<i32>(
        &gpu,
        &sizes,
        &GPU_ALGORITHMS,
        &blocks,
        &[Op::Sum],
        TileStaging::Auto,
    );
    check_type::<f64>(
        &gpu,
        &sizes[..4],
        &GPU_ALGORITHMS,
        &blocks,
        &[Op::Sum, Op::Min],
        TileStaging::Auto,
    );
    check_monoid::<Mat2<f64>>(&gpu, &sizes[..4], &GPU_ALGORITHMS, &blocks);
    check_monoid::<Mat2<i64>>(&gpu, &sizes[..4], &GPU_ALGORITHMS, &blocks);
    // 8- and 16-byte values publish their look-back status split into 4-byte pieces, each in
    // a word with the run's epoch: many small tiles look back the most.
    check_type::<u64>(
        &gpu,
        &sizes,
        &GPU_ALGORITHMS,
        &blocks,
        &[Op::Sum, Op::BitXor],
        TileStaging::Auto,
    );
    check_monoid::<Affine<f32>>(&gpu, &sizes[..4], &GPU_ALGORITHMS, &blocks);
    check_monoid::<Mat2<u32>>(&gpu, &sizes[..4], &GPU_ALGORITHMS, &blocks);
    check_monoid::<Affine<f64>>(&gpu, &sizes[..4], &GPU_ALGORITHMS, &blocks);
    if staged_supported(&gpu) {
        let staged = TileStaging::Staged;
        check_type::<i32>(&gpu, &sizes, &LOOKBACKS, &blocks, &[Op::Sum], staged);
        check_type::<f64>(
            &gpu,
            &sizes[..4],
            &LOOKBACKS,
            &blocks,
            &[Op::Sum, Op::Min],
            staged,
        );
    }
}

// ---- the big sizes -----------------------------------------------------------------------------

/// The report's size (n = 123,123,123 int) through the default scan and the report's best
/// algorithm at its best block size.
#[test]
fn gpu_report_size_123123123() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 123_123_123;
    let x: Vec<i32> = data::typical(n, 5);
    let want_inc = cpu::par_scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let mut out = gpu.alloc::<i32>(n).unwrap();
    for (kind, algorithm, block) in [
        (ScanKind::Inclusive, Algorithm::Auto, None),
        (ScanKind::Exclusive, Algorithm::BlellochPadded, Some(512)),
    ] {
        out.fill(-1, gpu.stream()).unwrap();
        Scan::new(&gpu)
            .options(options(kind, algorithm, block))
            .scan_into(&dx, &mut out, Op::Sum)
            .unwrap();
        let got = out.to_vec().unwrap();
        let ok = match kind {
            ScanKind::Inclusive => got == want_inc,
            ScanKind::Exclusive => got[0] == 0 && got[1..] == want_inc[..n - 1],
        };
        assert!(ok, "{kind:?} {algorithm:?} differs at n = {n}");
    }
}

/// 2^28 elements: exact for i32 (inclusive and exclusive, in place); for f32 within tolerance,
/// and bit-for-bit identical across runs for the deterministic default.
#[test]
fn gpu_2_pow_28() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1usize << 28;
    // One object for every call: its scratch is reused (the default and the register tiles).
    let scan = Scan::new(&gpu);
    {
        let x: Vec<i32> = data::typical(n, 28);
        let want = cpu::par_scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
        let dx = gpu.upload(&x).unwrap();
        let mut out = gpu.alloc::<i32>(n).unwrap();
        out.fill(7, gpu.stream()).unwrap();
        scan.scan_into(&dx, &mut out, Op::Sum).unwrap();
        assert!(out.to_vec().unwrap() == want, "i32 inclusive 2^28");
        // The default stages its tiles on sm_80+ at this size; the register tiles too.
        out.fill(7, gpu.stream()).unwrap();
        let registers = scan.clone().staging(TileStaging::Registers);
        registers.scan_into(&dx, &mut out, Op::Sum).unwrap();
        assert!(
            out.to_vec().unwrap() == want,
            "i32 inclusive 2^28 register tiles"
        );
        let mut d = dx;
        scan.clone()
            .exclusive()
            .scan_in_place(&mut d, Op::Sum)
            .unwrap();
        let got = d.to_vec().unwrap();
        assert!(
            got[0] == 0 && got[1..] == want[..n - 1],
            "i32 exclusive in place 2^28"
        );
    }
    let x: Vec<f32> = data::typical(n, 29);
    let dx = gpu.upload(&x).unwrap();
    let mut out = gpu.alloc::<f32>(n).unwrap();
    let mut runs = Vec::new();
    for algorithm in [
        Algorithm::LookBackDeterministic,
        Algorithm::LookBackDeterministic,
        Algorithm::LookBack,
    ] {
        out.fill(f32::NAN, gpu.stream()).unwrap();
        let scan = Scan::new(&gpu).algorithm(algorithm);
        scan.scan_into(&dx, &mut out, Op::Sum).unwrap();
        runs.push(out.to_vec().unwrap());
    }
    let same = runs[0]
        .iter()
        .zip(&runs[1])
        .all(|(a, b)| a.to_bits() == b.to_bits());
    assert!(same, "deterministic f32 look-back differs between two runs");
    assert_scan(
        &runs[0],
        &x,
        Op::Sum,
        ScanKind::Inclusive,
        "f32 sum deterministic 2^28",
    );
    assert_scan(
        &runs[2],
        &x,
        Op::Sum,
        ScanKind::Inclusive,
        "f32 sum look-back 2^28",
    );
}

/// The deterministic look-back repeats itself bit for bit on float sums, products and float
/// monoids, on a size with many tiles in flight.
#[test]
fn gpu_deterministic_lookback_repeats_bit_for_bit() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1 << 22) + 7;
    for block in [32, 256] {
        let scan = Scan::new(&gpu)
            .algorithm(Algorithm::LookBackDeterministic)
            .block_size(block);
        for op in [Op::Sum, Op::Product] {
            let x: Vec<f32> = data_for(op, n, 3);
            let first = scan.scan(&x, op).unwrap();
            for _ in 0..3 {
                let again = scan.scan(&x, op).unwrap();
                assert!(
                    first
                        .iter()
                        .zip(&again)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "f32 {op} block {block}: runs differ"
                );
            }
        }
        let mut r = SplitMix64::new(4);
        let m: Vec<Affine<f64>> = (0..n).map(|_| Affine::random(&mut r)).collect();
        let first = scan.scan_monoid(&m).unwrap();
        let again = scan.scan_monoid(&m).unwrap();
        assert!(first == again, "affine f64 block {block}: runs differ");
    }
}

// ---- inputs, recurrence, errors ----------------------------------------------------------------

#[test]
fn gpu_slices_views_and_one_off_functions() {
    let Some(gpu) = gpu_or_skip() else { return };
    let a = Array1::from_iter((0..10_000).map(|i| (i % 17) as i64 - 8));
    let strided = a.slice(s![3..;7]);
    let reversed = a.slice(s![..;-1]);
    for (view, what) in [(strided, "strided"), (reversed, "reversed")] {
        let want = cpu::scan(&view.to_vec(), Op::Sum, ScanKind::Exclusive).unwrap();
        for algorithm in Algorithm::ALL {
            let scan = Scan::new(&gpu).exclusive().algorithm(algorithm);
            let got = scan.scan(&view, Op::Sum).unwrap();
            assert_eq!(got, want, "{what} view, {algorithm:?}");
        }
    }
    let x: Vec<u32> = (1..=5000).collect();
    let got = gpu_scan::scan(&gpu, &x, Op::Sum, &ScanOptions::default()).unwrap();
    assert_eq!(got[4999], 5000 * 5001 / 2);
    // A longer device output: the prefix written, the tail untouched.
    let dx = gpu.upload(&x).unwrap();
    let mut out = gpu.alloc::<u32>(x.len() + 3).unwrap();
    out.fill(9, gpu.stream()).unwrap();
    Scan::new(&gpu).scan_into(&dx, &mut out, Op::Max).unwrap();
    let got = out.to_vec().unwrap();
    assert_eq!(&got[..5000], &x[..], "longer output: prefix written");
    assert_eq!(&got[5000..], &[9, 9, 9], "longer output: tail untouched");
    // CPU algorithms give host results only.
    let rayon = Scan::new(&gpu).algorithm(Algorithm::Rayon);
    assert_eq!(rayon.scan(&dx, Op::Max).unwrap(), x);
    let e = rayon.scan_into(&dx, &mut out, Op::Max).unwrap_err();
    assert!(e.to_string().contains("runs on the host"), "{e}");
    let m = vec![Mat2([1u64, 1, 1, 0]); 90];
    let powers = gpu_scan::scan_monoid(&gpu, &m, &ScanOptions::default()).unwrap();
    assert_eq!(powers[89].0[1], 2_880_067_194_370_816_120);
}

#[test]
fn gpu_linear_recurrence_matches_the_sequential_loop() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn check<T: gpu_scan::Real>(gpu: &Gpu, n: usize)
    where
        Affine<T>: ScanMonoid,
    {
        let mut r = SplitMix64::new(n as u64);
        let a: Vec<T> = (0..n)
            .map(|_| {
                let sign = if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
                T::from_f64(sign * (0.5 + 0.4 * r.next_f64()))
            })
            .collect();
        let b: Vec<T> = (0..n)
            .map(|_| T::from_f64(2.0 * r.next_f64() - 1.0))
            .collect();
        let x_init = T::from_f64(0.75);
        let want = cpu::linear_recurrence(&a, &b, x_init).unwrap();
        // |x| bound: the same recurrence on |a|, |b|, |x_init|.
        let mut bound = x_init.to_f64().abs();
        let bounds: Vec<f64> = a
            .iter()
            .zip(&b)
            .map(|(a, b)| {
                bound = a.to_f64().abs() * bound + b.to_f64().abs();
                bound
            })
            .collect();
        // Both sides round: the loop's error contracts by |a| ≤ 0.9 each step (≤ 10× one step's),
        // the scan's grows with its combining depth; 256·u·bound covers both.
        let tol = 256.0 * unit_roundoff::<T>();
        let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
        let mut x = gpu.alloc::<T>(n).unwrap();
        for algorithm in Algorithm::ALL {
            // Device results for the GPU algorithms, host results for all.
            let scan = Scan::new(gpu).algorithm(algorithm);
            let got = if algorithm.is_gpu() {
                x.fill(T::from_f64(f64::NAN), gpu.stream()).unwrap();
                scan.linear_recurrence_into(&da, &db, x_init, &mut x)
                    .unwrap();
                x.to_vec().unwrap()
            } else {
                scan.linear_recurrence(&da, &db, x_init).unwrap()
            };
            for i in 0..n {
                let (g, w) = (got[i].to_f64(), want[i].to_f64());
                assert!(
                    (g - w).abs() <= tol * bounds[i],
                    "{} {algorithm:?} n={n}: x[{i}] = {g}, loop gives {w}",
                    T::NAME
                );
            }
        }
        let one_off = gpu_scan::linear_recurrence(gpu, &a, &b, x_init).unwrap();
        assert_eq!(one_off.len(), n);
    }
    for n in [0, 1, 2, 1000, 65_537, 1 << 20] {
        check::<f32>(&gpu, n);
        check::<f64>(&gpu, n);
    }
}

#[test]
fn gpu_bad_inputs_are_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = gpu.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut short = gpu.alloc::<f32>(2).unwrap();
    for algorithm in GPU_ALGORITHMS {
        let e = Scan::new(&gpu)
            .algorithm(algorithm)
            .scan_into(&x, &mut short, Op::Sum)
            .unwrap_err();
        assert!(
            e.to_string().contains("holds 2 elements"),
            "{algorithm:?}: {e}"
        );
    }
    let mut out = gpu.alloc::<f32>(3).unwrap();
    for algorithm in GPU_ALGORITHMS {
        for bad in [0, 16, 48, 100, 2048] {
            let scan = Scan::new(&gpu).algorithm(algorithm).block_size(bad);
            let e = scan.scan_into(&x, &mut out, Op::Sum).unwrap_err();
            assert!(
                e.to_string().contains("power of two"),
                "{algorithm:?} {bad}: {e}"
            );
            // Also refused for an empty input, for host results and on a stream.
            let mut empty = gpu.alloc::<f32>(0).unwrap();
            assert!(scan.scan_in_place(&mut empty, Op::Sum).is_err());
            assert!(scan.scan(&[1.0f32, 2.0], Op::Sum).is_err());
            let on_stream = scan.clone().stream(gpu.stream());
            assert!(on_stream.scan_into(&x, &mut out, Op::Sum).is_err());
        }
    }
    let e = Scan::new(&gpu)
        .scan_into(&x, &mut out, Op::BitXor)
        .unwrap_err();
    assert!(e.to_string().contains("not defined"), "{e}");
    let e = Scan::new(&gpu).scan(&[1.0f32], Op::BitXor).unwrap_err();
    assert!(e.to_string().contains("not defined"), "{e}");
    let e = Scan::new(&gpu)
        .algorithm(Algorithm::Serial)
        .stream(gpu.stream())
        .scan_into(&x, &mut out, Op::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("runs on the host"), "{e}");
    // Staged tiles: not for the matrix/affine monoids; not before compute capability 8.0.
    let m = gpu.upload(&[Mat2::<f32>::identity(); 3]).unwrap();
    let mut m_out = gpu.alloc::<Mat2<f32>>(3).unwrap();
    let staged = Scan::new(&gpu).staging(TileStaging::Staged);
    let e = staged.scan_monoid_into(&m, &mut m_out).unwrap_err();
    assert!(e.to_string().contains("monoids"), "{e}");
    let r = staged.scan_into(&x, &mut out, Op::Sum);
    if gpu_scan::plan::staged_tiles_available(gpu.properties().compute_capability) {
        r.unwrap();
    } else {
        assert!(r.unwrap_err().to_string().contains("compute capability"));
    }
    let b = gpu.upload(&[1.0f32]).unwrap();
    let e = Scan::new(&gpu)
        .linear_recurrence_into(&x, &b, 0.0, &mut out)
        .unwrap_err();
    assert!(e.to_string().contains("offsets"), "{e}");
    let e = Scan::new(&gpu).linear_recurrence(&x, &b, 0.0).unwrap_err();
    assert!(e.to_string().contains("offsets"), "{e}");
    // Empty inputs are fine and launch nothing.
    let empty = gpu.alloc::<f32>(0).unwrap();
    let mut empty_out = gpu.alloc::<f32>(0).unwrap();
    for algorithm in Algorithm::ALL {
        let scan = Scan::new(&gpu).algorithm(algorithm);
        assert!(scan.scan(&empty, Op::Sum).unwrap().is_empty());
        if algorithm.is_gpu() {
            scan.scan_into(&empty, &mut empty_out, Op::Sum).unwrap();
        }
    }
}

/// Work enqueued by `Scan`s on two non-default streams, back to back, then one wait per
/// stream.
#[test]
fn gpu_scan_on_streams() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1 << 21) + 3;
    let x: Vec<u32> = data::typical(n, 8);
    let want = cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let (s1, s2) = (gpu.new_stream().unwrap(), gpu.new_stream().unwrap());
    let mut outs: Vec<DeviceArray<u32>> = (0..6).map(|_| gpu.alloc::<u32>(n).unwrap()).collect();
    let scans = [Scan::new(&gpu).stream(&s1), Scan::new(&gpu).stream(&s2)];
    for (i, out) in outs.iter_mut().enumerate() {
        let algorithm = GPU_ALGORITHMS[i % GPU_ALGORITHMS.len()];
        let scan = scans[i / 3].clone().algorithm(algorithm);
        scan.scan_into(&dx, out, Op::Sum).unwrap();
    }
    s1.synchronize().unwrap();
    s2.synchronize().unwrap();
    for (i, out) in outs.iter().enumerate() {
        assert!(out.to_vec().unwrap() == want, "launch {i}");
    }
}

/// The deprecated `Scanner` (kept one release): launches on non-default streams, back to back,
/// then one wait; the scratch is reused safely on one stream, and switching streams waits.
#[test]
#[allow(deprecated)]
fn gpu_deprecated_scanner_async_on_streams() {
    use gpu_scan::Scanner;
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1 << 21) + 3;
    let x: Vec<u32> = data::typical(n, 8);
    let want = cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let mut scanner = Scanner::new(&gpu).unwrap();
    let (s1, s2) = (gpu.new_stream().unwrap(), gpu.new_stream().unwrap());
    let mut outs: Vec<DeviceArray<u32>> = (0..6).map(|_| gpu.alloc::<u32>(n).unwrap()).collect();
    for (i, out) in outs.iter_mut().enumerate() {
        let algorithm = GPU_ALGORITHMS[i % GPU_ALGORITHMS.len()];
        let stream = if i < 3 { &s1 } else { &s2 };
        scanner
            .scan_async(
                &dx,
                out,
                Op::Sum,
                &ScanOptions::inclusive().algorithm(algorithm),
                stream,
            )
            .unwrap();
    }
    s1.synchronize().unwrap();
    s2.synchronize().unwrap();
    for (i, out) in outs.iter().enumerate() {
        assert!(out.to_vec().unwrap() == want, "launch {i}");
    }
}
