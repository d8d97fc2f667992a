//! The one path from a kernel to its report. Every run of every front end
//! (the learner's check, `runner run`, the chapter tests, the book build,
//! benchmarks, calibration and the browser) goes through [`execute`], so
//! none of them can disagree about what a run is or how it is judged.

use crate::assess::cases::Case;
use crate::backend_contract::backend::{Backend, Job};
use crate::backend_contract::outcome::Outcome;
use crate::chapter::puzzle::Puzzle;
use crate::judge::report::{RunReport, Status};
use crate::kernel::constants;
use crate::kernel::cut::Variant;
use crate::kernel::includes::MAX_SOURCE_BYTES;
use crate::source::diag::Located;
use crate::source::text::SourceText;
use crate::spec::model::Spec;
use crate::spec::resolve::PuzzleSpec;
use std::time::Duration;

/// How runs are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Timed repetitions after the checked run (0: no timing).
    pub timing_samples: usize,
    /// Untimed repetitions between the checked run and the timed ones.
    pub warmup: usize,
    /// Copies of every buffer the timed runs rotate through (1: no rotation).
    pub buffer_sets: usize,
    /// A kernel still running after this long is reported as hung.
    pub timeout: Duration,
    /// Memory a run may take to set up its buffers and check them (the
    /// engine gives half of what the machine has free; None: no limit known).
    /// A case that needs more is refused at its line before anything is allocated.
    pub memory: Option<u64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            timing_samples: 10,
            warmup: 0,
            buffer_sets: 1,
            timeout: Duration::from_secs(10),
            memory: None,
        }
    }
}

impl Settings {
    /// These settings for a run of `variant`: a skeleton is run to show
    /// what it prints, not how fast it is, so it is not timed.
    pub fn for_variant(&self, variant: Variant) -> Settings {
        let mut settings = self.clone();
        if variant == Variant::Skeleton {
            settings.timing_samples = 0;
            settings.warmup = 0;
        }
        settings
    }
}

/// Runs `source` against the resolved `spec` on `backend`: the spec's
/// constants written into the kernel's own definitions of them, the run
/// made, and what came back judged against the spec.
pub fn execute(
    backend: &dyn Backend,
    spec: &Spec,
    variant: Variant,
    source: &SourceText,
    settings: &Settings,
) -> RunReport {
    let kind = backend.kind();
    let lang = kind.lang();
    let device = Some(backend.device().with_gpus(spec.gpus));
    // A compiler can take minutes over a huge source (naga's compaction is
    // quadratic): refused before it starts, at the line past the limit.
    if source.text.len() > MAX_SOURCE_BYTES {
        let line = source.text.as_bytes()[..MAX_SOURCE_BYTES]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        let too_long = source.locate(
            line,
            format!(
                "the kernel passes {} KiB of text here; kernels are limited to that",
                MAX_SOURCE_BYTES >> 10
            ),
        );
        let outcome = Ok(Outcome::CompileFailed(vec![too_long]));
        return RunReport::new(spec, lang, variant, kind, device, outcome);
    }
    // A stress or benchmark case may change a tile size the kernel defines too.
    let source = constants::apply(source, lang, &spec.constants);
    let job = Job {
        spec,
        source: &source,
        timing_samples: settings.timing_samples,
        warmup: settings.warmup,
        buffer_sets: settings.buffer_sets.max(1),
        timeout: settings.timeout,
    };
    let outcome = backend.run(&job);
    RunReport::new(spec, lang, variant, kind, device, outcome)
}

/// The spec of `puzzle` at `case`: the teaching size as written, or a
/// stress case with random inputs and the CPU reference's expected values.
/// A case whose buffers would not fit in `memory` is refused first, at the
/// stress case's line.
pub fn resolve(puzzle: &PuzzleSpec, case: &Case, memory: Option<u64>) -> Result<Spec, Located> {
    if let Some(memory) = memory {
        let overrides = case.overrides.clone().unwrap_or_default();
        puzzle.fits(&overrides, memory).map_err(|mut e| {
            if let Some(line) = case.line {
                e.line = line;
                e.message = format!("stress case: {}", e.message);
            }
            e
        })?;
    }
    match &case.overrides {
        None => puzzle.resolve(&Default::default()),
        Some(overrides) => puzzle.resolve_stress(overrides),
    }
}

/// One run of `source` against `puzzle` at `case`, judged, and judged on
/// its global-memory traffic too where the puzzle bounds it and the backend
/// counted it (the CPU checker does).
pub fn run_case(
    backend: &dyn Backend,
    puzzle: &Puzzle,
    variant: Variant,
    source: &SourceText,
    case: &Case,
    settings: &Settings,
) -> Result<RunReport, Located> {
    let spec = resolve(&puzzle.spec, case, settings.memory)?;
    let mut report = execute(
        backend,
        &spec,
        variant,
        source,
        &settings.for_variant(variant),
    );
    if let Some(bound) = puzzle.spec.raw.global_access
        && report.access.is_some()
        && matches!(report.status, Status::Pass | Status::Fail)
    {
        report.judge_access(bound, None);
    }
    Ok(report)
}
