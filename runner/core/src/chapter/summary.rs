//! `SUMMARY.md`: the book's table of contents, read the way mdBook reads it.
//!
//! The order of its links is the order a learner meets the puzzles in, and
//! the content checks compare it with the chapter files on disk (a chapter
//! that is not listed is never rendered, so its puzzles would be orphans).

use crate::source::diag::LineIndex;
use pulldown_cmark::{Event, Parser, Tag};
use std::path::{Path, PathBuf};

/// One chapter link of `SUMMARY.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub title: String,
    /// The chapter file, under the book's `src` folder.
    pub path: PathBuf,
    /// The line of `SUMMARY.md` that links it.
    pub line: usize,
}

/// The links of a `SUMMARY.md` text; `src` is the folder the targets are relative to.
/// Draft chapters (links with an empty target) are left out: mdBook renders
/// no page for them.
pub fn parse(text: &str, src: &Path) -> Vec<Entry> {
    let lines = LineIndex::new(text);
    let mut entries = Vec::new();
    let mut open: Option<(String, usize, String)> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::Link { dest_url, .. }) => {
                open = Some((dest_url.to_string(), lines.line(range.start), String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, title)) = &mut open {
                    title.push_str(&t);
                }
            }
            Event::End(pulldown_cmark::TagEnd::Link) => {
                if let Some((dest, line, title)) = open.take() {
                    // `#anchor` suffixes and external links are not chapters.
                    let dest = dest.split('#').next().unwrap_or_default();
                    if dest.is_empty() || dest.contains("://") {
                        continue;
                    }
                    entries.push(Entry {
                        title,
                        path: src.join(dest),
                        line,
                    });
                }
            }
            _ => {}
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_in_order_with_lines_table() {
        let text = "# Summary\n\n[Intro](intro.md)\n\n# Part\n\n- [One `a`](part/one.md)\n  - [Two](part/two.md#x)\n- [Draft]()\n- [Web](https://example.org)\n";
        let got: Vec<(String, String, usize)> = parse(text, Path::new("/b/src"))
            .into_iter()
            .map(|e| (e.title, e.path.display().to_string(), e.line))
            .collect();
        let want = [
            ("Intro", "/b/src/intro.md", 3),
            ("One a", "/b/src/part/one.md", 7),
            ("Two", "/b/src/part/two.md", 8),
        ];
        assert_eq!(got.len(), want.len(), "{got:?}");
        for ((title, path, line), (wt, wp, wl)) in got.iter().zip(want) {
            assert_eq!((title.as_str(), path.as_str(), *line), (wt, wp, wl));
        }
    }
}
