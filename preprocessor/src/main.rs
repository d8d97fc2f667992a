//! The `mdbook-puzzles` executable: mdBook's preprocessor protocol over [`mdbook_puzzles::run`].
//!
//! `mdbook-puzzles supports <renderer>` answers the handshake; with no
//! arguments it reads `[context, book]` JSON on stdin and prints the book.

use anyhow::Context;
use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    // A job isolated in a child process (a CUDA launch) re-enters here.
    runner::serve_if_child();
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
    // Read whole, then parsed, and written through one buffer: serde_json
    // byte by byte over stdin, and stdout's line buffer over a book with no
    // newline in its JSON, each cost a warm build tens of milliseconds.
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .context("reading mdBook's input")?;
    let book = mdbook_puzzles::run_input(&input)?;
    let mut out = std::io::stdout().lock();
    out.write_all(book.as_bytes())
        .and_then(|()| out.flush())
        .context("writing the book")?;
    Ok(())
}
