//! Every chapter's puzzles, as one test per puzzle, language, variant and backend.
//!
//! - the solution must pass (wgpu) or compile (CUDA without a GPU);
//! - the skeleton must compile and, where it can run, fail;
//! - a backend that is not here is reported by name as skipped (libtest's
//!   "ignored", with the reason printed), never passed silently.

use libtest_mimic::{Arguments, Failed, Trial};
use runner::kernel::{Lang, Variant};
use runner::{BackendKind, Book, Puzzle, Runner, Settings, Status};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        ..Settings::default()
    })
});

fn main() {
    // A CUDA launch isolated in a child process re-enters here.
    runner::backend::isolate::serve_if_child();
    let args = Arguments::from_args();
    // GPU_PUZZLES_BOOK: where the book is when this binary runs away from its
    // checkout (the GPU machine gets a copy at another path).
    let root = std::env::var_os("GPU_PUZZLES_BOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("workspace root")
                .to_path_buf()
        });
    let book = match Book::load(&root) {
        Ok(book) => Arc::new(book),
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            panic!("the book does not load: {} problem(s) above", errors.len());
        }
    };
    assert!(!book.puzzles.is_empty(), "the book declares no puzzles");

    let mut trials = Vec::new();
    for kind in BackendKind::ALL {
        // Say up front what each backend is, or why its tests are skipped.
        match RUNNER.backend(kind) {
            Ok(b) => eprintln!("backend {kind}: {}", b.device().label()),
            Err(e) => eprintln!("backend {kind}: SKIPPED: {e}"),
        }
    }
    for puzzle in &book.puzzles {
        for lang in Lang::ALL {
            let kind = BackendKind::for_lang(lang);
            let name = format!("{}::{lang}", puzzle.id());
            if puzzle.kernel(lang).is_none() {
                let id = puzzle.id().to_string();
                trials.push(Trial::test(format!("{name}::present"), move || {
                    Err(format!("{id} has no {} kernel", lang.label()).into())
                }));
                continue;
            }
            for variant in [Variant::Solution, Variant::Skeleton] {
                let name = format!("{name}::{variant}");
                let make = |name: String| {
                    let book = book.clone();
                    let id = puzzle.id().to_string();
                    Trial::test(name, move || {
                        let puzzle = book.find(&id).map_err(Failed::from)?;
                        check(puzzle, lang, variant)
                    })
                };
                match RUNNER.backend(kind) {
                    Ok(b) => match b.compile_only() {
                        None => trials.push(make(name).with_kind(kind.to_string())),
                        // Compiled here; the run itself is skipped, by name and reason.
                        Some(reason) => {
                            trials
                                .push(make(format!("{name}::compile")).with_kind(kind.to_string()));
                            trials.push(
                                Trial::test(format!("{name}::run"), || Ok(()))
                                    .with_kind(format!("skipped: {reason}"))
                                    .with_ignored_flag(true),
                            );
                        }
                    },
                    Err(e) => trials.push(
                        make(name)
                            .with_kind(format!("skipped: {e}"))
                            .with_ignored_flag(true),
                    ),
                }
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

fn check(puzzle: &Puzzle, lang: Lang, variant: Variant) -> Result<(), Failed> {
    let report = RUNNER
        .run(puzzle, lang, variant)
        .map_err(|e| e.to_string())?;
    let ok = match (variant, report.status) {
        (Variant::Solution, Status::Pass) => true,
        (Variant::Skeleton, Status::Fail) => true,
        // Compiled but not run (no GPU for this backend): compiling is what can be checked.
        (_, Status::Compiled) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        let want = match variant {
            Variant::Skeleton => "the skeleton to compile and fail",
            _ => "the solution to pass",
        };
        Err(format!("expected {want}, got:\n{}", report.to_text()).into())
    }
}
