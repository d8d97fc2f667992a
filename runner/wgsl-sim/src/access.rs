//! The invocations that global-memory counts name. The counts themselves
//! are kept by `gpu-hazard`'s [`Counter`], with places as spans of naga's IR.
//!
//! The unit is one access as the kernel writes it: a load or a store of a
//! whole value through a pointer into a storage buffer, whatever its width
//! (`a[i]`, a `vec4` or a struct each count once). A buffer declared
//! `array<vec4<f32>>` is read four words per access, as a 16-byte load does
//! on a GPU: `a[i]` counts once, and `a[i].x` is a load of its own. Uniforms are not counted:
//! they hold the puzzles' sizes, which a GPU keeps in a cache of constants.
//! An atomic read-modify-write counts once as a read and once as a write,
//! whether or not a compare-exchange stores, because the hardware fetches
//! the word and owns it for the write either way.

use naga::Span;

/// An invocation, by its place in the dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Thread {
    pub global: [u32; 3],
    pub local: [u32; 3],
    pub workgroup: [u32; 3],
    /// Which launch (0-based) of the run.
    pub launch: usize,
}

/// An access, by who made it and where in the kernel.
pub type Site = gpu_hazard::Site<Thread, Span>;
/// One kind of access (reads, or writes) over a whole run.
pub type Tally = gpu_hazard::Tally<Thread, Span>;
/// Global-memory accesses over a whole run (every launch).
pub type AccessReport = gpu_hazard::AccessReport<Thread, Span>;
/// The tally while a run goes on.
pub type Counter = gpu_hazard::Counter<Thread, Span>;
