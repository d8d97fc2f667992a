//! The book's roofline charts as a reader sees them: every chart the pages
//! draw from the recorded results (each GPU's roofs and points, kept in
//! `chart_cases.txt`, taken from the built book), drawn at both sizes, with
//! each word's box worked out from the SVG itself. No two words meet, no
//! number lies on a roof line, every word is inside the picture, each
//! chart has an accessible name; and every series colour reads at 3:1 or
//! better on the light and the dark themes' backgrounds.

use crate::bus::chart::COLOURS as BUS_COLOURS;
use runner::perf::chart::{
    self, Layout, MemoryRoof, Point, Rect, Roofs, Segment, Series, inflate, overlaps,
    segment_meets, text_width,
};

/// One chart of the book: its title, and each GPU's roofs and points.
struct Case {
    title: String,
    series: Vec<Series>,
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in include_str!("chart_cases.txt").lines() {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let number = |t: &str| t.parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
        if word == "chart" {
            cases.push(Case {
                title: rest.to_string(),
                series: Vec::new(),
            });
            continue;
        }
        let case = cases.last_mut().expect("a chart first");
        if word == "gpu" {
            case.series.push(Series {
                name: rest.to_string(),
                roofs: Roofs {
                    memory: Vec::new(),
                    compute_gflop_s: 0.0,
                    label: rest.to_string(),
                },
                points: Vec::new(),
            });
            continue;
        }
        let series = case.series.last_mut().expect("a GPU first");
        let (a, b) = rest.split_once(' ').unwrap_or((rest, ""));
        match word {
            "memory" => series.roofs.memory.push(MemoryRoof {
                name: b.to_string(),
                gb_s: number(a),
            }),
            "compute" => series.roofs.compute_gflop_s = number(a),
            "point" => {
                let (x, y) = b.split_once(' ').unwrap_or((b, ""));
                let n = a.parse::<usize>().unwrap_or_else(|_| panic!("{line}"));
                series.points.push((
                    n,
                    Point {
                        intensity: number(x),
                        gflop_s: number(y),
                    },
                ));
            }
            _ => panic!("chart_cases.txt: {line}"),
        }
    }
    cases
}

/// An attribute of an element's opening tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = start + tag[start..].find('"')?;
    Some(tag[start..end].to_string())
}

/// Every word of the SVG with its box, as the browser would draw it: the
/// font's size and anchor, plotters' `dy` (0.76 em below the top, 0.5 ex for
/// the middle), and a turn of a quarter (the vertical axis's title).
fn texts(svg: &str) -> Vec<(String, Rect)> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let tag = &t[..t.find('>')?];
            let body = t[t.find('>')? + 1..t.find("</text>")?]
                .trim()
                .replace("&apos;", "'")
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&");
            let number = |name: &str| attribute(tag, name)?.parse::<f64>().ok();
            let (x, y) = (number("x")?, number("y")?);
            let size = number("font-size").unwrap_or(chart::FONT);
            let baseline = y + match attribute(tag, "dy").as_deref() {
                Some("0.76em") => 0.76 * size,
                Some("0.5ex") => 0.25 * size,
                Some("-0.5ex") => -0.25 * size,
                _ => 0.0,
            };
            let w = text_width(&body, size);
            let left = match attribute(tag, "text-anchor").as_deref() {
                Some("middle") => x - w / 2.0,
                Some("end") => x - w,
                _ => x,
            };
            let flat = (
                left,
                baseline - 0.95 * size,
                left + w,
                baseline + 0.25 * size,
            );
            let turned = |sign: f64| {
                let corner = |px: f64, py: f64| (x - sign * (py - y), y + sign * (px - x));
                let (a, b) = (corner(flat.0, flat.1), corner(flat.2, flat.3));
                (a.0.min(b.0), a.1.min(b.1), a.0.max(b.0), a.1.max(b.1))
            };
            let rect = match attribute(tag, "transform") {
                Some(t) if t.starts_with("rotate(270") || t.starts_with("rotate(-90") => {
                    turned(-1.0)
                }
                Some(t) if t.starts_with("rotate(90") => turned(1.0),
                _ => flat,
            };
            Some((body, rect))
        })
        .collect()
}

/// The roof lines: plotters' polylines in a series colour.
fn roof_lines(svg: &str) -> Vec<Segment> {
    let colours: Vec<String> = chart::series_colours()
        .iter()
        .map(|c| c.to_uppercase())
        .collect();
    svg.split("<polyline")
        .skip(1)
        .filter_map(|p| {
            let tag = &p[..p.find('>')?];
            let stroke = attribute(tag, "stroke")?.to_uppercase();
            if !colours.contains(&stroke) {
                return None;
            }
            let points: Vec<(f64, f64)> = attribute(tag, "points")?
                .split_whitespace()
                .filter_map(|xy| {
                    let (x, y) = xy.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect();
            Some(points.windows(2).map(|w| (w[0], w[1])).collect::<Vec<_>>())
        })
        .flatten()
        .collect()
}

/// What is wrong with one drawn chart, in words.
fn faults(svg: &str) -> Vec<String> {
    let mut faults = Vec::new();
    let open = &svg[svg.find("<svg").unwrap_or(0)..];
    let open = &open[..open.find('>').unwrap_or(0)];
    if attribute(open, "role").as_deref() != Some("img")
        || attribute(open, "aria-label").is_none_or(|l| l.trim().is_empty())
    {
        faults.push("no accessible name (role=\"img\" and an aria-label)".to_string());
    }
    if !svg.contains("<title>") {
        faults.push("no <title>".to_string());
    }
    let size = |name: &str| attribute(open, name).and_then(|v| v.parse::<f64>().ok());
    let (width, height) = (size("width").unwrap_or(0.0), size("height").unwrap_or(0.0));
    let words = texts(svg);
    let roofs = roof_lines(svg);
    for (i, (a, ra)) in words.iter().enumerate() {
        if ra.0 < 0.0 || ra.1 < 0.0 || ra.2 > width || ra.3 > height {
            faults.push(format!("\"{a}\" leaves the picture: {ra:?}"));
        }
        // A line 3 wide: half of it on each side of its middle.
        if roofs.iter().any(|&s| segment_meets(s, inflate(*ra, 1.5))) {
            faults.push(format!("\"{a}\" lies on a roof line"));
        }
        for (b, rb) in &words[i + 1..] {
            // Boxes that only touch leave no gap: "7" and "13" read as "713".
            if overlaps(inflate(*ra, 0.5), inflate(*rb, 0.5)) {
                faults.push(format!("\"{a}\" and \"{b}\" overlap"));
            }
        }
    }
    faults
}

/// Every chart of the book, at both sizes, is free of faults: each as the
/// page draws it, every GPU in one, and each GPU's alone (what a page
/// would draw were the others' roofs not measured).
#[test]
fn every_chart_of_the_book_reads() {
    let cases = cases();
    assert!(cases.len() > 50, "the book has over 50 charts");
    let mut found = Vec::new();
    let mut drawn = 0;
    for case in &cases {
        let alone = case.series.iter().map(std::slice::from_ref);
        for series in std::iter::once(&case.series[..]).chain(alone) {
            for layout in Layout::BOTH {
                drawn += 1;
                let svg = chart::roofline_chart(&case.title, series, layout)
                    .unwrap_or_else(|e| panic!("{}: {e}", case.title));
                // To look at one while developing: GPU_PUZZLES_CHART_OUT=/tmp/chart.svg
                if let Some(path) = std::env::var_os("GPU_PUZZLES_CHART_OUT") {
                    std::fs::write(path, &svg).unwrap();
                }
                let gpus: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
                let name = format!("{} on {} ({layout:?})", case.title, gpus.join(", "));
                // Every kernel's number is drawn (one kernel's points on two
                // GPUs at one spot share it).
                let numbers: std::collections::BTreeSet<usize> = texts(&svg)
                    .iter()
                    .filter(|(t, _)| t.split(", ").all(|n| n.parse::<usize>().is_ok()))
                    .flat_map(|(t, _)| {
                        t.split(", ")
                            .map(|n| n.parse().unwrap())
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let wanted: std::collections::BTreeSet<usize> = series
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.0))
                    .collect();
                if !wanted.is_subset(&numbers) {
                    found.push(format!("{name}: numbers {numbers:?} for points {wanted:?}"));
                }
                for fault in faults(&svg) {
                    found.push(format!("{name}: {fault}"));
                }
            }
        }
    }
    assert!(drawn > 300, "only {drawn} drawings");
    assert!(
        found.is_empty(),
        "{} faults, the first:\n{}",
        found.len(),
        found
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The check's control: an excerpt of Puzzle 35's first chart as the book
/// drew it before its numbers were placed clear of each other and of the
/// roofs (issue 60), where "7" and "13" touch and read as "713", "9, 11"
/// lies on the compute roof, and nothing names the chart.
#[test]
fn faults_finds_the_old_charts_collisions() {
    let old = r##"<svg width="760" height="460" viewbox="0 0 760 460" xmlns="http://www.w3.org/2000/svg">
<polyline fill="none" opacity="1" stroke="#D64F4F" stroke-width="3" points="84,368 507,94 " />
<polyline fill="none" opacity="1" stroke="#3F86D6" stroke-width="3" points="507,94 747,94 " />
<text x="641" y="109" dy="0.76em" text-anchor="start" font-family="sans-serif" font-size="11.290322580645162" opacity="1" fill="currentColor"> 7 </text>
<text x="585" y="95" dy="0.76em" text-anchor="start" font-family="sans-serif" font-size="11.290322580645162" opacity="1" fill="currentColor"> 9, 11 </text>
<text x="649" y="112" dy="0.76em" text-anchor="start" font-family="sans-serif" font-size="11.290322580645162" opacity="1" fill="currentColor"> 13 </text>
</svg>"##;
    let found = faults(old);
    for fault in [
        "no accessible name (role=\"img\" and an aria-label)",
        "no <title>",
        "\"7\" and \"13\" overlap",
        "\"9, 11\" lies on a roof line",
    ] {
        assert!(
            found.iter().any(|f| f == fault),
            "missed {fault}: {found:?}"
        );
    }
}

/// WCAG 2's relative luminance of "#rrggbb".
fn luminance(hex: &str) -> f64 {
    let channel = |i: usize| {
        let v = f64::from(u8::from_str_radix(&hex[1 + 2 * i..3 + 2 * i], 16).unwrap()) / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Every series colour, of the roofline and the bus charts, at 3:1 or
/// better on the backgrounds of mdBook's light theme and its dark ones.
#[test]
fn series_colours_read_on_light_and_dark() {
    // light; navy (the dark default), coal and ayu.
    let backgrounds = ["#ffffff", "#161923", "#141617", "#0f1419"];
    let colours: Vec<String> = chart::series_colours()
        .into_iter()
        .chain(BUS_COLOURS.iter().map(|c| c.to_string()))
        .collect();
    let faint: Vec<String> = colours
        .iter()
        .flat_map(|c| backgrounds.iter().map(move |b| (c, b)))
        .filter(|(c, b)| contrast(c, b) < 3.0)
        .map(|(c, b)| format!("{c} on {b}: {:.2}:1", contrast(c, b)))
        .collect();
    assert!(faint.is_empty(), "colours under 3:1: {faint:?}");
}
