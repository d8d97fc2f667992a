//! Drift checks on the real book: its table of contents, chapters, tips and
//! skeletons agree, and the learner's workspace can be made from it.
//! (The chapter tests run the kernels; see `runner::book::content` for the checks.)

use puzzle_core::chapter::book::Book;
use puzzle_core::lang::Lang;
use runner::learner::workspace::Workspace;
use std::path::Path;

fn book() -> Book {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    runner::book::load::load(root)
        .unwrap_or_else(|errors| panic!("the book does not load: {errors:?}"))
}

#[test]
fn the_book_has_no_drift() {
    let book = book();
    let problems = runner::book::content::problems(&book);
    let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(list.is_empty(), "{}", list.join("\n"));
}

#[test]
fn every_chapter_of_the_summary_exists_and_has_a_title() {
    let book = book();
    let entries = runner::book::load::read_summary(&book.src).unwrap();
    assert!(entries.len() >= 15, "SUMMARY.md lists only {entries:?}");
    for e in entries {
        assert!(e.path.is_file(), "{}", e.path.display());
        assert!(!e.title.trim().is_empty(), "{e:?}");
    }
}

#[test]
fn every_puzzle_has_tips_and_a_kernel_or_a_reason_in_each_language() {
    for puzzle in &book().puzzles {
        assert!(
            !puzzle.spec.raw.hints.is_empty(),
            "{} has no hints",
            puzzle.id()
        );
        for lang in Lang::ALL {
            let reason = puzzle.spec.raw.why_no_kernel.get(&lang);
            assert!(
                puzzle.kernel(lang).is_some() || reason.is_some_and(|r| !r.trim().is_empty()),
                "{} has neither a {} kernel nor a why_no_kernel reason",
                puzzle.id(),
                lang.label()
            );
        }
    }
}

#[test]
fn the_workspace_holds_every_skeleton_in_reading_order() {
    let book = book();
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::new(&book, Some(dir.path().join(".learner")));
    let created = ws.ensure(&book).unwrap();
    let kernels: usize = book.puzzles.iter().map(|p| p.kernels.len()).sum();
    assert_eq!(created.files.len(), kernels);
    for puzzle in &book.puzzles {
        for (&lang, kernel) in &puzzle.kernels {
            let file = ws.file(puzzle, lang);
            assert_eq!(
                std::fs::read_to_string(&file).unwrap(),
                kernel.skeleton().text,
                "{}",
                file.display()
            );
            assert_eq!(
                ws.locate(&book, &file).map(|(p, l)| (p.id(), l)),
                Some((puzzle.id(), lang))
            );
        }
    }
    // Reading order follows SUMMARY.md: puzzle 1 first, the views chapter before puzzle 9.
    let order: Vec<&str> = runner::learner::order::learning_order(&book)
        .iter()
        .map(|p| p.id())
        .collect();
    assert_eq!(order.first(), Some(&"p01_map"));
    let at = |id: &str| order.iter().position(|p| *p == id).unwrap();
    assert!(at("p08_shared") < at("v04_map_2d_view"), "{order:?}");
    assert!(at("v04_map_2d_view") < at("p09_pooling"), "{order:?}");
    assert!(at("p13_row_sum") < at("p14_matmul_naive"), "{order:?}");
}

/// The fused attention never allocates the SEQ x SEQ scores. At 16,384 tokens
/// and DIM 128, one head: q, k, v and the output are 8 MiB each; the three
/// kernels add 1 GiB of scores, the fused kernel nothing. Sizes only, as the
/// runner resolves them before a benchmark allocates anything.
#[test]
fn attention_allocates_the_scores_only_unfused() {
    let book = book();
    let bytes = |id: &str| -> u64 {
        let puzzle = book.find(id).unwrap();
        let size = [("HEADS", 1), ("SEQ", 16_384), ("DIM", 128)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let spec = puzzle.spec.sized(&size).unwrap();
        spec.buffers()
            .map(|b| (b.len() * b.dtype.size()) as u64)
            .sum()
    };
    let tensors = 4 * 16_384 * 128 * 4;
    assert_eq!(bytes("p31_attention_fused"), tensors);
    assert_eq!(bytes("p31_attention_naive"), tensors + 16_384 * 16_384 * 4);
    // Puzzle 35's q, k, v and output are BF16: half the bytes, and nothing else.
    assert_eq!(bytes("p35_attention_bf16"), tensors / 2);
}
