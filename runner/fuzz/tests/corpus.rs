//! The fuzz targets on stable, in CI: every seed first (the committed corpus
//! and the book's own chapters, specs and kernels), then seeded mutations of
//! them for a few seconds a target (`FUZZ_SECONDS`, default 3; `FUZZ_SEED`
//! picks the mutations). An input
//! that breaks a target is written to `target/fuzz-finds/` and named in the
//! failure, ready to be added to the corpus and turned into a unit test.
//!
//! The coverage-guided runs use the same targets through cargo-fuzz
//! (`runner/fuzz/libfuzzer`, see the README there).

use libtest_mimic::{Arguments, Failed, Trial};
use puzzle_core::chapter::extract::{BlockKind, blocks};
use puzzle_fuzz::{TARGETS, corpus_folder};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Pieces of the languages the targets read, spliced in by mutations so
/// that the mutated inputs keep reaching past the first parser.
const TOKENS: &[&str] = &[
    "```puzzle\n",
    "```\n",
    "```wgsl,puzzle=p\n",
    "```cuda,puzzle=p\n",
    "id: p\n",
    "grid: [",
    "block: [",
    "stress:\n  - { SIZE: ",
    "const: { SIZE: ",
    "len: SIZE",
    "SIZE",
    "TPB",
    "(",
    ")",
    " / ",
    " % ",
    "4294967296",
    "9223372036854775807",
    "-1",
    "0",
    "// BEGIN PUZZLE\n",
    "// END PUZZLE\n",
    "{{#include ../kernels/k.wgsl}}",
    "{{#include part.md}}",
    "#define SIZE 4\n",
    "const TPB: u32 = 4u;\n",
    "\n",
    // PTX, for the CUDA checker's targets.
    "bar.sync \t0;\n",
    "@%p1 bra \t$L__BB0_1;\n",
    "$L__BB0_1:\n",
    "ld.shared.f32 \t%f1, [%r1];\n",
    "st.global.f32 \t[%rd1+4], %f1;\n",
    "atom.global.add.u32 \t%r3, [%rd1], 1;\n",
    "shfl.sync.down.b32 \t%r1|%p1, %r2, 1, 31, -1;\n",
    "bar.warp.sync \t-1;\n",
    "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;\n",
    "mbarrier.init.shared::cta.b64 [%r1], 1;\n",
    ".loc\t1 9 1\n",
    "mov.u32 \t%r1, %tid.x;\n",
    "{\n",
    "}\n",
];

/// The committed inputs of a target (hand-written seeds and past finds),
/// then the seeds the book itself gives.
fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(corpus_folder(target));
    let mut seeds: Vec<(PathBuf, Vec<u8>)> = files_under(&dir, &[])
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect();
    seeds.extend(book_seeds(target));
    seeds
}

/// The book is the best seed, read where it lies rather than copied into
/// the corpus: its chapters, the spec blocks in them, and its kernels (for
/// `constants`, behind the four bytes that target reads as SIZE: 4).
fn book_seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |paths: Vec<PathBuf>| -> Vec<(PathBuf, Vec<u8>)> {
        paths
            .into_iter()
            .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
            .collect()
    };
    let chapters = || read(files_under(&root.join("src"), &["md"]));
    let kernels = || read(files_under(&root.join("kernels"), &["wgsl", "cu"]));
    match target {
        "chapter" => chapters(),
        "spec" => chapters()
            .into_iter()
            .flat_map(|(path, text)| {
                let text = String::from_utf8_lossy(&text).into_owned();
                let found = blocks(&text, &path).unwrap_or_default();
                found
                    .into_iter()
                    .filter(|b| b.kind == BlockKind::Puzzle)
                    .map(move |b| (path.clone(), b.body.into_bytes()))
            })
            .collect(),
        "cut" => kernels(),
        "constants" => kernels()
            .into_iter()
            .map(|(path, text)| (path, [&4i32.to_le_bytes()[..], &text].concat()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Files under `dir`, recursively, sorted; with `extensions`, only those.
fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if extensions.is_empty()
                || path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| extensions.contains(&e))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// With `FUZZ_SEEDS_OUT=DIR`, every target's seeds are written to
/// `DIR/<target>/`, for cargo-fuzz to start from (libFuzzer reads a folder,
/// not the book).
fn export_seeds(out: &Path) -> std::io::Result<()> {
    for (name, _) in TARGETS {
        let dir = out.join(name);
        std::fs::create_dir_all(&dir)?;
        for (i, (_, data)) in corpus(name).iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i:04}")), data)?;
        }
    }
    Ok(())
}

/// Runs `target` on `data`; on a panic, keeps the input and says where.
fn attempt(name: &str, target: fn(&[u8]), data: &[u8]) -> Result<(), Failed> {
    if catch_unwind(AssertUnwindSafe(|| target(data))).is_ok() {
        return Ok(());
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-finds");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(format!("{name}-{:016x}", fnv(data)));
    std::fs::write(&file, data)?;
    Err(format!(
        "the {name} target failed on {} (kept at {})",
        preview(data),
        file.display()
    )
    .into())
}

fn preview(data: &[u8]) -> String {
    let text = String::from_utf8_lossy(data);
    let short: String = text.chars().take(200).collect();
    format!(
        "{short:?}{}",
        if text.chars().count() > 200 {
            "…"
        } else {
            ""
        }
    )
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

/// splitmix64: the mutations are the same for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One to four edits: a byte changed, inserted or removed, a range
/// repeated or removed, a token spliced in, or a piece of another input.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] = rng.next() as u8;
            }
            1 => data.insert(at, rng.next() as u8),
            2 if at < data.len() => {
                data.remove(at);
            }
            3 if at < data.len() => {
                let end = (at + 1 + rng.below(32)).min(data.len());
                let piece = data[at..end].to_vec();
                data.splice(at..at, piece);
            }
            4 if at < data.len() => {
                let end = (at + 1 + rng.below(64)).min(data.len());
                data.drain(at..end);
            }
            5 if !other.is_empty() => {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(128)).min(other.len());
                data.splice(at..at, other[start..end].iter().copied());
            }
            _ => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                data.splice(at..at, token.iter().copied());
            }
        }
    }
    data.truncate(64 << 10);
    data
}

fn replay(name: &'static str, target: fn(&[u8])) -> Result<(), Failed> {
    let files = corpus(name);
    if files.is_empty() {
        let folder = corpus_folder(name);
        return Err(format!("no seeds for {name}: runner/fuzz/corpus/{folder}/ is empty").into());
    }
    for (_, data) in &files {
        attempt(name, target, data)?;
    }
    Ok(())
}

/// The corpus keeps each set of seeds once: every folder is read by some
/// target, and no two folders hold the same files (targets that read the
/// same input share a folder through `corpus_folder`).
fn one_folder_a_corpus() -> Result<(), Failed> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let read: Vec<&str> = TARGETS
        .iter()
        .map(|(name, _)| corpus_folder(name))
        .collect();
    let mut seen: Vec<(String, Vec<(PathBuf, Vec<u8>)>)> = Vec::new();
    for entry in std::fs::read_dir(&dir)?.flatten() {
        let folder = entry.file_name().to_string_lossy().into_owned();
        if !entry.path().is_dir() {
            continue;
        }
        if !read.contains(&folder.as_str()) {
            return Err(format!("runner/fuzz/corpus/{folder}/ is no target's seeds").into());
        }
        let files: Vec<(PathBuf, Vec<u8>)> = files_under(&entry.path(), &[])
            .into_iter()
            .filter_map(|p| {
                let bytes = std::fs::read(&p).ok()?;
                Some((p.strip_prefix(entry.path()).ok()?.to_path_buf(), bytes))
            })
            .collect();
        if let Some((twin, _)) = seen.iter().find(|(_, other)| *other == files) {
            return Err(format!(
                "runner/fuzz/corpus/{folder}/ and {twin}/ are the same seeds: keep one \
                 and name it for both targets in puzzle_fuzz::corpus_folder"
            )
            .into());
        }
        seen.push((folder, files));
    }
    Ok(())
}

fn mutations(name: &'static str, target: fn(&[u8]), seconds: f64, seed: u64) -> Result<(), Failed> {
    let files = corpus(name);
    let mut rng = Rng(seed ^ fnv(name.as_bytes()));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut runs = 0u64;
    while Instant::now() < deadline && !files.is_empty() {
        let input = &files[rng.below(files.len())].1;
        let other = &files[rng.below(files.len())].1;
        let data = mutate(&mut rng, input, other);
        attempt(name, target, &data)?;
        runs += 1;
    }
    eprintln!("fuzz {name}: {runs} mutated inputs in {seconds} s, seed {seed}");
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let seconds: f64 = std::env::var("FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    // Panics are the findings; the hook's backtrace would drown them.
    std::panic::set_hook(Box::new(|info| eprintln!("fuzz target panicked: {info}")));
    if let Some(out) = std::env::var_os("FUZZ_SEEDS_OUT") {
        if let Err(e) = export_seeds(Path::new(&out)) {
            eprintln!("cannot write the seeds: {e}");
            std::process::exit(1);
        }
        eprintln!("seeds written to {}", Path::new(&out).display());
    }
    let mut trials = vec![Trial::test(
        "corpus::one_folder_a_corpus",
        one_folder_a_corpus,
    )];
    for (name, target) in TARGETS {
        trials.push(Trial::test(format!("corpus::{name}"), move || {
            replay(name, target)
        }));
        trials.push(Trial::test(format!("mutations::{name}"), move || {
            mutations(name, target, seconds, seed)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
