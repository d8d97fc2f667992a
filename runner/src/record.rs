//! Recorded GPU results: what a run on a real GPU produced, committed to the
//! repository, so a book built anywhere can show it.
//!
//! `runner record` runs every puzzle's solution and skeleton on the backends
//! of the machine at hand and writes one file per device,
//! `results/<device>.json`, with the device, driver, date, runner version and
//! a hash of each spec and kernel. A reader of the file shows an entry only
//! while both hashes still match the book; otherwise the entry is stale and
//! says so instead.

use crate::bench::BenchReport;
use crate::book::{Book, Puzzle};
use crate::check::Runner;
use crate::kernel::{Lang, Variant};
use crate::report::RunReport;
use crate::{BackendKind, DeviceInfo};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The folder of recorded results, relative to the book's root.
pub const RESULTS_DIR: &str = "results";

/// One device's recorded results.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Recording {
    pub device: DeviceInfo,
    /// UTC date of the recording, YYYY-MM-DD.
    pub date: String,
    pub runner_version: String,
    /// The device's measured ceilings (`runner calibrate`), when taken.
    #[serde(default)]
    pub ceilings: Option<crate::calibrate::Ceilings>,
    pub entries: Vec<Entry>,
    /// Solutions timed at their spec's `bench` size (the performance chapters).
    #[serde(default)]
    pub benches: Vec<BenchEntry>,
}

/// A solution benchmarked at its spec's `bench` size, or why it could not be.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchEntry {
    pub puzzle: String,
    pub lang: Lang,
    /// The spec's `bench` case: the constants it changes.
    pub case: crate::expr::Constants,
    pub spec_hash: String,
    pub source_hash: String,
    pub outcome: Result<BenchReport, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub puzzle: String,
    pub lang: Lang,
    pub variant: Variant,
    /// blake3 of the spec's YAML and of the kernel text that ran.
    pub spec_hash: String,
    pub source_hash: String,
    pub report: RunReport,
}

/// What a page shows for one kernel variant from one recording.
#[derive(Debug, Clone)]
pub enum Recorded<'a> {
    Current {
        recording: &'a Recording,
        report: &'a RunReport,
    },
    /// The spec or the kernel changed since the recording.
    Stale { recording: &'a Recording },
}

pub fn hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

fn entry_hashes(puzzle: &Puzzle, lang: Lang, variant: Variant) -> Option<(String, String)> {
    let kernel = puzzle.kernel(lang)?;
    Some((hash(&puzzle.spec.text), hash(&kernel.variant(variant).text)))
}

/// Runs every puzzle (or those in `only`, keeping the file's other entries) on
/// every backend that runs kernels here (or those in `backends`), and writes
/// a file per device. The benchmarks come after, from [`record_benches`],
/// once the caller has closed every backend of this process.
pub fn record(
    book: &Book,
    runner: &Runner,
    dir: &Path,
    only: &[String],
    backends: &[BackendKind],
) -> Result<Vec<PathBuf>, String> {
    for id in only {
        book.find(id)?;
    }
    let chosen = |p: &&Puzzle| is_chosen(only, p.id());
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for kind in BackendKind::ALL {
        if !backends.is_empty() && !backends.contains(&kind) {
            continue;
        }
        let backend = match runner.backend(kind) {
            Ok(b) if b.runs_kernels() && b.device().kind == "GPU" => b,
            Ok(b) => {
                eprintln!(
                    "record: skipping {kind}: {} is not a GPU that runs kernels",
                    b.device().label()
                );
                continue;
            }
            Err(e) => {
                eprintln!("record: skipping {kind}: {e}");
                continue;
            }
        };
        let lang = kind.lang();
        // The ceilings first, on an idle device, so every figure has its roof.
        let ceilings = match crate::calibrate::calibrate(backend, 20) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("record: calibrating {kind} failed: {e}");
                None
            }
        };
        let path = dir.join(format!("{}.json", file_stem(backend.device())));
        let (mut entries, benches) = match std::fs::read_to_string(&path) {
            Ok(text) if !only.is_empty() => {
                let old: Recording =
                    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                (
                    old.entries
                        .into_iter()
                        .filter(|e| !is_chosen(only, &e.puzzle))
                        .collect(),
                    old.benches
                        .into_iter()
                        .filter(|e| !is_chosen(only, &e.puzzle))
                        .collect(),
                )
            }
            _ => (Vec::new(), Vec::new()),
        };
        for puzzle in book.puzzles.iter().filter(chosen) {
            for variant in [Variant::Solution, Variant::Skeleton] {
                let Some((spec_hash, source_hash)) = entry_hashes(puzzle, lang, variant) else {
                    continue;
                };
                let report = runner
                    .run(puzzle, lang, variant)
                    .map_err(|e| e.to_string())?;
                eprintln!(
                    "record: {} {} {variant}: {}",
                    puzzle.id(),
                    lang.label(),
                    report.status.word()
                );
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
            device: backend.device().clone(),
            date: today(),
            runner_version: env!("CARGO_PKG_VERSION").into(),
            ceilings,
            entries,
            benches,
        };
        write_atomically(
            &path,
            &serde_json::to_string_pretty(&recording).map_err(|e| e.to_string())?,
        )?;
        written.push(path);
    }
    Ok(written)
}

/// Whether `runner record --only …` takes puzzle `id` (every puzzle when `only` is empty).
fn is_chosen(only: &[String], id: &str) -> bool {
    only.is_empty() || only.iter().any(|o| o == id)
}

/// Buffers longer than this keep no values in a recording.
const RECORDED_VALUES: usize = 64;

/// A report as a recording keeps it: every verdict, message, shape and time,
/// but no output values or index lists beyond [`RECORDED_VALUES`]. A page
/// shows a recorded run's time and status, never its values (those come from
/// the run on the machine building the book), and the performance chapters'
/// 16,384-element outputs would otherwise make each file megabytes.
fn slim(mut report: RunReport) -> RunReport {
    for check in &mut report.checks {
        if check.got.len() > RECORDED_VALUES {
            check.got.clear();
            check.expected.clear();
        }
        check.wrong.truncate(RECORDED_VALUES);
        check.unwritten.truncate(RECORDED_VALUES);
        check.out_of_bounds.truncate(RECORDED_VALUES);
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
pub fn record_benches(book: &Book, files: &[PathBuf], only: &[String]) -> Result<(), String> {
    let chosen = |p: &&Puzzle| is_chosen(only, p.id());
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut recording: Recording =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let kind = recording.device.backend;
        let lang = kind.lang();
        recording.benches.retain(|e| !is_chosen(only, &e.puzzle));
        for puzzle in book.puzzles.iter().filter(chosen) {
            let Some((spec_hash, source_hash)) = entry_hashes(puzzle, lang, Variant::Solution)
            else {
                continue;
            };
            for case in puzzle.spec.bench_cases() {
                let outcome =
                    bench_in_child(book, puzzle, kind, &case, recording.ceilings.as_ref());
                match &outcome {
                    Ok(report) => eprint!("record: bench {}", report.to_text()),
                    Err(e) => {
                        eprintln!(
                            "record: bench {} {}: FAILED: {e}",
                            puzzle.id(),
                            lang.label()
                        )
                    }
                }
                recording.benches.push(BenchEntry {
                    puzzle: puzzle.id().into(),
                    lang,
                    case,
                    spec_hash: spec_hash.clone(),
                    source_hash: source_hash.clone(),
                    outcome,
                });
            }
        }
        write_atomically(
            path,
            &serde_json::to_string_pretty(&recording).map_err(|e| e.to_string())?,
        )?;
    }
    Ok(())
}

/// Timed samples and warm-up runs of a recorded benchmark.
const BENCH_SAMPLES: usize = 20;
const BENCH_WARMUP: usize = 5;

/// Benchmarks one `bench` case through `runner bench --json` in a process of
/// its own, and places it under `ceilings` (those this recording measured).
///
/// A process of its own, so that nothing one benchmark leaves behind in the
/// driver reaches the next (see [`record_benches`]).
fn bench_in_child(
    book: &Book,
    puzzle: &Puzzle,
    kind: BackendKind,
    case: &crate::expr::Constants,
    ceilings: Option<&crate::calibrate::Ceilings>,
) -> Result<BenchReport, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the runner itself: {e}"))?;
    let mut command = std::process::Command::new(exe);
    command.args([
        "bench",
        puzzle.id(),
        "--backend",
        &kind.to_string(),
        "--json",
    ]);
    // The same book, wherever this process found it.
    command.arg("--book").arg(&book.root);
    command.args(["--samples", &BENCH_SAMPLES.to_string()]);
    command.args(["--warmup", &BENCH_WARMUP.to_string(), "--timeout", "120"]);
    for (name, value) in case {
        command.args(["--set", &format!("{name}={value}")]);
    }
    let output = command
        .output()
        .map_err(|e| format!("could not start `runner bench`: {e}"))?;
    let mut report: BenchReport = serde_json::from_slice(&output.stdout).map_err(|_| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        format!(
            "`runner bench` gave no report ({}): {}",
            output.status,
            stderr.trim()
        )
    })?;
    let spec = puzzle.spec.sized(case).map_err(|e| e.to_string())?;
    report.placement = crate::roofline::place(&spec, report.timing.median_ms, ceilings);
    Ok(report)
}

/// The recorded benchmark of a puzzle's solution at one `bench` case in one
/// recording: `None` when there is none, `Some(Err(..))` when it is stale or failed.
pub fn lookup_bench<'a>(
    recording: &'a Recording,
    puzzle: &Puzzle,
    lang: Lang,
    case: &crate::expr::Constants,
) -> Option<Result<&'a BenchReport, String>> {
    let (spec_hash, source_hash) = entry_hashes(puzzle, lang, Variant::Solution)?;
    let entry = recording
        .benches
        .iter()
        .find(|e| e.puzzle == puzzle.id() && e.lang == lang && &e.case == case)?;
    Some(
        if entry.spec_hash != spec_hash || entry.source_hash != source_hash {
            Err(format!(
                "stale: the spec or kernel changed since {}",
                recording.date
            ))
        } else {
            entry.outcome.as_ref().map_err(|e| format!("failed: {e}"))
        },
    )
}

/// Every recording under `dir`; a file that does not parse is reported, not fatal.
pub fn load_all(dir: &Path) -> (Vec<Recording>, Vec<String>) {
    load_json_files(dir)
}

/// Every `*.json` file directly under `dir`, parsed as a `T`, in file-name
/// order; a file that does not parse is reported, not fatal. A missing folder
/// holds nothing.
pub fn load_json_files<T: serde::de::DeserializeOwned>(dir: &Path) -> (Vec<T>, Vec<String>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (found, problems);
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<T>(&t).map_err(|e| e.to_string()))
        {
            Ok(r) => found.push(r),
            Err(e) => problems.push(format!(
                "{}: ignored, it does not parse: {e}",
                path.display()
            )),
        }
    }
    (found, problems)
}

/// The recorded results for one kernel variant, current or stale, one per recording that has it.
pub fn lookup<'a>(
    recordings: &'a [Recording],
    puzzle: &Puzzle,
    lang: Lang,
    variant: Variant,
) -> Vec<Recorded<'a>> {
    let Some((spec_hash, source_hash)) = entry_hashes(puzzle, lang, variant) else {
        return vec![];
    };
    recordings
        .iter()
        .filter_map(|recording| {
            let entry = recording
                .entries
                .iter()
                .find(|e| e.puzzle == puzzle.id() && e.lang == lang && e.variant == variant)?;
            Some(
                if entry.spec_hash == spec_hash && entry.source_hash == source_hash {
                    Recorded::Current {
                        recording,
                        report: &entry.report,
                    }
                } else {
                    Recorded::Stale { recording }
                },
            )
        })
        .collect()
}

/// Stores `ceilings` in the recording of `device` under `dir` (made if missing).
pub fn save_ceilings(
    dir: &Path,
    device: &DeviceInfo,
    ceilings: crate::calibrate::Ceilings,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{}.json", file_stem(device)));
    let mut recording = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str::<Recording>(&text)
            .map_err(|e| format!("{}: {e}", path.display()))?,
        Err(_) => Recording {
            device: device.clone(),
            date: today(),
            runner_version: env!("CARGO_PKG_VERSION").into(),
            ceilings: None,
            entries: vec![],
            benches: vec![],
        },
    };
    recording.ceilings = Some(ceilings);
    write_atomically(
        &path,
        &serde_json::to_string_pretty(&recording).map_err(|e| e.to_string())?,
    )?;
    Ok(path)
}

/// The recording for `device` under `dir`, if one was made.
pub fn find<'a>(recordings: &'a [Recording], device: &DeviceInfo) -> Option<&'a Recording> {
    recordings
        .iter()
        .find(|r| r.device.backend == device.backend && r.device.name == device.name)
}

/// "cuda-nvidia-h100-80gb-hbm3".
pub fn file_stem(device: &DeviceInfo) -> String {
    let raw = format!("{}-{}", device.backend, device.name).to_lowercase();
    let mut stem = String::new();
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() {
            stem.push(c);
        } else if !stem.ends_with('-') {
            stem.push('-');
        }
    }
    stem.trim_matches('-').to_string()
}

/// Tempfile in the same folder, then rename: a reader never sees half a file.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    crate::atomic_file::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

/// Today's UTC date, YYYY-MM-DD (days-to-civil conversion, proleptic Gregorian).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    civil_date((secs / 86_400) as i64)
}

fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_table() {
        for (days, want) in [
            (0, "1970-01-01"),
            (59, "1970-03-01"),
            (11_016, "2000-02-29"),
            (20_413, "2025-11-21"),
        ] {
            assert_eq!(civil_date(days), want, "{days}");
        }
    }

    /// Small buffers keep their values; large ones keep shape and verdict only.
    #[test]
    fn recordings_keep_small_outputs_only() {
        let check = |n: usize| crate::verify::BufferCheck {
            name: "out".into(),
            shape: vec![n],
            got: vec![None; n],
            expected: vec![0.0; n],
            wrong: vec![],
            unwritten: (0..n).collect(),
            out_of_bounds: vec![],
            judged: true,
        };
        let mut report: RunReport =
            serde_json::from_str(r#"{"puzzle":"p","lang":"wgsl","variant":"solution","backend":"wgpu","device":null,"status":"fail","diagnostics":[],"message":null,"timing":null,"checks":[]}"#)
                .unwrap();
        report.checks = vec![check(8), check(1000)];
        let slim = slim(report);
        let (small, large) = (&slim.checks[0], &slim.checks[1]);
        assert_eq!((small.got.len(), small.unwritten.len()), (8, 8));
        assert_eq!((large.got.len(), large.expected.len()), (0, 0));
        assert_eq!(large.shape, [1000]);
        assert_eq!(large.unwritten.len(), RECORDED_VALUES);
        assert!(!large.passed(), "the verdict survives");
        // A slimmed buffer with wrong elements still says so, without its values.
        let mut wrong = large.clone();
        wrong.unwritten.clear();
        wrong.wrong = vec![3, 4];
        let problems = wrong.problems();
        assert!(problems[0].contains("2 of 1000 elements"), "{problems:?}");
        assert!(problems[0].contains("keeps no values"), "{problems:?}");
    }

    #[test]
    fn file_stems_table() {
        let mut d = DeviceInfo {
            backend: BackendKind::Cuda,
            name: "NVIDIA H100 80GB HBM3".into(),
            kind: "GPU".into(),
            api: String::new(),
            driver: String::new(),
        };
        assert_eq!(file_stem(&d), "cuda-nvidia-h100-80gb-hbm3");
        d.backend = BackendKind::Wgpu;
        d.name = "NVIDIA H200 (rev 1)".into();
        assert_eq!(file_stem(&d), "wgpu-nvidia-h200-rev-1");
    }
}
