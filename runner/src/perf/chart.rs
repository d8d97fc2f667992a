//! Roofline charts as SVG (plotters' SVG backend), drawn by the build.
//!
//! Log-log axes with units; the memory roof (bandwidth × intensity) and the
//! compute roof (peak FLOP/s) from measured ceilings; one labelled point per
//! kernel. Text and axes use `currentColor`, so the chart, inlined in the
//! page, takes the theme's text colour in light and dark themes alike; the
//! series colours are mid-tones that read on both backgrounds.

use plotters::prelude::*;

/// One kernel on the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub label: String,
    /// FLOP per byte (of the fewest bytes).
    pub intensity: f64,
    pub gflop_s: f64,
}

/// The two ceilings, and what they describe.
#[derive(Debug, Clone, PartialEq)]
pub struct Roofs {
    pub bandwidth_gb_s: f64,
    pub fp32_gflop_s: f64,
    /// e.g. "NVIDIA H200, measured by runner calibrate".
    pub label: String,
}

const MEMORY: RGBColor = RGBColor(0xd6, 0x4f, 0x4f);
const COMPUTE: RGBColor = RGBColor(0x3f, 0x86, 0xd6);
const POINT: RGBColor = RGBColor(0xe6, 0x9f, 0x00);
/// Drawn in pure black, then swapped for `currentColor`.
const INK: RGBColor = RGBColor(0, 0, 0);

/// Why a chart could not be drawn (plotters' own error, in words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("drawing the roofline: {0}")]
pub struct ChartError(String);

/// The chart as an SVG document.
pub fn roofline_svg(title: &str, roofs: &Roofs, points: &[Point]) -> Result<String, ChartError> {
    let ridge = roofs.fp32_gflop_s / roofs.bandwidth_gb_s;
    let xs = points.iter().map(|p| p.intensity).filter(|v| *v > 0.0);
    let ys = points.iter().map(|p| p.gflop_s).filter(|v| *v > 0.0);
    let x_lo = xs.clone().fold(ridge / 100.0, f64::min) / 2.0;
    let x_hi = xs.fold(ridge * 10.0, f64::max) * 2.0;
    let y_lo = ys.fold(roofs.bandwidth_gb_s * x_lo, f64::min) / 2.0;
    let y_hi = roofs.fp32_gflop_s * 3.0;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 460)).into_drawing_area();
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
            .label_style(("sans-serif", 13).into_font().color(&INK))
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| number(*v))
            .light_line_style(INK.mix(0.08))
            .bold_line_style(INK.mix(0.18))
            .draw()
            .map_err(error)?;
        chart
            .draw_series(LineSeries::new(
                [
                    (x_lo, roofs.bandwidth_gb_s * x_lo),
                    (ridge, roofs.fp32_gflop_s),
                ],
                MEMORY.stroke_width(3),
            ))
            .map_err(error)?
            .label(format!("memory roof {:.0} GB/s", roofs.bandwidth_gb_s))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], MEMORY.stroke_width(3)));
        chart
            .draw_series(LineSeries::new(
                [(ridge, roofs.fp32_gflop_s), (x_hi, roofs.fp32_gflop_s)],
                COMPUTE.stroke_width(3),
            ))
            .map_err(error)?
            .label(format!("compute roof {:.0} GFLOP/s", roofs.fp32_gflop_s))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], COMPUTE.stroke_width(3)));
        chart
            .draw_series(
                points
                    .iter()
                    .filter(|p| p.intensity > 0.0 && p.gflop_s > 0.0)
                    .enumerate()
                    .map(|(i, p)| {
                        // Variants often land on the same spot: stagger their labels.
                        let dy = -18 + 14 * (i as i32 % 3);
                        EmptyElement::at((p.intensity, p.gflop_s))
                            + Circle::new((0, 0), 5, POINT.filled())
                            + Text::new(
                                p.label.clone(),
                                (9, dy),
                                ("sans-serif", 12).into_font().color(&INK),
                            )
                    }),
            )
            .map_err(error)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font(("sans-serif", 12).into_font().color(&INK))
            .border_style(INK.mix(0.3))
            .draw()
            .map_err(error)?;
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

/// Axis numbers without trailing ".0": 100000, 10, 0.1, 0.001.
fn number(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        let text = format!("{v:.6}");
        text.trim_end_matches('0').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_roofs_points_and_theme_neutral_ink() {
        let roofs = Roofs {
            bandwidth_gb_s: 4000.0,
            fp32_gflop_s: 60_000.0,
            label: "test device".into(),
        };
        let points = [
            Point {
                label: "naive".into(),
                intensity: 0.33,
                gflop_s: 0.002,
            },
            Point {
                label: "tiled".into(),
                intensity: 1.5,
                gflop_s: 0.05,
            },
        ];
        let svg = roofline_svg("matmul", &roofs, &points).unwrap();
        // To look at it while developing: GPU_PUZZLES_CHART_OUT=/tmp/chart.svg
        if let Some(path) = std::env::var_os("GPU_PUZZLES_CHART_OUT") {
            std::fs::write(path, &svg).unwrap();
        }
        assert!(svg.contains("<svg"), "an SVG document");
        for text in [
            "naive",
            "tiled",
            "GFLOP/s",
            "FLOP/byte",
            "memory roof 4000 GB/s",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
        assert!(
            !svg.contains("#000000"),
            "black ink would vanish in the dark theme"
        );
        assert!(svg.contains("currentColor"));
        assert_eq!(svg.matches("<circle").count(), 2, "one point per kernel");
    }
}
