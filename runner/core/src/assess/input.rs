//! The learner's file as a kernel, or the reason it cannot be one.
//!
//! An empty file, a binary one, or one that no longer defines the kernel the
//! puzzle launches would otherwise reach the compiler and come back as a
//! puzzling message; here each gets a sentence that says what to do next.

use crate::chapter::puzzle::Puzzle;
use crate::lang::Lang;
use crate::source::diag::display_path;
use crate::source::text::SourceText;
use crate::spec::expr::Constants;
use serde::Serialize;
use std::path::Path;

/// Why a learner's file was not handed to a compiler.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BadInput {
    Missing,
    Empty,
    /// A NUL byte, or bytes that are not UTF-8.
    Binary,
    /// None of these kernel names appears in the file.
    NoEntryPoint {
        kernels: Vec<String>,
    },
}

impl BadInput {
    /// The stable name used in JSON.
    pub fn code(&self) -> &'static str {
        match self {
            BadInput::Missing => "missing",
            BadInput::Empty => "empty",
            BadInput::Binary => "binary",
            BadInput::NoEntryPoint { .. } => "no_entry_point",
        }
    }

    /// What is wrong with `file`, and what to do about it: two sentences.
    pub fn describe(&self, file: &Path, puzzle: &str, lang: Lang) -> (String, String) {
        let file = display_path(file);
        let reset = format!("`runner reset {puzzle} --lang {lang}`");
        match self {
            BadInput::Missing => (
                format!("{file} does not exist."),
                format!(
                    "{reset} writes the skeleton there again (so does any `runner check`: it \
                     recreates every missing copy)."
                ),
            ),
            BadInput::Empty => (
                format!("{file} is empty."),
                format!(
                    "Write your kernel there, starting from the skeleton: {reset} puts it back."
                ),
            ),
            BadInput::Binary => (
                format!(
                    "{file} is not a text file (it holds a NUL byte or bytes that are not UTF-8)."
                ),
                format!(
                    "Save it as plain UTF-8 text, or run {reset} to start again from the \
                     skeleton (your file is kept beside it as .bak)."
                ),
            ),
            BadInput::NoEntryPoint { kernels } => {
                let names: Vec<String> = kernels.iter().map(|k| format!("`{k}`")).collect();
                let how = match lang {
                    Lang::Wgsl => "`@compute @workgroup_size(…) fn NAME(…)`",
                    Lang::Cuda => "`extern \"C\" __global__ void NAME(…)`",
                };
                (
                    format!(
                        "{file} does not define {}, the kernel the puzzle launches.",
                        names.join(" and ")
                    ),
                    format!(
                        "Keep the skeleton's {how} and write inside it; {reset} restores the \
                         skeleton (your file is kept beside it as .bak)."
                    ),
                )
            }
        }
    }
}

/// The learner's file for `puzzle` as a kernel (`bytes`: its contents, or
/// `None` where it could not be read), or why it cannot be one.
pub fn validate(
    bytes: Option<Vec<u8>>,
    file: &Path,
    puzzle: &Puzzle,
) -> Result<SourceText, BadInput> {
    let Some(bytes) = bytes else {
        return Err(BadInput::Missing);
    };
    if bytes.contains(&0) {
        return Err(BadInput::Binary);
    }
    let text = String::from_utf8(bytes).map_err(|_| BadInput::Binary)?;
    if text.trim().is_empty() {
        return Err(BadInput::Empty);
    }
    let missing: Vec<String> = kernel_names(puzzle)
        .into_iter()
        .filter(|name| !mentions(&text, name))
        .collect();
    if !missing.is_empty() {
        return Err(BadInput::NoEntryPoint { kernels: missing });
    }
    Ok(SourceText::new(text, file, 1))
}

/// Every kernel the puzzle launches (one, or one per step).
fn kernel_names(puzzle: &Puzzle) -> Vec<String> {
    let mut names: Vec<String> = puzzle
        .spec
        .resolve(&Constants::new())
        .map(|spec| spec.launches.into_iter().map(|l| l.kernel).collect())
        .unwrap_or_default();
    names.dedup();
    names
}

/// Whether `name` occurs in `text` as a whole identifier. A name that is not
/// there at all is certainly not defined; one that is, the compiler judges.
fn mentions(text: &str, name: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_table() {
        let book = crate::test_book::book();
        let p1 = book.find("p1").unwrap();
        let file = Path::new("/w/.learner/p1/k.wgsl");
        let cases: &[(&str, &[u8], Option<BadInput>)] = &[
            ("empty", b"", Some(BadInput::Empty)),
            ("blank lines", b"\n  \n", Some(BadInput::Empty)),
            ("NUL byte", b"fn k() {}\0", Some(BadInput::Binary)),
            ("not UTF-8", b"fn k() { \xff }", Some(BadInput::Binary)),
            (
                "renamed kernel",
                b"fn k2() {}",
                Some(BadInput::NoEntryPoint {
                    kernels: vec!["k".into()],
                }),
            ),
            ("defines it", b"fn k() {}", None),
        ];
        for (name, bytes, want) in cases {
            assert_eq!(
                validate(Some(bytes.to_vec()), file, p1).err(),
                *want,
                "{name}"
            );
        }
        assert_eq!(validate(None, file, p1).err(), Some(BadInput::Missing));
    }

    #[test]
    fn messages_say_what_to_do_next() {
        let file = Path::new("/w/.learner/p1/k.wgsl");
        let cases = [
            (BadInput::Empty, "is empty"),
            (BadInput::Binary, "not a text file"),
            (
                BadInput::NoEntryPoint {
                    kernels: vec!["k".into()],
                },
                "does not define `k`",
            ),
            (BadInput::Missing, "does not exist"),
        ];
        for (bad, phrase) in cases {
            let (what, next) = bad.describe(file, "p1", Lang::Wgsl);
            assert!(what.contains(phrase), "{what}");
            assert!(next.contains("`runner reset p1 --lang wgsl`"), "{next}");
        }
    }

    #[test]
    fn mentions_whole_identifiers_only() {
        for (text, want) in [
            ("fn add_10(", true),
            ("fn add_10_guard(", false),
            ("my_add_10", false),
            ("x = add_10;", true),
        ] {
            assert_eq!(mentions(text, "add_10"), want, "{text}");
        }
    }
}
