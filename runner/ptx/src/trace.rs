//! Who touched which element: every load and store of a global buffer or of
//! shared memory in a traced run, as `wgsl-sim`'s trace records them, so the
//! same access diagrams are drawn for CUDA kernels.

/// The most touches a run keeps.
pub const LIMIT: usize = 1 << 20;

/// One access of one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touch {
    /// The element of the variable, counted from its start (in its element
    /// size: 4 bytes for shared memory); past the end for an access out of bounds.
    pub element: usize,
    /// The thread, by its index in the launch (x fastest, then the blocks).
    pub invocation: u32,
    /// Its block, by index in the launch.
    pub workgroup: u32,
    pub launch: u32,
    /// Block-wide barriers its block had passed.
    pub interval: u32,
    pub write: bool,
    pub atomic: bool,
    /// In the guard band past the buffer's end.
    pub outside: bool,
    /// The first element of its access (a `v4` load touches four).
    pub first: bool,
    /// The source line (0 where unknown).
    pub line: usize,
}

/// The touches of one buffer or shared variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableTrace {
    pub name: String,
    /// Shared memory (one copy per block), or a global buffer.
    pub workgroup_memory: bool,
    pub elements: usize,
    pub starts_unwritten: bool,
    pub touches: Vec<Touch>,
}

/// Every traced variable's touches, in the order the checker made them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccessTrace {
    pub variables: Vec<VariableTrace>,
    /// Touches beyond [`LIMIT`], not kept.
    pub left_out: u64,
}
