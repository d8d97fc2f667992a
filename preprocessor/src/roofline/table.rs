//! A roofline block's tables. The compact one, on the page: the kernel, and
//! for each GPU its time and its share of the roof (the rate that counts
//! under it). The full one,
//! folded under "how this was measured": the kernel (and at the bench
//! sizes, its size), what was measured (time, GB/s, GFLOP/s, share of the
//! roof), then what the spec says (FLOPs, bytes), with large counts in
//! decimal units.

use crate::roofline::rows::{OnGpu, Row};
use puzzle_core::backend_contract::timing::format_ms;
use puzzle_core::quantity::si;
use runner::perf::Checked;
use runner::perf::roofline::{self, Roof};
use std::fmt::Write;

fn dash() -> String {
    "–".into()
}

/// Why a row has no measurement, in a cell that wraps: the other cells keep
/// their numbers on one line, but a sentence ("cannot launch: buffer `s`
/// needs 4294968320 bytes …") on one line would stretch the table far past
/// the column.
fn why_cell(why: &impl std::fmt::Display) -> String {
    format!("<span class=\"puzzle-why\">{why}</span>")
}

/// The header and alignment rows; `bench` adds the sizes (beside the
/// kernel) and output columns.
pub fn header(bench: bool) -> String {
    let (sizes, sizes_rule, output, output_rule) = if bench {
        (" sizes |", " --- |", " output |", " --- |")
    } else {
        ("", "", "", "")
    };
    format!(
        "| kernel |{sizes} median time | GB/s | GFLOP/s | % of roof | bound | FLOPs | fewest bytes | FLOP/byte |{output}\n\
         | --- |{sizes_rule} ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |{output_rule}"
    )
}

/// A rate with the digits that matter: `45,688`, `98.2`, `3.14`, `0.00690`.
pub fn rate(v: f64) -> String {
    if v >= 1000.0 {
        puzzle_core::quantity::thousands(v.round() as u64)
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else if v > 0.0 {
        // Three significant digits.
        let digits = (2.0 - v.log10().floor()) as usize;
        format!("{v:.digits$}")
    } else {
        "0".into()
    }
}

/// The output column: a mark, with the detail (a sample's size, the
/// problems) kept short; the full problems follow the table.
fn output_cell(checked: &Checked) -> String {
    match checked {
        Checked::Passed => "✔".into(),
        Checked::Failed(_) => "✘ wrong".into(),
        Checked::Skipped(_) => "not checked".into(),
        Checked::Sampled { outputs, of } => {
            format!("✔ {} of {}", si(*outputs as f64), si(*of as f64))
        }
    }
}

pub fn table_row(row: &Row) -> String {
    let intensity = row
        .flops
        .map(|f| format!("{:.3}", roofline::intensity(f, row.bytes)))
        .unwrap_or_else(dash);
    let flops = row.flops.map(|f| si(f as f64)).unwrap_or_else(dash);
    // At the bench sizes a kernel has a row per size: the size names the
    // row, so it stands next to the kernel.
    let kernel = match &row.sizes {
        Some(sizes) => format!("| `{}` | {sizes} |", row.id),
        None => format!("| `{}` |", row.id),
    };
    let spec_cells = format!(" {flops} | {} | {intensity} |", si(row.bytes as f64));
    let output = row
        .bench
        .as_ref()
        .map(|b| format!(" {} |", output_cell(&b.checked)))
        .unwrap_or_default();
    let p = match &row.placement {
        Ok(p) => p,
        Err(why) => {
            // A bench row without a benchmark leaves its output cell empty.
            let output = if row.sizes.is_some() { " |" } else { "" };
            return format!("{kernel} {} | | | | |{spec_cells}{output}", why_cell(why));
        }
    };
    let b = p.binding.as_ref();
    let bound = match (b.map(|b| b.roof), p.launch_bound) {
        (_, Some(true)) => "launch".to_string(),
        (Some(Roof::Memory), _) => match b.and_then(|b| b.traffic) {
            Some(t) => format!("memory ({})", t.label()),
            None => "memory".into(),
        },
        (Some(Roof::Compute), _) => "compute".into(),
        (None, _) => dash(),
    };
    let mut time = format_ms(p.median_ms);
    if let Some(bench) = &row.bench {
        time.push_str(&format!(" ± {:.1}%", bench.timing.spread_pct()));
    }
    format!(
        "{kernel} {time} | {} | {} | {} | {bound} |{spec_cells}{output}",
        rate(p.achieved_gb_s),
        p.achieved_gflop_s.map(rate).unwrap_or_else(dash),
        b.map(|b| format!("{:.1}%", b.percent)).unwrap_or_else(dash),
    )
}

/// One GPU's cells of a row in a table with the GPUs as column groups.
#[derive(Debug, Clone, PartialEq)]
pub enum Cells {
    /// A cell under each of the group's headings.
    Each(Vec<String>),
    /// One sentence across the group (why the GPU has no figure).
    Across(String),
}

/// A table whose columns are grouped by GPU, as HTML (Markdown tables have
/// one header row): `lead` headings (the kernel) over a cell each, then each
/// GPU's name over its `sub` headings. Cells are HTML already.
pub fn grouped_table(
    lead: &[&str],
    gpus: &[&str],
    sub: &[&str],
    rows: &[(Vec<String>, Vec<Cells>)],
) -> String {
    // The figures align right by the stylesheet's `puzzle-grouped` rule, not
    // by an attribute on each of a page's hundreds of cells.
    let mut html = String::from(
        "<div class=\"puzzle-table\">\n<table class=\"puzzle-grouped\">\n<thead>\n<tr>",
    );
    for heading in lead {
        let _ = write!(html, "<th rowspan=\"2\">{heading}</th>");
    }
    for gpu in gpus {
        let _ = write!(html, "<th colspan=\"{}\">{gpu}</th>", sub.len());
    }
    html.push_str("</tr>\n<tr>");
    for _ in gpus {
        for heading in sub {
            let _ = write!(html, "<th>{heading}</th>");
        }
    }
    html.push_str("</tr>\n</thead>\n<tbody>\n");
    for (lead, groups) in rows {
        html.push_str("<tr>");
        for cell in lead {
            let _ = write!(html, "<td>{cell}</td>");
        }
        for cells in groups {
            match cells {
                Cells::Each(cells) => {
                    for cell in cells {
                        let _ = write!(html, "<td>{cell}</td>");
                    }
                }
                Cells::Across(text) => {
                    let _ = write!(html, "<td colspan=\"{}\">{text}</td>", sub.len());
                }
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table>\n</div>\n");
    html
}

/// Text with Markdown's `code` spans as HTML, the rest escaped: a sentence
/// (why a row has no figure) written into an HTML table, where Markdown is
/// not read.
pub fn html_text(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let mut html = String::new();
    for (i, piece) in escaped.split('`').enumerate() {
        match i % 2 {
            1 => {
                let _ = write!(html, "<code>{piece}</code>");
            }
            _ => html.push_str(piece),
        }
    }
    html
}

/// Why a GPU has no figure, across its columns, in a box that wraps.
pub fn across(why: &str) -> Cells {
    Cells::Across(format!(
        "<span class=\"puzzle-why\">{}</span>",
        html_text(why)
    ))
}

/// The kernel's cell of a compact row: its name, and at bench sizes its
/// sizes in small type under it.
pub fn kernel_cell(row: &Row) -> String {
    match &row.sizes {
        Some(sizes) => format!("<code>{}</code><br><small>{sizes}</small>", row.id),
        None => format!("<code>{}</code>", row.id),
    }
}

/// One GPU's two cells of a compact row: the time (under it, the spread
/// and the output's check), and the share of the roof (under it, the rate
/// that counts and which roof); or why there is no figure, across both.
pub fn compact_cells(row: &Row) -> Cells {
    let p = match &row.placement {
        Ok(p) => p,
        Err(why) => return across(&why.to_string()),
    };
    // The spread, and the check's mark alone: what a sampled check covered
    // is in the full table, and would widen every GPU's column.
    let time = match &row.bench {
        None => format_ms(p.median_ms),
        Some(bench) => {
            let mark = match &bench.checked {
                Checked::Sampled { .. } => "✔".to_string(),
                checked => output_cell(checked),
            };
            // Non-breaking spaces: the line under a figure may wrap for the
            // table to fit the column, between its parts, never inside one.
            format!(
                "{}<br><small>±\u{a0}{:.1}% {mark}</small>",
                format_ms(p.median_ms),
                bench.timing.spread_pct()
            )
        }
    };
    let b = p.binding.as_ref();
    let rate_text = match (b.map(|b| b.roof), p.achieved_gflop_s) {
        (Some(Roof::Compute), Some(gflop_s)) => format!("{}\u{a0}GFLOP/s", rate(gflop_s)),
        _ => format!("{}\u{a0}GB/s", rate(p.achieved_gb_s)),
    };
    let share = match (b, p.launch_bound) {
        (_, Some(true)) => format!("launch-bound<br><small>{rate_text}</small>"),
        (Some(b), _) => {
            // GFLOP/s says the compute roof; GB/s, a memory roof, and which.
            let roof = match (b.roof, b.traffic) {
                (Roof::Memory, Some(t)) => format!(", {}", t.label()),
                _ => String::new(),
            };
            format!("{:.1}%<br><small>{rate_text}{roof}</small>", b.percent)
        }
        (None, _) => format!("–<br><small>{rate_text}</small>"),
    };
    Cells::Each(vec![time, share])
}

/// The compact table a reader compares, every GPU at once: a row per
/// kernel (and size), and for each GPU its time and its share of the roof
/// that binds. Five columns for two GPUs: it fits a laptop's column, and
/// scrolls in its box on a phone. The full counts are in [`header`]'s
/// table, folded under "how this was measured".
pub fn compact_table(gpus: &[OnGpu]) -> String {
    let names: Vec<&str> = gpus.iter().map(|g| g.short.as_str()).collect();
    let Some(first) = gpus.first() else {
        return String::new();
    };
    let rows: Vec<(Vec<String>, Vec<Cells>)> = (0..first.rows.len())
        .map(|i| {
            let cells = gpus.iter().map(|g| compact_cells(&g.rows[i])).collect();
            (vec![kernel_cell(&first.rows[i])], cells)
        })
        .collect();
    grouped_table(&["kernel"], &names, &["time", "% of roof"], &rows)
}

/// The problems of benchmarks whose output was wrong, for under the table.
pub fn wrong_outputs(rows: &[Row], gpu: &str) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            let Checked::Failed(problems) = &r.bench.as_ref()?.checked else {
                return None;
            };
            Some(format!(
                "`{}` at {} on the {gpu}: WRONG: {}",
                r.id,
                r.sizes.as_deref().unwrap_or("the teaching size"),
                problems.join("; ")
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_table() {
        for (v, text) in [
            (45688.2, "45,688"),
            (3910.8, "3,911"),
            (162.0, "162"),
            (98.24, "98.2"),
            (3.25678, "3.26"),
            (0.0069, "0.00690"),
            (0.2003, "0.200"),
            (0.0, "0"),
        ] {
            assert_eq!(rate(v), text, "{v}");
        }
    }

    #[test]
    fn header_and_rows_have_the_same_columns() {
        let cells = |line: &str| line.matches('|').count();
        for bench in [false, true] {
            let header = header(bench);
            let mut lines = header.lines();
            assert_eq!(cells(lines.next().unwrap()), cells(lines.next().unwrap()));
        }
    }

    #[test]
    fn html_text_table() {
        for (text, html) in [
            ("not benchmarked on this GPU", "not benchmarked on this GPU"),
            (
                "cannot launch: buffer `s` needs 4 bytes",
                "cannot launch: buffer <code>s</code> needs 4 bytes",
            ),
            ("a < b & c", "a &lt; b &amp; c"),
        ] {
            assert_eq!(html_text(text), html, "{text}");
        }
    }

    /// Every row of a grouped table spans as many columns as its header: a
    /// GPU's cells, or its one sentence across them.
    #[test]
    fn grouped_rows_fill_their_groups_table() {
        let why = || Cells::Across("<span class=\"puzzle-why\">no current recording</span>".into());
        let figures = || Cells::Each(vec!["1.000 ms".into(), "50.0%".into()]);
        let cases: [(&str, Vec<Cells>); 3] = [
            ("both recorded", vec![figures(), figures()]),
            ("one not", vec![why(), figures()]),
            ("neither", vec![why(), why()]),
        ];
        for (name, cells) in cases {
            let html = grouped_table(
                &["kernel"],
                &["H100", "H200"],
                &["time", "% of roof"],
                &[(vec!["<code>k</code>".into()], cells)],
            );
            let row = html.lines().find(|l| l.contains("<code>k</code>")).unwrap();
            let spans = |line: &str| {
                line.split("<t")
                    .skip(1)
                    .filter(|cell| cell.starts_with(['d', 'h']) && !cell.starts_with("head"))
                    .map(|cell| match cell.split_once("colspan=\"") {
                        Some((_, n)) => n[..1].parse::<usize>().unwrap(),
                        None => 1,
                    })
                    .sum::<usize>()
            };
            let header = html.lines().find(|l| l.contains("H100")).unwrap();
            assert_eq!(spans(row), 5, "{name}: {row}");
            assert_eq!(spans(header), 5, "{name}: {header}");
            assert!(
                html.contains("<th>time</th><th>% of roof</th><th>time</th>"),
                "{name}"
            );
        }
    }

    /// One GPU's cells of a compact row: the time, and the share of the
    /// roof with the rate under it (the memory roof's stream named); or why
    /// there is no figure, across both, in the box that wraps.
    #[test]
    fn compact_cells_table() {
        use crate::roofline::rows::Unplaced;
        use runner::perf::Traffic;
        use runner::perf::roofline::{Binding, Placement};
        let placed = |roof, traffic, launch_bound| Placement {
            median_ms: 0.25,
            flops: Some(1),
            min_bytes: 1,
            achieved_gb_s: 2747.4,
            achieved_gflop_s: Some(343.4),
            binding: Some(Binding {
                roof,
                ceiling: 1.0,
                percent: 93.52,
                traffic,
            }),
            launch_bound: Some(launch_bound),
            elements: 1,
        };
        let row = |placement| Row {
            id: "k".into(),
            sizes: None,
            case: None,
            headline: true,
            flops: Some(1),
            bytes: 1,
            shapes: vec![],
            placement,
            bench: None,
            recorded_on: None,
        };
        let each = |time: &str, share: &str| Cells::Each(vec![time.into(), share.into()]);
        let cases = [
            (
                row(Ok(placed(Roof::Memory, Some(Traffic::ReadWrite), false))),
                each("0.250 ms", "93.5%<br><small>2,747\u{a0}GB/s, copy</small>"),
            ),
            (
                row(Ok(placed(Roof::Compute, None, false))),
                each("0.250 ms", "93.5%<br><small>343\u{a0}GFLOP/s</small>"),
            ),
            (
                row(Ok(placed(Roof::Memory, None, true))),
                each("0.250 ms", "launch-bound<br><small>2,747\u{a0}GB/s</small>"),
            ),
            (
                row(Err(Unplaced::NotBenchmarked)),
                Cells::Across(
                    "<span class=\"puzzle-why\">not benchmarked on this GPU</span>".into(),
                ),
            ),
            (
                row(Err(Unplaced::Awaiting("2026-12-03".into()))),
                Cells::Across(
                    "<span class=\"puzzle-why\">not run on this GPU since the kernel changed \
                     on 2026-12-03</span>"
                        .into(),
                ),
            ),
        ];
        for (row, want) in cases {
            assert_eq!(compact_cells(&row), want, "{:?}", row.placement);
        }
    }
}
