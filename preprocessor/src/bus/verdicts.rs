//! A ```bus block's targets: whether a kernel reached its share of NCCL's
//! bus bandwidth at every message size a target covers, on one host.

use super::block::BusTarget;
use super::chart::size_label;
use super::{Cell, Line};
use runner::perf::Baseline;
use std::fmt::Write;

/// "at ≥ 256 MiB", "at ≤ 256 KiB", "from 64 KiB to 1 MiB", "at every size".
fn range_text(target: &BusTarget) -> String {
    match (target.from_bytes, target.to_bytes) {
        (Some(from), Some(to)) => format!("from {} to {}", size_label(from), size_label(to)),
        (Some(from), None) => format!("at ≥ {}", size_label(from)),
        (None, Some(to)) => format!("at ≤ {}", size_label(to)),
        (None, None) => "at every size".to_string(),
    }
}

/// "Target: `p` at ≥ 90 % of NCCL's bus bandwidth at ≥ 256 MiB. Achieved
/// 93.1 % at 256 MiB, 95.0 % at 1 GiB: met." Met where every size in the
/// range that the kernel has a `bench` case at was timed, beside NCCL, at
/// the percentage or above with a right output.
pub(super) fn verdict(
    target: &BusTarget,
    column: usize,
    lines: &[Line],
    baseline: Option<&Baseline>,
) -> String {
    let of = format!(
        "Target: <code>{}</code> at ≥ {} % of NCCL's bus bandwidth {}",
        target.puzzle,
        target.percent,
        range_text(target)
    );
    let missed = |why: &str| format!("<p class=\"puzzle-target missed\">{of}: {why}.</p>");
    if baseline.is_none() {
        return missed("NCCL was not timed on this host");
    }
    let mut achieved = Vec::new();
    let mut gaps = Vec::new();
    let mut met = true;
    for line in lines.iter().filter(|l| target.covers(l.message)) {
        let at = size_label(line.message);
        match &line.cells[column] {
            Cell::NoCase => {}
            Cell::Unusable(why) => gaps.push(format!("{at} ({why})")),
            Cell::Timed(t) => match t.percent {
                None => gaps.push(format!("{at} (NCCL not timed at this size)")),
                Some(percent) => {
                    let wrong = if t.wrong() { " (wrong output)" } else { "" };
                    met &= percent >= target.percent && !t.wrong();
                    achieved.push(format!("{percent:.1} % at {at}{wrong}"));
                }
            },
        }
    }
    if achieved.is_empty() && gaps.is_empty() {
        return missed("no benchmark of it in this range on this host");
    }
    met &= gaps.is_empty() && !achieved.is_empty();
    let mut figures = String::new();
    if !achieved.is_empty() {
        let _ = write!(figures, " Achieved {}", achieved.join(", "));
    }
    if !gaps.is_empty() {
        let lead = if figures.is_empty() {
            " No figure at"
        } else {
            "; no figure at"
        };
        let _ = write!(figures, "{lead} {}", gaps.join(", "));
    }
    let (class, word) = if met {
        ("met", "met")
    } else {
        ("missed", "missed")
    };
    format!("<p class=\"puzzle-target {class}\">{of}.{figures}: <strong>{word}</strong>.</p>")
}
