//! Checks shared by every shaped entry point (axes of N-D arrays, segments given by offsets),
//! so each primitive refuses bad shapes with the same clear errors.

use crate::error::{Error, Result};

/// Refuses an `axis` outside `0..ndim`.
///
/// ```
/// assert!(gpu_core::check_axis(1, 2).is_ok());
/// let e = gpu_core::check_axis(2, 2).unwrap_err();
/// assert!(e.to_string().contains("axis 2"));
/// ```
pub fn check_axis(axis: usize, ndim: usize) -> Result<()> {
    if axis >= ndim {
        return Err(Error::invalid(
            "axis",
            format!("axis {axis} is out of range for an array of {ndim} dimension(s)"),
        ));
    }
    Ok(())
}

/// Checks segment offsets over `len` values, CSR style: `offsets[i]..offsets[i + 1]` is
/// segment `i`, so there are `offsets.len() − 1` segments. The first offset must be 0, the
/// offsets non-decreasing (empty segments are fine), and the last equal to `len`. An empty
/// `offsets` is refused (it describes no segments and no values: give `[0]` for that).
///
/// ```
/// assert!(gpu_core::check_offsets(&[0, 2, 2, 5], 5).is_ok());
/// assert!(gpu_core::check_offsets(&[0], 0).is_ok()); // no segments
/// let e = gpu_core::check_offsets(&[0, 3, 2, 5], 5).unwrap_err();
/// assert!(e.to_string().contains("offsets[2] = 2"));
/// ```
pub fn check_offsets(offsets: &[u64], len: usize) -> Result<()> {
    let Some((&first, _)) = offsets.split_first() else {
        return Err(Error::invalid(
            "offsets",
            "is empty: segments need at least the offset 0 (`[0]` for no segments)",
        ));
    };
    if first != 0 {
        return Err(Error::invalid(
            "offsets",
            format!("offsets[0] = {first}: the first offset must be 0"),
        ));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return Err(Error::invalid(
            "offsets",
            format!(
                "offsets[{}] = {} is below offsets[{i}] = {}: offsets must not decrease",
                i + 1,
                offsets[i + 1],
                offsets[i]
            ),
        ));
    }
    let last = *offsets.last().expect("not empty");
    if last != len as u64 {
        return Err(Error::invalid(
            "offsets",
            format!(
                "the last offset is {last}, the values number {len}: it must equal the number of values"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_checked() {
        assert!(check_offsets(&[0, 0, 0], 0).is_ok());
        assert!(check_offsets(&[0, 1, 1, 4], 4).is_ok());
        for (offsets, len, says) in [
            (&[][..], 0, "is empty"),
            (&[1, 4][..], 4, "offsets[0] = 1"),
            (&[0, 5][..], 4, "last offset is 5"),
            (&[0, 3][..], 4, "last offset is 3"),
            (&[0, 3, 1, 4][..], 4, "offsets[2] = 1"),
        ] {
            let e = check_offsets(offsets, len).unwrap_err();
            assert!(e.to_string().contains(says), "{offsets:?}: {e}");
            assert!(e.to_string().contains("offsets"), "{e}");
        }
    }

    #[test]
    fn axes_are_checked() {
        assert!(check_axis(0, 1).is_ok());
        assert!(check_axis(0, 0).is_err());
        assert!(check_axis(3, 3)
            .unwrap_err()
            .to_string()
            .contains("3 dimension"));
    }
}
