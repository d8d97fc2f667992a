//! What a child process of the engine is asked to do: one typed job, sent
//! as JSON on its stdin. The reply comes back as JSON on its stdout; its
//! type belongs to the job (see each variant).

use puzzle_core::run::backend::BackendKind;
use puzzle_core::spec::expr::Constants;
use puzzle_core::spec::model::Spec;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ChildJob {
    /// Run a compiled CUDA kernel on GPU 0. Reply:
    /// `Result<puzzle_core::run::outcome::Execution, BackendError>`.
    CudaLaunch(CudaLaunch),
    /// Benchmark a puzzle's solution at one case, alone in its process, so
    /// nothing an earlier run left in the driver reaches it. Reply:
    /// `Result<crate::perf::bench::BenchReport, String>`.
    Bench(BenchRequest),
}

/// A compiled kernel and the spec it runs against.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CudaLaunch {
    pub spec: Spec,
    pub ptx: String,
    pub timing_samples: usize,
    pub warmup: usize,
    pub buffer_sets: usize,
}

/// A benchmark of `puzzle`'s solution on `backend` at the constants `case`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchRequest {
    /// The book's folder, as the parent found it.
    pub book: PathBuf,
    pub puzzle: String,
    pub backend: BackendKind,
    pub case: Constants,
    pub samples: usize,
    pub warmup: usize,
    pub timeout_seconds: u64,
}
