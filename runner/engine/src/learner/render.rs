//! `runner check` as text: `out` against `expected` with the wrong elements
//! marked, then the verdict, then the diagnosis and what to do next.
//!
//! The text carries ANSI colours; the CLI prints it through `anstream`,
//! which removes them when the output is not a terminal (or `NO_COLOR` is
//! set). Wrong elements are also underlined with `^`, so piped output and
//! colour-blind readers see them too. Prose is wrapped to the width it is
//! given ([`super::fit`]), and a row of values shows as many elements as fit.

use super::fit::fit;
use anstyle::{AnsiColor, Style};
use puzzle_core::assess::cases::Stage;
use puzzle_core::assess::learner::{CheckReport, Element, Finding, Output, Run, Verdict, What};
use puzzle_core::judge::format::format_value;
use puzzle_core::judge::report::printed_block;
use puzzle_core::source::diag::display_path;
use std::fmt::Write;
use std::path::Path;

const WRONG: Style = AnsiColor::Red.on_default().bold();
const UNWRITTEN: Style = AnsiColor::Yellow.on_default().bold();
const WANTED: Style = AnsiColor::Green.on_default();
const PASS: Style = AnsiColor::Green.on_default().bold();
const FAIL: Style = AnsiColor::Red.on_default().bold();
const NOTE: Style = AnsiColor::Yellow.on_default().bold();
const DIM: Style = Style::new().dimmed();
const BOLD: Style = Style::new().bold();

/// Longest run of elements shown on one line; longer buffers show a window,
/// narrowed (to [`WINDOWS`]'s smaller sizes) until its lines fit the width.
const WINDOW: usize = 16;
const WINDOWS: [usize; 5] = [WINDOW, 12, 8, 6, 4];
/// Rows of a matrix shown one by one; larger ones show their wrong rows.
const ROWS: usize = 16;

fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// The whole report, as `runner check` prints it, fitted to `width` columns.
pub fn render(report: &CheckReport, width: usize) -> String {
    let mut text = String::new();
    text.push_str(&fit(
        &paint(
            DIM,
            &format!(
                "{} · {} · {} · {}",
                report.puzzle,
                report.title,
                report.lang.label(),
                display_path(&report.file)
            ),
        ),
        width,
    ));
    let shown: Vec<(usize, &Run)> = report
        .runs
        .iter()
        .enumerate()
        .filter(|(i, r)| *i == 0 || r.outputs.iter().any(has_problem))
        .collect();
    for (i, run) in &shown {
        if report.runs.len() > 1 {
            let _ = writeln!(text, "{}", paint(DIM, &run_label(report, *i, run)));
        }
        text.push_str(&printed_block(&run.printed));
        for output in &run.outputs {
            text.push_str(&values_within(output, width));
        }
    }
    let style = match report.verdict {
        Verdict::Pass => PASS,
        Verdict::CompiledOnly | Verdict::Unavailable => NOTE,
        _ => FAIL,
    };
    let mark = match report.verdict {
        Verdict::Pass => "✔",
        Verdict::CompiledOnly | Verdict::Unavailable => "–",
        _ => "✘",
    };
    let verdict = format!(
        "{} {}",
        paint(style, &format!("{mark} {}:", report.verdict.word())),
        paint(
            BOLD,
            &format!(
                "{} ({}) {}",
                report.puzzle,
                report.lang.label(),
                report.summary
            )
        )
    );
    text.push_str(&fit(&verdict, width));
    if let Some(device) = &report.device {
        text.push_str(&fit(&paint(DIM, &format!("  on {device}")), width));
    }
    for finding in &report.findings {
        text.push_str(&finding_text(finding, width));
    }
    text.push_str(&fit(&format!("→ {}", report.next), width));
    text
}

fn run_label(report: &CheckReport, index: usize, run: &Run) -> String {
    let sizes: Vec<String> = run
        .constants
        .iter()
        .filter(|(k, v)| index == 0 || report.runs[0].constants.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    match run.stage {
        Stage::Teaching => format!("at the teaching size ({}):", sizes.join(", ")),
        Stage::Stress => format!(
            "at the stress size {} (random inputs, CPU reference):",
            sizes.join(", ")
        ),
    }
}

fn has_problem(output: &Output) -> bool {
    !(output.wrong.is_empty() && output.unwritten.is_empty() && output.out_of_bounds.is_empty())
}

fn finding_text(finding: &Finding, width: usize) -> String {
    let mut text = String::new();
    // A message's first line is prose; further lines (a compiler quoting
    // the source) are code, shown as they are.
    let (first, rest) = finding
        .message
        .split_once('\n')
        .map_or((finding.message.as_str(), None), |(a, b)| (a, Some(b)));
    match &finding.what {
        What::CompileError { file, line } | What::Hazard { file, line } => {
            let place = paint(BOLD, &format!("{}:{line}:", display_path(file)));
            text.push_str(&fit(&format!("  {place} {first}"), width));
            if let Some(rest) = rest {
                let _ = writeln!(text, "{rest}");
            }
            // NVRTC quotes the line itself; naga does not, so show it.
            if !finding.message.contains('\n')
                && let Some(source) = source_line(file, *line)
            {
                let _ = writeln!(text, "{}", paint(DIM, &format!("  {line:>5} | {source}")));
            }
        }
        What::StressOnly { .. } => {
            text.push_str(&fit(&format!("  ! {first}"), width));
            if let Some(rest) = rest {
                let _ = writeln!(text, "{rest}");
            }
        }
        _ => {
            text.push_str(&fit(&format!("  - {first}"), width));
            if let Some(rest) = rest {
                let _ = writeln!(text, "{rest}");
            }
        }
    }
    text
}

fn source_line(file: &Path, line: usize) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let source = text.lines().nth(line.checked_sub(1)?)?;
    Some(source.to_string())
}

/// A stretch of one output shown on one line: flat indices, and a label
/// (`[2]` for row 2, `[16..32]` for a window).
struct Slice {
    label: String,
    indices: Vec<usize>,
}

fn slices(output: &Output, window_len: usize) -> Vec<Slice> {
    let len = output.got.len();
    let mut problems: Vec<usize> = output
        .wrong
        .iter()
        .chain(&output.unwritten)
        .copied()
        .collect();
    problems.sort_unstable();
    if let [rows, cols] = output.shape[..] {
        if rows <= ROWS && cols <= window_len {
            return (0..rows)
                .map(|r| Slice {
                    label: format!("[{r}]"),
                    indices: (r * cols..(r + 1) * cols).collect(),
                })
                .collect();
        }
        let mut bad_rows: Vec<usize> = problems.iter().map(|i| i / cols.max(1)).collect();
        bad_rows.dedup();
        if bad_rows.is_empty() {
            bad_rows.push(0);
        }
        return bad_rows
            .into_iter()
            .take(3)
            .map(|r| {
                let first = problems
                    .iter()
                    .find(|&&i| i / cols == r)
                    .map_or(0, |i| i % cols);
                let (a, b) = window(cols, first, window_len);
                let label = if (a, b) == (0, cols) {
                    format!("[{r}]")
                } else {
                    format!("[{r}, {a}..{b}]")
                };
                Slice {
                    label,
                    indices: (r * cols + a..r * cols + b).collect(),
                }
            })
            .collect();
    }
    if len <= 2 * window_len {
        return vec![Slice {
            label: String::new(),
            indices: (0..len).collect(),
        }];
    }
    let (a, b) = window(len, problems.first().copied().unwrap_or(0), window_len);
    vec![Slice {
        label: format!("[{a}..{b}]"),
        indices: (a..b).collect(),
    }]
}

/// A window of at most `size` positions of `0..len` that shows `at`, a little after the start.
fn window(len: usize, at: usize, size: usize) -> (usize, usize) {
    if len <= size {
        return (0, len);
    }
    // A quarter of the window before `at` (4 of 16), so what led up to it shows.
    let start = at.saturating_sub(size / 4).min(len - size);
    (start, start + size)
}

/// [`values`] with the widest window whose lines fit `width` columns (the
/// narrowest window where none does).
fn values_within(output: &Output, width: usize) -> String {
    let mut text = String::new();
    for size in WINDOWS {
        text = values(output, size);
        let widest = text
            .lines()
            .map(textwrap::core::display_width)
            .max()
            .unwrap_or(0);
        if widest <= width {
            break;
        }
    }
    text.lines().map(|l| fit(l, width)).collect()
}

/// The `out:` / `expected:` lines of one output, with markers under the wrong elements.
fn values(output: &Output, window_len: usize) -> String {
    let slices = slices(output, window_len);
    let width = slices
        .iter()
        .map(|s| "expected".len() + s.label.len() + 1)
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    let shown: usize = slices.iter().map(|s| s.indices.len()).sum();
    for slice in &slices {
        let mut got_line = String::new();
        let mut want_line = String::new();
        let mut marks = String::new();
        let mut any_mark = false;
        for (n, &i) in slice.indices.iter().enumerate() {
            let got = match output.got.get(i) {
                Some(Element::Value(v)) => format_value(*v),
                _ => "·".to_string(),
            };
            let want = output
                .expected
                .get(i)
                .map_or(String::new(), |&v| format_value(v));
            let w = got.chars().count().max(want.chars().count());
            let sep = if n == 0 { "" } else { ", " };
            let (got_style, want_style, mark) = if output.unwritten.contains(&i) {
                (UNWRITTEN, WANTED, '^')
            } else if output.wrong.contains(&i) {
                (WRONG, WANTED, '^')
            } else {
                (Style::new(), Style::new(), ' ')
            };
            any_mark |= mark != ' ';
            let _ = write!(got_line, "{sep}{}", paint(got_style, &format!("{got:>w$}")));
            let _ = write!(
                want_line,
                "{sep}{}",
                paint(want_style, &format!("{want:>w$}"))
            );
            let _ = write!(
                marks,
                "{}{}",
                " ".repeat(sep.len()),
                mark.to_string().repeat(w)
            );
        }
        let out_label = format!("{}{}:", output.name, slice.label);
        let want_label = format!("expected{}:", slice.label);
        let _ = writeln!(text, "{out_label:width$} [{got_line}]");
        let _ = writeln!(text, "{want_label:width$} [{want_line}]");
        if any_mark {
            let _ = writeln!(
                text,
                "{} {}",
                " ".repeat(width),
                paint(FAIL, &format!(" {}", marks.trim_end()))
            );
        }
    }
    // Writes past either end change no element shown: name them, marked.
    if !output.out_of_bounds.is_empty() {
        let names: Vec<String> = output
            .out_of_bounds
            .iter()
            .take(WINDOW)
            .map(|i| format!("{}[{i}]", output.name))
            .collect();
        let _ = writeln!(
            text,
            "{:width$} {} written outside the buffer",
            "outside:",
            paint(WRONG, &names.join(", "))
        );
    }
    if shown < output.got.len() {
        let _ = writeln!(
            text,
            "{}",
            paint(
                DIM,
                &format!(
                    "({} of {} elements shown; the list below names the wrong ones)",
                    shown,
                    output.got.len()
                )
            )
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzle_core::assess::learner::SCHEMA;
    use puzzle_core::backend_contract::backend::BackendKind;
    use puzzle_core::judge::report::Status;
    use puzzle_core::lang::Lang;

    fn output(shape: Vec<usize>, got: Vec<Option<f64>>, expected: Vec<f64>) -> Output {
        let wrong = (0..got.len())
            .filter(|&i| got[i].is_some_and(|g| g != expected[i]))
            .collect();
        let unwritten = (0..got.len()).filter(|&i| got[i].is_none()).collect();
        Output {
            name: "out".into(),
            shape,
            got: got
                .into_iter()
                .map(|g| g.map_or(Element::Unwritten, Element::Value))
                .collect(),
            expected,
            wrong,
            unwritten,
            out_of_bounds: vec![],
        }
    }

    fn plain(text: &str) -> String {
        anstream::adapter::strip_str(text).to_string()
    }

    #[test]
    fn marks_wrong_and_unwritten_elements_under_aligned_columns() {
        let out = output(
            vec![4],
            vec![Some(10.0), None, Some(2.0), Some(13.0)],
            vec![10.0, 11.0, 12.0, 13.0],
        );
        assert_eq!(
            plain(&values(&out, WINDOW)),
            "out:      [10.0,    ·,  2.0, 13.0]\n\
             expected: [10.0, 11.0, 12.0, 13.0]\n          \
                        \u{20}      ^^^^  ^^^^\n"
        );
    }

    #[test]
    fn writes_past_the_end_are_named_under_the_values() {
        let mut out = output(vec![2], vec![Some(1.0), Some(2.0)], vec![1.0, 2.0]);
        out.out_of_bounds = vec![2, -1];
        let text = plain(&values(&out, WINDOW));
        assert!(
            text.contains("outside:  out[2], out[-1] written outside the buffer"),
            "{text}"
        );
    }

    #[test]
    fn colours_only_the_wrong_elements() {
        let out = output(vec![2], vec![Some(1.0), Some(5.0)], vec![1.0, 2.0]);
        let text = values(&out, WINDOW);
        assert!(text.contains(&paint(WRONG, "5.0")), "{text:?}");
        assert!(text.contains(&paint(WANTED, "2.0")), "{text:?}");
        assert!(!text.contains(&paint(WRONG, "1.0")), "{text:?}");
    }

    #[test]
    fn a_row_of_values_shows_as_many_elements_as_fit() {
        let len = 1000;
        let mut got: Vec<Option<f64>> = (0..len).map(|i| Some(i as f64 * 1000.5)).collect();
        got[500] = Some(-1.0);
        let expected: Vec<f64> = (0..len).map(|i| i as f64 * 1000.5).collect();
        let out = output(vec![len], got, expected);
        for width in [60, 80, 120, 200] {
            let text = plain(&values_within(&out, width));
            let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
            assert!(widest <= width, "{width} columns:\n{text}");
            assert!(
                text.contains("-1.0"),
                "the wrong element stays in view:\n{text}"
            );
        }
        // A wide terminal shows the whole window of 16.
        assert!(plain(&values_within(&out, 200)).contains("[496..512]"));
    }

    #[test]
    fn slices_table() {
        // (shape, first wrong flat index, expected labels)
        let cases: &[(Vec<usize>, Option<usize>, &[&str])] = &[
            (vec![4], Some(1), &[""]),
            (vec![2, 3], Some(4), &["[0]", "[1]"]),
            (vec![1000], Some(500), &["[496..512]"]),
            (vec![1000], None, &["[0..16]"]),
            (vec![1000], Some(998), &["[984..1000]"]),
            (vec![40, 40], Some(41), &["[1, 0..16]"]),
            (vec![40, 4], Some(80), &["[20]"]),
        ];
        for (shape, wrong, labels) in cases {
            let len = shape.iter().product();
            let mut got = vec![Some(0.0); len];
            if let Some(w) = wrong {
                got[*w] = Some(1.0);
            }
            let out = output(shape.clone(), got, vec![0.0; len]);
            let got: Vec<String> = slices(&out, WINDOW).into_iter().map(|s| s.label).collect();
            assert_eq!(got, *labels, "{shape:?} wrong at {wrong:?}");
        }
    }

    #[test]
    fn report_reads_values_then_verdict_then_diagnosis() {
        let report = CheckReport {
            schema: SCHEMA,
            puzzle: "p03_guard".into(),
            title: "Guards".into(),
            lang: Lang::Wgsl,
            file: "/nowhere/add_10_guard.wgsl".into(),
            backend: BackendKind::Wgpu,
            device: Some("wgpu · test".into()),
            verdict: Verdict::Fail,
            summary: "fails at the teaching size".into(),
            runs: vec![Run {
                stage: Stage::Teaching,
                constants: [("SIZE".to_string(), 4)].into(),
                status: Status::Fail,
                outputs: vec![output(vec![2], vec![None, Some(1.0)], vec![0.0, 1.0])],
                printed: String::new(),
            }],
            findings: vec![Finding {
                what: What::Error,
                run: Some(0),
                message: "something is off".into(),
            }],
            next: "Fix it.".into(),
        };
        let text = plain(&render(&report, 80));
        let at = |part: &str| {
            text.find(part)
                .unwrap_or_else(|| panic!("{part:?} in\n{text}"))
        };
        assert!(at("out:") < at("expected:"));
        assert!(at("expected:") < at("✘ FAIL: p03_guard (WGSL) fails at the teaching size"));
        assert!(at("✘ FAIL") < at("  - something is off"));
        assert!(at("  - something is off") < at("→ Fix it."));
    }
}
