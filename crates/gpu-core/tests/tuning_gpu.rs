//! Per-device tuning on a real GPU: `Gpu::set_tuning`, `Gpu::tuned` and the tables of
//! `GPU_PRIMS_TUNING` (read in a child process, since a device reads them once per process).
//! Skipped (visibly) without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::tuning::{KEYS, TUNING_VAR};
use gpu_core::{Gpu, Tuning};

const CHILD: &str = "GPU_PRIMS_TUNING_CHILD";

/// One test function: the tuning is per device and process, so nothing else may change it
/// while this runs.
#[test]
fn set_tuning_and_the_built_in_rule() {
    let Some(gpu) = gpu_or_skip() else { return };
    let p = gpu.properties();
    let profile = p.profile();
    eprintln!(
        "{}: {} kHz x {} bits = {:.2} TB/s, {:.1} GB/s per SM, fast memory: {}",
        p.name,
        p.memory_clock_khz,
        p.memory_bus_width,
        profile.memory_bandwidth / 1e12,
        profile.bandwidth_per_sm() / 1e9,
        profile.fast_memory()
    );
    assert!(p.memory_bus_width > 0 && p.memory_clock_khz > 0, "{p:?}");
    for k in KEYS {
        assert_eq!(gpu.tuned(k.name), k.value_for(&profile), "{}", k.name);
    }
    let mut t = Tuning::new();
    t.set("scan.staged_block", 256).unwrap();
    gpu.set_tuning(t.clone()).unwrap();
    assert_eq!(gpu.tuned("scan.staged_block"), 256);
    // Every handle of the device sees it.
    assert_eq!(Gpu::new(p.ordinal).unwrap().tuned("scan.staged_block"), 256);
    assert_eq!(*gpu.tuning(), t);
    // A table for another device is refused, and changes nothing.
    let other = Tuning::new().for_device("some other GPU");
    let e = gpu.set_tuning(other).unwrap_err().to_string();
    assert!(e.contains("the table is for `some other GPU`"), "{e}");
    assert_eq!(gpu.tuned("scan.staged_block"), 256);
    // Its own name is accepted.
    gpu.set_tuning(Tuning::new().for_device(p.name.clone()))
        .unwrap();
    let key = gpu_core::tuning::key("scan.staged_block").unwrap();
    assert_eq!(gpu.tuned("scan.staged_block"), key.value_for(&profile));
    gpu.set_tuning(Tuning::new()).unwrap();
}

#[test]
#[ignore = "run by `tuning_tables_from_the_environment` in a process of its own"]
fn tuning_child() {
    let Ok(expect) = std::env::var(CHILD) else {
        return;
    };
    match (expect.as_str(), Gpu::default_device()) {
        ("applied", Ok(gpu)) => {
            assert_eq!(gpu.tuned("reduce.block"), 128);
            assert_eq!(gpu.tuned("scan.staged_from"), 1 << 22);
            // The second file names another device: not applied.
            let key = gpu_core::tuning::key("scan.block_small").unwrap();
            assert_eq!(
                gpu.tuned("scan.block_small"),
                key.value_for(&gpu.properties().profile())
            );
        }
        ("refused", Err(e)) => {
            let text = e.to_string();
            eprintln!("child: {text}");
            assert!(
                text.contains("bad.txt") && text.contains("line 2"),
                "{text}"
            );
            assert!(text.contains("must be a power of two"), "{text}");
        }
        (want, got) => panic!("expected the table {want}, got {got:?}"),
    }
    eprintln!("child: as expected");
}

#[test]
fn tuning_tables_from_the_environment() {
    let Some(gpu) = gpu_or_skip() else { return };
    let dir = std::env::temp_dir().join(format!("gp-tuning-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mine = dir.join("mine.txt");
    let other = dir.join("other.txt");
    let bad = dir.join("bad.txt");
    std::fs::write(
        &mine,
        format!(
            "device = {}\nreduce.block = 128\nscan.staged_from = 2^22\n",
            gpu.properties().name
        ),
    )
    .unwrap();
    std::fs::write(&other, "device = not this GPU\nscan.block_small = 64\n").unwrap();
    std::fs::write(&bad, "# a typo\nreduce.block = 100\n").unwrap();
    let exe = std::env::current_exe().unwrap();
    for (expect, files) in [
        ("applied", std::env::join_paths([&mine, &other]).unwrap()),
        ("refused", std::env::join_paths([&mine, &bad]).unwrap()),
    ] {
        let out = std::process::Command::new(&exe)
            .args(["tuning_child", "--exact", "--ignored", "--nocapture"])
            .env(CHILD, expect)
            .env(TUNING_VAR, &files)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && text.contains("child: as expected"),
            "{expect}: {text}{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
