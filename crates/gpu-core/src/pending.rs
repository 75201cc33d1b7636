//! Non-blocking host-to-host calls: the work runs on a thread of its own, over data it owns,
//! and the caller holds a [`Pending`] handle to wait on while it does something else.

use std::thread::JoinHandle;

use crate::error::{Error, Result};

/// The result of a call that is still running (e.g. `Scan::scan_async`): [`wait`] for it, or
/// ask whether it has [finished](Pending::is_finished). The call owns its data (moved in, given
/// back by `wait`), so dropping the handle without waiting is safe: the call runs to its end on
/// its own and its result is dropped.
///
/// [`wait`]: Pending::wait
///
/// ```
/// let pending = gpu_core::Pending::spawn(|| Ok(6 * 7));
/// // ... other work here ...
/// assert_eq!(pending.wait().unwrap(), 42);
/// ```
#[must_use = "the result is only available through `wait`"]
pub struct Pending<R> {
    handle: JoinHandle<Result<R>>,
}

impl<R: Send + 'static> Pending<R> {
    /// Runs `call` on a new thread and returns its handle at once.
    pub fn spawn(call: impl FnOnce() -> Result<R> + Send + 'static) -> Self {
        Pending {
            handle: std::thread::spawn(call),
        }
    }
}

impl<R> Pending<R> {
    /// Whether the call has returned (`wait` then does not block).
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    /// Blocks until the call returns, and returns its result. A panic inside the call comes
    /// back as an error naming it, not as a panic of the caller.
    pub fn wait(self) -> Result<R> {
        match self.handle.join() {
            Ok(r) => r,
            Err(p) => {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a non-string panic".into());
                Err(Error::invalid(
                    "pending",
                    format!("the call panicked: {msg}"),
                ))
            }
        }
    }
}

impl<R> std::fmt::Debug for Pending<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("finished", &self.is_finished())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_for_the_result_and_reports_panics() {
        let p = Pending::spawn(|| Ok(vec![1u8, 2, 3]));
        assert_eq!(p.wait().unwrap(), vec![1, 2, 3]);
        let e = Pending::<()>::spawn(|| Err(Error::invalid("x", "bad"))).wait();
        assert!(e.unwrap_err().to_string().contains("bad"));
        let e = Pending::<()>::spawn(|| panic!("on purpose")).wait();
        assert!(e.unwrap_err().to_string().contains("on purpose"));
        let slow = Pending::spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            Ok(1)
        });
        let _ = slow.is_finished();
        assert_eq!(slow.wait().unwrap(), 1);
    }
}
