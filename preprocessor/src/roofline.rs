//! A ```roofline block: several puzzles' recorded GPU runs placed under that
//! GPU's measured ceilings, as a table and an SVG chart, followed by the same
//! kernels under the datasheet peaks of the seeds' worked examples.
//!
//! ```yaml
//! title: Matrix multiplication, four ways
//! lang: cuda            # which kernels (default cuda)
//! puzzles: [p14_matmul_naive, p14_matmul_tiled]
//! sizes: bench          # the specs' `bench` sizes (default: teaching)
//! targets:              # optional: a verdict per recorded GPU
//!   - { puzzle: p14_matmul_tiled, percent: 90 }
//! speedups:             # optional: time ratios at equal sizes (the constants both set), per GPU
//!   - { of: p14_matmul_tiled, over: p14_matmul_naive }
//! baseline:              # optional, bench sizes: a vendor library on the same GPU
//!   name: sgemm          # a case of results/baselines/*.json
//!   targets:
//!     - { puzzle: p14_matmul_tiled, percent: 90 }
//! ```
//!
//! Nothing is typed in: times come from `results/*.json` (current entries
//! only), ceilings from the same file (`runner calibrate`), FLOPs and bytes
//! from the specs, library times from `results/baselines/*.json`.

use runner::baseline::{Baseline, BaselineCase};
use runner::bench::{BenchReport, Checked};
use runner::book::{Book, Puzzle};
use runner::chart::{self, Point, Roofs};
use runner::kernel::{Lang, Variant};
use runner::record::{self, Recorded, Recording};
use runner::roofline::{self, DATASHEETS, Placement, Roof};
use runner::spec::Spec;
use serde::Deserialize;
use std::fmt::Write;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RooflineBlock {
    pub title: String,
    #[serde(default = "cuda")]
    pub lang: Lang,
    pub puzzles: Vec<String>,
    #[serde(default)]
    pub sizes: Sizes,
    #[serde(default)]
    pub targets: Vec<Target>,
    #[serde(default)]
    pub speedups: Vec<Speedup>,
    pub baseline: Option<BaselineRef>,
}

/// The kernels against a library's time at the same size on the same GPU.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineRef {
    /// The case name in the baseline file, e.g. "sgemm".
    pub name: String,
    /// `puzzle` reaches `percent` of the library's FLOP rate (headline case).
    #[serde(default)]
    pub targets: Vec<Target>,
}

/// How much faster `of` ran than `over`, at each size both were recorded at.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Speedup {
    pub of: String,
    pub over: String,
}

/// Which recorded runs the block shows.
#[derive(Debug, Default, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sizes {
    /// The puzzles' own sizes, from the recorded puzzle runs.
    #[default]
    Teaching,
    /// Each spec's `bench` size, from the recorded benchmarks.
    Bench,
}

/// A performance target: `puzzle` reaches `percent` of its binding measured roof.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub puzzle: String,
    pub percent: f64,
}

/// A bench row's placement when the recording has no such benchmark.
const NOT_BENCHMARKED: &str = "not benchmarked on this GPU";

fn cuda() -> Lang {
    Lang::Cuda
}

/// One puzzle at one size, as the block shows it.
struct Shown<'a> {
    puzzle: &'a Puzzle,
    /// The `bench` case (its constants), or `None` at the teaching size.
    case: Option<runner::expr::Constants>,
    spec: Spec,
    /// The puzzle's first `bench` case, the one targets refer to.
    headline: bool,
}

/// One puzzle's figures at one size on one recorded GPU.
struct Row {
    id: String,
    /// "SIZE=2^27, BLOCKS=1056" at bench sizes.
    sizes: Option<String>,
    /// The bench case's constants.
    case: Option<runner::expr::Constants>,
    headline: bool,
    flops: Option<u64>,
    bytes: u64,
    /// The placement, or why there is none ("no current recording", "stale: …").
    placement: Result<Placement, String>,
    /// At bench sizes: the benchmark behind the placement.
    bench: Option<BenchReport>,
}

/// The rows a puzzle contributes: its teaching size, or each of its `bench` cases.
fn shown(puzzle: &Puzzle, sizes: Sizes) -> Result<Vec<Shown<'_>>, String> {
    match sizes {
        Sizes::Teaching => Ok(vec![Shown {
            puzzle,
            case: None,
            spec: puzzle
                .spec
                .resolve(&Default::default())
                .map_err(|e| e.to_string())?,
            headline: true,
        }]),
        Sizes::Bench => {
            let cases = puzzle.spec.bench_cases();
            if cases.is_empty() {
                return Err(format!(
                    "```roofline block: `{}` has no `bench` size in its spec",
                    puzzle.id()
                ));
            }
            cases
                .into_iter()
                .enumerate()
                .map(|(i, case)| {
                    Ok(Shown {
                        puzzle,
                        spec: puzzle.spec.sized(&case).map_err(|e| e.to_string())?,
                        case: Some(case),
                        headline: i == 0,
                    })
                })
                .collect()
        }
    }
}

/// "SIZE=2^28, BLOCKS=1056": powers of two from 1024 up written as such.
fn case_text(case: &runner::expr::Constants) -> String {
    let value = |v: i64| match v {
        v if v >= 1024 && v.count_ones() == 1 => format!("2^{}", v.trailing_zeros()),
        v => v.to_string(),
    };
    let parts: Vec<String> = case
        .iter()
        .map(|(k, v)| format!("{k}={}", value(*v)))
        .collect();
    parts.join(", ")
}

fn row(
    shown: &Shown,
    block: &RooflineBlock,
    recording: &Recording,
    ceilings: &runner::calibrate::Ceilings,
) -> Row {
    let (puzzle, spec) = (shown.puzzle, &shown.spec);
    let (placement, bench) = match &shown.case {
        None => {
            let timing = record::lookup(
                std::slice::from_ref(recording),
                puzzle,
                block.lang,
                Variant::Solution,
            )
            .into_iter()
            .find_map(|r| match r {
                Recorded::Current { report, .. } => report.timing.clone(),
                Recorded::Stale { .. } => None,
            });
            let placement = timing
                .map(|t| roofline::place(spec, t.median_ms, Some(ceilings)))
                .ok_or_else(|| "no current recording".to_string());
            (placement, None)
        }
        Some(case) => match record::lookup_bench(recording, puzzle, block.lang, case) {
            None => (Err(NOT_BENCHMARKED.to_string()), None),
            Some(Err(why)) => (Err(why), None),
            Some(Ok(report)) => (
                Ok(roofline::place(
                    spec,
                    report.timing.median_ms,
                    Some(ceilings),
                )),
                Some(report.clone()),
            ),
        },
    };
    Row {
        id: puzzle.id().to_string(),
        sizes: shown.case.as_ref().map(case_text),
        case: shown.case.clone(),
        headline: shown.headline,
        flops: spec.flops,
        bytes: spec.min_bytes(),
        placement,
        bench,
    }
}

fn dash() -> String {
    "–".into()
}

/// The sizes column, present at bench sizes only.
fn sizes_cell(row: &Row) -> String {
    row.sizes
        .as_ref()
        .map(|s| format!(" {s} |"))
        .unwrap_or_default()
}

fn table_row(row: &Row) -> String {
    let intensity = row
        .flops
        .map(|f| format!("{:.3}", roofline::intensity(f, row.bytes)))
        .unwrap_or_else(dash);
    let flops = row.flops.map(|f| f.to_string()).unwrap_or_else(dash);
    let p = match &row.placement {
        Ok(p) => p,
        Err(why) => {
            let cells = if row.sizes.is_some() { 5 } else { 4 };
            return format!(
                "| `{}` |{} {flops} | {} | {intensity} | {why} |{}",
                row.id,
                sizes_cell(row),
                row.bytes,
                " |".repeat(cells)
            );
        }
    };
    let b = p.binding.as_ref();
    let bound = match (b.map(|b| b.roof), p.launch_bound) {
        (_, Some(true)) => "launch".to_string(),
        (Some(Roof::Memory), _) => "memory".into(),
        (Some(Roof::Compute), _) => "compute".into(),
        (None, _) => dash(),
    };
    // Benchmarks are large enough for one decimal; teaching sizes need four.
    let digits = if row.bench.is_some() { 1 } else { 4 };
    let mut time = runner::timing::format_ms(p.median_ms);
    if let Some(bench) = &row.bench {
        time.push_str(&format!(" ± {:.1}%", bench.timing.spread_pct()));
    }
    let mut line = format!(
        "| `{}` |{} {flops} | {} | {intensity} | {time} | {:.digits$} | {} | {bound} | {} |",
        row.id,
        sizes_cell(row),
        row.bytes,
        p.achieved_gb_s,
        p.achieved_gflop_s
            .map(|g| format!("{g:.digits$}"))
            .unwrap_or_else(dash),
        b.map(|b| format!("{:.digits$}%", b.percent))
            .unwrap_or_else(dash),
    );
    if let Some(bench) = &row.bench {
        line.push_str(&format!(" {} |", bench.checked.summary()));
    }
    line
}

/// The block's Markdown/HTML, or a message naming what is wrong with it.
pub fn render(
    yaml: &str,
    book: &Book,
    recordings: &[Recording],
    baselines: &[Baseline],
) -> Result<String, String> {
    let block: RooflineBlock =
        serde_saphyr::from_str(yaml).map_err(|e| format!("```roofline block: {e}"))?;
    let mut puzzles = Vec::new();
    let mut shown_rows = Vec::new();
    for id in &block.puzzles {
        let puzzle = book.find(id)?;
        let teaching = puzzle
            .spec
            .resolve(&Default::default())
            .map_err(|e| e.to_string())?;
        puzzles.push((puzzle, teaching));
        shown_rows.extend(shown(puzzle, block.sizes)?);
    }
    let named = block
        .targets
        .iter()
        .map(|t| ("target", &t.puzzle))
        .chain(
            block
                .speedups
                .iter()
                .flat_map(|s| [("speedup", &s.of), ("speedup", &s.over)]),
        )
        .chain(
            block
                .baseline
                .iter()
                .flat_map(|b| &b.targets)
                .map(|t| ("baseline target", &t.puzzle)),
        );
    if block.baseline.is_some() && block.sizes != Sizes::Bench {
        return Err("```roofline block: a `baseline` is compared at `sizes: bench` only".into());
    }
    for (what, id) in named {
        if !block.puzzles.contains(id) {
            return Err(format!(
                "```roofline block: the {what} names `{id}`, which is not in `puzzles`"
            ));
        }
    }
    let mut md = String::new();
    let _ = writeln!(md, "<div class=\"puzzle-roofline\">\n");
    let mut charted = 0;
    for recording in recordings
        .iter()
        .filter(|r| r.device.backend.lang() == block.lang)
    {
        let Some(ceilings) = &recording.ceilings else {
            continue;
        };
        let rows: Vec<Row> = shown_rows
            .iter()
            .map(|shown| row(shown, &block, recording, ceilings))
            .collect();
        // A GPU that has recorded none of these benchmarks gets no table at all.
        let recorded = |r: &Row| !matches!(&r.placement, Err(why) if why == NOT_BENCHMARKED);
        if block.sizes == Sizes::Bench && !rows.iter().any(recorded) {
            continue;
        }
        charted += 1;
        let device = &recording.device.name;
        let at = match block.sizes {
            Sizes::Teaching => "at the teaching sizes".to_string(),
            Sizes::Bench => format!(
                "at the benchmark sizes (median of {} device-timed runs after warm-up, ± the spread)",
                rows.iter()
                    .filter_map(|r| r.bench.as_ref())
                    .map(|b| b.timing.samples)
                    .max()
                    .unwrap_or(0)
            ),
        };
        let _ = writeln!(
            md,
            "**{} on {device}**, recorded {} {at}. Ceilings measured by \
             `runner calibrate` on that GPU: {:.0} GB/s streaming, {:.0} GFLOP/s FP32, an empty \
             kernel {:.1} µs{}.\n",
            block.title,
            recording.date,
            ceilings.bandwidth_gb_s.value,
            ceilings.fp32_gflop_s.value,
            ceilings.launch_us.value,
            roofline::datasheet_for(device)
                .map(|d| format!(
                    " (datasheet: {:.0} GB/s, {:.0} GFLOP/s)",
                    d.bandwidth_gb_s, d.fp32_gflop_s
                ))
                .unwrap_or_default()
        );
        let (sizes_head, sizes_rule, extra_head, extra_rule) = match block.sizes {
            Sizes::Teaching => ("", "", "", ""),
            Sizes::Bench => (" sizes |", " --- |", " output |", " --- |"),
        };
        let _ = writeln!(
            md,
            "| kernel |{sizes_head} FLOPs | fewest bytes | FLOP/byte | median time | GB/s | GFLOP/s | bound | % of roof |{extra_head}\n\
             | --- |{sizes_rule} ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |{extra_rule}"
        );
        for row in &rows {
            let _ = writeln!(md, "{}", table_row(row));
        }
        for target in &block.targets {
            let _ = writeln!(md, "\n{}", target_verdict(target, &rows));
        }
        for speedup in &block.speedups {
            let _ = writeln!(md, "\n{}", speedup_line(speedup, &rows));
        }
        if let Some(wanted) = &block.baseline {
            let _ = writeln!(
                md,
                "\n{}",
                baseline_section(wanted, &rows, baselines, &recording.device.name)
            );
        }
        let elements: Vec<String> = rows
            .iter()
            .filter_map(|r| r.placement.as_ref().ok())
            .filter(|p| p.launch_bound == Some(true))
            .map(|p| p.elements.to_string())
            .collect();
        if !elements.is_empty() {
            let _ = writeln!(
                md,
                "\nLaunch-bound: at these sizes (largest buffers of {} elements) each time is within \
                 {} empty-kernel launches, so the percentages measure the launch, not the kernel.\n",
                elements.join(", "),
                roofline::LAUNCH_BOUND_FACTOR
            );
        }
        let points: Vec<Point> = rows
            .iter()
            .filter_map(|r| {
                let p = r.placement.as_ref().ok()?;
                Some(Point {
                    label: match &r.sizes {
                        Some(sizes) if !r.headline => format!("{} ({sizes})", r.id),
                        _ => r.id.clone(),
                    },
                    intensity: roofline::intensity(r.flops?, r.bytes),
                    gflop_s: p.achieved_gflop_s?,
                })
            })
            .collect();
        let roofs = Roofs {
            bandwidth_gb_s: ceilings.bandwidth_gb_s.value,
            fp32_gflop_s: ceilings.fp32_gflop_s.value,
            label: format!(
                "{device}, ceilings measured by runner calibrate on {}",
                ceilings.date
            ),
        };
        let svg = chart::roofline_svg(&format!("{} — {device}", block.title), &roofs, &points)?;
        let _ = writeln!(md, "\n<figure class=\"puzzle-chart\">\n{svg}\n</figure>\n");
    }
    if charted == 0 {
        let _ = writeln!(
            md,
            "<p class=\"puzzle-recorded\">No recorded {} results with measured ceilings yet: run \
             <code>runner record</code> on a GPU to fill this chart.</p>\n",
            block.lang.label()
        );
    }
    // The seeds' worked examples, recomputed for these kernels from their stated peaks.
    let _ = writeln!(
        md,
        "What the datasheet roofs allow these kernels at their teaching sizes (attainable GFLOP/s = min(peak, intensity × bandwidth)):\n"
    );
    let mut header = "| device | GB/s | GFLOP/s | ridge (FLOP/byte) |".to_string();
    let mut rule = "| --- | ---: | ---: | ---: |".to_string();
    for (puzzle, _) in &puzzles {
        header.push_str(&format!(" `{}` |", puzzle.id()));
        rule.push_str(" ---: |");
    }
    let _ = writeln!(md, "{header}\n{rule}");
    for sheet in DATASHEETS {
        let mut line = format!(
            "| {} | {:.0} | {:.0} | {:.1} |",
            sheet.name,
            sheet.bandwidth_gb_s,
            sheet.fp32_gflop_s,
            sheet.ridge_point()
        );
        for (_, spec) in &puzzles {
            let cell = spec
                .flops
                .map(|f| {
                    format!(
                        "{:.1}",
                        sheet.attainable(roofline::intensity(f, spec.min_bytes()))
                    )
                })
                .unwrap_or_else(|| "–".into());
            line.push_str(&format!(" {cell} |"));
        }
        let _ = writeln!(md, "{line}");
    }
    let sources: Vec<String> = DATASHEETS
        .iter()
        .map(|d| format!("{}: {}", d.name, d.source))
        .collect();
    let _ = writeln!(
        md,
        "\n<small>Datasheet figures, not measurements. {}.</small>\n",
        sources.join("; ")
    );
    let _ = writeln!(md, "</div>\n");
    Ok(md)
}

/// "Target: `x` at ≥ 90 % of the measured memory roof: 93.1 % — met."
fn target_verdict(target: &Target, rows: &[Row]) -> String {
    let row = rows.iter().find(|r| r.id == target.puzzle && r.headline);
    let placed = row.and_then(|r| r.placement.as_ref().ok());
    match placed.and_then(|p| p.binding.as_ref()) {
        Some(b) => {
            let roof = match b.roof {
                Roof::Memory => "memory (streaming bandwidth)",
                Roof::Compute => "compute (FP32)",
            };
            let of = format!("the measured {roof} roof");
            verdict(target, &of, Some((b.percent, row.is_some_and(wrong))))
        }
        None => verdict(target, "the measured roof", None),
    }
}

/// Whether a row's benchmark output failed its check.
fn wrong(row: &Row) -> bool {
    row.bench
        .as_ref()
        .is_some_and(|b| matches!(b.checked, Checked::Failed(_)))
}

/// "Target: `x` at ≥ 90 % of {of}. Achieved 93.1 %, 1.03× the target: met.",
/// from the achieved percentage and whether the output was wrong (a wrong
/// output misses whatever the time); `None` when nothing current was recorded.
fn verdict(target: &Target, of: &str, achieved: Option<(f64, bool)>) -> String {
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

/// The library's time on this GPU at each size it was timed at, and each
/// kernel's rows at those sizes as a percentage of its FLOP rate, with the
/// targets' verdicts.
fn baseline_section(
    wanted: &BaselineRef,
    rows: &[Row],
    baselines: &[Baseline],
    device: &str,
) -> String {
    let Some(baseline) = baselines
        .iter()
        .find(|b| b.device == device && b.cases.iter().any(|c| c.name == wanted.name))
    else {
        return format!(
            "<p class=\"puzzle-baseline\">No `{}` baseline recorded on this GPU (results/baselines/): \
             run <code>.ci/gpu/baseline/cublas.py</code> there to compare.</p>\n",
            wanted.name
        );
    };
    let cases: Vec<&BaselineCase> = baseline
        .cases
        .iter()
        .filter(|c| c.name == wanted.name)
        .collect();
    let timed: Vec<String> = cases
        .iter()
        .map(|c| {
            format!(
                "{} at {} ({:.0} GFLOP/s, ± {:.1}% over {} runs)",
                runner::timing::format_ms(c.timing.median_ms),
                case_text(&c.constants),
                c.gflop_s(),
                c.timing.spread_pct(),
                c.timing.samples
            )
        })
        .collect();
    let worst = cases
        .iter()
        .map(|c| c.max_relative_error)
        .fold(0.0, f64::max);
    let mut md = format!(
        "**Against {}** ({}), timed on the same GPU on {} with device events, median after \
         warm-up: {}. Its largest error against an FP64 product is {worst:.1e} of the largest \
         output.\n\n| kernel | sizes | median time | GFLOP/s | % of {} |\n| --- | --- | ---: | ---: | ---: |\n",
        baseline.library,
        baseline.software,
        baseline.date,
        timed.join("; "),
        baseline.library
    );
    let case_of = |row: &Row| {
        cases
            .iter()
            .copied()
            .find(|c| row.case.as_ref().is_some_and(|rc| c.matches(rc)))
    };
    for row in rows {
        let Some(case) = case_of(row) else { continue };
        let cells = match (&row.placement, percent_of(case, row)) {
            (Ok(p), Some(percent)) => format!(
                "{} | {:.0} | {percent:.1}%",
                runner::timing::format_ms(p.median_ms),
                p.achieved_gflop_s.unwrap_or_default()
            ),
            (Err(why), _) => format!("{why} | – | –"),
            (Ok(_), None) => "no FLOPs in the spec | – | –".into(),
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {cells} |",
            row.id,
            row.sizes.as_deref().unwrap_or("")
        );
    }
    for target in &wanted.targets {
        let row = rows.iter().find(|r| r.id == target.puzzle && r.headline);
        let line = match row.and_then(|r| Some((r, case_of(r)?))) {
            Some((row, case)) => verdict(
                target,
                &baseline.library,
                percent_of(case, row).map(|p| (p, wrong(row))),
            ),
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

/// A kernel row's FLOP rate as a percentage of the library's at the same size.
fn percent_of(case: &BaselineCase, row: &Row) -> Option<f64> {
    let gflop_s = row.placement.as_ref().ok()?.achieved_gflop_s?;
    Some(100.0 * gflop_s / case.gflop_s())
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
fn speedup_line(speedup: &Speedup, rows: &[Row]) -> String {
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
            runner::timing::format_ms(f.median_ms),
            runner::timing::format_ms(s.median_ms)
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
