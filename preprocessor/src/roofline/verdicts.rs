//! The verdicts under a roofline table: each target met or missed, and the
//! speed-ups of one kernel over another at the sizes both were recorded at.

use crate::roofline::block::{Speedup, Target};
use crate::roofline::rows::Row;
use puzzle_core::run::timing::format_ms;
use runner::perf::bench::Checked;
use runner::perf::roofline::Roof;

/// "Target: `x` at ≥ 90 % of the measured memory roof: 93.1 % — met."
pub fn target_verdict(target: &Target, rows: &[Row]) -> String {
    let row = rows.iter().find(|r| r.id == target.puzzle && r.headline);
    let placed = row.and_then(|r| r.placement.as_ref().ok());
    match placed.and_then(|p| p.binding.as_ref()) {
        Some(b) => {
            let roof = match (b.roof, b.traffic) {
                (Roof::Memory, Some(t)) => format!("{} memory", t.label()),
                (Roof::Memory, None) => "memory".to_string(),
                (Roof::Compute, _) => "compute (FP32)".to_string(),
            };
            let of = format!("the measured {roof} roof");
            verdict(target, &of, Some((b.percent, row.is_some_and(wrong))))
        }
        None => verdict(target, "the measured roof", None),
    }
}

/// Whether a row's benchmark output failed its check.
pub fn wrong(row: &Row) -> bool {
    row.bench
        .as_ref()
        .is_some_and(|b| matches!(b.checked, Checked::Failed(_)))
}

/// "Target: `x` at ≥ 90 % of {of}. Achieved 93.1 %, 1.03× the target: met.",
/// from the achieved percentage and whether the output was wrong (a wrong
/// output misses whatever the time); `None` when nothing current was recorded.
pub fn verdict(target: &Target, of: &str, achieved: Option<(f64, bool)>) -> String {
    let Some((percent, wrong)) = achieved else {
        return format!(
            "<p class=\"puzzle-target missed\">Target: <code>{}</code> at ≥ {} % of {of}: \
             no current recording on this GPU.</p>",
            target.puzzle, target.percent
        );
    };
    let met = percent >= target.percent && !wrong;
    format!(
        "<p class=\"puzzle-target {}\">Target: <code>{}</code> at ≥ {} % of {of}. Achieved \
         {percent:.1} %, {:.2}× the target: <strong>{}</strong>.</p>",
        if met { "met" } else { "missed" },
        target.puzzle,
        target.percent,
        percent / target.percent,
        match (met, wrong) {
            (_, true) => "missed (the output is wrong)",
            (true, _) => "met",
            (false, _) => "missed",
        }
    )
}

/// Whether two rows ran at the same sizes: every constant that both bench
/// cases set has one value (a kernel's own tile sizes do not keep it from
/// being compared with another's at the same `SIZE`). Teaching rows match
/// teaching rows.
fn same_sizes(a: &Row, b: &Row) -> bool {
    match (&a.case, &b.case) {
        (Some(x), Some(y)) => {
            let shared: Vec<_> = x.keys().filter(|k| y.contains_key(*k)).collect();
            !shared.is_empty() && shared.iter().all(|k| x[*k] == y[*k])
        }
        (None, None) => true,
        _ => false,
    }
}

/// "`a` against `b`: 1.83× as fast at BLOCKS=132, SIZE=2^26 (…)", from the rows of one GPU.
pub fn speedup_line(speedup: &Speedup, rows: &[Row]) -> String {
    let mut parts = Vec::new();
    for fast in rows.iter().filter(|r| r.id == speedup.of) {
        let slow = rows
            .iter()
            .find(|r| r.id == speedup.over && same_sizes(r, fast));
        let (Some(slow), Ok(f)) = (slow, &fast.placement) else {
            continue;
        };
        let Ok(s) = &slow.placement else { continue };
        let at = fast
            .sizes
            .as_ref()
            .map(|s| format!(" at {s}"))
            .unwrap_or_default();
        parts.push(format!(
            "{:.2}×{at} ({} against {})",
            s.median_ms / f.median_ms,
            format_ms(f.median_ms),
            format_ms(s.median_ms)
        ));
    }
    if parts.is_empty() {
        return format!(
            "<p class=\"puzzle-speedup\"><code>{}</code> against <code>{}</code>: no sizes recorded for both on this GPU.</p>",
            speedup.of, speedup.over
        );
    }
    format!(
        "<p class=\"puzzle-speedup\">Speed-up of <code>{}</code> over <code>{}</code> (the ratio of their median times): {}.</p>",
        speedup.of,
        speedup.over,
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(case: Option<&[(&str, i64)]>) -> Row {
        Row {
            id: "p".into(),
            sizes: None,
            case: case.map(|c| c.iter().map(|(k, v)| (k.to_string(), *v)).collect()),
            headline: false,
            flops: None,
            bytes: 0,
            placement: Err(String::new()),
            bench: None,
        }
    }

    #[test]
    fn rows_pair_on_the_constants_both_set() {
        let size = |n| vec![("SIZE", n)];
        let tiled = |n, bk| vec![("SIZE", n), ("BK", bk), ("BM", 128)];
        // (one case, the other, whether they are at the same sizes)
        type Case<'a> = Option<Vec<(&'a str, i64)>>;
        let cases: [(Case, Case, bool); 7] = [
            (None, None, true),
            (Some(size(4096)), None, false),
            (Some(size(4096)), Some(size(4096)), true),
            (Some(size(4096)), Some(size(2048)), false),
            (Some(size(4096)), Some(tiled(4096, 8)), true),
            (Some(tiled(4096, 16)), Some(tiled(4096, 8)), false),
            (Some(vec![("TILE", 32)]), Some(size(4096)), false),
        ];
        for (a, b, want) in cases {
            let (a, b) = (row(a.as_deref()), row(b.as_deref()));
            assert_eq!(same_sizes(&a, &b), want, "{:?} {:?}", a.case, b.case);
            assert_eq!(same_sizes(&b, &a), want, "{:?} {:?}", b.case, a.case);
        }
    }
}
