//! `runner bench`: a puzzle's solution, or a learner's own kernel, timed at
//! any size, with the roofline figures that make the time mean something.
//!
//! Warm-up runs absorb compilation, clocks and caches; then N timed samples
//! are taken with the device's timer. When the data would fit in the
//! last-level cache, the timed runs rotate through several copies of every
//! buffer, so the cache does not flatter the figure. The inputs have full
//! mantissas ([`crate::perf::inputs`]), the data a library is timed on too;
//! the result is checked against the CPU reference when that is cheap
//! enough to compute, within the output type's tolerance of its largest
//! value ([`verify::close_at_scale`]).

use crate::backend::open;
use crate::book::load;
use crate::child::job::BenchRequest;
use crate::perf::calibrate::Ceilings;
use crate::perf::inputs::BenchInputs;
use crate::perf::roofline::{self, Placement};
use crate::run::memory_budget;
use puzzle_core::assess::execute::{Settings, execute};
use puzzle_core::backend_contract::backend::{Backend, BackendError, DeviceInfo};
use puzzle_core::backend_contract::timing::{Timing, format_ms};
use puzzle_core::chapter::book::NoSuchPuzzle;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::judge::report::Status;
use puzzle_core::judge::verify;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::quantity::thousands;
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::expr::Constants;
use puzzle_core::spec::reference;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The CPU reference is run for checking only below this many operations.
const CHECK_BUDGET: f64 = 2e9;
/// Rotation never takes more than this much device memory in all.
const ROTATION_MEMORY: u64 = 4 << 30;

#[derive(Debug, Clone)]
pub struct Options {
    /// Constants to change from the spec's, e.g. SIZE = 1 << 24.
    pub overrides: Constants,
    pub samples: usize,
    pub warmup: usize,
    pub timeout: Duration,
    /// Buffer sets to rotate through; `None` sizes the rotation by the cache.
    pub buffer_sets: Option<usize>,
    /// A learner's own kernel (`runner bench --file`); `None` times the
    /// book's solution.
    pub file: Option<SourceText>,
}

/// Whether the benchmark's output was checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Checked {
    Passed,
    Failed(Vec<String>),
    /// Not checked, and why (the reference would take too long).
    Skipped(String),
    /// Too large for the whole reference, so checked at `outputs` of its
    /// `of` output elements, spread over the whole output; all matched.
    Sampled {
        outputs: usize,
        of: usize,
    },
}

impl Checked {
    /// How the check came out, in a few words for a table.
    pub fn summary(&self) -> String {
        match self {
            Checked::Passed => "✔ matches the CPU reference".into(),
            Checked::Failed(problems) => format!("✘ WRONG: {}", problems.join("; ")),
            Checked::Skipped(why) => format!("not checked ({why})"),
            Checked::Sampled { outputs, of } => format!(
                "✔ matches the CPU reference at {} of {} outputs (sampled)",
                thousands(*outputs as u64),
                thousands(*of as u64)
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    pub puzzle: String,
    pub device: DeviceInfo,
    pub constants: Constants,
    pub timing: Timing,
    /// Copies of the buffers the timed runs rotated through.
    pub buffer_sets: usize,
    /// Bytes of all buffers of one set.
    pub footprint_bytes: u64,
    pub placement: Placement,
    pub checked: Checked,
    /// What the kernel was timed on (absent in reports made before it was
    /// kept, whose inputs were quarters: no library is compared with them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<BenchInputs>,
}

/// How many buffer sets keep `footprint` bytes out of a `cache` of that many bytes.
pub fn buffer_sets(footprint: u64, cache: Option<u64>) -> usize {
    let Some(cache) = cache else { return 1 };
    if footprint == 0 {
        return 1;
    }
    // Twice the cache in all, so a set is long evicted when its turn comes again.
    let wanted = (2 * cache).div_ceil(footprint);
    let affordable = (ROTATION_MEMORY / footprint).max(1);
    wanted.clamp(1, affordable.min(64)) as usize
}

/// Times a puzzle's solution (or [`Options::file`]) on `backend`.
pub fn bench(
    puzzle: &Puzzle,
    backend: &dyn Backend,
    options: &Options,
    ceilings: Option<&Ceilings>,
) -> Result<Result<BenchReport, BackendError>, Located> {
    let lang = backend.kind().lang();
    let kernel = puzzle.require_kernel(lang)?;
    // A size this machine cannot hold is refused before anything is allocated.
    if let Some(memory) = memory_budget::budget() {
        puzzle.spec.fits(&options.overrides, memory)?;
    }
    let mut spec = puzzle.spec.resolve_bench(&options.overrides)?;
    let inputs = BenchInputs::of(&spec);
    let cost = spec
        .flops
        .map(|f| f as f64)
        .unwrap_or_else(|| spec.buffers().map(|b| b.len() as f64).sum());
    let check = cost <= CHECK_BUDGET;
    if check {
        spec = puzzle.spec.with_reference(spec)?;
    }
    let footprint: u64 = spec
        .buffers()
        .map(|b| (b.len() * b.dtype.size()) as u64)
        .sum();
    let sets = options
        .buffer_sets
        .unwrap_or_else(|| buffer_sets(footprint, backend.last_level_cache_bytes()))
        .max(1);
    let settings = Settings {
        timing_samples: options.samples.max(1),
        warmup: options.warmup,
        buffer_sets: sets,
        timeout: options.timeout,
        memory: None,
    };
    let (variant, source) = match &options.file {
        Some(file) => (Variant::File, file.clone()),
        None => (Variant::Solution, kernel.variant(Variant::Solution)),
    };
    let report = execute(backend, &spec, variant, &source, &settings);
    let said = || report.message.clone().unwrap_or_default();
    match report.status {
        Status::Pass | Status::Fail => {}
        Status::CompileError => {
            let text: Vec<String> = report.diagnostics.iter().map(ToString::to_string).collect();
            return Ok(Err(BackendError::Launch(format!(
                "the {} did not compile: {}",
                match variant {
                    Variant::File => "kernel",
                    _ => "solution",
                },
                text.join("; ")
            ))));
        }
        Status::Compiled => return Ok(Err(BackendError::Launch(said()))),
        Status::Unavailable | Status::Error => {
            return Ok(Err(report
                .error
                .clone()
                .unwrap_or_else(|| BackendError::Device(said()))));
        }
    }
    let Some(timing) = report.timing.clone() else {
        return Ok(Err(BackendError::Device("no timing came back".into())));
    };
    let checked = if check {
        let mut problems: Vec<String> = report
            .checks
            .iter()
            .cloned()
            .flat_map(|mut check| {
                check.rejudge_at_scale();
                check.problems()
            })
            .collect();
        problems.extend(report.diagnostics.iter().map(ToString::to_string));
        if problems.is_empty() {
            Checked::Passed
        } else {
            Checked::Failed(problems)
        }
    } else if let Some((output, sample)) = reference::sampled(&spec, CHECK_BUDGET) {
        let of = spec.outputs().map(|b| b.len()).sum();
        match verify::check_sample(&spec, &report.checks, output, &sample, true) {
            problems if problems.is_empty() => Checked::Sampled {
                outputs: sample.len(),
                of,
            },
            problems => Checked::Failed(problems),
        }
    } else {
        Checked::Skipped(format!(
            "the CPU reference would take {cost:.1e} operations; checked only below {CHECK_BUDGET:.0e}"
        ))
    };
    Ok(Ok(BenchReport {
        puzzle: puzzle.id().into(),
        device: backend.device().clone(),
        constants: spec.constants.clone(),
        placement: roofline::place(&spec, timing.median_ms, ceilings),
        timing,
        buffer_sets: sets,
        footprint_bytes: footprint,
        checked,
        inputs: Some(inputs),
    }))
}

/// Why a benchmark asked of a child process ([`serve`]) has no report.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The book does not load: each of its problems, a line each.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Book(Vec<Located>),
    #[error(transparent)]
    NoSuchPuzzle(#[from] NoSuchPuzzle),
    /// The spec at the asked size, or the solution's kernel.
    #[error(transparent)]
    Puzzle(#[from] Located),
    #[error(transparent)]
    Backend(#[from] BackendError),
}

/// A benchmark asked of a child process ([`crate::child::job::BenchRequest`]):
/// the book read again, the backend opened afresh, nothing shared with the
/// process that asked. Placed under no ceilings: the asker has them.
pub fn serve(request: &BenchRequest) -> Result<BenchReport, ServeError> {
    let book = load::load(&request.book).map_err(ServeError::Book)?;
    let puzzle = book.find(&request.puzzle)?;
    let backend = open::open(request.backend, None)?;
    let options = Options {
        overrides: request.case.clone(),
        samples: request.samples,
        warmup: request.warmup,
        timeout: Duration::from_secs(request.timeout_seconds),
        buffer_sets: None,
        file: None,
    };
    let report = bench(puzzle, backend.as_ref(), &options, None)??;
    Ok(report)
}

impl BenchReport {
    /// The text `runner bench` prints.
    pub fn to_text(&self) -> String {
        let mut lines = Vec::new();
        let sizes: Vec<String> = self
            .constants
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        lines.push(format!(
            "{} on {} ({})",
            self.puzzle,
            self.device.label(),
            sizes.join(", ")
        ));
        if self.device.kind == "CPU" {
            lines.push(
                "  note: this adapter is a CPU (lavapipe): these figures measure the CPU, not a GPU"
                    .into(),
            );
        }
        let t = &self.timing;
        lines.push(format!(
            "  device time: {} median, {} min, spread {:.1}% over {} samples",
            format_ms(t.median_ms),
            format_ms(t.min_ms),
            t.spread_pct(),
            t.samples
        ));
        if let Some(wall) = t.wall_median_ms {
            lines.push(format!(
                "  wall time:   {} median per run (host submit to finish)",
                format_ms(wall)
            ));
        }
        lines.push(format!(
            "  buffers: {} bytes a set, {} set(s) rotated",
            self.footprint_bytes, self.buffer_sets
        ));
        lines.extend(self.placement.lines().into_iter().map(|l| format!("  {l}")));
        if let Some(inputs) = &self.inputs {
            lines.push(format!(
                "  inputs: {} (digest {})",
                inputs.distribution,
                &inputs.digest[..inputs.digest.len().min(16)]
            ));
        }
        lines.push(format!("  output: {}", self.checked.summary()));
        lines.join("\n") + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_table() {
        let mib = 1u64 << 20;
        let cases = [
            (4 * mib, None, 1),
            (4 * mib, Some(50 * mib), 25),
            (1, Some(50 * mib), 64),
            (200 * mib, Some(50 * mib), 1),
            (60 * mib, Some(50 * mib), 2),
            (3 << 30, Some(50 * mib), 1),
        ];
        for (footprint, cache, want) in cases {
            assert_eq!(buffer_sets(footprint, cache), want, "{footprint} {cache:?}");
        }
    }
}
