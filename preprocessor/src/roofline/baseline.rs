//! A roofline block's `baseline`: the kernels against a vendor library
//! timed on the same GPU, as percentages of its rate, with the targets' verdicts.

use crate::roofline::rows::{Row, case_text};
use crate::roofline::table;
use crate::roofline::verdicts::{awaiting, awaiting_verdict, verdict, wrong};
use puzzle_core::backend_contract::timing::format_ms;
use runner::perf::baseline::{Baseline, BaselineCase, NotComparable, comparable};
use runner::perf::roofline_block::BaselineRef;
use std::fmt::Write;

/// The library's time on this GPU at each size it was timed at, and each
/// kernel's rows at those sizes as a percentage of its FLOP rate, with the
/// targets' verdicts.
pub fn baseline_section(
    wanted: &BaselineRef,
    rows: &[&Row],
    baselines: &[Baseline],
    device: &str,
) -> String {
    let Some(baseline) = baselines
        .iter()
        .find(|b| b.device == device && b.cases.iter().any(|c| c.name == wanted.name))
    else {
        return format!(
            "<p class=\"puzzle-baseline\">The library (`{}`) has not been timed on this GPU: \
             nothing to compare with.</p>\n",
            wanted.name
        );
    };
    let cases: Vec<&BaselineCase> = baseline
        .cases
        .iter()
        .filter(|c| c.name == wanted.name)
        .collect();
    // No row on the library's inputs: no table of refusals, one sentence.
    let refusals: Vec<NotComparable> = rows
        .iter()
        .filter_map(|&row| Some(percent_of(case_of_row(&cases, row)?, row)))
        .map(|verdict| verdict.err())
        .collect::<Option<_>>()
        .unwrap_or_default();
    if let Some(why) = refusals.first() {
        return format!(
            "<p class=\"puzzle-baseline\">Against {}: not compared on this GPU, for {why}.</p>\n",
            baseline.library
        );
    }
    // A stream (a softmax, a norm) is read in GB/s; a product in GFLOP/s.
    let streams = cases.iter().all(|c| c.bytes.is_some());
    let rate_unit = if streams { "GB/s" } else { "GFLOP/s" };
    let timed: Vec<String> = cases
        .iter()
        .map(|c| {
            let rate = if streams {
                c.gb_s().unwrap_or_default()
            } else {
                c.gflop_s()
            };
            format!(
                "{} at {} ({} {rate_unit}, ± {:.1}% over {} runs)",
                format_ms(c.timing.median_ms),
                case_text(&c.constants),
                table::rate(rate),
                c.timing.spread_pct(),
                c.timing.samples
            )
        })
        .collect();
    let worst = cases
        .iter()
        .map(|c| c.max_relative_error)
        .fold(0.0, f64::max);
    // The lesson in one line: each kernel's share of the library at its
    // headline size, in the block's order.
    let ladder: Vec<String> = rows
        .iter()
        .filter(|r| r.headline)
        .filter_map(|&row| {
            let percent = percent_of(case_of_row(&cases, row)?, row).ok()??;
            Some(format!("{percent:.0} %"))
        })
        .collect();
    let lesson = if ladder.len() > 1 {
        format!(
            "<p class=\"puzzle-ladder\"><strong>In one line:</strong> kernel by kernel, in the order of the table below, {} of {}'s \
             speed on this GPU, at each kernel's headline size.</p>\n\n",
            ladder.join(" → "),
            baseline.library
        )
    } else {
        String::new()
    };
    let data = match cases.iter().find_map(|c| c.inputs.as_ref()) {
        Some(inputs) => format!(
            "on the very bytes the kernels were timed on ({})",
            inputs.distribution
        ),
        None => "on data of its own, so no kernel is compared with it here".to_string(),
    };
    let mut md = format!(
        "{lesson}**Against {}** ({}), timed on the same GPU on {} with device events, median after \
         warm-up, {data}: {}. Its largest error against the same computation in FP64 is {worst:.1e} of \
         the largest output. A percentage is the library's time over the kernel's at the same \
         size: above 100 %, the kernel is faster.\n\n| kernel | sizes | median time | {rate_unit} | \
         % of the library's speed |\n| --- | --- | ---: | ---: | ---: |\n",
        baseline.library,
        baseline.software,
        baseline.date,
        timed.join("; "),
    );
    let case_of = |row: &Row| {
        cases
            .iter()
            .copied()
            .find(|c| row.case.as_ref().is_some_and(|rc| c.matches(rc)))
    };
    let mut other_days = false;
    // Why rows are not compared, said once under the table.
    let mut refused = std::collections::BTreeSet::new();
    for &row in rows {
        let Some(case) = case_of(row) else { continue };
        let day = other_day(row, &baseline.date);
        other_days |= !day.is_empty();
        let rate = |p: &runner::perf::roofline::Placement| {
            table::rate(if streams {
                p.achieved_gb_s
            } else {
                p.achieved_gflop_s.unwrap_or_default()
            })
        };
        let cells = match (&row.placement, percent_of(case, row)) {
            (Ok(p), Ok(Some(percent))) => format!(
                "{} | {} | {percent:.1}%{day}",
                format_ms(p.median_ms),
                rate(p)
            ),
            (Ok(p), Err(why)) => {
                refused.insert(why.to_string());
                format!("{} | {} | not compared", format_ms(p.median_ms), rate(p))
            }
            (Err(why), _) => format!("{why} | – | –"),
            (Ok(_), Ok(None)) => "no time recorded | – | –".into(),
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {cells} |",
            row.id,
            row.sizes.as_deref().unwrap_or("")
        );
    }
    if !refused.is_empty() {
        let reasons: Vec<String> = refused.into_iter().collect();
        let _ = writeln!(
            md,
            "\nA row marked “not compared” has no percentage: {}.",
            reasons.join("; ")
        );
    }
    if other_days {
        let _ = writeln!(
            md,
            "\nA percentage marked with a date pairs a kernel timed that day with the library's \
             time of {}: timed on different days, so GPU clocks, driver and load may differ between them.",
            baseline.date
        );
    }
    for target in &wanted.targets {
        let row = rows
            .iter()
            .copied()
            .find(|r| r.id == target.puzzle && r.headline);
        let line = match row.and_then(|r| Some((r, case_of(r)?))) {
            Some((row, case)) => match percent_of(case, row) {
                Ok(None) if let Some(changed) = awaiting(row) => {
                    awaiting_verdict(target, &baseline.library, changed)
                }
                Ok(percent) => verdict(target, &baseline.library, percent.map(|p| (p, wrong(row)))),
                Err(why) => format!(
                    "<p class=\"puzzle-target missed\">Target: <code>{}</code> at ≥ {} % of {}: \
                     not judged on this GPU, for {why}.</p>",
                    target.puzzle, target.percent, baseline.library
                ),
            },
            None => format!(
                "<p class=\"puzzle-target missed\">Target: <code>{}</code> at ≥ {} % of {}: \
                 the library was not timed at its headline size on this GPU.</p>",
                target.puzzle, target.percent, baseline.library
            ),
        };
        let _ = write!(md, "\n{line}\n");
    }
    md
}

/// " (kernel: 2026-11-25)" where the row's benchmark is known to have been
/// taken on another day than the library's time; nothing where the days
/// agree or the recording did not keep the row's own day.
fn other_day(row: &Row, library_date: &str) -> String {
    match &row.recorded_on {
        Some(day) if day != library_date => format!(" (kernel: {day})"),
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
    fn a_kernel_timed_on_another_day_is_marked() {
        // (the row's own day, the library's day, the mark)
        let cases = [
            (Some("2026-11-26"), "2026-11-26", ""),
            (Some("2026-11-25"), "2026-11-26", " (kernel: 2026-11-25)"),
            // Recorded before each benchmark kept its day: nothing to compare.
            (None, "2026-11-26", ""),
        ];
        for (day, library, mark) in cases {
            assert_eq!(other_day(&row(day), library), mark, "{day:?} vs {library}");
        }
    }
}
