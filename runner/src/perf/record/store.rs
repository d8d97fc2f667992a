//! Reading and writing recording files: every `*.json` of a folder loaded
//! (a file that does not parse is reported, not fatal), an entry looked up
//! for a page (current, or stale when its spec or kernel changed), and
//! ceilings stored beside a device's results. Files are replaced whole, by
//! rename, so a reader never sees half of one.

use crate::perf::bench::BenchReport;
use crate::perf::calibrate::Ceilings;
use crate::perf::date::today;
use crate::perf::record::schema::{BenchEntry, Recorded, Recording, entry_hashes, file_stem};
use puzzle_core::backend_contract::backend::DeviceInfo;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::spec::expr::Constants;
use std::path::{Path, PathBuf};

/// Why a recording file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a recording ({source})")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// Why a recorded benchmark is not shown as current; a page's table says it
/// in the benchmark's cell.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BenchUnusable {
    /// The spec or the kernel changed since the recording's date.
    #[error("stale: the spec or kernel changed since {0}")]
    Stale(String),
    /// The benchmark failed when it was recorded: why, as the recording keeps it.
    #[error("failed: {0}")]
    Failed(String),
}

/// The recorded benchmark of a puzzle's solution at one `bench` case in one
/// recording: `None` when there is none, `Some(Err(..))` when it is stale or failed.
pub fn lookup_bench<'a>(
    recording: &'a Recording,
    puzzle: &Puzzle,
    lang: Lang,
    case: &Constants,
) -> Option<Result<&'a BenchReport, BenchUnusable>> {
    let (spec_hash, source_hash) = entry_hashes(puzzle, lang, Variant::Solution)?;
    let entry = bench_entry(recording, puzzle, lang, case)?;
    Some(
        if entry.spec_hash != spec_hash || entry.source_hash != source_hash {
            Err(BenchUnusable::Stale(recording.date.clone()))
        } else {
            entry
                .outcome
                .as_ref()
                .map_err(|e| BenchUnusable::Failed(e.clone()))
        },
    )
}

/// The day a puzzle's benchmark at one `bench` case was taken, where the
/// recording kept it (see `BenchEntry::date`).
pub fn bench_date<'a>(
    recording: &'a Recording,
    puzzle: &Puzzle,
    lang: Lang,
    case: &Constants,
) -> Option<&'a str> {
    bench_entry(recording, puzzle, lang, case)?.date.as_deref()
}

fn bench_entry<'a>(
    recording: &'a Recording,
    puzzle: &Puzzle,
    lang: Lang,
    case: &Constants,
) -> Option<&'a BenchEntry> {
    recording
        .benches
        .iter()
        .find(|e| e.puzzle == puzzle.id() && e.lang == lang && &e.case == case)
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
    ceilings: Ceilings,
) -> Result<PathBuf, StoreError> {
    let path = dir.join(format!("{}.json", file_stem(device)));
    let mut recording = match read(&path)? {
        Some(recording) => recording,
        None => Recording {
            device: device.clone(),
            date: today(),
            runner_version: env!("CARGO_PKG_VERSION").into(),
            ceilings: None,
            entries: vec![],
            benches: vec![],
        },
    };
    recording.ceilings = Some(ceilings);
    write(&path, &recording)?;
    Ok(path)
}

/// The recording for `device` under `dir`, if one was made.
pub fn find<'a>(recordings: &'a [Recording], device: &DeviceInfo) -> Option<&'a Recording> {
    recordings
        .iter()
        .find(|r| r.device.backend == device.backend && r.device.name == device.name)
}

/// Reads one recording file; `None` when there is none.
pub fn read(path: &Path) -> Result<Option<Recording>, StoreError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|source| StoreError::Parse {
                path: path.to_path_buf(),
                source,
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StoreError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Replaces `path` with `recording`, whole.
pub fn write(path: &Path, recording: &Recording) -> Result<(), StoreError> {
    let io = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = serde_json::to_string_pretty(recording).map_err(|e| io(e.into()))?;
    crate::atomic_file::write(path, text.as_bytes()).map_err(io)
}
