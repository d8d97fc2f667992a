//! Running puzzles: opens backends once, runs a kernel variant, builds its report.
//!
//! This is the one path every front end takes (CLI, chapter tests,
//! preprocessor), so they cannot disagree about a result.

use crate::backend::{self, Backend, BackendError, BackendKind, Job};
use crate::book::Puzzle;
use crate::cache::{ResultCache, RunKey};
use crate::diag::Located;
use crate::expr::Constants;
use crate::kernel::{Lang, Variant};
use crate::kernel_constants;
use crate::report::{RunReport, Status};
use crate::source::SourceText;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

/// How runs are made.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Timed repetitions after the checked run.
    pub timing_samples: usize,
    pub timeout: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            timing_samples: 10,
            timeout: Duration::from_secs(10),
        }
    }
}

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
            .get_or_init(|| backend::open(kind))
            .as_ref()
            .map(|b| b.as_ref())
    }

    /// Runs one variant of a puzzle's kernel in `lang`.
    pub fn run(&self, puzzle: &Puzzle, lang: Lang, variant: Variant) -> Result<RunReport, Located> {
        let kernel = puzzle.require_kernel(lang)?;
        self.run_source(puzzle, lang, variant, &kernel.variant(variant), None)
    }

    /// Runs any source (a learner's file, a variant) against a puzzle's spec:
    /// at the teaching size, or as a stress run with the constants in `stress`
    /// changed (random inputs, expected values from the CPU reference).
    pub fn run_source(
        &self,
        puzzle: &Puzzle,
        lang: Lang,
        variant: Variant,
        source: &SourceText,
        stress: Option<&Constants>,
    ) -> Result<RunReport, Located> {
        self.run_source_on(self.default_backend(lang), puzzle, variant, source, stress)
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

    /// [`Runner::run_source`] on a chosen backend (`sim` instead of `wgpu` for WGSL).
    ///
    /// A puzzle with a `global_access` bound has its WGSL runs judged on the
    /// CPU checker's counts: a sim run's own, or, for a wgpu run, those of a
    /// sim run of the same kernel (cheap at teaching sizes, and cached like
    /// any run). CUDA runs are not counted: the WGSL version's counts stand
    /// for the puzzle.
    pub fn run_source_on(
        &self,
        kind: BackendKind,
        puzzle: &Puzzle,
        variant: Variant,
        source: &SourceText,
        stress: Option<&Constants>,
    ) -> Result<RunReport, Located> {
        let mut report = self.run_once(kind, puzzle, variant, source, stress)?;
        let Some(bound) = puzzle.spec.raw.global_access else {
            return Ok(report);
        };
        let ran = matches!(report.status, Status::Pass | Status::Fail);
        let counts = match kind {
            BackendKind::Sim => None,
            BackendKind::Wgpu if ran => self
                .run_once(BackendKind::Sim, puzzle, variant, source, stress)?
                .access
                .map(|a| a.counts),
            _ => return Ok(report),
        };
        report.judge_access(bound, counts);
        Ok(report)
    }

    /// One run on one backend, through the cache, judged on its outputs and hazards.
    fn run_once(
        &self,
        kind: BackendKind,
        puzzle: &Puzzle,
        variant: Variant,
        source: &SourceText,
        stress: Option<&Constants>,
    ) -> Result<RunReport, Located> {
        let lang = kind.lang();
        let spec = match stress {
            None => puzzle.spec.resolve(&Constants::new())?,
            Some(case) => puzzle.spec.resolve_stress(case)?,
        };
        // A skeleton is run to show what it prints, not how fast it is.
        let timing_samples = if variant == Variant::Skeleton {
            0
        } else {
            self.settings.timing_samples
        };
        let key = RunKey {
            backend: kind,
            spec_text: &puzzle.spec.text,
            source,
            variant,
            stress,
            timing_samples,
            timeout_ms: self.settings.timeout.as_millis(),
        };
        if let Some(cache) = &self.cache {
            if let Some(hit) = cache.get(&key) {
                return Ok(hit);
            }
            // Say what a cached build had to run (GPU_PUZZLES_CACHE_TRACE=1).
            if std::env::var_os("GPU_PUZZLES_CACHE_TRACE").is_some() {
                eprintln!("cache miss: {} {} {variant}", puzzle.id(), lang.label());
            }
        }
        let report = match self.backend(kind) {
            Ok(backend) => {
                // A stress case may change a tile size the kernel defines too.
                let source = kernel_constants::apply(source, lang, &spec.constants);
                let job = Job::new(&spec, &source, timing_samples, self.settings.timeout);
                RunReport::new(
                    &spec,
                    lang,
                    variant,
                    kind,
                    Some(backend.device().clone()),
                    backend.run(&job),
                )
            }
            Err(error) => RunReport::new(&spec, lang, variant, kind, None, Err(error.clone())),
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
