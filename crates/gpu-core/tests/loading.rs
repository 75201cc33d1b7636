//! Kernel loading on a real GPU: one module per kernel of a pack, loaded on first use, once
//! however many threads ask; a broken kernel fails alone, with an error naming it.
#![cfg(feature = "cuda")]

use std::sync::Barrier;

use gpu_core::testing::{assert_cubins_complete, gpu_or_skip};
use gpu_core::{kernel_args, Cubins, Error, Gpu, KernelImage, LaunchConfig, Ptx};

/// `probe_store(u32* out, u32 value)`: `*out = value`.
macro_rules! probe_store {
    ($name:literal) => {
        concat!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry ",
            $name,
            "(\n.param .u64 p0,\n.param .u32 p1\n)\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<3>;\n",
            "ld.param.u64 %rd1, [p0];\nld.param.u32 %r1, [p1];\ncvta.to.global.u64 %rd2, %rd1;\n",
            "st.global.u32 [%rd2], %r1;\nret;\n}\n"
        )
    };
}

static MIXED: Ptx = Ptx::new(
    "gpu-core-tests/mixed",
    concat!(
        "// a pack as scripts/ptx.py writes it\n//@entry probe_store\n",
        probe_store!("probe_store"),
        "//@entry probe_broken\n.version 7.0\n.target sm_70\n.address_size 64\nthis is not ptx\n",
        "//@entry probe_store_2\n",
        probe_store!("probe_store_2"),
    ),
);

fn run_probe(gpu: &Gpu, ptx: &Ptx, name: &str, value: u32) -> Result<u32, Error> {
    let kernel = gpu.kernel(ptx, name)?;
    let out = gpu.zeros::<u32>(1)?;
    let ptr = out.device_ptr();
    // SAFETY: probe_store(u32*, u32) writes one u32; `out` holds one and outlives the launch
    // (to_vec waits for the stream).
    unsafe {
        kernel.launch(
            LaunchConfig::new(1, 1),
            gpu.stream(),
            &kernel_args![ptr, value],
        )?
    };
    gpu.stream().synchronize()?;
    Ok(out.to_vec()?[0])
}

#[test]
fn gpu_a_broken_kernel_fails_alone_and_is_named() {
    let Some(gpu) = gpu_or_skip() else { return };
    match gpu.kernel(&MIXED, "probe_broken") {
        Err(Error::PtxLoad { module, log, .. }) => {
            assert_eq!(module, "gpu-core-tests/mixed:probe_broken");
            assert!(!log.trim().is_empty(), "empty JIT log");
        }
        Err(e) => panic!("expected PtxLoad, got {e}"),
        Ok(_) => panic!("broken PTX loaded"),
    }
    // Asking again fails again (nothing half-loaded is cached); its neighbours work.
    assert!(gpu.kernel(&MIXED, "probe_broken").is_err());
    assert_eq!(run_probe(&gpu, &MIXED, "probe_store", 42).unwrap(), 42);
    assert_eq!(run_probe(&gpu, &MIXED, "probe_store_2", 7).unwrap(), 7);
    let k = gpu.kernel(&MIXED, "probe_store").unwrap();
    assert_eq!(k.image(), KernelImage::Ptx);
    match gpu.kernel(&MIXED, "probe_missing") {
        // The caller asked for something the crate does not have: an argument error.
        Err(e @ Error::InvalidArgument { .. }) => {
            assert!(e.to_string().contains("no kernel `probe_missing`"), "{e}")
        }
        Err(e) => panic!("expected InvalidArgument, got {e}"),
        Ok(_) => panic!("a kernel that is not in the pack loaded"),
    }
    let loaded = gpu.loaded_kernels(&MIXED);
    assert_eq!(loaded, vec!["probe_store", "probe_store_2"]);
    assert!(MIXED.is_pack());
    assert_eq!(
        MIXED.kernel_names(),
        vec!["probe_store", "probe_broken", "probe_store_2"]
    );
    assert!(
        gpu.module_global(&MIXED, "x").is_err(),
        "packs have no one module"
    );
}

fn fnv1a64(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A cubin archive (format in scripts/kernel_pack.py, one stored frame) holding `code` for
/// `kernel` under the hash of its PTX section, for `arch`.
fn cubin_pack(arch: u32, kernel: &str, section: &str, code: &[u8]) -> &'static [u8] {
    let mut out = b"GPKARCH1".to_vec();
    for v in [1u32, arch, 1, 1, 0] {
        out.extend(v.to_le_bytes());
    }
    let at = out.len() + 32 + 2 + kernel.len() + 20;
    out.extend((at as u64).to_le_bytes());
    out.extend(fnv1a64(code).to_le_bytes());
    for v in [code.len() as u32, code.len() as u32, 0, 0] {
        out.extend(v.to_le_bytes());
    }
    out.extend((kernel.len() as u16).to_le_bytes());
    out.extend(kernel.as_bytes());
    out.extend(fnv1a64(section.as_bytes()).to_le_bytes());
    for v in [0u32, 0, code.len() as u32] {
        out.extend(v.to_le_bytes());
    }
    assert_eq!(out.len(), at);
    out.extend(code);
    out.leak()
}

/// The archive the next test builds reads back (no GPU needed).
#[test]
fn test_cubin_archives_read_back() {
    let section = probe_store!("probe_store");
    let cubins = vec![Cubins::new(
        90,
        cubin_pack(90, "probe_store", section, b"code"),
    )];
    let ptx = Ptx::new(
        "gpu-core-tests/archive",
        concat!("//@entry probe_store\n", probe_store!("probe_store")),
    )
    .with_cubins(cubins.leak());
    assert_eq!(ptx.cubin_archs("probe_store"), vec![90]);
    assert_eq!(ptx.kernel_ptx("probe_store").unwrap(), Some(section));
}

#[test]
fn gpu_a_corrupt_cubin_is_named_and_its_neighbours_work() {
    let Some(gpu) = gpu_or_skip() else { return };
    let (major, minor) = gpu.properties().compute_capability;
    let arch = major * 10 + minor;
    let section = probe_store!("probe_store");
    let garbage = b"\x7fELF but not really a cubin, just bytes".as_slice();
    let cubins = vec![Cubins::new(
        arch,
        cubin_pack(arch, "probe_store", section, garbage),
    )];
    let ptx = Ptx::new(
        "gpu-core-tests/corrupt-cubin",
        concat!(
            "//@entry probe_store\n",
            probe_store!("probe_store"),
            "//@entry probe_store_2\n",
            probe_store!("probe_store_2"),
        ),
    )
    .with_cubins(cubins.leak());
    if std::env::var(gpu_core::KERNEL_IMAGES_VAR).is_ok_and(|v| v == "ptx") {
        assert_eq!(run_probe(&gpu, &ptx, "probe_store", 5).unwrap(), 5);
        return;
    }
    assert_eq!(ptx.cubin_archs("probe_store"), vec![arch]);
    match gpu.kernel(&ptx, "probe_store") {
        Err(Error::PtxLoad { module, .. }) => assert_eq!(
            module,
            format!("gpu-core-tests/corrupt-cubin:probe_store (sm_{arch} cubin)")
        ),
        Err(e) => panic!("expected PtxLoad, got {e}"),
        Ok(_) => panic!("a corrupt cubin loaded"),
    }
    // No cubin for the neighbour: it takes its PTX and runs.
    assert_eq!(run_probe(&gpu, &ptx, "probe_store_2", 9).unwrap(), 9);
    assert_eq!(
        gpu.kernel(&ptx, "probe_store_2").unwrap().image(),
        KernelImage::Ptx
    );
}

static CONCURRENT: Ptx = Ptx::new(
    "gpu-core-tests/concurrent",
    concat!("//@entry probe_store\n", probe_store!("probe_store")),
);

#[test]
fn gpu_many_threads_asking_for_one_kernel_load_it_once() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert_eq!(gpu.module_loads(&CONCURRENT, "probe_store"), 0);
    let threads = 16;
    let barrier = Barrier::new(threads);
    std::thread::scope(|s| {
        for t in 0..threads as u32 {
            let (gpu, barrier) = (&gpu, &barrier);
            s.spawn(move || {
                barrier.wait();
                assert_eq!(run_probe(gpu, &CONCURRENT, "probe_store", t).unwrap(), t);
            });
        }
    });
    assert_eq!(gpu.module_loads(&CONCURRENT, "probe_store"), 1);
    assert_eq!(gpu.loaded_kernels(&CONCURRENT), vec!["probe_store"]);
}

#[test]
fn gpu_a_plain_ptx_module_loads_whole_and_once() {
    let Some(gpu) = gpu_or_skip() else { return };
    static PLAIN: Ptx = Ptx::new("gpu-core-tests/plain", probe_store!("probe_plain"));
    assert!(!PLAIN.is_pack());
    assert_eq!(PLAIN.kernel_names(), vec!["probe_plain"]);
    assert_eq!(run_probe(&gpu, &PLAIN, "probe_plain", 3).unwrap(), 3);
    assert_eq!(run_probe(&gpu, &PLAIN, "probe_plain", 4).unwrap(), 4);
    assert_eq!(gpu.loaded_kernels(&PLAIN), vec!["probe_plain"]);
    assert!(gpu.kernel(&PLAIN, "other").is_err());
}

#[test]
fn core_kernels_have_cubins_built_from_their_ptx() {
    assert_cubins_complete(gpu_core::KERNELS, &[80, 90]);
}
