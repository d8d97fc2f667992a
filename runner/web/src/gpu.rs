//! The reader's GPU as a second opinion. [`Playground::gpu_plan`] says what
//! the page hands WebGPU for one size: the kernel with that size's
//! constants written in, each binding's kind, and its starting bytes (data,
//! or poison for an output, then a guard band of canaries), laid out by the
//! core exactly as the engine's wgpu backend lays them out.
//! [`Playground::gpu_check`] judges the bytes the page read back, through
//! the core's one path, so a run on the reader's GPU gets the same verdict
//! and words as a run of `runner check --backend wgpu`.
//!
//! WebGPU clamps an out-of-bounds index into the buffer (the specification
//! allows it), so a missing guard can write inside the buffer instead of
//! past it: the guard bands then see nothing, and only the CPU checker,
//! which the page always runs first, sees the bad index.

use crate::playground::{MEMORY, Playground, TIMEOUT, settings};
use puzzle_core::assess::cases::{self, Case};
use puzzle_core::assess::execute;
use puzzle_core::assess::input::{self, BadInput};
use puzzle_core::assess::learner::{self, CheckReport, Subject};
use puzzle_core::backend_contract::backend::{
    Backend, BackendError, BackendKind, DeviceInfo, Job, check_launch_basics,
};
use puzzle_core::backend_contract::outcome::{Execution, Outcome, OutputData, device_bytes};
use puzzle_core::backend_contract::timing::{Clock, Timing};
use puzzle_core::kernel::constants;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::model::{Arg, Spec};
use puzzle_core::wgsl::front::{self, Declared};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the page hands WebGPU for one size.
#[derive(Debug, Serialize)]
pub struct Plan {
    /// The kernel with the size's constants written in.
    pub code: String,
    /// In order; each sees the one before's writes.
    pub launches: Vec<PlanLaunch>,
    /// At binding = argument number, in group 0.
    pub bindings: Vec<PlanBinding>,
    /// Each binding's starting bytes (sent apart from the JSON).
    #[serde(skip)]
    pub contents: Vec<Vec<u8>>,
}

#[derive(Debug, Serialize)]
pub struct PlanLaunch {
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

#[derive(Debug, Serialize)]
pub struct PlanBinding {
    pub name: String,
    /// `storage`, `read-only-storage` or `uniform`: WebGPU's words for the layout.
    pub kind: &'static str,
    /// Whether the page reads it back (every buffer: outputs for their
    /// values, the rest for their guard bands).
    pub read_back: bool,
}

/// Why the page should not hand WebGPU a kernel at some size (the checker's
/// report already says why, in its own words); these are the page's.
// Display by hand: no thiserror in this crate (runner/engine/tests/architecture.rs).
#[derive(Debug)]
pub enum PlanError {
    /// A size number past the sizes a check runs at.
    NoSuchSize,
    /// The size does not resolve: the spec's words, without its line.
    Spec(Located),
    /// WebGPU cannot bind a buffer, or cannot make the launch.
    Backend(BackendError),
    /// The reader's text is no kernel: its code ("empty", "binary", …).
    Input(BadInput),
    /// The kernel does not compile: the first error's words, without its line.
    Compile(Located),
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::NoSuchSize => f.write_str("no such size"),
            PlanError::Spec(e) | PlanError::Compile(e) => f.write_str(&e.message),
            PlanError::Backend(e) => write!(f, "{e}"),
            PlanError::Input(bad) => f.write_str(bad.code()),
        }
    }
}

impl std::error::Error for PlanError {}

/// What the page read back from one size's run.
#[derive(Debug, Clone, Default)]
pub struct GpuRun {
    /// Each buffer's bytes (data, then its guard band), in argument order.
    pub buffers: Vec<Vec<u8>>,
    /// Timestamp-query times of repeated runs, in ms, where the adapter has them.
    pub samples_ms: Vec<f64>,
    /// What WebGPU said instead (a device lost, a validation error).
    pub error: Option<String>,
}

impl Playground {
    /// The sizes a check runs at, teaching size first.
    pub fn cases(&self) -> Vec<Case> {
        cases::cases(&self.puzzle.spec, true)
    }

    /// What to hand WebGPU for size number `case`, or why nothing should be
    /// (the kernel does not compile, or cannot be launched: the checker's
    /// report already says so).
    pub fn gpu_plan(&self, text: &str, case: usize) -> Result<Plan, PlanError> {
        let cases = self.cases();
        let case = cases.get(case).ok_or(PlanError::NoSuchSize)?;
        let spec =
            execute::resolve(&self.puzzle.spec, case, Some(MEMORY)).map_err(PlanError::Spec)?;
        // bf16 and f16 buffers: WebGPU cannot bind them, said in words.
        front::check_bindable(&spec).map_err(PlanError::Backend)?;
        let source = input::validate(Some(text.as_bytes().to_vec()), self.file(), &self.puzzle)
            .map_err(PlanError::Input)?;
        let source = constants::apply(&source, Lang::Wgsl, &spec.constants);
        let declared = compile(&source, &spec).map_err(|e| PlanError::Compile(e[0].clone()))?;
        check_launch_basics(&spec).map_err(PlanError::Backend)?;
        let mut bindings = Vec::new();
        let mut contents = Vec::new();
        for (index, arg) in spec.args.iter().enumerate() {
            let (kind, bytes) = match arg {
                Arg::Buffer(b) => {
                    let read_only = match declared.get(&(index as u32)) {
                        Some(Declared::Storage { read_only }) => *read_only,
                        _ => !b.is_output(),
                    };
                    let kind = if read_only {
                        "read-only-storage"
                    } else {
                        "storage"
                    };
                    (kind, device_bytes(b, index as u32, false))
                }
                Arg::Scalar { dtype, value, .. } => {
                    let mut bytes = dtype.encode(&[*value]);
                    bytes.resize(16, 0); // uniform bindings are 16-byte aligned
                    ("uniform", bytes)
                }
                // Refused by `compile` above: WebGPU drives one GPU.
                Arg::Peers { .. } => continue,
            };
            bindings.push(PlanBinding {
                name: arg.name().to_string(),
                kind,
                read_back: matches!(arg, Arg::Buffer(_)),
            });
            contents.push(bytes);
        }
        Ok(Plan {
            code: source.text.clone(),
            launches: spec
                .launches
                .iter()
                .map(|l| PlanLaunch {
                    entry: l.kernel.clone(),
                    grid: l.grid,
                    block: l.block,
                })
                .collect(),
            bindings,
            contents,
        })
    }

    /// Judges what `device` (WebGPU's name for the reader's adapter) made of
    /// `text`: `runs[k]` is size `k`'s read-back, for as many sizes as ran.
    pub fn gpu_check(&self, text: &str, device: DeviceInfo, runs: &[GpuRun]) -> CheckReport {
        let cases = self.cases();
        let gpu = Replayed {
            info: device,
            runs,
            case: AtomicUsize::new(0),
        };
        let file = self.file();
        let subject = Subject {
            puzzle: &self.puzzle,
            lang: Lang::Wgsl,
            file,
            backend: BackendKind::Wgpu,
            device: Some(gpu.info.label()),
            stress: true,
        };
        let input = input::validate(Some(text.as_bytes().to_vec()), file, &self.puzzle);
        learner::check(subject, input, |case, source| {
            let index = cases.iter().position(|c| c == case).unwrap_or(usize::MAX);
            gpu.case.store(index, Ordering::Relaxed);
            execute::run_case(
                &gpu,
                &self.puzzle,
                Variant::File,
                source,
                case,
                &settings(TIMEOUT),
            )
        })
    }
}

/// The reader's adapter as a device label names it.
pub fn browser_device(name: &str, cpu: bool) -> DeviceInfo {
    DeviceInfo {
        backend: BackendKind::Wgpu,
        name: name.to_string(),
        kind: if cpu { "CPU" } else { "GPU" }.into(),
        api: "WebGPU in this browser".into(),
        driver: String::new(),
    }
}

fn compile(source: &SourceText, spec: &Spec) -> Result<BTreeMap<u32, Declared>, Vec<Located>> {
    let module = front::compile(source)?;
    front::reflect(&module, spec, source)
}

/// A backend that has already run: it hands back what the page read from
/// WebGPU for the size being judged, so the core judges it like any run.
struct Replayed<'a> {
    info: DeviceInfo,
    runs: &'a [GpuRun],
    /// The size being judged (its number in [`Playground::cases`]).
    case: AtomicUsize,
}

impl Backend for Replayed<'_> {
    fn kind(&self) -> BackendKind {
        BackendKind::Wgpu
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    fn run(&self, job: &Job) -> Result<Outcome, BackendError> {
        front::check_bindable(job.spec)?;
        if let Err(errors) = compile(job.source, job.spec) {
            return Ok(Outcome::CompileFailed(errors));
        }
        check_launch_basics(job.spec)?;
        let run = self
            .runs
            .get(self.case.load(Ordering::Relaxed))
            .ok_or_else(|| BackendError::Device("this size was not run on the GPU".into()))?;
        if let Some(error) = &run.error {
            return Err(BackendError::Device(error.clone()));
        }
        let mut read = run.buffers.iter();
        let mut outputs = Vec::new();
        for (tag, arg) in job.spec.args.iter().enumerate() {
            let Arg::Buffer(b) = arg else { continue };
            let bytes = read.next().ok_or_else(|| {
                BackendError::Device(format!("nothing was read back for `{}`", b.name))
            })?;
            let split = (b.len() * b.dtype.size()).min(bytes.len());
            outputs.push(OutputData::from_device(
                b,
                tag as u32,
                None,
                &bytes[..split],
                &bytes[split..],
            ));
        }
        Ok(Outcome::Ran(Execution {
            outputs,
            timing: Timing::from_samples(Clock::Device, &run.samples_ms),
            hazards: vec![],
            access: None,
            accesses: None,
            printed: String::new(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playground::tests::{bundle, solution};
    use puzzle_core::assess::learner::Verdict;
    use puzzle_core::wgsl::checker::SimBackend;

    /// A GPU that runs the plan as the CPU checker would: the checker's
    /// words for each binding after the run, as a page would read them back.
    fn run_like_a_gpu(playground: &Playground, text: &str) -> Vec<GpuRun> {
        (0..playground.cases().len())
            .map_while(|case| {
                let plan = playground.gpu_plan(text, case).ok()?;
                let report = playground.check(text, &SimBackend::with_seed(0), TIMEOUT, true);
                let run = report.runs.get(case)?;
                // Rebuild the device bytes from the judged outputs: data
                // (poison where unwritten) and an untouched guard band.
                let mut buffers = Vec::new();
                for (binding, bytes) in plan.bindings.iter().zip(&plan.contents) {
                    if !binding.read_back {
                        continue;
                    }
                    let mut bytes = bytes.clone();
                    if let Some(out) = run.outputs.iter().find(|o| o.name == binding.name) {
                        for (i, got) in out.got.iter().enumerate() {
                            if let learner::Element::Value(v) = got {
                                bytes[4 * i..4 * i + 4].copy_from_slice(&(*v as f32).to_le_bytes());
                            }
                        }
                    }
                    buffers.push(bytes);
                }
                Some(GpuRun {
                    buffers,
                    samples_ms: vec![0.01, 0.02, 0.03],
                    error: None,
                })
            })
            .collect()
    }

    #[test]
    fn the_plan_lays_out_buffers_like_the_engine() {
        let playground = Playground::open(&bundle()).unwrap();
        let plan = playground.gpu_plan(&solution(), 1).unwrap();
        let kinds: Vec<(&str, &str)> = plan
            .bindings
            .iter()
            .map(|b| (b.name.as_str(), b.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("out", "storage"),
                ("a", "read-only-storage"),
                ("size", "uniform")
            ]
        );
        // SIZE=7: seven floats and the 256-element guard band; a 16-byte uniform holding 7.
        assert_eq!(plan.contents[0].len(), 4 * (7 + 256));
        assert_eq!(&plan.contents[2][..4], &7u32.to_le_bytes());
        assert_eq!(plan.launches[0].entry, "add_10_guard");
        let broken = playground.gpu_plan("fn add_10_guard( {", 0).unwrap_err();
        assert!(!broken.to_string().is_empty());
    }

    /// What came back from a GPU, and the verdict on it.
    #[test]
    fn gpu_verdicts_table() {
        let playground = Playground::open(&bundle()).unwrap();
        let device = browser_device("test adapter", false);
        let solution = solution();
        let passing = run_like_a_gpu(&playground, &solution);
        let mut past_the_end = passing.clone();
        past_the_end[0].buffers[0][4 * 4..4 * 5].copy_from_slice(&1.5f32.to_le_bytes());
        let lost = vec![GpuRun {
            error: Some("the device was lost".into()),
            ..GpuRun::default()
        }];
        let cases: [(&[GpuRun], Verdict, &str); 4] = [
            (
                &passing,
                Verdict::Pass,
                "passes at the teaching size and at every stress size (SIZE=7)",
            ),
            (&past_the_end, Verdict::Fail, "fails at the teaching size"),
            (&lost, Verdict::Error, "could not run"),
            (&[], Verdict::Error, "could not run"),
        ];
        for (runs, verdict, summary) in cases {
            let report = playground.gpu_check(&solution, device.clone(), runs);
            assert_eq!(
                (report.verdict, report.summary.as_str()),
                (verdict, summary)
            );
            assert_eq!(report.backend, BackendKind::Wgpu);
        }
        let report = playground.gpu_check(&solution, device.clone(), &passing);
        let timing = serde_json::to_value(&report).unwrap();
        assert!(report.device.unwrap().contains("test adapter"), "{timing}");
        // A write past the end is named by buffer and index.
        let report = playground.gpu_check(&solution, device, &past_the_end);
        let json = serde_json::to_string(&report).unwrap();
        assert!(json.contains("\"out_of_bounds\""), "{json}");
    }
}
