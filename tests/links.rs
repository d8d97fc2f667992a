//! What a reader of the built book follows and downloads: every link
//! between its pages and every anchor such a link names resolves, and no
//! chapter is heavier than a page a reader can load on a phone
//! ([`PAGE_BYTES`]).
//!
//! The HTML is read as text: mdBook writes `href="…"` and `id="…"` with
//! double quotes, and the book's own blocks do too, so a scan for those
//! attributes finds every link and every anchor without an HTML parser.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The most bytes of HTML a chapter may weigh (issue 60: "none heavier than
/// 250 KB").
pub const PAGE_BYTES: usize = 250_000;

/// Chapters still over [`PAGE_BYTES`], each with the ceiling it may not
/// grow past until it is brought under the budget. Each entry is a debt:
/// the check fails when a listed page grows, and when one comes under the
/// budget (so that its entry is removed and the budget holds it).
pub const HEAVY_PAGES: &[(&str, usize)] = &[];

/// The values of `attribute="…"` in `html`, in order.
fn attribute_values<'a>(html: &'a str, attribute: &str) -> Vec<&'a str> {
    let needle = format!(" {attribute}=\"");
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        let Some(end) = rest.find('"') else { break };
        found.push(&rest[..end]);
        rest = &rest[end..];
    }
    found
}

/// `&amp;` and the percent escapes mdBook writes into hrefs, undone.
fn decode(href: &str) -> String {
    let href = href.replace("&amp;", "&");
    let bytes = href.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        // `get`: the two bytes after a `%` may not be whole characters.
        if bytes[i] == b'%'
            && let Some(hex) = href.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether an href leaves the book (another site, mail, a script).
fn external(href: &str) -> bool {
    href.contains("://")
        || ["mailto:", "javascript:", "data:", "tel:"]
            .iter()
            .any(|p| href.starts_with(p))
}

/// `page`'s folder joined with a relative `target`, `..` and `.` folded.
fn resolve(page: &Path, target: &str) -> PathBuf {
    let mut parts: Vec<String> = page
        .parent()
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            name => parts.push(name.to_string()),
        }
    }
    parts.iter().collect()
}

/// Every broken internal link of the HTML pages `pages` (paths under the
/// built book `out`, with their text): a missing page, or an anchor the
/// page it names lacks. In words, one a line.
pub fn broken_links(out: &Path, pages: &[(PathBuf, String)]) -> Vec<String> {
    let ids: HashMap<&Path, HashSet<&str>> = pages
        .iter()
        .map(|(path, html)| {
            (
                path.as_path(),
                attribute_values(html, "id").into_iter().collect(),
            )
        })
        .collect();
    let mut broken = Vec::new();
    for (page, html) in pages {
        for href in attribute_values(html, "href") {
            let href = decode(href);
            if href.is_empty() || external(&href) {
                continue;
            }
            let (target, anchor) = href.split_once('#').unwrap_or((&href, ""));
            let target = target.split('?').next().unwrap_or("");
            let file = if target.is_empty() {
                page.clone()
            } else if let Some(absolute) = target.strip_prefix('/') {
                PathBuf::from(absolute)
            } else {
                resolve(page, target)
            };
            if !out.join(&file).exists() {
                broken.push(format!(
                    "{}: links to {href}, and there is no {}",
                    page.display(),
                    file.display()
                ));
                continue;
            }
            if anchor.is_empty() || file.extension().is_none_or(|e| e != "html") {
                continue;
            }
            if let Some(known) = ids.get(file.as_path())
                && !known.contains(anchor)
            {
                broken.push(format!(
                    "{}: links to {href}, and {} has no anchor `{anchor}`",
                    page.display(),
                    file.display()
                ));
            }
        }
    }
    broken
}

/// The chapters heavier than the budget allows: over [`PAGE_BYTES`] and
/// not listed, or over their listed ceiling; and listed ones now under the
/// budget, whose entries are to go.
pub fn over_budget(sizes: &[(String, usize)], heavy: &[(&str, usize)]) -> Vec<String> {
    let mut faults = Vec::new();
    for (page, bytes) in sizes {
        let ceiling = heavy.iter().find(|(p, _)| p == page).map(|&(_, c)| c);
        match ceiling {
            Some(ceiling) if *bytes > ceiling => faults.push(format!(
                "{page} weighs {bytes} bytes, more than its ceiling of {ceiling} (the budget is \
                 {PAGE_BYTES})"
            )),
            Some(_) if *bytes <= PAGE_BYTES => faults.push(format!(
                "{page} weighs {bytes} bytes, within the budget of {PAGE_BYTES}: take it off \
                 the list of heavy pages"
            )),
            None if *bytes > PAGE_BYTES => faults.push(format!(
                "{page} weighs {bytes} bytes, more than the budget of {PAGE_BYTES}"
            )),
            _ => {}
        }
    }
    faults
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(path: &str, html: &str) -> (PathBuf, String) {
        (PathBuf::from(path), html.to_string())
    }

    #[test]
    fn links_and_anchors_are_resolved_against_their_page() {
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(out.path().join("a")).unwrap();
        for file in ["a/one.html", "two.html", "a/fig.svg"] {
            std::fs::write(out.path().join(file), "").unwrap();
        }
        let pages = vec![
            page(
                "a/one.html",
                r##"<h2 id="top">T</h2><a href="#top">ok</a> <a href="../two.html#x">ok</a>
                <a href="fig.svg">ok</a> <a href="https://example.com/#nope">ok</a>
                <a href="#gone">bad anchor</a> <a href="../three.html">bad page</a>
                <a href="../two.html#y%20z">bad anchor</a> <a href="#%→">bad anchor</a>"##,
            ),
            page(
                "two.html",
                r#"<p id="x">x</p><a href="a/one.html#top">ok</a>"#,
            ),
        ];
        let broken = broken_links(out.path(), &pages);
        assert_eq!(broken.len(), 4, "{broken:#?}");
        assert!(broken[0].contains("no anchor `gone`"), "{}", broken[0]);
        assert!(
            broken[1].contains("there is no three.html"),
            "{}",
            broken[1]
        );
        assert!(broken[2].contains("no anchor `y z`"), "{}", broken[2]);
        assert!(broken[3].contains("no anchor `%→`"), "{}", broken[3]);
    }

    #[test]
    fn the_budget_holds_listed_pages_to_their_ceilings() {
        let sizes = [
            ("light.html", 100_000),
            ("heavy.html", 300_000),
            ("listed.html", 400_000),
            ("grown.html", 500_000),
            ("paid.html", 200_000),
        ]
        .map(|(p, b)| (p.to_string(), b));
        let heavy = [
            ("listed.html", 400_000),
            ("grown.html", 450_000),
            ("paid.html", 300_000),
        ];
        let faults = over_budget(&sizes, &heavy);
        assert_eq!(faults.len(), 3, "{faults:#?}");
        assert!(faults[0].starts_with("heavy.html weighs 300000 bytes, more than the budget"));
        assert!(faults[1].starts_with("grown.html weighs 500000 bytes, more than its ceiling"));
        assert!(faults[2].contains("take it off the list"));
    }
}
