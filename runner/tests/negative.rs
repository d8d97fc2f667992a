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

/// A short timeout: the endless-loop fixture must be stopped quickly.
static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        timeout: std::time::Duration::from_secs(5),
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
/// Files listed in [`NEED_A_GPU`] only show their fault when run.
const WRONG_KERNELS: &[(&str, &str, Status, &str, Option<usize>)] = &[
    (
        "p03_no_guard.cu",
        "p03_guard",
        Status::Fail,
        "out-of-bounds write: `out` has 4 elements, but something wrote index 4, 5, 6, 7",
        None,
    ),
    (
        "p03_write_before_start.cu",
        "p03_guard",
        Status::Fail,
        "something wrote index -1",
        None,
    ),
    (
        "p01_endless_loop.cu",
        "p01_map",
        Status::Error,
        "did not finish within 5s",
        None,
    ),
    (
        "p01_illegal_address.cu",
        "p01_map",
        Status::Error,
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        None,
    ),
    (
        "p03_missing_param.cu",
        "p03_guard",
        Status::CompileError,
        "takes 2 parameter(s), but the spec passes 3",
        Some(2),
    ),
    (
        "p03_pointer_for_scalar.cu",
        "p03_guard",
        Status::CompileError,
        "should be the value `size` (unsigned int)",
        Some(2),
    ),
    (
        "p01_wrong_name.cu",
        "p01_map",
        Status::CompileError,
        "no kernel named `add_10`",
        Some(1),
    ),
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

/// Fixtures whose fault shows only on a GPU; skipped, by name, without one.
const NEED_A_GPU: &[&str] = &[
    "p03_no_guard.cu",
    "p03_write_before_start.cu",
    "p01_endless_loop.cu",
    "p01_illegal_address.cu",
    "too_much_dynamic_shared",
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
    (
        "too_much_shared",
        Lang::Wgsl,
        "bytes of workgroup memory; this adapter allows",
    ),
    (
        "too_much_dynamic_shared",
        Lang::Cuda,
        "of dynamic shared memory (plus 0 static) per block; this GPU allows at most",
    ),
    // NVRTC does not check the limit; the runner reads the PTX before launching.
    (
        "too_much_shared",
        Lang::Cuda,
        "declare 262144 bytes of static __shared__ memory",
    ),
];

/// Puzzles of the `steps_book` fixture: (id, status of its solution, phrase in the report).
const STEPS_BOOK: &[(&str, Status, &str)] = &[
    // Two launches share a scratch buffer; the second sees the first's writes.
    ("two_steps", Status::Pass, "PASS"),
    // A grid too small for the data: the verdict names the uncovered elements.
    (
        "too_small_grid",
        Status::Fail,
        "5 of 9 elements of `out` were never written: out[4], out[5], out[6], out[7], out[8]",
    ),
    // Guard bands are checked on every buffer, not only on outputs.
    (
        "scratch_overrun",
        Status::Fail,
        "out-of-bounds write: `tmp` has 4 elements, but something wrote index 4, 5, 6, 7",
    ),
];

fn main() {
    // A CUDA launch isolated in a child process re-enters here.
    runner::backend::isolate::serve_if_child();
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for &(file, puzzle, status, message, line) in WRONG_KERNELS {
        let path = fixtures().join("kernels").join(file);
        let lang = Lang::from_extension(path.extension().unwrap().to_str().unwrap()).unwrap();
        trials.push(trial(
            format!("wrong_kernel::{file}"),
            lang,
            NEED_A_GPU.contains(&file),
            move || {
                let book = Book::load(&root()).map_err(|e| format!("{e:?}"))?;
                let puzzle = book.find(puzzle)?;
                let source = SourceText::read(&path).map_err(|e| e.to_string())?;
                let report = RUNNER
                    .run_source(puzzle, lang, Variant::File, &source, None)
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
            },
        ));
    }
    for &(puzzle, lang, message) in IMPOSSIBLE_LAUNCHES {
        let needs_gpu = lang == Lang::Cuda && NEED_A_GPU.contains(&puzzle);
        trials.push(trial(
            format!("impossible_launch::{puzzle}::{lang}"),
            lang,
            needs_gpu,
            move || {
                let book =
                    Book::load(&fixtures().join("limits_book")).map_err(|e| format!("{e:?}"))?;
                let report = RUNNER
                    .run(book.find(puzzle)?, lang, Variant::Solution)
                    .map_err(|e| e.to_string())?;
                expect(&report, Status::Error)?;
                let said = report.message.clone().unwrap_or_default();
                if !said.to_lowercase().contains(&message.to_lowercase()) {
                    return Err(format!("expected {message:?}, got {said:?}").into());
                }
                Ok(())
            },
        ));
    }
    // A fault or a hang must not poison the next puzzle: the CUDA context lives in a child process.
    trials.push(trial(
        "isolation::the_next_puzzle_still_passes".into(),
        Lang::Cuda,
        true,
        || {
            let book = Book::load(&root()).map_err(|e| format!("{e:?}"))?;
            let puzzle = book.find("p01_map")?;
            for bad in ["p01_illegal_address.cu", "p01_endless_loop.cu"] {
                let source = SourceText::read(&fixtures().join("kernels").join(bad))
                    .map_err(|e| e.to_string())?;
                let report = RUNNER
                    .run_source(puzzle, Lang::Cuda, Variant::File, &source, None)
                    .map_err(|e| e.to_string())?;
                expect(&report, Status::Error)?;
                let good = RUNNER
                    .run(puzzle, Lang::Cuda, Variant::Solution)
                    .map_err(|e| e.to_string())?;
                expect(&good, Status::Pass)?;
            }
            Ok(())
        },
    ));
    // The other side of the limit: 100 KiB of dynamic shared memory is allowed once the kernel opts in.
    trials.push(trial(
        "gpu_feature::dynamic_shared_beyond_48k".into(),
        Lang::Cuda,
        true,
        || {
            let book = Book::load(&fixtures().join("cuda_book")).map_err(|e| format!("{e:?}"))?;
            let report = RUNNER
                .run(
                    book.find("big_dynamic_shared")?,
                    Lang::Cuda,
                    Variant::Solution,
                )
                .map_err(|e| e.to_string())?;
            expect(&report, Status::Pass)
        },
    ));
    // A kernel that is right only at the teaching size: the stress run must catch it.
    trials.push(trial(
        "stress::catches_what_the_teaching_size_hides".into(),
        Lang::Wgsl,
        false,
        || {
            let book = Book::load(&root()).map_err(|e| format!("{e:?}"))?;
            let puzzle = book.find("p06_blocks")?;
            let path = fixtures().join("kernels/p06_hard_coded_size.wgsl");
            let source = SourceText::read(&path).map_err(|e| e.to_string())?;
            let teaching = RUNNER
                .run_source(puzzle, Lang::Wgsl, Variant::File, &source, None)
                .map_err(|e| e.to_string())?;
            expect(&teaching, Status::Pass)?;
            let case = puzzle
                .spec
                .stress_cases()
                .into_iter()
                .next()
                .ok_or("p06_blocks declares no stress case")?;
            let stressed = RUNNER
                .run_source(puzzle, Lang::Wgsl, Variant::File, &source, Some(&case))
                .map_err(|e| e.to_string())?;
            expect(&stressed, Status::Fail)?;
            let text = stressed.to_text();
            if !text.contains("elements of `out` were never written") || !text.contains("are wrong")
            {
                return Err(format!(
                    "the stress report should name unwritten and wrong elements:\n{text}"
                )
                .into());
            }
            Ok(())
        },
    ));
    // Launch sequences and coverage (fixture book `steps_book`), on each backend.
    for lang in Lang::ALL {
        for &(puzzle, status, message) in STEPS_BOOK {
            trials.push(trial(
                format!("steps_book::{puzzle}::{lang}"),
                lang,
                lang == Lang::Cuda,
                move || {
                    let book =
                        Book::load(&fixtures().join("steps_book")).map_err(|e| format!("{e:?}"))?;
                    let report = RUNNER
                        .run(book.find(puzzle)?, lang, Variant::Solution)
                        .map_err(|e| e.to_string())?;
                    expect(&report, status)?;
                    let text = report.to_text();
                    if !text.contains(message) {
                        return Err(format!("the report lacks {message:?}:\n{text}").into());
                    }
                    Ok(())
                },
            ));
        }
    }
    // Each step's kernel is checked against that step's args, before any launch.
    trials.push(trial(
        "steps_book::parameters_checked_per_step".into(),
        Lang::Cuda,
        false,
        || {
            let book = Book::load(&fixtures().join("steps_book")).map_err(|e| format!("{e:?}"))?;
            let path = fixtures().join("kernels/steps_wrong_params.cu");
            let source = SourceText::read(&path).map_err(|e| e.to_string())?;
            let report = RUNNER
                .run_source(
                    book.find("two_steps")?,
                    Lang::Cuda,
                    Variant::File,
                    &source,
                    None,
                )
                .map_err(|e| e.to_string())?;
            expect(&report, Status::CompileError)?;
            let d = report.diagnostics.first().ok_or("no diagnostic")?;
            if !(d.line == 7
                && d.message
                    .contains("`add_one` takes 2 parameter(s), but the spec passes 3"))
            {
                return Err(
                    format!("expected line 7, `add_one` takes 2 parameter(s); got {d}").into(),
                );
            }
            Ok(())
        },
    ));
    // Fixture books whose runs need a GPU are still read here: a typo must not wait for the GPU machine.
    trials.push(Trial::test("fixture_books::load", || {
        for book in ["limits_book", "cuda_book", "steps_book"] {
            Book::load(&fixtures().join(book)).map_err(|e| format!("{book}: {e:?}"))?;
        }
        Ok(())
    }));
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
    needs_gpu: bool,
    test: impl FnOnce() -> Result<(), Failed> + Send + 'static,
) -> Trial {
    let kind = BackendKind::for_lang(lang);
    match RUNNER.backend(kind) {
        Ok(b) if needs_gpu && !b.runs_kernels() => Trial::test(name, test)
            .with_kind(format!("skipped: needs a GPU for {kind}"))
            .with_ignored_flag(true),
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
