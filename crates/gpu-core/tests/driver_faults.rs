//! Driver failures in gpu-core itself (the `fault-injection` feature): every call of making a
//! `Gpu` and of loading a kernel failing in turn, a GPU in exclusive-process mode held by
//! another process (code 46), a JIT that is disabled (223), and a sticky code typed as a lost
//! context. One test: making a `Gpu` from nothing needs no other handle alive in the process.

use gpu_core::fault_injection::{fail_call, record};
use gpu_core::testing::{device_or_skip, INJECTED_CODES};
use gpu_core::{DriverCode, Error, Gpu, Ptx};

const TEXT: &str = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k() { ret; }\n";

fn fresh_ptx(i: usize) -> &'static Ptx {
    let name: &'static str = Box::leak(format!("driver-faults/{i}").into_boxed_str());
    Box::leak(Box::new(Ptx::new(name, TEXT)))
}

#[test]
fn driver_failures_in_gpu_core_are_clear_errors() {
    // No handle kept: the runs below make theirs from nothing.
    if !device_or_skip() {
        return;
    }
    let (gpu, calls) = record(|| Gpu::new(0));
    drop(gpu.unwrap());
    assert!(calls.contains(&"cuDevicePrimaryCtxRetain"), "{calls:?}");
    let mut points = 0;
    let mut optional = 0;
    for (k, &call) in calls.iter().enumerate() {
        let short = call.strip_suffix("_v2").unwrap_or(call);
        for code in INJECTED_CODES.into_iter().chain([DriverCode(46)]) {
            points += 1;
            let (r, fired) = fail_call(k + 1, code, || Gpu::new(0));
            assert_eq!(fired, Some(call));
            let e = match r {
                // The memory clock and bus width are optional (the tuning rule takes a device
                // without them as one of ordinary bandwidth): their failure reads as 0.
                Ok(gpu) => {
                    let p = gpu.properties();
                    assert!(
                        call == "cuDeviceGetAttribute"
                            && (p.memory_clock_khz == 0) != (p.memory_bus_width == 0),
                        "{call} {code}: Gpu::new succeeded with {p:?}"
                    );
                    optional += 1;
                    continue;
                }
                Err(e) => e,
            };
            let text = e.to_string();
            assert!(text.contains(short), "{call} {code}: {text}");
            if code == DriverCode(46) {
                assert!(matches!(e, Error::DeviceUnavailable { .. }), "{e:?}");
                assert!(text.contains("exclusive-process"), "{text}");
            }
            let gpu = Gpu::new(0).expect("the next Gpu::new works");
            assert_eq!(gpu.upload(&[1u8, 2]).unwrap().to_vec().unwrap(), [1, 2]);
        }
    }
    // Exactly the two optional attributes, under every code.
    assert_eq!(
        optional,
        2 * (INJECTED_CODES.len() + 1),
        "optional attributes"
    );
    eprintln!("Gpu::new: {} calls, {points} failure points", calls.len());

    let gpu = Gpu::new(0).unwrap();
    let (k, calls) = record(|| gpu.kernel(fresh_ptx(0), "k"));
    k.unwrap();
    assert!(calls.contains(&"cuModuleLoadDataEx"), "{calls:?}");
    for (i, &call) in calls.iter().enumerate() {
        for code in INJECTED_CODES.into_iter().chain([DriverCode(223)]) {
            let ptx = fresh_ptx(1 + i * 10 + code.0 as usize % 7);
            let (r, fired) = fail_call(i + 1, code, || gpu.kernel(ptx, "k"));
            assert_eq!(fired, Some(call));
            let e = r
                .map(|_| ())
                .expect_err("an injected failure fails the load");
            assert!(e.to_string().contains(call), "{call}: {e}");
            if call == "cuModuleLoadDataEx" {
                assert!(matches!(e, Error::PtxLoad { .. }), "{e:?}");
            }
            if code == DriverCode(223) && call == "cuModuleLoadDataEx" {
                assert!(e.to_string().contains("CUDA_DISABLE_PTX_JIT"), "{e}");
            }
            gpu.kernel(ptx, "k").expect("the next load works");
        }
    }
    eprintln!(
        "kernel load: {} calls, {} failure points",
        calls.len(),
        calls.len() * 4
    );

    // A sticky code is typed as a lost context (here injected: the driver is fine after).
    let (r, _) = fail_call(1, DriverCode(700), || gpu.alloc::<u8>(64));
    let e = r.map(|_| ()).expect_err("injected");
    assert!(e.is_context_lost(), "{e:?}");
    assert!(e.to_string().contains("restart the process"), "{e}");
    let (r, _) = fail_call(1, DriverCode(913), || gpu.alloc::<u8>(64));
    let e = r.map(|_| ()).expect_err("injected");
    assert!(
        e.to_string()
            .contains("CUDA_ERROR_FUNCTION_NOT_LOADED (913)"),
        "{e}"
    );
    assert_eq!(gpu.upload(&[7u8]).unwrap().to_vec().unwrap(), [7]);
}
