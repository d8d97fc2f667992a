//! Fixture books, one folder per case: each chapter goes through the real
//! preprocessing (and the real wgpu backend) and the page or error is checked
//! for what a reader or author would see.
//!
//! A harness of its own (libtest-mimic): the engine runs kernels in child
//! processes of this very binary, which must serve them before anything else.

use libtest_mimic::{Arguments, Trial};
use mdbook_puzzles::config::OnFailure;
use mdbook_puzzles::{Session, process_chapter};
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use runner::book::BookFiles;
use runner::perf;
use runner::perf::record::{BenchEntry, Entry, Recording, hash, spec_hash};
use runner::run::Runner;
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

fn session(on_failure: OnFailure) -> Session {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    Session::new(runner(), on_failure, vec![], root)
}

/// These cases need wgpu; without it they fail loudly rather than pass.
fn require_wgpu(runner: &Runner) {
    if let Err(e) = runner.backend(BackendKind::Wgpu) {
        panic!("these fixtures run WGSL and need a wgpu adapter: {e}");
    }
}

fn page_shows_config_skeleton_solution_and_verdicts() {
    let session = session(OnFailure::Bail);
    require_wgpu(&session.runner);
    let (content, file) = chapter("passing");
    let (page, problems) = process_chapter(&content, &file, &session).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    for part in [
        "Prose stays.",
        "More prose.",
        "| kernel | `add_one` |",
        "| block (threads) | 4 × 1 × 1 |",
        "| expected `out` | `[1.0, 2.0, 3.0, 4.0]` |",
        "1. Add one.",
        "// FILL ME IN (roughly 1 line)",
        // Each value padded to the width of the one it is compared with.
        "out:      [  ·,   ·,   ·,   ·]",
        "<strong>FAIL</strong>, as expected before you solve it",
        "<summary>WGSL solution (<code>",
        // The heading names the learner's copy and the command that checks it.
        "your copy is `.learner/fx/",
        "check it with `runner check fx --lang wgsl`",
        "out[lid.x] = a[lid.x] + 1.0;",
        "out:      [1.0, 2.0, 3.0, 4.0]",
        "</span>: <strong>PASS</strong>",
        // Run through wgpu: "On the CPU, through Vulkan" or "On <a GPU>, through …".
        ", through ",
        "kernel time",
    ] {
        assert!(page.contains(part), "the page lacks {part:?}:\n{page}");
    }
    let shown = mdbook_puzzles::playground::without_bundles(&page);
    assert!(
        !shown.contains("```puzzle") && !shown.contains("BEGIN PUZZLE"),
        "{shown}"
    );
    // The playground's box carries the puzzle, packed, and it reads back as
    // the chapter's puzzle from the bundle alone (what the browser does).
    let start = page
        .find("<script type=\"application/json\" class=\"puzzle-bundle\">")
        .expect("a playground");
    let json = &page[start..];
    let json = &json[json.find('>').unwrap() + 1..json.find("</script>").unwrap()];
    let bundle: puzzle_core::chapter::bundle::Bundle =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let puzzle = bundle.puzzle().unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(puzzle.id(), "fx");
    assert!(
        !bundle.chapter.is_absolute() && bundle.files.keys().all(|f| f.is_relative()),
        "a bundle names no path of the machine that built it: {bundle:?}"
    );
}

/// (case, the error names, under bail).
const BAIL_CASES: &[(&str, &str)] = &[
    // The `;` missing on line 25 is found at line 27's `}`: reported where it belongs.
    (
        "compile_error",
        "chapter.md:25: `;` is missing at the end of this line (line 27 begins with",
    ),
    ("skeleton_passes", "skeleton of `fx` already passes"),
    // "does not pass" names the kernel's first line (line 20, under its fence).
    (
        "wrong_solution",
        "does not pass: tests/fixtures/wrong_solution/src/chapter.md:20:",
    ),
    ("wrong_solution", "4 of 4 elements of `out` are wrong"),
    ("malformed_spec", "chapter.md:7: unknown field `grd`"),
    // A debugging case whose kernel as given shows another bug than its spec states.
    (
        "given_wrong_bug",
        "WGSL kernel as given of `fx` must show a data race (its `bug: race`), but the \
         checker finds an access out of bounds",
    ),
];

/// A debugging case: the page shows the whole kernel as given (no gap, no
/// marker), its run with the bug the spec states, and the picture of it;
/// the fix is in the solution's section.
fn a_kernel_given_with_a_bug_shows_the_bug() {
    let session = session(OnFailure::Bail);
    require_wgpu(&session.runner);
    let (content, file) = chapter("given_with_bug");
    let (page, problems) = process_chapter(&content, &file, &session).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let (given, solution) = page
        .split_once("<summary>WGSL solution")
        .expect("a solution section");
    for part in [
        "**WGSL — the kernel as given**: it has one bug. Your copy is `.learner/fx/",
        "<div class=\"puzzle-given\">",
        "    out[lid.x] = a[lid.x] + 1.0;\n}",
        "What it does, as given:",
        "<strong>FAIL</strong>",
        // At the line of the learner's copy, which holds exactly this text.
        "fx.wgsl:6: out-of-bounds index: invocation (",
        "as the CPU checker traced the kernel as given",
        "<svg",
    ] {
        assert!(
            given.contains(part),
            "the kernel as given lacks {part:?}:\n{given}"
        );
    }
    let given = mdbook_puzzles::playground::without_bundles(given);
    for absent in ["FILL ME IN", "AS GIVEN", "if (lid.x < size)"] {
        assert!(
            !given.contains(absent),
            "{absent:?} gives the bug away:\n{given}"
        );
    }
    for part in [
        "if (lid.x < size) {",
        "</span>: <strong>PASS</strong>",
        "traced this solution",
    ] {
        assert!(
            solution.contains(part),
            "the solution lacks {part:?}:\n{solution}"
        );
    }
}

fn bail_stops_with_the_problem_and_its_place() {
    let bail = session(OnFailure::Bail);
    require_wgpu(&bail.runner);
    for (case, message) in BAIL_CASES {
        let (content, file) = chapter(case);
        let error = process_chapter(&content, &file, &bail)
            .expect_err(case)
            .to_string();
        assert!(error.contains(message), "{case}: {error}");
    }
}

fn continue_renders_the_problem_into_the_page() {
    let keep_going = session(OnFailure::Continue);
    require_wgpu(&keep_going.runner);
    for (case, message) in BAIL_CASES {
        let (content, file) = chapter(case);
        let (page, problems) = process_chapter(&content, &file, &keep_going).unwrap();
        assert_eq!(problems.len(), 1, "{case}: {problems:?}");
        let boxed = [
            "This kernel failed the book's check",
            "This block could not be processed",
        ];
        assert!(boxed.iter().any(|b| page.contains(b)), "{case}:\n{page}");
        // A kernel's failure stands inside its own language's section, under
        // a banner at the top of the page, where a reader may be looking.
        if let Some(at) = page.find("This kernel failed the book's check") {
            let section = page.find("puzzle-kernel puzzle-wgsl").unwrap_or(usize::MAX);
            assert!(
                section < at,
                "{case}: the box is outside its section:\n{page}"
            );
            assert!(
                page.starts_with("<div class=\"puzzle-error puzzle-banner\">"),
                "{case}: no banner on top:\n{page}"
            );
        }
        assert!(
            page.contains(message),
            "{case}: the page lacks {message:?}:\n{page}"
        );
    }
}

/// Two chapters of one book declare the same id: the second is refused,
/// naming both places, under bail and under continue, while the first still
/// renders. (A book that does not load is read chapter by chapter, which
/// alone could not see the clash.)
fn duplicate_ids_across_chapters_are_refused() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/duplicate_ids");
    let file = root.join("src/two.md");
    let content = std::fs::read_to_string(&file).unwrap();
    let first = root.join("src/one.md");
    let want =
        "two.md:6: puzzle id `fx` is already used at tests/fixtures/duplicate_ids/src/one.md:6";
    let bail = Session::new(runner(), OnFailure::Bail, vec![], root.clone());
    require_wgpu(&bail.runner);
    let error = process_chapter(&content, &file, &bail)
        .unwrap_err()
        .to_string();
    assert!(error.contains(want), "{error}");
    let keep_going = Session::new(runner(), OnFailure::Continue, vec![], root);
    let (page, problems) = process_chapter(&content, &file, &keep_going).unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(page.contains(want), "{page}");
    let first_text = std::fs::read_to_string(&first).unwrap();
    let (page, problems) = process_chapter(&first_text, &first, &keep_going).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert!(page.contains("<strong>PASS</strong>"), "{page}");
}

/// A chapter whose kernel include fails: under continue, the page names the
/// include's line and shows the prose, but no block raw (no solution, no markers).
fn a_chapter_that_cannot_be_read_shows_no_raw_block() {
    let (content, file) = chapter("include_missing");
    let keep_going = session(OnFailure::Continue);
    let (page, problems) = process_chapter(&content, &file, &keep_going).unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(page.contains("chapter.md:22:"), "{page}");
    assert!(page.contains("Prose stays."), "{page}");
    assert!(
        page.contains("The WGSL kernel of `fx` is not shown until the problem"),
        "{page}"
    );
    for raw in ["```puzzle", "id: fx", "expect:"] {
        assert!(!page.contains(raw), "the page shows {raw:?}:\n{page}");
    }
    // Once, in the message; not as the block's raw text.
    assert_eq!(page.matches("{{#include").count(), 1, "{page}");
}

fn chapters_without_puzzles_are_untouched() {
    let (content, file) = chapter("no_puzzles");
    let (page, problems) = process_chapter(&content, &file, &session(OnFailure::Bail)).unwrap();
    assert_eq!(page, content);
    assert!(problems.is_empty());
}

/// A recording whose hashes match is shown, labelled; one whose kernel changed is marked stale.
fn recorded_gpu_results_are_shown_or_marked_stale() {
    let mut session = session(OnFailure::Bail);
    require_wgpu(&session.runner);
    let (content, file) = chapter("passing");
    let puzzle = puzzle_core::chapter::puzzle::chapter_puzzles(
        &content,
        &file,
        &BookFiles::new(file.parent().unwrap()),
    )
    .unwrap()
    .remove(0);
    let lang = Lang::Wgsl;
    let solution = puzzle.kernel(lang).unwrap().solution().text;
    let report = session
        .runner
        .run(&puzzle, lang, Variant::Solution)
        .unwrap();
    let mut device = report.device.clone().unwrap();
    device.name = "NVIDIA Imaginary 9000".into();
    let entry = Entry {
        puzzle: "fx".into(),
        lang,
        variant: Variant::Solution,
        spec_hash: spec_hash(&puzzle.spec.text),
        source_hash: hash(&solution),
        report,
    };
    let recording = |entry: Entry| Recording {
        awaiting: vec![],
        device: device.clone(),
        date: "2026-11-21".into(),
        runner_version: "0.1.0".into(),
        ceilings: None,
        entries: vec![entry],
        benches: vec![],
    };

    session.set_recordings(vec![recording(entry.clone())]);
    let (page, _) = process_chapter(&content, &file, &session).unwrap();
    assert!(
        page.contains("Recorded on NVIDIA Imaginary 9000, 2026-11-21"),
        "{page}"
    );
    assert!(!page.contains("is stale"), "{page}");
    // Built without a GPU, the page shows the GPU's run first and folds
    // its own run on the CPU under it; that one printed what the GPU
    // printed: said, not repeated.
    let gpu = page.find("Recorded on NVIDIA Imaginary 9000").unwrap();
    let cpu = page
        .find("On the CPU: the same output as the run above")
        .expect(&page);
    assert!(gpu < cpu, "{page}");

    // A GPU whose output differs shows it in full.
    let mut differing = entry.clone();
    differing.report.checks[0].got[0] = Some(42.0);
    session.set_recordings(vec![recording(differing)]);
    let (page, _) = process_chapter(&content, &file, &session).unwrap();
    assert!(!page.contains("the same output as"), "{page}");
    assert!(page.contains("[42.0, "), "{page}");

    let mut changed = entry;
    changed.source_hash = hash("an older kernel");
    session.set_recordings(vec![recording(changed)]);
    let (page, _) = process_chapter(&content, &file, &session).unwrap();
    assert!(
        page.contains("A result recorded on NVIDIA Imaginary 9000, 2026-11-21 is stale"),
        "{page}"
    );
    assert!(
        !page.contains("Recorded on NVIDIA Imaginary 9000"),
        "{page}"
    );
}

/// NVRTC's message reaches the page at the chapter's line (the kernel is inline here).
fn cuda_compile_errors_point_at_the_chapter_line() {
    let session = session(OnFailure::Continue);
    if let Err(e) = session.runner.backend(BackendKind::Cuda) {
        panic!("this fixture compiles CUDA C and needs NVRTC: {e}");
    }
    let (content, file) = chapter("cuda_compile_error");
    let (page, problems) = process_chapter(&content, &file, &session).unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        page.contains("chapter.md:21: error: identifier \"one\" is undefined"),
        "{page}"
    );
}

/// A roofline block: the recorded run under the recorded ceilings (table and
/// SVG), the seeds' datasheet roofs beside it; without ceilings, a sentence.
fn roofline_blocks_chart_recorded_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/roofline");
    let file = root.join("src/chapter.md");
    let content = std::fs::read_to_string(&file).unwrap();
    let mut session = Session::new(runner(), OnFailure::Bail, vec![], root);
    require_wgpu(&session.runner);

    let (page, _) = process_chapter(&content, &file, &session).unwrap();
    assert!(
        page.contains("No WGSL results measured on a GPU with its ceilings yet"),
        "{page}"
    );
    assert!(
        page.contains("| NVIDIA A100 | 1,555 | 19,500 | 12.5 |"),
        "{page}"
    );

    // A recording from an imaginary GPU whose empty kernel takes 2 µs.
    record_on_an_imaginary_gpu(&mut session, &content, &file, true, 2.0);
    let (page, _) = process_chapter(&content, &file, &session).unwrap();
    for text in [
        "**Fixture kernels**, recorded on the Imaginary 9000 (NVIDIA Imaginary 9000) on 2026-11-22",
        // One table, the GPU a column group.
        "<th colspan=\"2\">Imaginary 9000</th>",
        // Each roof with what set it: the copy stream, as fx reads and writes alike.
        "memory copy 1,000 GB/s (a copy stream kernel, through WGSL)",
        "FP32 20,000 GFLOP/s",
        // What was measured first, then the spec's counts.
        "| 4 | 32 | 0.125 |",
        "<svg",
        "memory roof (copy) 1,000 GB/s",
        "<li><code>fx</code>: 0.125 FLOP/byte",
        // Recorded times are set against the recorded empty-kernel time.
        "the 2.0 µs of an empty kernel on this GPU (an output of 4 elements)",
    ] {
        assert!(page.contains(text), "missing {text:?}:\n{page}");
    }

    let broken = content.replace("puzzles: [fx]", "puzzles: [nope]");
    let err = process_chapter(&broken, &file, &session)
        .unwrap_err()
        .to_string();
    assert!(err.contains("nope"), "{err}");
}

/// The fixture's WGSL solution run here and kept as a recording of the
/// "NVIDIA Imaginary 9000" (on 2026-11-22), with its read and write roofs
/// or without, and an empty kernel of `launch_us`.
fn record_on_an_imaginary_gpu(
    session: &mut Session,
    content: &str,
    file: &Path,
    read_and_write: bool,
    launch_us: f64,
) {
    let puzzle = puzzle_core::chapter::puzzle::chapter_puzzles(
        content,
        file,
        &BookFiles::new(file.parent().unwrap()),
    )
    .unwrap()
    .remove(0);
    let lang = Lang::Wgsl;
    let report = session
        .runner
        .run(&puzzle, lang, Variant::Solution)
        .unwrap();
    let mut device = report.device.clone().unwrap();
    device.name = "NVIDIA Imaginary 9000".into();
    let measured = |value: f64| perf::Measured {
        value,
        timing: report.timing.clone().unwrap(),
    };
    session.set_recordings(vec![Recording {
        awaiting: vec![],
        device,
        date: "2026-11-22".into(),
        runner_version: "0.1.0".into(),
        ceilings: Some(perf::Ceilings {
            bandwidth_gb_s: measured(1000.0),
            read_gb_s: read_and_write.then(|| measured(1100.0)),
            write_gb_s: read_and_write.then(|| measured(900.0)),
            fp32_gflop_s: measured(20_000.0),
            bf16_tensor_gflop_s: None,
            fp8_tensor_gflop_s: None,
            launch_us: measured(launch_us),
            stream_bytes: 1 << 30,
            date: "2026-11-22".into(),
        }),
        entries: vec![Entry {
            puzzle: "fx".into(),
            lang,
            variant: Variant::Solution,
            spec_hash: spec_hash(&puzzle.spec.text),
            source_hash: hash(&puzzle.kernel(lang).unwrap().solution().text),
            report,
        }],
        benches: vec![],
    }]);
}

/// "Launch-bound" explained once a page, in words: a page whose two
/// roofline blocks and recorded run all ran within a few empty-kernel
/// launches says what that means at the first of them, and the others
/// point to it.
fn launch_bound_is_explained_once_a_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/roofline");
    let file = root.join("src/chapter.md");
    let content = std::fs::read_to_string(&file).unwrap()
        + "\nThe same kernel, charted again.\n\n```roofline\ntitle: Fixture kernels again\nlang: \
           wgsl\npuzzles: [fx]\n```\n";
    let mut session = Session::new(runner(), OnFailure::Bail, vec![], root);
    require_wgpu(&session.runner);
    // An empty kernel slower than any run of the fixture: every time on
    // the page is launch-bound.
    record_on_an_imaginary_gpu(&mut session, &content, &file, false, 1_000_000.0);
    let (page, _) = process_chapter(&content, &file, &session).unwrap();
    // Both blocks and the recorded run are launch-bound...
    assert!(page.contains("**Fixture kernels again**"), "{page}");
    assert!(page.matches("Launch-bound").count() >= 3, "{page}");
    // ...and what that means is said once.
    let explained = page.matches("the launch, not the kernel").count();
    assert_eq!(explained, 1, "explained {explained} times:\n{page}");
}

/// A roofline block at the specs' `bench` sizes: each recorded benchmark is a
/// row with its sizes, spread and check; a case not recorded says so; the
/// target is met or missed against the recorded ceilings; a changed kernel
/// makes the benchmark stale.
fn roofline_blocks_show_recorded_benchmarks_and_targets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/roofline_bench");
    let file = root.join("src/chapter.md");
    let content = std::fs::read_to_string(&file).unwrap();
    let mut session = Session::new(runner(), OnFailure::Bail, vec![], root);
    require_wgpu(&session.runner);
    let puzzle = puzzle_core::chapter::puzzle::chapter_puzzles(
        &content,
        &file,
        &BookFiles::new(file.parent().unwrap()),
    )
    .unwrap()
    .remove(0);
    let lang = Lang::Wgsl;
    let backend = session.runner.backend(BackendKind::Wgpu).unwrap();
    let case = puzzle.spec.bench_cases().remove(0);
    let options = perf::Options {
        file: None,
        overrides: case.clone(),
        samples: 3,
        warmup: 1,
        timeout: std::time::Duration::from_secs(30),
        buffer_sets: Some(1),
    };
    let report = perf::bench(&puzzle, backend, &options, None)
        .unwrap()
        .unwrap();
    assert_eq!(report.checked, perf::Checked::Passed);
    let mut device = report.device.clone();
    device.name = "NVIDIA Imaginary 9000".into();
    let recording = |bandwidth: f64, source: &str| {
        let measured = |value: f64| perf::Measured {
            value,
            timing: report.timing.clone(),
        };
        Recording {
            awaiting: vec![],
            device: device.clone(),
            date: "2026-11-22".into(),
            runner_version: "0.1.0".into(),
            ceilings: Some(perf::Ceilings {
                bandwidth_gb_s: measured(bandwidth),
                read_gb_s: None,
                write_gb_s: None,
                fp32_gflop_s: measured(1e9),
                bf16_tensor_gflop_s: None,
                fp8_tensor_gflop_s: None,
                launch_us: measured(1e-6),
                stream_bytes: 1 << 30,
                date: "2026-11-22".into(),
            }),
            entries: vec![],
            benches: vec![BenchEntry {
                puzzle: "fx".into(),
                lang,
                case: case.clone(),
                spec_hash: spec_hash(&puzzle.spec.text),
                source_hash: hash(source),
                outcome: Ok(report.clone()),
                date: Some("2026-11-22".into()),
            }],
        }
    };
    let solution = puzzle.kernel(lang).unwrap().solution().text;
    let cases: [(f64, &str, &[&str]); 3] = [
        // A roof far below the achieved rate: the target is met.
        (
            1e-9,
            &solution,
            &[
                "| 65.5 k | 524.3 k | 0.125 | ✔ |",
                "| `fx` | SIZE=2^20 | <span class=\"puzzle-why\">not benchmarked on this GPU</span> | | | | | 1.0 M | 8.4 M | 0.125 | |",
                "puzzle-target met",
                "Speed-up of <code>fx</code> over <code>fx</code> (the ratio of their median times): at SIZE=2^16, 1.00× on the Imaginary 9000",
                "<svg",
            ],
        ),
        // A roof far above it: missed.
        (
            1e12,
            &solution,
            &["puzzle-target missed", "<strong>missed</strong>"],
        ),
        // The kernel changed since the recording: stale, never shown as current.
        (
            1e-9,
            "changed",
            &["stale: the spec or kernel changed since 2026-11-22"],
        ),
    ];
    for (bandwidth, source, wanted) in cases {
        session.set_recordings(vec![recording(bandwidth, source)]);
        let (page, _) = process_chapter(&content, &file, &session).unwrap();
        for text in wanted {
            assert!(page.contains(text), "missing {text:?}:\n{page}");
        }
    }

    // A library timed on the same GPU: each kernel's rows at its size as a
    // percentage of its rate, and the target against it.
    session.set_recordings(vec![recording(1e-9, &solution)]);
    let page = process_chapter(&content, &file, &session).unwrap().0;
    assert!(
        page.contains("The library (`add_ten`) has not been timed on the Imaginary 9000"),
        "{page}"
    );
    // The library timed on the kernel's own inputs, as `runner inputs` writes them.
    let same = report.inputs.clone();
    assert!(same.is_some(), "a benchmark says what it was timed on");
    let other = same.clone().map(|i| runner::perf::BenchInputs {
        digest: "other bytes".into(),
        ..i
    });
    let library = |times: f64, date: &str, inputs: &Option<runner::perf::BenchInputs>| {
        perf::Baseline {
            library: "libadd".into(),
            software: "libadd 1.0".into(),
            device: device.name.clone(),
            date: date.into(),
            cases: vec![perf::BaselineCase {
                name: "add_ten".into(),
                constants: [("SIZE".to_string(), 65536)].into(),
                flops: 65536,
                bytes: None,
                // A library's steady times (± 2 %): a spread wider than a
                // target's margin would leave the target undecided.
                timing: puzzle_core::backend_contract::timing::Timing {
                    median_ms: report.timing.median_ms * times,
                    min_ms: report.timing.median_ms * times * 0.99,
                    max_ms: report.timing.median_ms * times * 1.01,
                    ..report.timing.clone()
                },
                max_relative_error: 0.0,
                inputs: inputs.clone(),
                inputs_of: Some("fx".into()),
            }],
        }
    };
    // (library's time as a multiple of the kernel's, the library's day,
    // its inputs, what the page must say, what it must not)
    type Case<'a> = (
        f64,
        &'a str,
        &'a Option<runner::perf::BenchInputs>,
        &'a [&'a str],
        &'a [&'a str],
    );
    let cases: [Case; 5] = [
        (
            2.0,
            "2026-11-22",
            &same,
            &[
                "**Against libadd**",
                "On the Imaginary 9000 (libadd 1.0), on 2026-11-22",
                "<td><code>fx</code><br><small>SIZE=2^16</small></td>",
                "<td>200.0%</td>",
                "200.0 % on the Imaginary 9000 (4.00× the target): <strong>met</strong>",
            ],
            &["<small>kernel: ", "on different days"],
        ),
        (
            0.25,
            "2026-11-22",
            &same,
            &[
                "<td>25.0%</td>",
                "25.0 % on the Imaginary 9000 (0.50× the target): <strong>missed</strong>",
            ],
            &[],
        ),
        // The library timed on a later day than the kernel: the pair is marked.
        (
            2.0,
            "2026-11-23",
            &same,
            &[
                "<td>200.0%<br><small>kernel: 2026-11-22</small></td>",
                "with the library's time of 2026-11-23: timed on different days",
            ],
            &[],
        ),
        // Other bytes on the library's side: no ratio, and no verdict.
        (
            2.0,
            "2026-11-22",
            &other,
            &[
                "Against libadd: not compared on the Imaginary 9000, for the library and the kernel were timed on different inputs.",
            ],
            &["200.0%", "200.0 % on the"],
        ),
        // A library timed on data of its own (every baseline before they were kept).
        (
            2.0,
            "2026-11-22",
            &None,
            &["not compared on the Imaginary 9000, for the library was timed on data of its own"],
            &["200.0%"],
        ),
    ];
    for (times, date, inputs, wanted, unwanted) in cases {
        session.baselines = vec![library(times, date, inputs)];
        let page = process_chapter(&content, &file, &session).unwrap().0;
        for text in wanted {
            assert!(page.contains(text), "missing {text:?}:\n{page}");
        }
        for text in unwanted {
            assert!(!page.contains(text), "unexpected {text:?}:\n{page}");
        }
    }

    let broken = content.replace("targets:\n  - { puzzle: fx", "targets:\n  - { puzzle: fy");
    let err = process_chapter(&broken, &file, &session)
        .unwrap_err()
        .to_string();
    assert!(err.contains("`fy`, which is not in `puzzles`"), "{err}");
}

fn main() {
    // Kernels run in child processes of this binary: serve them first.
    runner::serve_if_child();
    let tests: &[(&str, fn())] = &[
        (
            "page_shows_config_skeleton_solution_and_verdicts",
            page_shows_config_skeleton_solution_and_verdicts,
        ),
        (
            "bail_stops_with_the_problem_and_its_place",
            bail_stops_with_the_problem_and_its_place,
        ),
        (
            "continue_renders_the_problem_into_the_page",
            continue_renders_the_problem_into_the_page,
        ),
        (
            "duplicate_ids_across_chapters_are_refused",
            duplicate_ids_across_chapters_are_refused,
        ),
        (
            "a_chapter_that_cannot_be_read_shows_no_raw_block",
            a_chapter_that_cannot_be_read_shows_no_raw_block,
        ),
        (
            "a_kernel_given_with_a_bug_shows_the_bug",
            a_kernel_given_with_a_bug_shows_the_bug,
        ),
        (
            "chapters_without_puzzles_are_untouched",
            chapters_without_puzzles_are_untouched,
        ),
        (
            "recorded_gpu_results_are_shown_or_marked_stale",
            recorded_gpu_results_are_shown_or_marked_stale,
        ),
        (
            "cuda_compile_errors_point_at_the_chapter_line",
            cuda_compile_errors_point_at_the_chapter_line,
        ),
        (
            "roofline_blocks_chart_recorded_runs",
            roofline_blocks_chart_recorded_runs,
        ),
        (
            "roofline_blocks_show_recorded_benchmarks_and_targets",
            roofline_blocks_show_recorded_benchmarks_and_targets,
        ),
        (
            "launch_bound_is_explained_once_a_page",
            launch_bound_is_explained_once_a_page,
        ),
    ];
    let trials = tests
        .iter()
        .map(|&(name, test)| {
            Trial::test(name, move || {
                test();
                Ok(())
            })
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
