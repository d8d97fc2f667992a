//! The access diagram of a traced run: for every buffer and workgroup
//! variable, which invocation read and wrote which element, drawn as SVG.
//!
//! What is drawn comes from [`AccessMap`] alone, so a terminal, a page and
//! a browser draw the same picture. Facts first ([`Cell`], worked out per
//! element: who read, who wrote, races, reads of nothing written, writes
//! past the end), then the picture, so the facts can be tested as data.
//!
//! - Small variables (up to [`LABELLED`] elements) show in each cell the
//!   invocations that wrote it (`w`) and read it (`r`).
//! - Larger ones are a heat map: the darker the cell, the more accesses.
//! - Marked in either: a race (red border), a read of an element nothing
//!   had written (orange border), a write into the guard band past the end
//!   (a red cell after the last).
//!
//! Colours are the theme's text colour (`currentColor`) at several
//! opacities, and one red and one orange that read on light and dark pages.
//!
//! The book inlines a diagram in the page of every solution (and again in
//! the whole-book print page), thousands of cells in all, so the SVG says
//! each thing once: what elements share (ink, font size, a cell's tint) is
//! set on the `<svg>` or a `<g>` around them, a heat map's cells are one
//! path per shade ([`Outlines`]), and numbers carry no needless digits.

use super::svg_text::{Outlines, hundredths, num};
use crate::backend_contract::access_map::{AccessMap, Touch, TouchedVariable};
use crate::judge::format::escape_html;
use crate::quantity::plural;
use crate::spec::raw::AccessBound;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Variables up to this many elements get labelled cells; larger ones a heat map.
pub const LABELLED: usize = 64;

/// Characters of invocation numbers one cell line holds before "…".
const LABEL_CHARS: usize = 7;

/// What happened to one element over the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cell {
    /// Invocations that read it, in increasing order, each once.
    pub readers: Vec<u32>,
    /// Invocations that wrote it, in increasing order, each once.
    pub writers: Vec<u32>,
    pub reads: u32,
    pub writes: u32,
    /// Two invocations touched it with no order between them, one writing.
    pub race: bool,
    /// Read before anything wrote it (of memory that starts unwritten).
    pub uninitialized: bool,
}

/// One variable's elements, and what went past its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub name: String,
    pub workgroup_memory: bool,
    pub shape: Vec<usize>,
    pub cells: Vec<Cell>,
    /// Elements of the guard band written or read, with who did it.
    pub past_end: BTreeMap<usize, BTreeSet<u32>>,
}

impl Picture {
    /// The facts of `variable`'s touches.
    pub fn of(variable: &TouchedVariable) -> Picture {
        let mut cells = vec![Cell::default(); variable.len()];
        let mut past_end: BTreeMap<usize, BTreeSet<u32>> = BTreeMap::new();
        // Workgroup memory has a copy per workgroup: each is its own place.
        let copy = |t: &Touch| {
            if variable.workgroup_memory {
                t.workgroup
            } else {
                0
            }
        };
        // Every touch inside the variable, by place; a stable sort keeps each
        // place's touches in the order they happened.
        let mut by_place: Vec<((u32, usize), &Touch)> = Vec::with_capacity(variable.touches.len());
        for t in &variable.touches {
            if t.outside || t.element >= cells.len() {
                past_end.entry(t.element).or_default().insert(t.invocation);
                continue;
            }
            let cell = &mut cells[t.element];
            if t.write {
                cell.writes += 1;
                add_invocation(&mut cell.writers, t.invocation);
            } else {
                cell.reads += 1;
                add_invocation(&mut cell.readers, t.invocation);
            }
            by_place.push(((copy(t), t.element), t));
        }
        for cell in &mut cells {
            for who in [&mut cell.readers, &mut cell.writers] {
                who.sort_unstable();
                who.dedup();
            }
        }
        by_place.sort_by_key(|(place, _)| *place);
        let mut touches: Vec<&Touch> = Vec::new();
        for group in by_place.chunk_by(|a, b| a.0 == b.0) {
            let element = group[0].0.1;
            touches.clear();
            touches.extend(group.iter().map(|(_, t)| *t));
            let cell = &mut cells[element];
            if variable.starts_unwritten && touches.first().is_some_and(|t| !t.write) {
                cell.uninitialized = true;
            }
            // A place is marked if any copy of it (workgroup memory) raced.
            cell.race |= races(&touches, variable.workgroup_memory);
        }
        Picture {
            name: variable.name.clone(),
            workgroup_memory: variable.workgroup_memory,
            shape: variable.shape.clone(),
            cells,
            past_end,
        }
    }
}

/// Notes `invocation` among a cell's readers or writers; repeats of the
/// latest are skipped here, the rest by a sort and dedup once the run is read
/// (a set per cell cost an allocation per cell).
fn add_invocation(who: &mut Vec<u32>, invocation: u32) {
    if who.last() != Some(&invocation) {
        who.push(invocation);
    }
}

/// Whether two of one place's touches conflict: different invocations of
/// one launch, at least one writing, neither atomic, and not ordered by a
/// barrier (a barrier orders its own workgroup only).
fn races(touches: &[&Touch], workgroup_memory: bool) -> bool {
    let writes: Vec<&&Touch> = touches.iter().filter(|t| t.write && !t.atomic).collect();
    writes.iter().any(|w| {
        touches.iter().any(|o| {
            o.invocation != w.invocation
                && o.launch == w.launch
                && !o.atomic
                && (o.interval == w.interval || (!workgroup_memory && o.workgroup != w.workgroup))
        })
    })
}

/// Global-memory accesses per invocation of each launch, counted as the
/// checker's access counts are (a `vec4` load is one): `(reads, writes)` by
/// `(launch, invocation)`.
pub fn per_invocation(map: &AccessMap) -> BTreeMap<(u32, u32), (u32, u32)> {
    let mut counts: BTreeMap<(u32, u32), (u32, u32)> = BTreeMap::new();
    for v in map.variables.iter().filter(|v| !v.workgroup_memory) {
        for t in v.touches.iter().filter(|t| t.first) {
            let c = counts.entry((t.launch, t.invocation)).or_default();
            if t.write {
                c.1 += 1;
            } else {
                c.0 += 1;
            }
        }
    }
    counts
}

const CELL_W: usize = 76;
const CELL_H: usize = 44;
const HEAT: usize = 14;
/// A heat map draws at most this many cells, in this many shades.
const HEAT_CELLS: usize = 256;
const SHADES: usize = 6;
const PAD: usize = 12;
const TITLE: usize = 22;
/// The marks' colours, as macros so that whole attributes are literals.
macro_rules! red {
    () => {
        "#d33"
    };
}
macro_rules! orange {
    () => {
        "#e90"
    };
}
const RED: &str = red!();

/// The whole diagram: one panel per variable, then the per-invocation
/// counts of global memory, against the puzzle's `bound` where it sets one.
pub fn svg(map: &AccessMap, bound: Option<&AccessBound>) -> String {
    let drawn = svg_in_wgsl_words(map, bound);
    if map.cuda {
        in_cuda_words(drawn)
    } else {
        drawn
    }
}

/// WGSL's words in a drawn diagram, and CUDA's for them: the picture is
/// the same, only what its labels call things differs.
const CUDA_WORDS: [(&str, &str); 9] = [
    ("(invocation numbers)", "(thread numbers)"),
    (
        "workgroup memory, every workgroup's copy",
        "shared memory, every block's copy",
    ),
    (" · storage buffer", " · global memory"),
    ("Which invocation read", "Which thread read"),
    (">invocation<", ">thread<"),
    (" (invocation ", " (thread "),
    (" invocation ", " thread "),
    (" invocation", " thread"),
    (" invocations", " threads"),
];

fn in_cuda_words(mut drawn: String) -> String {
    for (wgsl, cuda) in CUDA_WORDS {
        drawn = drawn.replace(wgsl, cuda);
    }
    drawn
}

fn svg_in_wgsl_words(map: &AccessMap, bound: Option<&AccessBound>) -> String {
    let pictures: Vec<Picture> = map.variables.iter().map(Picture::of).collect();
    // About 80 bytes an element drawn: sized once, not regrown.
    let cells: usize = pictures.iter().map(|p| p.cells.len().min(HEAT_CELLS)).sum();
    let mut body = String::with_capacity(1024 + 100 * cells);
    let mut y = PAD;
    let mut width = 480;
    for picture in &pictures {
        let (w, h) = panel(&mut body, picture, y);
        width = width.max(w);
        y += h + PAD;
    }
    let counts = per_invocation(map);
    if !counts.is_empty() {
        // The first invocation with the most (max_by_key keeps the last).
        let most_reads = counts.iter().rev().max_by_key(|(_, c)| c.0);
        let most_writes = counts.iter().rev().max_by_key(|(_, c)| c.1);
        if let (Some((&r, rc)), Some((&w, wc))) = (most_reads, most_writes) {
            body.push_str("<text x=\"");
            num(&mut body, PAD);
            body.push_str("\" y=\"");
            num(&mut body, y + 14);
            body.push_str("\" font-size=\"13\">");
            let line = body.len();
            // "Each of the 8 invocations made at most 2 reads and 1 write of
            // global memory (invocation 0 the most of both)."
            body.push_str("Each of the ");
            push_plural(&mut body, counts.len(), "invocation");
            body.push_str(" made at most ");
            push_plural(&mut body, rc.0 as usize, "read");
            body.push_str(" and ");
            push_plural(&mut body, wc.1 as usize, "write");
            body.push_str(" of global memory (invocation ");
            write_who(&mut body, r);
            if r == w {
                body.push_str(" the most of both)");
            } else {
                body.push_str(" the most reads, invocation ");
                write_who(&mut body, w);
                body.push_str(" the most writes)");
            }
            let chars = body[line..].chars().count();
            body.push_str("</text>\n");
            width = width.max(2 * PAD + chars * 13 * 56 / 100);
            y += 24;
        }
        let (w, h) = counts_table(&mut body, &counts, bound, y);
        width = width.max(w);
        y += h;
    }
    if map.left_out > 0 {
        let _ = writeln!(
            body,
            "<text x=\"{PAD}\" y=\"{}\" font-size=\"13\">{} more accesses not traced</text>",
            y + 14,
            map.left_out
        );
        y += 24;
    }
    // The ink and the size most labels share are set here once, for every
    // element to inherit; only a title, a caption or a red count sets its own.
    let mut svg = String::with_capacity(body.len() + 300);
    let _ = writeln!(
        svg,
        "<svg class=\"puzzle-access-diagram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" \
         height=\"{y}\" viewBox=\"0 0 {width} {y}\" font-family=\"sans-serif\" font-size=\"12\" \
         fill=\"currentColor\" role=\"img\" \
         aria-label=\"Which invocation read and wrote which element\">"
    );
    svg.push_str(&body);
    svg.push_str("</svg>\n");
    svg
}

/// An invocation by its number, with its launch's where there are several
/// ("3", "2:3"), onto `out`.
fn write_who(out: &mut String, (launch, invocation): (u32, u32)) {
    if launch != 0 {
        num(out, launch as usize + 1);
        out.push(':');
    }
    num(out, invocation as usize);
}

/// "1 read", "12 reads", "1,024 reads", onto `out` (as [`plural`], without a string of its own).
fn push_plural(out: &mut String, n: usize, noun: &str) {
    if n < 1000 {
        num(out, n);
    } else {
        out.push_str(&crate::quantity::thousands(n as u64));
    }
    out.push(' ');
    out.push_str(noun);
    if n != 1 {
        out.push('s');
    }
}

/// Invocations up to which the counts are a table, one column each.
const TABLED: usize = 16;

/// Reads and writes of global memory by each invocation, a column each
/// (up to [`TABLED`] invocations), with counts over `bound` in red; and the
/// bound in words, at height `top`, onto `svg`; its width and height.
fn counts_table(
    svg: &mut String,
    counts: &BTreeMap<(u32, u32), (u32, u32)>,
    bound: Option<&AccessBound>,
    top: usize,
) -> (usize, usize) {
    let mut y = top;
    let mut width = 0;
    if counts.len() <= TABLED {
        const LABEL: usize = 90;
        const COLUMN: usize = 34;
        let over = |n: u32, most: Option<u32>| most.is_some_and(|m| n > m);
        for label in ["invocation", "reads", "writes"] {
            let _ = writeln!(svg, "<text x=\"{PAD}\" y=\"{}\">{label}</text>", y + 13);
            for (k, (invocation, &(reads, writes))) in counts.iter().enumerate() {
                let x = PAD + LABEL + k * COLUMN;
                let (n, red) = match label {
                    "reads" => (reads, over(reads, bound.map(|b| b.reads))),
                    "writes" => (writes, over(writes, bound.map(|b| b.writes))),
                    _ => (0, false),
                };
                // The svg's own ink and size, but for a count over the bound.
                let ink = if red {
                    concat!(" fill=\"", red!(), "\" font-weight=\"bold\"")
                } else {
                    ""
                };
                svg.push_str("<text x=\"");
                num(svg, x);
                svg.push_str("\" y=\"");
                num(svg, y + 13);
                svg.push('"');
                svg.push_str(ink);
                svg.push('>');
                if label == "invocation" {
                    write_who(svg, *invocation);
                } else {
                    num(svg, n as usize);
                }
                svg.push_str("</text>\n");
            }
            y += 18;
        }
        width = PAD * 2 + LABEL + counts.len() * COLUMN;
        y += 6;
    }
    if let Some(b) = bound {
        let over = counts
            .values()
            .filter(|c| c.0 > b.reads || c.1 > b.writes)
            .count();
        let line = format!(
            "The puzzle's bound: {} and {} per invocation{}",
            plural(b.reads as usize, "read"),
            plural(b.writes as usize, "write"),
            if over == 0 {
                ", kept by every invocation".to_string()
            } else {
                format!("; {} over it", plural(over, "invocation"))
            }
        );
        let _ = writeln!(
            svg,
            "<text x=\"{PAD}\" y=\"{}\" font-size=\"13\">{line}</text>",
            y + 14
        );
        width = width.max(text_width(&line, 13));
        y += 24;
    }
    (width, y - top)
}

/// One variable's panel at height `top`, onto `svg`: its width and height.
fn panel(svg: &mut String, p: &Picture, top: usize) -> (usize, usize) {
    let labelled = p.cells.len() <= LABELLED;
    let (cw, ch) = if labelled {
        (CELL_W, CELL_H)
    } else {
        (HEAT, HEAT)
    };
    // A heat map of more than HEAT_CELLS elements folds runs of them into one cell.
    let per_cell = p.cells.len().div_ceil(HEAT_CELLS).max(1);
    let folded: Vec<Cell>;
    let cells: &[Cell] = if per_cell > 1 {
        folded = p.cells.chunks(per_cell).map(fold).collect();
        &folded
    } else {
        &p.cells
    };
    let cols = match p.shape.as_slice() {
        [_, cols] if per_cell == 1 => (*cols).max(1),
        _ if labelled => cells.len().clamp(1, 10),
        _ => cells.len().clamp(1, 32),
    };
    let rows = cells.len().div_ceil(cols).max(1);
    let kind = if p.workgroup_memory {
        "workgroup memory, every workgroup's copy"
    } else {
        "storage buffer"
    };
    let how: std::borrow::Cow<str> = if labelled {
        "w: written by, r: read by (invocation numbers)".into()
    } else if per_cell > 1 {
        format!("each cell {per_cell} elements, darker: more accesses").into()
    } else {
        "darker: more accesses".into()
    };
    // The title, written in place; its width from what a reader sees of it.
    svg.push_str("<text x=\"");
    num(svg, PAD);
    svg.push_str("\" y=\"");
    num(svg, top + 15);
    svg.push_str("\" font-size=\"14\"><tspan font-weight=\"bold\">");
    svg.push_str(&escape_html(&p.name));
    svg.push_str("</tspan>");
    let shown = svg.len();
    svg.push_str(" [");
    for (k, n) in p.shape.iter().enumerate() {
        if k > 0 {
            svg.push_str(" × ");
        }
        num(svg, *n);
    }
    svg.push_str("] · ");
    svg.push_str(kind);
    svg.push_str(" · ");
    svg.push_str(&how);
    let title_chars = p.name.chars().count() + svg[shown..].chars().count();
    svg.push_str("</text>\n");
    let title_width = 2 * PAD + title_chars * 14 * 56 / 100;
    let most = cells
        .iter()
        .map(|c| c.reads + c.writes)
        .max()
        .unwrap_or(0)
        .max(1);
    let grid_top = top + TITLE;
    // In hundredths: a labelled cell's tint stays light (0.06 to 0.25), so
    // its label, in the same ink at full strength, keeps a contrast of 4.5
    // or more on light and dark pages; a heat map's cells carry no text.
    let tint = |cell: &Cell| {
        let (touched, most) = ((cell.reads + cell.writes) as usize, most as usize);
        match (touched, labelled) {
            (0, _) => 0,
            (_, true) => 6 + (19 * touched + most / 2) / most,
            (_, false) => 12 + (50 * touched + most / 2) / most,
        }
    };
    // A cell drawn as a rect of its own: every cell of a labelled panel, and
    // a heat map's marked ones; the rest of a heat map goes in outlines.
    let alone = |cell: &Cell| labelled || cell.race || cell.uninitialized;
    // The tint most such cells share goes on their group, once; a cell of
    // another tint sets its own.
    let mut tints: BTreeMap<usize, usize> = BTreeMap::new();
    for cell in cells.iter().filter(|c| alone(c)) {
        *tints.entry(tint(cell)).or_default() += 1;
    }
    let common = tints.iter().max_by_key(|(_, n)| **n).map(|(t, _)| *t);
    // Cells share their ink (the svg's fill) and outline: only a marked one
    // sets its own stroke.
    svg.push_str("<g stroke=\"currentColor\" stroke-opacity=\".35\"");
    if let Some(t) = common {
        svg.push_str(" fill-opacity=\"");
        hundredths(svg, t);
        svg.push('"');
    }
    svg.push_str(">\n");
    // A heat map's cells go in one outline per shade: a few elements, not hundreds.
    let mut shades: BTreeMap<usize, Outlines> = BTreeMap::new();
    // The cells' labels, drawn after every cell: outside the group, they take
    // the svg's ink and size with no stroke to undo. (No label reaches
    // another cell, so what is drawn over what is unchanged.)
    let mut labels = String::new();
    for (i, cell) in cells.iter().enumerate() {
        let x = PAD + (i % cols) * cw;
        let y = grid_top + (i / cols) * ch;
        if !alone(cell) {
            let touched = (cell.reads + cell.writes) as usize;
            let shade = if touched == 0 {
                0
            } else {
                1 + (SHADES - 1) * touched / most as usize
            };
            shades.entry(shade).or_default().add((x, y), (cw, ch));
            continue;
        }
        let mark = if cell.race {
            concat!(
                " stroke=\"",
                red!(),
                "\" stroke-opacity=\"1\" stroke-width=\"3\""
            )
        } else if cell.uninitialized {
            concat!(
                " stroke=\"",
                orange!(),
                "\" stroke-opacity=\"1\" stroke-width=\"3\""
            )
        } else {
            ""
        };
        svg.push_str("<rect x=\"");
        num(svg, x);
        svg.push_str("\" y=\"");
        num(svg, y);
        svg.push_str("\" width=\"");
        num(svg, cw);
        svg.push_str("\" height=\"");
        num(svg, ch);
        svg.push('"');
        let opacity = tint(cell);
        if Some(opacity) != common {
            svg.push_str(" fill-opacity=\"");
            hundredths(svg, opacity);
            svg.push('"');
        }
        svg.push_str(mark);
        svg.push_str("/>\n");
        if labelled {
            for (k, (tag, who)) in [("w", &cell.writers), ("r", &cell.readers)]
                .into_iter()
                .filter(|(_, w)| !w.is_empty())
                .enumerate()
            {
                labels.push_str("<text x=\"");
                num(&mut labels, x + 4);
                labels.push_str("\" y=\"");
                num(&mut labels, y + 17 + k * 16);
                labels.push_str("\">");
                labels.push_str(tag);
                labels.push(' ');
                write_names(&mut labels, who.iter().copied());
                labels.push_str("</text>\n");
            }
        }
    }
    for (shade, outlines) in shades {
        svg.push_str("<path d=\"");
        svg.push_str(&outlines.d);
        svg.push_str("\" fill-opacity=\"");
        hundredths(svg, shade_tint(shade));
        svg.push_str("\"/>\n");
    }
    svg.push_str("</g>\n");
    svg.push_str(&labels);
    let mut right = PAD + cols * cw;
    if !p.past_end.is_empty() {
        // Past the end: one red cell after the grid per element of the guard band touched.
        let y = grid_top + (rows - 1) * ch;
        for (k, who) in p.past_end.values().enumerate() {
            let x = right + 6 + k * cw;
            let _ = writeln!(
                svg,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cw}\" height=\"{ch}\" fill=\"{RED}\" fill-opacity=\".35\" stroke=\"{RED}\" stroke-width=\"2\"/>"
            );
            if labelled {
                let _ = write!(
                    svg,
                    "<text x=\"{}\" y=\"{}\" font-size=\"11\">past end</text>\n\
                     <text x=\"{}\" y=\"{}\" font-size=\"11\">by ",
                    x + 4,
                    y + 15,
                    x + 4,
                    y + 29,
                );
                write_names(svg, who.iter().copied());
                svg.push_str("</text>\n");
            }
        }
        right += 6 + p.past_end.len() * cw;
    }
    let height = TITLE + rows * ch;
    ((right + PAD).max(title_width), height)
}

/// A heat map's shade (0 for untouched, 1 to [`SHADES`]) as its tint in
/// hundredths: 0, then 0.12 to 0.62, rounded as a marked cell's tint is.
fn shade_tint(shade: usize) -> usize {
    if shade == 0 {
        0
    } else {
        12 + (50 * shade + SHADES / 2) / SHADES
    }
}

/// Several elements' facts as one heat-map cell's.
fn fold(cells: &[Cell]) -> Cell {
    Cell {
        reads: cells.iter().map(|c| c.reads).sum(),
        writes: cells.iter().map(|c| c.writes).sum(),
        race: cells.iter().any(|c| c.race),
        uninitialized: cells.iter().any(|c| c.uninitialized),
        ..Cell::default()
    }
}

/// A generous width for `text` at `size` px in a sans-serif font, padding included.
fn text_width(text: &str, size: usize) -> usize {
    2 * PAD + text.chars().count() * size * 56 / 100
}

/// "0,1,2" for a set of invocations, cut to what a cell holds: "0,21,…".
#[cfg(test)]
fn names(who: &[u32]) -> String {
    let mut text = String::new();
    write_names(&mut text, who.iter().copied());
    text
}

/// [`names`], written onto `out` (one label of many: no string of its own).
fn write_names(out: &mut String, who: impl IntoIterator<Item = u32>) {
    let start = out.len();
    for (k, n) in who.into_iter().enumerate() {
        let before = out.len();
        if k > 0 {
            out.push(',');
        }
        num(out, n as usize);
        if out.len() - start > LABEL_CHARS {
            out.truncate(before);
            out.push_str(",…");
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::test_touch::touch;

    fn variable(workgroup_memory: bool, len: usize, touches: Vec<Touch>) -> TouchedVariable {
        TouchedVariable {
            name: "v".into(),
            workgroup_memory,
            shape: vec![len],
            starts_unwritten: true,
            touches,
        }
    }

    #[test]
    fn the_facts_of_each_element_follow_the_race_rule() {
        // (what, workgroup memory?, touches, element 0's race and uninitialized marks)
        let cases: Vec<(&str, bool, Vec<Touch>, bool, bool)> = vec![
            (
                "one writer, then readers after a barrier",
                true,
                vec![touch(0, 0, 0, 0, true), touch(0, 1, 0, 1, false)],
                false,
                false,
            ),
            (
                "a reader in the same interval as the writer",
                true,
                vec![touch(0, 0, 0, 0, true), touch(0, 1, 0, 0, false)],
                true,
                false,
            ),
            (
                "two workgroups' copies of workgroup memory",
                true,
                vec![touch(0, 0, 0, 0, true), touch(0, 4, 1, 0, true)],
                false,
                false,
            ),
            (
                "two workgroups writing one storage element",
                false,
                vec![touch(0, 0, 0, 0, true), touch(0, 4, 1, 3, true)],
                true,
                false,
            ),
            (
                "one invocation reading then writing",
                false,
                vec![touch(0, 2, 0, 0, false), touch(0, 2, 0, 0, true)],
                false,
                true,
            ),
            (
                "readers only, nothing written",
                false,
                vec![touch(0, 1, 0, 0, false), touch(0, 2, 0, 0, false)],
                false,
                true,
            ),
        ];
        for (what, wg, touches, race, uninitialized) in cases {
            let p = Picture::of(&variable(wg, 1, touches));
            assert_eq!(
                (p.cells[0].race, p.cells[0].uninitialized),
                (race, uninitialized),
                "{what}"
            );
        }
    }

    #[test]
    fn atomics_never_race_and_writes_past_the_end_are_kept() {
        let mut a = touch(0, 0, 0, 0, true);
        a.atomic = true;
        let mut b = touch(0, 5, 1, 0, true);
        b.atomic = true;
        let mut past = touch(4, 3, 0, 0, true);
        past.outside = true;
        let p = Picture::of(&variable(false, 4, vec![a, b, past]));
        assert!(!p.cells[0].race);
        assert_eq!(p.cells[0].writers, [0, 5]);
        assert_eq!(p.past_end, BTreeMap::from([(4, BTreeSet::from([3]))]));
    }

    #[test]
    fn small_variables_name_invocations_and_large_ones_are_a_heat_map() {
        let small = AccessMap {
            cuda: false,
            grid: [1, 1, 1],
            block: [4, 1, 1],
            variables: vec![variable(
                false,
                4,
                (0..4).map(|i| touch(i, i as u32, 0, 0, true)).collect(),
            )],
            left_out: 0,
        };
        let drawn = svg(&small, None);
        assert!(drawn.contains(">w 3</text>"), "{drawn}");
        assert!(drawn.starts_with("<svg"));
        // A CUDA kernel's picture is the same in CUDA's words.
        let cuda = svg(
            &AccessMap {
                cuda: true,
                ..small.clone()
            },
            None,
        );
        assert!(
            cuda.contains("(thread numbers)") && cuda.contains("global memory"),
            "{cuda}"
        );
        assert!(
            !cuda.contains("invocation") && !cuda.contains("storage buffer"),
            "{cuda}"
        );
        let large = AccessMap {
            variables: vec![variable(
                false,
                1000,
                (0..1000).map(|i| touch(i, i as u32, 0, 0, true)).collect(),
            )],
            ..small
        };
        let drawn = svg(&large, None);
        assert!(!drawn.contains(">w "), "a heat map names no invocation");
        assert!(drawn.contains("darker: more accesses"));
    }

    #[test]
    fn counts_over_the_bound_are_marked() {
        // Invocation 1 reads twice, against a bound of one read.
        let touches = vec![
            touch(0, 0, 0, 0, false),
            touch(1, 1, 0, 0, false),
            touch(0, 1, 0, 0, false),
        ];
        let map = AccessMap {
            cuda: false,
            grid: [1, 1, 1],
            block: [2, 1, 1],
            variables: vec![variable(false, 2, touches)],
            left_out: 0,
        };
        let bound = AccessBound {
            reads: 1,
            writes: 1,
        };
        let drawn = svg(&map, Some(&bound));
        assert!(drawn.contains("font-weight=\"bold\">2</text>"), "{drawn}");
        assert_eq!(
            drawn.matches(RED).count(),
            1,
            "one count over the bound: {drawn}"
        );
        assert!(drawn.contains("1 invocation over it"), "{drawn}");
        let kept = svg(
            &map,
            Some(&AccessBound {
                reads: 2,
                writes: 1,
            }),
        );
        assert!(kept.contains("kept by every invocation"), "{kept}");
        assert!(!kept.contains(RED), "{kept}");
    }

    #[test]
    fn a_vector_load_counts_once_and_launches_apart() {
        // Invocation 0 loads a vec4 (four elements, one access) in launch
        // 1, and one element in launch 2.
        let mut touches: Vec<Touch> = (0..4)
            .map(|e| Touch {
                first: e == 0,
                ..touch(e, 0, 0, 0, false)
            })
            .collect();
        touches.push(Touch {
            launch: 1,
            ..touch(0, 0, 0, 0, false)
        });
        let map = AccessMap {
            cuda: false,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            variables: vec![variable(false, 4, touches)],
            left_out: 0,
        };
        assert_eq!(
            per_invocation(&map),
            BTreeMap::from([((0, 0), (1, 0)), ((1, 0), (1, 0))])
        );
    }

    #[test]
    fn written_numbers_read_as_the_formatted_ones() {
        for n in [0, 1, 2, 999, 1000, 65_536] {
            let mut out = String::new();
            push_plural(&mut out, n, "read");
            assert_eq!(out, plural(n, "read"));
        }
        for (invocation, shown) in [((0, 3), "3"), ((1, 3), "2:3")] {
            let mut out = String::new();
            write_who(&mut out, invocation);
            assert_eq!(out, shown);
        }
    }

    #[test]
    fn shades_are_written_short() {
        // The shades' tints, as they were written with two decimals.
        for shade in 0..=SHADES {
            let old = match shade {
                0 => 0.0,
                s => 0.12 + 0.5 * s as f64 / SHADES as f64,
            };
            let mut new = String::new();
            hundredths(&mut new, shade_tint(shade));
            assert_eq!(
                format!("{old:.2}").parse::<f64>(),
                new.parse::<f64>(),
                "{shade}"
            );
        }
    }

    #[test]
    fn what_cells_share_is_said_once() {
        // Four cells written once each and one written twice: the common
        // tint is the group's, the other cell's its own.
        let mut touches: Vec<Touch> = (0..4).map(|i| touch(i, i as u32, 0, 0, true)).collect();
        touches.push(touch(0, 9, 0, 1, true));
        let map = AccessMap {
            cuda: false,
            grid: [1, 1, 1],
            block: [4, 1, 1],
            variables: vec![variable(false, 4, touches)],
            left_out: 0,
        };
        let drawn = svg(&map, None);
        assert!(
            drawn.contains(
                "<g stroke=\"currentColor\" stroke-opacity=\".35\" fill-opacity=\".16\">"
            ),
            "{drawn}"
        );
        assert_eq!(drawn.matches("<rect ").count(), 4, "{drawn}");
        assert_eq!(drawn.matches("fill-opacity=").count(), 2, "{drawn}");
        // Labels take the svg's ink and size, after the cells, unstroked.
        assert!(
            drawn.contains("<text x=\"16\" y=\"51\">w 0,9</text>"),
            "{drawn}"
        );
        // (what, how many times it is written: on the svg alone, or nowhere)
        let once = [
            ("font-size=\"12\"", 1),
            ("fill=\"currentColor\"", 1),
            ("stroke=\"none\"", 0),
        ];
        for (attribute, times) in once {
            assert_eq!(
                drawn.matches(attribute).count(),
                times,
                "{attribute}: {drawn}"
            );
        }
    }

    #[test]
    fn a_cell_names_as_many_invocations_as_it_holds() {
        let cases: &[(&[u32], &str)] = &[
            (&[3], "3"),
            (&[0, 1, 2], "0,1,2"),
            (&[0, 21, 42, 63], "0,21,42,…"),
            (&[1000, 2000, 3000], "1000,…"),
        ];
        for (who, shown) in cases {
            assert_eq!(names(who), *shown);
        }
    }
}
