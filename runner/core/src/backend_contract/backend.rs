//! The contract of a backend: what it is given ([`Job`]) and what it
//! returns ([`Outcome`], or a [`BackendError`] when the tool or the machine
//! fails).
//!
//! A learner's mistake (compile error, wrong output) is a value; a missing
//! GPU or library is a [`BackendError`] with a sentence that says what to
//! install. Verification happens afterwards, in [`crate::judge`], the same
//! way for every backend.

use crate::backend_contract::outcome::Outcome;
use crate::lang::Lang;
use crate::source::text::SourceText;
use crate::spec::model::Spec;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// Where a kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    Wgpu,
    Cuda,
    /// WGSL interpreted on the CPU, with race, bounds and barrier checks.
    Sim,
    /// CUDA C on the CPU: NVRTC's PTX interpreted by `ptx-sim`, with the same checks.
    #[serde(rename = "ptx-sim")]
    PtxSim,
}

impl BackendKind {
    pub const ALL: [BackendKind; 4] = [
        BackendKind::Wgpu,
        BackendKind::Cuda,
        BackendKind::Sim,
        BackendKind::PtxSim,
    ];

    /// The kernel language this backend runs.
    pub const fn lang(self) -> Lang {
        match self {
            BackendKind::Wgpu | BackendKind::Sim => Lang::Wgsl,
            BackendKind::Cuda | BackendKind::PtxSim => Lang::Cuda,
        }
    }

    /// A simulator: it checks kernels, but its timings say nothing about a GPU.
    pub const fn is_simulator(self) -> bool {
        matches!(self, BackendKind::Sim | BackendKind::PtxSim)
    }

    pub fn for_lang(lang: Lang) -> BackendKind {
        match lang {
            Lang::Wgsl => BackendKind::Wgpu,
            Lang::Cuda => BackendKind::Cuda,
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Wgpu => "wgpu",
            BackendKind::Cuda => "cuda",
            // The user's word for the checker, in both languages.
            BackendKind::Sim | BackendKind::PtxSim => "sim",
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
    /// The same device, `gpus` of it: "2 × NVIDIA H100 80GB HBM3" for a run
    /// across two (its recordings then go to a file of their own); itself
    /// for one.
    pub fn with_gpus(&self, gpus: u32) -> DeviceInfo {
        match gpus {
            0 | 1 => self.clone(),
            n => DeviceInfo {
                name: format!("{n} × {}", self.name),
                ..self.clone()
            },
        }
    }

    /// How many GPUs a device named by [`DeviceInfo::with_gpus`] is: 2 for
    /// "2 × NVIDIA H100 80GB HBM3", 1 for any other name.
    pub fn gpus(&self) -> u32 {
        self.name
            .split_once(" × ")
            .and_then(|(n, _)| n.parse().ok())
            .unwrap_or(1)
    }

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
        "the kernel did not finish within {0:?} and was stopped (an endless loop, a barrier some threads never reach, or more work than fits in that time?)"
    )]
    Timeout(Duration),
    /// A CPU checker stopped the kernel at its limit, and says where its
    /// threads were: the loop that never ends, most likely.
    #[error(
        "the kernel did not finish within {limit:?} and was stopped (an endless loop, or a barrier some threads never reach?): {at}"
    )]
    TimeoutAt {
        limit: Duration,
        at: crate::source::diag::Located,
    },
    /// Launches that finish, but not within the limit each: slow, not stuck.
    #[error(
        "the kernel is slow, not stuck: {launches_done} launch(es) finished, but the next one did not finish within {limit:?}; give it more time (--timeout) or a smaller size"
    )]
    Slow { limit: Duration, launches_done: u32 },
    #[error("device error: {0}")]
    Device(String),
}

impl BackendError {
    /// The limit a kernel outran, where this error is a hang.
    pub fn hang_limit(&self) -> Option<Duration> {
        match self {
            BackendError::Timeout(limit) | BackendError::TimeoutAt { limit, .. } => Some(*limit),
            _ => None,
        }
    }
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
    /// How many GPUs one run may take here: those that reach each other's
    /// memory (a spec's `gpus`). The CPU checkers simulate as many as a
    /// spec may ask for.
    fn gpus(&self) -> usize {
        1
    }
    /// The last-level cache the kernels' data passes through, where known.
    fn last_level_cache_bytes(&self) -> Option<u64> {
        None
    }
    /// The largest buffer one binding may hold, in bytes (guard band included).
    fn max_buffer_bytes(&self) -> u64 {
        u64::MAX
    }
    /// The one subgroup (warp) size every launch here gets, where fixed.
    fn subgroup_size(&self) -> Option<u32> {
        None
    }
}

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
        if launch.rank >= spec.gpus.max(1) {
            return Err(BackendError::Launch(format!(
                "`{}` is launched on rank {}, but the spec runs on {} GPU{} (ranks 0 to {})",
                launch.kernel,
                launch.rank,
                spec.gpus,
                if spec.gpus == 1 { "" } else { "s" },
                spec.gpus.max(1) - 1
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_of_several_gpus_table() {
        let one = DeviceInfo {
            backend: BackendKind::Cuda,
            name: "NVIDIA H100 80GB HBM3".into(),
            kind: "GPU".into(),
            api: String::new(),
            driver: String::new(),
        };
        for (gpus, name) in [
            (1, "NVIDIA H100 80GB HBM3"),
            (2, "2 × NVIDIA H100 80GB HBM3"),
            (8, "8 × NVIDIA H100 80GB HBM3"),
        ] {
            let device = one.with_gpus(gpus);
            assert_eq!(device.name, name);
            assert_eq!(device.gpus(), gpus, "{name}");
        }
    }
}
