//! Roofline charts as SVG (plotters' SVG backend), drawn by the build.
//!
//! Log-log axes with units; one memory roof (bandwidth × intensity) for each
//! stream the chart's kernels are measured against, and the compute roof
//! (peak FLOP/s), from measured ceilings. Each kernel is a numbered point: the
//! page's legend under the chart names it, so no kernel name is drawn where
//! it could collide with another. Numbers of points that land on the same
//! spot share one label; every label is placed where it overlaps no other
//! label and no point. Text and axes use `currentColor`, so the chart,
//! inlined in the page, takes the theme's text colour in light and dark
//! themes alike; the series colours are mid-tones that read on both.

use plotters::coord::Shift;
use plotters::prelude::*;

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

const MEMORY: [RGBColor; 3] = [
    RGBColor(0xd6, 0x4f, 0x4f),
    RGBColor(0x9b, 0x59, 0xb6),
    RGBColor(0x2a, 0x9d, 0x8f),
];
const COMPUTE: RGBColor = RGBColor(0x3f, 0x86, 0xd6);
const POINT: RGBColor = RGBColor(0xe6, 0x9f, 0x00);
/// Drawn in pure black, then swapped for `currentColor`.
const INK: RGBColor = RGBColor(0, 0, 0);
const SIZE: (u32, u32) = (760, 460);
/// Label font size, and the width of one of its digits or commas, in pixels.
/// The chart is drawn 760 wide and shown in a column of about 700: 14 here
/// reads as 13 on a laptop's page, never under 12.
const FONT: u32 = 14;
const CHAR_W: i32 = 8;

/// Why a chart could not be drawn (plotters' own error, in words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("drawing the roofline: {0}")]
pub struct ChartError(String);

/// The colour a memory roof is drawn in, for the page's legend: `#d64f4f`.
pub fn memory_colour(i: usize) -> String {
    let RGBColor(r, g, b) = MEMORY[i % MEMORY.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The chart as an SVG document that scales to its container.
pub fn roofline_svg(title: &str, roofs: &Roofs, points: &[Point]) -> Result<String, ChartError> {
    let highest = roofs.memory.iter().map(|m| m.gb_s).fold(1e-9, f64::max);
    let lowest = roofs.memory.iter().map(|m| m.gb_s).fold(f64::MAX, f64::min);
    let drawn = |p: &&Point| p.intensity > 0.0 && p.gflop_s > 0.0;
    let xs = points.iter().filter(drawn).map(|p| p.intensity);
    let ys = points.iter().filter(drawn).map(|p| p.gflop_s);
    let x_lo = xs
        .clone()
        .fold(roofs.compute_gflop_s / highest / 100.0, f64::min)
        / 2.0;
    let x_hi = xs.fold(roofs.compute_gflop_s / lowest * 10.0, f64::max) * 2.0;
    let y_lo = ys.fold(lowest * x_lo, f64::min) / 2.0;
    let y_hi = roofs.compute_gflop_s * 3.0;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let error = |e: DrawingAreaErrorKind<_>| ChartError(format!("{e:?}"));
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18).into_font().color(&INK))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(error)?;
        chart
            .configure_mesh()
            .x_desc("arithmetic intensity (FLOP/byte, fewest bytes)")
            .y_desc("performance (GFLOP/s)")
            .axis_style(INK)
            .label_style(("sans-serif", FONT).into_font().color(&INK))
            .axis_desc_style(("sans-serif", FONT).into_font().color(&INK))
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| number(*v))
            .light_line_style(INK.mix(0.08))
            .bold_line_style(INK.mix(0.18))
            .draw()
            .map_err(error)?;
        for (i, roof) in roofs.memory.iter().enumerate() {
            let ridge = roofs.compute_gflop_s / roof.gb_s;
            let width = if i == 0 { 3 } else { 2 };
            chart
                .draw_series(LineSeries::new(
                    [(x_lo, roof.gb_s * x_lo), (ridge, roofs.compute_gflop_s)],
                    MEMORY[i % MEMORY.len()].stroke_width(width),
                ))
                .map_err(error)?;
        }
        chart
            .draw_series(LineSeries::new(
                [
                    (roofs.compute_gflop_s / highest, roofs.compute_gflop_s),
                    (x_hi, roofs.compute_gflop_s),
                ],
                COMPUTE.stroke_width(3),
            ))
            .map_err(error)?;
        let at: Vec<(usize, (i32, i32))> = points
            .iter()
            .enumerate()
            .filter(|(_, p)| drawn(p))
            .map(|(i, p)| (i + 1, chart.backend_coord(&(p.intensity, p.gflop_s))))
            .collect();
        for &(_, (x, y)) in &at {
            root.draw(&Circle::new((x, y), 5, POINT.filled()))
                .map_err(error)?;
        }
        draw_labels(&root, &at, chart.plotting_area().get_pixel_range()).map_err(error)?;
        root.present().map_err(error)?;
    }
    let svg = svg
        .replace("#000000", "currentColor")
        .replace("fill=\"#FFFFFF\"", "fill=\"none\"");
    Ok(format!(
        "<!-- {} -->\n{svg}",
        roofs.label.replace("--", "-")
    ))
}

/// A label's box in pixels: left, top, right, bottom.
type Rect = (i32, i32, i32, i32);

fn overlaps(a: Rect, b: Rect) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Points within a few pixels of each other share a label ("2, 5"); each
/// label goes to the first spot around its point, at growing distances, that
/// overlaps no label placed before and no point, inside the plotting area.
fn draw_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    at: &[(usize, (i32, i32))],
    area: (std::ops::Range<i32>, std::ops::Range<i32>),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    const NEAR: i32 = 4;
    let mut groups: Vec<(Vec<usize>, (i32, i32))> = Vec::new();
    for &(n, (x, y)) in at {
        match groups
            .iter_mut()
            .find(|(_, (gx, gy))| (gx - x).abs() <= NEAR && (gy - y).abs() <= NEAR)
        {
            Some((numbers, _)) => numbers.push(n),
            None => groups.push((vec![n], (x, y))),
        }
    }
    let dots: Vec<Rect> = at
        .iter()
        .map(|&(_, (x, y))| (x - 6, y - 6, x + 6, y + 6))
        .collect();
    let inside = |r: Rect| {
        r.0 >= area.0.start && r.2 <= area.0.end && r.1 >= area.1.start && r.3 <= area.1.end
    };
    let mut placed: Vec<Rect> = Vec::new();
    for (numbers, (x, y)) in groups {
        let text: Vec<String> = numbers.iter().map(usize::to_string).collect();
        let text = text.join(", ");
        let (w, h) = (CHAR_W * text.len() as i32, FONT as i32 + 2);
        let spots = (1..=8).flat_map(|r| {
            let d = 8 * r;
            [
                (x + d, y - h / 2),
                (x - d - w, y - h / 2),
                (x - w / 2, y - d - h),
                (x - w / 2, y + d),
                (x + d, y - d - h),
                (x + d, y + d),
                (x - d - w, y - d - h),
                (x - d - w, y + d),
            ]
        });
        let mut spot = (x + 8, y - h / 2);
        for (lx, ly) in spots {
            let rect = (lx, ly, lx + w, ly + h);
            if inside(rect)
                && !placed.iter().any(|&p| overlaps(p, rect))
                && !dots.iter().any(|&d| overlaps(d, rect))
            {
                spot = (lx, ly);
                break;
            }
        }
        placed.push((spot.0, spot.1, spot.0 + w, spot.1 + h));
        if (spot.0 - x).abs() > 12 + w || (spot.1 - y).abs() > 12 + h {
            // Far from its point: a thin line says whose label it is.
            let end = (spot.0 + w / 2, spot.1 + h / 2);
            root.draw(&PathElement::new([(x, y), end], INK.mix(0.35)))?;
        }
        root.draw(&Text::new(
            text,
            spot,
            ("sans-serif", FONT).into_font().color(&INK),
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
        let svg = roofline_svg("matmul", &roofs(), &points).unwrap();
        // To look at it while developing: GPU_PUZZLES_CHART_OUT=/tmp/chart.svg
        if let Some(path) = std::env::var_os("GPU_PUZZLES_CHART_OUT") {
            std::fs::write(path, &svg).unwrap();
        }
        // plotters gives the viewBox the page's CSS scales by; exactly one.
        assert_eq!(svg.matches("viewBox=\"0 0 760 460\"").count(), 1);
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
        let svg = roofline_svg("crowded", &roofs(), &points).unwrap();
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
            (*x, *y, x + CHAR_W * t.len() as i32, y + FONT as i32 + 2)
        };
        let drawn: Vec<&str> = numbers.iter().map(|n| n.2.as_str()).collect();
        assert!(drawn.contains(&"4, 13"), "{drawn:?}");
        for (i, a) in numbers.iter().enumerate() {
            for b in &numbers[i + 1..] {
                assert!(!overlaps(rect(a), rect(b)), "{a:?} overlaps {b:?}");
            }
        }
    }
}
