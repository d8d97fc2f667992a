//! A ```bus block's chart: bus bandwidth against message size, one line
//! per kernel and NCCL's dashed, as inline SVG written by hand.
//!
//! The house style is the roofline chart's (`runner::perf::chart`): a
//! 760 × 460 view box the page scales to its column, sans-serif text, the
//! same mid-tone series colours, and every axis, tick and word in
//! `currentColor`, so the chart takes the theme's text colour in light and
//! dark themes alike. It is not drawn with plotters as the roofline is:
//! that chart's axes are both logarithmic and its labels are numbers, while
//! here the message sizes want binary units ("64 KiB", "1 MiB") on a log2
//! axis and the bandwidth a linear axis from 0, both simpler to lay out by
//! hand than to bend plotters to; and the preprocessor then needs no
//! drawing crate of its own.
//!
//! Labels never overlap: the only words are the title, the legend above the
//! plot (laid out in rows by each entry's width), the axis titles and the
//! tick labels; x ticks are thinned to every 2nd, 3rd… power of two until
//! the widest label fits between two ticks. Widths are estimated on the wide
//! side ([`CHAR_W`]), so a real font leaves room to spare. A point's figures
//! are in its tooltip (`<title>`), never drawn beside it.

use std::fmt::Write;

/// One line of the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend's words for it.
    pub name: String,
    /// (message bytes per GPU, bus GB/s), in any order.
    pub points: Vec<(u64, f64)>,
    /// NCCL's: dashed, in the text colour, drawn under the kernels' lines.
    pub reference: bool,
}

pub const WIDTH: f64 = 760.0;
pub const HEIGHT: f64 = 460.0;
/// Tick labels, legend and axis titles (the page asks for 12 px at least).
pub const FONT: f64 = 13.0;
const TITLE_FONT: f64 = 16.0;
/// The width of one character at [`FONT`] px, on the wide side of common
/// sans-serif faces (digits and lower case are about 7 px there).
pub const CHAR_W: f64 = 8.0;
/// The plot area: room on the left for the bandwidth labels and the axis
/// title, below for the size labels and the axis title.
const LEFT: f64 = 84.0;
const RIGHT: f64 = WIDTH - 28.0;
const BOTTOM: f64 = HEIGHT - 62.0;
/// Least room between two x tick labels, in pixels.
const GAP: f64 = 12.0;
/// The roofline chart's palette: mid-tones that read on light and dark.
const COLOURS: [&str; 5] = ["#e69f00", "#3f86d6", "#d64f4f", "#2a9d8f", "#9b59b6"];

/// A kernel's marker shape, so the lines differ in more than colour.
#[derive(Clone, Copy)]
enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    /// NCCL's: a ring in the text colour.
    Ring,
}

const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
];

/// How a series is drawn: its colour, dash and marker.
struct Style {
    colour: &'static str,
    dashed: bool,
    marker: Marker,
}

fn styles(series: &[Series]) -> Vec<Style> {
    let mut kernel = 0;
    series
        .iter()
        .map(|s| {
            if s.reference {
                Style {
                    colour: "currentColor",
                    dashed: true,
                    marker: Marker::Ring,
                }
            } else {
                let style = Style {
                    colour: COLOURS[kernel % COLOURS.len()],
                    dashed: false,
                    marker: MARKERS[kernel % MARKERS.len()],
                };
                kernel += 1;
                style
            }
        })
        .collect()
}

/// The estimated width of `text` at [`FONT`] px.
pub fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_W
}

/// Bytes in the largest binary unit that keeps the number at least 1, whole
/// where it is: "64 KiB", "1 MiB", "1.5 GiB", "768 B".
pub fn size_label(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 || value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Text for an SVG attribute or element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A step of 1, 2, 2.5 or 5 × 10^k that cuts `0..max` into about five.
fn nice_step(max: f64) -> f64 {
    let raw = (max / 5.0).max(f64::MIN_POSITIVE);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// A bandwidth tick: "0", "250", "1,500", "0.25", with no more decimals than it has.
fn tick_number(v: f64) -> String {
    if v >= 1.0 && v.fract() == 0.0 {
        return puzzle_core::quantity::thousands(v as u64);
    }
    for decimals in 0..6 {
        let text = format!("{v:.decimals$}");
        if (text.parse::<f64>().unwrap_or(f64::NAN) - v).abs() <= v.abs() * 1e-9 {
            return text;
        }
    }
    format!("{v}")
}

/// The x axis: log2 of the message size, from `lo` to `hi` (powers of two).
struct XAxis {
    lo: f64,
    hi: f64,
}

impl XAxis {
    fn new(bytes: impl Iterator<Item = u64>) -> XAxis {
        let logs: Vec<f64> = bytes
            .filter(|&b| b > 0)
            .map(|b| (b as f64).log2())
            .collect();
        let (min, max) = match (
            logs.iter().copied().reduce(f64::min),
            logs.iter().copied().reduce(f64::max),
        ) {
            (Some(min), Some(max)) => (min, max),
            // Nothing to draw: 1 KiB to 1 GiB, so the frame still reads.
            _ => (10.0, 30.0),
        };
        // Half a power of two beyond the outer points, a whole one around a
        // single size: no marker sits on the frame.
        let pad = if max - min < 1.0 { 1.0 } else { 0.5 };
        XAxis {
            lo: min - pad,
            hi: max + pad,
        }
    }

    fn x(&self, bytes: f64) -> f64 {
        LEFT + (bytes.log2() - self.lo) / (self.hi - self.lo) * (RIGHT - LEFT)
    }

    /// The powers of two labelled: every one where the labels fit, else every
    /// 2nd, 3rd… (multiples of the step, so 64 KiB, 256 KiB, 1 MiB…), and
    /// none whose label would leave the picture.
    fn ticks(&self) -> Vec<(f64, String)> {
        let first = self.lo.ceil() as i64;
        let last = self.hi.floor() as i64;
        let all: Vec<i64> = (first..=last).filter(|&k| (0..63).contains(&k)).collect();
        let widest = all
            .iter()
            .map(|&k| text_width(&size_label(1u64 << k)))
            .fold(0.0, f64::max);
        let per_power = (RIGHT - LEFT) / (self.hi - self.lo);
        let step = (1..=64)
            .find(|&s| s as f64 * per_power >= widest + GAP)
            .unwrap_or(64);
        let mut kept: Vec<i64> = all
            .iter()
            .copied()
            .filter(|k| k.rem_euclid(step) == 0)
            .collect();
        if kept.is_empty() {
            // A step wider than the axis: the power nearest its middle alone.
            let middle = ((self.lo + self.hi) / 2.0).round() as i64;
            kept.extend(all.iter().copied().min_by_key(|k| (k - middle).abs()));
        }
        kept.into_iter()
            .map(|k| {
                let label = size_label(1u64 << k);
                (self.x((1u64 << k) as f64), label)
            })
            .filter(|(x, label)| {
                let half = text_width(label) / 2.0;
                *x - half >= 0.0 && *x + half <= WIDTH
            })
            .collect()
    }
}

/// The legend above the plot, entry after entry, a new row where the next
/// would pass the right edge. Returns where the plot may begin.
fn legend(svg: &mut String, series: &[Series], styles: &[Style], top: f64) -> f64 {
    const SAMPLE: f64 = 28.0;
    const ROW: f64 = 20.0;
    let (mut x, mut y) = (LEFT, top);
    for (s, style) in series.iter().zip(styles) {
        let width = SAMPLE + 8.0 + text_width(&s.name);
        if x > LEFT && x + width > RIGHT {
            x = LEFT;
            y += ROW;
        }
        let mid = y - FONT * 0.35;
        let _ = write!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{mid:.1}\" x2=\"{:.1}\" y2=\"{mid:.1}\" {}/>",
            x + SAMPLE,
            stroke(style)
        );
        marker(svg, style, (x + SAMPLE / 2.0, mid), None);
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{y:.1}\" text-anchor=\"start\" fill=\"currentColor\">{}</text>",
            x + SAMPLE + 8.0,
            escape(&s.name)
        );
        x += width + 22.0;
    }
    y + 18.0
}

/// A line's stroke attributes.
fn stroke(style: &Style) -> String {
    let dash = if style.dashed {
        " stroke-dasharray=\"8 5\" stroke-opacity=\"0.8\""
    } else {
        ""
    };
    format!(
        "stroke=\"{}\" stroke-width=\"2.5\" fill=\"none\"{dash}",
        style.colour
    )
}

/// One marker at `(x, y)`, with its figures as a tooltip where given.
fn marker(svg: &mut String, style: &Style, (x, y): (f64, f64), tip: Option<&str>) {
    let c = style.colour;
    let shape = match style.marker {
        Marker::Circle => format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4.5\" fill=\"{c}\"/>"),
        Marker::Ring => format!(
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"none\" stroke=\"{c}\" stroke-width=\"1.8\"/>"
        ),
        Marker::Square => format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\" fill=\"{c}\"/>",
            x - 4.0,
            y - 4.0
        ),
        Marker::Triangle => format!(
            "<polygon points=\"{x:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"{c}\"/>",
            y - 5.5,
            x + 5.0,
            y + 3.5,
            x - 5.0,
            y + 3.5
        ),
        Marker::Diamond => format!(
            "<polygon points=\"{x:.1},{:.1} {:.1},{y:.1} {x:.1},{:.1} {:.1},{y:.1}\" fill=\"{c}\"/>",
            y - 5.5,
            x + 5.5,
            y + 5.5,
            x - 5.5
        ),
    };
    match tip {
        Some(tip) => {
            let _ = write!(svg, "<g><title>{}</title>{shape}</g>", escape(tip));
        }
        None => svg.push_str(&shape),
    }
}

/// The chart as an SVG element that scales to its container.
pub fn bus_svg(title: &str, series: &[Series]) -> String {
    let styles = styles(series);
    let drawn = |&&(bytes, gb_s): &&(u64, f64)| bytes > 0 && gb_s.is_finite() && gb_s >= 0.0;
    let x_axis = XAxis::new(
        series
            .iter()
            .flat_map(|s| s.points.iter().filter(drawn).map(|p| p.0)),
    );
    let highest = series
        .iter()
        .flat_map(|s| s.points.iter().filter(drawn).map(|p| p.1))
        .fold(0.0, f64::max);
    let step = nice_step(if highest > 0.0 { highest * 1.05 } else { 1.0 });
    let y_max = (highest * 1.05 / step).ceil().max(1.0) * step;

    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" \
         width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\" font-family=\"sans-serif\" \
         font-size=\"{FONT}\"><title>{}: bus bandwidth against message size</title>",
        escape(title)
    );
    // A title too long for the picture loses its end rather than running out of it.
    let room = ((WIDTH - 20.0) / (TITLE_FONT * 0.62)) as usize;
    let shown_title = if title.chars().count() > room {
        let kept: String = title.chars().take(room.saturating_sub(1)).collect();
        format!("{}…", kept.trim_end())
    } else {
        title.to_string()
    };
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"24\" text-anchor=\"middle\" font-size=\"{TITLE_FONT}\" \
         font-weight=\"bold\" fill=\"currentColor\">{}</text>",
        WIDTH / 2.0,
        escape(&shown_title)
    );
    let top = legend(&mut svg, series, &styles, 52.0);
    let y = |v: f64| BOTTOM - v / y_max * (BOTTOM - top);

    // The grid and the bandwidth labels, from 0.
    let ticks = (y_max / step).round() as usize;
    for i in 0..=ticks {
        let v = step * i as f64;
        let at = y(v);
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" y1=\"{at:.1}\" x2=\"{RIGHT}\" y2=\"{at:.1}\" \
             stroke=\"currentColor\" stroke-opacity=\"0.12\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"currentColor\">{}</text>",
            LEFT - 8.0,
            at + FONT * 0.35,
            tick_number(v)
        );
    }
    for (at, label) in x_axis.ticks() {
        let _ = write!(
            svg,
            "<line x1=\"{at:.1}\" y1=\"{top:.1}\" x2=\"{at:.1}\" y2=\"{BOTTOM}\" \
             stroke=\"currentColor\" stroke-opacity=\"0.12\"/>\
             <line x1=\"{at:.1}\" y1=\"{BOTTOM}\" x2=\"{at:.1}\" y2=\"{:.1}\" stroke=\"currentColor\"/>\
             <text x=\"{at:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"currentColor\">{label}</text>",
            BOTTOM + 5.0,
            // Clear of the bandwidth axis's "0" beside the corner.
            BOTTOM + 22.0
        );
    }
    // The axes and what they measure.
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" y1=\"{top:.1}\" x2=\"{LEFT}\" y2=\"{BOTTOM}\" stroke=\"currentColor\"/>\
         <line x1=\"{LEFT}\" y1=\"{BOTTOM}\" x2=\"{RIGHT}\" y2=\"{BOTTOM}\" stroke=\"currentColor\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"currentColor\">message size per GPU (log scale)</text>\
         <text x=\"18\" y=\"{middle:.1}\" transform=\"rotate(-90 18 {middle:.1})\" text-anchor=\"middle\" \
         fill=\"currentColor\">bus bandwidth (GB/s)</text>",
        (LEFT + RIGHT) / 2.0,
        HEIGHT - 14.0,
        middle = (top + BOTTOM) / 2.0
    );
    // NCCL's line first, so the kernels' lines are drawn over it.
    let mut order: Vec<usize> = (0..series.len()).collect();
    order.sort_by_key(|&i| !series[i].reference);
    for i in order {
        let (s, style) = (&series[i], &styles[i]);
        let mut points: Vec<(u64, f64)> = s.points.iter().filter(drawn).copied().collect();
        if points.is_empty() {
            continue;
        }
        points.sort_by_key(|p| p.0);
        let at: Vec<(f64, f64)> = points
            .iter()
            .map(|&(bytes, gb_s)| (x_axis.x(bytes as f64), y(gb_s)))
            .collect();
        let path: Vec<String> = at.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = write!(
            svg,
            "<polyline points=\"{}\" {}/>",
            path.join(" "),
            stroke(style)
        );
        for (&(bytes, gb_s), &spot) in points.iter().zip(&at) {
            let tip = format!(
                "{}: {} GB/s at {}",
                s.name,
                crate::roofline::table::rate(gb_s),
                size_label(bytes)
            );
            marker(&mut svg, style, spot, Some(&tip));
        }
    }
    svg.push_str("</svg>");
    svg
}
