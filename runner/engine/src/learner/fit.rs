//! Prose fitted to a terminal's width: `runner check`, `hint` and `progress`
//! wrap their sentences with a hanging indent, so a line never runs past
//! the edge of an 80-column window (`list` and `bench` wrap to [`width`]
//! too). Words are never broken: a path or a
//! piece of code longer than the line stands alone on its line.
//!
//! Colour codes count for nothing (textwrap measures text as it shows).

/// Narrower than this, hanging indents would leave no room for words.
const NARROWEST: usize = 40;

/// The width to fit: `COLUMNS` when set (as shells export it, and as tests
/// ask for), else the terminal's when stdout is one. Piped output is not
/// wrapped (`usize::MAX`), so a log or `grep` sees each sentence whole.
pub fn width() -> usize {
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok());
    let from_terminal = || is_tty().then(textwrap::termwidth);
    from_env
        .or_else(from_terminal)
        .map_or(usize::MAX, |w| w.max(NARROWEST))
}

fn is_tty() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
}

/// One paragraph (`line`, without its newline) wrapped to `width` columns:
/// its own leading spaces and `marker` (`- `, `3. `, `→ `) open the first
/// line, and every further line is indented to where the text began.
/// Returns the lines joined with newlines, with a final newline.
pub fn fit(line: &str, width: usize) -> String {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let body = &line[indent..];
    let marker = marker_len(body);
    let hang = " ".repeat(indent + textwrap::core::display_width(&body[..marker]));
    let options = textwrap::Options::new(width)
        .break_words(false)
        .initial_indent(&line[..indent])
        .subsequent_indent(&hang);
    let mut out = textwrap::wrap(body, options).join("\n");
    out.push('\n');
    out
}

/// A report of indented lines (`runner bench`) fitted to `width`: a long
/// line goes on two spaces further in than it began, so its lines read as
/// one item.
pub fn fit_report(text: &str, width: usize) -> String {
    text.lines()
        .map(|line| {
            let indent = &line[..line.len() - line.trim_start_matches(' ').len()];
            let hang = format!("{indent}  ");
            let options = textwrap::Options::new(width)
                .break_words(false)
                .initial_indent(indent)
                .subsequent_indent(&hang);
            let mut lines = textwrap::wrap(line.trim_start_matches(' '), options).join("\n");
            lines.push('\n');
            lines
        })
        .collect()
}

/// Bytes of a list marker at the start of `body`: `- `, `• `, `→ `, `! `,
/// `✘ `/`✔ `, or a number and `. ` (`12. `); 0 when there is none.
fn marker_len(body: &str) -> usize {
    for mark in ["- ", "• ", "→ ", "! "] {
        if body.starts_with(mark) {
            return mark.len();
        }
    }
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && body[digits..].starts_with(". ") {
        return digits + 2;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_table() {
        // (line, width, expected)
        let cases: &[(&str, usize, &str)] = &[
            ("short enough", 80, "short enough\n"),
            (
                "  - one two three four five",
                14,
                "  - one two\n    three four\n    five\n",
            ),
            (
                "  1. alpha beta gamma",
                12,
                "  1. alpha\n     beta\n     gamma\n",
            ),
            ("→ go to the next", 10, "→ go to\n  the next\n"),
            // A path longer than the line is kept whole, on a line of its own.
            (
                "in /a/very/long/path/to/file.cu now",
                12,
                "in\n/a/very/long/path/to/file.cu\nnow\n",
            ),
            ("plain words wrap flush", 11, "plain words\nwrap flush\n"),
        ];
        for (line, width, want) in cases {
            assert_eq!(fit(line, *width), *want, "{line:?} at {width}");
        }
    }

    #[test]
    fn colour_codes_take_no_columns() {
        let red = "\x1b[31mred\x1b[0m";
        let line = format!("- {red} {red} {red}");
        // Shown, the line is 13 columns: it fits 13 however long its bytes.
        assert_eq!(fit(&line, 13).lines().count(), 1, "{line:?}");
    }

    #[test]
    fn fit_report_goes_on_further_in() {
        // (report, width, expected)
        let cases: &[(&str, usize, &str)] = &[
            ("  output: ok\n", 80, "  output: ok\n"),
            (
                "head line\n  achieved: one two three\n",
                14,
                "head line\n  achieved:\n    one two\n    three\n",
            ),
        ];
        for (text, width, want) in cases {
            assert_eq!(fit_report(text, *width), *want, "{text:?} at {width}");
        }
    }
}
