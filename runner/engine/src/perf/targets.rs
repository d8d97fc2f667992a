//! What the book's pages ask of one puzzle's kernel: a share of its
//! measured roof, or of a library's speed, as their ```roofline blocks
//! state it (`targets`, `baseline.targets`). `runner bench --file` holds a
//! learner's kernel against them.
//!
//! Only blocks at `sizes: bench` count: their targets refer to the spec's
//! first `bench` case, the size `runner bench` times by default.

use crate::book::load;
use crate::perf::roofline_block::{BlockError, RooflineBlock, Sizes};
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::extract::{self, BlockKind};
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::Located;
use std::path::PathBuf;

/// One target a page sets for a kernel.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PageTarget {
    /// The chapter that sets it, under `src/`.
    pub page: PathBuf,
    /// The share to reach, in percent.
    pub percent: f64,
    pub of: Goal,
}

/// What a target is a share of.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// The binding roof of the GPU's measured ceilings.
    Roof,
    /// A library's speed at the same size on the same GPU; `name` is the
    /// case name in `results/baselines/` (e.g. "sgemm").
    Library { name: String },
}

/// A page that names a target could not be read, or its block is malformed.
#[derive(Debug, thiserror::Error)]
pub enum TargetsError {
    #[error("{0}")]
    Chapter(#[from] Located),
    // `error`, not `source`: its words are in the message already.
    #[error("{page}:{line}: {error}")]
    Block {
        page: PathBuf,
        line: usize,
        error: BlockError,
    },
}

/// Every target the book's pages set for `puzzle`'s `lang` kernel, in reading order.
pub fn targets(book: &Book, puzzle: &str, lang: Lang) -> Result<Vec<PageTarget>, TargetsError> {
    let mut found = Vec::new();
    for entry in load::read_summary(&book.src)? {
        let markdown = std::fs::read_to_string(&entry.path)
            .map_err(|e| Located::new(&entry.path, 0, format!("cannot read the chapter: {e}")))?;
        let page = entry
            .path
            .strip_prefix(&book.src)
            .unwrap_or(&entry.path)
            .to_path_buf();
        found.extend(page_targets(&markdown, &page, puzzle, lang)?);
    }
    Ok(found)
}

/// The targets one chapter's markdown sets for `puzzle` in `lang`.
fn page_targets(
    markdown: &str,
    page: &std::path::Path,
    puzzle: &str,
    lang: Lang,
) -> Result<Vec<PageTarget>, TargetsError> {
    let mut found = Vec::new();
    for block in extract::blocks(markdown, page)? {
        if block.kind != BlockKind::Roofline {
            continue;
        }
        let parsed = RooflineBlock::parse(&block.body).map_err(|error| TargetsError::Block {
            page: page.to_path_buf(),
            line: block.body_line,
            error,
        })?;
        if parsed.lang != lang || parsed.sizes != Sizes::Bench {
            continue;
        }
        let target = |percent: f64, of: Goal| PageTarget {
            page: page.to_path_buf(),
            percent,
            of,
        };
        for t in parsed.targets.iter().filter(|t| t.puzzle == puzzle) {
            found.push(target(t.percent, Goal::Roof));
        }
        if let Some(baseline) = &parsed.baseline {
            for t in baseline.targets.iter().filter(|t| t.puzzle == puzzle) {
                let of = Goal::Library {
                    name: baseline.name.clone(),
                };
                found.push(target(t.percent, of));
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fence(yaml: &str) -> String {
        format!("# A page\n\n```roofline\n{yaml}```\n")
    }

    /// (case, the page, the puzzle and language asked about, the targets' (percent, goal))
    #[test]
    fn page_targets_table() {
        let sgemm = "title: t\nlang: cuda\nsizes: bench\npuzzles: [a, b]\n\
                     targets: [{ puzzle: a, percent: 80 }]\n\
                     baseline: { name: sgemm, targets: [{ puzzle: a, percent: 90 }, { puzzle: b, percent: 95 }] }\n";
        let teaching =
            "title: t\nlang: cuda\npuzzles: [a]\ntargets: [{ puzzle: a, percent: 50 }]\n";
        let library = || Goal::Library {
            name: "sgemm".into(),
        };
        let cases: [(&str, String, &str, Lang, Vec<(f64, Goal)>); 5] = [
            (
                "roof and library",
                fence(sgemm),
                "a",
                Lang::Cuda,
                vec![(80.0, Goal::Roof), (90.0, library())],
            ),
            (
                "library only",
                fence(sgemm),
                "b",
                Lang::Cuda,
                vec![(95.0, library())],
            ),
            ("another language", fence(sgemm), "a", Lang::Wgsl, vec![]),
            (
                "a teaching-size block refers to no bench size",
                fence(teaching),
                "a",
                Lang::Cuda,
                vec![],
            ),
            ("no block", "# Plain\n".into(), "a", Lang::Cuda, vec![]),
        ];
        for (name, page, puzzle, lang, want) in cases {
            let got: Vec<(f64, Goal)> = page_targets(&page, Path::new("p.md"), puzzle, lang)
                .unwrap()
                .into_iter()
                .map(|t| (t.percent, t.of))
                .collect();
            assert_eq!(got, want, "{name}");
        }
        let broken = fence("title: t\npuzzles: [a]\nbogus: 1\n");
        let error = page_targets(&broken, Path::new("p.md"), "a", Lang::Cuda).unwrap_err();
        assert!(error.to_string().starts_with("p.md:4: "), "{error}");
    }
}
