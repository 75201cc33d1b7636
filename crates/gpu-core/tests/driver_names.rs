//! The built-in names of driver codes against the installed driver's `cuGetErrorName`, for
//! every code from 0 to 1000.
#![cfg(feature = "cuda")]

use gpu_core::driver::{driver_error_name, driver_version};
use gpu_core::testing::gpu_or_skip;
use gpu_core::DriverCode;

#[test]
fn every_code_from_0_to_1000_is_named_as_the_driver_names_it() {
    let Some(_gpu) = gpu_or_skip() else { return };
    let version = driver_version().unwrap() as u32;
    let (mut same, mut driver_only, mut ours_only) = (0, Vec::new(), Vec::new());
    for c in 0..=1000 {
        let code = DriverCode(c);
        match (code.name(), driver_error_name(code)) {
            (Some(ours), Some(theirs)) => {
                assert_eq!(ours, theirs, "code {c}");
                same += 1;
            }
            (None, Some(theirs)) => driver_only.push(format!("{c} {theirs}")),
            (Some(ours), None) => ours_only.push(format!("{c} {ours}")),
            (None, None) => {}
        }
    }
    eprintln!(
        "driver {version}, table of CUDA {}: {same} codes named alike; driver only: {driver_only:?}; \
         table only: {ours_only:?}",
        DriverCode::TABLE_VERSION
    );
    // A driver of the table's version or newer knows every code of the table; one of the
    // table's version or older names nothing the table lacks.
    if version >= DriverCode::TABLE_VERSION {
        assert!(
            ours_only.is_empty(),
            "codes the driver does not name: {ours_only:?}"
        );
    }
    if version <= DriverCode::TABLE_VERSION {
        assert!(
            driver_only.is_empty(),
            "codes missing from the table: {driver_only:?}"
        );
    }
    assert!(same >= 90, "only {same} codes named alike");
}
