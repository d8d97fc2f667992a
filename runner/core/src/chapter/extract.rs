//! Finds the puzzle blocks and kernel blocks of a chapter.
//!
//! pulldown-cmark gives each fenced block's byte range, so the preprocessor
//! can splice results in place without re-serialising the markdown (which
//! would disturb everything else on the page).
//!
//! - ```` ```puzzle ```` holds a spec (YAML);
//! - ```` ```cuda,puzzle=ID ```` and ```` ```wgsl,puzzle=ID ```` hold kernels;
//! - ```` ```roofline ````, ```` ```precision ````, ```` ```bus ```` and
//!   ```` ```overlap ```` hold what the preprocessor draws from the recorded
//!   results (YAML).

use crate::lang::Lang;
use crate::source::diag::{LineIndex, Located};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::ops::Range;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockKind {
    Puzzle,
    Kernel {
        lang: Lang,
        puzzle: String,
    },
    /// A roofline chart of several puzzles' recorded runs (drawn by the book's preprocessor).
    Roofline,
    /// Tables of how number formats rounded on the GPU machines (results/precision/).
    Precision,
    /// A collective's bus bandwidth against message size beside NCCL's, per
    /// recorded host of several GPUs (drawn by the book's preprocessor).
    Bus,
    /// Computation and communication timed alone, one after the other and
    /// overlapped, per recorded host of several GPUs (drawn by the book's
    /// preprocessor).
    Overlap,
}

/// A fenced block this book cares about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    /// Bytes of the whole block, fences included.
    pub range: Range<usize>,
    /// The block's text, without fences or indentation.
    pub body: String,
    /// Chapter line of the body's first line.
    pub body_line: usize,
}

/// Every puzzle and kernel block of `markdown`, in order. `file` is only used in errors.
pub fn blocks(markdown: &str, file: &Path) -> Result<Vec<Block>, Located> {
    let mut found = Vec::new();
    let lines = LineIndex::new(markdown);
    let mut current: Option<(BlockKind, Range<usize>, String, Option<usize>)> = None;
    for (event, range) in Parser::new_ext(markdown, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let line = lines.line(range.start);
                if let Some(kind) =
                    classify(&info).map_err(|m| Located::new(file, line, m.to_string()))?
                {
                    current = Some((kind, range, String::new(), None));
                }
            }
            Event::Text(text) => {
                if let Some((_, _, body, first)) = current.as_mut() {
                    first.get_or_insert(range.start);
                    body.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((kind, range, body, first)) = current.take() {
                    let body_line = match first {
                        Some(offset) => lines.line(offset),
                        None => lines.line(range.start) + 1,
                    };
                    found.push(Block {
                        kind,
                        range,
                        body,
                        body_line,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(found)
}

/// A fence's info string that names a puzzle block wrongly; the words go to
/// the fence's line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum FenceError {
    /// ```` ```puzzle ````, ```` ```roofline ````, ```` ```precision ````,
    /// ```` ```bus ```` or ```` ```overlap ```` with more after it.
    #[error("a ```{block} block takes no attributes, found `{extra}`")]
    Attributes { block: String, extra: String },
    #[error("unknown attribute `{0}` on a kernel block (expected `puzzle=ID`)")]
    UnknownAttribute(String),
    #[error("kernel block for `{puzzle}` has language `{lang}`; use `cuda` or `wgsl`")]
    Language { puzzle: String, lang: String },
}

/// Reads a fence's info string. `Ok(None)` is an ordinary code block.
fn classify(info: &str) -> Result<Option<BlockKind>, FenceError> {
    let mut words = info
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty());
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let attrs: Vec<&str> = words.collect();
    if matches!(
        first,
        "puzzle" | "roofline" | "precision" | "bus" | "overlap"
    ) {
        if let Some(extra) = attrs.first() {
            return Err(FenceError::Attributes {
                block: first.to_string(),
                extra: extra.to_string(),
            });
        }
        return Ok(Some(match first {
            "puzzle" => BlockKind::Puzzle,
            "roofline" => BlockKind::Roofline,
            "bus" => BlockKind::Bus,
            "overlap" => BlockKind::Overlap,
            _ => BlockKind::Precision,
        }));
    }
    let mut puzzle = None;
    for attr in &attrs {
        match attr.split_once('=') {
            Some(("puzzle", id)) if !id.is_empty() => puzzle = Some(id.to_string()),
            _ if puzzle.is_none() && !attr.starts_with("puzzle") => continue,
            _ => {
                return Err(FenceError::UnknownAttribute(attr.to_string()));
            }
        }
    }
    let Some(puzzle) = puzzle else {
        return Ok(None);
    };
    let lang = Lang::from_fence(first).ok_or_else(|| FenceError::Language {
        puzzle: puzzle.clone(),
        lang: first.to_string(),
    })?;
    Ok(Some(BlockKind::Kernel { lang, puzzle }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAPTER: &str = "# Title\n\n```puzzle\nid: p01\n```\n\nText.\n\n```cuda,puzzle=p01\nint x;\n```\n\n```rust\nfn main() {}\n```\n\n- item\n\n  ```wgsl,puzzle=p01\n  fn f() {}\n  ```\n";

    #[test]
    fn finds_blocks_with_ranges_and_lines() {
        let found = blocks(CHAPTER, Path::new("c.md")).unwrap();
        let summary: Vec<(BlockKind, &str, usize)> = found
            .iter()
            .map(|b| (b.kind.clone(), b.body.as_str(), b.body_line))
            .collect();
        assert_eq!(
            summary,
            [
                (BlockKind::Puzzle, "id: p01\n", 4),
                (
                    BlockKind::Kernel {
                        lang: Lang::Cuda,
                        puzzle: "p01".into()
                    },
                    "int x;\n",
                    10
                ),
                (
                    BlockKind::Kernel {
                        lang: Lang::Wgsl,
                        puzzle: "p01".into()
                    },
                    "fn f() {}\n",
                    20
                ),
            ]
        );
        for b in &found {
            let text = &CHAPTER[b.range.clone()];
            assert!(
                text.trim_start().starts_with("```") && text.trim_end().ends_with("```"),
                "{text}"
            );
        }
    }

    #[test]
    fn info_strings_table() {
        let cases: &[(&str, Result<Option<BlockKind>, &str>)] = &[
            ("rust", Ok(None)),
            ("", Ok(None)),
            ("cuda", Ok(None)),
            ("puzzle", Ok(Some(BlockKind::Puzzle))),
            ("roofline", Ok(Some(BlockKind::Roofline))),
            ("precision", Ok(Some(BlockKind::Precision))),
            ("precision gemm", Err("takes no attributes")),
            ("bus", Ok(Some(BlockKind::Bus))),
            (
                "bus,nccl",
                Err("a ```bus block takes no attributes, found `nccl`"),
            ),
            ("busy", Ok(None)),
            ("overlap", Ok(Some(BlockKind::Overlap))),
            (
                "overlap mlp",
                Err("a ```overlap block takes no attributes, found `mlp`"),
            ),
            ("overlapped", Ok(None)),
            ("cuda,overlap", Ok(None)),
            (
                "wgsl puzzle=p1",
                Ok(Some(BlockKind::Kernel {
                    lang: Lang::Wgsl,
                    puzzle: "p1".into(),
                })),
            ),
            ("puzzle,x", Err("takes no attributes")),
            ("glsl,puzzle=p1", Err("use `cuda` or `wgsl`")),
            ("cuda,puzzle=", Err("unknown attribute")),
            ("cuda,puzzle=p1,variant", Err("unknown attribute `variant`")),
        ];
        for (info, want) in cases {
            match (classify(info), want) {
                (Ok(got), Ok(want)) => assert_eq!(&got, want, "{info}"),
                (Err(got), Err(want)) => assert!(got.to_string().contains(want), "{info}: {got}"),
                (got, want) => panic!("{info}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn bad_fence_names_its_line() {
        let err = blocks("a\n\n```glsl,puzzle=p\n```\n", Path::new("c.md")).unwrap_err();
        assert_eq!(err.line, 3);
    }
}
