//! A ```bus block's chart: bus bandwidth against message size, one line
//! per kernel and NCCL's dashed, as inline SVG written by hand.
//!
//! The house style is the roofline chart's (`runner::perf::chart`): drawn
//! twice, at the two sizes of its `Layout`, for a laptop's column and for a
//! phone's, so that the page shows words of 13 px on either; sans-serif text, the
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
//! are in the table above the chart and in its tooltip (`<title>`); each
//! line's last value, at the largest message, is written at its end, right
//! of the plot, where the values of lines that end close together are
//! spread apart so that none covers another ([`end_values`]).

use runner::perf::chart::Layout;
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

/// Tick labels, legend and axis titles (the page asks for 12 px at least).
pub const FONT: f64 = 13.0;
const TITLE_FONT: f64 = 16.0;
/// The width of one character at [`FONT`] px, on the wide side of common
/// sans-serif faces (digits and lower case are about 7 px there).
pub const CHAR_W: f64 = 8.0;
/// The picture and its plot area for one [`Layout`] (the roofline's two
/// sizes): room on the left for the bandwidth labels and the axis title,
/// below for the size labels and the axis title.
#[derive(Debug, Clone, Copy)]
struct Frame {
    width: f64,
    height: f64,
    left: f64,
    right: f64,
    bottom: f64,
}

impl Frame {
    fn of(layout: Layout) -> Frame {
        let (width, height) = layout.size();
        let (width, height) = (f64::from(width), f64::from(height));
        let left = match layout {
            Layout::Wide => 84.0,
            Layout::Narrow => 72.0,
        };
        Frame {
            width,
            height,
            left,
            // The last size's tick label reaches into the values' room,
            // under the lowest value.
            right: width - 12.0 - VALUE_ROOM,
            bottom: height - 62.0,
        }
    }
}
/// Room right of the plot for each line's last value, written at its end
/// ("512.3": buses run at hundreds of GB/s; four characters and a point,
/// which is narrow, and a gap).
const VALUE_ROOM: f64 = 4.5 * CHAR_W + 8.0;
/// Least room between two x tick labels, in pixels.
const GAP: f64 = 12.0;
/// The roofline chart's palette: mid-tones that read at 3:1 or better on
/// the light and the dark themes' backgrounds.
pub const COLOURS: [&str; 5] = ["#c17400", "#3f86d6", "#d64f4f", "#2a9d8f", "#9b59b6"];

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
    frame: Frame,
}

impl XAxis {
    fn new(bytes: impl Iterator<Item = u64>, frame: Frame) -> XAxis {
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
            frame,
        }
    }

    fn x(&self, bytes: f64) -> f64 {
        let f = self.frame;
        f.left + (bytes.log2() - self.lo) / (self.hi - self.lo) * (f.right - f.left)
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
        let per_power = (self.frame.right - self.frame.left) / (self.hi - self.lo);
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
                *x - half >= 0.0 && *x + half <= self.frame.width
            })
            .collect()
    }
}

/// The legend above the plot, entry after entry, a new row where the next
/// would pass the right edge. Returns where the plot may begin.
fn legend(svg: &mut String, series: &[Series], styles: &[Style], top: f64, frame: Frame) -> f64 {
    const SAMPLE: f64 = 28.0;
    const ROW: f64 = 20.0;
    let (left, right) = (frame.left.min(24.0), frame.right);
    let (mut x, mut y) = (left, top);
    for (s, style) in series.iter().zip(styles) {
        let width = SAMPLE + 8.0 + text_width(&s.name);
        if x > left && x + width > right {
            x = left;
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

/// The chart as an SVG element that scales to its container, drawn for
/// `layout` (the page shows the one that fits its column): a `<title>` and
/// an accessible name say what it shows to those who cannot see it.
pub fn bus_svg(title: &str, series: &[Series], layout: Layout) -> String {
    let frame = Frame::of(layout);
    let Frame {
        width,
        height,
        left,
        right,
        bottom,
    } = frame;
    let styles = styles(series);
    let drawn = |&&(bytes, gb_s): &&(u64, f64)| bytes > 0 && gb_s.is_finite() && gb_s >= 0.0;
    let x_axis = XAxis::new(
        series
            .iter()
            .flat_map(|s| s.points.iter().filter(drawn).map(|p| p.0)),
        frame,
    );
    let highest = series
        .iter()
        .flat_map(|s| s.points.iter().filter(drawn).map(|p| p.1))
        .fold(0.0, f64::max);
    let step = nice_step(if highest > 0.0 { highest * 1.05 } else { 1.0 });
    let y_max = (highest * 1.05 / step).ceil().max(1.0) * step;

    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    let name = format!(
        "Line chart, {title}: bus bandwidth in GB/s against the message size per GPU, one line \
         each for {}, its value at the largest message written at its end; the table above \
         gives each point's figures",
        names.join(", ")
    );
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{}\" viewBox=\"0 0 {width} {height}\" \
         width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"{}\" \
         font-family=\"sans-serif\" font-size=\"{FONT}\"><title>{}: bus bandwidth against message size</title>",
        layout.class(),
        escape(&name),
        escape(title)
    );
    // A title too long for the picture takes two lines, the GPU on the second.
    let lines = runner::perf::chart::title_lines(title, TITLE_FONT, width - 40.0);
    for (i, line) in lines.iter().enumerate() {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{TITLE_FONT}\" \
             font-weight=\"bold\" fill=\"currentColor\">{}</text>",
            width / 2.0,
            24 + 20 * i,
            escape(line)
        );
    }
    let top = legend(
        &mut svg,
        series,
        &styles,
        52.0 + 20.0 * (lines.len() - 1) as f64,
        frame,
    );
    let y = |v: f64| bottom - v / y_max * (bottom - top);

    // The grid and the bandwidth labels, from 0.
    let ticks = (y_max / step).round() as usize;
    for i in 0..=ticks {
        let v = step * i as f64;
        let at = y(v);
        let _ = write!(
            svg,
            "<line x1=\"{left}\" y1=\"{at:.1}\" x2=\"{right}\" y2=\"{at:.1}\" \
             stroke=\"currentColor\" stroke-opacity=\"0.12\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"currentColor\">{}</text>",
            left - 8.0,
            at + FONT * 0.35,
            tick_number(v)
        );
    }
    for (at, label) in x_axis.ticks() {
        let _ = write!(
            svg,
            "<line x1=\"{at:.1}\" y1=\"{top:.1}\" x2=\"{at:.1}\" y2=\"{bottom}\" \
             stroke=\"currentColor\" stroke-opacity=\"0.12\"/>\
             <line x1=\"{at:.1}\" y1=\"{bottom}\" x2=\"{at:.1}\" y2=\"{:.1}\" stroke=\"currentColor\"/>\
             <text x=\"{at:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"currentColor\">{label}</text>",
            bottom + 5.0,
            // Clear of the bandwidth axis's "0" beside the corner.
            bottom + 22.0
        );
    }
    // The axes and what they measure: a phone's in fewer words.
    let x_title = match layout {
        Layout::Wide => "message size per GPU (log scale)",
        Layout::Narrow => "message per GPU (log scale)",
    };
    let _ = write!(
        svg,
        "<line x1=\"{left}\" y1=\"{top:.1}\" x2=\"{left}\" y2=\"{bottom}\" stroke=\"currentColor\"/>\
         <line x1=\"{left}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\" stroke=\"currentColor\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"currentColor\">{x_title}</text>\
         <text x=\"16\" y=\"{middle:.1}\" transform=\"rotate(-90 16 {middle:.1})\" text-anchor=\"middle\" \
         fill=\"currentColor\">bus bandwidth (GB/s)</text>",
        (left + right) / 2.0,
        height - 14.0,
        middle = (top + bottom) / 2.0
    );
    // NCCL's line first, so the kernels' lines are drawn over it.
    let mut ends = Vec::new();
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
        if let (Some(&(_, gb_s)), Some(&end)) = (points.last(), at.last()) {
            ends.push((end, crate::roofline::table::rate(gb_s), style.colour));
        }
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
    // Each value in the text colour (a series colour is too faint for
    // words), tied to its line by a leader in the line's colour.
    for ((x, from), y, value, colour) in end_values(ends, top, bottom) {
        let _ = write!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{from:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" \
             stroke-width=\"1.5\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"start\" \
             font-weight=\"bold\" fill=\"currentColor\">{value}</text>",
            right + 6.0,
            right + 8.0,
            y + FONT * 0.35
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A line's end (x, y) with its value's words and its colour.
type End<'a> = ((f64, f64), String, &'a str);

/// Each line's last value beside the height where the line ends, moved
/// apart where two would touch: sorted from the top, each at least a line
/// of text below the one above, then, if the lowest passed the axis, all
/// moved up together. Each end with the height of its words' middle.
fn end_values<'a>(
    mut ends: Vec<End<'a>>,
    top: f64,
    bottom: f64,
) -> Vec<((f64, f64), f64, String, &'a str)> {
    let pitch = FONT + 3.0;
    ends.sort_by(|a, b| a.0.1.total_cmp(&b.0.1));
    let mut at: Vec<f64> = Vec::with_capacity(ends.len());
    let mut floor = f64::NEG_INFINITY;
    for end in &ends {
        let y = end.0.1.max(floor).max(top);
        at.push(y);
        floor = y + pitch;
    }
    let mut ceiling = bottom - FONT * 0.35;
    for y in at.iter_mut().rev() {
        *y = y.min(ceiling);
        ceiling = *y - pitch;
    }
    ends.into_iter()
        .zip(at)
        .map(|((end, words, colour), y)| (end, y, words, colour))
        .collect()
}
