//! A CUDA kernel's own headers, written into it: each `#include "file"`
//! (quoted, so one of the book's) is replaced by the file's lines, which
//! keep their origin, so a compiler message inside a header points at the
//! header's line, and the text that is compiled, cached and recorded holds
//! everything the kernel's result depends on. A header included twice is
//! written once (as `#pragma once` and include guards would have it).
//! `#include <…>` (the toolkit's and CCCL's headers) is left to the compiler.
//!
//! Headers are read through the caller's [`Files`], which keeps them inside
//! the book; and a kernel with its headers is limited to [`MAX_SOURCE_BYTES`].

use crate::source::diag::Located;
use crate::source::include::Files;
use crate::source::text::{LineOrigin, SourceText};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The most text a kernel may have, its headers included: far beyond any
/// puzzle's, and small enough that no compiler takes minutes over it.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// `source` with every quoted `#include` replaced by the file it names.
pub fn expand(source: &SourceText, files: &dyn Files) -> Result<SourceText, Located> {
    let mut lines = Vec::new();
    let mut seen = BTreeSet::new();
    let mut bytes = 0;
    expand_into(source, files, &mut seen, &mut lines, &mut bytes, 0)?;
    Ok(SourceText::from_lines(lines))
}

/// Headers nested deeper than this are a cycle the set of seen files missed.
const MAX_DEPTH: usize = 32;

fn expand_into(
    source: &SourceText,
    files: &dyn Files,
    seen: &mut BTreeSet<PathBuf>,
    out: &mut Vec<(String, LineOrigin)>,
    bytes: &mut usize,
    depth: usize,
) -> Result<(), Located> {
    for (line, origin) in source.iter() {
        let Some(name) = quoted_include(line) else {
            *bytes += line.len() + 1;
            if *bytes > MAX_SOURCE_BYTES {
                return Err(too_long(origin));
            }
            out.push((line.to_string(), origin.clone()));
            continue;
        };
        let at = |message: String| Located::new(&origin.file, origin.line, message);
        if depth >= MAX_DEPTH {
            return Err(at(format!(
                "`#include \"{name}\"` nests {MAX_DEPTH} headers deep; do two headers include each other?"
            )));
        }
        let path = normalize(&origin.file.parent().unwrap_or(Path::new(".")).join(name));
        // The directive's line stays (empty), so later lines keep their numbers in messages.
        out.push((String::new(), origin.clone()));
        if !seen.insert(path.clone()) {
            continue;
        }
        let header = files
            .read(&path)
            .map_err(|e| {
                at(format!(
                    "`#include \"{name}\"`: cannot read {}: {e}",
                    path.display()
                ))
            })
            .and_then(|b| SourceText::from_bytes(b, &path))?;
        expand_into(&header, files, seen, out, bytes, depth + 1)?;
    }
    Ok(())
}

/// `source` as its own file reads: the lines that [`expand`] wrote in from
/// headers folded back into their `#include "…"` lines. A page shows each
/// kernel's own code this way, and the headers once, where the book shows
/// them; the line numbers are the file's, as messages give them.
pub fn folded(source: &SourceText) -> String {
    let Some(main) = source.main_file() else {
        return source.text.clone();
    };
    let lines: Vec<(&str, &LineOrigin)> = source.iter().collect();
    let mut out: Vec<String> = Vec::new();
    for (i, (line, origin)) in lines.iter().enumerate() {
        if origin.file != main {
            continue;
        }
        // A directive's line is left empty, and its header's first line follows.
        let header = lines
            .get(i + 1)
            .map(|(_, o)| *o)
            .filter(|o| o.file != main && o.line == 1);
        match header {
            Some(h) if line.is_empty() => {
                let dir = main.parent().unwrap_or(Path::new(""));
                out.push(format!("#include \"{}\"", relative(dir, &h.file).display()));
            }
            _ => out.push(line.to_string()),
        }
    }
    let mut text = out.join("\n");
    if source.text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// `to` as a path from the folder `from` (`../hopper/tma.cuh`).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let (from, to) = (normalize(from), normalize(to));
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in from.components().skip(common) {
        out.push("..");
    }
    for part in to.components().skip(common) {
        out.push(part);
    }
    out
}

/// `"helper.cuh"` of `#include "helper.cuh"` (leading blanks, `# include` and a trailing comment allowed).
fn quoted_include(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?;
    let rest = rest.trim_start().strip_prefix("include")?;
    let rest = rest.trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(&rest[..end])
}

/// `a/./b/../c` as `a/c`, so one header reached two ways is seen once.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn too_long(origin: &LineOrigin) -> Located {
    Located::new(
        &origin.file,
        origin.line,
        format!(
            "the kernel and its headers pass {} KiB of text here; kernels are limited to that \
             (a compiler can take minutes over a larger source)",
            MAX_SOURCE_BYTES >> 10
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::include::MemoryFiles;

    fn files() -> MemoryFiles {
        MemoryFiles(
            [
                (
                    "/b/kernels/p/helper.cuh",
                    "#pragma once\nint twice(int x);\n",
                ),
                (
                    "/b/kernels/common/math.cuh",
                    "#include \"../p/helper.cuh\"\nint thrice(int x);\n",
                ),
                ("/b/kernels/p/loop_a.cuh", "#include \"loop_b.cuh\"\n"),
                (
                    "/b/kernels/p/loop_b.cuh",
                    "#include \"loop_a.cuh\"\nint b;\n",
                ),
            ]
            .into_iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect(),
        )
    }

    fn kernel(text: &str) -> SourceText {
        SourceText::new(text, Path::new("/b/kernels/p/k.cu"), 1)
    }

    /// Folding gives back the file as written, whatever its headers hold.
    #[test]
    fn folded_gives_back_the_file_table() {
        let cases = [
            "#include \"helper.cuh\"\nint main() {}\n",
            "// k\n#include \"../common/math.cuh\"\n\nint k;\n",
            "int a;\n#include \"helper.cuh\"\n#include \"helper.cuh\"\nint b;\n",
            "no headers at all\n",
        ];
        for text in cases {
            let expanded = expand(&kernel(text), &files()).unwrap();
            assert_ne!(
                expanded.text.lines().count(),
                0,
                "{text:?} expanded to nothing"
            );
            let back = folded(&expanded);
            // A header written once is a blank line the second time.
            let want = text.replacen(
                "#include \"helper.cuh\"\n#include \"helper.cuh\"",
                "#include \"helper.cuh\"\n",
                1,
            );
            assert_eq!(back, want, "{text:?}");
        }
    }

    /// (kernel, its lines after expansion as (text, file, line), or the error's words)
    #[test]
    fn headers_are_written_in_with_their_origins() {
        type Want = Result<Vec<(&'static str, &'static str, usize)>, &'static str>;
        let cases: Vec<(&str, Want)> = vec![
            (
                "#include \"helper.cuh\"\nint k;\n",
                Ok(vec![
                    ("", "k.cu", 1),
                    ("#pragma once", "helper.cuh", 1),
                    ("int twice(int x);", "helper.cuh", 2),
                    ("int k;", "k.cu", 2),
                ]),
            ),
            // Twice directly, and once more through another header: written once.
            (
                "#include \"helper.cuh\"\n  # include \"../common/math.cuh\" // maths\n#include \"helper.cuh\"\n",
                Ok(vec![
                    ("", "k.cu", 1),
                    ("#pragma once", "helper.cuh", 1),
                    ("int twice(int x);", "helper.cuh", 2),
                    ("", "k.cu", 2),
                    ("", "math.cuh", 1),
                    ("int thrice(int x);", "math.cuh", 2),
                    ("", "k.cu", 3),
                ]),
            ),
            // The toolkit's headers stay for the compiler.
            (
                "#include <cuda/std/mdspan>\n",
                Ok(vec![("#include <cuda/std/mdspan>", "k.cu", 1)]),
            ),
            // Two headers that include each other: each is written once.
            (
                "#include \"loop_a.cuh\"\n",
                Ok(vec![
                    ("", "k.cu", 1),
                    ("", "loop_a.cuh", 1),
                    ("", "loop_b.cuh", 1),
                    ("int b;", "loop_b.cuh", 2),
                ]),
            ),
            (
                "#include \"missing.cuh\"\n",
                Err("cannot read /b/kernels/p/missing.cuh"),
            ),
        ];
        for (text, want) in cases {
            let got = expand(&kernel(text), &files());
            match (got, want) {
                (Ok(source), Ok(want)) => {
                    let got: Vec<(&str, String, usize)> = source
                        .iter()
                        .map(|(l, o)| {
                            (
                                l,
                                o.file.file_name().unwrap().to_string_lossy().into_owned(),
                                o.line,
                            )
                        })
                        .collect();
                    let want: Vec<(&str, String, usize)> = want
                        .into_iter()
                        .map(|(l, f, n)| (l, f.to_string(), n))
                        .collect();
                    assert_eq!(got, want, "{text}");
                }
                (Err(e), Err(words)) => {
                    assert!(e.message.contains(words), "{text}: {e}");
                    assert_eq!(e.line, 1, "{text}: {e}");
                }
                (got, _) => panic!("{text}: {got:?}"),
            }
        }
    }

    #[test]
    fn sources_past_the_limit_are_refused_at_the_line() {
        let big = "x".repeat(1000) + "\n";
        let text = big.repeat(MAX_SOURCE_BYTES / 1000 + 5);
        let err = expand(&kernel(&text), &files()).unwrap_err();
        assert!(err.message.contains("limited"), "{err}");
        assert!(err.line > 1000, "{err}");
    }
}
