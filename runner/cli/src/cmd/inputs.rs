//! `runner inputs`: a benchmark case's inputs written as files, the very
//! bytes `runner bench` times the kernel on, with a manifest that names
//! their distribution and digest and says how the kernel is launched. The
//! baseline scripts time the libraries on them.

use crate::args::overrides;
use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use puzzle_core::chapter::book::Book;
use puzzle_core::kernel::constants;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use runner::backend::CudaBackend;
use runner::perf;
use std::path::PathBuf;
use std::process::ExitCode;

/// Write a benchmark case's inputs, as the kernel is timed on them.
///
/// Each input becomes <name>.bin (little-endian, in its type), beside
/// manifest.json: the constants, the inputs' distribution and digest, every
/// argument and launch. A library timed on these files is compared with the
/// kernel on the pages; one timed on other data is not.
#[derive(Args)]
pub struct InputsArgs {
    /// Puzzle id, e.g. p35_gemm_tma (see `runner list`).
    puzzle: String,
    /// Which of the spec's `bench` cases, from 1.
    #[arg(long, default_value_t = 1)]
    case: usize,
    /// Change a constant of the case, e.g. --set SIZE=8192 (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// The folder to write (made if missing).
    #[arg(long)]
    out: PathBuf,
    /// Also write the CUDA solution compiled for this GPU (kernel.ptx), for
    /// a program that launches it beside a library.
    #[arg(long)]
    ptx: bool,
}

pub fn execute(book: &Book, args: InputsArgs) -> Result<ExitCode> {
    let puzzle = book.find_as_meant(&args.puzzle)?;
    let cases = puzzle.spec.bench_cases();
    let Some(mut case) = args.case.checked_sub(1).and_then(|i| cases.get(i).cloned()) else {
        bail!(
            "`{}` has {} bench case(s); --case counts them from 1",
            puzzle.id(),
            cases.len()
        );
    };
    case.extend(overrides(puzzle, &args.set)?);
    let spec = puzzle.spec.resolve_bench(&case)?;
    let ptx = if args.ptx {
        let kernel = puzzle.require_kernel(Lang::Cuda)?;
        let source = constants::apply(
            &kernel.variant(Variant::Solution),
            Lang::Cuda,
            &spec.constants,
        );
        let backend = CudaBackend::open().map_err(|e| anyhow!("{e}"))?;
        let compiled = backend.compile(&source).map_err(|errors| {
            let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
            anyhow!("the solution did not compile: {}", text.join("; "))
        })?;
        Some(compiled)
    } else {
        None
    };
    let manifest = perf::write_inputs(&spec, &args.out, ptx.as_deref())
        .with_context(|| format!("writing the inputs of `{}`", puzzle.id()))?;
    println!(
        "{}: {} argument(s) in {}, digest {}",
        puzzle.id(),
        manifest.args.len(),
        args.out.display(),
        manifest.inputs.digest
    );
    Ok(ExitCode::SUCCESS)
}
