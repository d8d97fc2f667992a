//! The CUDA backend as the engine sees it: a kernel compiled with NVRTC
//! (kept per source for the process), its parameters and shared memory
//! checked from the PTX ([`prepare`], shared with the CPU checker), then
//! launched on the GPU in a child process ([`crate::child`]) that is killed
//! if it outlives the timeout. Without a GPU, a kernel that compiles is
//! `CompiledOnly`.

use crate::backend::cuda::launch;
use crate::backend::cuda::ptx::{
    MAX_STATIC_SHARED, check_params, signature_line, static_shared_bytes,
};
use crate::backend::cuda::sanitize::Sanitizer;
use crate::backend::cuda::{devices, gpu, nvrtc};
use crate::child::job::{ChildJob, CudaLaunch, DeviceOutcome, Runs, without_data};
use crate::child::process::{self, Answer, Pool};
use puzzle_core::backend_contract::backend::{
    Backend, BackendError, BackendKind, DeviceInfo, Job, check_launch_basics,
};
use puzzle_core::backend_contract::outcome::{Outcome, device_bytes};
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::model::{Arg, MAX_GPUS};

/// The virtual architecture used when no GPU says which one to target
/// (Hopper: H100, H200), with its architecture-specific features ([`arch_for`]).
pub const DEFAULT_ARCH: &str = "compute_90a";

/// The NVRTC target for a GPU of compute capability `cc`. Hopper's own
/// instructions (`wgmma`, Puzzle 35's step 4) exist only in `compute_90a`,
/// a superset of `compute_90` whose code runs on compute capability 9.0
/// alone, which is exactly the GPU at hand; every other kernel compiles to
/// the same machine code either way. Other GPUs get their plain target,
/// where a kernel using `wgmma` fails to compile with NVRTC's own message.
pub fn arch_for(cc: (i32, i32)) -> String {
    match cc {
        (9, 0) => "compute_90a".to_string(),
        (major, minor) => format!("compute_{major}{minor}"),
    }
}

/// The target where no GPU says which: `GPU_PUZZLES_CUDA_ARCH` (e.g.
/// `compute_80`) names another for compile-only machines; the CPU checker
/// compiles for it too (it models Hopper).
pub fn compile_only_arch() -> &'static str {
    match std::env::var("GPU_PUZZLES_CUDA_ARCH") {
        Ok(arch) if arch.starts_with("compute_") || arch.starts_with("sm_") => {
            Box::leak(arch.into_boxed_str())
        }
        _ => DEFAULT_ARCH,
    }
}

/// The variable a reader with one GPU sets to run a puzzle of several GPUs
/// with every rank on it ([`CudaBackend::ranks_on_one_gpu`]; read where
/// backends are opened).
pub const RANKS_ON_ONE_GPU: &str = "GPU_PUZZLES_RANKS_ON_ONE_GPU";

pub struct CudaBackend {
    info: DeviceInfo,
    arch: &'static str,
    /// Why kernels are compiled but not run, when there is no usable GPU.
    no_device: Option<String>,
    /// The GPU's L2 cache, in bytes (benchmarks size their buffer rotation by it).
    l2_bytes: Option<u64>,
    /// How many GPUs, from GPU 0, reach each other's memory: the most a
    /// spec's `gpus` may ask for here ([`devices::peer_group`]).
    peer_gpus: usize,
    /// The children that launch kernels on the GPU.
    workers: Pool,
    /// compute-sanitizer, run over every launch that finished (`--sanitize`).
    sanitizer: Option<Sanitizer>,
    /// Every rank of a spec on several GPUs on GPU 0 ([`CudaBackend::ranks_on_one_gpu`]).
    ranks_on_one_gpu: bool,
}

impl CudaBackend {
    /// Loads NVRTC (required) and looks for a GPU (optional: without one, kernels are compiled only).
    pub fn open() -> Result<CudaBackend, BackendError> {
        let version = nvrtc::load().map_err(|e| BackendError::Unavailable {
            backend: BackendKind::Cuda,
            reason: e.to_string(),
        })?;
        match gpu::probe() {
            Ok(gpu) => {
                // NVRTC takes a 'static arch; one string per process.
                let arch: &'static str = Box::leak(arch_for(gpu.cc).into_boxed_str());
                let info = DeviceInfo {
                    backend: BackendKind::Cuda,
                    name: gpu.name,
                    kind: "GPU".into(),
                    api: format!("CUDA {}, sm_{}{}", gpu.cuda_version, gpu.cc.0, gpu.cc.1),
                    driver: match &gpu.driver {
                        Some(d) => format!(
                            "NVIDIA driver {d}, CUDA {}, NVRTC {version}",
                            gpu.cuda_version
                        ),
                        None => format!("CUDA {}, NVRTC {version}", gpu.cuda_version),
                    },
                };
                Ok(CudaBackend {
                    info,
                    arch,
                    no_device: None,
                    l2_bytes: gpu.l2_bytes,
                    peer_gpus: devices::peer_group(),
                    // One child: a GPU runs one kernel at a time anyway.
                    workers: Pool::new(1),
                    sanitizer: None,
                    ranks_on_one_gpu: false,
                })
            }
            Err(reason) => {
                let arch = compile_only_arch();
                let info = DeviceInfo {
                    backend: BackendKind::Cuda,
                    name: arch.into(),
                    kind: "compile only".into(),
                    api: format!("NVRTC {version}"),
                    driver: String::new(),
                };
                Ok(CudaBackend {
                    info,
                    arch,
                    no_device: Some(reason.to_string()),
                    l2_bytes: None,
                    peer_gpus: 0,
                    workers: Pool::new(1),
                    sanitizer: None,
                    ranks_on_one_gpu: false,
                })
            }
        }
    }

    /// A spec on several GPUs runs all its ranks on GPU 0, each rank's
    /// launches on a stream of its own, for a reader with one GPU: the
    /// protocol between ranks runs for real, through one GPU's memory
    /// instead of a link between two. Ranks that wait for each other need
    /// all their blocks on the GPU at once; a grid too large for that
    /// hangs, and is stopped as any hang is. The device's name says so,
    /// so no time taken this way passes for one on several GPUs.
    pub fn ranks_on_one_gpu(mut self) -> CudaBackend {
        if self.no_device.is_none() {
            self.ranks_on_one_gpu = true;
            self.peer_gpus = MAX_GPUS as usize;
            self.info.name = format!("{} (every rank on this one GPU)", self.info.name);
        }
        self
    }

    /// Every run that finishes is run again under compute-sanitizer's tools,
    /// and what they report fails it, at the kernel's lines.
    pub fn with_sanitizer(mut self, sanitizer: Sanitizer) -> CudaBackend {
        self.sanitizer = Some(sanitizer);
        self
    }

    /// Compiles CUDA C to PTX (kept for the process: [`nvrtc::compile_cached`]).
    /// Errors point at the kernel file's lines.
    pub fn compile(&self, source: &SourceText) -> Result<String, Vec<Located>> {
        nvrtc::compile_cached(source, self.arch)
    }
}

/// The kernel compiled for `arch` and checked before any launch, as every
/// CUDA backend does: the launch's shape, each launched kernel present
/// under its name, its parameters against the spec's arguments, and static
/// shared memory within 48 KiB. `Ok(Err(..))` is what the run comes to
/// instead of a launch (a compile failure: the learner's mistake); `Err`, a
/// launch refused.
pub fn prepare(job: &Job, arch: &'static str) -> Result<Result<String, Outcome>, BackendError> {
    check_launch_basics(job.spec)?;
    let ptx = match nvrtc::compile_cached(job.source, arch) {
        Ok(ptx) => ptx,
        Err(errors) => return Ok(Err(Outcome::CompileFailed(errors))),
    };
    for launch in &job.spec.launches {
        let kernel = &launch.kernel;
        if !ptx.contains(&format!(".entry {kernel}(")) {
            return Ok(Err(Outcome::CompileFailed(vec![job.source.locate(
                1,
                format!(
                    "no kernel named `{kernel}` in the compiled code: declare it `extern \"C\" __global__ void {kernel}(...)` \
                     (without `extern \"C\"` C++ mangles the name)"
                ),
            )])));
        }
        if let Err(error) = check_params(&ptx, job.spec, launch) {
            let line = signature_line(job.source, kernel);
            return Ok(Err(Outcome::CompileFailed(vec![
                job.source.locate(line, error.to_string()),
            ])));
        }
    }
    let shared = static_shared_bytes(&ptx);
    if shared > MAX_STATIC_SHARED {
        return Err(BackendError::Launch(format!(
            "the kernels declare {shared} bytes of static __shared__ memory; a block may have at most {MAX_STATIC_SHARED} \
             (48 KiB) of static shared memory"
        )));
    }
    Ok(Ok(ptx))
}

impl Backend for CudaBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    fn last_level_cache_bytes(&self) -> Option<u64> {
        self.l2_bytes
    }

    fn compile_only(&self) -> Option<&str> {
        self.no_device.as_deref()
    }

    fn gpus(&self) -> usize {
        self.peer_gpus
    }

    fn run(&self, job: &Job) -> Result<Outcome, BackendError> {
        let ptx = match prepare(job, self.arch)? {
            Ok(ptx) => ptx,
            Err(outcome) => return Ok(outcome),
        };
        if let Some(reason) = &self.no_device {
            return Ok(Outcome::CompiledOnly(format!(
                "compiled for {} with NVRTC; not run: {reason}",
                self.arch
            )));
        }
        if let Some(reason) = too_few_gpus(job.spec.gpus as usize, self.peer_gpus) {
            return Ok(Outcome::CompiledOnly(format!(
                "compiled for {} with NVRTC; not run: {reason}",
                self.arch
            )));
        }
        let request = CudaLaunch {
            spec: without_data(job.spec),
            ptx,
            // A kernel that prints is run once: timed runs would print
            // again, and would time the printing.
            runs: match job.source.text.contains("printf") {
                true => Runs {
                    timing_samples: 0,
                    warmup: 0,
                    buffer_sets: 1,
                },
                false => Runs {
                    timing_samples: job.timing_samples,
                    warmup: job.warmup,
                    buffer_sets: job.buffer_sets.max(1),
                },
            },
            ranks_on_one_gpu: self.ranks_on_one_gpu,
        };
        // Bands on both sides: CUDA gets a pointer past the first.
        let inputs: Vec<Vec<u8>> = job
            .spec
            .args
            .iter()
            .enumerate()
            .filter_map(|(tag, arg)| match arg {
                Arg::Buffer(b) => Some(device_bytes(b, tag as u32, true)),
                Arg::Scalar { .. } | Arg::Peers { .. } => None,
            })
            .collect();
        let (outcome, blobs, hazards, printed) = if process::is_child() {
            // Already in a child (a benchmark's): the GPU is this process's
            // own, and a printf goes straight to its stdout.
            let (outcome, blobs) = launch::execute(&request, inputs, &mut |_| {})?;
            (outcome, blobs, Vec::new(), Vec::new())
        } else {
            let attachments: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
            let answer: Answer<Result<DeviceOutcome, BackendError>> = self
                .workers
                .run(&ChildJob::Cuda(request.clone()), &attachments, job.timeout)
                .map_err(|e| e.into_backend_error())?;
            let (outcome, blobs) = (answer.reply?, answer.blobs);
            let hazards = match (&self.sanitizer, &outcome) {
                // compute-sanitizer watches one GPU's memory: a run across
                // several is checked by the CPU checker, which sees every rank.
                (Some(_), _) if job.spec.gpus > 1 => Vec::new(),
                (Some(sanitizer), DeviceOutcome::Ran(_)) => {
                    sanitizer.check(&request, &attachments, job.source, job.timeout)?
                }
                _ => Vec::new(),
            };
            (outcome, blobs, hazards, answer.printed)
        };
        match outcome {
            DeviceOutcome::CompileFailed(errors) => Ok(Outcome::CompileFailed(errors)),
            DeviceOutcome::Ran(ran) => {
                let mut execution = ran.decode(job.spec, blobs)?;
                execution.hazards.extend(hazards);
                execution.printed = String::from_utf8_lossy(&printed).into_owned();
                Ok(Outcome::Ran(execution))
            }
        }
    }
}

/// Why a run on `wanted` GPUs cannot be made where `reachable` GPUs reach
/// each other's memory, in one sentence; `None` when it can.
pub fn too_few_gpus(wanted: usize, reachable: usize) -> Option<String> {
    (wanted > reachable.max(1)).then(|| {
        let have = match reachable {
            0 | 1 => format!(
                "this machine has 1 (with {RANKS_ON_ONE_GPU}=1 every rank runs on it, \
                 through its own memory instead of a link)"
            ),
            n => format!("only {n} here do"),
        };
        format!("this run takes {wanted} GPUs that reach each other's memory, and {have}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_few_gpus_table() {
        let cases = [
            (1, 0, None),
            (1, 1, None),
            (2, 2, None),
            (2, 8, None),
            (
                2,
                1,
                Some(
                    "this run takes 2 GPUs that reach each other's memory, and this machine \
                     has 1 (with GPU_PUZZLES_RANKS_ON_ONE_GPU=1 every rank runs on it, through \
                     its own memory instead of a link)",
                ),
            ),
            (
                8,
                4,
                Some("this run takes 8 GPUs that reach each other's memory, and only 4 here do"),
            ),
        ];
        for (wanted, reachable, want) in cases {
            assert_eq!(
                too_few_gpus(wanted, reachable).as_deref(),
                want,
                "{wanted} of {reachable}"
            );
        }
    }

    #[test]
    fn hopper_gets_its_architecture_specific_target() {
        let cases = [
            ((9, 0), "compute_90a"),
            ((8, 0), "compute_80"),
            ((8, 9), "compute_89"),
            ((10, 0), "compute_100"),
            ((12, 0), "compute_120"),
        ];
        for (cc, arch) in cases {
            assert_eq!(arch_for(cc), arch, "{cc:?}");
        }
        assert_eq!(DEFAULT_ARCH, arch_for((9, 0)));
    }
}
