//! Reading and writing recording files: every `*.json` of a folder loaded
//! (a file that does not parse is reported, not fatal), an entry looked up
//! for a page (current, or stale when its spec or kernel changed), and
//! ceilings stored beside a device's results. Files are replaced whole, by
//! rename, so a reader never sees half of one.

use crate::perf::bench::BenchReport;
use crate::perf::calibrate::Ceilings;
use crate::perf::date::today;
use crate::perf::record::schema::{
    Awaiting, BenchEntry, Recorded, Recording, entry_hashes, file_stem,
};
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
    /// The spec or the kernel changed on a day this GPU could not be
    /// reached (`results/awaiting.toml`): not run here since.
    #[error("not run on this GPU since the kernel changed on {0}")]
    Awaiting(String),
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
            Err(match recording.awaiting(puzzle.id()) {
                Some(awaiting) => BenchUnusable::Awaiting(awaiting.changed.clone()),
                None => BenchUnusable::Stale(recording.date.clone()),
            })
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

/// The file under a results folder that lists the puzzles awaiting a GPU
/// that could not be reached when they changed (see `Awaiting`).
pub const AWAITING_FILE: &str = "awaiting.toml";

/// Every recording under `dir`, with the puzzles `awaiting.toml` says each
/// GPU has not run since they changed; a file that does not parse, or an
/// entry that names no recorded GPU, is reported, not fatal.
pub fn load_all(dir: &Path) -> (Vec<Recording>, Vec<String>) {
    let (mut recordings, mut problems) = load_json_files::<Recording>(dir);
    let path = dir.join(AWAITING_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return (recordings, problems);
    };
    match toml::from_str::<AwaitingFile>(&text) {
        Ok(file) => problems.extend(attach_awaiting(&mut recordings, file)),
        Err(e) => problems.push(format!(
            "{}: ignored, it does not parse: {e}",
            path.display()
        )),
    }
    (recordings, problems)
}

/// `results/awaiting.toml`: groups of puzzles, each changed on one day
/// while one GPU could not be reached.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AwaitingFile {
    #[serde(default)]
    awaiting: Vec<AwaitingGroup>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AwaitingGroup {
    /// The GPU's name, as its recordings give it.
    device: String,
    /// The day the puzzles changed, YYYY-MM-DD.
    changed: String,
    puzzles: Vec<String>,
    /// Why, for the engineers who read the file; not shown on a page.
    #[allow(dead_code)]
    why: String,
}

/// Gives every recording of each group's GPU the group's puzzles; returns a
/// problem for each group that names no recorded GPU.
fn attach_awaiting(recordings: &mut [Recording], file: AwaitingFile) -> Vec<String> {
    let mut problems = Vec::new();
    for group in file.awaiting {
        let mut found = false;
        for recording in recordings
            .iter_mut()
            .filter(|r| r.device.name == group.device)
        {
            found = true;
            recording
                .awaiting
                .extend(group.puzzles.iter().map(|puzzle| Awaiting {
                    puzzle: puzzle.clone(),
                    changed: group.changed.clone(),
                }));
        }
        if !found {
            problems.push(format!(
                "{AWAITING_FILE}: no recording is of the GPU `{}`",
                group.device
            ));
        }
    }
    problems
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
                    Recorded::Stale {
                        recording,
                        awaiting: recording.awaiting(puzzle.id()),
                    }
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
            awaiting: vec![],
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

#[cfg(test)]
mod tests {
    use super::*;
    use puzzle_core::backend_contract::backend::BackendKind;

    fn recording(name: &str) -> Recording {
        Recording {
            device: DeviceInfo {
                backend: BackendKind::Cuda,
                name: name.into(),
                kind: "GPU".into(),
                api: String::new(),
                driver: String::new(),
            },
            date: "2026-12-01".into(),
            runner_version: "0".into(),
            ceilings: None,
            entries: vec![],
            benches: vec![],
            awaiting: vec![],
        }
    }

    /// (case, awaiting.toml, puzzles each of the recordings A, A, B awaits, problems)
    #[test]
    fn awaiting_is_given_to_every_recording_of_its_gpu_table() {
        let cases: [(&str, &str, [&[&str]; 3], usize); 3] = [
            (
                "both of A's recordings, none of B's",
                "[[awaiting]]\ndevice = \"A\"\nchanged = \"2026-12-03\"\npuzzles = [\"p1\", \"p2\"]\nwhy = \"w\"\n",
                [&["p1", "p2"], &["p1", "p2"], &[]],
                0,
            ),
            (
                "a GPU with no recording is a problem",
                "[[awaiting]]\ndevice = \"C\"\nchanged = \"2026-12-03\"\npuzzles = [\"p1\"]\nwhy = \"w\"\n",
                [&[], &[], &[]],
                1,
            ),
            ("an empty file", "", [&[], &[], &[]], 0),
        ];
        for (case, text, wanted, problem_count) in cases {
            let mut recordings = [recording("A"), recording("A"), recording("B")];
            let file: AwaitingFile = toml::from_str(text).expect(case);
            let problems = attach_awaiting(&mut recordings, file);
            assert_eq!(problems.len(), problem_count, "{case}: {problems:?}");
            for (recording, wanted) in recordings.iter().zip(wanted) {
                let got: Vec<&str> = recording
                    .awaiting
                    .iter()
                    .map(|a| a.puzzle.as_str())
                    .collect();
                assert_eq!(got, wanted, "{case}");
                assert!(
                    recording.awaiting.iter().all(|a| a.changed == "2026-12-03"),
                    "{case}"
                );
            }
        }
    }

    #[test]
    fn an_awaiting_file_without_a_reason_does_not_parse() {
        let text = "[[awaiting]]\ndevice = \"A\"\nchanged = \"2026-12-03\"\npuzzles = [\"p1\"]\n";
        assert!(toml::from_str::<AwaitingFile>(text).is_err());
    }
}
