//! Running launches in order over bound buffers: module-scope memory made
//! from the bindings, each launch dispatched by [`crate::schedule`], and the
//! buffers read back with what the checks saw.

use crate::hazard::{LineMap, Shadow};
use crate::launch::{Binding, Config, Error, Launch, Run};
use crate::memory::{Region, Space};
use crate::program::{Fault, Program};
use crate::schedule;
use crate::shared::Shared;
use crate::value::Scalar;
use naga::{AddressSpace, Module, StorageAccess};

/// Runs `launches` in order over `bindings` (module-scope variables bound by
/// group and binding number). `module` must have passed naga's validator.
pub fn run(
    module: &Module,
    launches: &[Launch],
    bindings: &[Binding],
    lines: &dyn LineMap,
    config: &Config,
) -> Result<Run, Error> {
    let prog = Program::new(module);
    check_limits(&prog, launches, bindings, config)?;
    let globals = bind(&prog, bindings)?;
    let mut shared = Shared::new(globals, lines, config);
    let mut rng = schedule::Rng::new(config.seed);
    for (index, launch) in launches.iter().enumerate() {
        shared.launch = index;
        let entry = module
            .entry_points
            .iter()
            .find(|e| e.name == launch.entry)
            .ok_or_else(|| Error::NoEntryPoint(launch.entry.clone()))?;
        schedule::dispatch(&prog, &mut shared, entry, launch, &mut rng).map_err(|f| match f {
            Fault::TimedOut { span, message } => Error::TimedOut { span, message },
            Fault::Unsupported { what, span } => Error::Unsupported { what, span },
        })?;
    }
    let buffers = bindings
        .iter()
        .map(|b| match global_of(module, b) {
            Some(g) => match shared.globals[g].as_ref() {
                Some(r) => r.slots.iter().map(|s| s.bits()).collect(),
                None => b.words.clone(),
            },
            None => b.words.clone(),
        })
        .collect();
    let written = bindings
        .iter()
        .map(|b| {
            let region = global_of(module, b).and_then(|g| shared.globals[g].as_ref());
            match region {
                Some(r) if b.poisoned && !r.shadow.is_empty() => {
                    r.shadow.iter().map(|s| s.written() != 0).collect()
                }
                _ => vec![],
            }
        })
        .collect();
    Ok(Run {
        buffers,
        findings: crate::launch::Findings::new(
            &shared.hazards,
            shared.access.report(),
            written,
            shared.trace.map(crate::trace::Tracer::finish),
        ),
    })
}

/// Bytes the checker keeps per leaf of memory it watches: the value and the
/// race check's record of it.
const WATCHED_LEAF_BYTES: u64 =
    (std::mem::size_of::<Scalar>() + std::mem::size_of::<Shadow>()) as u64;

/// Refuses, before anything is allocated, what no device would run or what
/// would take more memory than the budget: a launch of more invocations
/// than 32-bit ids can number, more workgroup memory than a device allows,
/// or variables (with the checker's records of them) beyond
/// [`Config::limits`].
fn check_limits(
    prog: &Program,
    launches: &[Launch],
    bindings: &[Binding],
    config: &Config,
) -> Result<(), Error> {
    let module = prog.module;
    let mut per_group = 1u64;
    for launch in launches {
        let groups: u64 = launch.grid.iter().map(|&g| u64::from(g)).product();
        let block: u64 = launch.block.iter().map(|&b| u64::from(b)).product();
        if groups.saturating_mul(block) > u64::from(u32::MAX) {
            return Err(Error::Limit {
                what: format!(
                    "`{}` launches {groups} workgroups of {block} invocations, {} in all; the CPU \
                     checker numbers invocations with 32 bits and runs at most {} in one launch",
                    launch.entry,
                    groups.saturating_mul(block),
                    u32::MAX
                ),
                span: None,
            });
        }
        per_group = per_group.max(block);
    }
    let mut workgroup_leaves = 0u64;
    let mut private_leaves = 0u64;
    for (handle, var) in module.global_variables.iter() {
        let leaves = prog.layout.leaves(var.ty) as u64;
        match var.space {
            AddressSpace::WorkGroup => {
                let bytes = leaves.saturating_mul(4);
                workgroup_leaves = workgroup_leaves.saturating_add(leaves);
                if workgroup_leaves.saturating_mul(4) > config.max_workgroup_bytes {
                    return Err(Error::Limit {
                        what: format!(
                            "the kernel declares {} of workgroup memory (`{}` alone is {}); \
                             devices allow at most {} per workgroup",
                            in_binary_units(workgroup_leaves.saturating_mul(4)),
                            var.name.as_deref().unwrap_or("a variable"),
                            in_binary_units(bytes),
                            in_binary_units(config.max_workgroup_bytes)
                        ),
                        span: Some(module.global_variables.get_span(handle)),
                    });
                }
            }
            AddressSpace::Private => private_leaves = private_leaves.saturating_add(leaves),
            _ => {}
        }
    }
    // Every invocation of a workgroup holds its own private and local variables.
    let locals: u64 = module
        .functions
        .iter()
        .map(|(_, f)| &f.local_variables)
        .chain(
            module
                .entry_points
                .iter()
                .map(|e| &e.function.local_variables),
        )
        .flat_map(|vars| vars.iter())
        .map(|(_, v)| prog.layout.leaves(v.ty) as u64)
        .fold(0u64, u64::saturating_add);
    let bound: u64 = bindings.iter().map(|b| b.words.len() as u64).sum();
    let watched = bound.saturating_add(workgroup_leaves);
    let needed = watched.saturating_mul(WATCHED_LEAF_BYTES).saturating_add(
        per_group
            .saturating_mul(private_leaves.saturating_add(locals))
            .saturating_mul(std::mem::size_of::<Scalar>() as u64),
    );
    config
        .limits
        .afford(
            needed,
            "this run",
            "its buffers and variables, and a record of every access to them",
        )
        .map_err(|what| Error::Limit { what, span: None })?;
    Ok(())
}

/// The module-scope variable bound to `b`, by handle index.
fn global_of(module: &Module, b: &Binding) -> Option<usize> {
    module.global_variables.iter().position(|(_, v)| {
        v.binding
            .as_ref()
            .is_some_and(|r| r.group == b.group && r.binding == b.binding)
    })
}

/// Memory for every module-scope variable: buffers and uniforms from the
/// bindings, workgroup memory sized by its type. Private variables live in
/// each invocation.
fn bind(prog: &Program, bindings: &[Binding]) -> Result<Vec<Option<Region>>, Error> {
    let module = prog.module;
    let mut globals = Vec::with_capacity(module.global_variables.len());
    for (handle, var) in module.global_variables.iter() {
        let span = module.global_variables.get_span(handle);
        let name = var.name.clone().unwrap_or_default();
        let refused = |what: String| Error::Binding { what, span };
        let region = |space, slots: Vec<Scalar>, len, checked: bool, starts_unwritten| Region {
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
            starts_unwritten,
        };
        let bound = var.binding.as_ref().and_then(|r| {
            bindings
                .iter()
                .find(|b| b.group == r.group && b.binding == r.binding)
        });
        let slots_of = |b: &Binding, what: &str| {
            let kind = prog.layout.buffer_element(var.ty).ok_or_else(|| {
                refused(format!(
                    "`{name}`: the CPU simulator takes {what} declared as an array of \
                     f32, i32 or u32 (atomics included), of vec2 or vec4 of them, or one \
                     such scalar or vector (not vec3, whose elements are padded to 16 bytes)"
                ))
            })?;
            Ok::<_, Error>(
                b.words
                    .iter()
                    .map(|&w| Scalar::from_bits(kind, w))
                    .collect::<Vec<_>>(),
            )
        };
        let region = match (var.space, bound) {
            (AddressSpace::Storage { access }, Some(b)) => {
                let slots = slots_of(b, "storage buffers")?;
                let writable = access.contains(StorageAccess::STORE);
                Some(region(Space::Storage, slots, b.len, writable, b.poisoned))
            }
            (AddressSpace::Uniform, Some(b)) => {
                let slots = slots_of(b, "uniforms")?;
                Some(region(Space::Uniform, slots, b.len, false, false))
            }
            (AddressSpace::WorkGroup, _) => {
                let mut slots = Vec::new();
                prog.layout.zero(var.ty, &mut slots);
                let len = slots.len();
                Some(region(Space::Workgroup, slots, len, true, true))
            }
            (AddressSpace::Private, _) => None,
            (AddressSpace::Storage { .. } | AddressSpace::Uniform, None) => {
                return Err(refused(format!(
                    "`{name}` is bound to no buffer: give the run a binding with its group and number"
                )));
            }
            (space, _) => {
                return Err(refused(format!(
                    "`{name}` is in address space {space:?}, which the CPU simulator does not run"
                )));
            }
        };
        globals.push(region);
    }
    Ok(globals)
}

/// Bytes in the largest binary unit that divides them (`32 KiB`, `1 GiB`),
/// else in bytes: memory limits are powers of two, and so are most arrays.
fn in_binary_units(bytes: u64) -> String {
    let units = [("GiB", 30), ("MiB", 20), ("KiB", 10)];
    units
        .iter()
        .find(|(_, shift)| bytes >= 1 << shift && bytes.is_multiple_of(1 << shift))
        .map_or_else(
            || format!("{bytes} bytes"),
            |(unit, shift)| format!("{} {unit}", bytes >> shift),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hazard::TextLines;

    fn module(src: &str) -> Module {
        let module = naga::front::wgsl::parse_str(src).expect("test WGSL parses");
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .expect("test WGSL validates");
        module
    }

    fn words(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The API end to end: words in, words out, with a guard band watched.
    #[test]
    fn runs_a_launch_over_bindings() {
        let src = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = a[g.x] * 2.0;
}";
        let m = module(src);
        let launch = Launch {
            entry: "main".into(),
            grid: [1, 1, 1],
            block: [4, 1, 1],
        };
        let bindings = [
            Binding {
                group: 0,
                binding: 0,
                words: vec![0; 6],
                len: 4,
                poisoned: false,
            },
            Binding {
                group: 0,
                binding: 1,
                words: words(&[1.0, 2.0, 3.0, 4.0]),
                len: 4,
                poisoned: false,
            },
        ];
        let lines = TextLines::new(src);
        let run = run(&m, &[launch], &bindings, &lines, &Config::default()).expect("runs");
        assert_eq!(
            run.buffers[0],
            [words(&[2.0, 4.0, 6.0, 8.0]), vec![0, 0]].concat()
        );
        assert!(
            run.findings.hazards.is_empty(),
            "{:#?}",
            run.findings.hazards
        );
        assert_eq!(
            (
                run.findings.access.reads.max,
                run.findings.access.writes.max
            ),
            (1, 1)
        );
    }

    /// An output starts poisoned: reading an element before anything wrote
    /// it is reported at its line, what was stored to comes back in
    /// `written` (so a value computed from the poison is told from an
    /// element never written), and a second launch reads what the first wrote.
    #[test]
    fn reads_of_poisoned_outputs_table() {
        let nan = f32::NAN.to_bits();
        // (case, kernel body, launches, hazard kinds and lines, written)
        let cases: [(&str, &str, usize, &[(&str, usize)], [bool; 2]); 4] = [
            (
                "+= reads first",
                "out[0] += 1.0;",
                1,
                &[("uninitialized read", 2)],
                [true, false],
            ),
            ("plain store", "out[1] = 1.0;", 1, &[], [false, true]),
            (
                "store, then read back",
                "out[0] = 1.0; out[1] = out[0];",
                1,
                &[],
                [true, true],
            ),
            (
                "second launch reads the first's write",
                "out[0] = 1.0; out[0] += 1.0;",
                2,
                &[],
                [true, false],
            ),
        ];
        for (case, body, launches, hazards, written) in cases {
            let src = format!(
                "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
                 @compute @workgroup_size(1) fn main() {{ {body} }}"
            );
            let m = module(&src);
            let lines = TextLines::new(&src);
            let launch = Launch {
                entry: "main".into(),
                grid: [1, 1, 1],
                block: [1, 1, 1],
            };
            let out = Binding {
                group: 0,
                binding: 0,
                words: vec![nan; 2],
                len: 2,
                poisoned: true,
            };
            let all = vec![launch; launches];
            let run = run(&m, &all, &[out], &lines, &Config::default()).expect(case);
            let got: Vec<(&str, usize)> = run
                .findings
                .hazards
                .iter()
                .map(|h| (h.kind.label(), lines.line(h.at)))
                .collect();
            assert_eq!(got, hazards, "{case}: {:#?}", run.findings.hazards);
            assert_eq!(run.findings.written, vec![written.to_vec()], "{case}");
        }
    }

    /// Errors are values with a sentence, never panics.
    #[test]
    fn refusals_are_errors() {
        let src = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = 1.0; }";
        let m = module(src);
        let lines = TextLines::new(src);
        let launch = |entry: &str| Launch {
            entry: entry.into(),
            grid: [1, 1, 1],
            block: [1, 1, 1],
        };
        let out = Binding {
            group: 0,
            binding: 0,
            words: vec![0],
            len: 1,
            poisoned: false,
        };
        let cases: [(&str, Vec<Binding>, &str); 2] = [
            ("nope", vec![out.clone()], "no entry point `nope`"),
            ("main", vec![], "`out` is bound to no buffer"),
        ];
        for (entry, bindings, want) in cases {
            let got = run(&m, &[launch(entry)], &bindings, &lines, &Config::default())
                .expect_err("refused");
            assert!(got.to_string().contains(want), "{got}");
        }
        // vec3 elements are padded to 16 bytes, which packed leaves do not model.
        let src = "@group(0) @binding(0) var<storage, read_write> out: array<vec3<f32>>;
@compute @workgroup_size(1) fn main() { out[0] = vec3(1.0); }";
        let got = run(
            &module(src),
            &[launch("main")],
            &[Binding {
                words: vec![0; 4],
                ..out
            }],
            &TextLines::new(src),
            &Config::default(),
        )
        .expect_err("refused");
        assert!(got.to_string().contains("not vec3"), "{got}");
    }

    #[test]
    fn limits_read_in_binary_units() {
        for (bytes, words) in [
            (32768, "32 KiB"),
            (1 << 30, "1 GiB"),
            (65536, "64 KiB"),
            (12, "12 bytes"),
            (1536, "1536 bytes"),
        ] {
            assert_eq!(in_binary_units(bytes), words);
        }
    }
}
