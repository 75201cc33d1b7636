//! The device headers, for kernels of your own: their text, and a way to put them in an
//! include directory.
//!
//! `gpu_prims/sync.cuh` holds the last-block guard (`gp::is_last_block`, `gp::load_coherent`)
//! and the work queue (`gp::WorkQueue`); it includes `gpu_prims/types.cuh` (the `gp::u32`,
//! `gp::u64`, … names). Both need nothing from the CUDA toolkit: NVRTC or nvcc compile them
//! with their built-ins alone (compute capability 7.0 or newer).
//!
//! In a downstream crate, write them into `OUT_DIR` from the build script and pass that
//! directory to the compiler with `-I`:
//!
//! ```no_run
//! // build.rs (gpu-sync as a build-dependency; it needs no CUDA at build time)
//! use std::path::PathBuf;
//! use std::process::Command;
//!
//! fn main() {
//!     let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
//!     let include = gpu_sync::write_headers(out.join("include")).unwrap();
//!     let status = Command::new("nvcc")
//!         .args(["--ptx", "-arch=compute_70", "-I"])
//!         .arg(&include)
//!         .arg("kernels/my_kernels.cu")
//!         .arg("-o")
//!         .arg(out.join("my_kernels.ptx"))
//!         .status()
//!         .expect("nvcc");
//!     assert!(status.success());
//!     println!("cargo:rerun-if-changed=kernels/my_kernels.cu");
//! }
//! ```
//!
//! With NVRTC instead of nvcc, either pass `--include-path=<dir>` or hand it [`HEADERS`] as
//! in-memory headers (`nvrtcCreateProgram`'s `headers` / `includeNames`).
//!
//! The headers' canonical copies are `kernels/include/gpu_prims/` of the workspace, which
//! gpu-sync's own kernels and the other gpu-prims crates compile against; the crate carries
//! copies under `include/` so that it packages on its own, and a unit test fails if the two
//! differ.

use std::io;
use std::path::{Path, PathBuf};

/// The text of `gpu_prims/sync.cuh`: last-block guard and global work queue.
pub const SYNC_CUH: &str = include_str!("../include/gpu_prims/sync.cuh");

/// The text of `gpu_prims/types.cuh` (fixed-width type names), which `sync.cuh` includes.
pub const TYPES_CUH: &str = include_str!("../include/gpu_prims/types.cuh");

/// Every header a kernel including `<gpu_prims/sync.cuh>` needs, as
/// `(include name, text)`, dependencies first.
pub const HEADERS: [(&str, &str); 2] = [
    ("gpu_prims/types.cuh", TYPES_CUH),
    ("gpu_prims/sync.cuh", SYNC_CUH),
];

/// Writes [`HEADERS`] under `dir` (`dir/gpu_prims/sync.cuh`, …), creating directories as
/// needed, and returns `dir`: the path to give the compiler with `-I`.
///
/// Files that already hold the right text are left alone (their modification time too), so
/// calling this from a build script on every build does not trigger rebuilds.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("gpu-sync-doc-{}", std::process::id()));
/// let include = gpu_sync::write_headers(&dir)?;
/// let text = std::fs::read_to_string(include.join("gpu_prims/sync.cuh"))?;
/// assert!(text.contains("is_last_block"));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_headers(dir: impl AsRef<Path>) -> io::Result<PathBuf> {
    let dir = dir.as_ref();
    for (name, text) in HEADERS {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        // Write to a temporary name and rename, so a concurrent build never reads half a file.
        let tmp = path.with_extension(format!("cuh.tmp{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(dir.to_path_buf())
}

/// The `include/` directory of this crate's sources, which holds [`HEADERS`] as files.
///
/// It is a path on the machine that compiled gpu-sync: valid in a downstream build script
/// (where the crate's sources sit in the registry or the workspace), meaningless in a binary
/// shipped elsewhere. [`write_headers`] into `OUT_DIR` is the more robust choice.
pub fn include_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/include"))
}

/// The names of the files included (`#include <x>` or `"x"`) by `text`.
#[cfg(test)]
fn includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix('#'))
        .filter_map(|l| l.trim_start().strip_prefix("include"))
        .filter_map(|l| {
            let l = l.trim();
            let close = match l.chars().next()? {
                '<' => '>',
                '"' => '"',
                _ => return None,
            };
            let rest = &l[1..];
            Some(rest[..rest.find(close)?].to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kernels/` of the workspace, when the crate is built inside it (not from a package).
    fn workspace_kernels() -> Option<PathBuf> {
        let k = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
        k.join("include/gpu_prims").is_dir().then_some(k)
    }

    #[test]
    fn headers_match_the_workspace_copies() {
        let Some(kernels) = workspace_kernels() else {
            eprintln!("SKIPPED: not inside the gpu-prims workspace");
            return;
        };
        for (name, text) in HEADERS {
            let canonical = std::fs::read_to_string(kernels.join("include").join(name)).unwrap();
            assert!(
                canonical == text,
                "crates/gpu-sync/include/{name} differs from kernels/include/{name}: \
                 copy it over (cp kernels/include/{name} crates/gpu-sync/include/{name})"
            );
        }
    }

    #[test]
    fn headers_are_self_contained() {
        let names: Vec<&str> = HEADERS.iter().map(|(n, _)| *n).collect();
        for (name, text) in HEADERS {
            for inc in includes(text) {
                assert!(
                    names.contains(&inc.as_str()),
                    "{name} includes {inc}, not exported"
                );
            }
        }
        // Dependencies come first.
        assert_eq!(includes(TYPES_CUH), Vec::<String>::new());
        assert_eq!(includes(SYNC_CUH), vec!["gpu_prims/types.cuh".to_string()]);
    }

    #[test]
    fn our_kernels_use_only_the_exported_headers() {
        let Some(kernels) = workspace_kernels() else {
            eprintln!("SKIPPED: not inside the gpu-prims workspace");
            return;
        };
        let cu = std::fs::read_to_string(kernels.join("sync.cu")).unwrap();
        assert_eq!(includes(&cu), vec!["gpu_prims/sync.cuh".to_string()]);
    }

    #[test]
    fn the_api_other_crates_use_is_there() {
        // gpu-reduce's one-launch reduction compiles against these exact signatures.
        for needle in [
            "__device__ __forceinline__ bool is_last_block(unsigned int* counter)",
            "template <class T> __device__ __forceinline__ T load_coherent(const T* p)",
            "struct WorkQueue {\n    u64* cursor;\n    u64 total;\n",
            "u64 fetch(u64* shared_slot) const",
            "bool fetch_batch(u64* shared_slot, u64 batch, u64* begin,\n",
            "u64* end) const",
        ] {
            assert!(SYNC_CUH.contains(needle), "sync.cuh lost `{needle}`");
        }
    }

    #[test]
    fn include_dir_holds_the_headers() {
        // `include_dir()` names the build machine's sources; a test binary carried elsewhere
        // (the GPU bundle) has nothing there to check.
        if !Path::new(env!("CARGO_MANIFEST_DIR")).is_dir() {
            eprintln!("SKIPPED: the sources this test was built from are not on this machine");
            return;
        }
        for (name, text) in HEADERS {
            assert_eq!(
                std::fs::read_to_string(include_dir().join(name)).unwrap(),
                text
            );
        }
    }

    #[test]
    fn write_headers_writes_and_is_idempotent() {
        let dir = std::env::temp_dir().join(format!("gpu-sync-headers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(write_headers(&dir).unwrap(), dir);
        let before = std::fs::metadata(dir.join("gpu_prims/sync.cuh"))
            .unwrap()
            .modified()
            .unwrap();
        write_headers(&dir).unwrap();
        let after = std::fs::metadata(dir.join("gpu_prims/sync.cuh"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(before, after);
        // A stale file is replaced.
        std::fs::write(dir.join("gpu_prims/types.cuh"), "old").unwrap();
        write_headers(&dir).unwrap();
        for (name, text) in HEADERS {
            assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), text);
        }
        let leftovers = std::fs::read_dir(dir.join("gpu_prims")).unwrap().count();
        assert_eq!(leftovers, HEADERS.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn include_parsing() {
        let t = "#include <a/b.cuh>\n  #  include \"c.h\"\n// #include <no>\n#pragma once\n";
        assert_eq!(includes(t), vec!["a/b.cuh".to_string(), "c.h".to_string()]);
    }
}
