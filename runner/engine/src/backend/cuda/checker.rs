//! The CUDA checker: CUDA C compiled by NVRTC, as for a GPU, and its PTX
//! run on the CPU by `ptx-sim`, with the checks no GPU makes. It needs
//! NVRTC and no GPU, so a machine without one still runs every CUDA kernel.
//!
//! This file is the adapter between a puzzle and the interpreter, the CUDA
//! counterpart of the WGSL checker (`puzzle_core::wgsl::checker`): the
//! kernel is compiled and checked before launch exactly as on the GPU
//! ([`super::backend::prepare`]); the spec's buffers are laid out as the GPU
//! gets them (a guard band on both sides, [`device_bytes`]), so
//! [`puzzle_core::judge`] judges a checker run like a GPU run. What only a
//! checker sees (races, out-of-bounds addresses, uninitialized reads,
//! divergent barriers and warp operations, deadlocks) comes back as
//! [`Execution::hazards`] at the kernel file's lines, worded as the WGSL
//! checker words them; its counts of global-memory reads and writes come
//! back as [`Execution::access`].

use crate::backend::cuda::backend::{compile_only_arch, prepare};
use crate::backend::cuda::nvrtc;
use puzzle_core::backend_contract::access_map::AccessMap;
use puzzle_core::backend_contract::backend::{Backend, BackendError, BackendKind, DeviceInfo, Job};
use puzzle_core::backend_contract::outcome::{
    Execution, GUARD_ELEMENTS, GlobalAccess, Outcome, OutputData, device_bytes,
};
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::model::{Arg, MAX_GPUS, Spec};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub struct CudaCheckerBackend {
    info: DeviceInfo,
    /// The NVRTC target the PTX is made for (the GPU-less one: Hopper's).
    arch: &'static str,
    seed: u64,
    /// Keep who touched which element ([`Execution::accesses`]).
    trace: bool,
    /// NVRTC's PTX parsed, by the PTX's hash: a puzzle's teaching and stress
    /// runs, and the listing's scan for instructions the checker lacks, parse
    /// each kernel once.
    parsed: Mutex<HashMap<blake3::Hash, Arc<ptx_sim::Module>>>,
}

impl CudaCheckerBackend {
    /// Loads NVRTC (required: the checker runs the PTX NVRTC makes), with
    /// the threads interleaved in the order `seed` gives.
    pub fn open(seed: u64) -> Result<CudaCheckerBackend, BackendError> {
        let version = nvrtc::load().map_err(|e| BackendError::Unavailable {
            backend: BackendKind::PtxSim,
            reason: e.to_string(),
        })?;
        let arch = compile_only_arch();
        Ok(CudaCheckerBackend {
            info: DeviceInfo {
                backend: BackendKind::PtxSim,
                name: format!("CPU checker (PTX from NVRTC {version})"),
                kind: "CPU".into(),
                // The settings that change results are part of the label (and so of cache keys).
                api: format!("PTX for {arch}, interleaving {seed}"),
                driver: env!("CARGO_PKG_VERSION").into(),
            },
            arch,
            seed,
            trace: false,
            parsed: Mutex::default(),
        })
    }

    /// The same checker, keeping who touched which element of every buffer
    /// and shared variable, for the access diagrams.
    pub fn with_trace(mut self) -> CudaCheckerBackend {
        self.trace = true;
        self
    }

    /// The first instruction the checker lacks among the kernels `entries`
    /// of `source`, with where it is in the kernel's file; `None` where it
    /// can run them all, or where the source does not compile (a run says why).
    pub fn lacks<'e>(
        &self,
        source: &SourceText,
        entries: impl IntoIterator<Item = &'e str>,
    ) -> Option<(String, Located)> {
        let ptx = nvrtc::compile_cached(source, self.arch).ok()?;
        let module = self.parse(&ptx).ok()?;
        entries.into_iter().find_map(|entry| {
            let (instruction, line) = module.unsupported(entry)?;
            Some((instruction, locate(source, line, String::new())))
        })
    }
}

impl CudaCheckerBackend {
    /// `ptx` parsed, from the cache where it was parsed before.
    fn parse(&self, ptx: &str) -> Result<Arc<ptx_sim::Module>, ptx_sim::Error> {
        let key = blake3::hash(ptx.as_bytes());
        if let Some(hit) = self.parsed.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(hit);
        }
        let module = Arc::new(ptx_sim::Module::parse(ptx)?);
        if let Ok(mut cache) = self.parsed.lock() {
            cache.insert(key, module.clone());
        }
        Ok(module)
    }
}

impl Backend for CudaCheckerBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::PtxSim
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    fn subgroup_size(&self) -> Option<u32> {
        Some(32)
    }

    /// Every rank of a run is simulated, so any `gpus` a spec may ask for.
    fn gpus(&self) -> usize {
        MAX_GPUS as usize
    }

    fn run(&self, job: &Job) -> Result<Outcome, BackendError> {
        let spec = job.spec;
        let ptx = match prepare(job, self.arch)? {
            Ok(ptx) => ptx,
            Err(outcome) => return Ok(outcome),
        };
        // A kernel with an instruction the checker lacks is refused by `run`
        // before any launch.
        let module = self.parse(&ptx).map_err(|e| launch_error(job, e))?;
        let launches = launches(spec);
        let buffers = buffers(spec);
        let config = ptx_sim::Config {
            seed: self.seed,
            limits: ptx_sim::Limits {
                timeout: job.timeout,
                ..ptx_sim::Limits::default()
            },
            trace: self.trace,
            ..ptx_sim::Config::default()
        };
        let lines = Lines(job.source);
        let run = ptx_sim::run(&module, &launches, &buffers, &lines, &config)
            .map_err(|e| launch_error(job, e))?;
        let outputs = read_back(spec, &run)?;
        let mut hazards: Vec<Located> = run
            .findings
            .hazards
            .iter()
            .map(|h| {
                locate(
                    job.source,
                    h.at,
                    format!("{}: {}", in_cuda_words(h.kind), h.message),
                )
                .with_kind(h.kind)
            })
            .collect();
        if run.findings.dropped > 0 {
            hazards.push(locate(
                job.source,
                0,
                format!(
                    "… and {} more hazard(s) at other places",
                    run.findings.dropped
                ),
            ));
        }
        Ok(Outcome::Ran(Execution {
            outputs,
            timing: None,
            hazards,
            access: Some(Box::new(access(&run.findings.access, job.source))),
            accesses: run
                .findings
                .trace
                .as_ref()
                .map(|trace| Box::new(AccessMap::from_trace(trace, spec, true))),
            printed: printed(run.printed, run.printed_left_out),
        }))
    }
}

/// What the kernel printed, with a last line for what the cap left out.
fn printed(mut text: String, left_out: usize) -> String {
    if left_out > 0 {
        text.push_str(&format!(
            "… and {left_out} more bytes printed, not kept (the checker keeps 1 MiB)\n"
        ));
    }
    text
}

/// Why the checker could not run the kernel, as the engine's error.
fn launch_error(job: &Job, e: ptx_sim::Error) -> BackendError {
    match e {
        ptx_sim::Error::TimedOut { line, message } if line > 0 => BackendError::TimeoutAt {
            limit: job.timeout,
            at: locate(job.source, line, message),
        },
        ptx_sim::Error::TimedOut { .. } => BackendError::Timeout(job.timeout),
        ptx_sim::Error::Unsupported { instruction, line } => {
            lacking(job.source, &instruction, line)
        }
        ptx_sim::Error::Parse { .. } => BackendError::Launch(format!(
            "the CPU checker cannot read the PTX NVRTC made: {e}"
        )),
        ptx_sim::Error::NoEntryPoint(_) | ptx_sim::Error::Param(_) | ptx_sim::Error::Limit(_) => {
            BackendError::Launch(e.to_string())
        }
    }
}

/// The checker lacks `instruction`, made from line `line` of the text
/// NVRTC compiled: not the learner's mistake, and a GPU can run it.
fn lacking(source: &SourceText, instruction: &str, line: usize) -> BackendError {
    let at = locate(source, line, String::new());
    let place = if at.line == 0 {
        String::new()
    } else {
        format!(", made from {}:{}", at.file.display(), at.line)
    };
    BackendError::Unavailable {
        backend: BackendKind::PtxSim,
        reason: format!(
            "the CPU checker does not implement the PTX instruction `{instruction}`{place}; \
             run this kernel on an NVIDIA GPU (--backend cuda)"
        ),
    }
}

/// A message at line `line` of the compiled text, at its origin; line 0
/// (the PTX says none) is the kernel file's, unplaced.
fn locate(source: &SourceText, line: usize, message: String) -> Located {
    if line == 0 {
        let file = source.main_file().unwrap_or(std::path::Path::new("kernel"));
        Located::new(file, 0, message)
    } else {
        source.locate(line, message)
    }
}

/// Maps `.loc` lines (of the text NVRTC compiled) to the kernel file's lines,
/// for messages that name a second place.
struct Lines<'s>(&'s SourceText);

impl ptx_sim::LineMap for Lines<'_> {
    fn line(&self, loc_line: usize) -> usize {
        if loc_line == 0 {
            return 0;
        }
        self.0.origin(loc_line).map_or(loc_line, |o| o.line)
    }
}

/// Argument `arg`'s index among the spec's buffers (the run's buffers are those alone).
fn buffer_index(spec: &Spec, arg: usize) -> usize {
    spec.args[..arg]
        .iter()
        .filter(|a| matches!(a, Arg::Buffer(_)))
        .count()
}

/// Every launch, its parameters as the GPU gets them: buffers by their index
/// among the run's buffers, scalars as their bytes, and a buffer the spec
/// passes as a TMA tensor map as the checker's description of that map.
pub fn launches(spec: &Spec) -> Vec<ptx_sim::Launch> {
    spec.launches
        .iter()
        .map(|l| ptx_sim::Launch {
            entry: l.kernel.clone(),
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
            args: l
                .args
                .iter()
                .map(|&a| match &spec.args[a] {
                    Arg::Buffer(b) => match &b.tensor_map {
                        // Innermost first, as the driver's encoding has it (tensor_map.rs).
                        Some(map) => ptx_sim::Param::TensorMap(ptx_sim::TensorMap {
                            buffer: buffer_index(spec, a),
                            element_bytes: b.dtype.size() as u32,
                            dims: b.shape.iter().rev().map(|&d| d as u64).collect(),
                            box_dims: map.tile.iter().rev().copied().collect(),
                            swizzle: map.swizzle,
                        }),
                        None => ptx_sim::Param::Buffer(buffer_index(spec, a)),
                    },
                    Arg::Scalar { dtype, value, .. } => {
                        ptx_sim::Param::Value(dtype.encode(&[*value]))
                    }
                    Arg::Peers { of, .. } => ptx_sim::Param::Pointers(
                        of.iter().map(|&b| buffer_index(spec, b)).collect(),
                    ),
                })
                .collect(),
            rank: l.rank,
        })
        .collect()
}

/// Every buffer as the GPU holds it: a guard band, its contents (or poison),
/// a guard band ([`device_bytes`] with the leading band).
pub fn buffers(spec: &Spec) -> Vec<ptx_sim::Buffer> {
    spec.args
        .iter()
        .enumerate()
        .filter_map(|(tag, arg)| match arg {
            Arg::Buffer(b) => Some(ptx_sim::Buffer {
                name: b.name.clone(),
                bytes: device_bytes(b, tag as u32, true),
                lead: GUARD_ELEMENTS * b.dtype.size(),
                len: b.len() * b.dtype.size(),
                element_bytes: b.dtype.size(),
                // Outputs and scratch buffers start poisoned (`init` is None).
                poisoned: b.init.is_none(),
            }),
            Arg::Scalar { .. } | Arg::Peers { .. } => None,
        })
        .collect()
}

/// Every buffer as the GPU backend reports it: outputs' values, and both
/// guard bands (the elements before its start and past its end that were written).
fn read_back(spec: &Spec, run: &ptx_sim::Run) -> Result<Vec<OutputData>, BackendError> {
    let mut outputs = Vec::new();
    let buffers = spec
        .args
        .iter()
        .enumerate()
        .filter_map(|(tag, arg)| match arg {
            Arg::Buffer(b) => Some((tag, b)),
            Arg::Scalar { .. } | Arg::Peers { .. } => None,
        });
    for (index, ((tag, b), bytes)) in buffers.zip(&run.buffers).enumerate() {
        let band = GUARD_ELEMENTS * b.dtype.size();
        let data = b.len() * b.dtype.size();
        if bytes.len() != band + data + band {
            return Err(BackendError::Device(format!(
                "the CPU checker gave `{}` back as {} bytes, not {}",
                b.name,
                bytes.len(),
                band + data + band
            )));
        }
        let mut output = OutputData::from_device(
            b,
            tag as u32,
            Some(&bytes[..band]),
            &bytes[band..band + data],
            &bytes[band + data..],
        );
        // The checker saw every store: a poisoned element that was stored to
        // was computed from the poison, not left unwritten.
        if let Some(written) = run.findings.written.get(index).filter(|w| !w.is_empty()) {
            let poison_written = output
                .values
                .iter()
                .enumerate()
                .filter(|&(i, v)| v.is_none() && written.get(i).copied().unwrap_or(false))
                .map(|(i, _)| i)
                .collect();
            output.poison_written = Some(poison_written);
        }
        outputs.push(output);
    }
    Ok(outputs)
}

/// The interpreter's counts, with places in the kernel file (threads by global id).
fn access(report: &ptx_sim::AccessReport, source: &SourceText) -> GlobalAccess {
    GlobalAccess::from_report(
        report,
        |thread| thread.global,
        |line| locate(source, *line, String::new()),
    )
}

/// A finding's name as CUDA says it: what WGSL calls a subgroup operation
/// is a warp's shuffle, vote or sync here.
fn in_cuda_words(kind: ptx_sim::Kind) -> &'static str {
    match kind {
        ptx_sim::Kind::DivergentSubgroup => "warp operation in non-uniform control flow",
        other => other.label(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec passing `out` (f32) as a pointer, `a` (bf16, 64 × 128) as a
    /// tensor map with 32 × 64 boxes, and a u32.
    fn spec() -> Spec {
        let yaml = "\
id: t
title: t
kernel: k
reference: reverse
grid: [1]
block: [32]
buffers:
  out: { shape: [64, 128], type: f32, output: true }
  a: { shape: [64, 128], type: bf16, init: random 1, tensor_map: { box: [32, 64], swizzle: 128 } }
scalars:
  size: { type: u32, value: 7 }
args: [size, a, out]
expect:
  out: reference
";
        puzzle_core::spec::resolve::PuzzleSpec::parse(yaml, std::path::Path::new("t.md"), 1)
            .and_then(|p| p.resolve(&Default::default()))
            .unwrap()
    }

    /// Parameters as the GPU gets them: buffers by their index among the
    /// buffers, scalars as bytes, a tensor map innermost first.
    #[test]
    fn parameters_as_the_gpu_gets_them() {
        let spec = spec();
        let launches = launches(&spec);
        let want = vec![
            ptx_sim::Param::Value(7u32.to_le_bytes().to_vec()),
            ptx_sim::Param::TensorMap(ptx_sim::TensorMap {
                buffer: 0,
                element_bytes: 2,
                dims: vec![128, 64],
                box_dims: vec![64, 32],
                swizzle: 128,
            }),
            ptx_sim::Param::Buffer(1),
        ];
        assert_eq!(launches[0].args, want);
        let buffers = buffers(&spec);
        let names: Vec<(&str, usize, usize, bool)> = buffers
            .iter()
            .map(|b| (b.name.as_str(), b.lead, b.len, b.poisoned))
            .collect();
        assert_eq!(
            names,
            [
                ("a", GUARD_ELEMENTS * 2, 64 * 128 * 2, false),
                ("out", GUARD_ELEMENTS * 4, 64 * 128 * 4, true)
            ]
        );
        for b in &buffers {
            assert_eq!(b.bytes.len(), 2 * b.lead + b.len, "{}", b.name);
        }
    }

    /// `.loc` lines map to the kernel file's; 0 (unknown) stays 0.
    #[test]
    fn lines_map_to_the_file() {
        use ptx_sim::LineMap;
        let source = SourceText::new("a\nb\nc\n", std::path::Path::new("k.cu"), 10);
        let lines = Lines(&source);
        assert_eq!([0, 1, 3].map(|l| lines.line(l)), [0, 10, 12]);
        assert_eq!(locate(&source, 0, "m".into()).line, 0);
        assert_eq!(locate(&source, 2, "m".into()).line, 11);
    }

    /// The user's word for it is `sim`, as for WGSL's checker; stored, `ptx-sim`.
    #[test]
    fn named_sim_stored_as_ptx_sim() {
        assert_eq!(BackendKind::PtxSim.to_string(), "sim");
        assert_eq!(
            serde_json::to_string(&BackendKind::PtxSim).ok().as_deref(),
            Some("\"ptx-sim\"")
        );
        assert!(BackendKind::PtxSim.is_simulator());
        assert_eq!(BackendKind::PtxSim.lang(), puzzle_core::lang::Lang::Cuda);
    }
}
