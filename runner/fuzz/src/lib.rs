//! Fuzz targets for the engine's front door: everything an author or a
//! learner can type reaches one of these, and none may panic, hang past its
//! limit, or report a problem at a line that does not exist.
//!
//! Each target takes bytes and panics when an invariant breaks, so the same
//! functions serve two drivers:
//! - `tests/corpus.rs` (stable, in CI): every committed corpus file, then
//!   seeded mutations of them for a few seconds a target;
//! - `libfuzzer/` (cargo-fuzz, nightly): coverage-guided runs as long as you like,
//!   whose finds are added to the target's folder of `corpus/` (`ptx/` for
//!   both PTX targets: see [`corpus_folder`]).
//!
//! The targets: [`chapter`] (extraction with includes, specs, kernels, the
//! cut), [`spec`] (YAML, resolution and every stress case under a memory
//! budget), [`expr`] (size expressions), [`constants`] (rewriting a kernel's
//! constants), [`cut`] (the skeleton cut), [`sim`] (the CPU checker on
//! WGSL generated from the bytes, under its time limit), and the CUDA
//! checker's [`ptx_parse`] (any text) and [`ptx_run`] (PTX run on two
//! small buffers, under its time limit).

mod ptx;
mod wgsl_gen;

pub use ptx::{ptx_parse, ptx_run};

use puzzle_core::assess::cases::cases;
use puzzle_core::assess::execute::{self, Settings};
use puzzle_core::chapter::book::Book;
use puzzle_core::kernel::constants;
use puzzle_core::kernel::cut::{Kernel, Variant};
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::Located;
use puzzle_core::source::include::MemoryFiles;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::expr::{self, Constants};
use puzzle_core::spec::resolve::PuzzleSpec;
use puzzle_core::wgsl::checker::SimBackend;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Every target by name, which its cargo-fuzz binary shares; its seeds are
/// in `corpus/` under [`corpus_folder`]'s name for it.
pub const TARGETS: [(&str, fn(&[u8])); 8] = [
    ("chapter", chapter),
    ("spec", spec),
    ("expr", expr),
    ("constants", constants),
    ("cut", cut),
    ("sim", sim),
    ("ptx_parse", ptx_parse),
    ("ptx_run", ptx_run),
];

/// The folder of `corpus/` that seeds `target`. The CUDA checker's two
/// targets read the same PTX, so they share one folder (`ptx`): two copies
/// of it drifted apart silently, one corpus cannot.
pub fn corpus_folder(target: &str) -> &str {
    match target {
        "ptx_parse" | "ptx_run" => "ptx",
        other => other,
    }
}

/// Memory a fuzzed spec's stress case may take to set up (the engine gives
/// half the machine's free memory; a fuzzer runs many at once).
const MEMORY: u64 = 64 << 20;

/// The CPU checker's limit per run, and what a run may take beyond it
/// (setting up, judging) before it counts as a hang.
const SIM_TIMEOUT: Duration = Duration::from_millis(300);
const SIM_SLACK: Duration = Duration::from_secs(3);

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

fn line_count(text: &str) -> usize {
    text.lines().count().max(1)
}

/// A problem must point at a line of the text it is about (0: the file as a whole).
fn assert_located(errors: &[Located], file: &Path, lines: usize) {
    for e in errors {
        if e.file == file {
            assert!(e.line <= lines + 1, "line {} of {lines}: {e}", e.line);
        }
        assert!(
            !e.message.trim().is_empty(),
            "an empty message at line {}",
            e.line
        );
    }
}

/// A chapter, with a kernel file and a markdown file it may include.
pub fn chapter(data: &[u8]) {
    let text = text(data);
    let file = PathBuf::from("/b/src/ch.md");
    let files = MemoryFiles(
        [
            (
                PathBuf::from("/b/src/../kernels/k.wgsl"),
                "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
                 @compute @workgroup_size(4)\nfn k(@builtin(local_invocation_id) l: vec3<u32>) {\n\
                 // BEGIN PUZZLE\n    out[l.x] = 1.0;\n    // END PUZZLE\n}\n"
                    .to_string(),
            ),
            (
                PathBuf::from("/b/src/part.md"),
                "```puzzle\nid: q\n```\n".to_string(),
            ),
        ]
        .into(),
    );
    match Book::from_chapters(
        Path::new("/b"),
        Path::new("/b/src"),
        [(file.clone(), text.clone())],
        &files,
    ) {
        Err(errors) => {
            assert!(!errors.is_empty(), "a refused book names no problem");
            assert_located(&errors, &file, line_count(&text));
        }
        Ok(book) => {
            for puzzle in &book.puzzles {
                for lang in Lang::ALL {
                    if let Some(kernel) = puzzle.kernel(lang) {
                        let _ = kernel.skeleton();
                        let _ = kernel.solution();
                    }
                }
                run_cases(&puzzle.spec, &file, line_count(&text));
            }
        }
    }
}

/// Every case of a spec (teaching size, then stress), resolved under [`MEMORY`].
fn run_cases(spec: &PuzzleSpec, file: &Path, lines: usize) {
    for case in cases(spec, true) {
        if let Err(e) = execute::resolve(spec, &case, Some(MEMORY)) {
            assert_located(&[e], file, lines);
        }
    }
}

/// The YAML of a ```puzzle block, as the chapter's line 1.
pub fn spec(data: &[u8]) {
    let text = text(data);
    let file = Path::new("ch.md");
    match PuzzleSpec::parse(&text, file, 1) {
        Err(e) => assert_located(&[e], file, line_count(&text)),
        Ok(spec) => run_cases(&spec, file, line_count(&text)),
    }
}

/// Constants from the first bytes, then an expression over them.
pub fn expr(data: &[u8]) {
    let (head, rest) = data.split_at(data.len().min(8));
    let mut word = [0u8; 8];
    word[..head.len()].copy_from_slice(head);
    let constants = Constants::from([
        ("SIZE".to_string(), i64::from_le_bytes(word)),
        ("TPB".to_string(), 4),
        ("ZERO".to_string(), 0),
    ]);
    if let Err(error) = expr::eval(&text(rest), &constants) {
        assert!(!error.to_string().is_empty());
    }
}

/// A kernel's constants rewritten (both languages): the lines and their
/// origins never change, so compiler messages still point home.
pub fn constants(data: &[u8]) {
    let (head, rest) = data.split_at(data.len().min(4));
    let mut word = [0u8; 4];
    word[..head.len()].copy_from_slice(head);
    let constants = Constants::from([
        ("SIZE".to_string(), i64::from(i32::from_le_bytes(word))),
        ("TPB".to_string(), 8),
    ]);
    let source = SourceText::new(text(rest), Path::new("k"), 1);
    for lang in Lang::ALL {
        let rewritten = constants::apply(&source, lang, &constants);
        assert_eq!(rewritten.lines, source.lines, "{lang:?}: lines moved");
    }
}

/// The skeleton cut: the skeleton never shows the solution's markers, and
/// every line of both versions comes from a line of the file.
pub fn cut(data: &[u8]) {
    let text = text(data);
    let lines = line_count(&text);
    let file = Path::new("k");
    for lang in Lang::ALL {
        match Kernel::new(lang, SourceText::new(text.clone(), file, 1)) {
            Err(e) => assert_located(&[e], file, lines),
            Ok(kernel) => {
                for variant in [Variant::Skeleton, Variant::Solution] {
                    let shown = kernel.variant(variant);
                    for origin in &shown.lines {
                        assert!(origin.line >= 1 && origin.line <= lines, "{origin:?}");
                    }
                }
                assert!(!kernel.skeleton().text.contains("BEGIN PUZZLE"));
            }
        }
    }
}

/// The CPU checker on a kernel generated from the bytes (loops, barriers,
/// workgroup memory, indices in and out of bounds), against a small spec:
/// it must finish within its limit and place every diagnosis on a real line.
pub fn sim(data: &[u8]) {
    let source_text = wgsl_gen::kernel(data);
    let lines = line_count(&source_text);
    let file = Path::new("k.wgsl");
    let spec = PuzzleSpec::parse(wgsl_gen::SPEC, Path::new("ch.md"), 1)
        .and_then(|p| p.resolve(&Constants::new()))
        .expect("the fuzzing spec parses");
    let backend = SimBackend::with_seed(u64::from(data.first().copied().unwrap_or(0)));
    let settings = Settings {
        timing_samples: 0,
        timeout: SIM_TIMEOUT,
        memory: Some(MEMORY),
        ..Settings::default()
    };
    let source = SourceText::new(source_text.clone(), file, 1);
    let started = Instant::now();
    let report = execute::execute(&backend, &spec, Variant::File, &source, &settings);
    let took = started.elapsed();
    assert!(
        took < SIM_TIMEOUT + SIM_SLACK,
        "the checker took {took:?} (limit {SIM_TIMEOUT:?}):\n{source_text}"
    );
    for d in &report.diagnostics {
        if d.file == file {
            assert!(d.line <= lines + 1, "{d}\n{source_text}");
        }
    }
}
