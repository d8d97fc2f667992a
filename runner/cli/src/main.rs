//! `runner`: the command line over the engine. Thin on purpose: every
//! decision lives in the libraries (`runner`, `puzzle-core`), so the book,
//! the tests and this CLI agree. One file per command, in `cmd/`.

mod args;
mod cmd;
mod learner;
mod term;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "runner", version, about = "Run and check GPU Puzzles kernels")]
struct Cli {
    /// The book's folder (default: the nearest folder above with a book.toml).
    #[arg(long, global = true)]
    book: Option<PathBuf>,
    /// The learner's workspace (default: .learner in the book's folder).
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Check(cmd::check::CheckArgs),
    Watch(cmd::watch::WatchArgs),
    Hint(cmd::hint::HintArgs),
    /// Which puzzles pass, in which language.
    Progress,
    Reset(cmd::reset::ResetArgs),
    /// List every puzzle and its kernels, in reading order.
    List,
    Record(cmd::record::RecordArgs),
    Calibrate(cmd::calibrate::CalibrateArgs),
    Bench(cmd::bench::BenchArgs),
    Inputs(cmd::inputs::InputsArgs),
    Show(cmd::show::ShowArgs),
    Run(cmd::run::RunArgs),
}

fn main() -> ExitCode {
    // A job isolated in a child process (a CUDA launch, a benchmark) re-enters here.
    runner::serve_if_child();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let book = args::load_book(cli.book)?;
    let workspace = cli.workspace;
    match cli.command {
        Command::Check(a) => cmd::check::execute(book, workspace, a),
        Command::Watch(a) => cmd::watch::execute(book, workspace, a),
        Command::Hint(a) => cmd::hint::execute(book, workspace, a),
        Command::Progress => cmd::progress::execute(book, workspace),
        Command::Reset(a) => cmd::reset::execute(book, workspace, a),
        Command::List => cmd::list::execute(&book),
        Command::Record(a) => cmd::record::execute(&book, a),
        Command::Calibrate(a) => cmd::calibrate::execute(&book, a),
        Command::Bench(a) => cmd::bench::execute(&book, a),
        Command::Inputs(a) => cmd::inputs::execute(&book, a),
        Command::Show(a) => cmd::show::execute(&book, a),
        Command::Run(a) => cmd::run::execute(&book, a),
    }
}
