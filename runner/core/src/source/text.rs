//! Source text that remembers where each of its lines came from.
//!
//! A kernel reaches the compiler after `{{#include}}` expansion and after the
//! learner's region is cut out, so its line 7 may be line 12 of
//! `kernels/fundamentals/p08_shared/add_10_shared.cu`. Every diagnostic is mapped back
//! through this table before a user sees it.

use crate::source::diag::Located;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file and 1-based line a line of text came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineOrigin {
    pub file: PathBuf,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceText {
    pub text: String,
    /// One entry per line of `text`.
    pub lines: Vec<LineOrigin>,
}

impl SourceText {
    /// Text whose line `i` (0-based) is line `first_line + i` of `file`.
    pub fn new(text: impl Into<String>, file: &Path, first_line: usize) -> SourceText {
        let text = text.into();
        let lines = (0..line_count(&text))
            .map(|i| LineOrigin {
                file: file.to_path_buf(),
                line: first_line + i,
            })
            .collect();
        SourceText { text, lines }
    }

    /// A file's bytes as text, or why they are not text.
    pub fn from_bytes(bytes: Vec<u8>, file: &Path) -> Result<SourceText, Located> {
        let text = String::from_utf8(bytes)
            .map_err(|_| Located::new(file, 0, "is not UTF-8 text (is it a binary file?)"))?;
        Ok(SourceText::new(text, file, 1))
    }

    /// Builds text line by line from `(line, origin)` pairs.
    pub fn from_lines(lines: impl IntoIterator<Item = (String, LineOrigin)>) -> SourceText {
        let mut text = String::new();
        let mut origins = Vec::new();
        for (line, origin) in lines {
            text.push_str(&line);
            text.push('\n');
            origins.push(origin);
        }
        SourceText {
            text,
            lines: origins,
        }
    }

    /// Each line of text with its origin.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &LineOrigin)> {
        self.text.lines().zip(&self.lines)
    }

    /// Where line `line` (1-based) of this text came from. Lines past the
    /// end (a compiler pointing at end-of-file) map to the last line.
    pub fn origin(&self, line: usize) -> Option<&LineOrigin> {
        self.lines.get(line.max(1) - 1).or(self.lines.last())
    }

    /// A message about line `line` of this text, re-pointed at its origin.
    pub fn locate(&self, line: usize, message: impl Into<String>) -> Located {
        match self.origin(line) {
            Some(o) => Located::new(&o.file, o.line, message),
            None => Located::new("<empty source>", 0, message),
        }
    }

    /// The file this text was read from (for labels): its first line's.
    /// An `#include` line stays in its file as an empty line, with the
    /// header's lines after it, so the first line is always the file's own,
    /// while the last is a header's where the file ends with its includes.
    pub fn main_file(&self) -> Option<&Path> {
        self.lines.first().map(|o| o.file.as_path())
    }
}

fn line_count(text: &str) -> usize {
    text.lines().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_maps_lines_table() {
        let src = SourceText::from_lines([
            (
                "a".to_string(),
                LineOrigin {
                    file: "x.cu".into(),
                    line: 3,
                },
            ),
            (
                "b".to_string(),
                LineOrigin {
                    file: "x.cu".into(),
                    line: 9,
                },
            ),
        ]);
        for (line, want) in [(1, 3), (2, 9), (7, 9), (0, 3)] {
            assert_eq!(src.locate(line, "m").line, want, "line {line}");
        }
        assert_eq!(src.text, "a\nb\n");
    }

    #[test]
    fn new_counts_from_first_line() {
        let src = SourceText::new("x\ny\nz", Path::new("c.md"), 40);
        assert_eq!(src.origin(3).unwrap().line, 42);
    }
}
