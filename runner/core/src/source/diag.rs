//! Located messages: an error or compiler diagnostic tied to a file and line.
//!
//! Authors and learners fix problems in their editor, so every message a user
//! can act on says where: `kernels/fundamentals/p01_map/add_10.wgsl:7: expected ';'`.

use gpu_hazard::Kind;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// A message about a line of a file (1-based). Line 0 means "the whole file".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    pub file: PathBuf,
    pub line: usize,
    pub message: String,
    /// The kind of hazard, where a checker found one: what judges and
    /// tests read, never the message's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
}

impl Located {
    pub fn new(file: impl Into<PathBuf>, line: usize, message: impl Into<String>) -> Self {
        Located {
            file: file.into(),
            line,
            message: message.into(),
            kind: None,
        }
    }

    /// The same message, as a checker's finding of `kind`.
    pub fn with_kind(mut self, kind: Kind) -> Self {
        self.kind = Some(kind);
        self
    }
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = display_path(&self.file);
        if self.line == 0 {
            write!(f, "{file}: {}", self.message)
        } else {
            write!(f, "{file}:{}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for Located {}

/// Shows a path relative to the current directory when it lies below it, so
/// messages stay short and clickable in a terminal.
/// `src/fundamentals/../../kernels/x.cu` is shown as `kernels/x.cu`: a
/// chapter's include is resolved from the chapter's folder, but a reader
/// looks for the file from the book's root.
pub fn display_path(path: &Path) -> String {
    let path = lexically_normal(path);
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    relative.unwrap_or(path).display().to_string()
}

/// `a/b/../c` as `a/c`, without asking the file system (the path may name a
/// chapter's virtual file). A `..` with nothing left to drop is kept.
fn lexically_normal(path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            c => out.push(c),
        }
    }
    out.iter().collect()
}

/// The 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// Line numbers of many offsets into one text, each found by a binary
/// search rather than by counting from the start (a chapter has dozens of
/// blocks; counting each from the start made reading the book quadratic).
pub struct LineIndex {
    /// Byte offsets of every newline.
    newlines: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            newlines: text
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        }
    }

    /// The 1-based line of byte `offset`, as [`line_of`] gives it.
    pub fn line(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&n| n < offset) + 1
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn paths_are_shown_without_dot_dot() {
        for (path, shown) in [
            (
                "src/fundamentals/../../kernels/p03/add.cu",
                "kernels/p03/add.cu",
            ),
            ("./kernels/x.cu", "kernels/x.cu"),
            ("../outside.cu", "../outside.cu"),
            ("/a/../b.cu", "/b.cu"),
        ] {
            assert_eq!(display_path(Path::new(path)), shown, "{path}");
        }
    }

    use super::*;

    #[test]
    fn line_of_table() {
        let text = "a\nbb\n\nc";
        for (offset, line) in [(0, 1), (1, 1), (2, 2), (5, 3), (6, 4), (99, 4)] {
            assert_eq!(line_of(text, offset), line, "offset {offset}");
        }
    }

    #[test]
    fn line_index_agrees_with_line_of() {
        let text = "a\nbb\n\nc\n";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(index.line(offset), line_of(text, offset), "offset {offset}");
        }
    }

    #[test]
    fn display_names_file_and_line() {
        let d = Located::new("/nowhere/k.wgsl", 7, "expected `;`");
        assert_eq!(d.to_string(), "/nowhere/k.wgsl:7: expected `;`");
        let whole = Located::new("/nowhere/k.wgsl", 0, "empty file");
        assert_eq!(whole.to_string(), "/nowhere/k.wgsl: empty file");
    }
}
