//! Real out-of-memory, not injected: with the device filled to its last bytes, each conv1d path
//! whose first launch allocates (the block FFT's spectrum and twiddle rows, the even-and-odd
//! tables, cuFFT's plans and segment buffers, the tensor-core fragments, the warpgroup rows, a
//! module's first load) returns a clear error, never panics, and once the memory is back the
//! same `Conv1d` runs right. One test, so nothing else in this binary allocates meanwhile.
#![cfg(feature = "cuda")]

mod common;

use gpu_conv1d::{Boundary, Conv1d, Mode, Operation, Options, Path, Real, Strategy};
use gpu_core::testing::{fill_memory, gpu_or_skip, is_out_of_memory};
use gpu_core::{bf16, f16, Gpu};

/// Outputs compared with the f64 reference per run.
const CHECKED: usize = 3000;

struct Case<'a> {
    gpu: &'a Gpu,
    width: usize,
    strategy: Strategy,
    n: usize,
}

impl Case<'_> {
    /// `warm`: another `Conv1d` of the same options (another mask) runs first, so the modules
    /// (and libcufft) are loaded and only this mask's own tables are left to allocate.
    /// Prints what the full device did, once the same `Conv1d` ran right again.
    fn run<T: Real>(&self, warm: bool, path_ok: impl Fn(&Path) -> bool) {
        let (gpu, w, n) = (self.gpu, self.width, self.n);
        let options = Options::new().strategy(self.strategy);
        let mask = common::data::<T>(w, 40 + w as u64);
        let x = common::data::<T>(n, 41);
        let what = format!("{} w={w} {:?}", T::NAME, self.strategy);
        if warm {
            let other = common::data::<T>(w, 42 + w as u64);
            Conv1d::correlation(gpu, &other, options)
                .and_then(|c| c.run(&x))
                .unwrap_or_else(|e| panic!("{what}: the warming run failed: {e}"));
        }
        let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
        let path = conv.path(n).unwrap();
        assert!(path_ok(&path), "{what}: {path:?}");
        let xs = gpu.upload(&x).unwrap();
        let mut y = gpu.alloc::<T>(n).unwrap();
        gpu.synchronize().unwrap();

        let held = fill_memory(gpu);
        // The first launch of this `Conv1d`: its tables (or plans, or fragments) cannot be made.
        let first = conv.run_into(&xs, &mut y);
        // A run that needs its output allocated, and a new `Conv1d` (its mask on the device).
        let allocating = conv.run(&x);
        let fresh = Conv1d::correlation(gpu, &mask, options).map(|_| ());
        drop(held);
        gpu.synchronize().unwrap();

        let outcome = match &first {
            Ok(()) => "ran".to_string(),
            Err(e) if is_out_of_memory(e) => "out of memory".to_string(),
            Err(e) => panic!("{what} ({path:?}): the full device gave an unclear error: {e}"),
        };
        if warm {
            // Warm: nothing is loaded by this launch but this mask's device data.
            let Err(e) = &first else {
                panic!("{what} ({path:?}): ran with the device full")
            };
            assert!(is_out_of_memory(e), "{what}: {e}");
        }
        match allocating {
            Err(e) if is_out_of_memory(&e) => {}
            other => panic!("{what}: a run allocating its output on a full device: {other:?}"),
        }
        if let Err(e) = fresh {
            assert!(
                is_out_of_memory(&e),
                "{what}: a new Conv1d on a full device: {e}"
            );
        }
        // The memory is back: the same `Conv1d` runs right, into the caller's array and not.
        conv.run_into(&xs, &mut y)
            .unwrap_or_else(|e| panic!("{what}: after the memory came back: {e}"));
        let got = y.to_vec().unwrap();
        let check = |got: &[T]| {
            common::check_path(
                got,
                Operation::Correlation,
                &x,
                &mask,
                Mode::Same,
                Boundary::Zero,
                CHECKED,
                path,
            )
            .unwrap_or_else(|e| panic!("{what} ({path:?}) after the memory came back: {e}"))
        };
        check(&got);
        check(&conv.run(&x).unwrap());
        println!("{what} ({path:?}): {outcome}, then right");
    }
}

#[test]
fn gpu_out_of_memory_then_right() {
    let Some(gpu) = gpu_or_skip() else { return };
    let gpu = &gpu;
    let case = |width, strategy, n| Case {
        gpu,
        width,
        strategy,
        n,
    };
    let any = |_: &Path| true;
    let fft = |size: u32| move |p: &Path| *p == Path::Fft { size };
    let even_odd = |size: u32| move |p: &Path| *p == Path::FftEvenOdd { size };
    let either = |size: u32| move |p: &Path| fft(size)(p) || even_odd(size)(p);
    // The device's size for w = 1023: 4096 points, or the 16384-point spans where its
    // `conv1d.fft_span_from` is 1023 or less (the H100's 751).
    let w1023 = common::device_fft_size::<f32>(gpu, 1023).unwrap() as u32;
    // Nothing loaded yet in this process: the first launch may need the module's own memory.
    case(31, Strategy::Auto, 100_003).run::<f32>(false, any);
    case(1023, Strategy::FFT, 100_003).run::<f32>(false, either(w1023));
    case(1023, Strategy::FFT, 100_003).run::<f32>(true, either(w1023));
    case(2047, Strategy::Fft { size: 8192 }, 100_003).run::<f32>(true, fft(8192));
    case(4095, Strategy::FFT, 100_003).run::<f32>(true, either(16384));
    case(8191, Strategy::FFT, 100_003).run::<f32>(true, even_odd(32768));
    case(2000, Strategy::FFT, 100_003).run::<f64>(true, any);
    case(2400, Strategy::Fft { size: 8192 }, 100_003).run::<bf16>(true, fft(8192));
    if gpu.properties().compute_capability >= (8, 0) {
        let tc = |p: &Path| *p == Path::TensorCore;
        case(127, Strategy::TensorCore, 100_003).run::<bf16>(true, tc);
    }
    if gpu.properties().compute_capability == (9, 0) {
        let wg = |p: &Path| *p == Path::Warpgroup;
        case(300, Strategy::Warpgroup, 100_003).run::<f16>(true, wg);
    }
    // The mask in parts (Auto's path for f32 w = 30000, f64 16383: their tables), and cuFFT
    // (asked for past the block's widest mask).
    let parts = |p: &Path| matches!(p, Path::FftEvenOddParts { .. });
    case(30_000, Strategy::Auto, 200_003).run::<f32>(true, parts);
    case(16_383, Strategy::Auto, 200_003).run::<f64>(true, parts);
    if common::cufft_or_skip("the cuFFT case").is_some() {
        let cufft = |p: &Path| matches!(p, Path::CuFft { .. });
        let w = gpu_conv1d::fft_max_width::<f32>() + 639;
        case(w, Strategy::FFT, 200_003).run::<f32>(true, cufft);
    }
}
