//! Where a roofline chart's numbers go: each point's number beside it, on
//! no other number, no point and no roof line, a few pixels clear of each
//! (two numbers that touch read as one: "7" and "13" as "713").
//!
//! Boxes are estimated from the characters (widths on the wide side of the
//! common sans-serif faces, DejaVu Sans's among them), so a real font leaves
//! room to spare; the chart's tests check the drawn SVG with the same
//! estimate.

/// A box in the chart's units: left, top, right, bottom.
pub type Rect = (f64, f64, f64, f64);

/// A straight piece of a roof line, end to end.
pub type Segment = ((f64, f64), (f64, f64));

/// Least room between a number and anything else, in the chart's units.
pub const GAP: f64 = 3.0;
/// Points closer than this share one number ("9, 11"): apart, their
/// numbers could not both sit beside them.
const NEAR: f64 = 4.0;
/// A point's dot, and the room kept around it.
const DOT: f64 = 5.0;

/// Whether two boxes share any area.
pub fn overlaps(a: Rect, b: Rect) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// `r` grown by `by` on every side.
pub fn inflate(r: Rect, by: f64) -> Rect {
    (r.0 - by, r.1 - by, r.2 + by, r.3 + by)
}

/// The width of `text` at `size`, by character (DejaVu Sans's advances,
/// rounded up; others are narrower).
pub fn text_width(text: &str, size: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            ' ' | ',' | '.' | ':' | ';' | '\'' | '|' | 'i' | 'j' | 'l' => 0.34,
            'f' | 't' | 'r' | '(' | ')' | '/' | '-' => 0.44,
            'm' | 'w' | 'M' | 'W' | '—' | '×' => 1.0,
            c if c.is_ascii_uppercase() => 0.78,
            _ => 0.64,
        })
        .sum();
    em * size
}

/// The box of `text` drawn at `size` with its top-left corner at `(x, y)`
/// (plotters' top anchor: the baseline 0.76 em below `y`), from the
/// ascender to the descender.
pub fn text_box((x, y): (f64, f64), text: &str, size: f64) -> Rect {
    let baseline = y + 0.76 * size;
    (
        x,
        baseline - 0.95 * size,
        x + text_width(text, size),
        baseline + 0.25 * size,
    )
}

/// Whether the segment passes through the box (Liang–Barsky clipping).
pub fn segment_meets(((x0, y0), (x1, y1)): Segment, r: Rect) -> bool {
    let (dx, dy) = (x1 - x0, y1 - y0);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, x0 - r.0),
        (dx, r.2 - x0),
        (-dy, y0 - r.1),
        (dy, r.3 - y0),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 <= t1
}

/// A number as placed: its text, its top-left corner, the point it names,
/// the box it covers, and whether a line must say whose it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub text: String,
    pub at: (f64, f64),
    pub point: (f64, f64),
    pub rect: Rect,
    pub leader: bool,
}

/// How far `point` is from the nearest edge of `rect` (0 inside it).
fn distance((x, y): (f64, f64), rect: Rect) -> f64 {
    let dx = (rect.0 - x).max(x - rect.2).max(0.0);
    let dy = (rect.1 - y).max(y - rect.3).max(0.0);
    dx.hypot(dy)
}

/// The numbers of `points` (each its number and where it is drawn), placed
/// at `size` inside `area`: points on one spot share a number (a number
/// said once, where one kernel's points on two GPUs meet); each number
/// goes to the nearest free place around its point, first in the eight
/// directions at growing distances, then anywhere in the area, nearest
/// first.
pub fn place(
    points: &[(usize, (f64, f64))],
    roofs: &[Segment],
    area: Rect,
    size: f64,
) -> Vec<Label> {
    let mut groups: Vec<(Vec<usize>, (f64, f64))> = Vec::new();
    for &(n, (x, y)) in points {
        match groups
            .iter_mut()
            .find(|(_, (gx, gy))| (gx - x).abs() <= NEAR && (gy - y).abs() <= NEAR)
        {
            // One kernel's points on two GPUs, on one spot: one number.
            Some((numbers, _)) if numbers.contains(&n) => {}
            Some((numbers, _)) => numbers.push(n),
            None => groups.push((vec![n], (x, y))),
        }
    }
    let dots: Vec<Rect> = points
        .iter()
        .map(|&(_, (x, y))| inflate((x, y, x, y), DOT))
        .collect();
    let mut placed: Vec<Label> = Vec::new();
    for (numbers, point) in groups {
        let text = numbers
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let free = |at: (f64, f64), placed: &[Label]| -> Option<Label> {
            let rect = text_box(at, &text, size);
            let inside =
                rect.0 >= area.0 && rect.1 >= area.1 && rect.2 <= area.2 && rect.3 <= area.3;
            let clear = inflate(rect, GAP);
            let free = inside
                && !placed.iter().any(|l| overlaps(l.rect, clear))
                && !dots.iter().any(|&d| overlaps(d, clear))
                && !roofs.iter().any(|&s| segment_meets(s, clear));
            free.then(|| Label {
                text: text.clone(),
                at,
                point,
                rect,
                leader: false,
            })
        };
        let (w, h) = {
            let r = text_box((0.0, 0.0), &text, size);
            (r.2 - r.0, r.3 - r.1)
        };
        // From the box's top-left corner to its top (0.95 − 0.76 em above `at`).
        let lift = 0.19 * size;
        let (x, y) = point;
        let around = (0..12).flat_map(|ring| {
            let d = DOT + GAP + 1.0 + 5.0 * ring as f64;
            [
                (x + d, y - h / 2.0),
                (x - d - w, y - h / 2.0),
                (x - w / 2.0, y - d - h),
                (x - w / 2.0, y + d),
                (x + d * 0.7, y - d * 0.7 - h),
                (x + d * 0.7, y + d * 0.7),
                (x - d * 0.7 - w, y - d * 0.7 - h),
                (x - d * 0.7 - w, y + d * 0.7),
            ]
        });
        let mut label = around
            .map(|(l, t)| (l, t + lift))
            .find_map(|at| free(at, &placed));
        if label.is_none() {
            // Crowded: the nearest free place anywhere in the area.
            let mut spots = Vec::new();
            let mut top = area.1;
            while top + h <= area.3 {
                let mut left = area.0;
                while left + w <= area.2 {
                    spots.push((left, top + lift));
                    left += 4.0;
                }
                top += 4.0;
            }
            let centre = |&(l, t): &(f64, f64)| (l + w / 2.0 - x).hypot(t - lift + h / 2.0 - y);
            spots.sort_by(|a, b| centre(a).total_cmp(&centre(b)));
            label = spots.into_iter().find_map(|at| free(at, &placed));
        }
        // No room at all (never in the book's charts; a test keeps it so):
        // beside the point, where it may touch another.
        let label = label.unwrap_or_else(|| {
            let at = (x + DOT + GAP, y - h / 2.0 + lift);
            Label {
                text: text.clone(),
                at,
                point,
                rect: text_box(at, &text, size),
                leader: false,
            }
        });
        placed.push(label);
    }
    // A number needs a line to its point where it had to go further than
    // beside it, or where another point is as near to it as its own: else a
    // reader could give it to the wrong one.
    for label in &mut placed {
        let own = distance(label.point, label.rect);
        let other = points
            .iter()
            .map(|&(_, p)| p)
            .filter(|p| (p.0 - label.point.0).abs() > NEAR || (p.1 - label.point.1).abs() > NEAR)
            .map(|p| distance(p, label.rect))
            .fold(f64::INFINITY, f64::min);
        label.leader = own > 14.0 || other <= own + 2.0;
    }
    placed
}
