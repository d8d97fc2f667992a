//! The learner's progress: which puzzles pass in which language, and how
//! many tips were shown. A small JSON file the learner may delete.
//!
//! Two watchers (or a watcher and a `runner hint`) may write at once, so
//! every change is a read-modify-write under an exclusive lock on a separate
//! lock file, and the new file replaces the old one by rename: a reader
//! never sees half a file, and no writer loses another's update.
//!
//! The file is the learner's: one that cannot be read as progress is never
//! overwritten (it is moved aside, and the change says so), and one the
//! learner made read-only is left alone (the change is refused, in words).

use crate::learner::former_names;
use puzzle_core::lang::Lang;
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
    /// The same progress with puzzles the book has renamed under their new
    /// ids ([`former_names`]); where both names are present, the new one's
    /// entry is kept.
    fn under_current_names(mut self) -> Progress {
        for (old, new) in former_names::IDS {
            if let Some(entry) = self.puzzles.remove(*old) {
                self.puzzles.entry((*new).to_string()).or_insert(entry);
            }
        }
        self
    }

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
#[derive(Clone)]
pub struct ProgressFile {
    pub path: PathBuf,
    /// Called when another process holds the lock, before waiting for it.
    pub on_wait: Option<fn(&Path)>,
}

impl std::fmt::Debug for ProgressFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressFile")
            .field("path", &self.path)
            .finish()
    }
}

/// Why progress could not be read or saved.
#[derive(Debug, thiserror::Error)]
pub enum ProgressError {
    #[error("{path} is not a progress file ({source}); fix it, or delete it to start afresh")]
    Damaged {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot read {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("progress not saved: {path} is read-only; make it writable to keep your progress")]
    ReadOnly { path: PathBuf },
    #[error("progress not saved in {path}: {source}")]
    Unwritable {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What an update did besides the change asked for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Saved {
    /// A file that could not be read as progress, moved here before a new one was started.
    pub moved_aside: Option<PathBuf>,
}

impl ProgressFile {
    pub fn in_workspace(root: &Path) -> ProgressFile {
        ProgressFile {
            path: root.join(FILE),
            on_wait: None,
        }
    }

    /// The progress so far: empty when the file is missing. A file that is
    /// not valid progress is an error that says what to do.
    pub fn load(&self) -> Result<Progress, ProgressError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Progress::under_current_names)
                .map_err(|source| ProgressError::Damaged {
                    path: self.path.clone(),
                    source,
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Progress::default()),
            Err(source) => Err(ProgressError::Unreadable {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// Applies `change` to the current progress and saves it, atomically and
    /// under the lock. Returns what `change` returned.
    pub fn update<T>(&self, change: impl FnOnce(&mut Progress) -> T) -> Result<T, ProgressError> {
        self.update_saying(change).map(|(result, _)| result)
    }

    /// [`ProgressFile::update`], saying what else it did: a damaged file
    /// (one that is not progress) is moved aside, never overwritten, and a
    /// new one is started; a read-only file is left as it is, and the change
    /// is refused.
    pub fn update_saying<T>(
        &self,
        change: impl FnOnce(&mut Progress) -> T,
    ) -> Result<(T, Saved), ProgressError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let unwritable = |source| ProgressError::Unwritable {
            path: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(unwritable)?;
        let lock = File::create(dir.join(LOCK)).map_err(unwritable)?;
        if let Err(std::fs::TryLockError::WouldBlock) = lock.try_lock() {
            if let Some(say) = self.on_wait {
                say(&self.path);
            }
            lock.lock().map_err(unwritable)?;
        }
        if std::fs::metadata(&self.path).is_ok_and(|m| m.permissions().readonly()) {
            return Err(ProgressError::ReadOnly {
                path: self.path.clone(),
            });
        }
        let mut saved = Saved::default();
        let mut progress = match self.load() {
            Ok(progress) => progress,
            Err(ProgressError::Damaged { .. }) => {
                let aside = self.aside();
                std::fs::rename(&self.path, &aside).map_err(unwritable)?;
                saved.moved_aside = Some(aside);
                Progress::default()
            }
            Err(other) => return Err(other),
        };
        let result = change(&mut progress);
        let mut text = serde_json::to_string_pretty(&progress)
            .map_err(|e| unwritable(std::io::Error::other(e)))?;
        text.push('\n');
        crate::atomic_file::write(&self.path, text.as_bytes()).map_err(unwritable)?;
        // The lock is released when `lock` is dropped, after the rename.
        drop(lock);
        Ok((result, saved))
    }

    /// A name beside the file that nothing holds yet: `progress.json.damaged`, `….damaged-2`, ….
    fn aside(&self) -> PathBuf {
        let name = self.path.file_name().unwrap_or_default().to_string_lossy();
        (1..)
            .map(|n| match n {
                1 => self.path.with_file_name(format!("{name}.damaged")),
                n => self.path.with_file_name(format!("{name}.damaged-{n}")),
            })
            .find(|p| !p.exists())
            .expect("an unused name")
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

    /// A file that is not progress is reported, then kept whole beside the
    /// new one: nothing the learner had is lost.
    #[test]
    fn a_damaged_file_is_moved_aside_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProgressFile::in_workspace(dir.path());
        let damaged = "{ \"puzzles\": { \"p01\": { \"langs\": { \"wgsl\": \"pass\" } } }, }";
        std::fs::write(&file.path, damaged).unwrap();
        let error = file.load().unwrap_err().to_string();
        assert!(error.contains("delete it to start afresh"), "{error}");
        let ((), saved) = file
            .update_saying(|p| p.set_mark("p02", Lang::Cuda, Some(Mark::Compiles)))
            .unwrap();
        let aside = saved.moved_aside.expect("moved aside");
        assert_eq!(std::fs::read_to_string(&aside).unwrap(), damaged);
        assert_eq!(
            file.load().unwrap().mark("p02", Lang::Cuda),
            Some(Mark::Compiles)
        );
        // A second damaged file does not replace the first one set aside.
        std::fs::write(&file.path, "not json").unwrap();
        let ((), saved) = file.update_saying(|_| ()).unwrap();
        assert_ne!(saved.moved_aside.unwrap(), aside);
        assert_eq!(std::fs::read_to_string(&aside).unwrap(), damaged);
    }

    /// A read-only file is the learner's to keep: the change is refused, in words.
    #[test]
    fn a_read_only_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProgressFile::in_workspace(dir.path());
        file.update(|p| p.set_mark("p01", Lang::Wgsl, Some(Mark::Fail)))
            .unwrap();
        let before = std::fs::read(&file.path).unwrap();
        let mut permissions = std::fs::metadata(&file.path).unwrap().permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&file.path, permissions).unwrap();
        let error = file
            .update(|p| p.set_mark("p01", Lang::Wgsl, Some(Mark::Pass)))
            .unwrap_err();
        assert!(error.to_string().contains("is read-only"), "{error}");
        assert_eq!(std::fs::read(&file.path).unwrap(), before);
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
