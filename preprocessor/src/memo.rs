//! The whole processed book as the last build left it, kept with what it was
//! made from, so a build in which nothing changed runs nothing at all.
//!
//! Every run is cached already (`runner::run::ResultCache`), but a warm build
//! still parsed every chapter, looked up hundreds of results and rendered
//! every page again: a third of a second, most of the half second a warm
//! build may add to mdBook's own time. The memo answers such a build with
//! the book it produced last time, when all of these are as they were:
//! - mdBook's input (every chapter's text after `links`, and book.toml's
//!   settings), less the folder the pages go to;
//! - this engine on this machine (the executable, the boot, the environment
//!   that picks drivers and devices), as the result cache keys its runs;
//! - every file and folder the build read: the chapters' folder, tree and
//!   all, the files they include, the recordings and the baselines, by size
//!   and modification time (a file added to a folder changes the folder's).
//!
//! It keeps one book, the last: `mdbook serve` changes the input at every
//! edit, and a memo of every version would only grow. A book built from a
//! run that could not be cached (a backend missing now may be there next
//! time) is not kept, and neither is a build that failed.

use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::Book;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The memo's file in the cache folder.
const FILE: &str = "book-memo.json";

/// A file or folder as the build found it: `None` where it did not exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub path: PathBuf,
    /// Size in bytes and modification time in nanoseconds since 1970.
    pub seen: Option<(u64, u128)>,
}

impl Stamp {
    /// `path` as it is now.
    pub fn of(path: &Path) -> Stamp {
        let seen = std::fs::metadata(path).ok().and_then(|meta| {
            let modified = meta
                .modified()
                .ok()?
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?;
            Some((meta.len(), modified.as_nanos()))
        });
        Stamp {
            path: path.to_path_buf(),
            seen,
        }
    }

    /// Whether `path` is still as it was.
    fn holds(&self) -> bool {
        Stamp::of(&self.path) == *self
    }
}

/// `path`, and under a folder every file and folder in it, at any depth.
pub fn stamps_under(path: &Path, out: &mut Vec<Stamp>) {
    out.push(Stamp::of(path));
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            stamps_under(&p, out);
        } else {
            out.push(Stamp::of(&p));
        }
    }
}

/// The key of one build: mdBook's input, and the engine and machine it ran
/// on. Where the pages are written (`mdbook build -d DIR`) is part of the
/// input but not of the pages, so it is left out: CI builds into a fresh
/// folder every time.
pub fn key(ctx: &PreprocessorContext, book: &Book) -> String {
    let mut ctx = ctx.clone();
    ctx.config.build.build_dir = PathBuf::new();
    let input = serde_json::to_vec(&(&ctx, book)).unwrap_or_default();
    let mut h = blake3::Hasher::new();
    for part in [runner::run::engine_and_machine().as_bytes(), &input] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.finalize().to_hex().to_string()
}

/// A kept book and what it needs to be reused.
#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    made_from: Vec<Stamp>,
    /// The warnings the build printed, printed again when it is reused.
    warnings: Vec<String>,
    /// blake3 of the book's JSON, so a damaged memo is never served.
    checksum: String,
    book: String,
}

/// The memo of the book whose result cache is `dir`.
pub struct Memo {
    path: PathBuf,
}

impl Memo {
    pub fn new(cache_dir: &Path) -> Memo {
        Memo {
            path: cache_dir.join(FILE),
        }
    }

    /// The book's JSON and its warnings, kept by a build with this `key`
    /// whose every file and folder is still as it was.
    pub fn recall(&self, key: &str) -> Option<(String, Vec<String>)> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        let intact = entry.key == key
            && entry.checksum == blake3::hash(entry.book.as_bytes()).to_hex().as_str()
            && entry.made_from.iter().all(Stamp::holds);
        intact.then_some((entry.book, entry.warnings))
    }

    /// Keeps `book` (its JSON) as the book of `key`; a failure to write only
    /// costs the next build its shortcut.
    pub fn keep(&self, key: &str, made_from: Vec<Stamp>, warnings: Vec<String>, book: &str) {
        let entry = Entry {
            key: key.to_string(),
            made_from,
            warnings,
            checksum: blake3::hash(book.as_bytes()).to_hex().to_string(),
            book: book.to_string(),
        };
        if let Ok(text) = serde_json::to_string(&entry) {
            let _ = runner::write_atomically(&self.path, text.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memo kept for one folder of files, then recalled after each change.
    #[test]
    fn a_memo_is_recalled_only_while_nothing_it_was_made_from_changed() {
        type Change = fn(&Path);
        let changes: &[(&str, Option<Change>)] = &[
            ("nothing", None),
            (
                "a file rewritten with other bytes",
                Some(|d| {
                    std::fs::write(d.join("kernel.cu"), "__global__ void k() { /* new */ }")
                        .unwrap()
                }),
            ),
            (
                "a file added to the folder",
                Some(|d| std::fs::write(d.join("new.md"), "# New").unwrap()),
            ),
            (
                "a file removed",
                Some(|d| std::fs::remove_file(d.join("kernel.cu")).unwrap()),
            ),
            (
                "a file in a subfolder rewritten",
                Some(|d| std::fs::write(d.join("sub/deep.md"), "changed, longer text").unwrap()),
            ),
        ];
        for (what, change) in changes {
            let dir = tempfile::tempdir().unwrap();
            let book = dir.path().join("book");
            std::fs::create_dir_all(book.join("sub")).unwrap();
            std::fs::write(book.join("kernel.cu"), "__global__ void k() {}").unwrap();
            std::fs::write(book.join("sub/deep.md"), "deep").unwrap();
            let memo = Memo::new(&dir.path().join("cache"));
            std::fs::create_dir_all(dir.path().join("cache")).unwrap();
            let mut made_from = Vec::new();
            stamps_under(&book, &mut made_from);
            memo.keep("k1", made_from, vec!["a warning".into()], "{\"items\":[]}");
            // Modification times are compared to the nanosecond; a change
            // within the same tick of a coarse clock would go unseen.
            std::thread::sleep(std::time::Duration::from_millis(10));
            if let Some(change) = change {
                change(&book);
            }
            let recalled = memo.recall("k1");
            match change {
                None => assert_eq!(
                    recalled,
                    Some(("{\"items\":[]}".to_string(), vec!["a warning".to_string()])),
                    "{what}"
                ),
                Some(_) => assert_eq!(recalled, None, "{what}: a stale book was recalled"),
            }
            assert_eq!(memo.recall("another key"), None, "{what}");
        }
    }

    #[test]
    fn a_damaged_memo_is_never_recalled() {
        let dir = tempfile::tempdir().unwrap();
        let memo = Memo::new(dir.path());
        memo.keep("k", vec![], vec![], "{\"items\":[]}");
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        std::fs::write(dir.path().join(FILE), text.replace("items", "itemz")).unwrap();
        assert_eq!(memo.recall("k"), None);
    }
}
