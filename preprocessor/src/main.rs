//! The `mdbook-puzzles` executable: mdBook's preprocessor protocol over [`mdbook_puzzles::run`].
//!
//! `mdbook-puzzles supports <renderer>` answers the handshake; with no
//! arguments it reads `[context, book]` JSON on stdin and prints the book.

use anyhow::Context;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A job isolated in a child process (a CUDA launch) re-enters here.
    runner::worker::serve_if_child();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("supports") {
        // Every renderer: the results are plain markdown and HTML.
        return ExitCode::SUCCESS;
    }
    match process() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mdbook-puzzles: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn process() -> anyhow::Result<()> {
    let (ctx, book) =
        mdbook_preprocessor::parse_input(std::io::stdin()).context("reading mdBook's input")?;
    let book = mdbook_puzzles::run(&ctx, book)?;
    serde_json::to_writer(std::io::stdout(), &book).context("writing the book")?;
    Ok(())
}
