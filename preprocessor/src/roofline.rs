//! A ```roofline block: several puzzles' recorded GPU runs placed under that
//! GPU's measured ceilings, as a table and an SVG chart, followed by the same
//! kernels under the datasheet peaks of the seeds' worked examples.
//!
//! ```yaml
//! title: Matrix multiplication, four ways
//! lang: cuda            # which kernels (default cuda)
//! puzzles: [p14_matmul_naive, p14_matmul_tiled]
//! ```
//!
//! Nothing is typed in: times come from `results/*.json` (current entries
//! only), ceilings from the same file (`runner calibrate`), FLOPs and bytes
//! from the specs.

use runner::book::Book;
use runner::chart::{self, Point, Roofs};
use runner::kernel::{Lang, Variant};
use runner::record::{self, Recorded, Recording};
use runner::roofline::{self, DATASHEETS, Roof};
use serde::Deserialize;
use std::fmt::Write;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RooflineBlock {
    pub title: String,
    #[serde(default = "cuda")]
    pub lang: Lang,
    pub puzzles: Vec<String>,
}

fn cuda() -> Lang {
    Lang::Cuda
}

/// One puzzle's figures at its teaching size.
struct Row {
    id: String,
    flops: Option<u64>,
    bytes: u64,
    placement: Option<roofline::Placement>,
}

/// The block's Markdown/HTML, or a message naming what is wrong with it.
pub fn render(yaml: &str, book: &Book, recordings: &[Recording]) -> Result<String, String> {
    let block: RooflineBlock =
        serde_saphyr::from_str(yaml).map_err(|e| format!("```roofline block: {e}"))?;
    let mut puzzles = Vec::new();
    for id in &block.puzzles {
        let puzzle = book.find(id)?;
        let spec = puzzle
            .spec
            .resolve(&Default::default())
            .map_err(|e| e.to_string())?;
        puzzles.push((puzzle, spec));
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
        let rows: Vec<Row> = puzzles
            .iter()
            .map(|(puzzle, spec)| {
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
                Row {
                    id: puzzle.id().to_string(),
                    flops: spec.flops,
                    bytes: spec.min_bytes(),
                    placement: timing.map(|t| roofline::place(spec, t.median_ms, Some(ceilings))),
                }
            })
            .collect();
        charted += 1;
        let device = &recording.device.name;
        let _ = writeln!(
            md,
            "**{} on {device}**, recorded {} at the teaching sizes. Ceilings measured by \
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
        let _ = writeln!(
            md,
            "| kernel | FLOPs | fewest bytes | FLOP/byte | median time | GB/s | GFLOP/s | bound | % of roof |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"
        );
        for row in &rows {
            let intensity = row
                .flops
                .map(|f| format!("{:.3}", roofline::intensity(f, row.bytes)))
                .unwrap_or_else(|| "–".into());
            match &row.placement {
                Some(p) => {
                    let b = p.binding.as_ref();
                    let bound = match (b.map(|b| b.roof), p.launch_bound) {
                        (_, Some(true)) => "launch".to_string(),
                        (Some(Roof::Memory), _) => "memory".into(),
                        (Some(Roof::Compute), _) => "compute".into(),
                        (None, _) => "–".into(),
                    };
                    let _ = writeln!(
                        md,
                        "| `{}` | {} | {} | {intensity} | {} | {:.4} | {} | {bound} | {} |",
                        row.id,
                        row.flops
                            .map(|f| f.to_string())
                            .unwrap_or_else(|| "–".into()),
                        row.bytes,
                        runner::timing::format_ms(p.median_ms),
                        p.achieved_gb_s,
                        p.achieved_gflop_s
                            .map(|g| format!("{g:.4}"))
                            .unwrap_or_else(|| "–".into()),
                        b.map(|b| format!("{:.4}%", b.percent))
                            .unwrap_or_else(|| "–".into()),
                    );
                }
                None => {
                    let _ = writeln!(
                        md,
                        "| `{}` | {} | {} | {intensity} | no current recording | | | | |",
                        row.id,
                        row.flops
                            .map(|f| f.to_string())
                            .unwrap_or_else(|| "–".into()),
                        row.bytes
                    );
                }
            }
        }
        let elements: Vec<String> = rows
            .iter()
            .filter_map(|r| r.placement.as_ref())
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
                let p = r.placement.as_ref()?;
                Some(Point {
                    label: r.id.clone(),
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
        "What the datasheet roofs allow these kernels (attainable GFLOP/s = min(peak, intensity × bandwidth)):\n"
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
