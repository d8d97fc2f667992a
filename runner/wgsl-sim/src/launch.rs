//! What a run is given (launches, bound buffers, settings) and what it
//! returns (the buffers after, the hazards, the access counts), or why it
//! could not run.

pub use gpu_hazard::{Clock, Limits, system_clock};
use naga::Span;

/// One dispatch of an entry point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub entry: String,
    /// Workgroups along x, y and z.
    pub grid: [u32; 3],
    /// Invocations per workgroup along x, y and z (the entry's `@workgroup_size`).
    pub block: [u32; 3],
}

/// The contents of one bound resource, as 32-bit words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub group: u32,
    pub binding: u32,
    /// The buffer's words, followed by any guard band the caller wants
    /// watched (a write there comes back in [`Run::buffers`]; the index is
    /// reported as out of bounds).
    pub words: Vec<u32>,
    /// How many of `words` belong to the buffer itself.
    pub len: usize,
    /// The buffer starts out holding poison (an output): a read of an
    /// element no launch has written yet is an uninitialized read, and which
    /// elements were written comes back in [`Run::written`].
    pub poisoned: bool,
}

/// How a run is made.
#[derive(Debug, Clone)]
pub struct Config {
    /// Seeds the order in which workgroups and invocations run.
    pub seed: u64,
    /// Invocations per subgroup (consecutive `local_invocation_index`es).
    pub subgroup_size: u32,
    /// The time and memory a run may take: a run still going after
    /// `limits.timeout` is abandoned ([`Error::TimedOut`]), with the time
    /// read from `limits.clock` (std's, or a browser page's).
    pub limits: Limits,
    /// The most workgroup memory a kernel may declare, in bytes: a real
    /// device's limit (see [`MAX_WORKGROUP_BYTES`]), so a kernel that no
    /// GPU would run does not pass here.
    pub max_workgroup_bytes: u64,
    /// Keep every access of storage and workgroup memory ([`Run::trace`]),
    /// for the access diagrams.
    pub trace: bool,
}

/// The workgroup memory of the adapters this book runs on (Mesa's lavapipe
/// and NVIDIA's Vulkan driver both offer 32 KiB; WebGPU guarantees 16 KiB).
pub const MAX_WORKGROUP_BYTES: u64 = 32 * 1024;

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 0,
            subgroup_size: 32,
            limits: Limits::default(),
            max_workgroup_bytes: MAX_WORKGROUP_BYTES,
            trace: false,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Each binding's words after the run, in the order they were given.
    pub buffers: Vec<Vec<u32>>,
    /// Its findings, counts and trace.
    pub findings: Findings,
}

/// A run's findings, invocations named as [`Thread`]s and places as spans
/// of naga's IR.
pub type Findings = gpu_hazard::Findings<crate::access::Thread, Span>;

/// Why there is no [`Run`].
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The kernel uses something the interpreter does not implement.
    Unsupported { what: String, span: Span },
    /// A resource the interpreter cannot bind as given.
    Binding { what: String, span: Span },
    /// No entry point of that name.
    NoEntryPoint(String),
    /// Beyond a device's limits or the checker's memory budget: said in
    /// words, at the variable's place where there is one.
    Limit { what: String, span: Option<Span> },
    /// Still running when [`Limits::timeout`] ran out: an endless loop, most
    /// likely. `span` is the statement the running invocation was at, and
    /// `message` says who ran it and who waited where.
    TimedOut { span: Option<Span>, message: String },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Unsupported { what, .. } => {
                write!(f, "the CPU simulator cannot run this kernel yet: {what}")
            }
            Error::Binding { what, .. } => f.write_str(what),
            Error::NoEntryPoint(name) => write!(f, "the module has no entry point `{name}`"),
            Error::Limit { what, .. } => f.write_str(what),
            Error::TimedOut { .. } => f.write_str("the kernel did not finish in time"),
        }
    }
}

impl std::error::Error for Error {}
