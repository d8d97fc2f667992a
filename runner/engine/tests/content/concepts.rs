//! The order of ideas: no chapter uses a concept before the chapter that
//! teaches it. `concepts.toml` (beside `book.toml`) names each concept, the
//! page that teaches it, and the words that use it; the chapters are read
//! in `SUMMARY.md`'s order, with the kernels they include, and every use on
//! an earlier page is reported at its line.
//!
//! A forward reference is not a use: a mention in a `## Looking ahead`
//! section, or in a paragraph that links to the teaching page, tells the
//! reader where the idea is taught.
//!
//! `taught` may name a heading (`page.md#anchor`, mdBook's id): the page's
//! lines above that heading come before the teaching too, and a page
//! without the heading is reported (the teaching is gone). `introduced`
//! names an earlier page that gives the idea a short introduction: the
//! first use there must be in a paragraph that links the teaching page,
//! and from that page on the idea counts as known.

use puzzle_core::source::diag::Located;
use runner::book::read_summary;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The file that lists the concepts, beside `book.toml`.
pub const FILE: &str = "concepts.toml";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct List {
    concept: Vec<Concept>,
}

/// One idea the book teaches.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Concept {
    pub name: String,
    /// The chapter that teaches it, under `src/`, with the heading that
    /// does (`#anchor`) where the page uses it before teaching it.
    pub taught: PathBuf,
    /// An earlier chapter that introduces it in a paragraph linking `taught`.
    #[serde(default)]
    pub introduced: Option<PathBuf>,
    /// Words or phrases that use it, matched whole and case-blind; a
    /// trailing `*` matches any word that starts so (`__shfl*`).
    pub terms: Vec<String>,
}

/// Reads `concepts.toml` from the book's root.
pub(super) fn load(root: &Path) -> Result<Vec<Concept>, Located> {
    let file = root.join(FILE);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Located::new(&file, 0, format!("cannot read the concepts: {e}")))?;
    toml::from_str::<List>(&text)
        .map(|l| l.concept)
        .map_err(|e| Located::new(&file, 0, format!("concepts: {e}")))
}

/// Every use of a concept before the page that teaches it, in reading order.
pub(super) fn early_uses(root: &Path, src: &Path, concepts: &[Concept]) -> Vec<Located> {
    let entries = match read_summary(src) {
        Ok(entries) => entries,
        Err(e) => return vec![e],
    };
    let pages: Vec<PathBuf> = entries
        .iter()
        .map(|e| e.path.strip_prefix(src).unwrap_or(&e.path).to_path_buf())
        .collect();
    let mut found = Vec::new();
    for concept in concepts {
        let (page, anchor) = split_anchor(&concept.taught);
        let Some(at) = pages.iter().position(|p| *p == page) else {
            found.push(Located::new(
                root.join(FILE),
                0,
                format!(
                    "`{}` is taught in {}, which SUMMARY.md does not list",
                    concept.name,
                    page.display()
                ),
            ));
            continue;
        };
        let introduced = match &concept.introduced {
            None => None,
            Some(p) => match pages[..at].iter().position(|q| q == p) {
                Some(k) => Some(k),
                None => {
                    found.push(Located::new(
                        root.join(FILE),
                        0,
                        format!(
                            "`{}` is introduced in {}, which SUMMARY.md does not list before {}",
                            concept.name,
                            p.display(),
                            page.display()
                        ),
                    ));
                    continue;
                }
            },
        };
        let early = |file: &Path, line: usize, term: &str| {
            Located::new(
                file,
                line,
                format!(
                    "uses `{term}` ({}) before {} teaches it: teach it first, move the page, \
                     or link {} from this paragraph",
                    concept.name,
                    concept.taught.display(),
                    page.display()
                ),
            )
        };
        for (k, page) in pages[..=at].iter().enumerate() {
            if introduced.is_some_and(|i| k > i) && k < at {
                continue;
            }
            let file = src.join(page);
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let text = with_includes(&text, &file, root);
            // The line before which a use is early on this page.
            let until = if k == at {
                let Some(anchor) = &anchor else { continue };
                match heading_line(&text, anchor) {
                    Some(line) => line,
                    None => {
                        found.push(Located::new(
                            &file,
                            0,
                            format!(
                                "`{}` is taught under #{anchor}, which this page has no heading for",
                                concept.name
                            ),
                        ));
                        continue;
                    }
                }
            } else if Some(k) == introduced {
                introduction_line(&text, concept).unwrap_or_else(|| {
                    found.push(Located::new(
                        &file,
                        0,
                        format!(
                            "`{}` is introduced here (concepts.toml), but no paragraph here \
                             uses it and links {}",
                            concept.name,
                            concept.taught.display()
                        ),
                    ));
                    usize::MAX
                })
            } else {
                usize::MAX
            };
            for (line, term) in uses(&text, concept) {
                if line < until {
                    found.push(early(&file, line, &term));
                }
            }
        }
    }
    found
}

/// `page.md#anchor` as the page and the anchor.
fn split_anchor(taught: &Path) -> (PathBuf, Option<String>) {
    let text = taught.to_string_lossy();
    match text.split_once('#') {
        Some((page, anchor)) => (PathBuf::from(page), Some(anchor.to_string())),
        None => (taught.to_path_buf(), None),
    }
}

/// The line of the heading whose mdBook id is `anchor`.
fn heading_line(text: &[(usize, String)], anchor: &str) -> Option<usize> {
    text.iter()
        .find(|(_, l)| {
            let hashes = l.chars().take_while(|&c| c == '#').count();
            (1..=6).contains(&hashes)
                && l[hashes..].starts_with(' ')
                && heading_id(&l[hashes..]) == anchor
        })
        .map(|(n, _)| *n)
}

/// mdBook's id for a heading: lowercase, spaces to `-`, punctuation dropped.
fn heading_id(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The first line of the first paragraph that uses `concept` and links its
/// teaching page: the short introduction on an earlier page.
fn introduction_line(text: &[(usize, String)], concept: &Concept) -> Option<usize> {
    paragraphs(text)
        .find(|paragraph| {
            links(paragraph, concept)
                && paragraph
                    .iter()
                    .any(|(_, l)| concept.terms.iter().any(|t| mentions(l, t)))
        })
        .and_then(|paragraph| paragraph.first().map(|(n, _)| *n))
}

/// The paragraphs of `text`: runs of lines between blank ones.
fn paragraphs(text: &[(usize, String)]) -> impl Iterator<Item = &[(usize, String)]> {
    text.split(|(_, l)| l.trim().is_empty())
}

/// Whether a paragraph links the page (or the heading) that teaches `concept`.
fn links(paragraph: &[(usize, String)], concept: &Concept) -> bool {
    let (page, anchor) = split_anchor(&concept.taught);
    let target = page
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    paragraph.iter().any(|(_, l)| {
        l.contains(&format!("]({target}"))
            || l.contains(&format!("/{target})"))
            || l.contains(&format!("/{target}#"))
            || anchor
                .as_ref()
                .is_some_and(|a| l.contains(&format!("](#{a})")))
    })
}

/// The chapter with each `{{#include FILE}}` line followed by the file's
/// lines (the kernels a page shows); the chapter's own lines keep their numbers.
fn with_includes(text: &str, file: &Path, root: &Path) -> Vec<(usize, String)> {
    let dir = file.parent().unwrap_or(root);
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        lines.push((n + 1, line.to_string()));
        if let Some(rest) = line.trim().strip_prefix("{{#include ")
            && let Some(path) = rest.strip_suffix("}}")
            && let Ok(included) = std::fs::read_to_string(dir.join(path.trim()))
        {
            lines.extend(included.lines().map(|l| (n + 1, l.to_string())));
        }
    }
    lines
}

/// The lines of `text` that use `concept`, with the term found, outside
/// `## Looking ahead` and outside paragraphs that link the teaching page.
fn uses(text: &[(usize, String)], concept: &Concept) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    let mut looking_ahead = false;
    let mut in_comment = false;
    for paragraph in paragraphs(text) {
        let links_teacher = links(paragraph, concept);
        for (line, l) in paragraph {
            if let Some(heading) = l.strip_prefix("## ") {
                looking_ahead = heading.trim().eq_ignore_ascii_case("looking ahead");
            }
            if l.contains("<!--") {
                in_comment = true;
            }
            let skip = looking_ahead || links_teacher || in_comment;
            if l.contains("-->") {
                in_comment = false;
            }
            if skip {
                continue;
            }
            if let Some(term) = concept.terms.iter().find(|t| mentions(l, t))
                && seen.insert(*line)
            {
                found.push((*line, term.clone()));
            }
        }
    }
    found
}

/// Whether `line` holds `term` as a whole word or phrase (case-blind); a
/// trailing `*` lets the word run on.
fn mentions(line: &str, term: &str) -> bool {
    let (term, prefix) = match term.strip_suffix('*') {
        Some(t) => (t, true),
        None => (term, false),
    };
    let line = line.to_lowercase();
    let term = term.to_lowercase();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(k) = line[from..].find(&term) {
        let at = from + k;
        let before = line[..at].chars().next_back();
        let after = line[at + term.len()..].chars().next();
        if !before.is_some_and(word) && (prefix || !after.is_some_and(word)) {
            return true;
        }
        from = at + term.len().max(1);
    }
    false
}

/// This module's trials, joined to the `content` group's.
pub(super) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::panicking_trials!("content":
        mentions_table,
        uses_table,
        headings_and_introductions,
    )
}

/// (line, term, whether it is a use)
fn mentions_table() {
    let cases = [
        ("a warp of 32 threads", "warp", true),
        ("Warps run together", "warps", true),
        ("the warped image", "warp", false),
        ("__shfl_down_sync(mask, v, 1)", "__shfl*", true),
        ("call shuffle()", "shuffle", true),
        ("reshuffle", "shuffle", false),
        ("an atomicAdd", "atomic*", true),
        ("fence posts", "memory fence", false),
        ("a memory fence orders", "memory fence", true),
        ("last = __ffs(prefixes) - 1", "__ffs", true),
        ("asm(\"red.global.add.v4.f32 [%0]\")", "red.global*", true),
        ("a `red` returns nothing", "`red`", true),
        ("the red line", "`red`", false),
        ("wgmma_fence();", "wgmma*", true),
    ];
    for (line, term, want) in cases {
        assert_eq!(mentions(line, term), want, "{line:?} {term:?}");
    }
}

/// (case, the page's lines, the uses found as (line, term))
fn uses_table() {
    let concept = Concept {
        name: "warps".into(),
        taught: "performance/warps.md".into(),
        introduced: None,
        terms: vec!["warp".into(), "warps".into()],
    };
    let lines = |text: &str| -> Vec<(usize, String)> {
        text.lines()
            .enumerate()
            .map(|(n, l)| (n + 1, l.to_string()))
            .collect()
    };
    let cases: [(&str, &str, Vec<(usize, &str)>); 5] = [
        ("a use", "Intro.\n\nA warp runs.\n", vec![(3, "warp")]),
        (
            "a forward link in the paragraph",
            "A warp runs; see\n[warps](../performance/warps.md).\n",
            vec![],
        ),
        (
            "looking ahead",
            "Text.\n\n## Looking ahead\n\nWarps come next.\n",
            vec![],
        ),
        (
            "a later section is not looking ahead",
            "## Looking ahead\n\nWarps.\n\n## Other\n\nA warp.\n",
            vec![(7, "warp")],
        ),
        ("a comment", "<!-- a warp -->\n\nText.\n", vec![]),
    ];
    for (name, text, want) in cases {
        let got = uses(&lines(text), &concept);
        let want: Vec<(usize, String)> = want.into_iter().map(|(n, t)| (n, t.into())).collect();
        assert_eq!(got, want, "{name}");
    }
}

/// A heading's id, and the line of the short introduction on an earlier
/// page (the first paragraph that uses the idea and links its teacher).
fn headings_and_introductions() {
    assert_eq!(
        heading_id(" `red`: an atomic that returns nothing"),
        "red-an-atomic-that-returns-nothing"
    );
    let text: Vec<(usize, String)> = "# Title\n\nA ballot here.\n\nA ballot, taught in\n[Puzzle 23](../warps/p23_compact.md).\n\n## `ballot` votes\n"
        .lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.to_string()))
        .collect();
    let concept = Concept {
        name: "ballots".into(),
        taught: "warps/p23_compact.md#ballot-votes".into(),
        introduced: None,
        terms: vec!["ballot".into()],
    };
    assert_eq!(introduction_line(&text, &concept), Some(5));
    assert_eq!(heading_line(&text, "ballot-votes"), Some(8));
    assert_eq!(heading_line(&text, "ballot"), None);
}
