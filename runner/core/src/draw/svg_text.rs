//! SVG text written in as few characters as a browser reads the same: the
//! access diagrams write thousands of numbers, opacities and cell outlines
//! a page, once in the page and again in the whole-book print page.

/// `n` in decimal, onto `out`. A diagram writes thousands of coordinates, and
/// `write!` spent most of the drawing's time in the formatting machinery.
pub(super) fn num(out: &mut String, n: usize) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// An opacity given in hundredths (0 to 100) as a decimal in as few
/// characters as SVG reads the same: ".37", ".2", ".05", "0", "1".
pub(super) fn hundredths(out: &mut String, h: usize) {
    match h {
        0 => out.push('0'),
        100.. => out.push('1'),
        _ => {
            out.push('.');
            out.push(char::from(b'0' + (h / 10) as u8));
            if !h.is_multiple_of(10) {
                out.push(char::from(b'0' + (h % 10) as u8));
            }
        }
    }
}

/// Many cells' outlines as one path's data: per cell, a move to its top
/// left corner and the way round it. A heat map has hundreds of cells and a
/// page several heat maps, so each move is relative, from the last cell's
/// corner (where a closed subpath ends): "m14 0" rather than "M236 188".
/// Unstroked, on whole pixels, it fills just as rects would. Stroked, it
/// is no stand-in for rects: it strokes a shared edge once where two rects
/// stroke it twice, and a browser draws its corners a shade differently (a
/// heat map's shades are drawn so, and always were).
#[derive(Debug, Default)]
pub(super) struct Outlines {
    /// The path's data, for `<path d="…">`.
    pub(super) d: String,
    /// Where the last cell began: (0, 0) before the first, whose relative
    /// move is as good as an absolute one.
    corner: (usize, usize),
}

impl Outlines {
    /// Adds the cell at `(x, y)` of width and height `(w, h)`.
    pub(super) fn add(&mut self, (x, y): (usize, usize), (w, h): (usize, usize)) {
        let mut buffer = itoa::Buffer::new();
        self.d.push('m');
        self.d
            .push_str(buffer.format(x as isize - self.corner.0 as isize));
        self.d.push(' ');
        self.d
            .push_str(buffer.format(y as isize - self.corner.1 as isize));
        self.d.push('h');
        num(&mut self.d, w);
        self.d.push('v');
        num(&mut self.d, h);
        self.d.push_str("h-");
        num(&mut self.d, w);
        self.d.push('z');
        self.corner = (x, y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opacities_are_written_short_table() {
        for (h, shown) in [
            (0, "0"),
            (7, ".07"),
            (20, ".2"),
            (62, ".62"),
            (100, "1"),
            (130, "1"),
        ] {
            let mut out = String::new();
            hundredths(&mut out, h);
            assert_eq!(out, shown, "{h}");
        }
    }

    #[test]
    fn each_outline_moves_from_the_last_corner() {
        let mut outlines = Outlines::default();
        for corner in [(12, 34), (26, 34), (12, 48)] {
            outlines.add(corner, (14, 14));
        }
        assert_eq!(
            outlines.d,
            "m12 34h14v14h-14zm14 0h14v14h-14zm-14 14h14v14h-14z"
        );
    }
}
