//! Table tests of the bus chart's SVG alone: its lines, its axes, each
//! line's last value at its end, and labels that never overlap.

use super::chart::{FONT, Series, bus_svg, text_width};
use runner::perf::chart::Layout;

/// The `<text>` elements of an SVG that are not turned: x, y, anchor, words.
fn texts(svg: &str) -> Vec<(f64, f64, String, String)> {
    svg.split("<text ")
        .skip(1)
        .filter_map(|t| {
            let head = format!(" {}", &t[..t.find('>')?]);
            let attr = |name: &str| -> Option<String> {
                let start = head.find(&format!(" {name}=\""))? + name.len() + 3;
                let end = start + head[start..].find('"')?;
                Some(head[start..end].to_string())
            };
            if attr("transform").is_some() {
                return None;
            }
            let body = &t[t.find('>')? + 1..t.find("</text>")?];
            Some((
                attr("x")?.parse().ok()?,
                attr("y")?.parse().ok()?,
                attr("text-anchor").unwrap_or_default(),
                body.to_string(),
            ))
        })
        .collect()
}

/// The box a label covers, by the chart's own width estimate.
fn rect((x, y, anchor, text): &(f64, f64, String, String)) -> (f64, f64, f64, f64) {
    let w = text_width(text);
    let left = match anchor.as_str() {
        "middle" => x - w / 2.0,
        "end" => x - w,
        _ => *x,
    };
    (left, y - FONT, left + w, y + 3.0)
}

fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

fn series(name: &str, points: &[(u64, f64)], reference: bool) -> Series {
    Series {
        name: name.into(),
        points: points.to_vec(),
        reference,
    }
}

/// One polyline per series with points; labels inside the picture and
/// clear of each other at every span of sizes; ink that follows the theme.
#[test]
fn chart_lines_and_labels_table() {
    let sweep = |from: u32, to: u32, gb: f64| -> Vec<(u64, f64)> {
        (from..=to)
            .map(|k| (1u64 << k, gb * (k - from + 1) as f64))
            .collect()
    };
    // (case, series, polylines, x tick labels that must be there)
    let cases: [(&str, Vec<Series>, usize, &[&str]); 4] = [
        (
            "two kernels and NCCL, 64 KiB to 1 GiB",
            vec![
                series("P38 One-Shot All-Reduce", &sweep(16, 30, 10.0), false),
                series("P39 Ring All-Reduce", &sweep(16, 30, 12.0), false),
                series("NCCL 2.28.9", &sweep(16, 30, 14.0), true),
            ],
            3,
            &["64 KiB", "1 MiB", "1 GiB"],
        ),
        (
            "one size",
            vec![series("P38", &[(1 << 20, 30.0)], false)],
            1,
            &["1 MiB"],
        ),
        (
            "4 bytes to 1 TiB, crowded",
            vec![
                series("a", &sweep(2, 40, 1.0), false),
                series("NCCL", &sweep(2, 40, 2.0), true),
            ],
            2,
            &[],
        ),
        (
            "many kernels: the legend wraps",
            (0..7)
                .map(|i| {
                    series(
                        &format!("P{i} a kernel with a long name"),
                        &sweep(10, 20, i as f64 + 1.0),
                        i == 6,
                    )
                })
                .collect(),
            7,
            &["1 MiB"],
        ),
    ];
    for (name, series, polylines, ticks) in cases {
        for layout in Layout::BOTH {
            let (width, height) = layout.size();
            let (width, height) = (f64::from(width), f64::from(height));
            let svg = bus_svg("All-reduce — 2 × NVIDIA H100 80GB HBM3", &series, layout);
            // To look at it while developing: GPU_PUZZLES_BUS_CHART_OUT=/tmp/bus.svg
            if let Some(path) = std::env::var_os("GPU_PUZZLES_BUS_CHART_OUT") {
                std::fs::write(path, &svg).unwrap();
            }
            assert_eq!(svg.matches("<polyline").count(), polylines, "{name}");
            assert_eq!(
                svg.matches("stroke-dasharray").count(),
                2 * series.iter().filter(|s| s.reference).count(),
                "{name}: NCCL's line and its legend sample are dashed"
            );
            assert!(
                !svg.contains("#000"),
                "{name}: black would vanish in the dark theme"
            );
            assert!(
                svg.contains(&format!("viewBox=\"0 0 {width} {height}\"")),
                "{name}"
            );
            let labels = texts(&svg);
            assert!(labels.iter().all(|l| !l.3.is_empty()), "{name}");
            // Each line's last value is written at its end, right of the plot.
            for s in &series {
                let last = s.points.iter().max_by_key(|p| p.0).expect("points");
                let value = crate::roofline::table::rate(last.1);
                assert!(
                    labels
                        .iter()
                        .any(|l| l.2 == "start" && l.3 == value && l.0 > width / 2.0),
                    "{name}: {}'s last value {value} is not written at its end",
                    s.name
                );
            }
            let ink = svg
                .split("<text ")
                .skip(1)
                .all(|t| t[..t.find('>').unwrap()].contains("fill=\"currentColor\""));
            assert!(ink, "{name}: every word in the text colour");
            let x_ticks: Vec<&str> = labels
                .iter()
                .filter(|l| l.2 == "middle" && l.1 > height - 50.0 && l.1 < height - 30.0)
                .map(|l| l.3.as_str())
                .collect();
            // A phone's chart thins its ticks further; a laptop's has these.
            for tick in ticks.iter().filter(|_| layout == Layout::Wide) {
                assert!(
                    x_ticks.contains(tick),
                    "{name}: no tick {tick}: {x_ticks:?}"
                );
            }
            assert!(!x_ticks.is_empty(), "{name}");
            let y_ticks: Vec<&str> = labels
                .iter()
                .filter(|l| l.2 == "end")
                .map(|l| l.3.as_str())
                .collect();
            assert_eq!(
                y_ticks.first(),
                Some(&"0"),
                "{name}: the bandwidth axis starts at 0"
            );
            for (i, a) in labels.iter().enumerate() {
                let ra = rect(a);
                assert!(
                    ra.0 >= 0.0 && ra.2 <= width && ra.1 >= 0.0 && ra.3 <= height,
                    "{name}: {a:?} leaves the picture"
                );
                for b in &labels[i + 1..] {
                    assert!(!overlap(ra, rect(b)), "{name}: {a:?} overlaps {b:?}");
                }
            }
        }
    }
}
