//! What a run is given (the PTX module's launches, the buffers they take,
//! the settings) and what it returns (the buffers after, the hazards, the
//! access counts), or why it could not run.

pub use gpu_hazard::{Clock, Limits, MEMORY_BUDGET, system_clock};

/// One launch of an entry point.
///
/// A launch whose `rank` is more than 0 runs together with the launches
/// before it, back to the last one of rank 0: one step, every rank's
/// blocks at once, so that a rank may wait for a flag a peer sets. A run
/// whose launches are all of rank 0 runs them one after another.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Launch {
    /// The `.entry` name (`extern "C"` kernels keep their C name).
    pub entry: String,
    /// Blocks along x, y and z.
    pub grid: [u32; 3],
    /// Threads per block along x, y and z.
    pub block: [u32; 3],
    /// Bytes of `extern __shared__` memory each block gets.
    pub dynamic_shared_bytes: u32,
    /// The kernel's parameters, in order.
    pub args: Vec<Param>,
    /// The GPU it runs on, 0 to 255 (0 in a run of one GPU).
    pub rank: u32,
}

/// One kernel parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    /// A pointer to the start of buffer number `n` (an index into the run's buffers).
    Buffer(usize),
    /// A plain value: its little-endian bytes (4 for `u32`, `i32`, `float`).
    Value(Vec<u8>),
    /// A `__grid_constant__ CUtensorMap` describing buffer `buffer`, as the
    /// engine would encode it: the checker reads its own description of it.
    TensorMap(TensorMap),
    /// A table of pointers passed by value (`struct { float* rank[8]; }`,
    /// NVRTC's `.param .align 8 .b8 name[64]`): the start of each buffer
    /// listed, 8 bytes each, then zeros to the parameter's size.
    Pointers(Vec<usize>),
}

/// A TMA tensor map, as the checker understands one: a row-major tensor
/// of `dims` (innermost first, in elements of `element_bytes`) in buffer
/// `buffer`, copied in boxes of `box_dims`, with `swizzle` bytes (0, 32,
/// 64 or 128) of XOR swizzle in shared memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMap {
    pub buffer: usize,
    pub element_bytes: u32,
    pub dims: Vec<u64>,
    pub box_dims: Vec<u32>,
    pub swizzle: u32,
}

/// The contents of one buffer in global memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    /// What the kernel calls it, for messages (`out[3]`).
    pub name: String,
    /// Its bytes: a leading guard band of `lead` bytes, then `len` bytes of
    /// the buffer itself, then a trailing guard band. A write to a band is
    /// reported as out of bounds and comes back in [`Run::buffers`].
    pub bytes: Vec<u8>,
    pub lead: usize,
    pub len: usize,
    /// Bytes per element (4 for f32, 2 for bf16), for messages and for the
    /// per-element record of what was written.
    pub element_bytes: usize,
    /// The buffer starts out holding poison (an output): a read of an
    /// element nothing wrote is an uninitialized read, and which elements
    /// were written comes back in [`Run::written`].
    pub poisoned: bool,
}

/// How a run is made.
#[derive(Debug, Clone)]
pub struct Config {
    /// Seeds the order in which blocks and threads run.
    pub seed: u64,
    /// The time and memory a run may take: a run still going after
    /// `limits.timeout` is abandoned ([`Error::TimedOut`]), with the time
    /// read from `limits.clock` (std's, or a browser page's).
    pub limits: Limits,
    /// The most shared memory one block may have (static and dynamic), in bytes.
    pub max_shared_bytes: u64,
    /// Keep every access of global and shared memory ([`Run::trace`]).
    pub trace: bool,
}

/// Hopper's shared memory per block: 227 KiB with the opt-in attribute.
pub const MAX_SHARED_BYTES: u64 = 227 * 1024;

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 0,
            limits: Limits::default(),
            max_shared_bytes: MAX_SHARED_BYTES,
            trace: false,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Each buffer's bytes after the run (guard bands included), in the order given.
    pub buffers: Vec<Vec<u8>>,
    /// Its findings, counts and trace.
    pub findings: Findings,
    /// PTX instructions interpreted (guarded-off ones included), for the
    /// checker's benchmark.
    pub instructions: u64,
    /// What the kernel's `printf`s printed, in the order the threads ran
    /// them (one order of many a GPU could take), up to 1 MiB.
    pub printed: String,
    /// Bytes printed past that, left out.
    pub printed_left_out: usize,
}

/// A run's findings, threads named by their place in the grid and places
/// as `.loc` lines.
pub type Findings = gpu_hazard::Findings<crate::memory::access::Thread, usize>;

/// Why there is no [`Run`].
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The PTX text does not parse: a line of the PTX and what is wrong.
    Parse { ptx_line: usize, message: String },
    /// The kernel uses an instruction or feature the checker does not
    /// implement; `line` is the kernel source line (from `.loc`), 0 if unknown.
    Unsupported { instruction: String, line: usize },
    /// No `.entry` of that name.
    NoEntryPoint(String),
    /// A parameter the checker cannot pass as given.
    Param(String),
    /// Beyond a device's limits or the checker's memory budget, in words.
    Limit(String),
    /// Still running when [`Limits::timeout`] ran out: the source line
    /// most of the threads still running were at (0: unknown), and where
    /// every thread was, in words ("thread (0, 0, 0) of block (0, 0, 0)
    /// still ran this line, while 31 threads … waited at line 22").
    TimedOut { line: usize, message: String },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Parse { ptx_line, message } => {
                write!(
                    f,
                    "the PTX does not parse at its line {ptx_line}: {message}"
                )
            }
            Error::Unsupported { instruction, .. } => write!(
                f,
                "the CPU checker cannot run this kernel yet: it does not implement the PTX \
                 instruction `{instruction}`"
            ),
            Error::NoEntryPoint(name) => {
                write!(f, "the PTX has no kernel (`.entry`) named `{name}`")
            }
            Error::Param(what) | Error::Limit(what) => f.write_str(what),
            Error::TimedOut { .. } => f.write_str("the kernel did not finish in time"),
        }
    }
}

impl std::error::Error for Error {}

/// Why one PTX statement does not decode into an instruction
/// (`parse::inst::decode`, `parse::call::call`); its words are an
/// [`Error::Parse`]'s message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// `@%p` with nothing after it.
    GuardWithoutInstruction,
    /// `@x` where `x` is not a register.
    GuardNotPredicate,
    /// `[%rd1+x]` whose offset is no number; the text inside the brackets.
    Offset(String),
    /// `!` before an operand that is not a register.
    NotPredicate(String),
    /// A kernel with more registers than a `u16` numbers.
    TooManyRegisters,
    /// An operand of no form the decoder knows.
    Operand(String),
    /// A call of anything but printf's `vprintf`: device functions must be inlined.
    Call(String),
    /// printf's argument `0` or `1` read from a `.param` nothing stored to.
    PrintfArgument(usize),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::GuardWithoutInstruction => f.write_str("a guard with no instruction"),
            DecodeError::GuardNotPredicate => f.write_str("a guard that is no predicate register"),
            DecodeError::Offset(inner) => {
                write!(f, "an address offset the checker cannot read: `{inner}`")
            }
            DecodeError::NotPredicate(s) => {
                write!(f, "`!` before something that is not a predicate: `{s}`")
            }
            DecodeError::TooManyRegisters => f.write_str("more registers than the checker numbers"),
            DecodeError::Operand(s) => write!(f, "an operand the checker cannot read: `{s}`"),
            DecodeError::Call(callee) => write!(
                f,
                "a call of `{callee}`: the checker runs kernels whose device functions are inlined (printf aside)"
            ),
            DecodeError::PrintfArgument(k) => write!(f, "printf's argument {k} was never set"),
        }
    }
}

impl std::error::Error for DecodeError {}
