//! `runner list`: every puzzle, its title and its kernels, in reading order.

use anyhow::Result;
use puzzle_core::chapter::book::Book;
use runner::learner::order::learning_order;
use std::process::ExitCode;

pub fn execute(book: &Book) -> Result<ExitCode> {
    for p in learning_order(book) {
        let langs: Vec<&str> = p.kernels.keys().map(|l| l.label()).collect();
        println!("{:<22} {:<36} {}", p.id(), p.title(), langs.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}
