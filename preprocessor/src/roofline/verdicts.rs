//! The verdicts under a roofline table: each target met or missed, and the
//! speed-ups of one kernel over another at the sizes both were recorded at.

use crate::roofline::rows::Row;
use puzzle_core::backend_contract::timing::format_ms;
use puzzle_core::spec::math::Math;
use runner::perf::bench::Checked;
use runner::perf::roofline::Roof;
use runner::perf::roofline_block::{Speedup, Target};

/// "Target: `x` at ≥ 90 % of the measured memory roof: 93.1 % — met."
pub fn target_verdict(target: &Target, rows: &[Row], math: Math) -> String {
    let row = rows.iter().find(|r| r.id == target.puzzle && r.headline);
    let placed = row.and_then(|r| r.placement.as_ref().ok());
    match placed.and_then(|p| p.binding.as_ref()) {
        Some(b) => {
            let roof = match (b.roof, b.traffic) {
                (Roof::Memory, Some(t)) => format!("{} memory", t.label()),
                (Roof::Memory, None) => "memory".to_string(),
                (Roof::Compute, _) => format!("compute ({})", math.label()),
            };
            let of = format!("the measured {roof} roof");
            verdict(target, &of, Some((b.percent, row.is_some_and(wrong))))
        }
        None => match row.and_then(awaiting) {
            Some(changed) => awaiting_verdict(target, "the measured roof", changed),
            None => verdict(target, "the measured roof", None),
        },
    }
}

/// The day the kernel changed, when `row` has no figure because its GPU has
/// not run the new version.
pub fn awaiting(row: &Row) -> Option<&str> {
    row.placement.as_ref().err().and_then(|why| why.awaiting())
}

/// "Target: `x` at ≥ 90 % of {of}: not run on this GPU since the kernel
/// changed on …": neither met nor missed, for want of a run.
pub fn awaiting_verdict(target: &Target, of: &str, changed: &str) -> String {
    format!(
        "<p class=\"puzzle-target puzzle-awaiting\">Target: <code>{}</code> at ≥ {} % of {of}: \
         not run on this GPU since the kernel changed on {changed}.</p>",
        target.puzzle, target.percent
    )
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

/// Whether two rows solved the same problem: two benchmarks whose buffers
/// (scratch aside) have the same shapes, whatever their tile constants
/// (BK = 32 in one kernel and 64 in another does not keep them apart, while
/// 8,192 × 4,096 and 32,768 × 1,024 elements are different problems).
/// Teaching rows match teaching rows.
fn same_sizes(a: &Row, b: &Row) -> bool {
    match (&a.case, &b.case) {
        (Some(_), Some(_)) => a.shapes == b.shapes,
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

    fn row(case: Option<&[(&str, i64)]>, shapes: &[&[usize]]) -> Row {
        Row {
            id: "p".into(),
            sizes: None,
            case: case.map(|c| c.iter().map(|(k, v)| (k.to_string(), *v)).collect()),
            headline: false,
            flops: None,
            bytes: 0,
            shapes: shapes.iter().map(|s| s.to_vec()).collect(),
            placement: Err(crate::roofline::rows::Unplaced::NoRecording),
            bench: None,
            recorded_on: None,
        }
    }

    #[test]
    fn rows_pair_on_the_shapes_of_their_buffers() {
        let size = |n| vec![("SIZE", n)];
        let tiled = |n, bk| vec![("SIZE", n), ("BK", bk), ("BM", 128)];
        let square = |n: usize| vec![vec![n, n]; 3];
        // (one case and its shapes, the other, whether they are the same problem)
        type Case<'a> = (Option<Vec<(&'a str, i64)>>, Vec<Vec<usize>>);
        let cases: [(Case, Case, bool); 7] = [
            ((None, square(4)), (None, square(8)), true),
            (
                (Some(size(4096)), square(4096)),
                (None, square(4096)),
                false,
            ),
            (
                (Some(size(4096)), square(4096)),
                (Some(size(4096)), square(4096)),
                true,
            ),
            (
                (Some(size(4096)), square(4096)),
                (Some(size(2048)), square(2048)),
                false,
            ),
            (
                (Some(size(4096)), square(4096)),
                (Some(tiled(4096, 8)), square(4096)),
                true,
            ),
            // Tile constants that differ do not keep the same problem apart.
            (
                (Some(tiled(4096, 16)), square(4096)),
                (Some(tiled(4096, 8)), square(4096)),
                true,
            ),
            // As many elements, in another shape: another problem.
            (
                (
                    Some(vec![("ROWS", 8192), ("COLS", 4096)]),
                    vec![vec![8192, 4096]; 2],
                ),
                (
                    Some(vec![("ROWS", 32768), ("COLS", 1024)]),
                    vec![vec![32768, 1024]; 2],
                ),
                false,
            ),
        ];
        for ((a, sa), (b, sb), want) in cases {
            let sa: Vec<&[usize]> = sa.iter().map(Vec::as_slice).collect();
            let sb: Vec<&[usize]> = sb.iter().map(Vec::as_slice).collect();
            let (a, b) = (row(a.as_deref(), &sa), row(b.as_deref(), &sb));
            assert_eq!(same_sizes(&a, &b), want, "{:?} {:?}", a.case, b.case);
            assert_eq!(same_sizes(&b, &a), want, "{:?} {:?}", b.case, a.case);
        }
    }
}
