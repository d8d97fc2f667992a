//! The order a learner meets the puzzles in: chapters as `SUMMARY.md` lists
//! them, puzzles as their chapter declares them. (The catalogue itself is
//! sorted by id, which puts `p04_map_2d_view` after puzzle 14.)

use crate::book::load::read_summary;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;

/// Every puzzle of `book`, in reading order. Chapters missing from
/// `SUMMARY.md` (the content checks reject them) come last, by id.
pub fn learning_order(book: &Book) -> Vec<&Puzzle> {
    let entries = read_summary(&book.src).unwrap_or_default();
    let rank = |p: &Puzzle| {
        let chapter = entries
            .iter()
            .position(|e| same_file(&e.path, &p.chapter))
            .unwrap_or(usize::MAX);
        (chapter, p.spec.origin.first_line, p.id().to_string())
    };
    let mut puzzles: Vec<&Puzzle> = book.puzzles.iter().collect();
    puzzles.sort_by_key(|p| rank(p));
    puzzles
}

/// The first puzzle after `after` (or from the start) that has a kernel in
/// `lang` and that `solved` does not count as done; wraps around once.
pub fn next_unsolved<'b>(
    order: &[&'b Puzzle],
    after: Option<&str>,
    lang: Lang,
    solved: impl Fn(&str) -> bool,
) -> Option<&'b Puzzle> {
    let start = after
        .and_then(|id| order.iter().position(|p| p.id() == id))
        .map_or(0, |i| i + 1);
    order[start..]
        .iter()
        .chain(&order[..start])
        .find(|p| p.kernel(lang).is_some() && !solved(p.id()) && Some(p.id()) != after)
        .copied()
}

fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learner::workspace::tests::book;

    #[test]
    fn follows_the_summary_not_the_ids() {
        let dir = tempfile::tempdir().unwrap();
        let book = book(dir.path());
        let ids: Vec<&str> = learning_order(&book).iter().map(|p| p.id()).collect();
        assert_eq!(ids, ["p2", "p1"], "SUMMARY.md lists two.md first");
    }

    #[test]
    fn next_unsolved_table() {
        let dir = tempfile::tempdir().unwrap();
        let book = book(dir.path());
        let order = learning_order(&book);
        let cases: &[(Option<&str>, Lang, &[&str], Option<&str>)] = &[
            (None, Lang::Wgsl, &[], Some("p2")),
            (Some("p2"), Lang::Wgsl, &[], Some("p1")),
            (Some("p1"), Lang::Wgsl, &[], Some("p2")),
            (Some("p2"), Lang::Wgsl, &["p1"], None),
            (None, Lang::Wgsl, &["p2"], Some("p1")),
            // p2 has no CUDA kernel.
            (None, Lang::Cuda, &[], Some("p1")),
            (Some("p1"), Lang::Cuda, &[], None),
        ];
        for (after, lang, solved, want) in cases {
            let got = next_unsolved(&order, *after, *lang, |id| solved.contains(&id));
            assert_eq!(got.map(|p| p.id()), *want, "after {after:?} in {lang}");
        }
    }
}
