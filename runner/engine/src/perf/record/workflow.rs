//! `runner record`: every puzzle run on the GPUs at hand, and the
//! benchmarks at each spec's `bench` sizes, written to one recording file
//! per device ([`super::schema`], through [`super::store`]).
//!
//! What happens on the way comes back as [`Progress`] events for the caller
//! to show; nothing here prints.

use crate::child::job::{BenchRequest, ChildJob};
use crate::child::process::{ChildError, Worker};
use crate::perf::bench::BenchReport;
use crate::perf::calibrate::{self, Ceilings};
use crate::perf::date::today;
use crate::perf::record::schema::{BenchEntry, Entry, Recording, entry_hashes, file_stem};
use crate::perf::record::store::{self, StoreError};
use crate::perf::roofline;
use crate::run::runner::Runner;
use puzzle_core::assess::cases::Case;
use puzzle_core::backend_contract::backend::{BackendError, BackendKind};
use puzzle_core::chapter::book::{Book, NoSuchPuzzle};
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::judge::abridge::LISTED;
use puzzle_core::judge::report::{PRINTED_KEPT, RunReport, Status, printed_head};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::Located;
use puzzle_core::spec::expr::Constants;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a recording could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    NoSuchPuzzle(#[from] NoSuchPuzzle),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Puzzle(#[from] Located),
}

/// Why one benchmark in a child process ([`bench_in_child`]) has no report.
#[derive(Debug, thiserror::Error)]
enum ChildBenchError {
    #[error(transparent)]
    Child(#[from] ChildError),
    /// The child's answer: its [`crate::perf::bench::ServeError`], in words.
    #[error("{0}")]
    Failed(String),
    /// The spec at the benchmark's size, to place it under the ceilings.
    #[error(transparent)]
    Puzzle(#[from] Located),
}

/// What a recording reports as it goes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A backend here that is not a GPU running kernels, or is missing.
    Skipped {
        kind: BackendKind,
        why: String,
    },
    CalibrationFailed {
        kind: BackendKind,
        error: BackendError,
    },
    Ran {
        puzzle: &'a str,
        lang: Lang,
        variant: Variant,
        status: Status,
    },
    Benched(&'a BenchReport),
    BenchFailed {
        puzzle: &'a str,
        lang: Lang,
        error: &'a str,
    },
}

impl fmt::Display for Progress<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::Skipped { kind, why } => write!(f, "skipping {kind}: {why}"),
            Progress::CalibrationFailed { kind, error } => {
                write!(f, "calibrating {kind} failed: {error}")
            }
            Progress::Ran {
                puzzle,
                lang,
                variant,
                status,
            } => write!(f, "{puzzle} {} {variant}: {}", lang.label(), status.word()),
            Progress::Benched(report) => write!(f, "bench {}", report.to_text().trim_end()),
            Progress::BenchFailed {
                puzzle,
                lang,
                error,
            } => write!(f, "bench {puzzle} {}: FAILED: {error}", lang.label()),
        }
    }
}

/// Runs every puzzle (or those in `only`, keeping the file's other entries) on
/// every backend that runs kernels here (or those in `backends`), and writes
/// a file per device. The file's benchmarks are all kept: [`record_benches`],
/// which comes after, once the caller has closed every backend of this
/// process, replaces each puzzle's as it reaches it, so that a session cut
/// short before a puzzle's benchmarks loses none of them.
pub fn record(
    book: &Book,
    runner: &Runner,
    dir: &Path,
    only: &[String],
    backends: &[BackendKind],
    progress: &mut dyn FnMut(Progress),
) -> Result<Vec<PathBuf>, RecordError> {
    for id in only {
        book.find(id)?;
    }
    let chosen = |p: &&Puzzle| is_chosen(only, p.id());
    let mut written = Vec::new();
    for kind in BackendKind::ALL {
        if !backends.is_empty() && !backends.contains(&kind) {
            continue;
        }
        let backend = match runner.backend(kind) {
            Ok(b) if b.runs_kernels() && b.device().kind == "GPU" => b,
            Ok(b) => {
                let why = format!("{} is not a GPU that runs kernels", b.device().label());
                progress(Progress::Skipped { kind, why });
                continue;
            }
            Err(e) => {
                progress(Progress::Skipped {
                    kind,
                    why: e.to_string(),
                });
                continue;
            }
        };
        let lang = kind.lang();
        // The ceilings first, on an idle device, so every figure has its roof.
        let ceilings = match calibrate::calibrate(backend, 20) {
            Ok(c) => Some(c),
            Err(error) => {
                progress(Progress::CalibrationFailed { kind, error });
                None
            }
        };
        // One file per number of GPUs a run takes: a puzzle of Part VII,
        // run on 2 GPUs, is filed under "2 × <GPU>", beside the one-GPU file.
        // Its teaching runs go where its teaching size puts them; a bench
        // case on 4 GPUs (`RANKS: 4`) makes a "4 × <GPU>" file for itself.
        let mut by_gpus: BTreeMap<u32, Vec<&Puzzle>> = BTreeMap::new();
        for puzzle in book.puzzles.iter().filter(chosen) {
            let cases = puzzle.spec.bench_cases();
            let counts = std::iter::once(Constants::default())
                .chain(cases)
                .map(|case| puzzle.spec.gpus(&case));
            for gpus in counts.collect::<BTreeSet<u32>>() {
                by_gpus.entry(gpus).or_default().push(puzzle);
            }
        }
        for (gpus, puzzles) in by_gpus {
            let device = backend.device().with_gpus(gpus);
            if gpus as usize > backend.gpus() {
                let why = format!(
                    "{} needs {gpus} GPUs that reach each other's memory; {} here",
                    puzzles
                        .iter()
                        .map(|p| p.id())
                        .collect::<Vec<_>>()
                        .join(", "),
                    match backend.gpus() {
                        1 => "1 GPU".to_string(),
                        n => format!("{n} do"),
                    }
                );
                progress(Progress::Skipped { kind, why });
                continue;
            }
            let path = dir.join(format!("{}.json", file_stem(&device)));
            let (mut entries, benches) = match store::read(&path)? {
                Some(old) if !only.is_empty() => (
                    old.entries
                        .into_iter()
                        .filter(|e| !is_chosen(only, &e.puzzle))
                        .collect(),
                    old.benches,
                ),
                _ => (Vec::new(), Vec::new()),
            };
            let taught_here = |p: &&&Puzzle| p.spec.gpus(&Constants::default()) == gpus;
            for puzzle in puzzles.iter().filter(taught_here) {
                for variant in [Variant::Solution, Variant::Skeleton] {
                    let Some((spec_hash, source_hash)) = entry_hashes(puzzle, lang, variant) else {
                        continue;
                    };
                    let source = puzzle.require_kernel(lang)?.variant(variant);
                    let report =
                        runner.run_on(kind, puzzle, variant, &source, &Case::teaching())?;
                    progress(Progress::Ran {
                        puzzle: puzzle.id(),
                        lang,
                        variant,
                        status: report.status,
                    });
                    entries.push(Entry {
                        puzzle: puzzle.id().into(),
                        lang,
                        variant,
                        spec_hash,
                        source_hash,
                        report: slim(report),
                    });
                }
            }
            let recording = Recording {
                awaiting: vec![],
                device,
                date: today(),
                runner_version: env!("CARGO_PKG_VERSION").into(),
                ceilings: ceilings.clone(),
                entries,
                benches,
            };
            store::write(&path, &recording)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// `puzzle`'s benchmarks in `benches` replaced by `fresh`, every other
/// puzzle's left as they were.
fn replace_benches(benches: &mut Vec<BenchEntry>, puzzle: &str, fresh: Vec<BenchEntry>) {
    benches.retain(|e| e.puzzle != puzzle);
    benches.extend(fresh);
}

/// Whether `runner record --only …` takes puzzle `id` (every puzzle when `only` is empty).
fn is_chosen(only: &[String], id: &str) -> bool {
    only.is_empty() || only.iter().any(|o| o == id)
}

/// A report as a recording keeps it: every verdict, message, shape, time and
/// count, and of a long output its head and tail (what a page shows of a
/// local run too). The performance chapters' 16,384-element outputs would
/// otherwise make each file megabytes.
fn slim(mut report: RunReport) -> RunReport {
    report.printed = printed_head(&report.printed, PRINTED_KEPT);
    for check in &mut report.checks {
        check.abridge(LISTED);
    }
    report
}

/// Benchmarks every `bench` case of the puzzles in `only` (all when empty) on
/// the device of each recording file in `files`, each in a process of its
/// own, and stores them in the file (replacing those puzzles' old ones).
///
/// Call it with no backend open in this process: on the H100's Vulkan driver,
/// a benchmark that shared the GPU with the recording process's own (idle)
/// device, or ran inside it after the teaching runs, came out up to 5 times
/// slower than the same benchmark run alone (a 2^26-element convolution:
/// 2.08 ms inside `record`, 0.435 ms alone).
pub fn record_benches(
    book: &Book,
    files: &[PathBuf],
    only: &[String],
    progress: &mut dyn FnMut(Progress),
) -> Result<(), RecordError> {
    let chosen = |p: &&Puzzle| is_chosen(only, p.id());
    for path in files {
        let Some(mut recording) = store::read(path)? else {
            continue;
        };
        let kind = recording.device.backend;
        let lang = kind.lang();
        // A file of runs on n GPUs benchmarks the cases that take n.
        let gpus = recording.device.gpus();
        for puzzle in book.puzzles.iter().filter(chosen) {
            let Some((spec_hash, source_hash)) = entry_hashes(puzzle, lang, Variant::Solution)
            else {
                continue;
            };
            let mut fresh = Vec::new();
            let cases = puzzle.spec.bench_cases().into_iter();
            for case in cases.filter(|case| puzzle.spec.gpus(case) == gpus) {
                // A recording keeps a failure in words (see `BenchEntry::outcome`).
                let outcome =
                    bench_in_child(book, puzzle, kind, &case, recording.ceilings.as_ref())
                        .map_err(|e| e.to_string());
                match &outcome {
                    Ok(report) => progress(Progress::Benched(report)),
                    Err(error) => progress(Progress::BenchFailed {
                        puzzle: puzzle.id(),
                        lang,
                        error,
                    }),
                }
                fresh.push(BenchEntry {
                    puzzle: puzzle.id().into(),
                    lang,
                    case,
                    spec_hash: spec_hash.clone(),
                    source_hash: source_hash.clone(),
                    outcome,
                    date: Some(today()),
                });
            }
            // A puzzle's old benchmarks give way only to its new ones, and
            // the file is written after each puzzle: a session cut short
            // keeps what it timed and every recording it did not reach.
            replace_benches(&mut recording.benches, puzzle.id(), fresh);
            store::write(path, &recording)?;
        }
        store::write(path, &recording)?;
    }
    Ok(())
}

/// Timed samples and warm-up runs of a recorded benchmark.
const BENCH_SAMPLES: usize = 20;
const BENCH_WARMUP: usize = 5;
/// Seconds one benchmark case may take, and how much longer its process may live.
const BENCH_TIMEOUT: u64 = 120;
const BENCH_PROCESS_SLACK: u64 = 600;

/// Benchmarks one `bench` case in a process of its own, and places it under
/// `ceilings` (those this recording measured).
///
/// A process of its own, so that nothing one benchmark leaves behind in the
/// driver reaches the next (see [`record_benches`]).
fn bench_in_child(
    book: &Book,
    puzzle: &Puzzle,
    kind: BackendKind,
    case: &Constants,
    ceilings: Option<&Ceilings>,
) -> Result<BenchReport, ChildBenchError> {
    let job = ChildJob::Bench(BenchRequest {
        book: book.root.clone(),
        puzzle: puzzle.id().to_string(),
        backend: kind,
        case: case.clone(),
        samples: BENCH_SAMPLES,
        warmup: BENCH_WARMUP,
        timeout_seconds: BENCH_TIMEOUT,
    });
    let limit = Duration::from_secs(BENCH_TIMEOUT + BENCH_PROCESS_SLACK);
    let mut worker = Worker::start()?;
    let reply = worker
        .run::<Result<BenchReport, String>>(&job, &[], limit)?
        .reply;
    let mut report = reply.map_err(ChildBenchError::Failed)?;
    let spec = puzzle.spec.sized(case)?;
    report.placement = roofline::place(&spec, report.timing.median_ms, ceilings);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_keep_head_tail_and_counts() {
        let check = |n: usize, unwritten: usize| puzzle_core::judge::verify::BufferCheck {
            name: "out".into(),
            dtype: puzzle_core::spec::data::Dtype::F32,
            tolerance: None,
            shape: vec![n],
            got: (0..n)
                .map(|i| (i >= unwritten).then_some(i as f64))
                .collect(),
            expected: (0..n).map(|i| i as f64).collect(),
            wrong: vec![],
            unwritten: (0..unwritten).collect(),
            from_poison: None,
            out_of_bounds: vec![],
            judged: true,
            abridged: None,
        };
        let mut report: RunReport =
            serde_json::from_str(r#"{"puzzle":"p","lang":"wgsl","variant":"solution","backend":"wgpu","device":null,"status":"fail","diagnostics":[],"message":null,"timing":null,"checks":[]}"#)
                .unwrap();
        let whole = [check(8, 8), check(1000, 192)];
        report.checks = whole.to_vec();
        let slim = slim(report);
        let (small, large) = (&slim.checks[0], &slim.checks[1]);
        // A short output is kept whole.
        assert_eq!(small, &whole[0]);
        // A long one reads as the whole does: same values shown, same problems.
        assert_eq!(large.shown_values(), whole[1].shown_values());
        assert_eq!(large.problems(), whole[1].problems());
        assert!(
            large.problems()[0].starts_with("192 of 1000 elements"),
            "{:?}",
            large.problems()
        );
        assert!(large.got.len() < 64 && large.unwritten.len() <= LISTED);
        assert!(!large.passed(), "the verdict survives");
        // The first wrong value is kept even when it lies in the part left out.
        let mut wrong = whole[1].clone();
        wrong.unwritten.clear();
        wrong.got = (0..1000).map(|i| Some(i as f64)).collect();
        wrong.got[500] = Some(-1.0);
        wrong.wrong = vec![500];
        let want = wrong.problems();
        wrong.abridge(LISTED);
        assert_eq!(wrong.problems(), want);
        assert!(
            want[0].contains("first: out[500] is -1.0, expected 500.0"),
            "{want:?}"
        );
    }

    /// (case, the file's benchmarks as (puzzle, date), the puzzle re-timed,
    /// its new ones, what the file holds after)
    #[test]
    fn a_puzzle_s_benchmarks_give_way_only_to_its_new_ones_table() {
        let bench = |puzzle: &str, date: &str| BenchEntry {
            puzzle: puzzle.into(),
            lang: puzzle_core::lang::Lang::Cuda,
            case: Constants::default(),
            spec_hash: String::new(),
            source_hash: String::new(),
            outcome: Err("not timed".into()),
            date: Some(date.into()),
        };
        type Row<'a> = (
            &'a str,
            Vec<(&'a str, &'a str)>,
            &'a str,
            Vec<&'a str>,
            Vec<(&'a str, &'a str)>,
        );
        let cases: Vec<Row> = vec![
            (
                "the others are kept, the puzzle's old ones replaced",
                vec![("a", "old"), ("b", "old"), ("b", "old"), ("c", "old")],
                "b",
                vec!["new"],
                vec![("a", "old"), ("c", "old"), ("b", "new")],
            ),
            (
                "a puzzle never timed before is added",
                vec![("a", "old")],
                "z",
                vec!["new", "new"],
                vec![("a", "old"), ("z", "new"), ("z", "new")],
            ),
            (
                "a puzzle with no bench case left keeps none",
                vec![("a", "old"), ("b", "old")],
                "a",
                vec![],
                vec![("b", "old")],
            ),
        ];
        for (case, before, puzzle, fresh, after) in cases {
            let mut benches: Vec<BenchEntry> = before.iter().map(|(p, d)| bench(p, d)).collect();
            replace_benches(
                &mut benches,
                puzzle,
                fresh.iter().map(|d| bench(puzzle, d)).collect(),
            );
            let got: Vec<(&str, &str)> = benches
                .iter()
                .map(|e| (e.puzzle.as_str(), e.date.as_deref().unwrap_or("")))
                .collect();
            assert_eq!(got, after, "{case}");
        }
    }
}
