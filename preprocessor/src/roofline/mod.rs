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
//!
//! - [`block`]: the block's YAML;
//! - [`rows`]: each puzzle's figures on a recorded GPU;
//! - [`table`]: a row as the table shows it;
//! - [`verdicts`]: targets met or missed, speed-ups;
//! - [`baseline`]: the kernels against a vendor library on the same GPU.

pub mod baseline;
pub mod block;
pub mod rows;
pub mod table;
pub mod verdicts;

use baseline::baseline_section;
use block::{RooflineBlock, Sizes};
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::spec::model::Spec;
use rows::{NOT_BENCHMARKED, Row, row, shown};
use runner::perf::baseline::Baseline;
use runner::perf::chart::{self, Point, Roofs};
use runner::perf::record::schema::Recording;
use runner::perf::roofline::{self, DATASHEETS};
use std::fmt::Write;
use table::table_row;
use verdicts::{speedup_line, target_verdict};

/// The block's Markdown/HTML, or a message naming what is wrong with it.
pub fn render(
    yaml: &str,
    book: &Book,
    recordings: &[Recording],
    baselines: &[Baseline],
) -> Result<String, String> {
    let block = RooflineBlock::parse(yaml)?;
    let mut puzzles = Vec::new();
    let mut shown_rows = Vec::new();
    for id in &block.puzzles {
        let puzzle = book.find(id).map_err(|e| e.to_string())?;
        let teaching = puzzle
            .spec
            .resolve(&Default::default())
            .map_err(|e| e.to_string())?;
        puzzles.push((puzzle, teaching));
        shown_rows.extend(shown(puzzle, block.sizes)?);
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
        let svg = chart::roofline_svg(&format!("{} — {device}", block.title), &roofs, &points)
            .map_err(|e| e.to_string())?;
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
    md.push_str(&datasheet_table(&puzzles));
    let _ = writeln!(md, "</div>\n");
    Ok(md)
}

/// What the datasheet roofs (the GPUs the book is recorded on, and the
/// sources' worked examples) allow these kernels at their teaching sizes.
fn datasheet_table(puzzles: &[(&Puzzle, Spec)]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "What the datasheet roofs allow these kernels at their teaching sizes (attainable GFLOP/s = min(peak, intensity × bandwidth)):\n"
    );
    let mut header = "| device | GB/s | GFLOP/s | ridge (FLOP/byte) |".to_string();
    let mut rule = "| --- | ---: | ---: | ---: |".to_string();
    for (puzzle, _) in puzzles {
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
        for (_, spec) in puzzles {
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
    md
}
