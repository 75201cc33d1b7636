//! Failing driver calls on purpose, for tests (the `fault-injection` feature, off by default;
//! without it nothing here is compiled and driver calls go straight to the driver).
//!
//! Every driver call the crates make through [`driver_code!`](crate::driver_code) counts, on
//! the thread that makes it. [`record`] lists the calls of an operation; [`fail_call`] runs it
//! again with the k-th of them failing with a chosen code instead of reaching the driver.
//! Releases (free, destroy, unload) are not counted: they run in destructors, and the driver
//! fails them only once the context is lost. [`live_device_bytes`] and [`live_pinned_bytes`]
//! count the memory the crates hold, to check that a failure leaks nothing.
//!
//! ```
//! use gpu_core::fault_injection::{fail_call, record};
//! use gpu_core::DriverCode;
//! // An operation without driver calls records none, and a failure armed for its first
//! // call never fires.
//! let (sum, calls) = record(|| 1 + 2);
//! assert_eq!((sum, calls.len()), (3, 0));
//! let (_, fired) = fail_call(1, DriverCode::INVALID_VALUE, || 1 + 2);
//! assert_eq!(fired, None);
//! ```

use std::cell::RefCell;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::driver_code::DriverCode;

#[derive(Default)]
struct State {
    /// Calls counted since the last `record`/`fail_call` began, by name.
    calls: Vec<&'static str>,
    /// Whether calls are being counted.
    active: bool,
    /// The 1-based call to fail, and with what.
    armed: Option<(usize, DriverCode)>,
    /// The call that was failed.
    fired: Option<&'static str>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

static DEVICE_BYTES: AtomicI64 = AtomicI64::new(0);
static PINNED_BYTES: AtomicI64 = AtomicI64::new(0);

/// Resets the thread's state when an operation ends, panicking or not.
struct Session;

impl Session {
    fn start(armed: Option<(usize, DriverCode)>) -> Self {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            assert!(!s.active, "fault_injection::record/fail_call do not nest");
            *s = State {
                active: true,
                armed,
                ..State::default()
            };
        });
        Session
    }

    fn finish(self) -> (Vec<&'static str>, Option<&'static str>) {
        STATE.with(|s| {
            let s = &mut *s.borrow_mut();
            (std::mem::take(&mut s.calls), s.fired.take())
        })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        STATE.with(|s| *s.borrow_mut() = State::default());
    }
}

/// Runs `f` and lists the driver calls it made on this thread, in order (their entry points,
/// e.g. `cuMemAlloc_v2`).
pub fn record<R>(f: impl FnOnce() -> R) -> (R, Vec<&'static str>) {
    let session = Session::start(None);
    let r = f();
    (r, session.finish().0)
}

/// Runs `f` with its `k`-th driver call on this thread (1-based) failing with `code` instead
/// of reaching the driver. Returns `f`'s result and the entry point that was failed (`None`
/// when `f` made fewer than `k` calls).
pub fn fail_call<R>(
    k: usize,
    code: DriverCode,
    f: impl FnOnce() -> R,
) -> (R, Option<&'static str>) {
    assert!(k >= 1, "calls count from 1");
    let session = Session::start(Some((k, code)));
    let r = f();
    (r, session.finish().1)
}

/// Called for each countable driver call: the code to fail it with, or `None` to make it.
pub(crate) fn intercept(name: &'static str) -> Option<DriverCode> {
    STATE.with(|s| {
        let s = &mut *s.borrow_mut();
        if !s.active {
            return None;
        }
        s.calls.push(name);
        match s.armed {
            Some((k, code)) if s.calls.len() == k => {
                s.fired = Some(name);
                Some(code)
            }
            _ => None,
        }
    })
}

/// Device bytes the crates hold now (allocated through `cuMemAlloc`, not yet freed), over
/// every thread.
pub fn live_device_bytes() -> i64 {
    DEVICE_BYTES.load(Ordering::SeqCst)
}

/// Page-locked host bytes the crates hold now (`cuMemAllocHost`), over every thread.
pub fn live_pinned_bytes() -> i64 {
    PINNED_BYTES.load(Ordering::SeqCst)
}

/// Notes an allocation (`bytes > 0`) or a release (`bytes < 0`) of device memory.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn track_device(bytes: i64) {
    DEVICE_BYTES.fetch_add(bytes, Ordering::SeqCst);
}

/// Notes an allocation or a release of page-locked host memory.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn track_pinned(bytes: i64) {
    PINNED_BYTES.fetch_add(bytes, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three_calls() -> Vec<Option<DriverCode>> {
        ["cuA", "cuB", "cuC"].into_iter().map(intercept).collect()
    }

    #[test]
    fn nothing_counts_outside_a_session() {
        assert_eq!(intercept("cuA"), None);
        let (_, calls) = record(|| ());
        assert!(calls.is_empty());
    }

    #[test]
    fn record_lists_calls_in_order() {
        let (codes, calls) = record(three_calls);
        assert_eq!(calls, ["cuA", "cuB", "cuC"]);
        assert!(codes.iter().all(Option::is_none));
    }

    #[test]
    fn fail_call_fails_exactly_the_kth() {
        for k in 1..=4 {
            let (codes, fired) = fail_call(k, DriverCode(46), three_calls);
            for (i, c) in codes.iter().enumerate() {
                assert_eq!(*c, (i + 1 == k).then_some(DriverCode(46)), "k {k} call {i}");
            }
            assert_eq!(fired, ["cuA", "cuB", "cuC"].get(k - 1).copied());
        }
        // The session is over: nothing is armed any more.
        assert_eq!(intercept("cuA"), None);
    }

    #[test]
    fn a_panic_ends_the_session() {
        let r = std::panic::catch_unwind(|| {
            fail_call(1, DriverCode(1), || -> () { panic!("boom") });
        });
        assert!(r.is_err());
        assert_eq!(intercept("cuA"), None);
        let (_, calls) = record(three_calls);
        assert_eq!(calls.len(), 3);
    }

    #[test]
    fn sessions_are_per_thread() {
        let (_, calls) = record(|| {
            std::thread::spawn(three_calls).join().unwrap();
            intercept("cuMine")
        });
        assert_eq!(calls, ["cuMine"]);
    }

    #[test]
    fn memory_counters_add_up() {
        let (d, p) = (live_device_bytes(), live_pinned_bytes());
        track_device(4096);
        track_pinned(512);
        assert_eq!(live_device_bytes() - d, 4096);
        assert_eq!(live_pinned_bytes() - p, 512);
        track_device(-4096);
        track_pinned(-512);
        assert_eq!((live_device_bytes(), live_pinned_bytes()), (d, p));
    }
}
