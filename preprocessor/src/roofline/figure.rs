//! A roofline block's chart, every GPU in one: each GPU's roofs (the kind
//! of roof by colour, the GPU by dash) and each kernel's point on each GPU
//! (the kernel by number, the GPU by marker), with the legend under it that
//! names the GPUs, the roofs and the kernels.

use crate::roofline::rows::{OnGpu, Row};
use crate::roofline::table::rate;
use crate::roofline::verdicts::and;
use puzzle_core::spec::math::Math;
use runner::perf::chart::{self, ChartError, Layout, MemoryRoof, Point, Roofs, Series};
use runner::perf::{RooflineBlock, Traffic, roofline};
use std::fmt::Write;

/// A row's point, where its GPU placed it and it does arithmetic.
fn point(row: &Row) -> Option<Point> {
    let p = row.placement.as_ref().ok()?;
    Some(Point {
        intensity: roofline::intensity(row.flops?, row.bytes),
        gflop_s: p.achieved_gflop_s?,
    })
}

/// A line of the legend drawn as the chart draws the `gpu`-th GPU's roof in
/// `colour`: a short bar, solid, dashed or dotted.
fn swatch(gpu: usize, colour: &str) -> String {
    let (_, line) = chart::dash(gpu);
    format!(
        "<span style=\"display:inline-block;width:1.8em;vertical-align:middle;\
         border-top:3px {line} {colour}\"></span>"
    )
}

/// One GPU's series: its memory roofs (one for each stream its kernels are
/// measured against) and compute roof, and its kernels' points under their
/// numbers; with the legend's words for its roofs. `index` is its place
/// among the series drawn, which gives it its dash and marker. `None` where
/// no rate of the block's arithmetic was measured on it.
fn series(
    (index, gpu): (usize, &OnGpu),
    math: Math,
    numbers: &[(usize, usize)],
    several: bool,
) -> Option<(Series, String)> {
    let compute = gpu.ceilings.compute_roof(math)?;
    let mut traffics = Vec::new();
    for row in &gpu.rows {
        let binding = row.placement.as_ref().ok().and_then(|p| p.binding.as_ref());
        if let Some(t) = binding.and_then(|b| b.traffic)
            && row.flops.is_some()
            && !traffics.contains(&t)
        {
            traffics.push(t);
        }
    }
    if traffics.is_empty() {
        traffics.push(Traffic::ReadWrite);
    }
    let memory: Vec<MemoryRoof> = traffics
        .iter()
        .map(|&t| {
            let (gb_s, measured) = gpu.ceilings.memory_roof(t);
            MemoryRoof {
                name: measured.label().to_string(),
                gb_s,
            }
        })
        .collect();
    let mut legend: Vec<String> = memory
        .iter()
        .enumerate()
        .map(|(i, m)| {
            format!(
                "{} memory roof ({}) {} GB/s",
                swatch(index, &chart::memory_colour(i)),
                m.name,
                rate(m.gb_s)
            )
        })
        .collect();
    legend.push(format!(
        "{} compute roof ({}) {} GFLOP/s",
        swatch(index, &chart::compute_colour()),
        math.label(),
        rate(compute)
    ));
    let name = if several {
        format!("{} {}: ", chart::marker(index), gpu.short)
    } else {
        String::new()
    };
    let points = numbers
        .iter()
        .filter_map(|&(row, n)| Some((n, point(&gpu.rows[row])?)))
        .collect();
    let series = Series {
        name: gpu.short.clone(),
        roofs: Roofs {
            memory,
            compute_gflop_s: compute,
            label: format!("{}, ceilings measured {}", gpu.device, gpu.ceilings.date),
        },
        points,
    };
    Some((series, format!("{name}{}", legend.join(" · "))))
}

/// The chart and its legend: which GPU each marker and dash is, the roofs
/// drawn, and each kernel's number, name and figures on each GPU.
pub fn chart_figure(
    block: &RooflineBlock,
    math: Math,
    gpus: &[OnGpu],
) -> Result<String, ChartError> {
    let Some(first) = gpus.first() else {
        return Ok(String::new());
    };
    if first.rows.iter().all(|r| r.flops.is_none()) {
        // A transpose or a copy does no arithmetic: it has no place on a
        // chart whose vertical axis is FLOP/s, and the table says it all.
        return Ok(
            "\n<p class=\"puzzle-roofline-note puzzle-no-chart\">No chart: these kernels do no floating-point \
             arithmetic, so they have no point on a roofline; the table measures them against \
             the memory roof alone.</p>\n\n"
                .to_string(),
        );
    }
    // A kernel's number is its place among the rows with a point on any
    // GPU: the same on every GPU.
    let numbers: Vec<(usize, usize)> = (0..first.rows.len())
        .filter(|&i| gpus.iter().any(|g| point(&g.rows[i]).is_some()))
        .enumerate()
        .map(|(n, row)| (row, n + 1))
        .collect();
    let several = gpus.len() > 1;
    let mut drawn = Vec::new();
    let mut roofs_legend = Vec::new();
    let mut unmeasured = Vec::new();
    for gpu in gpus {
        // The chart gives a series its dash and marker by its place among
        // those drawn: the legend says the same.
        match series((drawn.len(), gpu), math, &numbers, several) {
            Some((s, legend)) => {
                drawn.push(s);
                roofs_legend.push(legend);
            }
            None => unmeasured.push(format!("the {}", gpu.short)),
        }
    }
    if drawn.is_empty() {
        return Ok(format!(
            "\n<p class=\"puzzle-roofline-note puzzle-no-chart\">No chart: no {} rate has \
             been measured on {} to draw as the roof.</p>\n\n",
            math.label(),
            and(&unmeasured)
        ));
    }
    let mut legend = String::new();
    for &(row, _) in &numbers {
        let r = &first.rows[row];
        let sizes = match &r.sizes {
            Some(sizes) if !r.headline => format!(" ({sizes})"),
            _ => String::new(),
        };
        let rates: Vec<(String, &String)> = gpus
            .iter()
            .filter_map(|g| {
                let p = point(&g.rows[row])?;
                Some((rate(p.gflop_s), &g.short))
            })
            .collect();
        // "176,904 GFLOP/s on the H100 and 173,917 on the H200".
        let rates: Vec<String> = rates
            .iter()
            .enumerate()
            .map(|(i, (rate, gpu))| {
                let unit = if i == 0 { " GFLOP/s" } else { "" };
                match several {
                    true => format!("{rate}{unit} on the {gpu}"),
                    false => format!("{rate}{unit}"),
                }
            })
            .collect();
        let intensity = r
            .flops
            .map(|f| roofline::intensity(f, r.bytes))
            .unwrap_or(0.0);
        let _ = writeln!(
            legend,
            "<li><code>{}</code>{sizes}: {} FLOP/byte, {}</li>",
            r.id,
            rate(intensity),
            and(&rates)
        );
    }
    let not_drawn = match unmeasured.is_empty() {
        true => String::new(),
        false => format!(
            "<br>Not drawn: {}, where no {} rate has been measured to draw as the roof; the \
             table gives its figures.",
            and(&unmeasured),
            math.label()
        ),
    };
    // Drawn for a laptop's column and for a phone's; the page shows the one
    // that fits (theme/puzzles.css), so the words read at 12 px or more on both.
    let svg = Layout::BOTH
        .iter()
        .map(|&layout| chart::roofline_chart(&block.title, &drawn, layout))
        .collect::<Result<Vec<_>, _>>()?
        .join("\n");
    Ok(format!(
        "\n<figure class=\"puzzle-chart\">\n{svg}\n<figcaption>{}{not_drawn}<ol>\n{legend}</ol></figcaption>\n</figure>\n\n",
        roofs_legend.join("<br>")
    ))
}
