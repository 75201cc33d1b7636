//! gpu-core's own rows: the device-to-device copy (the reference line), a fill (write only), and
//! host↔device transfers (pageable and pinned), next to a rayon memcpy on the host.

use gpu_core::Element;
use rayon::prelude::*;

use super::{check, Case, Config, DType, Env, Group, Row};

/// GPU cases per group.
const GPU_CASES: usize = 7;

/// One group per (type, size).
pub fn groups(cfg: &Config, gpu: bool, _notes: &mut Vec<String>) -> Vec<Group> {
    let mut out = Vec::new();
    for &d in &cfg.types {
        for &n in &cfg.sizes {
            out.push(Group {
                label: format!("core {} {}", d.name(), crate::size_label(n)),
                cases: 1 + if gpu { GPU_CASES } else { 0 },
                run: Box::new(move |env: &mut Env| crate::with_dtype!(d, T => run::<T>(env, d, n))),
            });
        }
    }
    out
}

fn run<T: Element>(env: &mut Env, d: DType, n: usize) -> Vec<Row> {
    let host = env.generate::<T>(d, n);
    let bytes = (n * d.size()) as u64;
    let dst = std::cell::RefCell::new(vec![T::default(); n]);
    let mut cases = Vec::new();
    cases.push(
        Case::new("core", "rayon", "copy", d.name(), n)
            .bytes(2 * bytes, None)
            .reps(env.cfg.cpu_reps_for(n))
            .cpu(|| {
                dst.borrow_mut()
                    .par_chunks_mut(1 << 16)
                    .zip(host.par_chunks(1 << 16))
                    .for_each(|(a, b)| a.copy_from_slice(b));
            })
            .check(|| check::slices(&dst.borrow(), &host)),
    );
    #[allow(unused_mut)]
    let mut rows = env.run_cases(cases);
    #[cfg(feature = "cuda")]
    if env.has_gpu() {
        rows.extend(gpu::run::<T>(env, d, &host));
    }
    rows
}

#[cfg(feature = "cuda")]
mod gpu {
    use std::cell::RefCell;

    use gpu_core::Element;

    use super::super::{check, classify, Case, DType, Env, Row, Verdict};

    pub(super) fn run<T: Element>(env: &mut Env, d: DType, host: &[T]) -> Vec<Row> {
        let n = host.len();
        let bytes = n * d.size();
        let gpu = env.gpu.clone().expect("has_gpu");
        let fail = |env: &mut Env, e: gpu_core::Error| -> Vec<Row> {
            let (_, note) = classify(&e);
            env.note(format!(
                "core {} {}: {note}",
                d.name(),
                crate::size_label(n)
            ));
            Vec::new()
        };
        if !env.fits(3 * bytes) {
            env.note(format!(
                "core {} {}: skipped, {} bytes do not fit in device memory",
                d.name(),
                crate::size_label(n),
                3 * bytes
            ));
            return Vec::new();
        }
        let setup = || -> gpu_core::Result<_> {
            let x = gpu.upload(host)?;
            let y = gpu.alloc::<T>(n)?;
            let pinned = gpu.pinned_from(host)?;
            let pinned_out = gpu.pinned::<T>(n)?;
            // Both directions at once: the download on a second stream, forked from and joined
            // back into the timed stream by events.
            let both = (
                gpu.new_stream()?,
                gpu.new_event(false)?,
                gpu.new_event(false)?,
            );
            Ok((x, RefCell::new(y), pinned, RefCell::new(pinned_out), both))
        };
        let (x, y, pinned, pinned_out, (side, forked, joined)) = match setup() {
            Ok(v) => v,
            Err(e) => return fail(env, e),
        };
        let host_out = RefCell::new(vec![T::default(); n]);
        let name = d.name();
        let value = T::from_f64(3.0);
        let y_is = |want: &[T]| match y.borrow().to_vec() {
            Ok(v) => check::slices(&v, want),
            Err(e) => Verdict::error(&e),
        };
        let filled = vec![value; n];
        let at_once = |s: &gpu_core::Stream| -> gpu_core::Result<()> {
            forked.record(s)?;
            side.wait(&forked)?;
            y.borrow_mut().copy_from_pinned_async(&pinned, s)?;
            x.copy_to_pinned_async(&mut pinned_out.borrow_mut(), &side)?;
            joined.record(&side)?;
            s.wait(&joined)
        };
        let b = bytes as u64;
        let cases = vec![
            Case::new("core", "copy", "device to device", name, n)
                .bytes(2 * b, Some(bytes))
                .gpu(|s| y.borrow_mut().copy_from_device(&x, s))
                .check(|| y_is(host)),
            Case::new("core", "fill", "write only", name, n)
                .bytes(b, Some(bytes))
                .gpu(|s| y.borrow_mut().fill(value, s))
                .check(|| y_is(&filled)),
            Case::new("core", "upload", "pageable", name, n)
                .bytes(b, None)
                .reps(5)
                .gpu(|_| y.borrow_mut().copy_from(host))
                .check(|| y_is(host)),
            Case::new("core", "download", "pageable", name, n)
                .bytes(b, None)
                .reps(5)
                .gpu(|_| x.copy_to(&mut host_out.borrow_mut()))
                .check(|| check::slices(&host_out.borrow(), host)),
            Case::new("core", "upload", "pinned", name, n)
                .bytes(b, None)
                .reps(5)
                .gpu(|s| y.borrow_mut().copy_from_pinned_async(&pinned, s))
                .check(|| {
                    // y already held the data (pageable upload): overwrite it, upload once more.
                    let s = gpu.stream();
                    let again = || -> gpu_core::Result<()> {
                        let mut a = y.borrow_mut();
                        a.fill(T::from_f64(-1.0), s)?;
                        a.copy_from_pinned_async(&pinned, s)?;
                        s.synchronize()
                    };
                    match again() {
                        Ok(()) => y_is(host),
                        Err(e) => Verdict::error(&e),
                    }
                }),
            Case::new("core", "download", "pinned", name, n)
                .bytes(b, None)
                .reps(5)
                .gpu(|s| x.copy_to_pinned_async(&mut pinned_out.borrow_mut(), s))
                .check(|| match pinned_out.borrow().as_slice() {
                    Ok(v) => check::slices(v, host),
                    Err(e) => Verdict::error(&e),
                }),
            // The link's two directions at once (the bound of a host-to-host pipeline): the
            // pinned upload on the timed stream, the pinned download on `side`.
            Case::new("core", "upload+download", "pinned, at once", name, n)
                .bytes(2 * b, None)
                .reps(5)
                .gpu(at_once)
                .check(|| {
                    // Both targets already hold the data (earlier cases): poison them, run once
                    // more.
                    let s = gpu.stream();
                    let again = || -> gpu_core::Result<()> {
                        y.borrow_mut().fill(T::from_f64(-1.0), s)?;
                        s.synchronize()?;
                        pinned_out
                            .borrow_mut()
                            .as_mut_slice()?
                            .fill(T::from_f64(-1.0));
                        at_once(s)?;
                        s.synchronize()
                    };
                    if let Err(e) = again() {
                        return Verdict::error(&e);
                    }
                    match pinned_out.borrow().as_slice() {
                        Ok(v) => match check::slices(v, host) {
                            Verdict::Correct => y_is(host),
                            other => other,
                        },
                        Err(e) => Verdict::error(&e),
                    }
                }),
        ];
        debug_assert_eq!(cases.len(), super::GPU_CASES);
        env.run_cases(cases)
    }
}
