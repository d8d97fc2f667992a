//! A block's shared memory one barrier interval at a time: for the first
//! workgroup's (block's) copy, one row per interval between two barriers,
//! each element showing which invocations wrote it (`w`) and read it (`r`)
//! in that interval. The whole-run diagram ([`crate::draw::diagram`]) says
//! who touched what; this one says when, which is what a scan's rounds or a
//! tiled product's phases are about.
//!
//! Drawn from [`AccessMap`] alone, like the whole-run diagram, and in the
//! same ink: the theme's text colour, reads and writes as two tints. Written
//! small as that one is: each kind of thing drawn (cells of one tint, dashed
//! lines, centred labels) is one group that says its ink once.

use crate::backend_contract::access_map::{AccessMap, TouchedVariable};
use crate::draw::svg_text::Outlines;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Elements a row can show legibly.
const MOST_ELEMENTS: usize = 32;
/// Intervals worth a row each.
const MOST_ROWS: usize = 16;
/// The tints of a cell written and of one read, at 0.3 opacity.
const WROTE: &str = "#f59e0b";
const READ: &str = "#3b82f6";

/// What one element saw in one interval.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slot {
    pub writers: BTreeSet<u32>,
    pub readers: BTreeSet<u32>,
}

/// The first variable of block (workgroup) memory that a barrier divides
/// (two intervals or more, small enough to label), its name and its rows:
/// `rows[interval][element]`, for workgroup 0 of the first launch.
pub fn rows(map: &AccessMap) -> Option<(&TouchedVariable, Vec<Vec<Slot>>)> {
    map.variables.iter().find_map(|v| {
        let elements: usize = v.shape.iter().product();
        if !v.workgroup_memory || elements == 0 || elements > MOST_ELEMENTS {
            return None;
        }
        let touches = v
            .touches
            .iter()
            .filter(|t| t.workgroup == 0 && t.launch == 0 && !t.outside && t.element < elements);
        let last = touches.clone().map(|t| t.interval).max()? as usize;
        if last == 0 || last >= MOST_ROWS {
            return None;
        }
        let mut rows = vec![vec![Slot::default(); elements]; last + 1];
        for t in touches {
            let slot = &mut rows[t.interval as usize][t.element];
            if t.write {
                slot.writers.insert(t.invocation);
            } else {
                slot.readers.insert(t.invocation);
            }
        }
        Some((v, rows))
    })
}

/// "3" or "0–7" or "0,2,4…": invocation numbers in a few characters.
fn who(set: &BTreeSet<u32>) -> String {
    let all: Vec<u32> = set.iter().copied().collect();
    match all.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [first, .., last] if (*last - *first) as usize + 1 == all.len() => {
            format!("{first}–{last}")
        }
        [a, b] => format!("{a},{b}"),
        [a, b, ..] => format!("{a},{b}…"),
    }
}

/// The picture, or `None` where no block memory is divided by a barrier.
pub fn svg(map: &AccessMap) -> Option<String> {
    let (variable, rows) = rows(map)?;
    let (block, memory, who_word) = match map.cuda {
        true => ("block 0", "shared memory", "thread"),
        false => ("workgroup 0", "workgroup memory", "invocation"),
    };
    let elements = rows[0].len();
    // Wide enough for the longest label ("r 32–63") at 12 px, about 0.6 em
    // a character, so that no two labels touch.
    let longest = rows
        .iter()
        .flatten()
        .flat_map(|s| [who(&s.writers), who(&s.readers)])
        .map(|w| w.chars().count() + 2)
        .max()
        .unwrap_or(1);
    let cell = (longest * 8 + 10).max(32);
    // Room for "before barrier 1" at 12 px.
    let (left, top, row_h) = (112, 44, 40);
    let title = format!(
        "`{}` ({memory} of {block}), between one barrier and the next: w = wrote, r = read",
        variable.name
    );
    // About 0.56 em a character at 13 px: the title must fit too.
    let width = (left + cell * elements + 12).max(8 + title.chars().count() * 13 * 56 / 100);
    let height = top + rows.len() * row_h + 10;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg class=\"puzzle-access-phases\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" \
         font-size=\"12\" fill=\"currentColor\" role=\"img\" aria-label=\"`{}` of {block}, one row \
         per interval between barriers: which {who_word} wrote and read each element in it\">",
        variable.name
    );
    let _ = writeln!(s, "<text x=\"4\" y=\"16\" font-size=\"13\">{title}</text>");
    // What is drawn, gathered by kind so that each kind's ink is said once:
    // the barriers' dashed lines in one group, the cells in groups by their
    // tint, the labels centred in another. No two cells touch (a 4 px gap
    // between them, 6 px between rows), and no label or line reaches a cell
    // it is not in, so what is drawn over what is unchanged.
    let (mut row_labels, mut barriers, mut centred) = (String::new(), String::new(), String::new());
    // Each cell is one rect, its tint and its outline: written amber, read
    // blue, untouched none; a cell both written and read is blue over an
    // amber underlay (unstroked fills on whole pixels: one path draws them
    // as rects would). Rects, not one path of outlines: a browser draws a
    // stroked path's corners a shade differently from a rect's.
    let (mut wrote, mut read, mut untouched) = (String::new(), String::new(), String::new());
    let mut underlays = Outlines::default();
    for e in 0..elements {
        let x = left + e * cell + cell / 2;
        let _ = writeln!(centred, "<text x=\"{x}\" y=\"{}\">{e}</text>", top - 6);
    }
    for (k, row) in rows.iter().enumerate() {
        let y = top + k * row_h;
        let label = match k {
            0 => "before barrier 1".to_string(),
            k => format!("after barrier {k}"),
        };
        let _ = writeln!(
            row_labels,
            "<text x=\"4\" y=\"{}\">{label}</text>",
            y + row_h / 2 + 4
        );
        if k > 0 {
            let _ = writeln!(
                barriers,
                "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
                left + cell * elements
            );
        }
        for (e, slot) in row.iter().enumerate() {
            let x = left + e * cell;
            let (rx, ry, w, h) = (x + 2, y + 3, cell - 4, row_h - 6);
            let group = match (slot.writers.is_empty(), slot.readers.is_empty()) {
                (false, true) => &mut wrote,
                (true, false) => &mut read,
                (false, false) => {
                    underlays.add((rx, ry), (w, h));
                    &mut read
                }
                (true, true) => &mut untouched,
            };
            let _ = writeln!(
                group,
                "<rect x=\"{rx}\" y=\"{ry}\" width=\"{w}\" height=\"{h}\"/>"
            );
            let cx = x + cell / 2;
            if !slot.writers.is_empty() {
                let _ = writeln!(
                    centred,
                    "<text x=\"{cx}\" y=\"{}\">w {}</text>",
                    y + 17,
                    who(&slot.writers)
                );
            }
            if !slot.readers.is_empty() {
                let _ = writeln!(
                    centred,
                    "<text x=\"{cx}\" y=\"{}\">r {}</text>",
                    y + 31,
                    who(&slot.readers)
                );
            }
        }
    }
    s.push_str(&row_labels);
    let _ = writeln!(
        s,
        "<g stroke=\"currentColor\" stroke-dasharray=\"4 3\">\n{barriers}</g>"
    );
    s.push_str("<g stroke=\"currentColor\" stroke-opacity=\".35\" fill-opacity=\".3\">\n");
    if !underlays.d.is_empty() {
        let _ = writeln!(
            s,
            "<path d=\"{}\" fill=\"{WROTE}\" stroke=\"none\"/>",
            underlays.d
        );
    }
    for (cells, fill) in [(wrote, WROTE), (read, READ), (untouched, "none")] {
        if !cells.is_empty() {
            let _ = write!(s, "<g fill=\"{fill}\">\n{cells}</g>\n");
        }
    }
    s.push_str("</g>\n");
    let _ = writeln!(s, "<g text-anchor=\"middle\">\n{centred}</g>");
    s.push_str("</svg>\n");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend_contract::access_map::{Touch, TouchedVariable};
    use crate::draw::test_touch::touch;

    fn map(workgroup_memory: bool, touches: Vec<Touch>) -> AccessMap {
        AccessMap {
            grid: [1, 1, 1],
            block: [4, 1, 1],
            variables: vec![TouchedVariable {
                name: "tile".into(),
                workgroup_memory,
                shape: vec![4],
                starts_unwritten: true,
                touches,
            }],
            left_out: 0,
            cuda: false,
        }
    }

    /// (case, the map, the rows as "w…/r…" per element, or None)
    #[test]
    fn rows_table() {
        let scan = vec![
            touch(0, 0, 0, 0, true),
            touch(1, 1, 0, 0, true),
            touch(0, 1, 0, 1, false),
            touch(1, 1, 0, 1, false),
            touch(1, 1, 0, 2, true),
        ];
        let cases: [(&str, AccessMap, Option<Vec<&str>>); 3] = [
            (
                "three intervals",
                map(true, scan.clone()),
                Some(vec!["w0/|w1/|/|/", "/r1|/r1|/|/", "/|w1/|/|/"]),
            ),
            (
                "storage buffers have no barrier intervals here",
                map(false, scan),
                None,
            ),
            (
                "one interval: nothing to divide",
                map(true, vec![touch(0, 0, 0, 0, true)]),
                None,
            ),
        ];
        for (name, map, want) in cases {
            let got = rows(&map).map(|(_, rows)| {
                rows.iter()
                    .map(|row| {
                        row.iter()
                            .map(|s| {
                                let w: Vec<String> =
                                    s.writers.iter().map(|i| format!("w{i}")).collect();
                                let r: Vec<String> =
                                    s.readers.iter().map(|i| format!("r{i}")).collect();
                                format!("{}/{}", w.join(""), r.join(""))
                            })
                            .collect::<Vec<_>>()
                            .join("|")
                    })
                    .collect::<Vec<_>>()
            });
            let want = want.map(|w| w.into_iter().map(String::from).collect::<Vec<_>>());
            assert_eq!(got, want, "{name}");
        }
        let set = |v: &[u32]| v.iter().copied().collect::<BTreeSet<u32>>();
        assert_eq!(who(&set(&[3])), "3");
        assert_eq!(who(&set(&[0, 1, 2, 3])), "0–3");
        assert_eq!(who(&set(&[0, 2, 4])), "0,2…");
        assert_eq!(who(&set(&[1, 5])), "1,5");
    }

    #[test]
    fn each_cell_is_one_rect_in_its_tint_group() {
        // Element 0 written, element 1 written and read, in the first
        // interval; element 0 read in the second.
        let drawn = svg(&map(
            true,
            vec![
                touch(0, 0, 0, 0, true),
                touch(1, 1, 0, 0, true),
                touch(1, 2, 0, 0, false),
                touch(0, 3, 0, 1, false),
            ],
        ))
        .unwrap();
        // Two rows of four cells, and one amber underlay.
        assert_eq!(drawn.matches("<rect ").count(), 8, "{drawn}");
        assert!(
            drawn.contains("<path d=\"m148 47h30v34h-30z\" fill=\"#f59e0b\" stroke=\"none\"/>"),
            "{drawn}"
        );
        // (group, its cells' top left corners)
        let groups = [
            ("<g fill=\"#f59e0b\">", vec!["x=\"114\" y=\"47\""]),
            (
                "<g fill=\"#3b82f6\">",
                vec!["x=\"148\" y=\"47\"", "x=\"114\" y=\"87\""],
            ),
        ];
        for (group, corners) in groups {
            let inside = drawn
                .split(group)
                .nth(1)
                .and_then(|g| g.split("</g>").next());
            let inside = inside.unwrap_or_else(|| panic!("no {group}: {drawn}"));
            assert_eq!(
                inside.matches("<rect ").count(),
                corners.len(),
                "{group}: {drawn}"
            );
            for corner in corners {
                assert!(inside.contains(corner), "{group} {corner}: {drawn}");
            }
        }
        // Labels take the svg's ink and size and their group's anchor.
        assert!(
            drawn.contains("<text x=\"163\" y=\"75\">r 2</text>"),
            "{drawn}"
        );
        assert_eq!(drawn.matches("text-anchor").count(), 1, "{drawn}");
        assert_eq!(drawn.matches("currentColor").count(), 3, "{drawn}");
    }
}
