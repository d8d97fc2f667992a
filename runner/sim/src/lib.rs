//! `wgsl-sim`: WGSL compute shaders on the CPU, by interpreting naga's IR,
//! with checks no GPU makes.
//!
//! The caller parses and validates the module, then hands [`run`] the
//! launches and the words of each bound buffer. What comes back is every
//! buffer's words after the launches, the hazards seen on the way (data
//! races, out-of-bounds indices, reads of workgroup memory nobody wrote,
//! barriers or subgroup operations not every invocation reaches), each at a
//! naga span, and how often each invocation read and wrote storage buffers.
//!
//! The crate knows nothing about files: messages that name a second place
//! ("… and invocation 3 writes it at line 12") get that line from the
//! caller's [`LineMap`]; [`TextLines`] is the plain one, over the WGSL text.
//!
//! - [`value`]: scalars, vectors, operators and builtins;
//! - [`memory`]: variables as leaves, pointers, type layouts;
//! - [`exec`]: one invocation's interpreter, resumable at barriers;
//! - [`schedule`]: workgroups, subgroups and the seeded order of invocations;
//! - [`hazard`]: the race rule and the reports;
//! - [`access`]: counts of global-memory reads and writes.

pub mod access;
pub mod exec;
pub mod hazard;
pub mod memory;
pub mod schedule;
pub mod value;

#[cfg(test)]
mod run_tests;

pub use access::{AccessReport, Site, Tally, Thread};
pub use hazard::{Hazard, Kind, LineMap, TextLines};

use exec::{Fault, Program, Shared};
use hazard::Shadow;
use memory::{Region, Space};
use naga::{AddressSpace, Module, Span, StorageAccess};
use std::time::Duration;
use value::Scalar;

/// One dispatch of an entry point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub entry: String,
    /// Workgroups along x, y and z.
    pub grid: [u32; 3],
    /// Invocations per workgroup along x, y and z (the entry's `@workgroup_size`).
    pub block: [u32; 3],
}

/// The contents of one bound resource, as 32-bit words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub group: u32,
    pub binding: u32,
    /// The buffer's words, followed by any guard band the caller wants
    /// watched (a write there comes back in [`Run::buffers`]; the index is
    /// reported as out of bounds).
    pub words: Vec<u32>,
    /// How many of `words` belong to the buffer itself.
    pub len: usize,
}

/// How a run is made.
#[derive(Debug, Clone)]
pub struct Config {
    /// Seeds the order in which workgroups and invocations run.
    pub seed: u64,
    /// Invocations per subgroup (consecutive `local_invocation_index`es).
    pub subgroup_size: u32,
    /// A run still going after this long is abandoned ([`Error::TimedOut`]).
    pub timeout: Duration,
    /// Where the time is read from. [`system_clock`] where std has a clock;
    /// in a browser, the page's (std's `Instant` is not there).
    pub clock: Clock,
}

/// Time since a fixed origin; only differences are used.
pub type Clock = fn() -> Duration;

/// The operating system's monotonic clock, through std (not in a browser).
pub fn system_clock() -> Duration {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(std::time::Instant::now).elapsed()
}

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 0,
            subgroup_size: 32,
            timeout: Duration::from_secs(10),
            clock: system_clock,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Each binding's words after the run, in the order they were given.
    pub buffers: Vec<Vec<u32>>,
    /// The hazards, one per kind and line, in the order found.
    pub hazards: Vec<Hazard>,
    /// Hazards beyond the reporting cap, not kept.
    pub dropped: usize,
    pub access: AccessReport,
}

/// Why there is no [`Run`].
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The kernel uses something the interpreter does not implement.
    Unsupported { what: String, span: Span },
    /// A resource the interpreter cannot bind as given.
    Binding { what: String, span: Span },
    /// No entry point of that name.
    NoEntryPoint(String),
    /// Still running when [`Config::timeout`] ran out: an endless loop, most likely.
    TimedOut,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Unsupported { what, .. } => {
                write!(f, "the CPU simulator cannot run this kernel yet: {what}")
            }
            Error::Binding { what, .. } => f.write_str(what),
            Error::NoEntryPoint(name) => write!(f, "the module has no entry point `{name}`"),
            Error::TimedOut => f.write_str("the kernel did not finish in time"),
        }
    }
}

impl std::error::Error for Error {}

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
            Fault::TimedOut => Error::TimedOut,
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
    Ok(Run {
        buffers,
        hazards: shared.hazards.list().to_vec(),
        dropped: shared.hazards.dropped,
        access: shared.access.report(),
    })
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
                Some(region(Space::Storage, slots, b.len, writable))
            }
            (AddressSpace::Uniform, Some(b)) => {
                let slots = slots_of(b, "uniforms")?;
                Some(region(Space::Uniform, slots, b.len, false))
            }
            (AddressSpace::WorkGroup, _) => {
                let mut slots = Vec::new();
                prog.layout.zero(var.ty, &mut slots);
                let len = slots.len();
                Some(region(Space::Workgroup, slots, len, true))
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

#[cfg(test)]
mod tests {
    use super::*;

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
            },
            Binding {
                group: 0,
                binding: 1,
                words: words(&[1.0, 2.0, 3.0, 4.0]),
                len: 4,
            },
        ];
        let lines = TextLines::new(src);
        let run = run(&m, &[launch], &bindings, &lines, &Config::default()).expect("runs");
        assert_eq!(
            run.buffers[0],
            [words(&[2.0, 4.0, 6.0, 8.0]), vec![0, 0]].concat()
        );
        assert!(run.hazards.is_empty(), "{:#?}", run.hazards);
        assert_eq!((run.access.reads.max, run.access.writes.max), (1, 1));
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
}
