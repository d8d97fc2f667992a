//! What a page says in sentences around its results: a run's notes as
//! prose with inline code, the note on why a page cannot run CUDA (in full
//! once a page), and a chapter's own WGSL and CUDA fences highlighted as
//! its kernels are.

use puzzle_core::judge::format::escape_html as escape;
use puzzle_core::lang::Lang;
use std::fmt::Write;

/// mdBook's highlight.js has no CUDA or WGSL: C++ and Rust are the closest it
/// has. `noplayground`: mdBook would otherwise offer to run WGSL as Rust on
/// the Rust playground (and contact it on every page view).
pub fn highlight_class(lang: Lang) -> &'static str {
    match lang {
        Lang::Cuda => "cpp",
        Lang::Wgsl => "rust,noplayground",
    }
}

/// A page's own ```` ```wgsl ```` and ```` ```cuda ```` fences (prose examples,
/// headers shown whole) given the same highlighting as its kernels, so
/// highlight.js neither leaves them plain nor complains of an unknown language.
pub fn highlightable_fences(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for line in page.split_inclusive('\n') {
        let fence = line.trim_end();
        let lang = match fence {
            "```wgsl" => Some(Lang::Wgsl),
            "```cuda" => Some(Lang::Cuda),
            _ => None,
        };
        match lang {
            Some(lang) => {
                out.push_str("```");
                out.push_str(highlight_class(lang));
                out.push_str(&line[fence.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Why a CUDA kernel is not checked in the page, said beside it.
pub fn no_browser_note(puzzle: &str) -> String {
    format!(
        "<p class=\"puzzle-no-browser\">A web page cannot compile CUDA C (NVIDIA's compiler, \
         NVRTC, is a native library) nor run it (browsers run GPU code only as WebGPU shaders, \
         WGSL). So this page shows the CUDA kernel checked on the CPU (NVRTC's PTX, interpreted \
         by the book's checker) beside its runs on real GPUs, and your CUDA kernel is checked on \
         your machine, with or without an NVIDIA GPU, with \
         <code>runner check {} --lang cuda</code>.</p>\n\n",
        escape(puzzle)
    )
}

/// [`no_browser_note`] said in full once per page: the first note gets an
/// anchor, and each later one shrinks to its command and a link to it.
pub fn cuda_note_once(page: &str) -> String {
    const OPEN: &str = "<p class=\"puzzle-no-browser\">";
    let mut out = String::with_capacity(page.len());
    let mut rest = page;
    let mut seen = false;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("</p>")
            .map_or(rest.len(), |e| start + e + "</p>".len());
        let note = &rest[start..end];
        if !seen {
            out.push_str(&note.replacen(
                OPEN,
                "<p class=\"puzzle-no-browser\" id=\"cuda-in-a-page\">",
                1,
            ));
            seen = true;
        } else {
            let command = note
                .find("<code>")
                .and_then(|c| {
                    note[c..]
                        .find("</code>")
                        .map(|e| &note[c..c + e + "</code>".len()])
                })
                .unwrap_or("");
            let _ = write!(
                out,
                "{OPEN}Check this CUDA kernel on your machine, with or without an NVIDIA GPU: \
                 {command} (<a href=\"#cuda-in-a-page\">why not in this page</a>).</p>"
            );
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Where the roofline chapter says why the teaching sizes are launch-bound,
/// from a chapter's page (every one sits in a part's folder, one level under
/// `src/`).
const LAUNCH_BOUND_PAGE: &str =
    "../performance/roofline.html#why-the-teaching-sizes-are-launch-bound";

/// The anchor of a page's one explanation of "launch-bound".
const LAUNCH_BOUND_ID: &str = "launch-bound-means";

/// The word that opens a note on a launch-bound result (a time within
/// `launches` empty-kernel launches). [`launch_bound_once`] explains it in
/// words after the first such note of a page and links the others to it.
pub fn launch_bound_mark(launches: f64) -> String {
    format!("<span class=\"puzzle-launch-bound\" data-launches=\"{launches}\">Launch-bound</span>")
}

/// "Launch-bound" said once a page: after the paragraph of the first marked
/// note a reader meets unfolded (or the first, if every one is folded), what
/// it means in words; every other mark becomes a link to that.
pub fn launch_bound_once(page: &str) -> String {
    const OPEN: &str = "<span class=\"puzzle-launch-bound\"";
    const CLOSE: &str = "</span>";
    let marks: Vec<usize> = page.match_indices(OPEN).map(|(at, _)| at).collect();
    let Some(&first) = marks.first() else {
        return page.to_string();
    };
    // The first mark outside every fold, if there is one.
    let folded = |at: usize| {
        page[..at].matches("<details").count() > page[..at].matches("</details>").count()
    };
    let explained = marks
        .iter()
        .copied()
        .find(|&at| !folded(at))
        .unwrap_or(first);
    let mut out = String::with_capacity(page.len() + 1024);
    let mut rest = 0;
    for at in marks {
        // A second mark in the explained note's paragraph stays as it is.
        if at < rest {
            continue;
        }
        let Some(len) = page[at..].find(CLOSE) else {
            break;
        };
        let end = at + len + CLOSE.len();
        out.push_str(&page[rest..at]);
        if at == explained {
            let launches = page[at..end]
                .split("data-launches=\"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or("a few");
            // The note's paragraph as it was, then the explanation.
            let para_end = page[end..]
                .find("</p>")
                .map_or(end, |p| end + p + "</p>".len());
            out.push_str(&page[at..para_end]);
            let _ = write!(
                out,
                "\n\n<p class=\"puzzle-launch-bound-why\" id=\"{LAUNCH_BOUND_ID}\">What \
                 launch-bound means: a GPU takes a few microseconds to start a kernel and see it \
                 finish even when the kernel does nothing (an empty kernel, timed on each GPU). \
                 A time within {launches} such launches is mostly that fixed cost: it measures \
                 the launch, not the kernel, and a percentage of a roof made from it says little \
                 about how well the kernel reads, writes or computes. Only sizes that take many \
                 launches' time show that (<a href=\"{LAUNCH_BOUND_PAGE}\">why the teaching sizes \
                 are launch-bound</a>).</p>"
            );
            rest = para_end;
        } else {
            let _ = write!(
                out,
                "<a class=\"puzzle-launch-bound\" href=\"#{LAUNCH_BOUND_ID}\">Launch-bound</a>"
            );
            rest = end;
        }
    }
    out.push_str(&page[rest..]);
    out
}

/// Each access diagram drawn once a page: where two kernels of a page (a
/// puzzle's CUDA and WGSL solutions, most often) touched the same elements
/// in the same order, the later copy of the picture, often tens of
/// kilobytes, gives way to a sentence that points to the earlier one.
pub fn diagrams_once(page: &str) -> String {
    const OPEN: &str = "<div class=\"puzzle-diagram\">\n";
    const CLOSE: &str = "</div>";
    let mut out = String::with_capacity(page.len());
    let mut seen: Vec<&str> = Vec::new();
    let mut rest = page;
    while let Some(start) = rest.find(OPEN) {
        let body = start + OPEN.len();
        let Some(len) = rest[body..].find(CLOSE) else {
            break;
        };
        let picture = &rest[body..body + len];
        out.push_str(&rest[..start]);
        if seen.contains(&picture) {
            out.push_str(
                "<p class=\"puzzle-diagram-same\">It is the same picture as the one drawn \
                 earlier on this page: the two kernels read and wrote the same elements, in the \
                 same order.</p>",
            );
        } else {
            seen.push(picture);
            out.push_str(&rest[start..body + len + CLOSE.len()]);
        }
        rest = &rest[body + len + CLOSE.len()..];
    }
    out.push_str(rest);
    out
}

/// A run's notes for a reader: a sentence (a buffer's problem, a checker's
/// finding) as a paragraph whose `code` reads as code; a note of several
/// lines (a compiler quoting the source) as the text it is.
pub fn notes_html(notes: &[String]) -> String {
    let mut md = String::new();
    for note in notes {
        if note.contains('\n') {
            let _ = writeln!(md, "```text\n{note}\n```\n");
        } else {
            let _ = writeln!(md, "<p class=\"puzzle-note\">{}</p>\n", inline_code(note));
        }
    }
    md
}

/// `text` escaped for HTML, each `…` span made `<code>`; with an odd number
/// of backticks, none is taken for code.
fn inline_code(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return escape(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", escape(part))
            } else {
                escape(part)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_diagram_repeated_on_a_page_is_drawn_once() {
        let diagram =
            |svg: &str| format!("<p>note</p>\n<div class=\"puzzle-diagram\">\n{svg}</div>\n");
        let page = [
            diagram("<svg>a</svg>"),
            diagram("<svg>b</svg>"),
            diagram("<svg>a</svg>"),
        ]
        .concat();
        let once = super::diagrams_once(&page);
        assert_eq!(once.matches("<svg>a</svg>").count(), 1, "{once}");
        assert_eq!(once.matches("<svg>b</svg>").count(), 1, "{once}");
        assert_eq!(once.matches("the same picture").count(), 1, "{once}");
        // Nothing else on the page changes.
        assert_eq!(
            super::diagrams_once("<p>no diagram</p>"),
            "<p>no diagram</p>"
        );
        assert!(once.ends_with("same order.</p>\n"), "{once}");
    }

    use super::*;

    #[test]
    fn the_cuda_note_is_said_in_full_once_a_page() {
        let page = format!(
            "intro\n{}middle\n{}end\n",
            no_browser_note("p01_a"),
            no_browser_note("p02_b")
        );
        let once = cuda_note_once(&page);
        assert_eq!(
            once.matches("A web page cannot compile CUDA C").count(),
            1,
            "{once}"
        );
        assert_eq!(once.matches("id=\"cuda-in-a-page\"").count(), 1, "{once}");
        assert!(
            once.contains("<code>runner check p01_a --lang cuda</code>"),
            "{once}"
        );
        assert!(
            once.contains(
                "<code>runner check p02_b --lang cuda</code> (<a href=\"#cuda-in-a-page\">"
            ),
            "{once}"
        );
        assert!(
            once.starts_with("intro\n") && once.ends_with("end\n"),
            "{once}"
        );
        assert_eq!(cuda_note_once("no note"), "no note");
    }

    #[test]
    fn plain_wgsl_and_cuda_fences_get_a_highlighter_table() {
        let cases: &[(&str, &str)] = &[
            (
                "```wgsl\nlet x = 1;\n```\n",
                "```rust,noplayground\nlet x = 1;\n```\n",
            ),
            ("```cuda\r\nint x;\n```", "```cpp\r\nint x;\n```"),
            // A kernel block and other fences are left alone.
            ("```wgsl,puzzle=p\n```text\n", "```wgsl,puzzle=p\n```text\n"),
        ];
        for (page, want) in cases {
            assert_eq!(highlightable_fences(page), *want, "{page:?}");
        }
    }

    #[test]
    fn notes_read_as_prose_with_code_table() {
        // (note, the HTML it becomes)
        let cases: &[(&str, &str)] = &[
            (
                "2 of 8 elements of `out` were never written: out[6], out[7].",
                "<p class=\"puzzle-note\">2 of 8 elements of <code>out</code> were never \
                 written: out[6], out[7].</p>\n\n",
            ),
            (
                "`a < b` and <b>",
                "<p class=\"puzzle-note\"><code>a &lt; b</code> and &lt;b&gt;</p>\n\n",
            ),
            // An unpaired backtick is left as it is.
            (
                "one ` alone",
                "<p class=\"puzzle-note\">one ` alone</p>\n\n",
            ),
            // A compiler quoting its line stays a text block.
            (
                "k.cu:3: error\n  x = ;",
                "```text\nk.cu:3: error\n  x = ;\n```\n\n",
            ),
        ];
        for (note, want) in cases {
            assert_eq!(notes_html(&[note.to_string()]), *want, "{note:?}");
        }
    }

    /// A page's launch-bound notes: what the word means is said once, after
    /// the first note a reader sees unfolded; every other note links to it.
    /// (case, page, the note the explanation follows)
    #[test]
    fn launch_bound_is_explained_once_a_page_table() {
        let note = |what: &str| format!("<p>{}: {what}.</p>\n", launch_bound_mark(3.0));
        let fold = |inner: &str| format!("<details>\n<summary>s</summary>\n{inner}</details>\n");
        let cases = [
            ("two notes", [note("one"), note("two")].concat(), "one"),
            (
                "the first folded",
                [fold(&note("one")), note("two"), note("three")].concat(),
                "two",
            ),
            (
                "every one folded",
                [fold(&note("one")), fold(&note("two"))].concat(),
                "one",
            ),
        ];
        for (case, page, first) in cases {
            let once = launch_bound_once(&page);
            let why = once.matches("the launch, not the kernel").count();
            assert_eq!(why, 1, "{case}: {once}");
            assert!(once.contains("within 3 such launches"), "{case}: {once}");
            let after = format!(": {first}.</p>\n\n<p class=\"puzzle-launch-bound-why\"");
            assert!(once.contains(&after), "{case}: {once}");
            // The others point to it, and nothing else changes.
            let links = once
                .matches("href=\"#launch-bound-means\">Launch-bound</a>")
                .count();
            assert_eq!(
                links,
                page.matches("Launch-bound").count() - 1,
                "{case}: {once}"
            );
        }
        assert_eq!(launch_bound_once("<p>none</p>"), "<p>none</p>");
    }
}
