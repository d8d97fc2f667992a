//! Fixture books, one folder per case: each chapter goes through the real
//! preprocessing (and the real wgpu backend) and the page or error is checked
//! for what a reader or author would see.

use mdbook_puzzles::config::OnFailure;
use mdbook_puzzles::process_chapter;
use runner::{BackendKind, Runner, Settings};
use std::path::{Path, PathBuf};

fn chapter(case: &str) -> (String, PathBuf) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(case)
        .join("src/chapter.md");
    (std::fs::read_to_string(&file).unwrap(), file)
}

fn runner() -> Runner {
    Runner::new(Settings {
        timing_samples: 2,
        ..Settings::default()
    })
}

/// These cases need wgpu; without it they fail loudly rather than pass.
fn require_wgpu(runner: &Runner) {
    if let Err(e) = runner.backend(BackendKind::Wgpu) {
        panic!("these fixtures run WGSL and need a wgpu adapter: {e}");
    }
}

#[test]
fn page_shows_config_skeleton_solution_and_verdicts() {
    let runner = runner();
    require_wgpu(&runner);
    let (content, file) = chapter("passing");
    let (page, problems) = process_chapter(&content, &file, &runner, OnFailure::Bail).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    for part in [
        "Prose stays.",
        "More prose.",
        "| kernel | `add_one` |",
        "| block (threads) | 4 × 1 × 1 |",
        "| expected `out` | `[1.0, 2.0, 3.0, 4.0]` |",
        "1. Add one.",
        "// FILL ME IN (roughly 1 line)",
        "out:      [·, ·, ·, ·]",
        "<strong>FAIL</strong>: fails, as expected before you solve it",
        "<summary>WGSL solution</summary>",
        "out[lid.x] = a[lid.x] + 1.0;",
        "out:      [1.0, 2.0, 3.0, 4.0]",
        "<strong>PASS</strong>: passes",
        "wgpu · ",
        "kernel time",
    ] {
        assert!(page.contains(part), "the page lacks {part:?}:\n{page}");
    }
    assert!(
        !page.contains("```puzzle") && !page.contains("BEGIN PUZZLE"),
        "{page}"
    );
}

/// (case, the error names, under bail).
const BAIL_CASES: &[(&str, &str)] = &[
    ("compile_error", "chapter.md:27: expected"),
    ("skeleton_passes", "skeleton of `fx` already passes"),
    ("wrong_solution", "4 of 4 elements of `out` are wrong"),
    ("malformed_spec", "chapter.md:7: unknown field `grd`"),
];

#[test]
fn bail_stops_with_the_problem_and_its_place() {
    let runner = runner();
    require_wgpu(&runner);
    for (case, message) in BAIL_CASES {
        let (content, file) = chapter(case);
        let error = process_chapter(&content, &file, &runner, OnFailure::Bail)
            .expect_err(case)
            .to_string();
        assert!(error.contains(message), "{case}: {error}");
    }
}

#[test]
fn continue_renders_the_problem_into_the_page() {
    let runner = runner();
    require_wgpu(&runner);
    for (case, message) in BAIL_CASES {
        let (content, file) = chapter(case);
        let (page, problems) =
            process_chapter(&content, &file, &runner, OnFailure::Continue).unwrap();
        assert_eq!(problems.len(), 1, "{case}: {problems:?}");
        assert!(
            page.contains("This puzzle could not be checked"),
            "{case}:\n{page}"
        );
        assert!(
            page.contains(message),
            "{case}: the page lacks {message:?}:\n{page}"
        );
    }
}

#[test]
fn chapters_without_puzzles_are_untouched() {
    let (content, file) = chapter("no_puzzles");
    let (page, problems) = process_chapter(&content, &file, &runner(), OnFailure::Bail).unwrap();
    assert_eq!(page, content);
    assert!(problems.is_empty());
}
