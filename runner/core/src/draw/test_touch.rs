//! The one touch record both pictures' tests build their traces from.

use crate::backend_contract::access_map::Touch;

/// A plain, non-atomic access in launch 0, inside the variable, the first
/// element of its access, at line 1: the fields a test varies are the ones
/// a picture draws.
pub(super) fn touch(
    element: usize,
    invocation: u32,
    workgroup: u32,
    interval: u32,
    write: bool,
) -> Touch {
    Touch {
        element,
        invocation,
        workgroup,
        launch: 0,
        interval,
        write,
        atomic: false,
        outside: false,
        first: true,
        line: 1,
    }
}
