//! `{{#include}}` expansion, as mdBook's `links` preprocessor does it.
//!
//! The runner reads chapters straight from `src/` (the CLI and the tests run
//! without mdBook), so it expands includes itself, keeping for every line the
//! file and line it came from. Supported forms, as in mdBook:
//! `{{#include file}}`, `file:N` (line N), `file:N:M`, `file:N:`, `file::M`
//! and `file:anchor` (between `ANCHOR: anchor` and `ANCHOR_END: anchor`).

use crate::diag::Located;
use crate::source::{LineOrigin, SourceText};
use std::path::Path;

/// Expands every include in `text` (a block of a chapter). Paths are relative to `base_dir`.
pub fn expand(text: &SourceText, base_dir: &Path) -> Result<SourceText, Located> {
    let mut lines = Vec::new();
    for (line, origin) in text.iter() {
        match find_directive(line) {
            None => lines.push((line.to_string(), origin.clone())),
            Some((before, target, after)) => {
                let included = include(target, base_dir)
                    .map_err(|message| Located::new(&origin.file, origin.line, message))?;
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

fn include(target: &str, base_dir: &Path) -> Result<SourceText, String> {
    let (path, selector) = match target.split_once(':') {
        Some((p, s)) => (p, Some(s)),
        None => (target, None),
    };
    let file = base_dir.join(path);
    let whole =
        SourceText::read(&file).map_err(|e| format!("{{{{#include {target}}}}}: {}", e.message))?;
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
        s.parse::<usize>()
            .map_err(|_| format!("bad line number `{s}` in {{{{#include {target}}}}}"))
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
        None => {
            anchor(&all, selector).ok_or_else(|| format!("anchor `{selector}` not found in {path}"))
        }
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
        let dir = tempfile::tempdir().unwrap();
        let body = "l1\n// ANCHOR: body\nl3\nl4\n// ANCHOR_END: body\nl6\n";
        std::fs::write(dir.path().join("k.cu"), body).unwrap();
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
        let chapter = dir.path().join("ch.md");
        for (directive, want) in cases {
            let text = SourceText::new(*directive, &chapter, 20);
            let out = expand(&text, dir.path()).unwrap();
            let got: Vec<(&str, usize)> = out.iter().map(|(l, o)| (l, o.line)).collect();
            assert_eq!(&got, want, "{directive}");
            assert!(out.lines.iter().all(|o| o.file.ends_with("k.cu")));
        }
    }

    #[test]
    fn missing_file_names_the_chapter_line() {
        let dir = tempfile::tempdir().unwrap();
        let chapter = dir.path().join("ch.md");
        let text = SourceText::new("x\n{{#include nope.cu}}", &chapter, 7);
        let err = expand(&text, dir.path()).unwrap_err();
        assert_eq!((err.file.as_path(), err.line), (chapter.as_path(), 8));
        assert!(err.message.contains("nope.cu"), "{err}");
    }

    #[test]
    fn plain_lines_pass_through() {
        let text = SourceText::new("a\n{{ not a directive }}", Path::new("c.md"), 1);
        let out = expand(&text, Path::new(".")).unwrap();
        assert_eq!(out.text, "a\n{{ not a directive }}\n");
    }
}
