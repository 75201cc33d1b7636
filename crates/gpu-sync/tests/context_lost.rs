//! A kernel fault loses the context: the test runs a kernel of its own (built with the
//! gpu-sync headers, `tests/kernels/fault.cu`) that faults, in a child process, and checks
//! that every later call there returns `Error::ContextLost`, a new `Gpu` included (the driver
//! refuses any new context in that process: docs/api.md, "When the GPU fails"); then that a
//! fresh process works.
#![cfg(feature = "cuda")]

use gpu_core::testing::{gpu_or_skip, run_test_in_child};
use gpu_core::{kernel_args, Error, Gpu, LaunchConfig, Ptx, Result};

static FAULT: Ptx = Ptx::new("gpu-sync-tests/fault", include_str!("kernels/fault.ptx"));

const SCENARIO: &str = "GPU_PRIMS_FAULT_SCENARIO";

/// Runs the guard over `blocks` blocks with counter `counter` and returns what it wrote.
fn guard(gpu: &Gpu, counter: u64, blocks: u32) -> Result<u32> {
    let k = gpu.kernel(&FAULT, "guard_at")?;
    let out = gpu.zeros::<u32>(1)?;
    let out_ptr = out.device_ptr();
    // SAFETY: guard_at(unsigned* counter, unsigned* out): `out` holds one u32; `counter` is a
    // zeroed u32 of this context, or null on purpose (the fault under test).
    unsafe {
        k.launch(
            LaunchConfig::new(blocks, 64),
            gpu.stream(),
            &kernel_args![counter, out_ptr],
        )
    }?;
    gpu.synchronize()?;
    Ok(out.to_vec()?[0])
}

fn trap(gpu: &Gpu) -> Result<()> {
    let k = gpu.kernel(&FAULT, "trap_if")?;
    let go = 1u32;
    // SAFETY: trap_if(unsigned go) takes one u32.
    unsafe { k.launch(LaunchConfig::new(1, 32), gpu.stream(), &kernel_args![go]) }?;
    gpu.synchronize()
}

fn lost(what: &str, r: Result<impl std::fmt::Debug>, code: i32) {
    match r {
        Err(Error::ContextLost { code: c, .. }) if c.0 == code => {}
        other => panic!("{what}: expected ContextLost with code {code}, got {other:?}"),
    }
}

/// The child: faults, then checks what every later call returns.
#[test]
#[ignore = "run by `a_kernel_fault_loses_the_context` in a process of its own"]
fn context_lost_child() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    let gpu = Gpu::default_device().unwrap();
    let counter = gpu.zeros::<u32>(1).unwrap();
    assert_eq!(
        guard(&gpu, counter.device_ptr(), 40).unwrap(),
        40,
        "the guard works first"
    );
    let (result, code) = match scenario.as_str() {
        "illegal-address" => (guard(&gpu, 0, 40).map(|_| ()), 700),
        "trap" => (trap(&gpu), 719),
        s => panic!("unknown scenario {s}"),
    };
    let e = result.expect_err("the fault is reported");
    assert!(e.is_context_lost(), "{e}");
    eprintln!("child: the fault gives: {e}");
    lost("synchronize", gpu.synchronize(), code);
    lost("alloc", gpu.alloc::<u32>(10).map(|_| ()), code);
    lost("upload", gpu.upload(&[1u32, 2, 3]).map(|_| ()), code);
    lost("download", counter.to_vec(), code);
    lost("memory_info", gpu.memory_info(), code);
    lost("new_stream", gpu.new_stream().map(|_| ()), code);
    lost("guard again", guard(&gpu, counter.device_ptr(), 4), code);
    // The same device from the registry, and after every handle is gone a new context:
    // the driver refuses both in this process.
    lost(
        "Gpu::new while held",
        Gpu::new(0).and_then(|g| g.alloc::<u8>(1).map(|_| ())),
        code,
    );
    drop((counter, gpu));
    let again = Gpu::new(0).and_then(|g| g.alloc::<u8>(1).map(|_| ()));
    lost("Gpu::new after every handle dropped", again, code);
    eprintln!("child: every later call returned ContextLost");
}

#[test]
fn a_kernel_fault_loses_the_context_and_a_fresh_process_works() {
    let Some(gpu) = gpu_or_skip() else { return };
    for scenario in ["illegal-address", "trap"] {
        let (passed, text) = run_test_in_child("context_lost_child", &[(SCENARIO, Some(scenario))]);
        assert!(passed, "{scenario} child failed:\n{text}");
        assert!(
            text.contains("every later call returned ContextLost"),
            "{scenario}:\n{text}"
        );
        assert!(text.contains("restart the process"), "{scenario}:\n{text}");
        eprintln!(
            "{scenario}: {}",
            text.lines()
                .find(|l| l.contains("the fault gives"))
                .unwrap_or("")
        );
    }
    // This process never faulted: its GPU works, guard included.
    let counter = gpu.zeros::<u32>(1).unwrap();
    assert_eq!(guard(&gpu, counter.device_ptr(), 1000).unwrap(), 1000);
}
