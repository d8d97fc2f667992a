//! The learner's progress: which puzzles pass in which language, and how
//! many tips were shown. A small JSON file the learner may delete.
//!
//! Two watchers (or a watcher and a `runner hint`) may write at once, so
//! every change is a read-modify-write under an exclusive lock on a separate
//! lock file, and the new file replaces the old one by rename: a reader
//! never sees half a file, and no writer loses another's update.

use crate::kernel::Lang;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

pub const FILE: &str = "progress.json";
const LOCK: &str = "progress.lock";

/// The last verdict on a learner's file, as far as progress goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    Pass,
    Fail,
    /// Compiles, but could not be run here (CUDA without an NVIDIA GPU).
    Compiles,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleProgress {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub langs: BTreeMap<Lang, Mark>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hints_shown: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    #[serde(default)]
    pub puzzles: BTreeMap<String, PuzzleProgress>,
}

impl Progress {
    pub fn mark(&self, puzzle: &str, lang: Lang) -> Option<Mark> {
        self.puzzles.get(puzzle)?.langs.get(&lang).copied()
    }

    pub fn solved(&self, puzzle: &str, lang: Lang) -> bool {
        self.mark(puzzle, lang) == Some(Mark::Pass)
    }

    pub fn hints_shown(&self, puzzle: &str) -> usize {
        self.puzzles.get(puzzle).map_or(0, |p| p.hints_shown)
    }

    fn entry(&mut self, puzzle: &str) -> &mut PuzzleProgress {
        self.puzzles.entry(puzzle.to_string()).or_default()
    }

    /// Records a verdict; `None` forgets it (after a reset).
    pub fn set_mark(&mut self, puzzle: &str, lang: Lang, mark: Option<Mark>) {
        match mark {
            Some(m) => {
                self.entry(puzzle).langs.insert(lang, m);
            }
            None => {
                self.entry(puzzle).langs.remove(&lang);
            }
        }
    }

    /// Shows one more tip (up to `available`); returns how many are shown now.
    pub fn reveal_hint(&mut self, puzzle: &str, available: usize) -> usize {
        let entry = self.entry(puzzle);
        entry.hints_shown = (entry.hints_shown + 1).min(available);
        entry.hints_shown
    }
}

/// The progress file of a workspace.
#[derive(Debug, Clone)]
pub struct ProgressFile {
    pub path: PathBuf,
}

impl ProgressFile {
    pub fn in_workspace(root: &Path) -> ProgressFile {
        ProgressFile {
            path: root.join(FILE),
        }
    }

    /// The progress so far: empty when the file is missing. A file that is
    /// not valid progress is an error that says how to start afresh.
    pub fn load(&self) -> Result<Progress, String> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{} is not a progress file ({e}); delete it to start afresh",
                    self.path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Progress::default()),
            Err(e) => Err(format!("cannot read {}: {e}", self.path.display())),
        }
    }

    /// Applies `change` to the current progress and saves it, atomically and
    /// under the lock. A damaged file is replaced (what it held is lost; the
    /// next checks rebuild it). Returns the progress as saved.
    pub fn update<T>(&self, change: impl FnOnce(&mut Progress) -> T) -> Result<T, String> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let io = |what: &str, e: std::io::Error| format!("{what} {}: {e}", dir.display());
        std::fs::create_dir_all(dir).map_err(|e| io("cannot create", e))?;
        let lock = File::create(dir.join(LOCK)).map_err(|e| io("cannot lock progress in", e))?;
        lock.lock().map_err(|e| io("cannot lock progress in", e))?;
        let mut progress = self.load().unwrap_or_default();
        let result = change(&mut progress);
        let mut text = serde_json::to_string_pretty(&progress).map_err(|e| e.to_string())?;
        text.push('\n');
        crate::atomic_file::write(&self.path, text.as_bytes())
            .map_err(|e| io("cannot save progress in", e))?;
        // The lock is released when `lock` is dropped, after the rename.
        drop(lock);
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_hints_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProgressFile::in_workspace(dir.path());
        assert_eq!(file.load().unwrap(), Progress::default(), "missing = empty");
        file.update(|p| p.set_mark("p03", Lang::Wgsl, Some(Mark::Pass)))
            .unwrap();
        let shown: Vec<usize> = (0..4)
            .map(|_| file.update(|p| p.reveal_hint("p03", 3)).unwrap())
            .collect();
        assert_eq!(
            shown,
            [1, 2, 3, 3],
            "one more each time, never past the last"
        );
        let progress = file.load().unwrap();
        assert!(progress.solved("p03", Lang::Wgsl));
        assert!(!progress.solved("p03", Lang::Cuda));
        file.update(|p| p.set_mark("p03", Lang::Wgsl, None))
            .unwrap();
        assert_eq!(file.load().unwrap().mark("p03", Lang::Wgsl), None);
    }

    #[test]
    fn a_damaged_file_is_reported_then_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProgressFile::in_workspace(dir.path());
        std::fs::write(&file.path, "{ half a fi").unwrap();
        let error = file.load().unwrap_err();
        assert!(error.contains("delete it to start afresh"), "{error}");
        file.update(|p| p.set_mark("p01", Lang::Cuda, Some(Mark::Compiles)))
            .unwrap();
        assert_eq!(
            file.load().unwrap().mark("p01", Lang::Cuda),
            Some(Mark::Compiles)
        );
    }

    #[test]
    fn concurrent_writers_lose_no_update() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProgressFile::in_workspace(dir.path());
        let writers = 6;
        let each = 15;
        std::thread::scope(|scope| {
            for w in 0..writers {
                let file = file.clone();
                scope.spawn(move || {
                    for i in 0..each {
                        file.update(|p| {
                            p.set_mark(&format!("w{w}-{i}"), Lang::Wgsl, Some(Mark::Pass));
                            p.reveal_hint("shared", usize::MAX);
                        })
                        .unwrap();
                    }
                });
            }
        });
        let progress = file.load().unwrap();
        assert_eq!(progress.hints_shown("shared"), writers * each);
        assert_eq!(progress.puzzles.len(), writers * each + 1);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != FILE && n != LOCK)
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    }
}
