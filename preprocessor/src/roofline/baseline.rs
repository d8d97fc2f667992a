//! A roofline block's `baseline`: the kernels against a vendor library
//! timed on the same GPU, as percentages of its rate, with the targets'
//! verdicts; every GPU in one section.

use crate::roofline::rows::{Row, case_text};
use crate::roofline::table::{self, Cells};
use crate::roofline::verdicts::{Judged, and, awaiting, joint_verdict, wrong};
use puzzle_core::backend_contract::timing::format_ms;
use runner::perf::{Baseline, BaselineCase, BaselineRef, NotComparable, Target, comparable};
use std::fmt::Write;

/// One GPU's side of a block's comparison with a library: its name as the
/// page gives it, its full name (the library's timings are filed under it),
/// and its rows compared with the library.
pub struct Compared<'a> {
    pub short: &'a str,
    pub device: &'a str,
    pub rows: Vec<&'a Row>,
}

/// The library as timed on one GPU: its timings of the block's case.
struct Timed<'a> {
    gpu: &'a Compared<'a>,
    baseline: &'a Baseline,
    cases: Vec<&'a BaselineCase>,
    /// A stream (a softmax, a norm) is read in GB/s; a product in GFLOP/s.
    streams: bool,
}

/// The kernels against a library, every GPU at once: what the library took
/// on each GPU it was timed on (a sentence each in one paragraph), each
/// kernel's rows at those sizes as a percentage of its speed (a table with
/// the GPUs as column groups), and the targets' verdicts, a line each.
pub fn baseline_section(wanted: &BaselineRef, gpus: &[Compared], baselines: &[Baseline]) -> String {
    let mut untimed = Vec::new();
    let mut refused = Vec::new();
    let mut timed: Vec<Timed> = Vec::new();
    for gpu in gpus {
        let Some(baseline) = baselines
            .iter()
            .find(|b| b.device == gpu.device && b.cases.iter().any(|c| c.name == wanted.name))
        else {
            untimed.push(format!("the {}", gpu.short));
            continue;
        };
        let cases: Vec<&BaselineCase> = baseline
            .cases
            .iter()
            .filter(|c| c.name == wanted.name)
            .collect();
        // No row on the library's inputs: no columns of refusals, one sentence.
        let refusals: Vec<NotComparable> = gpu
            .rows
            .iter()
            .filter_map(|&row| Some(percent_of(case_of_row(&cases, row)?, row)))
            .map(|verdict| verdict.err())
            .collect::<Option<_>>()
            .unwrap_or_default();
        if let Some(why) = refusals.first() {
            refused.push(format!(
                "<p class=\"puzzle-baseline\">Against {}: not compared on the {}, for {why}.</p>\n\n",
                baseline.library, gpu.short
            ));
            continue;
        }
        let streams = cases.iter().all(|c| c.bytes.is_some());
        timed.push(Timed {
            gpu,
            baseline,
            cases,
            streams,
        });
    }
    let mut md = String::new();
    if !untimed.is_empty() {
        let _ = writeln!(
            md,
            "<p class=\"puzzle-baseline\">The library (`{}`) has not been timed on {}: nothing \
             to compare with there.</p>\n",
            wanted.name,
            and(&untimed)
        );
    }
    md.push_str(&refused.concat());
    if !timed.is_empty() {
        md.push_str(&ladder(&timed));
        md.push_str(&timings(&timed));
        md.push_str(&percent_table(&timed));
    }
    for target in &wanted.targets {
        let judged: Vec<(&str, Judged)> = timed
            .iter()
            .map(|t| (t.gpu.short, judge(target, t)))
            .collect();
        if judged.is_empty() {
            continue;
        }
        let library = &timed[0].baseline.library;
        let _ = write!(md, "\n{}\n", joint_verdict(target, library, &judged));
    }
    md
}

/// The lesson in one line: each kernel's share of the library at its
/// headline size, in the block's order, on each GPU.
fn ladder(timed: &[Timed]) -> String {
    let each: Vec<String> = timed
        .iter()
        .filter_map(|t| {
            let ladder: Vec<String> = t
                .gpu
                .rows
                .iter()
                .filter(|r| r.headline)
                .filter_map(|&row| {
                    let percent = percent_of(case_of_row(&t.cases, row)?, row).ok()??;
                    Some(format!("{percent:.0} %"))
                })
                .collect();
            (ladder.len() > 1).then(|| format!("{} on the {}", ladder.join(" → "), t.gpu.short))
        })
        .collect();
    if each.is_empty() {
        return String::new();
    }
    format!(
        "<p class=\"puzzle-ladder\"><strong>In one line:</strong> kernel by kernel, in the order \
         of the table below, {} of {}'s speed, at each kernel's headline size.</p>\n\n",
        each.join("; "),
        timed[0].baseline.library
    )
}

/// What the library took on each GPU, a sentence each in one paragraph.
fn timings(timed: &[Timed]) -> String {
    let library = &timed[0].baseline.library;
    let data = match timed
        .iter()
        .flat_map(|t| &t.cases)
        .find_map(|c| c.inputs.as_ref())
    {
        Some(inputs) => format!(
            "on the very bytes the kernels were timed on ({})",
            inputs.distribution
        ),
        None => "on data of its own, so no kernel is compared with it here".to_string(),
    };
    let mut md = format!(
        "**Against {library}**, timed on the same GPUs as the kernels with device events, median \
         after warm-up, {data}."
    );
    for t in timed {
        let unit = if t.streams { "GB/s" } else { "GFLOP/s" };
        let each: Vec<String> = t
            .cases
            .iter()
            .map(|c| {
                let rate = if t.streams {
                    c.gb_s().unwrap_or_default()
                } else {
                    c.gflop_s()
                };
                format!(
                    "{} at {} ({} {unit}, ± {:.1}% over {} runs)",
                    format_ms(c.timing.median_ms),
                    case_text(&c.constants),
                    table::rate(rate),
                    c.timing.spread_pct(),
                    c.timing.samples
                )
            })
            .collect();
        let worst = t
            .cases
            .iter()
            .map(|c| c.max_relative_error)
            .fold(0.0, f64::max);
        let _ = write!(
            md,
            " On the {} ({}), on {}: {}; its largest error against the same computation in FP64 \
             is {worst:.1e} of the largest output.",
            t.gpu.short,
            t.baseline.software,
            t.baseline.date,
            each.join("; ")
        );
    }
    md.push_str(
        " A percentage is the library's time over the kernel's at the same size: above 100 %, \
         the kernel is faster.\n\n",
    );
    md
}

/// Each kernel's rows at the library's sizes: for each GPU its time and its
/// percentage of the library's speed, with the notes the cells need.
fn percent_table(timed: &[Timed]) -> String {
    let mut other_days: Vec<&Timed> = Vec::new();
    // Why rows are not compared, said once under the table.
    let mut refused = std::collections::BTreeSet::new();
    let first = &timed[0];
    let mut rows = Vec::new();
    for (i, &row) in first.gpu.rows.iter().enumerate() {
        if timed
            .iter()
            .all(|t| case_of_row(&t.cases, t.gpu.rows[i]).is_none())
        {
            continue;
        }
        let mut groups = Vec::new();
        for t in timed {
            let row = t.gpu.rows[i];
            let Some(case) = case_of_row(&t.cases, row) else {
                groups.push(table::across("not timed at this size"));
                continue;
            };
            let day = other_day(row, &t.baseline.date);
            if !day.is_empty() && !other_days.iter().any(|o| std::ptr::eq(*o, t)) {
                other_days.push(t);
            }
            groups.push(match (&row.placement, percent_of(case, row)) {
                (Ok(p), Ok(Some(percent))) => {
                    Cells::Each(vec![format_ms(p.median_ms), format!("{percent:.1}%{day}")])
                }
                (Ok(p), Err(why)) => {
                    refused.insert(why.to_string());
                    Cells::Each(vec![format_ms(p.median_ms), "not compared".into()])
                }
                (Err(why), _) => table::across(&why.to_string()),
                (Ok(_), Ok(None)) => table::across("no time recorded"),
            });
        }
        rows.push((vec![table::kernel_cell(row)], groups));
    }
    let names: Vec<&str> = timed.iter().map(|t| t.gpu.short).collect();
    let mut md = table::grouped_table(&["kernel"], &names, &["time", "% of library"], &rows);
    if !refused.is_empty() {
        let reasons: Vec<String> = refused.into_iter().collect();
        let _ = writeln!(
            md,
            "\nA row marked “not compared” has no percentage: {}.",
            reasons.join("; ")
        );
    }
    for t in other_days {
        let _ = writeln!(
            md,
            "\nA percentage on the {} marked with a date pairs a kernel timed that day with the \
             library's time of {}: timed on different days, so GPU clocks, driver and load may \
             differ between them.",
            t.gpu.short, t.baseline.date
        );
    }
    md
}

/// A target against the library on one GPU: the kernel's share of the
/// library's speed at its headline size, or why there is none.
fn judge(target: &Target, t: &Timed) -> Judged {
    let row = t
        .gpu
        .rows
        .iter()
        .copied()
        .find(|r| r.id == target.puzzle && r.headline);
    let Some((row, case)) = row.and_then(|r| Some((r, case_of_row(&t.cases, r)?))) else {
        return Judged::Missing("the library was not timed at its headline size".into());
    };
    match percent_of(case, row) {
        Ok(None) => match awaiting(row) {
            Some(changed) => Judged::Awaiting(changed.to_string()),
            None => Judged::Missing("no current recording".into()),
        },
        Ok(Some(percent)) => match undecided(percent, target.percent, case.timing.spread_pct()) {
            Some(why) => Judged::Refused(why),
            None => Judged::Achieved {
                percent,
                wrong: wrong(row),
                roof: String::new(),
            },
        },
        Err(why) => Judged::Refused(why.to_string()),
    }
}

/// Why a library's time cannot decide a target, where it cannot: its own
/// runs spread (± the range over the median, as the tables show it) wider
/// than the kernel's share stands from the target, so the library's noise
/// alone could put the kernel on either side.
fn undecided(percent: f64, target: f64, spread: f64) -> Option<String> {
    let gap = 100.0 * (percent - target).abs() / target;
    (spread > gap).then(|| {
        format!(
            "the library's own times spread by ± {spread:.1} %, more than the {gap:.1} % between \
             the kernel's share and the target"
        )
    })
}

/// "kernel: 2026-11-25", in small type on a line of its own under the
/// percentage (a phone's column has no room for both on one), where the
/// row's benchmark is known to have been taken on another day than the
/// library's time; nothing where the days agree or the recording did not
/// keep the row's own day.
fn other_day(row: &Row, library_date: &str) -> String {
    match &row.recorded_on {
        Some(day) if day != library_date => format!("<br><small>kernel: {day}</small>"),
        _ => String::new(),
    }
}

/// The library's time over a kernel row's at the same size, as a
/// percentage: the kernel's rate as a percentage of the library's, for the
/// work is the same (a FLOP rate for a product, bytes for a stream).
/// The library's case at `row`'s sizes, where it was timed there.
fn case_of_row<'c>(cases: &[&'c BaselineCase], row: &Row) -> Option<&'c BaselineCase> {
    cases
        .iter()
        .copied()
        .find(|c| row.case.as_ref().is_some_and(|rc| c.matches(rc)))
}

/// Refused where the two were not timed on the same inputs ([`comparable`]).
fn percent_of(case: &BaselineCase, row: &Row) -> Result<Option<f64>, NotComparable> {
    comparable(case, row.bench.as_ref().and_then(|b| b.inputs.as_ref()))?;
    let Ok(placement) = &row.placement else {
        return Ok(None);
    };
    let ms = placement.median_ms;
    Ok((ms > 0.0).then(|| 100.0 * case.timing.median_ms / ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(recorded_on: Option<&str>) -> Row {
        Row {
            id: "p".into(),
            sizes: None,
            case: None,
            headline: true,
            flops: None,
            bytes: 0,
            shapes: vec![],
            placement: Err(crate::roofline::rows::Unplaced::NoRecording),
            bench: None,
            recorded_on: recorded_on.map(str::to_string),
        }
    }

    #[test]
    fn a_library_noisier_than_the_gap_decides_nothing() {
        // (the kernel's share, the target, the library's spread, undecided)
        let cases = [
            (85.0, 90.0, 2.0, false),
            (85.0, 90.0, 50.0, true),
            (95.0, 90.0, 6.0, true),
            (120.0, 90.0, 12.0, false),
        ];
        for (percent, target, spread, refused) in cases {
            let why = undecided(percent, target, spread);
            assert_eq!(
                why.is_some(),
                refused,
                "{percent} against {target}, ± {spread}"
            );
            if let Some(why) = why {
                assert!(why.contains(&format!("± {spread:.1} %")), "{why}");
            }
        }
    }

    #[test]
    fn a_kernel_timed_on_another_day_is_marked() {
        // (the row's own day, the library's day, the mark)
        let cases = [
            (Some("2026-11-26"), "2026-11-26", ""),
            (
                Some("2026-11-25"),
                "2026-11-26",
                "<br><small>kernel: 2026-11-25</small>",
            ),
            // Recorded before each benchmark kept its day: nothing to compare.
            (None, "2026-11-26", ""),
        ];
        for (day, library, mark) in cases {
            assert_eq!(other_day(&row(day), library), mark, "{day:?} vs {library}");
        }
    }

    /// GPUs the library was not timed on are named once, in one sentence,
    /// with no table and no verdict for want of a time.
    #[test]
    fn untimed_gpus_are_named_once() {
        let wanted = BaselineRef {
            name: "sgemm".into(),
            puzzles: None,
            targets: vec![Target {
                puzzle: "p".into(),
                percent: 90.0,
            }],
        };
        let rows = [row(None)];
        let gpus = [("H100", "NVIDIA H100 80GB HBM3"), ("H200", "NVIDIA H200")];
        let compared: Vec<Compared> = gpus
            .iter()
            .map(|&(short, device)| Compared {
                short,
                device,
                rows: rows.iter().collect(),
            })
            .collect();
        assert_eq!(
            baseline_section(&wanted, &compared, &[]),
            "<p class=\"puzzle-baseline\">The library (`sgemm`) has not been timed on the H100 \
             and the H200: nothing to compare with there.</p>\n\n"
        );
    }
}
