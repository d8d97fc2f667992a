//! The engine's runner: opens each backend once, on first use, and makes
//! every run through the core's one path ([`puzzle_core::assess::execute`]),
//! looking results up in the result cache first when it has one.
//!
//! The CLI, the chapter tests, the negative fixtures, the learner's loop and
//! the book build all run through a [`Runner`], so they cannot disagree
//! about a result.

use crate::backend::cuda::sanitize::Sanitizer;
use crate::backend::open;
use crate::run::cache::{ResultCache, RunKey};
use crate::run::memory_budget;
use puzzle_core::assess::cases::{self, Case, Until};
use puzzle_core::assess::execute::{self, Settings};
use puzzle_core::backend_contract::backend::{Backend, BackendError, BackendKind};
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::judge::abridge::LISTED;
use puzzle_core::judge::report::{PRINTED_KEPT, RunReport, Status, printed_head};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::finding::Finding;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// A backend, opened on first use, or why it could not be.
type LazyBackend = OnceLock<Result<Box<dyn Backend>, BackendError>>;

/// How the cache remembers that CUDA runs on the CUDA checker here (the
/// backend's own name, `sim`, is WGSL's checker's too).
const CUDA_CHECKER: &str = "ptx-sim";

/// Opens each backend on first use and keeps it for the process. Shareable
/// How long a debugging case's kernel given with a hang (`bug: hang`) runs
/// before it is stopped.
pub const HANG_CASE_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

/// across threads: the chapter tests run in parallel on one device.
pub struct Runner {
    pub settings: Settings,
    backends: BTreeMap<BackendKind, LazyBackend>,
    /// Book builds reuse earlier results; tests and the CLI always run.
    cache: Option<ResultCache>,
    /// Where WGSL runs here by default, once known.
    wgsl_default: OnceLock<BackendKind>,
    /// Where CUDA C runs here by default, once known.
    cuda_default: OnceLock<BackendKind>,
    /// The CPU checker that stands behind a CPU adapter's runs, with the
    /// adapter's subgroup size where it has one fixed size, so a kernel
    /// written for it (lavapipe's 8) is judged as it ran.
    adapter_checker: OnceLock<Box<dyn Backend>>,
    /// The CPU checker that keeps who touched which element (the diagrams).
    traced_checker: OnceLock<Box<dyn Backend>>,
    /// The CUDA checker that does, or why it cannot open.
    traced_cuda_checker: LazyBackend,
    /// What the WGSL adapter is, once known.
    adapter_facts: OnceLock<AdapterFacts>,
    /// compute-sanitizer over every CUDA run (`--sanitize`).
    sanitizer: Option<Sanitizer>,
    /// Set when a run's report could not be cached (a backend missing or
    /// failing now may be there next time): what was built from it is provisional.
    uncached: AtomicBool,
}

/// What the engine needs to know of the WGSL adapter: whether it is a CPU
/// (whose runs the checker must vouch for) and its one subgroup size, if it
/// has one. Kept in the cache as `cpu=true subgroup=8`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct AdapterFacts {
    cpu: bool,
    subgroup: Option<u32>,
}

impl std::fmt::Display for AdapterFacts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let subgroup = self.subgroup.map(|n| n.to_string()).unwrap_or_default();
        write!(f, "cpu={} subgroup={subgroup}", self.cpu)
    }
}

impl AdapterFacts {
    /// As written by `Display`; anything else reads as "not a CPU".
    fn parse(text: &str) -> AdapterFacts {
        let field = |name: &str| {
            text.split_whitespace()
                .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        };
        AdapterFacts {
            cpu: field("cpu") == Some("true"),
            subgroup: field("subgroup").and_then(|n| n.parse().ok()),
        }
    }
}

impl Runner {
    pub fn new(mut settings: Settings) -> Runner {
        settings.memory = settings.memory.or_else(memory_budget::budget);
        let backends = BackendKind::ALL
            .iter()
            .map(|&k| (k, OnceLock::new()))
            .collect();
        Runner {
            settings,
            backends,
            cache: None,
            wgsl_default: OnceLock::new(),
            cuda_default: OnceLock::new(),
            adapter_checker: OnceLock::new(),
            traced_checker: OnceLock::new(),
            traced_cuda_checker: OnceLock::new(),
            adapter_facts: OnceLock::new(),
            sanitizer: None,
            uncached: AtomicBool::new(false),
        }
    }

    /// A runner whose CUDA runs are checked by compute-sanitizer too.
    pub fn with_sanitizer(mut self, sanitizer: Sanitizer) -> Runner {
        self.sanitizer = Some(sanitizer);
        self
    }

    /// A runner that looks results up in `cache` before running, and stores
    /// them after. Its reports come back abridged, hit or miss alike: the
    /// head and tail of each long output and exact counts, which is all a
    /// page shows; a warm build then reads kilobytes, not megabytes.
    pub fn with_cache(settings: Settings, cache: ResultCache) -> Runner {
        Runner {
            cache: Some(cache),
            ..Runner::new(settings)
        }
    }

    /// Whether every run so far came from the cache or went into it: a
    /// page built from them can be kept as it is (see the book's memo).
    pub fn all_cached(&self) -> bool {
        self.cache.is_some() && !self.uncached.load(Ordering::Relaxed)
    }

    /// The backend of this kind, or why it is unavailable.
    pub fn backend(&self, kind: BackendKind) -> Result<&dyn Backend, &BackendError> {
        self.backends[&kind]
            .get_or_init(|| open::open(kind, self.sanitizer.as_ref()))
            .as_ref()
            .map(|b| b.as_ref())
    }

    /// Where a language runs by default: WGSL on wgpu, or, on a machine with
    /// no Vulkan, Metal or DX12 adapter at all, on the CPU checker, so every
    /// WGSL result is still real; CUDA C on the CUDA backend where it runs
    /// kernels (an NVIDIA GPU), or where it does not open at all (no NVRTC:
    /// its error says what to install), else on the CUDA checker (NVRTC's
    /// PTX on the CPU), so a machine without a GPU still runs CUDA.
    ///
    /// Finding out opens wgpu (or probes for a GPU); with a cache, the
    /// answer is kept there, so a warm book build opens no device.
    pub fn default_backend(&self, lang: Lang) -> BackendKind {
        if lang == Lang::Cuda {
            return self.cuda_default();
        }
        *self.wgsl_default.get_or_init(|| {
            let find = || match self.backend(BackendKind::Wgpu) {
                Ok(_) => BackendKind::Wgpu.to_string(),
                Err(_) => BackendKind::Sim.to_string(),
            };
            let found = match &self.cache {
                Some(cache) => cache.remembered("the backend that runs WGSL", find),
                None => find(),
            };
            if found == BackendKind::Sim.to_string() {
                BackendKind::Sim
            } else {
                BackendKind::Wgpu
            }
        })
    }

    /// CUDA's default backend: see [`Runner::default_backend`].
    fn cuda_default(&self) -> BackendKind {
        *self.cuda_default.get_or_init(|| {
            // Without NVRTC neither runs CUDA, and the CUDA backend's error says so.
            let find = || match self.backend(BackendKind::Cuda) {
                Ok(cuda) if !cuda.runs_kernels() => CUDA_CHECKER.to_string(),
                _ => BackendKind::Cuda.to_string(),
            };
            let found = match &self.cache {
                Some(cache) => cache.remembered("the backend that runs CUDA", find),
                None => find(),
            };
            if found == CUDA_CHECKER {
                BackendKind::PtxSim
            } else {
                BackendKind::Cuda
            }
        })
    }

    /// Runs one variant of a puzzle's kernel in `lang`, at the teaching size, on its default backend.
    pub fn run(&self, puzzle: &Puzzle, lang: Lang, variant: Variant) -> Result<RunReport, Located> {
        let kernel = puzzle.require_kernel(lang)?;
        let kind = self.default_backend(lang);
        self.run_on(
            kind,
            puzzle,
            variant,
            &kernel.variant(variant),
            &Case::teaching(),
        )
    }

    /// Runs any source (a learner's file, a variant) against a puzzle's spec
    /// at `case`, on backend `kind`.
    ///
    /// A wgpu run is also run on the CPU checker where the checker's word is
    /// needed:
    /// - a puzzle with a `global_access` bound is judged on the checker's
    ///   counts (cheap at teaching sizes, and cached like any run);
    /// - on a CPU adapter (lavapipe), the checker stands behind every
    ///   verdict: lavapipe stops every loop after 65,535 rounds and runs no
    ///   two invocations at once, so an endless loop or a race can pass
    ///   there. Where the checker does not pass the kernel, its report is
    ///   the one returned, saying why (`vouched`).
    ///
    /// CUDA runs on a GPU are not counted: the WGSL version's counts stand
    /// for the puzzle. A run on a checker (either language) is judged on its
    /// own counts ([`execute::run_case`]).
    pub fn run_on(
        &self,
        kind: BackendKind,
        puzzle: &Puzzle,
        variant: Variant,
        source: &SourceText,
        case: &Case,
    ) -> Result<RunReport, Located> {
        let mut report = self.run_once(kind, puzzle, variant, source, case)?;
        if kind != BackendKind::Wgpu || !matches!(report.status, Status::Pass | Status::Fail) {
            return Ok(report);
        }
        let bound = puzzle.spec.raw.global_access;
        let vouch = self.on_cpu_adapter() && cases::checkable(&puzzle.spec, case);
        if bound.is_none() && !vouch {
            return Ok(report);
        }
        let checked = if vouch {
            let open = || Ok(self.adapter_checker());
            let subgroup = self.adapter().subgroup;
            self.run_once_with(
                BackendKind::Sim,
                open,
                (subgroup, false),
                puzzle,
                variant,
                source,
                case,
            )?
        } else {
            self.run_once(BackendKind::Sim, puzzle, variant, source, case)?
        };
        if let Some(bound) = bound {
            report.judge_access(bound, checked.access.as_ref().map(|a| a.counts.clone()));
        }
        Ok(if vouch {
            vouched(report, checked)
        } else {
            report
        })
    }

    /// The checker for a CPU adapter's runs.
    fn adapter_checker(&self) -> &dyn Backend {
        self.adapter_checker
            .get_or_init(|| {
                let checker = open::checker_from_env();
                Box::new(match self.adapter().subgroup {
                    Some(n) => checker.with_subgroup_size(n),
                    None => checker,
                })
            })
            .as_ref()
    }

    /// Whether wgpu runs on a CPU (Mesa's lavapipe) here.
    fn on_cpu_adapter(&self) -> bool {
        self.adapter().cpu
    }

    /// What the WGSL adapter is. Finding out opens wgpu; with a cache, the
    /// answer is kept there (like [`Runner::default_backend`]'s), so a warm
    /// build opens no device.
    fn adapter(&self) -> AdapterFacts {
        *self.adapter_facts.get_or_init(|| {
            let find = || match self.backend(BackendKind::Wgpu) {
                Ok(b) => AdapterFacts {
                    cpu: b.device().kind == "CPU",
                    subgroup: b.subgroup_size(),
                }
                .to_string(),
                Err(_) => AdapterFacts::default().to_string(),
            };
            let known = match &self.cache {
                Some(cache) => cache.remembered("the WGSL adapter: a CPU? its subgroup size", find),
                None => find(),
            };
            AdapterFacts::parse(&known)
        })
    }

    /// `cases` in order (the teaching size, then each stress case, as
    /// [`cases::cases`] lists them), on `kind`, until the first run that
    /// does not pass or through them all.
    pub fn run_cases(
        &self,
        kind: BackendKind,
        puzzle: &Puzzle,
        variant: Variant,
        source: &SourceText,
        cases: Vec<Case>,
        until: Until,
    ) -> Result<Vec<(Case, RunReport)>, Located> {
        cases::run_cases(cases, until, |case| {
            self.run_on(kind, puzzle, variant, source, case)
        })
    }

    /// One run on one backend, through the cache.
    fn run_once(
        &self,
        kind: BackendKind,
        puzzle: &Puzzle,
        variant: Variant,
        source: &SourceText,
        case: &Case,
    ) -> Result<RunReport, Located> {
        let open = || self.backend(kind);
        self.run_once_with(kind, open, (None, false), puzzle, variant, source, case)
    }

    /// `source` (a `lang` kernel) at the teaching size on the CPU checker of
    /// its language, keeping who touched which element
    /// ([`RunReport::accesses`]), for the access diagrams.
    pub fn traced(
        &self,
        puzzle: &Puzzle,
        lang: Lang,
        variant: Variant,
        source: &SourceText,
    ) -> Result<RunReport, Located> {
        let case = Case::teaching();
        let settings = (None, true);
        match lang {
            Lang::Wgsl => {
                let open = || Ok(self.traced_checker());
                self.run_once_with(
                    BackendKind::Sim,
                    open,
                    settings,
                    puzzle,
                    variant,
                    source,
                    &case,
                )
            }
            Lang::Cuda => {
                let open = || self.traced_cuda_checker();
                self.run_once_with(
                    BackendKind::PtxSim,
                    open,
                    settings,
                    puzzle,
                    variant,
                    source,
                    &case,
                )
            }
        }
    }

    /// The checker that traces, opened once.
    fn traced_checker(&self) -> &dyn Backend {
        self.traced_checker
            .get_or_init(|| Box::new(open::checker_from_env().with_trace()))
            .as_ref()
    }

    /// The CUDA checker that traces, opened once, or why it cannot open.
    fn traced_cuda_checker(&self) -> Result<&dyn Backend, &BackendError> {
        self.traced_cuda_checker
            .get_or_init(|| {
                open::cuda_checker_from_env().map(|c| Box::new(c.with_trace()) as Box<dyn Backend>)
            })
            .as_ref()
            .map(|b| b.as_ref())
    }

    /// One run on a backend of `kind`, through the cache: `open` gives the
    /// backend (or the reason it is unavailable) and is called only on a
    /// miss, so a warm build opens no device and loads no compiler.
    /// `checker` is the checker's subgroup size where it is not the
    /// default, and whether it traces.
    #[allow(clippy::too_many_arguments)]
    fn run_once_with<'r>(
        &'r self,
        kind: BackendKind,
        open: impl FnOnce() -> Result<&'r dyn Backend, &'r BackendError>,
        (subgroup, traced): (Option<u32>, bool),
        puzzle: &Puzzle,
        variant: Variant,
        source: &SourceText,
        case: &Case,
    ) -> Result<RunReport, Located> {
        let mut settings = self.settings.for_variant(variant);
        // A debugging case given with a hang is stopped soon: it is known
        // not to end, and the book, the tests and a recording each run it.
        if variant == Variant::Skeleton && puzzle.spec.raw.bug == Some(Finding::Hang) {
            settings.timeout = settings.timeout.min(HANG_CASE_LIMIT);
        }
        let key = RunKey {
            backend: kind,
            subgroup,
            traced,
            spec_text: &puzzle.spec.text,
            source,
            variant,
            stress: case.overrides.as_ref(),
            timing_samples: settings.timing_samples,
            timeout_ms: settings.timeout.as_millis(),
        };
        if let Some(cache) = &self.cache {
            if let Some(hit) = cache.get(&key) {
                return Ok(abridged(hit));
            }
            // Say what a cached build had to run (GPU_PUZZLES_CACHE_TRACE=1).
            if std::env::var_os("GPU_PUZZLES_CACHE_TRACE").is_some() {
                eprintln!(
                    "cache miss: {} {} {variant}",
                    puzzle.id(),
                    kind.lang().label()
                );
            }
        }
        let report = match open() {
            Ok(backend) => execute::run_case(backend, puzzle, variant, source, case, &settings)?,
            Err(error) => {
                let spec = execute::resolve(&puzzle.spec, case, self.settings.memory)?;
                RunReport::new(&spec, kind.lang(), variant, kind, None, Err(error.clone()))
            }
        };
        let Some(cache) = &self.cache else {
            return Ok(report);
        };
        let report = abridged(report);
        // A missing backend or a device failure may be gone next time: not cached.
        if matches!(report.status, Status::Unavailable | Status::Error) {
            self.uncached.store(true, Ordering::Relaxed);
        } else {
            cache.put(&key, &report);
        }
        Ok(report)
    }
}

/// `report` as a page shows it: see [`Runner::with_cache`].
fn abridged(mut report: RunReport) -> RunReport {
    report.printed = printed_head(&report.printed, PRINTED_KEPT);
    for check in &mut report.checks {
        check.abridge(LISTED);
    }
    report
}

/// A lavapipe run and the checker's run of the same kernel, as one report:
/// lavapipe's where the checker passes it too (it has the device's timing);
/// the checker's where it found what lavapipe cannot show (a wrong value, a
/// race, an endless loop), saying so; lavapipe's, with a note, where the
/// checker could not run the kernel at all.
fn vouched(gpu: RunReport, checker: RunReport) -> RunReport {
    // "Vulkan on the CPU (llvmpipe) said FAIL": the adapter as a reader
    // names it, not the engine's whole label.
    let adapter = gpu.device.as_ref().map_or_else(
        || gpu.device_label(),
        |d| {
            let name = d.name.split(" (").next().unwrap_or(&d.name);
            format!("{} on the CPU ({name})", d.api)
        },
    );
    let lavapipe = format!("{adapter} said {}", gpu.status.word());
    let hung = checker
        .error
        .as_ref()
        .is_some_and(|e| e.hang_limit().is_some());
    let sees_more = match (gpu.status, checker.status) {
        (_, Status::Pass) => false,
        // Lavapipe passed what the checker does not.
        (Status::Pass, Status::Fail | Status::CompileError) => true,
        (Status::Pass, Status::Error) => hung,
        // Both failed: the checker's report names a race or a hang, which lavapipe cannot.
        (Status::Fail, _) => !checker.diagnostics.is_empty() || hung,
        _ => false,
    };
    match checker.status {
        Status::Pass => gpu,
        _ if sees_more => {
            let mut report = checker;
            let why = if gpu.status == Status::Pass {
                format!(
                    "Judged by the CPU checker: {lavapipe}, but a CPU adapter stops every loop \
                     after 65,535 rounds and runs no two invocations at the same time, so an \
                     endless loop or a race can pass there"
                )
            } else if report.diagnostics.is_empty() && hung {
                format!(
                    "Reported by the CPU checker, which stops a kernel that does not end (a CPU \
                     adapter cuts every loop off after 65,535 rounds instead); {lavapipe}"
                )
            } else {
                format!("Reported by the CPU checker, which names the lines; {lavapipe} too")
            };
            report.message = Some(match report.message.take() {
                Some(said) => format!("{said}\n{why}"),
                None => why,
            });
            report
        }
        Status::Fail | Status::CompileError => gpu,
        _ => {
            let mut report = gpu;
            let note = format!(
                "The CPU checker could not confirm this run: {}",
                checker
                    .message
                    .unwrap_or_else(|| checker.status.word().into())
            );
            report.message = Some(match report.message.take() {
                Some(said) => format!("{said}\n{note}"),
                None => note,
            });
            report
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is remembered of the adapter reads back as it was written;
    /// anything else (an old or damaged fact) reads as "not a CPU".
    #[test]
    fn adapter_facts_round_trip_table() {
        let cases = [
            AdapterFacts {
                cpu: true,
                subgroup: Some(8),
            },
            AdapterFacts {
                cpu: false,
                subgroup: Some(32),
            },
            AdapterFacts::default(),
        ];
        for facts in cases {
            assert_eq!(AdapterFacts::parse(&facts.to_string()), facts);
        }
        assert_eq!(AdapterFacts::parse("wgpu"), AdapterFacts::default());
    }
}
