//! `{{#include}}` expansion, as mdBook's `links` preprocessor does it.
//!
//! The runner reads chapters straight from `src/` (the CLI and the tests run
//! without mdBook), so it expands includes itself, keeping for every line the
//! file and line it came from. Supported forms, as in mdBook:
//! `{{#include file}}`, `file:N` (line N), `file:N:M`, `file:N:`, `file::M`
//! and `file:anchor` (between `ANCHOR: anchor` and `ANCHOR_END: anchor`).
//!
//! The files themselves come from a [`Files`]: the disk for the CLI and the
//! book build, a table of texts in the browser.

use crate::source::diag::Located;
use crate::source::text::{LineOrigin, SourceText};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where included files come from.
pub trait Files {
    /// The bytes of `path`.
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>>;
}

/// Files held in memory by path: the browser's, and the tests'.
#[derive(Debug, Clone, Default)]
pub struct MemoryFiles(pub BTreeMap<PathBuf, String>);

impl Files for MemoryFiles {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.0
            .get(path)
            .map(|t| t.clone().into_bytes())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

/// Why an include could not be expanded.
#[derive(Debug, thiserror::Error)]
enum IncludeError {
    #[error("{{{{#include {target}}}}}: {message}")]
    Read { target: String, message: String },
    #[error("bad line number `{number}` in {{{{#include {target}}}}}")]
    LineNumber { number: String, target: String },
    #[error("anchor `{anchor}` not found in {path}")]
    Anchor { anchor: String, path: String },
}

/// Expands every include in `text` (a block of a chapter). Paths are relative to `base_dir`.
pub fn expand(
    text: &SourceText,
    base_dir: &Path,
    files: &dyn Files,
) -> Result<SourceText, Located> {
    let mut lines = Vec::new();
    for (line, origin) in text.iter() {
        match find_directive(line) {
            None => lines.push((line.to_string(), origin.clone())),
            Some((before, target, after)) => {
                let included = include(target, base_dir, files)
                    .map_err(|error| Located::new(&origin.file, origin.line, error.to_string()))?;
                let mut included: Vec<(String, LineOrigin)> = included
                    .iter()
                    .map(|(l, o)| (l.to_string(), o.clone()))
                    .collect();
                if included.is_empty() {
                    included.push((String::new(), origin.clone()));
                }
                // Text around the directive stays on the first and last included lines.
                included[0].0.insert_str(0, before);
                if let Some(last) = included.last_mut() {
                    last.0.push_str(after);
                }
                lines.extend(included);
            }
        }
    }
    Ok(SourceText::from_lines(lines))
}

/// Finds `{{#include target}}` in a line: (text before, target, text after).
fn find_directive(line: &str) -> Option<(&str, &str, &str)> {
    let start = line.find("{{")?;
    let rest = &line[start + 2..];
    let end = rest.find("}}")?;
    let inner = rest[..end].trim();
    let target = inner.strip_prefix("#include")?.trim();
    Some((&line[..start], target, &rest[end + 2..]))
}

fn include(target: &str, base_dir: &Path, files: &dyn Files) -> Result<SourceText, IncludeError> {
    let (path, selector) = match target.split_once(':') {
        Some((p, s)) => (p, Some(s)),
        None => (target, None),
    };
    let file = base_dir.join(path);
    let read = |message: String| IncludeError::Read {
        target: target.to_string(),
        message,
    };
    let bytes = files
        .read(&file)
        .map_err(|e| read(format!("cannot read {}: {e}", file.display())))?;
    let whole = SourceText::from_bytes(bytes, &file).map_err(|e| read(e.message))?;
    let Some(selector) = selector else {
        return Ok(whole);
    };
    let all: Vec<(&str, &LineOrigin)> = whole.iter().collect();
    let pick = |range: std::ops::Range<usize>| {
        SourceText::from_lines(
            all[range.start.min(all.len())..range.end.min(all.len())]
                .iter()
                .map(|(l, o)| (l.to_string(), (*o).clone())),
        )
    };
    let number = |s: &str| {
        s.parse::<usize>().map_err(|_| IncludeError::LineNumber {
            number: s.to_string(),
            target: target.to_string(),
        })
    };
    match selector.split_once(':') {
        Some((from, to)) => {
            let from = if from.is_empty() { 1 } else { number(from)? };
            let to = if to.is_empty() {
                all.len()
            } else {
                number(to)?
            };
            Ok(pick(from.saturating_sub(1)..to))
        }
        None if selector.chars().all(|c| c.is_ascii_digit()) && !selector.is_empty() => {
            let n = number(selector)?;
            Ok(pick(n.saturating_sub(1)..n))
        }
        None => anchor(&all, selector).ok_or_else(|| IncludeError::Anchor {
            anchor: selector.to_string(),
            path: path.to_string(),
        }),
    }
}

fn anchor(all: &[(&str, &LineOrigin)], name: &str) -> Option<SourceText> {
    let is_marker = |l: &str, kind: &str| {
        l.split_once(kind)
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(':'))
            && l.contains(&format!(": {name}"))
    };
    let start = all
        .iter()
        .position(|(l, _)| is_marker(l, "ANCHOR") && !l.contains("ANCHOR_END"))?;
    let end = all[start..]
        .iter()
        .position(|(l, _)| is_marker(l, "ANCHOR_END"))?
        + start;
    Some(SourceText::from_lines(
        all[start + 1..end]
            .iter()
            .filter(|(l, _)| !l.contains("ANCHOR:") && !l.contains("ANCHOR_END:"))
            .map(|(l, o)| (l.to_string(), (*o).clone())),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_forms_and_keeps_origins() {
        let dir = Path::new("/book/src");
        let body = "l1\n// ANCHOR: body\nl3\nl4\n// ANCHOR_END: body\nl6\n";
        let files = MemoryFiles([(dir.join("k.cu"), body.to_string())].into());
        let cases: &[(&str, &[(&str, usize)])] = &[
            (
                "{{#include k.cu}}",
                &[
                    ("l1", 1),
                    ("// ANCHOR: body", 2),
                    ("l3", 3),
                    ("l4", 4),
                    ("// ANCHOR_END: body", 5),
                    ("l6", 6),
                ],
            ),
            ("{{#include k.cu:3}}", &[("l3", 3)]),
            ("{{#include k.cu:3:4}}", &[("l3", 3), ("l4", 4)]),
            (
                "{{#include k.cu:5:}}",
                &[("// ANCHOR_END: body", 5), ("l6", 6)],
            ),
            ("{{#include k.cu::1}}", &[("l1", 1)]),
            ("{{ #include k.cu:body }}", &[("l3", 3), ("l4", 4)]),
        ];
        let chapter = dir.join("ch.md");
        for (directive, want) in cases {
            let text = SourceText::new(*directive, &chapter, 20);
            let out = expand(&text, dir, &files).unwrap();
            let got: Vec<(&str, usize)> = out.iter().map(|(l, o)| (l, o.line)).collect();
            assert_eq!(&got, want, "{directive}");
            assert!(out.lines.iter().all(|o| o.file.ends_with("k.cu")));
        }
    }

    #[test]
    fn missing_file_names_the_chapter_line() {
        let dir = Path::new("/book/src");
        let chapter = dir.join("ch.md");
        let text = SourceText::new("x\n{{#include nope.cu}}", &chapter, 7);
        let err = expand(&text, dir, &MemoryFiles(BTreeMap::new())).unwrap_err();
        assert_eq!((err.file.as_path(), err.line), (chapter.as_path(), 8));
        assert!(err.message.contains("nope.cu"), "{err}");
    }

    #[test]
    fn plain_lines_pass_through() {
        let text = SourceText::new("a\n{{ not a directive }}", Path::new("c.md"), 1);
        let out = expand(&text, Path::new("."), &MemoryFiles(BTreeMap::new())).unwrap();
        assert_eq!(out.text, "a\n{{ not a directive }}\n");
    }
}
