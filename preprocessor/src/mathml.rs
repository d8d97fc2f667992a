//! Math, rendered to MathML while the book builds.
//!
//! Chapters write `\\( … \\)` inline and `$$ … $$` (or `\\[ … \\]`) for
//! displays, as mdBook's MathJax support expects. MathJax would be fetched
//! from a CDN by every reader, which fails offline and in tests; MathML is
//! rendered by the browser itself (Chromium, Firefox and Safari all do), so
//! the page carries its math and needs no script at all.
//!
//! Code blocks and code spans are left alone: `\\(` in a kernel is code.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use pulldown_latex::config::DisplayMode;
use pulldown_latex::{RenderConfig, Storage, push_mathml};
use std::ops::Range;

/// Delimiters: (open, close, display).
const DELIMITERS: &[(&str, &str, bool)] = &[
    ("$$", "$$", true),
    ("\\\\[", "\\\\]", true),
    ("\\\\(", "\\\\)", false),
];

/// A formula that cannot be rendered, at its line of the chapter.
#[derive(Debug, thiserror::Error)]
pub enum MathError {
    #[error("line {line}: `{open}` is never closed by `{close}`")]
    Unclosed {
        line: usize,
        open: &'static str,
        close: &'static str,
    },
    #[error("line {line}: cannot render `{latex}`: {why}")]
    Latex {
        line: usize,
        latex: String,
        why: LatexError,
    },
}

/// Why pulldown-latex could not turn one formula into MathML. Shown inside
/// [`MathError::Latex`]'s words, so not its `source`.
#[derive(Debug, thiserror::Error)]
pub enum LatexError {
    #[error("{0}")]
    Parse(pulldown_latex::ParserError),
    #[error("{0}")]
    Render(std::io::Error),
}

/// The chapter with every formula replaced by MathML, or the first formula
/// that does not parse (with its line).
pub fn render(markdown: &str) -> Result<String, MathError> {
    let code = code_ranges(markdown);
    let opens = openings(markdown, &code);
    let mut out = String::with_capacity(markdown.len());
    let mut at = 0;
    for &(start, open, close, display) in &opens {
        // Inside a formula already rendered (a `$$` closing a display is not an opening).
        if start < at {
            continue;
        }
        let body_start = start + open.len();
        let Some(len) = markdown[body_start..].find(close) else {
            let line = markdown[..start].lines().count() + 1;
            return Err(MathError::Unclosed { line, open, close });
        };
        let latex = &markdown[body_start..body_start + len];
        let mathml = to_mathml(latex, display).map_err(|why| MathError::Latex {
            line: markdown[..start].lines().count().max(1),
            latex: latex.trim().to_string(),
            why,
        })?;
        out.push_str(&markdown[at..start]);
        out.push_str(&mathml);
        at = body_start + len + close.len();
    }
    out.push_str(&markdown[at..]);
    Ok(out)
}

/// Every place a delimiter could open a formula, outside code, in order:
/// found in one pass per delimiter (searching again from each formula made
/// long chapters quadratic).
type Opening = (usize, &'static str, &'static str, bool);

fn openings(markdown: &str, code: &[Range<usize>]) -> Vec<Opening> {
    let mut found: Vec<Opening> = DELIMITERS
        .iter()
        .flat_map(|&(open, close, display)| {
            markdown
                .match_indices(open)
                .map(move |(at, _)| (at, open, close, display))
        })
        .filter(|&(at, ..)| {
            // Code ranges are sorted and disjoint: the last one starting at or before `at`.
            let i = code.partition_point(|r| r.start <= at);
            i == 0 || !code[i - 1].contains(&at)
        })
        .collect();
    found.sort_by_key(|&(at, ..)| at);
    found
}

/// Byte ranges of code blocks, code spans and raw HTML blocks.
fn code_ranges(markdown: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut block_start = None;
    for (event, range) in Parser::new_ext(markdown, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock) => block_start = Some(range.start),
            Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock) => {
                ranges.push(block_start.take().unwrap_or(range.start)..range.end)
            }
            Event::Code(_) | Event::InlineHtml(_) => ranges.push(range),
            _ => {}
        }
    }
    ranges
}

/// One formula as MathML on a single line, safe inside markdown text.
fn to_mathml(latex: &str, display: bool) -> Result<String, LatexError> {
    let storage = Storage::new();
    let events = pulldown_latex::Parser::new(latex.trim(), &storage)
        .collect::<Result<Vec<_>, _>>()
        .map_err(LatexError::Parse)?;
    let config = RenderConfig {
        display_mode: if display {
            DisplayMode::Block
        } else {
            DisplayMode::Inline
        },
        ..RenderConfig::default()
    };
    let mut mathml = String::new();
    push_mathml(
        &mut mathml,
        events.into_iter().map(Ok::<_, std::convert::Infallible>),
        config,
    )
    .map_err(LatexError::Render)?;
    Ok(markdown_safe(&separate_sized_delimiters(&mathml)))
}

/// pulldown-latex 0.8.0 writes a sized delimiter (`\bigl(`, `\Bigr]`) as
/// `<mo … stretchy="true"minsize="1.2em" …>`, with no space before
/// `minsize`. Browsers and markdown both reject that tag: markdown then
/// shows it as text, curly quotes and all. The space is put back here.
fn separate_sized_delimiters(mathml: &str) -> String {
    mathml.replace("\"minsize=", "\" minsize=")
}

/// Keeps markdown from reading MathML text as emphasis, links or table
/// cells: the characters it would act on become character references.
fn markdown_safe(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ => {}
        }
        match c {
            '\n' => out.push(' '),
            '*' | '_' | '[' | ']' | '`' | '~' | '\\' | '|' | '$' if !in_tag => {
                out.push_str(&format!("&#{};", c as u32));
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_become_mathml_and_code_stays_table() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "For every \\\\( i \\\\):\n",
                &["For every <math", "<mi>i</mi>", "</math>:"],
                &["\\\\("],
            ),
            (
                "$$ out[i] = a[i] + 10 $$\n",
                &["<math display=\"block\"", "<mn>10</mn>"],
                &["$$"],
            ),
            (
                "$$ \\text{row sum:}\\quad out[r] = \\sum_{c=0}^{N-1} a[r][c], \\qquad\n   x $$\n",
                &["<munderover>", "row sum:"],
                &["$$", "\n   x"],
            ),
            (
                "`\\\\( i \\\\)` and\n\n```c\n$$ not math $$\n```\n",
                &["`\\\\( i \\\\)`", "$$ not math $$"],
                &["<math"],
            ),
            (
                "\\\\( \\lceil size / blockDim \\rceil \\\\)",
                &["⌈", "⌉"],
                &[],
            ),
            (
                "\\\\( \\bigl(1 + v\\bigr) \\\\)",
                &["stretchy=\"true\" minsize=\"1.2em\""],
                &["\"minsize", "&lt;mo"],
            ),
        ];
        for (markdown, present, absent) in cases {
            let html = render(markdown).unwrap();
            for part in *present {
                assert!(html.contains(part), "{markdown:?} → {html}: lacks {part:?}");
            }
            for part in *absent {
                assert!(!html.contains(part), "{markdown:?} → {html}: has {part:?}");
            }
        }
    }

    #[test]
    fn markdown_cannot_touch_the_mathml() {
        let html = render("\\\\( a_i * b_j \\\\)").unwrap();
        assert!(!html.contains('*') && !html.contains('_'), "{html}");
        let events: Vec<Event> = Parser::new(&html).collect();
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Event::Start(Tag::Emphasis | Tag::Strong))),
            "{events:?}"
        );
    }

    #[test]
    fn broken_formulas_fail_with_their_line() {
        let error = render("one\n\ntwo \\\\( \\frac{1 \\\\)\n")
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("line 3: cannot render"), "{error}");
        let error = render("one\n$$ x\n").unwrap_err().to_string();
        assert!(error.contains("never closed"), "{error}");
    }
}
