//! The communicator: how the ranks holding the shards exchange what the sharded algorithms
//! need. One trait, two transports: [`InProcess`] (every rank driven by this process: several
//! devices, or several shards of one device) and NCCL (`Nccl`, feature `nccl`).

use std::ops::Range;

use gpu_core::{Error, Pod, Result};

/// What the sharded algorithms ask of a transport. A process drives the ranks
/// [`local_ranks`](Communicator::local_ranks) of [`ranks`](Communicator::ranks) in all; a
/// sharded array of this process holds exactly those ranks' shards.
pub trait Communicator: Send + Sync {
    /// The number of ranks (shards) in the communicator.
    fn ranks(&self) -> usize;

    /// The ranks this process drives, in rank order.
    fn local_ranks(&self) -> Range<usize>;

    /// All-gather: `local[i]` is the contribution of local rank `local_ranks().start + i`,
    /// every rank's of the same length; returns every rank's contribution, concatenated in rank
    /// order, on every rank. An error if `local` has not one entry per local rank or the
    /// lengths differ.
    fn all_gather(&self, local: &[Vec<u8>]) -> Result<Vec<u8>>;

    /// [`all_gather`](Communicator::all_gather) of contributions that are still on the
    /// devices, enqueued on their devices' streams: a transport that moves device memory
    /// (NCCL) sends them from there, with no wait before the exchange; the others (the
    /// default) read them back first.
    #[cfg(feature = "cuda")]
    fn all_gather_device(&self, local: &[DeviceBytes<'_>]) -> Result<Vec<u8>> {
        let host = local
            .iter()
            .map(DeviceBytes::to_vec)
            .collect::<Result<Vec<_>>>()?;
        self.all_gather(&host)
    }
}

/// A device array's bytes, as a contribution to
/// [`Communicator::all_gather_device`]: its device, address and size, borrowed.
#[cfg(feature = "cuda")]
pub struct DeviceBytes<'a> {
    gpu: &'a gpu_core::Gpu,
    ptr: u64,
    len: usize,
    read: Box<dyn Fn() -> Result<Vec<u8>> + Send + Sync + 'a>,
}

#[cfg(feature = "cuda")]
impl<'a> DeviceBytes<'a> {
    /// The bytes of `array`'s elements.
    pub fn of<P: Pod>(array: &'a gpu_core::DeviceArray<P>) -> Self {
        Self {
            gpu: array.gpu(),
            ptr: array.device_ptr(),
            len: array.size_bytes(),
            read: Box::new(move || Ok(slice_bytes(&array.to_vec()?))),
        }
    }

    /// The device holding them.
    pub fn gpu(&self) -> &gpu_core::Gpu {
        self.gpu
    }

    /// Their device address (valid while the borrowed array lives).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// How many bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, read back to the host (after the work enqueued on the device's stream).
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        (self.read)()
    }
}

/// The transport for ranks all driven by this process (no NCCL needed): an exchange is a
/// copy in host memory, which is where the sharded algorithms keep what they exchange (one
/// partial value per shard).
///
/// ```
/// use gpu_dist::{Communicator, InProcess};
/// let comm = InProcess::new(3);
/// assert_eq!(comm.local_ranks(), 0..3);
/// let all = comm.all_gather(&[vec![1u8], vec![2], vec![3]]).unwrap();
/// assert_eq!(all, [1, 2, 3]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InProcess {
    ranks: usize,
}

impl InProcess {
    /// A communicator of `ranks` ranks, all local.
    pub fn new(ranks: usize) -> Self {
        Self { ranks }
    }
}

impl Communicator for InProcess {
    fn ranks(&self) -> usize {
        self.ranks
    }

    fn local_ranks(&self) -> Range<usize> {
        0..self.ranks
    }

    fn all_gather(&self, local: &[Vec<u8>]) -> Result<Vec<u8>> {
        check_contributions(self, local)?;
        Ok(local.concat())
    }
}

/// Checks that `local` holds one contribution per local rank of `comm`, all of one length.
pub(crate) fn check_contributions(comm: &dyn Communicator, local: &[Vec<u8>]) -> Result<()> {
    check_lengths(comm, &local.iter().map(Vec::len).collect::<Vec<_>>())
}

/// Checks that `lens` (the contributions' byte counts) has one entry per local rank of `comm`,
/// all equal.
pub(crate) fn check_lengths(comm: &dyn Communicator, lens: &[usize]) -> Result<()> {
    let expected = comm.local_ranks().len();
    if lens.len() != expected {
        return Err(Error::invalid(
            "local",
            format!("{} contributions for {expected} local ranks", lens.len()),
        ));
    }
    if let Some(&first) = lens.first() {
        if let Some(bad) = lens.iter().position(|&l| l != first) {
            return Err(Error::invalid(
                "local",
                format!(
                    "contribution {bad} holds {} bytes, contribution 0 {first}",
                    lens[bad]
                ),
            ));
        }
    }
    Ok(())
}

/// All-gathers one plain value per local rank of `comm`: every rank's value, in rank order.
///
/// ```
/// use gpu_dist::{all_gather_values, InProcess};
/// assert_eq!(all_gather_values(&InProcess::new(2), &[1.5f64, -2.0]).unwrap(), [1.5, -2.0]);
/// ```
pub fn all_gather_values<T: Pod>(comm: &dyn Communicator, local: &[T]) -> Result<Vec<T>> {
    let bytes: Vec<Vec<u8>> = local
        .iter()
        .map(|v| slice_bytes(std::slice::from_ref(v)))
        .collect();
    let all = comm.all_gather(&bytes)?;
    let size = std::mem::size_of::<T>();
    if all.len() != comm.ranks() * size {
        return Err(Error::invalid(
            "comm",
            format!(
                "the all-gather returned {} bytes for {} ranks of {size}",
                all.len(),
                comm.ranks()
            ),
        ));
    }
    Ok(values_from_bytes(&all))
}

/// The bytes of plain values, in order.
pub(crate) fn slice_bytes<T: Pod>(v: &[T]) -> Vec<u8> {
    // SAFETY: T: Pod has no padding (every byte initialised) and `v` is a live slice of
    // size_of_val(v) bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
        .to_vec()
}

/// The plain values whose bytes are `bytes` (whole values only; a trailing part is dropped).
pub(crate) fn values_from_bytes<T: Pod>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(std::mem::size_of::<T>())
        // SAFETY: each chunk holds size_of::<T>() bytes; T: Pod accepts any bytes;
        // read_unaligned because a byte buffer gives no alignment for T.
        .map(|c| unsafe { std::ptr::read_unaligned(c.as_ptr() as *const T) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_gather_checks_its_contributions() {
        let comm = InProcess::new(2);
        assert!(comm.all_gather(&[vec![1u8]]).is_err());
        assert!(comm.all_gather(&[vec![1u8], vec![2, 3]]).is_err());
        let v = all_gather_values(&comm, &[1.5f64, -2.0]).unwrap();
        assert_eq!(v, [1.5, -2.0]);
        assert_eq!(
            all_gather_values::<u32>(&InProcess::new(0), &[]).unwrap(),
            []
        );
    }
}
