//! The threads that global-memory counts name. The counts themselves (one
//! unit is one instruction: `ld.global.f32` and `ld.global.v4.f32` count
//! once each, as `wgsl-sim` counts a `vec4` load once; an atomic counts once
//! as a read and once as a write) are kept by `gpu-hazard`'s [`Counter`],
//! with places as `.loc` lines.

/// A thread, by its place in the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Thread {
    /// `blockIdx * blockDim + threadIdx`, per axis.
    pub global: [u32; 3],
    pub local: [u32; 3],
    pub block: [u32; 3],
    /// Which launch (0-based) of the run.
    pub launch: usize,
    /// The GPU it ran on, in a run of several ranks (`None` in a run of one).
    pub rank: Option<u32>,
}

/// An access, by who made it and at which source line (0: unknown).
pub type Site = gpu_hazard::Site<Thread, usize>;
/// One kind of access (reads, or writes) over a whole run.
pub type Tally = gpu_hazard::Tally<Thread, usize>;
/// Global-memory accesses over a whole run (every launch).
pub type AccessReport = gpu_hazard::AccessReport<Thread, usize>;
/// The tally while a run goes on.
pub type Counter = gpu_hazard::Counter<Thread, usize>;
