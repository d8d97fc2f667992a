//! How long the CPU simulator takes to check each WGSL solution at its
//! teaching size (parse, validate, run with every check, verify), and then
//! one large run: the book's block-boundary convolution over 16,384 elements
//! in workgroups of 256. A benchmark to read, not a test (the budgets are
//! 50 ms a teaching-size puzzle and 5 s for the large run, on one core):
//!
//! ```console
//! cargo build --release -p runner --example sim_bench
//! taskset -c 0 target/release/examples/sim_bench
//! ```
//!
//! `sim_bench large` runs only the large case; `sim_bench small` only the
//! teaching sizes. `sim_bench draw` measures what an access diagram costs:
//! each teaching-size check again with every access traced and the SVG
//! drawn (what `runner check --draw` adds), against the plain check (the
//! budget: at most 20 % more); `sim_bench draw p02` only the puzzles whose
//! id starts so.

use puzzle_core::assess::cases::{Case, Stage};
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::judge::report::Status;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::expr::Constants;
use runner::run::Runner;
use std::path::Path;
use std::time::{Duration, Instant};

/// The large case: the puzzle, and the spec constants it is run with.
const LARGE_PUZZLE: &str = "p11_conv_blocks";
const LARGE_SIZE: i64 = 16_384;
const LARGE_BLOCK: i64 = 256;
/// Runs of the large case; its median is reported.
const LARGE_RUNS: usize = 5;
/// Runs of each teaching-size puzzle.
const SMALL_RUNS: usize = 21;
/// Runs of each way of checking a puzzle when measuring the diagrams: their
/// differences are tens of microseconds.
const DRAW_RUNS: usize = 201;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("workspace root");
    let book = runner::book::load(root).expect("the book loads");
    let runner = Runner::new(Settings {
        timing_samples: 0,
        // The large run in an unoptimised build may take longer than the default limit.
        timeout: Duration::from_secs(600),
        ..Settings::default()
    });
    let only = std::env::args().nth(1);
    if only.as_deref() == Some("draw") {
        return draw(&book, &runner, std::env::args().nth(2));
    }
    if only.as_deref() != Some("large") {
        small(&book, &runner);
    }
    if only.as_deref() != Some("small") {
        large(&book, &runner);
    }
}

/// Every puzzle's WGSL solution at its teaching size.
fn small(book: &Book, runner: &Runner) {
    let mut worst = (0.0, String::new());
    for puzzle in &book.puzzles {
        let Some(kernel) = puzzle.kernel(Lang::Wgsl) else {
            continue;
        };
        let source = kernel.variant(Variant::Solution);
        let median = median_ms(SMALL_RUNS, || {
            check(runner, puzzle, &source, None);
        });
        println!(
            "{:<24} {median:>8.2} ms (median of {SMALL_RUNS})",
            puzzle.id()
        );
        if median > worst.0 {
            worst = (median, puzzle.id().to_string());
        }
    }
    println!("slowest: {} at {:.2} ms", worst.1, worst.0);
}

/// Every teaching-size WGSL solution small enough for the page's diagram,
/// checked plainly and then traced and drawn: the medians and the overhead.
fn draw(book: &Book, runner: &Runner, only: Option<String>) {
    println!(
        "{:<28} {:>10} {:>10} {:>15} {:>13} {:>9}",
        "puzzle", "check", "traced", "traced + drawn", "drawing alone", "overhead"
    );
    let mut overheads = Vec::new();
    let wanted = |p: &Puzzle| only.as_deref().is_none_or(|o| p.id().starts_with(o));
    for puzzle in book.puzzles.iter().filter(|p| wanted(p)) {
        let Some(kernel) = puzzle.kernel(Lang::Wgsl) else {
            continue;
        };
        // As the page: teaching sizes of up to 4,096 elements in all get a
        // diagram (Part III's are larger).
        let spec = puzzle_core::assess::execute::resolve(&puzzle.spec, &Case::teaching(), None)
            .expect("the teaching size resolves");
        if spec.elements() > 4096 {
            continue;
        }
        let source = kernel.variant(Variant::Solution);
        // The three ways in turn, run after run, so that a slower stretch of
        // the machine (another process, a frequency change) lands on all three.
        let report = runner
            .traced(puzzle, Lang::Wgsl, Variant::Solution, &source)
            .expect("runs");
        let accesses = report.accesses.as_deref().expect("a traced run");
        let [plain, traced, drawn, drawing] = interleaved_medians(
            DRAW_RUNS,
            &mut [
                &mut || check(runner, puzzle, &source, None),
                &mut || {
                    let report = runner
                        .traced(puzzle, Lang::Wgsl, Variant::Solution, &source)
                        .expect("runs");
                    assert!(report.accesses.is_some());
                },
                &mut || {
                    let report = runner
                        .traced(puzzle, Lang::Wgsl, Variant::Solution, &source)
                        .expect("runs");
                    let accesses = report.accesses.as_deref().expect("a traced run");
                    let svg = puzzle_core::draw::diagram::svg(
                        accesses,
                        puzzle.spec.raw.global_access.as_ref(),
                    );
                    assert!(svg.contains("<svg"));
                },
                // The drawing alone, from one traced run's accesses.
                &mut || {
                    let svg = puzzle_core::draw::diagram::svg(
                        accesses,
                        puzzle.spec.raw.global_access.as_ref(),
                    );
                    assert!(svg.contains("<svg"));
                },
            ],
        );
        let overhead = (drawn / plain - 1.0) * 100.0;
        overheads.push((overhead, puzzle.id().to_string()));
        println!(
            "{:<28} {plain:>7.3} ms {traced:>7.3} ms {drawn:>12.3} ms {drawing:>10.3} ms {overhead:>8.1} %",
            puzzle.id()
        );
    }
    overheads.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (median, worst) = (
        &overheads[overheads.len() / 2],
        &overheads[overheads.len() - 1],
    );
    println!(
        "{} puzzles (medians of {DRAW_RUNS} runs each): overhead median {:.1} %, least {:.1} % ({}), \
         most {:.1} % ({}); budget 20 %",
        overheads.len(),
        median.0,
        overheads[0].0,
        overheads[0].1,
        worst.0,
        worst.1
    );
}

/// The block-boundary convolution at 16,384 elements, 256 per workgroup:
/// the spec's `SIZE` and `TPB` changed like a stress run, and the kernel's
/// matching constants (`const TPB` and `@workgroup_size`) rewritten to agree.
fn large(book: &Book, runner: &Runner) {
    let puzzle = book.find(LARGE_PUZZLE).expect("the convolution puzzle");
    let kernel = puzzle.kernel(Lang::Wgsl).expect("a WGSL kernel");
    let source = resize(&kernel.variant(Variant::Solution), LARGE_BLOCK);
    let case = Constants::from([("SIZE".into(), LARGE_SIZE), ("TPB".into(), LARGE_BLOCK)]);
    let median = median_ms(LARGE_RUNS, || check(runner, puzzle, &source, Some(&case)));
    println!(
        "{LARGE_PUZZLE} SIZE={LARGE_SIZE} TPB={LARGE_BLOCK}: {:.0} ms (median of {LARGE_RUNS})",
        median
    );
}

/// The kernel with its workgroup size set to `block`: the line declaring
/// `const TPB` and the `@workgroup_size` attribute, each of which must occur once.
fn resize(source: &SourceText, block: i64) -> SourceText {
    let (mut consts, mut sizes) = (0, 0);
    let lines: Vec<_> = source
        .iter()
        .map(|(line, origin)| {
            let text = if line.trim_start().starts_with("const TPB: u32 =") {
                consts += 1;
                format!("const TPB: u32 = {block}u;")
            } else if let Some(at) = line.find("@workgroup_size(") {
                sizes += 1;
                format!("{}@workgroup_size({block})", &line[..at])
            } else {
                line.to_string()
            };
            (text, origin.clone())
        })
        .collect();
    assert_eq!(
        (consts, sizes),
        (1, 1),
        "{LARGE_PUZZLE}'s WGSL must declare `const TPB: u32` and `@workgroup_size(..)` once each, alone on their lines"
    );
    SourceText::from_lines(lines)
}

/// One checked run on the simulator, which must pass.
fn check(runner: &Runner, puzzle: &Puzzle, source: &SourceText, stress: Option<&Constants>) {
    let case = Case {
        stage: if stress.is_some() {
            Stage::Stress
        } else {
            Stage::Teaching
        },
        overrides: stress.cloned(),
        line: None,
    };
    let report = runner
        .run_on(BackendKind::Sim, puzzle, Variant::Solution, source, &case)
        .expect("runs");
    assert_eq!(report.status, Status::Pass, "{}", report.to_text());
}

/// The median wall time of `runs` calls of `f`, in milliseconds.
/// Each of `fs` run `runs` times, taking turns: their median times in ms.
fn interleaved_medians<const N: usize>(runs: usize, fs: &mut [&mut dyn FnMut(); N]) -> [f64; N] {
    let mut ms = [(); N].map(|_| Vec::with_capacity(runs));
    for _ in 0..runs {
        for (f, times) in fs.iter_mut().zip(ms.iter_mut()) {
            let started = Instant::now();
            f();
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    ms.map(|mut times| {
        times.sort_by(f64::total_cmp);
        times[runs / 2]
    })
}

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms[runs / 2]
}
