//! How long the CUDA checker takes, on this machine's CPU (these are CPU
//! timings, not a GPU's): a benchmark to read, not a test. Its budgets:
//! a teaching-size check at most 300 ms median from source to verdict with
//! NVRTC's output cached, and at least 20 M PTX instructions a second on one
//! core.
//!
//! ```console
//! cargo build --release -p runner --example cuda_sim_bench
//! taskset -c 0 target/release/examples/cuda_sim_bench          # both parts
//! taskset -c 0 target/release/examples/cuda_sim_bench small    # every CUDA solution, teaching size
//! taskset -c 0 target/release/examples/cuda_sim_bench small p19 # those whose id starts so
//! taskset -c 0 target/release/examples/cuda_sim_bench rate     # instructions a second on larger runs
//! taskset -c 0 target/release/examples/cuda_sim_bench rate p35_gemm_cluster GROUP=1,SIZE=768,STAGES=2
//! ```
//!
//! `small` checks each CUDA solution at its teaching size through the
//! engine (compile, which the first run caches, then parse, run with every
//! check, judge) and prints the median of its runs. `rate` runs a few
//! puzzles' stress cases on the interpreter alone and divides the PTX
//! instructions it interpreted by the time it took.

use puzzle_core::assess::cases::Case;
use puzzle_core::assess::execute::{self, Settings};
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::judge::report::Status;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::spec::expr::Constants;
use runner::backend::{
    checker_buffers, checker_launches, compile_cached, compile_only_arch, load_nvrtc,
};
use runner::run::Runner;
use std::path::Path;
use std::time::{Duration, Instant};

/// Runs of each teaching-size check; the median is reported.
const SMALL_RUNS: usize = 11;
/// Runs of each rate case.
const RATE_RUNS: usize = 3;

/// The rate cases: larger runs of kernels of different kinds (memory-bound
/// maps and reductions, shared-memory tiles, warp shuffles, tensor cores).
const RATE_CASES: &[(&str, &str)] = &[
    ("p11_conv_blocks", "SIZE=16384"),
    ("p14_matmul_tiled", "SIZE=128"),
    ("p17_reduce_warp", "SIZE=65536"),
    ("p19_sgemm_regtile", "SIZE=128"),
    ("p36_attention_bf16", ""),
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("workspace root");
    let book = runner::book::load(root).expect("the book loads");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let part = args.first().map(String::as_str);
    if part != Some("rate") {
        let only = if part == Some("small") {
            args.get(1).cloned()
        } else {
            None
        };
        small(&book, only.as_deref());
    }
    if part != Some("small") {
        match (args.get(1), args.get(2)) {
            (Some(id), sets) => rate(&book, &[(id.as_str(), sets.map_or("", String::as_str))]),
            _ => rate(&book, RATE_CASES),
        }
    }
}

/// Every CUDA solution (or those whose id starts with `only`) at its
/// teaching size, through the engine.
fn small(book: &Book, only: Option<&str>) {
    let runner = Runner::new(Settings {
        timing_samples: 0,
        timeout: Duration::from_secs(600),
        ..Settings::default()
    });
    let mut medians = Vec::new();
    for puzzle in &book.puzzles {
        let Some(kernel) = puzzle.kernel(Lang::Cuda) else {
            continue;
        };
        if only.is_some_and(|o| !puzzle.id().starts_with(o)) {
            continue;
        }
        let source = kernel.variant(Variant::Solution);
        let run = || {
            let report = runner
                .run_on(
                    BackendKind::PtxSim,
                    puzzle,
                    Variant::Solution,
                    &source,
                    &Case::teaching(),
                )
                .expect("runs");
            assert_eq!(report.status, Status::Pass, "{}: {report:?}", puzzle.id());
        };
        // The first run compiles (NVRTC, a second or more with CCCL's headers); it is not timed.
        run();
        let mut times: Vec<f64> = (0..SMALL_RUNS)
            .map(|_| {
                let started = Instant::now();
                run();
                started.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!(
            "{:<26} {median:>8.2} ms  (median of {SMALL_RUNS}; {:.2} to {:.2})",
            puzzle.id(),
            times[0],
            times[times.len() - 1]
        );
        medians.push((median, puzzle.id().to_string()));
    }
    medians.sort_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((worst, id)) = medians.last() {
        let middle = medians[medians.len() / 2].0;
        println!(
            "{} CUDA solutions: median of medians {middle:.2} ms, slowest {id} at {worst:.2} ms (budget 300 ms)",
            medians.len()
        );
    }
}

/// Instructions a second of the interpreter alone, on each case.
fn rate(book: &Book, cases: &[(&str, &str)]) {
    // Finds NVRTC (the pip wheel too), as the engine does before compiling.
    load_nvrtc().expect("NVRTC is installed (bash .ci/setup)");
    for (id, sets) in cases {
        let puzzle = book.find(id).expect("a puzzle of the book");
        let overrides: Constants = sets
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| {
                let (k, v) = s.split_once('=').expect("NAME=VALUE");
                (k.to_string(), v.parse::<i64>().expect("a number"))
            })
            .collect();
        let case = Case {
            overrides: (!overrides.is_empty()).then_some(overrides),
            ..Case::teaching()
        };
        let spec = execute::resolve(&puzzle.spec, &case, None).expect("the case resolves");
        let kernel = puzzle.kernel(Lang::Cuda).expect("a CUDA kernel");
        let source = puzzle_core::kernel::constants::apply(
            &kernel.variant(Variant::Solution),
            Lang::Cuda,
            &spec.constants,
        );
        let ptx = compile_cached(&source, compile_only_arch()).expect("compiles");
        let module = ptx_sim::Module::parse(&ptx).expect("the checker reads NVRTC's PTX");
        let (launches, buffers) = (checker_launches(&spec), checker_buffers(&spec));
        let config = ptx_sim::Config {
            limits: ptx_sim::Limits {
                timeout: Duration::from_secs(600),
                ..ptx_sim::Limits::default()
            },
            ..ptx_sim::Config::default()
        };
        let mut rates = Vec::new();
        let mut seconds = Vec::new();
        let mut instructions = 0;
        for _ in 0..RATE_RUNS {
            let started = Instant::now();
            let run = ptx_sim::run(&module, &launches, &buffers, &ptx_sim::SameLines, &config)
                .expect("runs");
            let took = started.elapsed().as_secs_f64();
            assert!(
                run.findings.hazards.is_empty(),
                "{id}: {:?}",
                run.findings.hazards
            );
            instructions = run.instructions;
            rates.push(run.instructions as f64 / took / 1e6);
            seconds.push(took);
        }
        rates.sort_by(f64::total_cmp);
        seconds.sort_by(f64::total_cmp);
        println!(
            "{id:<22} {sets:<28} {:>14} instructions in {:>7.3} s: {:>6.1} M/s (median of {RATE_RUNS}; {:.1} to {:.1})",
            instructions,
            seconds[RATE_RUNS / 2],
            rates[RATE_RUNS / 2],
            rates[0],
            rates[RATE_RUNS - 1]
        );
    }
}
