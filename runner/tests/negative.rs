//! Negative fixtures: wrong kernels and impossible launches that the checks
//! must reject, each with the message and line a user would need.
//!
//! Each case runs on its backend when present; otherwise it is listed as
//! skipped, by name and reason.

use libtest_mimic::{Arguments, Failed, Trial};
use runner::kernel::{Lang, Variant};
use runner::source::SourceText;
use runner::{BackendKind, Book, Runner, Settings, Status};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        ..Settings::default()
    })
});

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A learner's file that must be rejected: (file, puzzle, status, message part, line of the message).
const WRONG_KERNELS: &[(&str, &str, Status, &str, Option<usize>)] = &[
    (
        "p03_no_guard.wgsl",
        "p03_guard",
        Status::Fail,
        "out-of-bounds write: `out` has 4 elements, but something wrote index 4, 5, 6, 7",
        None,
    ),
    (
        "p04_swapped_index.wgsl",
        "p04_map_2d",
        Status::Fail,
        "2 of 4 elements of `out` are wrong: out[0, 1], out[1, 0]",
        None,
    ),
    (
        "p01_syntax_error.wgsl",
        "p01_map",
        Status::CompileError,
        "expected",
        Some(8),
    ),
    (
        "p01_type_error.wgsl",
        "p01_map",
        Status::CompileError,
        "",
        Some(8),
    ),
    (
        "p01_wrong_name.wgsl",
        "p01_map",
        Status::CompileError,
        "no entry point `add_10`",
        Some(1),
    ),
    (
        "p01_workgroup_size.wgsl",
        "p01_map",
        Status::CompileError,
        "does not match the spec's block [4, 1, 1]",
        Some(1),
    ),
    (
        "p03_scalar_as_storage.wgsl",
        "p03_guard",
        Status::CompileError,
        "is the scalar `size`; declare it var<uniform>",
        Some(4),
    ),
    (
        "p01_read_only_output.wgsl",
        "p01_map",
        Status::CompileError,
        "declared read-only",
        Some(2),
    ),
    (
        "p01_syntax_error.cu",
        "p01_map",
        Status::CompileError,
        "identifier \"b\" is undefined",
        Some(4),
    ),
    (
        "p01_no_extern_c.cu",
        "p01_map",
        Status::CompileError,
        "without `extern \"C\"`",
        Some(1),
    ),
];

/// Launches no device accepts: (puzzle in limits_book, language, message part).
const IMPOSSIBLE_LAUNCHES: &[(&str, Lang, &str)] = &[
    (
        "too_many_blocks",
        Lang::Wgsl,
        "a grid of 70000 workgroups along x; this adapter allows at most",
    ),
    (
        "block_too_large",
        Lang::Wgsl,
        "GPUs allow at most 1024 threads per block",
    ),
    (
        "block_too_large",
        Lang::Cuda,
        "GPUs allow at most 1024 threads per block",
    ),
];

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for &(file, puzzle, status, message, line) in WRONG_KERNELS {
        let path = fixtures().join("kernels").join(file);
        let lang = Lang::from_extension(path.extension().unwrap().to_str().unwrap()).unwrap();
        trials.push(trial(format!("wrong_kernel::{file}"), lang, move || {
            let book = Book::load(&root()).map_err(|e| format!("{e:?}"))?;
            let puzzle = book.find(puzzle)?;
            let source = SourceText::read(&path).map_err(|e| e.to_string())?;
            let report = RUNNER
                .run_source(puzzle, lang, Variant::File, &source, &Default::default())
                .map_err(|e| e.to_string())?;
            expect(&report, status)?;
            let text = report.to_text();
            if !text.contains(message) {
                return Err(format!("the report lacks {message:?}:\n{text}").into());
            }
            if let Some(line) = line {
                let d = report.diagnostics.first().ok_or("no diagnostic")?;
                if d.file != path || d.line != line {
                    return Err(format!(
                        "expected the message at {}:{line}, got {d}",
                        path.display()
                    )
                    .into());
                }
            }
            Ok(())
        }));
    }
    for &(puzzle, lang, message) in IMPOSSIBLE_LAUNCHES {
        trials.push(trial(
            format!("impossible_launch::{puzzle}::{lang}"),
            lang,
            move || {
                let book =
                    Book::load(&fixtures().join("limits_book")).map_err(|e| format!("{e:?}"))?;
                let report = RUNNER
                    .run(book.find(puzzle)?, lang, Variant::Solution)
                    .map_err(|e| e.to_string())?;
                expect(&report, Status::Error)?;
                let said = report.message.clone().unwrap_or_default();
                if !said.contains(message) {
                    return Err(format!("expected {message:?}, got {said:?}").into());
                }
                Ok(())
            },
        ));
    }
    trials.push(Trial::test("malformed_spec::names_its_line", || {
        let errors = Book::load(&fixtures().join("bad_spec_book"))
            .expect_err("a spec with an unknown key must not load");
        let e = &errors[0];
        if !(e.file.ends_with("src/bad.md")
            && e.line == 8
            && e.message.contains("unknown field `blocks`"))
        {
            return Err(format!("expected src/bad.md:8 unknown field `blocks`, got {e}").into());
        }
        Ok(())
    }));
    libtest_mimic::run(&args, trials).exit();
}

fn trial(
    name: String,
    lang: Lang,
    test: impl FnOnce() -> Result<(), Failed> + Send + 'static,
) -> Trial {
    let kind = BackendKind::for_lang(lang);
    match RUNNER.backend(kind) {
        Ok(_) => Trial::test(name, test).with_kind(kind.to_string()),
        Err(e) => Trial::test(name, test)
            .with_kind(format!("skipped: {e}"))
            .with_ignored_flag(true),
    }
}

fn expect(report: &runner::RunReport, status: Status) -> Result<(), Failed> {
    if report.status == status {
        Ok(())
    } else {
        Err(format!("expected {}, got:\n{}", status.word(), report.to_text()).into())
    }
}
