//! Backends: where a kernel is compiled and run.
//!
//! Each backend takes a resolved [`Spec`] and a kernel source and returns an
//! [`Outcome`]: a learner's mistake (compile error, wrong output) is a value;
//! a missing GPU or library is a [`BackendError`] with a sentence that says
//! what to install. Verification happens afterwards, in [`crate::verify`],
//! the same way for every backend.

pub mod cuda;
pub mod isolate;
pub mod sim;
pub mod wgpu;

use crate::diag::Located;
use crate::kernel::Lang;
use crate::source::SourceText;
use crate::spec::Spec;
use crate::timing::Timing;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    Wgpu,
    Cuda,
    /// WGSL interpreted on the CPU, with race, bounds and barrier checks.
    Sim,
}

impl BackendKind {
    pub const ALL: [BackendKind; 3] = [BackendKind::Wgpu, BackendKind::Cuda, BackendKind::Sim];

    /// The kernel language this backend runs.
    pub const fn lang(self) -> Lang {
        match self {
            BackendKind::Wgpu | BackendKind::Sim => Lang::Wgsl,
            BackendKind::Cuda => Lang::Cuda,
        }
    }

    /// A simulator: it checks kernels, but its timings say nothing about a GPU.
    pub const fn is_simulator(self) -> bool {
        matches!(self, BackendKind::Sim)
    }

    pub fn for_lang(lang: Lang) -> BackendKind {
        match lang {
            Lang::Wgsl => BackendKind::Wgpu,
            Lang::Cuda => BackendKind::Cuda,
        }
    }

    pub fn parse(name: &str) -> Option<BackendKind> {
        match name {
            "wgpu" => Some(BackendKind::Wgpu),
            "cuda" => Some(BackendKind::Cuda),
            "sim" => Some(BackendKind::Sim),
            _ => None,
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Wgpu => "wgpu",
            BackendKind::Cuda => "cuda",
            BackendKind::Sim => "sim",
        })
    }
}

/// What ran the kernel, for labels and provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub backend: BackendKind,
    /// The adapter or GPU name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" or "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// "CPU" for software rasterisers such as lavapipe, else "GPU".
    pub kind: String,
    /// Graphics API or toolkit, e.g. "Vulkan" or "NVRTC 12.9".
    pub api: String,
    pub driver: String,
}

impl DeviceInfo {
    /// "wgpu · llvmpipe (LLVM 15.0.6, 256 bits) (CPU, Vulkan)".
    pub fn label(&self) -> String {
        format!(
            "{} · {} ({}, {})",
            self.backend, self.name, self.kind, self.api
        )
    }
}

/// One launch: the resolved spec, the kernel text, and the run's limits.
pub struct Job<'a> {
    pub spec: &'a Spec,
    pub source: &'a SourceText,
    /// Timed repetitions after the checked run (0: no timing).
    pub timing_samples: usize,
    /// Untimed repetitions between the checked run and the timed ones (caches, clocks, JIT).
    pub warmup: usize,
    /// Copies of every buffer that the timed runs rotate through, so data
    /// smaller than the last-level cache is not timed from the cache (1: no rotation).
    pub buffer_sets: usize,
    /// A kernel still running after this long is reported as hung.
    pub timeout: Duration,
}

impl<'a> Job<'a> {
    /// A checked run followed by `timing_samples` timed ones, no warm-up, one buffer set.
    pub fn new(
        spec: &'a Spec,
        source: &'a SourceText,
        timing_samples: usize,
        timeout: Duration,
    ) -> Job<'a> {
        Job {
            spec,
            source,
            timing_samples,
            warmup: 0,
            buffer_sets: 1,
            timeout,
        }
    }
}

/// What a backend saw; judged later by [`crate::verify`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    /// The kernel did not compile; messages point at the kernel file's lines.
    CompileFailed(Vec<Located>),
    /// Compiled, but not run (e.g. NVRTC present, no GPU): the reason.
    CompiledOnly(String),
    Ran(Execution),
}

/// Raw results of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    pub outputs: Vec<OutputData>,
    pub timing: Option<Timing>,
    /// What a checking backend saw go wrong while the kernel ran (a data
    /// race, an out-of-bounds index, …), at the kernel's lines. Any hazard
    /// fails the run, whatever the outputs.
    #[serde(default)]
    pub hazards: Vec<Located>,
    /// Global-memory reads and writes per invocation, where the backend can
    /// count them (the CPU checker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<GlobalAccess>,
}

/// Global-memory (storage buffer) traffic per invocation, as the CPU
/// checker counted it: each load or store of a value through a pointer into
/// a storage buffer is one access, an atomic is one read and one write, and
/// uniforms are not counted (the rule is `wgsl_sim::access`'s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GlobalAccess {
    pub invocations: u64,
    pub reads: AccessCount,
    pub writes: AccessCount,
}

/// One kind of access over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessCount {
    /// The most one invocation made, and that invocation's global id.
    pub max: u32,
    pub max_thread: [u32; 3],
    /// Over all invocations.
    pub mean: f64,
    /// `nth[k]`: the first access that was some invocation's (k + 1)-th, so
    /// that a bound of k can name the first access too many and its line.
    pub nth: Vec<AccessSite>,
}

/// An access: whose (global id) and where in the kernel file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessSite {
    pub thread: [u32; 3],
    pub at: Located,
}

/// An output buffer as read back: `None` where the poison is still in place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputData {
    pub name: String,
    pub values: Vec<Option<f64>>,
    /// Indices outside the buffer whose guard band was overwritten: past the
    /// end (len, len + 1, …) or, where the backend can see it, before the start (-1, -2, …).
    pub out_of_bounds: Vec<i64>,
}

impl OutputData {
    /// What came back for buffer `b`, argument number `tag`: its data (decoded
    /// for outputs only; other buffers are not judged) and the guard bands
    /// around it. A band word that no longer holds the canary is an
    /// out-of-bounds write: before the start (-1, -2, …, where the backend
    /// has a leading band) or past the end (len, len + 1, …).
    pub fn from_device(
        b: &crate::spec::Buffer,
        tag: u32,
        before: Option<&[u8]>,
        data: &[u8],
        after: &[u8],
    ) -> OutputData {
        let leading = before
            .map(|band| b.dtype.overwritten(tag, band))
            .unwrap_or_default();
        let mut out_of_bounds: Vec<i64> = leading
            .iter()
            .map(|&i| i as i64 - GUARD_ELEMENTS as i64)
            .collect();
        out_of_bounds.extend(
            b.dtype
                .overwritten(tag, after)
                .into_iter()
                .map(|i| (b.len() + i) as i64),
        );
        OutputData {
            name: b.name.clone(),
            values: if b.is_output() {
                b.dtype.decode(data)
            } else {
                vec![]
            },
            out_of_bounds,
        }
    }
}

/// A failure of the tool or the machine, not of the learner's kernel.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum BackendError {
    #[error("{backend} unavailable: {reason}")]
    Unavailable {
        backend: BackendKind,
        reason: String,
    },
    #[error("cannot launch: {0}")]
    Launch(String),
    #[error(
        "the kernel did not finish within {0:?} and was abandoned (an endless loop, or a barrier some threads never reach?)"
    )]
    Timeout(Duration),
    #[error("device error: {0}")]
    Device(String),
}

/// A place kernels run.
pub trait Backend: Send + Sync {
    fn kind(&self) -> BackendKind;
    fn device(&self) -> &DeviceInfo;
    fn run(&self, job: &Job) -> Result<Outcome, BackendError>;
    /// Why kernels are only compiled here, not run (CUDA without a GPU).
    fn compile_only(&self) -> Option<&str> {
        None
    }
    fn runs_kernels(&self) -> bool {
        self.compile_only().is_none()
    }
    /// The last-level cache the kernels' data passes through, where known.
    fn last_level_cache_bytes(&self) -> Option<u64> {
        None
    }
    /// The largest buffer one binding may hold, in bytes (guard band included).
    fn max_buffer_bytes(&self) -> u64 {
        u64::MAX
    }
}

/// Opens a backend by kind.
pub fn open(kind: BackendKind) -> Result<Box<dyn Backend>, BackendError> {
    match kind {
        BackendKind::Wgpu => Ok(Box::new(wgpu::WgpuBackend::open()?)),
        BackendKind::Cuda => Ok(Box::new(cuda::CudaBackend::open()?)),
        BackendKind::Sim => Ok(Box::new(sim::SimBackend::open())),
    }
}

/// How many extra elements follow each buffer on the device, filled with a canary.
/// A write there is an out-of-bounds write, reported by buffer and index.
pub const GUARD_ELEMENTS: usize = 256;

/// Checks the shape of every launch against limits every backend shares.
pub fn check_launch_basics(spec: &Spec) -> Result<(), BackendError> {
    for launch in &spec.launches {
        if launch.threads_per_block() > 1024 {
            return Err(BackendError::Launch(format!(
                "`{}` asks for a block of {}×{}×{} = {} threads; GPUs allow at most 1024 threads per block",
                launch.kernel,
                launch.block[0],
                launch.block[1],
                launch.block[2],
                launch.threads_per_block()
            )));
        }
    }
    Ok(())
}
