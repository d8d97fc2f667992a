//! The sim backend: WGSL on the CPU, by interpreting naga's IR, with checks
//! no GPU makes. Nothing needs to be installed.
//!
//! The kernel is parsed, validated and checked against the spec exactly as
//! the wgpu backend does it. Buffers get the same poison and guard bands,
//! so [`crate::verify`] judges a sim run like a wgpu run. What only a
//! simulator can see (data races, out-of-bounds indices, reads of workgroup
//! memory nobody wrote, barriers not every invocation reaches) comes back as
//! [`Execution::hazards`], at the kernel's lines; any hazard fails the run.
//!
//! - [`value`]: scalars, vectors, operators and builtins;
//! - [`memory`]: variables as leaves, pointers, type layouts;
//! - [`exec`]: one invocation's interpreter, resumable at barriers;
//! - [`schedule`]: workgroups and the seeded order of their invocations;
//! - [`hazard`]: the race rule and the reports.

pub mod exec;
pub mod hazard;
pub mod memory;
pub mod schedule;
pub mod value;

use super::{
    Backend, BackendError, BackendKind, DeviceInfo, Execution, GUARD_ELEMENTS, Job, Outcome,
    OutputData, check_launch_basics,
};
use crate::spec::{Arg, Spec};
use exec::{Fault, Program, Shared};
use hazard::{Lines, Shadow};
use memory::{Region, Space};
use naga::{AddressSpace, StorageAccess};
use value::Scalar;

/// WebGPU's default limit on workgroups per grid dimension.
const MAX_WORKGROUPS: u32 = 65535;

pub struct SimBackend {
    info: DeviceInfo,
    seed: u64,
}

impl SimBackend {
    /// The simulator with the schedule seed from `GPU_PUZZLES_SIM_SEED` (0 when unset).
    pub fn open() -> SimBackend {
        let seed = std::env::var("GPU_PUZZLES_SIM_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        SimBackend::with_seed(seed)
    }

    pub fn with_seed(seed: u64) -> SimBackend {
        SimBackend {
            info: DeviceInfo {
                backend: BackendKind::Sim,
                name: "CPU checker (naga IR interpreter with race, bounds and barrier checks)"
                    .into(),
                kind: "CPU".into(),
                api: format!("naga, schedule seed {seed}"),
                driver: env!("CARGO_PKG_VERSION").into(),
            },
            seed,
        }
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
        let module = match super::wgpu::compile(job.source) {
            Ok(m) => m,
            Err(errors) => return Ok(Outcome::CompileFailed(errors)),
        };
        if let Err(errors) = super::wgpu::reflect(&module, spec, job.source) {
            return Ok(Outcome::CompileFailed(errors));
        }
        SimBackend::check_limits(spec)?;
        let lines = Lines::new(job.source);
        let prog = Program::new(&module);
        let globals = bind(&prog, spec)
            .map_err(|(span, what)| BackendError::Launch(lines.locate(span, what).to_string()))?;
        let mut shared = Shared::new(globals, &lines, job.timeout);
        let mut rng = schedule::Rng::new(self.seed);
        for launch in &spec.launches {
            let entry = module
                .entry_points
                .iter()
                .find(|e| e.name == launch.kernel)
                .ok_or_else(|| {
                    BackendError::Launch(format!("no entry point `{}`", launch.kernel))
                })?;
            schedule::dispatch(&prog, &mut shared, entry, launch, &mut rng).map_err(|fault| {
                match fault {
                    Fault::TimedOut => BackendError::Timeout(job.timeout),
                    Fault::Unsupported { what, span } => BackendError::Launch(
                        lines
                            .locate(
                                span,
                                format!("the CPU simulator cannot run this kernel yet: {what}"),
                            )
                            .to_string(),
                    ),
                }
            })?;
        }
        let outputs = read_back(spec, &module, &shared);
        let hazards = shared.hazards.located(&lines);
        Ok(Outcome::Ran(Execution {
            outputs,
            timing: None,
            hazards,
        }))
    }
}

/// Memory for every module-scope variable: buffers and scalars from the
/// spec's args (by binding), workgroup memory sized by its type. Private
/// variables live in each invocation.
fn bind(prog: &Program, spec: &Spec) -> Result<Vec<Option<Region>>, (naga::Span, String)> {
    let module = prog.module;
    let mut globals = Vec::with_capacity(module.global_variables.len());
    for (handle, var) in module.global_variables.iter() {
        let span = module.global_variables.get_span(handle);
        let name = var.name.clone().unwrap_or_default();
        let region = |space, slots: Vec<Scalar>, len, checked: bool| Region {
            name: name.clone(),
            ty: var.ty,
            shadow: if checked {
                vec![Shadow::default(); len]
            } else {
                vec![]
            },
            slots,
            len,
            space,
        };
        let arg = var
            .binding
            .as_ref()
            .and_then(|b| spec.args.get(b.binding as usize));
        let bound = match (var.space, arg) {
            (AddressSpace::Storage { access }, Some(Arg::Buffer(b))) => {
                let kind = prog.layout.buffer_element(var.ty).ok_or_else(|| {
                    (span, format!("`{name}`: the CPU simulator takes storage buffers declared as array<f32>, array<i32> or array<u32>"))
                })?;
                let tag = var.binding.as_ref().map(|b| b.binding).unwrap_or(0);
                let mut bytes = match &b.init {
                    Some(values) => b.dtype.encode(values),
                    None => b.dtype.poison(b.len()),
                };
                bytes.extend(b.dtype.canary(tag, GUARD_ELEMENTS));
                let slots = words(&bytes).map(|w| Scalar::from_bits(kind, w)).collect();
                let writable = access.contains(StorageAccess::STORE);
                Some(region(Space::Storage, slots, b.len(), writable))
            }
            (AddressSpace::Uniform, Some(Arg::Scalar { dtype, value, .. })) => {
                let kind = prog.layout.buffer_element(var.ty).ok_or_else(|| {
                    (span, format!("`{name}`: the CPU simulator takes uniforms declared as one u32, i32 or f32"))
                })?;
                let slots = words(&dtype.encode(&[*value]))
                    .map(|w| Scalar::from_bits(kind, w))
                    .collect();
                Some(region(Space::Uniform, slots, 1, false))
            }
            (AddressSpace::WorkGroup, _) => {
                let mut slots = Vec::new();
                prog.layout.zero(var.ty, &mut slots);
                let len = slots.len();
                Some(region(Space::Workgroup, slots, len, true))
            }
            (AddressSpace::Private, _) => None,
            (space, _) => {
                return Err((
                    span,
                    format!(
                        "`{name}` is in address space {space:?}, which the CPU simulator does not run"
                    ),
                ));
            }
        };
        globals.push(bound);
    }
    Ok(globals)
}

fn words(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

/// Every buffer as the wgpu backend reports it: outputs' values, and every
/// buffer's guard band (the elements past its end that were written).
fn read_back(spec: &Spec, module: &naga::Module, shared: &Shared) -> Vec<OutputData> {
    let mut outputs = Vec::new();
    for (index, arg) in spec.args.iter().enumerate() {
        let Arg::Buffer(b) = arg else {
            continue;
        };
        let region = module
            .global_variables
            .iter()
            .position(|(_, v)| {
                v.binding
                    .as_ref()
                    .is_some_and(|r| r.binding as usize == index)
            })
            .and_then(|g| shared.globals[g].as_ref());
        let tag = index as u32;
        let bytes: Vec<u8> = match region {
            Some(r) => r
                .slots
                .iter()
                .flat_map(|s| s.bits().to_le_bytes())
                .collect(),
            // Bound by no variable of the kernel: untouched.
            None => {
                let mut bytes = match &b.init {
                    Some(values) => b.dtype.encode(values),
                    None => b.dtype.poison(b.len()),
                };
                bytes.extend(b.dtype.canary(tag, GUARD_ELEMENTS));
                bytes
            }
        };
        let split = b.len() * b.dtype.size();
        outputs.push(OutputData::from_device(
            b,
            tag,
            None,
            &bytes[..split],
            &bytes[split..],
        ));
    }
    outputs
}

#[cfg(test)]
mod tests {
    use super::hazard::Kind;
    use super::*;
    use crate::source::SourceText;
    use crate::spec::Launch;
    use std::time::Duration;

    /// A spec with `out` and `a` (0, 1, …) of `n` f32 elements and the scalar `size` = n.
    fn spec(grid: u32, block: u32, n: usize) -> Spec {
        let buffer = |name: &str, init: Option<Vec<f64>>| {
            Arg::Buffer(crate::spec::Buffer {
                name: name.into(),
                dtype: crate::data::Dtype::F32,
                shape: vec![n],
                expect: init.is_none().then(|| vec![0.0; n]),
                init,
                scratch: false,
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
            }],
            args: vec![
                buffer("out", None),
                buffer("a", Some((0..n).map(|i| i as f64).collect())),
                Arg::Scalar {
                    name: "size".into(),
                    dtype: crate::data::Dtype::U32,
                    value: n as f64,
                },
            ],
            flops: None,
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
            let named = |h: &crate::diag::Located| {
                h.message.starts_with(kind.label())
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

    #[test]
    fn an_endless_loop_times_out() {
        let text =
            format!("{HEADER}@compute @workgroup_size(1) fn main() {{ loop {{ out[0] = 1.0; }} }}");
        let source = SourceText::new(text, std::path::Path::new("k.wgsl"), 1);
        let spec = spec(1, 1, 1);
        let job = Job::new(&spec, &source, 0, Duration::from_millis(50));
        assert!(matches!(
            SimBackend::open().run(&job),
            Err(BackendError::Timeout(_))
        ));
    }
}
