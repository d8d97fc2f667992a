//! `runner show`: a puzzle's skeleton (to start from) or its solution.

use crate::args::LangArg;
use anyhow::Result;
use clap::Args;
use puzzle_core::chapter::book::Book;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use std::process::ExitCode;

/// Print a puzzle's skeleton (to start from) or its solution.
#[derive(Args)]
pub struct ShowArgs {
    puzzle: String,
    #[arg(long, value_enum, default_value = "wgsl")]
    lang: LangArg,
    /// Print the solution instead of the skeleton.
    #[arg(long)]
    solution: bool,
}

pub fn execute(book: &Book, args: ShowArgs) -> Result<ExitCode> {
    let puzzle = book.find_as_meant(&args.puzzle)?;
    let kernel = puzzle.require_kernel(Lang::from(args.lang))?;
    let variant = if args.solution {
        Variant::Solution
    } else {
        Variant::Skeleton
    };
    print!("{}", kernel.variant(variant).text);
    Ok(ExitCode::SUCCESS)
}
