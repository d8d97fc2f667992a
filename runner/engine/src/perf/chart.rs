//! Roofline charts as SVG (plotters' SVG backend), drawn by the build.
//!
//! Log-log axes with units; one memory roof (bandwidth × intensity) for each
//! stream the chart's kernels are measured against, and the compute roof
//! (peak FLOP/s), from measured ceilings. Each kernel is a numbered point: the
//! page's legend under the chart names it, so no kernel name is drawn where
//! it could collide with another. Numbers of points that land on the same
//! spot share one label; every label is placed clear of every other label,
//! every point and every roof line (`chart_labels`). Text and axes use
//! `currentColor`, so the chart, inlined in the page, takes the theme's text
//! colour in light and dark themes alike; the series colours read at 3:1 or
//! better on the light and the dark themes' backgrounds.
//!
//! A chart is drawn twice, for a laptop's column and for a phone's
//! ([`Layout`]); the page shows the one that fits, so that its words are
//! drawn at [`FONT`] px, never scaled under 12, on either.
//!
//! One chart holds an experiment on every GPU it was recorded on
//! ([`Series`]): a roof keeps its colour (the kind of roof) and takes the
//! GPU's dash ([`dash`]), a kernel keeps its number and takes the GPU's
//! marker ([`marker`]), so that the GPUs read apart without a second chart.

use crate::perf::chart_labels;
/// The labels' geometry, for the charts' tests (the preprocessor's
/// `roofline/chart_tests.rs` holds a drawn chart to it).
pub use crate::perf::chart_labels::{Rect, Segment, inflate, overlaps, segment_meets, text_width};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One kernel on the chart, drawn as its number (its place in the slice, from 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// FLOP per byte (of the fewest bytes).
    pub intensity: f64,
    pub gflop_s: f64,
}

/// One memory roof: "copy", 3911 GB/s.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryRoof {
    pub name: String,
    pub gb_s: f64,
}

/// The ceilings, and what they describe.
#[derive(Debug, Clone, PartialEq)]
pub struct Roofs {
    /// At least one; the first is drawn boldest.
    pub memory: Vec<MemoryRoof>,
    /// The compute roof: FP32, or the tensor cores' for their kernels.
    pub compute_gflop_s: f64,
    /// e.g. "NVIDIA H200, measured by runner calibrate".
    pub label: String,
}

/// One GPU's part of a chart: its roofs, and its kernels' points, each with
/// its number (a kernel has the same number on every GPU).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The GPU as the chart's words name it: "H200".
    pub name: String,
    pub roofs: Roofs,
    pub points: Vec<(usize, Point)>,
}

/// How the `i`-th GPU's roofs are drawn, as an SVG `stroke-dasharray`
/// (none for the first) and as a CSS border style for the page's legend.
pub fn dash(i: usize) -> (Option<&'static str>, &'static str) {
    match i % 3 {
        0 => (None, "solid"),
        1 => (Some("8 5"), "dashed"),
        _ => (Some("2 4"), "dotted"),
    }
}

/// The `i`-th GPU's marker, as the page's legend writes it.
pub fn marker(i: usize) -> &'static str {
    ["●", "▲", "■"][i % 3]
}

/// Which of a chart's two drawings. Each is drawn at its natural size in
/// the column it is for (a laptop's is about 670 px, a phone's about 360),
/// so that its words are [`FONT`] px there; the page switches between them
/// by the column's width, before the one shown would shrink its words
/// under 12 px.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Wide,
    Narrow,
}

impl Layout {
    pub const BOTH: [Layout; 2] = [Layout::Wide, Layout::Narrow];

    /// The drawing's size in its own units, which the page shows as pixels.
    pub fn size(self) -> (u32, u32) {
        match self {
            Layout::Wide => (660, 420),
            Layout::Narrow => (340, 380),
        }
    }

    /// The class the page's stylesheet shows or hides it by.
    pub fn class(self) -> &'static str {
        match self {
            Layout::Wide => "puzzle-chart-wide",
            Layout::Narrow => "puzzle-chart-narrow",
        }
    }
}

/// The series colours, each at 3:1 or better against white and against the
/// dark themes' backgrounds: memory roofs, then the compute roof, then the points.
const MEMORY: [RGBColor; 3] = [
    RGBColor(0xd6, 0x4f, 0x4f),
    RGBColor(0x9b, 0x59, 0xb6),
    RGBColor(0x2a, 0x9d, 0x8f),
];
const COMPUTE: RGBColor = RGBColor(0x3f, 0x86, 0xd6);
/// Orange, darkened from the usual #e69f00 (2.25:1 on white) to read on white.
const POINT: RGBColor = RGBColor(0xc1, 0x74, 0x00);
/// Drawn in pure black, then swapped for `currentColor`.
const INK: RGBColor = RGBColor(0, 0, 0);
/// Every word's size on the screen, in px: the page asks for 12 at least.
pub const FONT: f64 = 13.0;
const TITLE_FONT: f64 = 15.0;
/// plotters-svg writes a font's size divided by this; sizes are given to it
/// multiplied, so the SVG says [`FONT`].
const PLOTTERS_SCALE: f64 = 1.24;

fn font(size: f64) -> TextStyle<'static> {
    ("sans-serif", size * PLOTTERS_SCALE)
        .into_font()
        .color(&INK)
}

/// Why a chart could not be drawn (plotters' own error, in words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("drawing the roofline: {0}")]
pub struct ChartError(String);

fn hex(RGBColor(r, g, b): RGBColor) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The colour a memory roof is drawn in, for the page's legend: `#d64f4f`.
pub fn memory_colour(i: usize) -> String {
    hex(MEMORY[i % MEMORY.len()])
}

/// The compute roof's colour, for the page's legend.
pub fn compute_colour() -> String {
    hex(COMPUTE)
}

/// Every colour a chart draws a series in, for the tests of their contrast.
pub fn series_colours() -> Vec<String> {
    MEMORY
        .iter()
        .chain([&COMPUTE, &POINT])
        .map(|&c| hex(c))
        .collect()
}

/// Text for an SVG attribute or element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A title in the lines it takes in `room` units at `size`: one where it
/// fits, else two, cut where it names the GPU ("… — NVIDIA H200") or else
/// between words, each line cut short with "…" if it still does not fit.
/// Shared with the bus chart.
pub fn title_lines(title: &str, size: f64, room: f64) -> Vec<String> {
    if chart_labels::text_width(title, size) <= room {
        return vec![title.to_string()];
    }
    match title.split_once(" — ") {
        Some((what, gpu)) => vec![fitted(what, size, room), fitted(gpu, size, room)],
        None => {
            // A chart of every GPU names none: its title breaks between
            // words, as late as the first line allows.
            let split = title
                .rmatch_indices(' ')
                .map(|(at, _)| at)
                .find(|&at| chart_labels::text_width(&title[..at], size) <= room);
            match split {
                Some(at) => vec![
                    title[..at].to_string(),
                    fitted(&title[at + 1..], size, room),
                ],
                None => vec![fitted(title, size, room)],
            }
        }
    }
}

/// `text` cut to `room` units wide at `size`, with "…" where it was cut.
fn fitted(text: &str, size: f64, room: f64) -> String {
    if chart_labels::text_width(text, size) <= room {
        return text.to_string();
    }
    let mut kept: String = text.to_string();
    while !kept.is_empty() && chart_labels::text_width(&format!("{kept}…"), size) > room {
        kept.pop();
    }
    format!("{}…", kept.trim_end())
}

/// The chart of one GPU as an SVG element that scales to its container,
/// drawn for `layout`, each point numbered by its place in `points` from 1.
pub fn roofline_svg(
    title: &str,
    roofs: &Roofs,
    points: &[Point],
    layout: Layout,
) -> Result<String, ChartError> {
    let series = Series {
        name: String::new(),
        roofs: roofs.clone(),
        points: points
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, p)| (i + 1, p))
            .collect(),
    };
    roofline_chart(title, std::slice::from_ref(&series), layout)
}

/// The opacity a dashed roof is drawn at, for the SVG to say its dash
/// instead: plotters draws no dashed polyline (its dashes are an element
/// each), so the roof is drawn whole and marked by an opacity no other
/// element of the chart has, which is then swapped for the dash.
fn dash_mark(i: usize) -> Option<(f64, &'static str)> {
    let (dash, _) = dash(i);
    dash.map(|d| (if i % 3 == 1 { 0.99 } else { 0.98 }, d))
}

/// Every GPU's chart in one, as an SVG element that scales to its container,
/// drawn for `layout`: a `<title>` and an accessible name (`role="img"`,
/// `aria-label`) say what it shows to those who cannot see it.
pub fn roofline_chart(
    title: &str,
    series: &[Series],
    layout: Layout,
) -> Result<String, ChartError> {
    let memories = || series.iter().flat_map(|s| &s.roofs.memory).map(|m| m.gb_s);
    let computes = || series.iter().map(|s| s.roofs.compute_gflop_s);
    let highest = memories().fold(1e-9, f64::max);
    let lowest = memories().fold(f64::MAX, f64::min);
    let (compute_lo, compute_hi) = (
        computes().fold(f64::MAX, f64::min),
        computes().fold(0.0, f64::max),
    );
    let drawn = |p: &&Point| p.intensity > 0.0 && p.gflop_s > 0.0;
    let all = || {
        series
            .iter()
            .flat_map(|s| s.points.iter().map(|(_, p)| p))
            .filter(drawn)
    };
    let xs = all().map(|p| p.intensity);
    let ys = all().map(|p| p.gflop_s);
    // The memory roof from a tenth of its ridge: enough of its slope to
    // read, and the room left to the points.
    let x_lo = xs.clone().fold(compute_lo / highest / 10.0, f64::min) / 2.0;
    let x_hi = xs.fold(compute_hi / lowest * 10.0, f64::max) * 2.0;
    let y_lo = ys.fold(lowest * x_lo, f64::min) / 2.0;
    let y_hi = compute_hi * 3.0;
    let size = layout.size();
    let narrow = layout == Layout::Narrow;
    // A phone's chart keeps its plot wide: shorter axis titles, and compact
    // numbers on the vertical axis ("100k"), whose labels take its room.
    let (x_desc, y_desc) = if narrow {
        ("intensity (FLOP/byte)", "GFLOP/s")
    } else {
        (
            "arithmetic intensity (FLOP/byte, fewest bytes)",
            "performance (GFLOP/s)",
        )
    };
    let y_number = |v: &f64| if narrow { compact(*v) } else { number(*v) };
    let y_area = {
        // The widest number the axis may write, the axis title and gaps.
        let widest = [y_lo, y_hi]
            .iter()
            .map(|v| chart_labels::text_width(&y_number(&(10f64.powf(v.log10().floor()))), FONT))
            .fold(0.0, f64::max);
        (widest + FONT * 2.2 + 14.0).ceil() as u32
    };
    let title_lines = title_lines(title, TITLE_FONT, f64::from(size.0) - 24.0);
    const TITLE_ROW: f64 = 20.0;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let error = |e: DrawingAreaErrorKind<_>| ChartError(format!("{e:?}"));
        for (i, line) in title_lines.iter().enumerate() {
            let style = font(TITLE_FONT).pos(Pos::new(HPos::Center, VPos::Top));
            let top = 10.0 + TITLE_ROW * i as f64;
            root.draw(&Text::new(
                line.clone(),
                (size.0 as i32 / 2, top as i32),
                style,
            ))
            .map_err(error)?;
        }
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            // Room for half the last number under the horizontal axis.
            .margin_right(32)
            .margin_top(16.0 + TITLE_ROW * title_lines.len() as f64)
            .x_label_area_size(48)
            .y_label_area_size(y_area)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(error)?;
        chart
            .configure_mesh()
            .x_labels(if narrow { 4 } else { 8 })
            .y_labels(if narrow { 6 } else { 8 })
            .x_desc(x_desc)
            .y_desc(y_desc)
            .axis_style(INK)
            .label_style(font(FONT))
            .axis_desc_style(font(FONT))
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&y_number)
            .light_line_style(INK.mix(0.08))
            .bold_line_style(INK.mix(0.18))
            .draw()
            .map_err(error)?;
        // Each roof's ends in the data's units, with its GPU and its colour:
        // memory roofs up to their ridge, then the compute roof from the
        // GPU's highest ridge on.
        let mut ends: Vec<([(f64, f64); 2], usize, RGBColor, u32)> = Vec::new();
        for (gpu, s) in series.iter().enumerate() {
            let roofs = &s.roofs;
            let mut top = 1e-9f64;
            for (i, roof) in roofs.memory.iter().enumerate() {
                top = top.max(roof.gb_s);
                let ridge = roofs.compute_gflop_s / roof.gb_s;
                let width = if i == 0 { 3 } else { 2 };
                let line = [(x_lo, roof.gb_s * x_lo), (ridge, roofs.compute_gflop_s)];
                ends.push((line, gpu, MEMORY[i % MEMORY.len()], width));
            }
            let line = [
                (roofs.compute_gflop_s / top, roofs.compute_gflop_s),
                (x_hi, roofs.compute_gflop_s),
            ];
            ends.push((line, gpu, COMPUTE, 3));
        }
        let (lines, spots) = {
            let at = |(x, y): (f64, f64)| {
                let (px, py) = chart.backend_coord(&(x, y));
                (f64::from(px), f64::from(py))
            };
            let lines: Vec<Segment> = ends.iter().map(|&([a, b], ..)| (at(a), at(b))).collect();
            let spots: Vec<(usize, usize, (f64, f64))> = series
                .iter()
                .enumerate()
                .flat_map(|(gpu, s)| s.points.iter().map(move |(n, p)| (gpu, *n, p)))
                .filter(|(_, _, p)| drawn(p))
                .map(|(gpu, n, p)| (gpu, n, at((p.intensity, p.gflop_s))))
                .collect();
            (lines, spots)
        };
        for &(line, gpu, colour, width) in &ends {
            let style = match dash_mark(gpu) {
                Some((mark, _)) => colour.mix(mark).stroke_width(width),
                None => colour.stroke_width(width),
            };
            chart
                .draw_series(LineSeries::new(line, style))
                .map_err(error)?;
        }
        for &(gpu, _, (x, y)) in &spots {
            let (x, y) = (x as i32, y as i32);
            match gpu % 3 {
                0 => root.draw(&Circle::new((x, y), 5, POINT.filled())),
                1 => root.draw(&TriangleMarker::new((x, y), 6, POINT.filled())),
                _ => root.draw(&Rectangle::new(
                    [(x - 4, y - 4), (x + 4, y + 4)],
                    POINT.filled(),
                )),
            }
            .map_err(error)?;
        }
        let spots: Vec<(usize, (f64, f64))> = spots.into_iter().map(|(_, n, at)| (n, at)).collect();
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        // Numbers may stand in the margin right of the plot: nothing else is
        // drawn there, and a point at the plot's edge has room beside it.
        let area = (
            f64::from(xr.start),
            f64::from(yr.start),
            f64::from(size.0) - 4.0,
            f64::from(yr.end),
        );
        draw_labels(&root, &chart_labels::place(&spots, &lines, area, FONT)).map_err(error)?;
        root.present().map_err(error)?;
    }
    let svg = svg
        .replace("#000000", "currentColor")
        .replace("fill=\"#FFFFFF\"", "fill=\"none\"")
        // What SVG assumes anyway, or the root says once: a page carries
        // dozens of charts, each twice.
        .replace(" opacity=\"1\"", "")
        .replace(" stroke-width=\"1\"", "")
        .replace(" stroke=\"none\"", "")
        .replace(" font-family=\"sans-serif\"", "");
    let mut svg = merge_grid(&svg);
    for i in 0..series.len() {
        if let Some((mark, dash)) = dash_mark(i) {
            let marked = format!(" opacity=\"{mark}\"");
            svg = svg.replace(&marked, &format!(" stroke-dasharray=\"{dash}\""));
        }
    }
    // plotters writes the sizes it was given over its own scale: 13, not 13.000000000000002.
    for size in [FONT, TITLE_FONT] {
        let written = format!("font-size=\"{}\"", size * PLOTTERS_SCALE / PLOTTERS_SCALE);
        svg = svg.replace(&written, &format!("font-size=\"{size}\""));
    }
    let named = format!(
        "<svg class=\"{}\" role=\"img\" font-family=\"sans-serif\" aria-label=\"{}\" ",
        layout.class(),
        escape(&accessible_name(title, series))
    );
    let svg = svg.replacen("<svg ", &named, 1);
    // The <title> first inside the element, as SVG asks.
    let svg = match svg.find('>') {
        Some(end) => format!(
            "{}<title>{}</title>{}",
            &svg[..=end],
            escape(title),
            &svg[end + 1..]
        ),
        None => svg,
    };
    let labels: Vec<String> = series
        .iter()
        .map(|s| s.roofs.label.replace("--", "-"))
        .collect();
    Ok(format!("<!-- {} -->\n{svg}", labels.join("; ")))
}

/// The grid's lines (plotters writes an element for each, dozens a chart,
/// some twice) as one path for each shade, where its first line was.
fn merge_grid(svg: &str) -> String {
    let mut shades: Vec<(String, Vec<String>)> = Vec::new();
    let mut out: Vec<Option<String>> = Vec::new();
    for line in svg.lines() {
        let grid = line
            .trim_start()
            .strip_prefix("<line opacity=\"")
            .and_then(|rest| {
                let (shade, rest) = rest.split_once('"')?;
                let rest = rest.strip_prefix(" stroke=\"currentColor\"")?;
                let number = |name: &str| -> Option<&str> {
                    let start = rest.find(&format!(" {name}=\""))? + name.len() + 3;
                    rest[start..].split('"').next()
                };
                let d = format!(
                    "M{} {}L{} {}",
                    number("x1")?,
                    number("y1")?,
                    number("x2")?,
                    number("y2")?
                );
                Some((shade.to_string(), d))
            });
        match grid {
            Some((shade, d)) => match shades.iter_mut().find(|(s, _)| *s == shade) {
                Some((_, ds)) if ds.contains(&d) => {}
                Some((_, ds)) => ds.push(d),
                None => {
                    out.push(None);
                    shades.push((shade, vec![d]));
                }
            },
            None => out.push(Some(line.to_string())),
        }
    }
    let mut paths = shades.into_iter().map(|(shade, ds)| {
        format!(
            "<path opacity=\"{shade}\" stroke=\"currentColor\" fill=\"none\" d=\"{}\"/>",
            ds.concat()
        )
    });
    out.into_iter()
        .map(|line| line.unwrap_or_else(|| paths.next().unwrap_or_default()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the chart shows, in a sentence: its title, each GPU's roofs and
/// how many kernels it places under them (the list under the chart names each).
fn accessible_name(title: &str, series: &[Series]) -> String {
    let gpus: Vec<String> = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let memory: Vec<String> = s
                .roofs
                .memory
                .iter()
                .map(|m| format!("{} {} GB/s", m.name, number(m.gb_s)))
                .collect();
            let drawn = if series.len() > 1 {
                let (_, line) = dash(i);
                format!("on the {} ({} roofs, {} points) ", s.name, line, marker(i))
            } else {
                String::new()
            };
            format!(
                "{drawn}under the memory roof ({}) and the compute roof ({} GFLOP/s)",
                memory.join(", "),
                number(s.roofs.compute_gflop_s)
            )
        })
        .collect();
    let mut numbers: Vec<usize> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    let kernels = match numbers.len() {
        1 => "1 kernel".to_string(),
        n => format!("{n} kernels"),
    };
    format!(
        "Roofline chart, {title}: {kernels} as numbered points {}; the list below the chart \
         gives each one's figures",
        gpus.join("; ")
    )
}

/// Each number at its place, with a thin line to its point where it had to
/// go further than beside it.
fn draw_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &[chart_labels::Label],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for label in labels {
        let (x, y) = (label.point.0 as i32, label.point.1 as i32);
        if label.leader {
            let r = label.rect;
            let end = (
                label.point.0.clamp(r.0, r.2) as i32,
                label.point.1.clamp(r.1, r.3) as i32,
            );
            root.draw(&PathElement::new([(x, y), end], INK.mix(0.45)))?;
        }
        root.draw(&Text::new(
            label.text.clone(),
            (label.at.0.round() as i32, label.at.1.round() as i32),
            font(FONT),
        ))?;
    }
    Ok(())
}

/// Axis numbers without trailing ".0", thousands separated: 100,000, 10, 0.1, 0.001.
fn number(v: f64) -> String {
    if v >= 1.0 {
        // 1,000,000 rather than 1000000: a tensor-core chart reaches there.
        puzzle_core::quantity::thousands(v.round() as u64)
    } else {
        let text = format!("{v:.6}");
        text.trim_end_matches('0').to_string()
    }
}

/// An axis number in few characters, for a phone's chart: 100k, 2.5M, 10, 0.1.
fn compact(v: f64) -> String {
    for (unit, scale) in [("M", 1e6), ("k", 1e3)] {
        if v >= scale {
            let n = v / scale;
            let n = if (n - n.round()).abs() < 1e-9 {
                number(n)
            } else {
                format!("{n:.1}")
            };
            return format!("{n}{unit}");
        }
    }
    number(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roofs() -> Roofs {
        Roofs {
            memory: vec![
                MemoryRoof {
                    name: "copy".into(),
                    gb_s: 4000.0,
                },
                MemoryRoof {
                    name: "read-only".into(),
                    gb_s: 4500.0,
                },
            ],
            compute_gflop_s: 60_000.0,
            label: "test device".into(),
        }
    }

    /// The `<text>` elements' positions, and their strings.
    fn labels(svg: &str) -> Vec<(i32, i32, String)> {
        svg.split("<text ")
            .skip(1)
            .filter_map(|t| {
                let attr = |name: &str| -> Option<i32> {
                    let start = t.find(&format!("{name}=\""))? + name.len() + 2;
                    let end = start + t[start..].find('"')?;
                    t[start..end].parse::<f64>().ok().map(|v| v as i32)
                };
                let body = &t[t.find('>')? + 1..t.find("</text>")?];
                Some((attr("x")?, attr("y")?, body.trim().to_string()))
            })
            .collect()
    }

    #[test]
    fn draws_roofs_points_and_theme_neutral_ink() {
        let points = [
            Point {
                intensity: 0.33,
                gflop_s: 0.002,
            },
            Point {
                intensity: 1.5,
                gflop_s: 0.05,
            },
        ];
        let svg = roofline_svg("matmul", &roofs(), &points, Layout::Wide).unwrap();
        // To look at it while developing: GPU_PUZZLES_CHART_OUT=/tmp/chart.svg
        if let Some(path) = std::env::var_os("GPU_PUZZLES_CHART_OUT") {
            std::fs::write(path, &svg).unwrap();
        }
        // plotters gives the viewBox the page's CSS scales by; exactly one.
        assert_eq!(svg.matches("viewBox=\"0 0 660 420\"").count(), 1);
        for text in ["GFLOP/s", "FLOP/byte"] {
            assert!(svg.contains(text), "missing {text}");
        }
        let texts: Vec<String> = labels(&svg).into_iter().map(|l| l.2).collect();
        for number in ["1", "2"] {
            assert!(
                texts.iter().any(|t| t == number),
                "no label {number}: {texts:?}"
            );
        }
        assert!(
            !svg.contains("#000000"),
            "black ink would vanish in the dark theme"
        );
        assert!(svg.contains("currentColor"));
        assert_eq!(svg.matches("<circle").count(), 2, "one point per kernel");
    }

    /// Two GPUs in one chart: each GPU's roofs in the roofs' colours, the
    /// second's dashed; each kernel's point on each GPU, the second's a
    /// triangle, under one number where the two meet; both GPUs named.
    #[test]
    fn two_gpus_share_one_chart() {
        let mut h200 = roofs();
        h200.memory.truncate(1);
        h200.memory[0].gb_s = 4200.0;
        h200.compute_gflop_s = 62_000.0;
        let point = |gflop_s| Point {
            intensity: 1.5,
            gflop_s,
        };
        let series = [
            Series {
                name: "H100".into(),
                roofs: roofs(),
                points: vec![(1, point(500.0)), (2, point(5000.0))],
            },
            Series {
                name: "H200".into(),
                roofs: h200,
                // Kernel 1 on the same spot as on the H100; kernel 2 apart.
                points: vec![(1, point(500.0)), (2, point(2000.0))],
            },
        ];
        for layout in Layout::BOTH {
            let svg = roofline_chart("two", &series, layout).unwrap();
            if let Some(path) = std::env::var_os("GPU_PUZZLES_CHART_OUT") {
                std::fs::write(path, &svg).unwrap();
            }
            // Three roofs of the H100 solid, two of the H200 dashed.
            let roofs = svg
                .matches("<polyline")
                .zip(svg.split("<polyline").skip(1))
                .filter(|(_, p)| !p.starts_with(" fill=\"none\" stroke=\"currentColor\""))
                .count();
            assert_eq!(roofs, 5, "{svg}");
            assert_eq!(svg.matches("stroke-dasharray=\"8 5\"").count(), 2, "{svg}");
            assert!(
                !svg.contains("opacity=\"0.99\""),
                "the dash's mark is swapped"
            );
            assert_eq!(svg.matches("<circle").count(), 2, "the H100's points");
            assert_eq!(svg.matches("<polygon").count(), 2, "the H200's points");
            // The points' numbers start at their spot; the axes' are centred or right-aligned.
            let mut texts: Vec<String> = svg
                .split("<text ")
                .skip(1)
                .zip(labels(&svg))
                .filter(|(t, _)| t.contains("text-anchor=\"start\""))
                .map(|(_, l)| l.2)
                .collect();
            texts.sort();
            assert_eq!(texts, ["1", "2", "2"], "one 1 where the two meet");
            let name = accessible_name("two", &series);
            for said in [
                "on the H100 (solid roofs, ● points) under",
                "on the H200 (dashed roofs, ▲ points) under",
                "2 kernels",
            ] {
                assert!(name.contains(said), "{said} in {name}");
            }
        }
    }

    /// Many kernels close together (the performance chapters' variants):
    /// no two labels overlap, and points on one spot share a label.
    #[test]
    fn labels_never_collide() {
        let mut points = Vec::new();
        for i in 0..12 {
            points.push(Point {
                intensity: 0.25 * (1.0 + 0.08 * i as f64),
                gflop_s: 100.0 * (1.0 + 0.06 * i as f64),
            });
        }
        // Two on exactly the same spot.
        points.push(points[3].clone());
        for layout in Layout::BOTH {
            let svg = roofline_svg("crowded", &roofs(), &points, layout).unwrap();
            // The axes' numbers are centred or right-aligned; the points' start at their spot.
            let numbers: Vec<(i32, i32, String)> = svg
                .split("<text ")
                .skip(1)
                .zip(labels(&svg))
                .filter(|(t, _)| t.contains("text-anchor=\"start\""))
                .map(|(_, l)| l)
                .collect();
            let mut every: Vec<usize> = numbers
                .iter()
                .flat_map(|n| n.2.split(", ").map(|d| d.parse::<usize>().unwrap()))
                .collect();
            every.sort();
            assert_eq!(
                every,
                (1..=13).collect::<Vec<_>>(),
                "every point is named once"
            );
            let rect = |(x, y, t): &(i32, i32, String)| {
                chart_labels::text_box((f64::from(*x), f64::from(*y)), t, FONT)
            };
            let drawn: Vec<&str> = numbers.iter().map(|n| n.2.as_str()).collect();
            // The same spot's numbers share a label (on a phone's chart, with
            // neighbours drawn on top of them).
            let shared =
                |d: &str| d.split(", ").any(|n| n == "4") && d.split(", ").any(|n| n == "13");
            assert!(drawn.iter().any(|d| shared(d)), "{drawn:?}");
            for (i, a) in numbers.iter().enumerate() {
                for b in &numbers[i + 1..] {
                    assert!(
                        !chart_labels::overlaps(rect(a), rect(b)),
                        "{a:?} overlaps {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn titles_break_where_they_can_table() {
        let room = 200.0;
        for (title, lines) in [
            ("short", vec!["short"]),
            (
                "The vector map at six occupancies — NVIDIA H200",
                vec!["The vector map at six occu…", "NVIDIA H200"],
            ),
            (
                "The vector map at six occupancies, CUDA",
                vec!["The vector map at six", "occupancies, CUDA"],
            ),
            (
                "Averyveryverylongwordwithoutanyspaces",
                vec!["Averyveryverylongwordwit…"],
            ),
        ] {
            assert_eq!(title_lines(title, FONT, room), lines, "{title}");
        }
    }
}
