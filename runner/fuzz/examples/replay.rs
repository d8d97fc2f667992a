//! Runs one fuzz target on one input, with the panic's message and place:
//! `cargo run -p puzzle-fuzz --example replay -- TARGET FILE` (a find kept
//! in `target/fuzz-finds/`, or a corpus file).
fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(name), Some(file)) = (args.next(), args.next()) else {
        eprintln!("usage: replay TARGET FILE");
        std::process::exit(2);
    };
    let Some((_, target)) = puzzle_fuzz::TARGETS.iter().find(|(n, _)| *n == name) else {
        eprintln!("no target named {name}");
        std::process::exit(2);
    };
    let data = std::fs::read(&file).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2)
    });
    target(&data);
    println!("{name} passed on {file}");
}
