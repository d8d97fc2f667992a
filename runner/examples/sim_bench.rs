//! How long the CPU simulator takes to check each WGSL solution at its
//! teaching size: parse, validate, run with every check, verify. A benchmark
//! to read, not a test (the budget is 50 ms a puzzle on one core):
//!
//! ```console
//! cargo build --release -p runner --example sim_bench
//! taskset -c 0 target/release/examples/sim_bench
//! ```

use runner::kernel::{Lang, Variant};
use runner::{BackendKind, Book, Runner, Settings, Status};
use std::path::Path;
use std::time::Instant;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let book = Book::load(root).expect("the book loads");
    let runner = Runner::new(Settings {
        timing_samples: 0,
        ..Settings::default()
    });
    const RUNS: usize = 21;
    let mut worst = (0.0, String::new());
    for puzzle in &book.puzzles {
        let Some(kernel) = puzzle.kernel(Lang::Wgsl) else {
            continue;
        };
        let source = kernel.variant(Variant::Solution);
        let mut ms: Vec<f64> = (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                let report = runner
                    .run_source_on(BackendKind::Sim, puzzle, Variant::Solution, &source, None)
                    .expect("runs");
                assert_eq!(report.status, Status::Pass, "{}", report.to_text());
                started.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        let median = ms[RUNS / 2];
        println!("{:<24} {median:>8.2} ms (median of {RUNS})", puzzle.id());
        if median > worst.0 {
            worst = (median, puzzle.id().to_string());
        }
    }
    println!("slowest: {} at {:.2} ms", worst.1, worst.0);
}
