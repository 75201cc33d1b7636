//! The default reduction under per-device tuning on a real GPU: every `reduce.block` gives the
//! CPU's results. Skipped (visibly) without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::{data, Op, Tuning};
use gpu_reduce::{cpu, Reduce};

/// One test function: the tuning is per device and process.
#[test]
fn tuned_reduce_blocks_give_the_cpu_results() {
    let Some(gpu) = gpu_or_skip() else { return };
    for block in [32u64, 64, 128, 256, 512, 1024] {
        let mut t = Tuning::new();
        t.set("reduce.block", block).unwrap();
        gpu.set_tuning(t).unwrap();
        for n in [1usize, 33, 1023, 1 << 16, (1 << 22) + 5] {
            let xi: Vec<i32> = data::exact(n, Op::Sum, n as u64);
            let xf: Vec<f32> = data::exact(n, Op::Sum, n as u64 + 3);
            let r = Reduce::new(&gpu);
            for op in [Op::Sum, Op::Max, Op::Min] {
                assert_eq!(
                    r.reduce(&xi[..], op).unwrap(),
                    cpu::reduce(&xi, op).unwrap(),
                    "i32 {op:?} n {n} block {block}"
                );
                assert_eq!(
                    r.reduce(&xf[..], op).unwrap(),
                    cpu::reduce(&xf, op).unwrap(),
                    "f32 {op:?} n {n} block {block}"
                );
            }
        }
    }
    gpu.set_tuning(Tuning::new()).unwrap();
}
