//! What several commands take: a backend, a language, the book.

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::kernel::includes;
use puzzle_core::lang::Lang;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::expr::{self, Constants};
use runner::backend::Sanitizer;
use runner::book::{BookFiles, DiscoverError};
use std::path::{Path, PathBuf};

/// `--backend`: where a kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// WGSL on a GPU through wgpu (Vulkan, Metal, DX12), or Mesa's lavapipe on a CPU.
    Wgpu,
    /// CUDA C compiled with NVRTC, run on an NVIDIA GPU.
    Cuda,
    /// The CPU checker: races, out-of-bounds indices, uninitialized reads
    /// and divergent barriers reported; no timings. WGSL's, or, for CUDA C
    /// (a .cu file, or --lang cuda where the command takes it), NVRTC's PTX
    /// interpreted (needs NVRTC, no GPU).
    Sim,
}

impl BackendArg {
    /// The backend this names for a kernel in `lang` (where known): `sim`
    /// is the checker of the kernel's language, WGSL's unless it is CUDA.
    pub fn kind(self, lang: Option<Lang>) -> BackendKind {
        match (self, lang) {
            (BackendArg::Wgpu, _) => BackendKind::Wgpu,
            (BackendArg::Cuda, _) => BackendKind::Cuda,
            (BackendArg::Sim, Some(Lang::Cuda)) => BackendKind::PtxSim,
            (BackendArg::Sim, _) => BackendKind::Sim,
        }
    }
}

/// `--lang`: a kernel language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    Wgsl,
    Cuda,
}

impl From<LangArg> for Lang {
    fn from(arg: LangArg) -> Lang {
        match arg {
            LangArg::Wgsl => Lang::Wgsl,
            LangArg::Cuda => Lang::Cuda,
        }
    }
}

/// `--lang` and `--backend` reconciled: the language (if either names
/// one) and the backend (if named). Disagreeing is an error, not a choice.
pub fn lang_and_backend(
    lang: Option<LangArg>,
    backend: Option<BackendArg>,
) -> Result<(Option<Lang>, Option<BackendKind>)> {
    let lang = lang.map(Lang::from);
    let backend = backend.map(|b| b.kind(lang));
    match (lang, backend) {
        (Some(l), Some(b)) if b.lang() != l => bail!(
            "--lang {l} and --backend {b} disagree: the {b} backend runs {} kernels",
            b.lang().label()
        ),
        (l, b) => Ok((l.or(b.map(BackendKind::lang)), b)),
    }
}

/// `--sanitize`: the language and backend become CUDA (naming another is an
/// error), and compute-sanitizer must be found.
pub fn sanitizing(
    (lang, backend): (Option<Lang>, Option<BackendKind>),
) -> Result<(Option<Lang>, Option<BackendKind>, Sanitizer)> {
    if lang.is_some_and(|l| l != Lang::Cuda) || backend.is_some_and(|b| b != BackendKind::Cuda) {
        bail!(
            "--sanitize runs NVIDIA's compute-sanitizer over CUDA kernels; a WGSL kernel gets \
             the same checks from the CPU checker (`--backend sim`)"
        );
    }
    let sanitizer = Sanitizer::find().map_err(anyhow::Error::msg)?;
    Ok((Some(Lang::Cuda), Some(BackendKind::Cuda), sanitizer))
}

/// A backend that times kernels: the CPU checker's runs say nothing about a GPU.
pub fn timing_backend(backend: BackendArg, command: &str) -> Result<BackendKind> {
    let kind = backend.kind(None);
    if kind.is_simulator() {
        bail!(
            "`runner {command} --backend sim`: the CPU checker does not time kernels; \
             use --backend wgpu or --backend cuda"
        );
    }
    Ok(kind)
}

/// `--set NAME=VALUE` pairs as constants of `puzzle`'s spec (a value may
/// be an expression of its constants, e.g. `SIZE=16*TPB`).
pub fn overrides(puzzle: &Puzzle, pairs: &[String]) -> Result<Constants> {
    let mut constants = Constants::new();
    for pair in pairs {
        let (name, value) = pair
            .split_once('=')
            .with_context(|| format!("--set takes NAME=VALUE, got `{pair}`"))?;
        if !puzzle.spec.raw.constants.contains_key(name) {
            let names: Vec<&str> = puzzle
                .spec
                .raw
                .constants
                .keys()
                .map(String::as_str)
                .collect();
            bail!(
                "--set {pair}: `{}` has no constant `{name}` (its constants: {})",
                puzzle.id(),
                names.join(", ")
            );
        }
        let value = expr::eval(value, &puzzle.spec.raw.constants)
            .map_err(|e| anyhow::anyhow!("--set {pair}: {e}"))?;
        constants.insert(name.to_string(), value);
    }
    Ok(constants)
}

/// A kernel file's language, by its extension.
pub fn file_lang(path: &Path) -> Result<Lang> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    Lang::from_extension(ext).with_context(|| {
        format!(
            "{}: cannot tell the language; name it .wgsl or .cu",
            path.display()
        )
    })
}

/// A learner's kernel file for `puzzle`, read as `lang` (a CUDA file's quoted
/// `#include`s of the book's headers written in); an empty file is refused.
pub fn read_kernel_file(
    book: &Book,
    path: &Path,
    puzzle: &Puzzle,
    lang: Lang,
) -> Result<SourceText> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut source = SourceText::from_bytes(bytes, path)?;
    if lang == Lang::Cuda {
        source = includes::expand(&source, &BookFiles::new(&book.root))?;
    }
    if source.text.trim().is_empty() {
        bail!(
            "{}: the file is empty; start from the skeleton (`runner show {} --lang {lang}`)",
            path.display(),
            puzzle.id()
        );
    }
    Ok(source)
}

/// Where the book is when `--book` does not say and no book holds the
/// current folder: `bin/runner` (and the `runner` that `.ci/setup` puts on
/// the PATH) sets it to its checkout, so `runner` works from any folder.
pub const BOOK_ENV: &str = "GPU_PUZZLES_BOOK";

/// The book's folder: `--book`, else the book that holds `cwd`, else `fallback` ([`BOOK_ENV`]).
pub fn book_dir(flag: Option<PathBuf>, cwd: &Path, fallback: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(dir) = flag {
        return Ok(dir);
    }
    match (runner::book::discover(cwd), fallback) {
        (Ok(found), _) => Ok(found),
        (Err(DiscoverError::NoBook(_)), Some(dir)) if !dir.as_os_str().is_empty() => Ok(dir),
        (Err(e), _) => Err(e.into()),
    }
}

/// The book at `dir`, or the one that holds the current folder, or [`BOOK_ENV`]'s.
pub fn load_book(dir: Option<PathBuf>) -> Result<Book> {
    let fallback = std::env::var_os(BOOK_ENV).map(PathBuf::from);
    let root = book_dir(dir, &std::env::current_dir()?, fallback)?;
    runner::book::load(&root).map_err(|errors| {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        anyhow::anyhow!(
            "the book has {} problem(s):\n{}",
            errors.len(),
            list.join("\n")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (case, --book, the current folder, GPU_PUZZLES_BOOK, the book or the error's words)
    #[test]
    fn book_dir_table() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("book");
        let inside = book.join("src/deep");
        let outside = dir.path().join("elsewhere");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(book.join("book.toml"), "[book]\n").unwrap();
        let other = dir.path().join("other");
        let book = book.canonicalize().unwrap();
        type Case<'a> = (
            &'a str,
            Option<&'a Path>,
            &'a Path,
            Option<&'a Path>,
            Result<&'a Path, &'a str>,
        );
        let cases: [Case; 5] = [
            (
                "--book wins",
                Some(&other),
                &inside,
                Some(&other),
                Ok(&other),
            ),
            (
                "the book around the folder",
                None,
                &inside,
                Some(&other),
                Ok(&book),
            ),
            (
                "no book around: the fallback",
                None,
                &outside,
                Some(&other),
                Ok(&other),
            ),
            (
                "no book, no fallback",
                None,
                &outside,
                None,
                Err("no book.toml in"),
            ),
            (
                "an empty fallback is none",
                None,
                &outside,
                Some(Path::new("")),
                Err("--book DIR"),
            ),
        ];
        for (name, flag, cwd, fallback, want) in cases {
            let got = book_dir(
                flag.map(Path::to_path_buf),
                cwd,
                fallback.map(Path::to_path_buf),
            );
            match (got, want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{name}"),
                (Err(got), Err(words)) => assert!(got.to_string().contains(words), "{name}: {got}"),
                (got, want) => panic!("{name}: {got:?}, not {want:?}"),
            }
        }
    }

    /// (--lang, --backend, the language and backend, or the error's words)
    #[test]
    fn lang_and_backend_table() {
        type Want = Result<(Option<Lang>, Option<BackendKind>), &'static str>;
        let cases: [(Option<LangArg>, Option<BackendArg>, Want); 8] = [
            (None, None, Ok((None, None))),
            (Some(LangArg::Cuda), None, Ok((Some(Lang::Cuda), None))),
            (
                None,
                Some(BackendArg::Sim),
                Ok((Some(Lang::Wgsl), Some(BackendKind::Sim))),
            ),
            (
                Some(LangArg::Wgsl),
                Some(BackendArg::Sim),
                Ok((Some(Lang::Wgsl), Some(BackendKind::Sim))),
            ),
            (
                Some(LangArg::Cuda),
                Some(BackendArg::Sim),
                Ok((Some(Lang::Cuda), Some(BackendKind::PtxSim))),
            ),
            (
                Some(LangArg::Cuda),
                Some(BackendArg::Cuda),
                Ok((Some(Lang::Cuda), Some(BackendKind::Cuda))),
            ),
            (Some(LangArg::Wgsl), Some(BackendArg::Cuda), Err("disagree")),
            (Some(LangArg::Cuda), Some(BackendArg::Wgpu), Err("disagree")),
        ];
        for (lang, backend, want) in cases {
            let got = lang_and_backend(lang, backend).map_err(|e| e.to_string());
            match (got, want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{lang:?} {backend:?}"),
                (Err(got), Err(words)) => assert!(got.contains(words), "{got}"),
                (got, want) => panic!("{lang:?} {backend:?}: {got:?} {want:?}"),
            }
        }
        assert!(timing_backend(BackendArg::Sim, "bench").is_err());
        // `sim` for a .cu file (`runner run --file`, which has no --lang) is CUDA's checker.
        let by_file = [
            (None, BackendKind::Sim),
            (Some(Lang::Wgsl), BackendKind::Sim),
            (Some(Lang::Cuda), BackendKind::PtxSim),
        ];
        for (lang, want) in by_file {
            assert_eq!(BackendArg::Sim.kind(lang), want, "{lang:?}");
        }
        assert_eq!(
            timing_backend(BackendArg::Cuda, "bench").unwrap(),
            BackendKind::Cuda
        );
    }
}
