//! A spec's constants written into the kernel's own definitions of them.
//!
//! A kernel's tile sizes live in two places: the spec (which sizes the grid
//! from them) and the kernel (which sizes its arrays from them). The kernel
//! file holds the teaching values, which is what the page shows; a stress or
//! benchmark case may change a constant (`{ SIZE: 4096, BM: 128 }`), and then
//! the kernel must be compiled with the new value too. So before a kernel is
//! compiled, each definition of a spec constant is rewritten in place:
//!
//! - CUDA: `#define NAME 8` at the start of a line;
//! - WGSL: `const NAME: u32 = 8u;` (or `i32`, or no type) at module scope.
//!
//! Only integer literals are rewritten (`#define ROWS (TILE / 4)` is left to
//! follow from the others), and the line count never changes, so compiler
//! messages still point at the right line of the file.

use crate::lang::Lang;
use crate::source::text::{LineOrigin, SourceText};
use crate::spec::expr::Constants;

/// One definition of a spec constant found in a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// 0-based line index into the source.
    pub line: usize,
    pub name: String,
    pub value: i64,
}

/// `source` with every definition of a constant in `constants` set to the spec's value.
pub fn apply(source: &SourceText, lang: Lang, constants: &Constants) -> SourceText {
    let lines = source.iter().map(|(line, origin)| {
        let rewritten = parse(line, lang)
            .and_then(|d| Some((constants.get(d.name)?, d)))
            .map(|(value, d)| {
                format!(
                    "{}{}{}{}",
                    &line[..d.start],
                    value,
                    d.suffix,
                    &line[d.end..]
                )
            });
        (
            rewritten.unwrap_or_else(|| line.to_string()),
            LineOrigin::clone(origin),
        )
    });
    SourceText::from_lines(lines)
}

/// The definitions in `source` of constants in `constants`, with the file's values.
pub fn definitions(source: &SourceText, lang: Lang, constants: &Constants) -> Vec<Definition> {
    source
        .iter()
        .enumerate()
        .filter_map(|(i, (line, _))| {
            let d = parse(line, lang)?;
            constants.contains_key(d.name).then(|| Definition {
                line: i,
                name: d.name.to_string(),
                value: d.value,
            })
        })
        .collect()
}

/// Where the integer literal of a definition sits in its line.
struct Literal<'a> {
    name: &'a str,
    value: i64,
    /// Byte range of the digits.
    start: usize,
    end: usize,
    /// `u` or `i` after a WGSL literal, kept so the type does not change.
    suffix: &'a str,
}

fn parse(line: &str, lang: Lang) -> Option<Literal<'_>> {
    match lang {
        Lang::Cuda => parse_define(line),
        Lang::Wgsl => parse_const(line),
    }
}

/// `#define NAME 123` (a trailing comment is allowed).
fn parse_define(line: &str) -> Option<Literal<'_>> {
    let rest = line.strip_prefix("#define")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let (name, after_name) = word(rest)?;
    let (digits_at, digits) = digits(after_name)?;
    let start = line.len() - after_name.len() + digits_at;
    let end = start + digits.len();
    let tail = line[end..].trim_start_matches(['u', 'U']);
    if !(tail.trim().is_empty() || tail.trim_start().starts_with("//")) {
        return None;
    }
    let suffix_len = line[end..].len() - tail.len();
    Some(Literal {
        name,
        value: digits.parse().ok()?,
        start,
        end: end + suffix_len,
        suffix: &line[end..end + suffix_len],
    })
}

/// `const NAME: u32 = 123u;` or `const NAME = 123;` at module scope.
fn parse_const(line: &str) -> Option<Literal<'_>> {
    let rest = line.strip_prefix("const ")?;
    let (name, mut after) = word(rest)?;
    if let Some(typed) = after.trim_start().strip_prefix(':') {
        let (ty, after_ty) = word(typed)?;
        if ty != "u32" && ty != "i32" {
            return None;
        }
        after = after_ty;
    }
    let after_eq = after.trim_start().strip_prefix('=')?;
    let (digits_at, digits) = digits(after_eq)?;
    let start = line.len() - after_eq.len() + digits_at;
    let end = start + digits.len();
    let tail = &line[end..];
    let suffix_len = usize::from(tail.starts_with(['u', 'i']));
    if !tail[suffix_len..].trim_start().starts_with(';') {
        return None;
    }
    Some(Literal {
        name,
        value: digits.parse().ok()?,
        start,
        end: end + suffix_len,
        suffix: &tail[..suffix_len],
    })
}

/// The identifier after leading blanks, and what follows it.
fn word(text: &str) -> Option<(&str, &str)> {
    let trimmed = text.trim_start();
    let len = trimmed
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(trimmed.len());
    (len > 0).then(|| (&trimmed[..len], &trimmed[len..]))
}

/// The run of decimal digits after leading blanks: its offset in `text`, and the digits.
fn digits(text: &str) -> Option<(usize, &str)> {
    let trimmed = text.trim_start();
    let at = text.len() - trimmed.len();
    let len = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    (len > 0).then(|| (at, &trimmed[..len]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn constants() -> Constants {
        [("TILE".to_string(), 128), ("BK".to_string(), 16)].into()
    }

    #[test]
    fn definitions_are_rewritten_in_place() {
        // (language, line, rewritten line)
        let cases = [
            (Lang::Cuda, "#define TILE 8", "#define TILE 128"),
            (
                Lang::Cuda,
                "#define TILE 8u  // rows",
                "#define TILE 128u  // rows",
            ),
            (Lang::Cuda, "#define  BK\t4", "#define  BK\t16"),
            (Lang::Cuda, "#define TILES 8", "#define TILES 8"),
            (
                Lang::Cuda,
                "#define ROWS (TILE / 4)",
                "#define ROWS (TILE / 4)",
            ),
            (Lang::Cuda, "#define TILE 8 + 1", "#define TILE 8 + 1"),
            (Lang::Cuda, "  int TILE = 8;", "  int TILE = 8;"),
            (Lang::Cuda, "#defineTILE 8", "#defineTILE 8"),
            (
                Lang::Wgsl,
                "const TILE: u32 = 8u;",
                "const TILE: u32 = 128u;",
            ),
            (
                Lang::Wgsl,
                "const TILE = 8;  // x",
                "const TILE = 128;  // x",
            ),
            (Lang::Wgsl, "const BK: i32 = 4i;", "const BK: i32 = 16i;"),
            (
                Lang::Wgsl,
                "const TILE: f32 = 8.0;",
                "const TILE: f32 = 8.0;",
            ),
            (
                Lang::Wgsl,
                "const ROWS: u32 = TILE / 4u;",
                "const ROWS: u32 = TILE / 4u;",
            ),
            (Lang::Wgsl, "    const TILE = 8u;", "    const TILE = 8u;"),
        ];
        for (lang, line, want) in cases {
            let source = SourceText::new(format!("{line}\nnext\n"), Path::new("k"), 1);
            let got = apply(&source, lang, &constants());
            assert_eq!(got.text, format!("{want}\nnext\n"), "{line}");
            assert_eq!(got.lines, source.lines, "{line}");
        }
    }

    #[test]
    fn definitions_report_the_file_values() {
        let text = "#define TILE 8\n#define OTHER 3\n\n#define BK 4\n";
        let source = SourceText::new(text, Path::new("k.cu"), 1);
        let found = definitions(&source, Lang::Cuda, &constants());
        let found: Vec<_> = found
            .iter()
            .map(|d| (d.line, d.name.as_str(), d.value))
            .collect();
        assert_eq!(found, [(0, "TILE", 8), (3, "BK", 4)]);
    }
}
