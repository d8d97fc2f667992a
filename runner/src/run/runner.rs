//! The engine's runner: opens each backend once, on first use, and makes
//! every run through the core's one path ([`puzzle_core::check::execute`]),
//! looking results up in the result cache first when it has one.
//!
//! The CLI, the chapter tests, the negative fixtures, the learner's loop and
//! the book build all run through a [`Runner`], so they cannot disagree
//! about a result.

use crate::backend::open;
use crate::run::cache::{ResultCache, RunKey};
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::check::cases::{self, Case, Until};
use puzzle_core::check::execute::{self, Settings};
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::run::backend::{Backend, BackendError, BackendKind};
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A backend, opened on first use, or why it could not be.
type LazyBackend = OnceLock<Result<Box<dyn Backend>, BackendError>>;

/// Opens each backend on first use and keeps it for the process. Shareable
/// across threads: the chapter tests run in parallel on one device.
pub struct Runner {
    pub settings: Settings,
    backends: BTreeMap<BackendKind, LazyBackend>,
    /// Book builds reuse earlier results; tests and the CLI always run.
    cache: Option<ResultCache>,
}

impl Runner {
    pub fn new(settings: Settings) -> Runner {
        let backends = BackendKind::ALL
            .iter()
            .map(|&k| (k, OnceLock::new()))
            .collect();
        Runner {
            settings,
            backends,
            cache: None,
        }
    }

    /// A runner that looks results up in `cache` before running, and stores them after.
    pub fn with_cache(settings: Settings, cache: ResultCache) -> Runner {
        Runner {
            cache: Some(cache),
            ..Runner::new(settings)
        }
    }

    /// The backend of this kind, or why it is unavailable.
    pub fn backend(&self, kind: BackendKind) -> Result<&dyn Backend, &BackendError> {
        self.backends[&kind]
            .get_or_init(|| open::open(kind))
            .as_ref()
            .map(|b| b.as_ref())
    }

    /// Where a language runs by default: WGSL on wgpu, or, on a machine with
    /// no Vulkan, Metal or DX12 adapter at all, on the CPU checker, so every
    /// WGSL result is still real; CUDA C on the CUDA backend.
    pub fn default_backend(&self, lang: Lang) -> BackendKind {
        let kind = BackendKind::for_lang(lang);
        if kind == BackendKind::Wgpu && self.backend(kind).is_err() {
            BackendKind::Sim
        } else {
            kind
        }
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
    /// A puzzle with a `global_access` bound has its WGSL runs judged on the
    /// CPU checker's counts: a sim run's own, or, for a wgpu run, those of a
    /// sim run of the same kernel (cheap at teaching sizes, and cached like
    /// any run). CUDA runs are not counted: the WGSL version's counts stand
    /// for the puzzle.
    pub fn run_on(
        &self,
        kind: BackendKind,
        puzzle: &Puzzle,
        variant: Variant,
        source: &SourceText,
        case: &Case,
    ) -> Result<RunReport, Located> {
        let mut report = self.run_once(kind, puzzle, variant, source, case)?;
        if let Some(bound) = puzzle.spec.raw.global_access
            && kind == BackendKind::Wgpu
            && matches!(report.status, Status::Pass | Status::Fail)
        {
            let counted = self.run_once(BackendKind::Sim, puzzle, variant, source, case)?;
            report.judge_access(bound, counted.access.map(|a| a.counts));
        }
        Ok(report)
    }

    /// The teaching size, then (with `stress`) each stress case, on `kind`,
    /// until the first run that does not pass or through them all.
    pub fn run_cases(
        &self,
        kind: BackendKind,
        puzzle: &Puzzle,
        variant: Variant,
        source: &SourceText,
        stress: bool,
        until: Until,
    ) -> Result<Vec<(Case, RunReport)>, Located> {
        cases::run_cases(cases::cases(&puzzle.spec, stress), until, |case| {
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
        let settings = self.settings.for_variant(variant);
        let key = RunKey {
            backend: kind,
            spec_text: &puzzle.spec.text,
            source,
            variant,
            stress: case.overrides.as_ref(),
            timing_samples: settings.timing_samples,
            timeout_ms: settings.timeout.as_millis(),
        };
        if let Some(cache) = &self.cache {
            if let Some(hit) = cache.get(&key) {
                return Ok(hit);
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
        let report = match self.backend(kind) {
            Ok(backend) => execute::run_case(backend, puzzle, variant, source, case, &settings)?,
            Err(error) => {
                let spec = execute::resolve(&puzzle.spec, case)?;
                RunReport::new(&spec, kind.lang(), variant, kind, None, Err(error.clone()))
            }
        };
        // A missing backend or a device failure may be gone next time: not cached.
        if let Some(cache) = &self.cache
            && !matches!(report.status, Status::Unavailable | Status::Error)
        {
            cache.put(&key, &report);
        }
        Ok(report)
    }
}
