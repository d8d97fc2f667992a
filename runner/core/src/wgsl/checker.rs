//! The sim backend: WGSL on the CPU through the `wgsl-sim` interpreter,
//! with checks no GPU makes. Nothing needs to be installed.
//!
//! This file is the adapter between a puzzle and the interpreter. The kernel
//! goes through the same WGSL front end as on the wgpu backend
//! ([`super::front`]); the spec's buffers become words with the same poison
//! and guard bands ([`crate::backend_contract::outcome::device_bytes`]), so
//! [`crate::judge`] judges a sim run like a wgpu run.
//! What only a simulator can see (data races, out-of-bounds indices, reads
//! of workgroup memory nobody wrote, barriers or subgroup operations not
//! every invocation reaches) comes back as [`Execution::hazards`] at the
//! kernel file's lines; any hazard fails the run. The interpreter's counts
//! of global-memory reads and writes come back as [`Execution::access`].

use super::front;
use crate::backend_contract::access_map::AccessMap;
use crate::backend_contract::backend::{
    Backend, BackendError, BackendKind, DeviceInfo, Job, check_launch_basics,
};
use crate::backend_contract::outcome::{
    Execution, GlobalAccess, Outcome, OutputData, device_bytes,
};
use crate::source::diag::Located;
use crate::source::text::SourceText;
use crate::spec::model::{Arg, Spec};
use naga::Span;
use wgsl_sim::{Binding, LineMap};

/// WebGPU's default limit on workgroups per grid dimension.
const MAX_WORKGROUPS: u32 = 65535;

/// Subgroup size unless the caller sets another: NVIDIA's warp.
pub const DEFAULT_SUBGROUP: u32 = 32;

pub struct SimBackend {
    info: DeviceInfo,
    seed: u64,
    subgroup_size: u32,
    clock: wgsl_sim::Clock,
    /// Keep who touched which element ([`Execution::accesses`]).
    trace: bool,
}

impl SimBackend {
    pub fn with_seed(seed: u64) -> SimBackend {
        let mut backend = SimBackend {
            info: DeviceInfo {
                backend: BackendKind::Sim,
                name: "CPU checker (naga IR interpreter with race, bounds and barrier checks)"
                    .into(),
                kind: "CPU".into(),
                api: String::new(),
                driver: env!("CARGO_PKG_VERSION").into(),
            },
            seed,
            subgroup_size: DEFAULT_SUBGROUP,
            clock: wgsl_sim::system_clock,
            trace: false,
        };
        backend.label();
        backend
    }

    /// The same simulator with subgroups of `size` invocations.
    pub fn with_subgroup_size(mut self, size: u32) -> SimBackend {
        self.subgroup_size = size.max(1);
        self.label();
        self
    }

    /// The same simulator, keeping who touched which element of every
    /// buffer and workgroup variable, for the access diagrams.
    pub fn with_trace(mut self) -> SimBackend {
        self.trace = true;
        self
    }

    /// The same simulator reading the time from `clock` (a browser's: std has none there).
    pub fn with_clock(mut self, clock: wgsl_sim::Clock) -> SimBackend {
        self.clock = clock;
        self
    }

    /// The settings that change results are part of the device label (and so of cache keys).
    fn label(&mut self) {
        self.info.api = format!(
            "naga, interleaving {}, subgroups of {}",
            self.seed, self.subgroup_size
        );
    }

    fn check_limits(spec: &Spec) -> Result<(), BackendError> {
        check_launch_basics(spec)?;
        for launch in &spec.launches {
            if let Some(&g) = launch.grid.iter().find(|&&g| g > MAX_WORKGROUPS) {
                return Err(BackendError::Launch(format!(
                    "a grid of {g} workgroups along one axis; WebGPU allows at most {MAX_WORKGROUPS}"
                )));
            }
        }
        Ok(())
    }
}

impl Backend for SimBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Sim
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    fn run(&self, job: &Job) -> Result<Outcome, BackendError> {
        let spec = job.spec;
        front::check_bindable(spec)?;
        let module = match front::compile(job.source) {
            Ok(m) => m,
            Err(errors) => return Ok(Outcome::CompileFailed(errors)),
        };
        if let Err(errors) = front::reflect(&module, spec, job.source) {
            return Ok(Outcome::CompileFailed(errors));
        }
        SimBackend::check_limits(spec)?;
        let lines = Lines::new(job.source);
        let launches: Vec<wgsl_sim::Launch> = spec
            .launches
            .iter()
            .map(|l| wgsl_sim::Launch {
                entry: l.kernel.clone(),
                grid: l.grid,
                block: l.block,
            })
            .collect();
        let bindings = bindings(spec);
        let config = wgsl_sim::Config {
            seed: self.seed,
            subgroup_size: self.subgroup_size,
            limits: wgsl_sim::Limits {
                timeout: job.timeout,
                clock: self.clock,
                ..wgsl_sim::Limits::default()
            },
            trace: self.trace,
            ..wgsl_sim::Config::default()
        };
        let run =
            wgsl_sim::run(&module, &launches, &bindings, &lines, &config).map_err(|e| match e {
                wgsl_sim::Error::TimedOut {
                    span: Some(span),
                    message,
                } => BackendError::TimeoutAt {
                    limit: job.timeout,
                    at: lines.locate(span, message),
                },
                wgsl_sim::Error::TimedOut { span: None, .. } => BackendError::Timeout(job.timeout),
                wgsl_sim::Error::Unsupported { span, .. }
                | wgsl_sim::Error::Binding { span, .. } => {
                    BackendError::Launch(lines.locate(span, e.to_string()).to_string())
                }
                wgsl_sim::Error::NoEntryPoint(_) => BackendError::Launch(e.to_string()),
                wgsl_sim::Error::Limit {
                    span: Some(span), ..
                } => BackendError::Launch(lines.locate(span, e.to_string()).to_string()),
                wgsl_sim::Error::Limit { span: None, .. } => BackendError::Launch(e.to_string()),
            })?;
        let outputs = read_back(spec, &run);
        let mut hazards: Vec<Located> = run
            .findings
            .hazards
            .iter()
            .map(|h| {
                lines
                    .locate(h.at, format!("{}: {}", h.kind.label(), h.message))
                    .with_kind(h.kind)
            })
            .collect();
        if run.findings.dropped > 0 {
            hazards.push(Located::new(
                job.source
                    .main_file()
                    .unwrap_or(std::path::Path::new("kernel")),
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
            access: Some(Box::new(access(&run.findings.access, &lines))),
            accesses: run
                .findings
                .trace
                .as_ref()
                .map(|trace| Box::new(AccessMap::from_trace(trace, spec, false))),
            printed: String::new(),
        }))
    }
}

/// Every argument as the words a GPU would hold, at binding = argument
/// number: buffers with their contents (or poison) and a guard band of
/// canaries, scalars as one word.
fn bindings(spec: &Spec) -> Vec<Binding> {
    spec.args
        .iter()
        .enumerate()
        .map(|(index, arg)| {
            let tag = index as u32;
            let (bytes, len, poisoned) = match arg {
                // Outputs and scratch buffers start poisoned (`init` is None).
                Arg::Buffer(b) => (device_bytes(b, tag, false), b.len(), b.init.is_none()),
                Arg::Scalar { dtype, value, .. } => (dtype.encode(&[*value]), 1, false),
                // WGSL drives one GPU: a spec on several never reaches it
                // (its front end refuses a peer table first).
                Arg::Peers { .. } => (Vec::new(), 0, false),
            };
            Binding {
                group: 0,
                binding: tag,
                words: words(&bytes).collect(),
                len,
                poisoned,
            }
        })
        .collect()
}

fn words(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

/// Every buffer as the wgpu backend reports it: outputs' values, and every
/// buffer's guard band (the elements past its end that were written).
fn read_back(spec: &Spec, run: &wgsl_sim::Run) -> Vec<OutputData> {
    let mut outputs = Vec::new();
    for (index, (arg, words)) in spec.args.iter().zip(&run.buffers).enumerate() {
        let Arg::Buffer(b) = arg else {
            continue;
        };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let split = (b.len() * b.dtype.size()).min(bytes.len());
        let mut data =
            OutputData::from_device(b, index as u32, None, &bytes[..split], &bytes[split..]);
        // The checker saw every store: a poisoned element that was stored to
        // was computed from the poison, not left unwritten.
        if let Some(written) = run.findings.written.get(index).filter(|w| !w.is_empty()) {
            let poison_written = data
                .values
                .iter()
                .enumerate()
                .filter(|&(i, v)| v.is_none() && written.get(i).copied().unwrap_or(false))
                .map(|(i, _)| i)
                .collect();
            data.poison_written = Some(poison_written);
        }
        outputs.push(data);
    }
    outputs
}

/// The interpreter's counts, with places in the kernel file.
fn access(report: &wgsl_sim::AccessReport, lines: &Lines) -> GlobalAccess {
    GlobalAccess::from_report(
        report,
        |thread| thread.global,
        |span| lines.locate(*span, String::new()),
    )
}

/// Maps naga spans to the lines of the kernel's file (through includes and the skeleton cut).
pub struct Lines<'s> {
    source: &'s SourceText,
    text: wgsl_sim::TextLines,
}

impl<'s> Lines<'s> {
    pub fn new(source: &'s SourceText) -> Lines<'s> {
        Lines {
            source,
            text: wgsl_sim::TextLines::new(&source.text),
        }
    }

    pub fn locate(&self, span: Span, message: String) -> Located {
        self.source.locate(self.text.line(span), message)
    }
}

impl LineMap for Lines<'_> {
    /// The line of the kernel's own file, for messages that mention a second place.
    fn line(&self, span: Span) -> usize {
        let line = self.text.line(span);
        self.source.origin(line).map(|o| o.line).unwrap_or(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::Launch;
    use std::time::Duration;
    use wgsl_sim::Kind;

    /// A spec with `out` and `a` (0, 1, …) of `n` f32 elements and the scalar `size` = n.
    fn spec(grid: u32, block: u32, n: usize) -> Spec {
        let buffer = |name: &str, init: Option<Vec<f64>>| {
            Arg::Buffer(crate::spec::model::Buffer {
                name: name.into(),
                dtype: crate::spec::data::Dtype::F32,
                shape: vec![n],
                expect: init.is_none().then(|| vec![0.0; n]),
                init,
                scratch: false,
                tensor_map: None,
                rank: None,
                tolerance: None,
            })
        };
        Spec {
            id: "t".into(),
            title: "t".into(),
            reference: "t".into(),
            constants: Default::default(),
            launches: vec![Launch {
                kernel: "main".into(),
                grid: [grid, 1, 1],
                block: [block, 1, 1],
                dynamic_shared_bytes: 0,
                args: vec![0, 1, 2],
                rank: 0,
                setup: false,
            }],
            args: vec![
                buffer("out", None),
                buffer("a", Some((0..n).map(|i| i as f64).collect())),
                Arg::Scalar {
                    name: "size".into(),
                    dtype: crate::spec::data::Dtype::U32,
                    value: n as f64,
                },
            ],
            flops: None,
            math: Default::default(),
            gpus: 1,
            bus_bytes: None,
            hazards_only: false,
            rounds: 1,
        }
    }

    const HEADER: &str = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;
var<workgroup> t: array<f32, 8>;
";

    fn run(spec: &Spec, body: &str) -> (Execution, SourceText) {
        let text = format!("{HEADER}{body}");
        let source = SourceText::new(text, std::path::Path::new("k.wgsl"), 1);
        let job = Job::new(spec, &source, 0, Duration::from_secs(10));
        match SimBackend::with_seed(3).run(&job) {
            Ok(Outcome::Ran(execution)) => (execution, source),
            other => panic!("did not run: {other:?}\n{}", source.text),
        }
    }

    /// The 1-based line of the text holding `// here`.
    fn marked_line(source: &SourceText) -> usize {
        source
            .text
            .lines()
            .position(|l| l.contains("// here"))
            .expect("a `// here` marker")
            + 1
    }

    /// Each check: a kernel it must flag and a near-twin it must not. The
    /// report names the `// here` line: as its own line, or, for a race whose
    /// other access came second in the schedule, as the other access's line.
    #[test]
    fn checks_flag_the_kernel_and_spare_its_twin() {
        let one_group = spec(1, 8, 8);
        let two_groups = spec(2, 4, 8);
        let entry =
            "@compute @workgroup_size(8) fn main(@builtin(local_invocation_id) l: vec3<u32>) {";
        let entry4 = "@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>) {";
        let cases: Vec<(&str, &Spec, String, String, Kind)> = vec![
            (
                "workgroup race: a neighbour's slot read without a barrier",
                &one_group,
                format!("{entry}\n t[l.x] = a[l.x];\n out[l.x] = t[(l.x + 1u) % 8u]; // here\n}}"),
                format!(
                    "{entry}\n t[l.x] = a[l.x];\n workgroupBarrier();\n out[l.x] = t[(l.x + 1u) % 8u]; // here\n}}"
                ),
                Kind::Race,
            ),
            (
                "storage race: another workgroup's element",
                &two_groups,
                format!(
                    "{entry4}\n out[g.x] = a[g.x];\n storageBarrier();\n let v = out[(g.x + 4u) % 8u]; // here\n storageBarrier();\n out[g.x] = v;\n}}"
                ),
                format!(
                    "{entry4}\n out[g.x] = a[g.x];\n storageBarrier();\n let v = out[w.x * 4u + (g.x + 1u) % 4u]; // here\n storageBarrier();\n out[g.x] = v;\n}}"
                ),
                Kind::Race,
            ),
            (
                "out of bounds: one past the end of the input",
                &one_group,
                format!("{entry}\n out[l.x] = a[l.x + 1u]; // here\n}}"),
                format!("{entry}\n out[l.x] = a[min(l.x + 1u, size - 1u)]; // here\n}}"),
                Kind::OutOfBounds,
            ),
            (
                "uninitialized: half the slots staged, all read",
                &one_group,
                format!(
                    "{entry}\n if (l.x < 4u) {{ t[l.x] = a[l.x]; }}\n workgroupBarrier();\n out[l.x] = t[l.x]; // here\n}}"
                ),
                format!(
                    "{entry}\n t[l.x] = select(0.0, a[l.x], l.x < 4u);\n workgroupBarrier();\n out[l.x] = t[l.x]; // here\n}}"
                ),
                Kind::Uninitialized,
            ),
            (
                "barrier reached by half the workgroup",
                &one_group,
                format!(
                    "{entry}\n if (l.x < 4u) {{\n  workgroupBarrier(); // here\n }}\n out[l.x] = a[l.x];\n}}"
                ),
                format!(
                    "{entry}\n if (size > 4u) {{\n  workgroupBarrier(); // here\n }}\n out[l.x] = a[l.x];\n}}"
                ),
                Kind::DivergentBarrier,
            ),
        ];
        for (name, spec, flagged, twin, kind) in cases {
            let (execution, source) = run(spec, &flagged);
            let line = marked_line(&source);
            let named = |h: &Located| {
                h.kind == Some(kind)
                    && (h.line == line || h.message.contains(&format!("at line {line};")))
            };
            assert!(
                execution.hazards.iter().any(named),
                "{name}: expected a {} naming line {line}, got {:#?}",
                kind.label(),
                execution.hazards
            );
            let (execution, _) = run(spec, &twin);
            assert!(
                execution.hazards.is_empty(),
                "{name}, twin: {:#?}",
                execution.hazards
            );
        }
    }

    /// The language the book's kernels use, each feature giving a value in `out`.
    #[test]
    fn interprets_the_book_feature_set() {
        let body = "
struct Pair { lo: u32, hi: u32 }
fn bump(p: ptr<function, u32>, by: u32) { *p = *p + by; }
fn pick(s: Pair, i: u32) -> u32 {
    switch i { case 0u: { return s.lo; } case 1u, 2u: { return s.hi; } default: { return 99u; } }
}
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let i = l.x;
    var r = 0.0;
    switch i {
        case 0u: { var k = 0u; loop { if (k >= 5u) { break; } k++; continue; } r = f32(k); }
        case 1u: { var c = 0u; bump(&c, 7u); r = f32(c); }
        case 2u: { r = f32(pick(Pair(3u, 4u), 2u)); }
        case 3u: { let v = vec3<f32>(1.0, 2.0, 3.0) * 2.0; r = dot(v.zyx, vec3(1.0, 0.0, 0.0)); }
        case 4u: { r = select(-1.0, 1.0, i32(i) - 5 < 0) + fma(2.0, 3.0, 0.5); }
        case 5u: { var arr = array<f32, 3>(1.0, 2.0, 4.0); var s = 0.0; for (var j = 0u; j < 3u; j += 1u) { s += arr[j]; } r = s; }
        case 6u: { r = f32(n.x + (7u >> 1u) + u32(-3.5 < 0.0)); }
        default: { r = f32(max(i, 2u) % 5u) + floor(2.75) + min(1.0, 0.5); }
    }
    out[i] = r;
}";
        let (execution, _) = run(&spec(1, 8, 8), body);
        let got: Vec<Option<f64>> = execution.outputs[0].values.clone();
        let want = [5.0, 7.0, 4.0, 6.0, 7.5, 7.0, 5.0, 4.5].map(Some);
        assert_eq!(got, want);
        assert!(execution.hazards.is_empty(), "{:#?}", execution.hazards);
    }

    /// Outputs in the shape verify expects: poison where nothing wrote, guard-band writes by index.
    #[test]
    fn poison_and_guard_bands_like_wgpu() {
        let entry =
            "@compute @workgroup_size(8) fn main(@builtin(local_invocation_id) l: vec3<u32>) {";
        let (execution, _) = run(
            &spec(1, 8, 6),
            &format!("{entry}\n if (l.x % 2u == 0u) {{ out[l.x] = a[l.x]; }}\n}}"),
        );
        let out = &execution.outputs[0];
        assert_eq!(
            out.values,
            [Some(0.0), None, Some(2.0), None, Some(4.0), None]
        );
        assert_eq!(out.out_of_bounds, [6]);
        assert_eq!(execution.outputs[1].values, [], "inputs are not read back");
        assert!(execution.hazards.iter().any(|h| {
            h.message
                .contains("element 6 of `out`, which has 6 elements")
        }));
    }

    /// A kernel that sees the spec's f32 buffers as vec4s, over 10 elements
    /// (two whole vectors and a ragged end of two words): (body, the
    /// elements of `out` left holding poison, the elements written past its
    /// end, and a hazard's text or `None`). The ragged end lies in the guard
    /// band, and reading it is reported at its line, as for scalars.
    #[test]
    fn vector_buffers_keep_element_accurate_bounds() {
        let header = "@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> size: u32;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
 let i = g.x;
";
        type Case = (
            &'static str,
            &'static [usize],
            &'static [i64],
            Option<&'static str>,
        );
        let cases: [Case; 2] = [
            (
                " if (i < size / 4u) { out[i] = a[i] + vec4(1.0); } // here\n}",
                &[8, 9],
                &[],
                None,
            ),
            (
                " if (i < (size + 3u) / 4u) { out[i] = a[i] + vec4(1.0); } // here\n}",
                &[],
                &[10, 11],
                // The store to `out` and the load from `a` share the line,
                // which gets one report: either buffer may be named.
                Some(
                    "element 2 of `{a,out}`, which has 2 elements of type vec4<f32> \
                     (10 32-bit words bound; its last 2 word(s) make no whole vec4<f32>",
                ),
            ),
        ];
        let spec = spec(1, 4, 10);
        for (body, poison, past, hazard) in cases {
            let text = format!("{header}{body}");
            let source = SourceText::new(text, std::path::Path::new("k.wgsl"), 1);
            let job = Job::new(&spec, &source, 0, Duration::from_secs(10));
            let Ok(Outcome::Ran(execution)) = SimBackend::with_seed(1).run(&job) else {
                panic!("did not run: {body}");
            };
            let out = &execution.outputs[0];
            let unwritten: Vec<usize> = (0..10).filter(|&k| out.values[k].is_none()).collect();
            assert_eq!(unwritten, poison, "{body}");
            for k in (0..10).filter(|k| !poison.contains(k)) {
                assert_eq!(out.values[k], Some(k as f64 + 1.0), "{body}: out[{k}]");
            }
            assert_eq!(out.out_of_bounds, past, "{body}");
            match hazard {
                None => assert!(execution.hazards.is_empty(), "{:#?}", execution.hazards),
                Some(want) => assert!(
                    execution
                        .hazards
                        .iter()
                        .any(|h| h.line == marked_line(&source)
                            && h.message.starts_with(Kind::OutOfBounds.label())
                            && ["a", "out"]
                                .iter()
                                .any(|b| h.message.contains(&want.replace("{a,out}", b)))),
                    "{:#?}",
                    execution.hazards
                ),
            }
        }
    }

    #[test]
    fn an_endless_loop_times_out() {
        let text =
            format!("{HEADER}@compute @workgroup_size(1) fn main() {{ loop {{ out[0] = 1.0; }} }}");
        let source = SourceText::new(text, std::path::Path::new("k.wgsl"), 1);
        let spec = spec(1, 1, 1);
        let job = Job::new(&spec, &source, 0, Duration::from_millis(50));
        // Stopped at the loop's line, which the report names.
        match SimBackend::with_seed(0).run(&job) {
            Err(BackendError::TimeoutAt { at, .. }) => {
                assert_eq!(at.line, 1 + HEADER.lines().count(), "{at}");
                assert!(at.message.contains("still ran this line"), "{at}");
            }
            other => panic!("expected a time-out at a line, got {other:?}"),
        }
    }

    /// WGSL binds no bf16 and no FP8 (and f16 only behind `enable f16`): a
    /// spec with a narrow buffer is refused in words, whatever the kernel says.
    #[test]
    fn a_narrow_buffer_is_refused_in_words() {
        use crate::spec::data::Dtype;
        let body = "@compute @workgroup_size(8) fn main() {}";
        let source = SourceText::new(format!("{HEADER}{body}"), std::path::Path::new("k.wgsl"), 1);
        for (dtype, name) in [
            (Dtype::Bf16, "bf16"),
            (Dtype::F16, "f16"),
            (Dtype::E4m3, "e4m3"),
        ] {
            let mut spec = spec(1, 8, 8);
            if let Arg::Buffer(b) = &mut spec.args[1] {
                b.dtype = dtype;
            }
            let job = Job::new(&spec, &source, 0, Duration::from_secs(10));
            let err = SimBackend::with_seed(0).run(&job).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "cannot launch: buffer `a` is {name}, which WGSL cannot bind (WGSL has no \
                     bf16 and no FP8, and f16 only behind `enable f16`): this puzzle runs in CUDA \
                     C only"
                )
            );
        }
    }
}
