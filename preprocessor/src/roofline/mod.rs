//! A ```roofline block: several puzzles' recorded GPU runs placed under that
//! GPU's measured ceilings, as a table and an SVG chart, followed by the same
//! kernels under the datasheet peaks of the sources' worked examples.
//!
//! ```yaml
//! title: Matrix multiplication, four ways
//! lang: cuda            # which kernels (default cuda)
//! puzzles: [p14_matmul_naive, p14_matmul_tiled]
//! sizes: bench          # the specs' `bench` sizes (default: teaching)
//! targets:              # optional: a verdict line naming each recorded GPU
//!   - { puzzle: p14_matmul_tiled, percent: 90 }
//! speedups:             # optional: time ratios at equal sizes (the constants both set), on each GPU
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
//! - [`runner::perf::RooflineBlock`]: the block's YAML (in the engine, which
//!   also reads a page's targets for `runner bench --file`);
//! - [`rows`]: each puzzle's figures on a recorded GPU;
//! - [`table`]: a row as the table shows it, the GPUs as column groups;
//! - [`verdicts`]: targets met or missed, speed-ups, every GPU in a line;
//! - [`baseline`]: the kernels against a vendor library on the same GPU;
//! - [`figure`]: the chart, every GPU's roofs and points in one.
//!
//! A block shows its experiment once, whatever the number of GPUs it was
//! recorded on: each GPU is a column group of the table, a figure in each
//! verdict's line, a dash and a marker on the chart.

pub mod baseline;
pub mod figure;
pub mod roofs;
pub mod rows;
pub mod table;
pub mod verdicts;

#[cfg(test)]
mod chart_tests;

use baseline::{Compared, baseline_section};
use puzzle_core::chapter::book::{Book, NoSuchPuzzle};
use puzzle_core::quantity::thousands;
use puzzle_core::spec::math::Math;
use rows::{OnGpu, Row, ShownError, Unplaced, row, short_names, shown};
use runner::perf::chart::ChartError;
use runner::perf::record::Recording;
use runner::perf::roofline::{self, DATASHEETS, Datasheet};
use runner::perf::{Baseline, BlockError, Ceilings, RooflineBlock, Sizes};
use std::fmt::Write;
use table::{rate, table_row};
use verdicts::{Judged, and, joint_verdict, judge_target, speedup_line};

/// What is wrong with a ```roofline block, or with what it shows.
#[derive(Debug, thiserror::Error)]
pub enum RooflineError {
    #[error(transparent)]
    Block(#[from] BlockError),
    #[error(transparent)]
    NoSuchPuzzle(#[from] NoSuchPuzzle),
    #[error(transparent)]
    Shown(#[from] ShownError),
    /// Two puzzles of one block whose arithmetic runs on different units.
    #[error(
        "```roofline block \"{title}\": `{first_id}` is {} arithmetic and `{id}` is {}; one \
         chart has one compute roof, so put them in separate blocks",
        first.label(),
        other.label()
    )]
    MixedMath {
        title: String,
        first_id: String,
        first: Math,
        id: String,
        other: Math,
    },
    #[error(transparent)]
    Chart(#[from] ChartError),
}

/// A block as the page shows it: what every reader sees (the compact
/// table, verdicts and chart, each once for every GPU), and how it was
/// measured (each GPU's roofs and full counts, then the datasheet table),
/// which the page folds once for all its blocks ([`measured_how`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub shown: String,
    pub how: Vec<Measured>,
    pub datasheet: String,
}

/// One GPU's part of a block's "how this was measured": the roofs the
/// block's percentages divide by (a sentence, the same for every block of
/// the same kind of math on that GPU), and the block's full counts there.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub device: String,
    pub roofs: String,
    /// The block's title.
    pub title: String,
    /// When and at which sizes the block was recorded on this GPU
    /// ("recorded 2026-11-28 at the teaching sizes").
    pub recorded: String,
    /// The full counts' table.
    pub counts: String,
}

/// The block's Markdown/HTML, or a message naming what is wrong with it.
// String-typed because the page's renderer (being restructured apart from
// this change) chains it after `Session::book`, whose error is words:
// [`render_block`] is the typed one.
pub fn render(
    yaml: &str,
    book: &Book,
    recordings: &[Recording],
    baselines: &[Baseline],
    roofs: &roofs::Memo,
) -> Result<Rendered, String> {
    render_block(yaml, book, recordings, baselines, roofs).map_err(|e| e.to_string())
}

/// One folded "how this was measured" for a page's roofline blocks, GPU by
/// GPU in the order they first appear: each distinct roofs sentence of a
/// GPU once, then every block's full counts on it; after them each distinct
/// datasheet table once (two blocks of the same kernels share one). Empty
/// when no block has any.
pub fn measured_how(blocks: &[Rendered]) -> String {
    if blocks
        .iter()
        .all(|b| b.how.is_empty() && b.datasheet.trim().is_empty())
    {
        return String::new();
    }
    let mut devices: Vec<&str> = Vec::new();
    for measured in blocks.iter().flat_map(|b| &b.how) {
        if !devices.contains(&measured.device.as_str()) {
            devices.push(&measured.device);
        }
    }
    let mut inner = String::new();
    for device in devices {
        let on_it: Vec<&Measured> = blocks
            .iter()
            .flat_map(|b| &b.how)
            .filter(|m| m.device == device)
            .collect();
        let mut roofs: Vec<&str> = Vec::new();
        for m in &on_it {
            if !roofs.contains(&m.roofs.as_str()) {
                roofs.push(&m.roofs);
            }
        }
        let _ = writeln!(inner, "**On {device}.** {}\n", roofs.join("\n\n"));
        // Two blocks of the same kernels at the same sizes (a chapter's
        // steps, then the same steps against a library) count the same:
        // the table once, the second block pointed to it.
        let mut tables: Vec<(&str, &str)> = Vec::new();
        for m in on_it {
            match tables.iter().find(|(table, _)| *table == m.counts) {
                Some((_, first)) => {
                    let _ = writeln!(
                        inner,
                        "**{}**, {}: the same kernels at the same sizes as **{first}**, with \
                         the same counts.\n",
                        m.title, m.recorded
                    );
                }
                None => {
                    tables.push((&m.counts, &m.title));
                    let _ = write!(inner, "**{}**, {}.\n\n{}", m.title, m.recorded, m.counts);
                }
            }
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for block in blocks {
        if !block.datasheet.trim().is_empty() && !seen.contains(&block.datasheet.as_str()) {
            seen.push(&block.datasheet);
            inner.push_str(&block.datasheet);
        }
    }
    format!(
        "<details class=\"puzzle-measured-how\">\n<summary>How this page's figures were \
         measured: each GPU's roofs, the full counts and the datasheets</summary>\n\n{inner}\n\
         </details>\n"
    )
}

/// The block's Markdown/HTML, or what is wrong with it.
pub fn render_block(
    yaml: &str,
    book: &Book,
    recordings: &[Recording],
    baselines: &[Baseline],
    roofs: &roofs::Memo,
) -> Result<Rendered, RooflineError> {
    let block = RooflineBlock::parse(yaml)?;
    let mut shown_rows = Vec::new();
    for id in &block.puzzles {
        let puzzle = book.find(id)?;
        shown_rows.extend(shown(puzzle, block.sizes)?);
    }
    let math = block_math(&block, &shown_rows)?;
    // Each GPU's roofs and full counts, folded once for the page.
    let mut how = Vec::new();
    let mut on: Vec<OnGpu> = Vec::new();
    // Runs on n GPUs are filed under "n × GPU": a block charts the
    // recordings of as many GPUs as its puzzles take.
    let gpus = match block.puzzles.first() {
        Some(id) => book.find(id)?.spec.gpus(&Default::default()),
        None => 1,
    };
    for (index, recording) in recordings
        .iter()
        .enumerate()
        .filter(|(_, r)| r.device.backend.lang() == block.lang && r.device.gpus() == gpus)
    {
        let Some((ceilings, best, fp32, tensor)) = roofs.get(index, recordings, book, baselines)
        else {
            continue;
        };
        let compute = match math {
            Math::Fp32 => Some(fp32),
            tensor_math => tensor.of(tensor_math),
        };
        let rows: Vec<Row> = shown_rows
            .iter()
            .map(|shown| row(shown, &block, recording, ceilings))
            .collect();
        // A GPU that has recorded none of these benchmarks gets no columns.
        let recorded = |r: &Row| !matches!(r.placement, Err(Unplaced::NotBenchmarked));
        if block.sizes == Sizes::Bench && !rows.iter().any(recorded) {
            continue;
        }
        let device = &recording.device.name;
        let samples = rows
            .iter()
            .filter_map(|r| r.bench.as_ref())
            .map(|b| b.timing.samples)
            .max()
            .unwrap_or(0);
        let at = match block.sizes {
            Sizes::Teaching => "at the teaching sizes".to_string(),
            // Every row awaits a run of a changed kernel: nothing was timed.
            Sizes::Bench if samples == 0 => {
                "at the benchmark sizes, none of them timed on this GPU since the kernels changed"
                    .to_string()
            }
            Sizes::Bench => format!(
                "at the benchmark sizes (median of {samples} device-timed runs after warm-up, ± \
                 the spread)"
            ),
        };
        let mut counts = format!(
            "<div class=\"puzzle-table\">\n\n{}\n",
            table::header(block.sizes == Sizes::Bench)
        );
        for row in &rows {
            let _ = writeln!(counts, "{}", table_row(row));
        }
        counts.push_str("\n</div>\n\n");
        how.push(Measured {
            device: device.clone(),
            roofs: ceilings_sentence(ceilings, (best, math, compute), device, baselines),
            title: block.title.clone(),
            recorded: format!("recorded {} {at}", recording.date),
            counts,
        });
        on.push(OnGpu {
            device: device.clone(),
            short: String::new(),
            date: recording.date.clone(),
            ceilings,
            rows,
        });
    }
    let shorts = short_names(&on.iter().map(|g| g.device.as_str()).collect::<Vec<_>>());
    for (gpu, short) in on.iter_mut().zip(shorts) {
        gpu.short = short;
    }
    let mut md = String::new();
    let _ = writeln!(md, "<div class=\"puzzle-roofline\">\n");
    if on.is_empty() {
        let _ = writeln!(
            md,
            "<p class=\"puzzle-recorded\">No {} results measured on a GPU with its ceilings yet: \
             this chart is empty.</p>\n",
            block.lang.label()
        );
    } else {
        md.push_str(&shown_once(&block, math, &on, baselines)?);
    }
    // The roofs, the full counts and the datasheets: how the figures above
    // were made, for the reader who asks, not in every reader's way; the
    // page folds them once, after its last block.
    let _ = writeln!(md, "</div>\n");
    Ok(Rendered {
        shown: md,
        how,
        datasheet: datasheet_table(&shown_rows, block.sizes, math),
    })
}

/// What every reader sees of a block, each thing once for all its GPUs:
/// which GPUs and when, the compact table (the GPUs as column groups), the
/// wrong outputs, a line per target and per speed-up naming each GPU's
/// figure, the library's section, the launch-bound note and the chart.
fn shown_once(
    block: &RooflineBlock,
    math: Math,
    on: &[OnGpu],
    baselines: &[Baseline],
) -> Result<String, RooflineError> {
    let recorded: Vec<String> = on
        .iter()
        .map(|g| match g.short == g.device {
            true => format!("the {} on {}", g.device, g.date),
            false => format!("the {} ({}) on {}", g.short, g.device, g.date),
        })
        .collect();
    let mut md = format!("**{}**, recorded on {}.\n\n", block.title, and(&recorded));
    md.push_str(&table::compact_table(on));
    for gpu in on {
        for wrong in table::wrong_outputs(&gpu.rows, &gpu.short) {
            let _ = writeln!(md, "\n{wrong}");
        }
    }
    let each: Vec<(&str, &[Row])> = on.iter().map(|g| (g.short.as_str(), &g.rows[..])).collect();
    for target in &block.targets {
        let judged: Vec<(&str, Judged)> = each
            .iter()
            .map(|&(gpu, rows)| (gpu, judge_target(target, rows, math)))
            .collect();
        let _ = writeln!(
            md,
            "\n{}",
            joint_verdict(target, "the measured roof", &judged)
        );
    }
    for speedup in &block.speedups {
        let _ = writeln!(md, "\n{}", speedup_line(speedup, &each));
    }
    if let Some(wanted) = &block.baseline {
        let compared: Vec<Compared> = on
            .iter()
            .map(|g| Compared {
                short: &g.short,
                device: &g.device,
                rows: g
                    .rows
                    .iter()
                    .filter(|r| block.compared_with_baseline(&r.id))
                    .collect(),
            })
            .collect();
        let _ = writeln!(md, "\n{}", baseline_section(wanted, &compared, baselines));
    }
    md.push_str(&launch_bound(on));
    md.push_str(&figure::chart_figure(block, math, on)?);
    Ok(md)
}

/// The note under a block whose times are within a few launches of an
/// empty kernel on some GPU: its percentages measure the launch.
fn launch_bound(on: &[OnGpu]) -> String {
    let each: Vec<(String, Vec<String>)> = on
        .iter()
        .map(|g| {
            // Each size once: a kernel's variants share theirs.
            let mut elements: Vec<String> = Vec::new();
            for p in g.rows.iter().filter_map(|r| r.placement.as_ref().ok()) {
                let n = thousands(p.elements as u64);
                if p.launch_bound == Some(true) && !elements.contains(&n) {
                    elements.push(n);
                }
            }
            (format!("the {}", g.short), elements)
        })
        .filter(|(_, elements)| !elements.is_empty())
        .collect();
    if each.is_empty() {
        return String::new();
    }
    let sizes = |elements: &[String]| {
        let noun = if elements == ["1"] {
            "element"
        } else {
            "elements"
        };
        format!("largest buffers of {} {noun}", elements.join(", "))
    };
    // The same sizes on every GPU are said once.
    let at = match each.windows(2).all(|w| w[0].1 == w[1].1) {
        true => {
            let gpus: Vec<String> = each.iter().map(|e| e.0.clone()).collect();
            format!("on {}, at these sizes ({})", and(&gpus), sizes(&each[0].1))
        }
        false => {
            let parts: Vec<String> = each
                .iter()
                .map(|(gpu, elements)| format!("on {gpu} ({})", sizes(elements)))
                .collect();
            format!("at these sizes, {}", and(&parts))
        }
    };
    // What that means is said once a page (`prose::launch_bound_once`).
    format!(
        "\n<p class=\"puzzle-roofline-note\">{}: {at}, each time is within {} empty-kernel \
         launches.</p>\n\n",
        crate::prose::launch_bound_mark(roofline::LAUNCH_BOUND_FACTOR),
        roofline::LAUNCH_BOUND_FACTOR
    )
}

/// The roofs of one GPU in words: each memory roof with what set it, the
/// FP32 rate and the launch cost `runner calibrate` measured, PyTorch's own
/// streams on the same GPU where they were timed, and the datasheet.
fn ceilings_sentence(
    ceilings: &Ceilings,
    (best, math, compute): (&[roofs::Best], Math, Option<&roofs::BestCompute>),
    device: &str,
    baselines: &[Baseline],
) -> String {
    let memory: Vec<String> = best
        .iter()
        .map(|b| format!("{} {} ({})", b.traffic.label(), gb(b.gb_s), b.from))
        .collect();
    let compute = match compute {
        Some(c) => format!("{} {} GFLOP/s ({})", math.label(), rate(c.gflop_s), c.from),
        None => format!("{} not measured on this GPU", math.label()),
    };
    let mut text = format!(
        "Roofs, each the fastest of its kind measured on this GPU, through either API or \
         by a library: memory {}; {compute}. An empty kernel takes {:.1} µs.",
        memory.join("; "),
        ceilings.launch_us.value
    );
    // PyTorch's plain streams, not its softmax: a library's operation is
    // compared in its own chapter's table.
    let stream = |name: &str| matches!(name, "copy" | "read" | "write");
    if let Some(torch) = baselines
        .iter()
        .find(|b| b.device == device && b.cases.iter().any(|c| stream(&c.name)))
    {
        let cases: Vec<String> = torch
            .cases
            .iter()
            .filter(|c| stream(&c.name))
            .filter_map(|c| Some(format!("{} {}", c.name, gb(c.gb_s()?))))
            .collect();
        let _ = write!(
            text,
            " For comparison, {} on the same GPU, {}: {}.",
            torch.library,
            torch.date,
            cases.join(", ")
        );
    }
    if let Some(d) = roofline::datasheet_for(device) {
        let peak = match d.peak(math) {
            Some(p) => format!(", {} {} GFLOP/s", math.label(), rate(p)),
            None => String::new(),
        };
        let _ = write!(text, " Datasheet: {} GB/s{peak}.", rate(d.bandwidth_gb_s));
    }
    text
}

fn gb(value: f64) -> String {
    format!("{} GB/s", rate(value))
}

/// One row per datasheet and one column per kernel (and size): `lead` names
/// the datasheet's own columns and `own` fills them, `cell` fills a kernel's.
fn datasheet_grid(
    shown: &[&rows::Shown],
    (lead, own): (&[&str], &dyn Fn(&Datasheet) -> String),
    cell: &dyn Fn(&Datasheet, &rows::Shown) -> String,
) -> String {
    let mut header = format!("| device | {} |", lead.join(" | "));
    let mut rule = format!("| --- |{}", " ---: |".repeat(lead.len()));
    for r in shown {
        let sizes = match &r.case {
            Some(case) if !r.headline => format!(" ({})", rows::case_text(case)),
            _ => String::new(),
        };
        header.push_str(&format!(" `{}`{sizes} |", r.puzzle.id()));
        rule.push_str(" ---: |");
    }
    let mut md = format!("<div class=\"puzzle-table\">\n\n{header}\n{rule}\n");
    for sheet in DATASHEETS {
        let mut line = format!("| {} | {} |", sheet.name, own(sheet));
        for r in shown {
            line.push_str(&format!(" {} |", cell(sheet, r)));
        }
        let _ = writeln!(md, "{line}");
    }
    md.push_str("\n</div>\n");
    md
}

/// For kernels without arithmetic: the shortest time each datasheet
/// bandwidth allows for their fewest bytes.
fn datasheet_times(rows: &[rows::Shown], at: &str) -> String {
    let shown: Vec<&rows::Shown> = rows.iter().collect();
    format!(
        "What the datasheet bandwidths allow these kernels at {at}: the shortest time in which \
         their fewest bytes can move.\n\n{}\n<small>Datasheet figures, not measurements.</small>\n",
        datasheet_grid(
            &shown,
            (&["GB/s"], &|sheet| rate(sheet.bandwidth_gb_s)),
            &|sheet, r| {
                let ms = r.spec.min_bytes() as f64 / (sheet.bandwidth_gb_s * 1e6);
                datasheet_time(ms)
            },
        )
    )
}

/// A datasheet's shortest time: nanoseconds where microseconds would read
/// "0 µs" (a teaching size moves its bytes in less than one), and "< 1 ns"
/// below that.
fn datasheet_time(ms: f64) -> String {
    let ns = ms * 1e6;
    if ns < 1.0 {
        "< 1 ns".to_string()
    } else if ns < 1000.0 {
        format!("{ns:.0} ns")
    } else {
        puzzle_core::backend_contract::timing::format_ms(ms)
    }
}

/// What the datasheet roofs (the GPUs the book is recorded on, and the
/// sources' worked examples) allow these kernels at the sizes the block
/// shows: the teaching sizes, or each benchmark size.
fn datasheet_table(rows: &[rows::Shown], sizes: Sizes, math: Math) -> String {
    let at = match sizes {
        Sizes::Teaching => "their teaching sizes",
        Sizes::Bench => "the benchmark sizes above",
    };
    let shown: Vec<&rows::Shown> = rows.iter().filter(|r| r.spec.flops.is_some()).collect();
    if shown.is_empty() {
        // Without FLOPs a datasheet allows a time, not a rate: say that instead.
        return datasheet_times(rows, at);
    }
    let mut md = format!(
        "What the datasheet roofs allow these kernels at {at}, in GFLOP/s (attainable = \
         min(peak, intensity × bandwidth), with the fewest bytes; the peak is the {} rate):\n\n",
        math.label()
    );
    let unknown = "–".to_string();
    md.push_str(&datasheet_grid(
        &shown,
        (
            &["GB/s", "GFLOP/s", "ridge (FLOP/byte)"],
            &|sheet| match sheet.peak(math) {
                Some(peak) => format!(
                    "{} | {} | {:.1}",
                    rate(sheet.bandwidth_gb_s),
                    rate(peak),
                    peak / sheet.bandwidth_gb_s
                ),
                None => format!("{} | {unknown} | {unknown}", rate(sheet.bandwidth_gb_s)),
            },
        ),
        &|sheet, r| {
            let f = r.spec.flops.unwrap_or_default();
            sheet
                .attainable(math, roofline::intensity(f, r.spec.min_bytes()))
                .map_or(unknown.clone(), rate)
        },
    ));
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

/// The arithmetic every puzzle of a block does (`math:` in their specs): one
/// chart has one compute roof, so a block may not mix FP32 and tensor-core kernels.
fn block_math(block: &RooflineBlock, shown: &[rows::Shown]) -> Result<Math, RooflineError> {
    let mut maths = shown.iter().map(|s| (s.puzzle.id(), s.spec.math));
    let Some((first_id, first)) = maths.next() else {
        return Ok(Math::Fp32);
    };
    match maths.find(|(_, m)| *m != first) {
        None => Ok(first),
        Some((id, other)) => Err(RooflineError::MixedMath {
            title: block.title.clone(),
            first_id: first_id.to_string(),
            first,
            id: id.to_string(),
            other,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datasheet_times_never_read_zero_table() {
        for (ms, text) in [
            (9.5e-9, "< 1 ns"),
            (3.2e-5, "32 ns"),
            (0.0123, "12.300 µs"),
            (2.5, "2.500 ms"),
        ] {
            assert_eq!(datasheet_time(ms), text, "{ms}");
        }
    }

    /// A page's blocks fold into one "how this was measured": GPU by GPU in
    /// the order they appear, each GPU's roofs said once however many blocks
    /// share them (a second kind of math adds its own sentence), every
    /// block's counts under its GPU (a table two blocks share written once),
    /// a datasheet table two blocks share written once, and nothing at all
    /// for a page with nothing to fold.
    #[test]
    fn one_fold_a_page_table() {
        let on = |device: &str, roofs: &str, counts: &str| Measured {
            device: device.into(),
            roofs: roofs.into(),
            title: format!("title of {}", counts.trim()),
            recorded: "recorded today".into(),
            counts: counts.into(),
        };
        let block = |how: Vec<Measured>, datasheet: &str| Rendered {
            shown: "shown".into(),
            how,
            datasheet: datasheet.into(),
        };
        type Case<'a> = (
            &'a str,
            Vec<Rendered>,
            &'a [&'a str],
            &'a [(&'a str, usize)],
        );
        let same = |title: &str| Measured {
            title: title.into(),
            ..on("H100", "roofs-1", "<table>same</table>\n")
        };
        let cases: [Case; 4] = [
            (
                "none",
                vec![block(vec![], ""), block(vec![], " ")],
                &[],
                &[],
            ),
            (
                "two blocks on two GPUs, one datasheet",
                vec![
                    block(
                        vec![
                            on("H100", "roofs-1", "A-1\n"),
                            on("H200", "roofs-2", "A-2\n"),
                        ],
                        "table-x\n",
                    ),
                    block(
                        vec![
                            on("H100", "roofs-1", "B-1\n"),
                            on("H200", "roofs-2", "B-2\n"),
                        ],
                        "table-x\n",
                    ),
                ],
                &[
                    "On H100", "roofs-1", "A-1", "B-1", "On H200", "roofs-2", "A-2", "B-2",
                    "table-x",
                ],
                &[
                    ("roofs-1", 1),
                    ("roofs-2", 1),
                    ("table-x", 1),
                    ("On H100", 1),
                ],
            ),
            (
                "two kinds of math on one GPU, two datasheets",
                vec![
                    block(vec![on("H100", "bf16 roofs", "A\n")], "table-1\n"),
                    block(vec![on("H100", "fp8 roofs", "B\n")], "table-2\n"),
                ],
                &[
                    "On H100",
                    "bf16 roofs",
                    "fp8 roofs",
                    "A\n",
                    "B\n",
                    "table-1",
                    "table-2",
                ],
                &[("On H100", 1), ("bf16 roofs", 1), ("fp8 roofs", 1)],
            ),
            (
                "two blocks of the same counts on one GPU: the table once",
                vec![
                    block(vec![same("Steps")], "table-1\n"),
                    block(vec![same("Against a library")], "table-1\n"),
                ],
                &[
                    "**Steps**, recorded today.",
                    "<table>same</table>",
                    "**Against a library**, recorded today: the same kernels at the same \
                     sizes as **Steps**, with the same counts.",
                ],
                &[("<table>same</table>", 1), ("table-1", 1)],
            ),
        ];
        for (name, blocks, in_order, counts) in cases {
            let page = measured_how(&blocks);
            let folds = usize::from(!in_order.is_empty());
            assert_eq!(page.matches("<details").count(), folds, "{name}: {page}");
            let at: Vec<usize> = in_order.iter().map(|t| page.find(t).expect(name)).collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{name}: {page}");
            for (text, times) in counts {
                assert_eq!(
                    page.matches(text).count(),
                    *times,
                    "{name}: {text} in {page}"
                );
            }
            assert!(
                !page.contains("shown"),
                "{name}: the fold holds no shown text"
            );
        }
    }
}
