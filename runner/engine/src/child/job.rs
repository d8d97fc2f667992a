//! What a child process of the engine is asked to do, and what it answers.
//!
//! Jobs and replies travel as [`super::wire`] messages: the JSON below, with
//! buffer contents as attachments. A spec crosses without its data
//! ([`without_data`]); each buffer's device bytes follow as one attachment,
//! in the order of `spec.buffers()`. What a device read back returns the
//! same way ([`DeviceRun`], decoded by [`DeviceRun::decode`]).

use puzzle_core::backend_contract::backend::{BackendError, BackendKind};
use puzzle_core::backend_contract::outcome::{Execution, GUARD_ELEMENTS, OutputData};
use puzzle_core::backend_contract::timing::Timing;
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::expr::Constants;
use puzzle_core::spec::model::{Arg, Spec};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ChildJob {
    /// Run a compiled CUDA kernel on GPU 0. Reply: `Result<DeviceOutcome, BackendError>`.
    Cuda(CudaLaunch),
    /// Compile and run WGSL on the adapter wgpu picks. Reply: `Result<DeviceOutcome, BackendError>`.
    Wgpu(WgpuRun),
    /// Benchmark a puzzle's solution at one case, alone in its process, so
    /// nothing an earlier run left in the driver reaches it. Reply:
    /// `Result<crate::perf::bench::BenchReport, String>`, the failure (a
    /// [`crate::perf::bench::ServeError`]) in words, as a recording keeps it.
    Bench(BenchRequest),
}

/// How many runs, after the checked one.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Runs {
    pub timing_samples: usize,
    pub warmup: usize,
    pub buffer_sets: usize,
}

/// A compiled kernel and the spec it runs against.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CudaLaunch {
    pub spec: Spec,
    pub ptx: String,
    pub runs: Runs,
    /// Every rank of a spec on several GPUs runs on GPU 0, each on its own
    /// stream ([`crate::backend::ranks_on_one_gpu`]).
    #[serde(default)]
    pub ranks_on_one_gpu: bool,
}

/// A WGSL kernel and the spec it runs against.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WgpuRun {
    pub spec: Spec,
    pub source: SourceText,
    pub runs: Runs,
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

/// What a child says while it works, and when it is done.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ChildReply<R> {
    /// About to make this many launches: the parent's deadline is set for them.
    Launching(u32),
    /// This child ends after its reply (its CUDA context faulted): the next
    /// job must go to a fresh child, not race this one's exit.
    Ending,
    Done(R),
}

/// What a device did with a kernel.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum DeviceOutcome {
    /// The kernel did not compile (WGSL compiles in the child).
    CompileFailed(Vec<Located>),
    Ran(DeviceRun),
}

/// A run's timing and what was read back, one attachment per entry of `buffers`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceRun {
    pub timing: Option<Timing>,
    pub buffers: Vec<ReadBack>,
}

/// One buffer read back: argument `arg`, as a band before it (where the
/// backend has one), its data (outputs only), and the band after it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct ReadBack {
    pub arg: usize,
    pub before: bool,
    pub data: bool,
}

impl DeviceRun {
    /// The outputs and guard bands, decoded against `spec` (the one with data).
    pub fn decode(self, spec: &Spec, blobs: Vec<Vec<u8>>) -> Result<Execution, BackendError> {
        let mut outputs = Vec::new();
        for (read, blob) in self.buffers.iter().zip(&blobs) {
            let Some(Arg::Buffer(b)) = spec.args.get(read.arg) else {
                return Err(BackendError::Device(format!(
                    "the device read back argument {}, which is not a buffer",
                    read.arg
                )));
            };
            let band = GUARD_ELEMENTS * b.dtype.size();
            let data = if read.data {
                b.len() * b.dtype.size()
            } else {
                0
            };
            let before = if read.before { band } else { 0 };
            if blob.len() != before + data + band {
                return Err(BackendError::Device(format!(
                    "`{}` came back as {} bytes, not {}",
                    b.name,
                    blob.len(),
                    before + data + band
                )));
            }
            outputs.push(OutputData::from_device(
                b,
                read.arg as u32,
                read.before.then(|| &blob[..before]),
                &blob[before..before + data],
                &blob[before + data..],
            ));
        }
        Ok(Execution {
            outputs,
            timing: self.timing,
            hazards: vec![],
            access: None,
            accesses: None,
            printed: String::new(),
        })
    }
}

/// `spec` as it crosses to a child: every size, no contents (inputs keep an
/// empty `init`, so they are still inputs; outputs carry no expected values).
pub fn without_data(spec: &Spec) -> Spec {
    let mut light = spec.clone();
    for arg in &mut light.args {
        if let Arg::Buffer(b) = arg {
            if b.init.is_some() {
                b.init = Some(Vec::new());
            }
            b.expect = None;
        }
    }
    light
}
