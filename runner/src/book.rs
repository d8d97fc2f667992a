//! The puzzle catalogue: every chapter under `src/`, its specs and kernels.
//!
//! Read straight from the markdown (with `{{#include}}` expanded here), so the
//! CLI and the tests see exactly what the published book shows.

use crate::diag::Located;
use crate::extract::{self, BlockKind};
use crate::include;
use crate::kernel::{Kernel, Lang};
use crate::source::SourceText;
use crate::spec::PuzzleSpec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One puzzle: its spec, its chapter and its kernels by language.
#[derive(Debug, Clone)]
pub struct Puzzle {
    pub spec: PuzzleSpec,
    pub chapter: PathBuf,
    pub kernels: BTreeMap<Lang, Kernel>,
}

impl Puzzle {
    pub fn id(&self) -> &str {
        self.spec.id()
    }

    pub fn title(&self) -> &str {
        &self.spec.raw.title
    }

    pub fn kernel(&self, lang: Lang) -> Option<&Kernel> {
        self.kernels.get(&lang)
    }

    /// The kernel in `lang`, or an error at the spec saying it is missing and,
    /// where the spec gives one, why ("WGSL has no view types; …").
    pub fn require_kernel(&self, lang: Lang) -> Result<&Kernel, Located> {
        self.kernel(lang).ok_or_else(|| {
            let mut text = format!("`{}` has no {} kernel", self.id(), lang.label());
            if let Some(reason) = self.spec.raw.why_no_kernel.get(&lang) {
                text = format!("{text}: {reason}");
            }
            Located::new(&self.chapter, self.spec.origin.first_line, text)
        })
    }
}

/// All puzzles of a book, in chapter order (as listed by `SUMMARY.md`, then file name).
#[derive(Debug, Clone)]
pub struct Book {
    pub root: PathBuf,
    pub src: PathBuf,
    pub puzzles: Vec<Puzzle>,
}

impl Book {
    /// Finds the book that holds `start` (walking up to the nearest `book.toml`).
    pub fn discover(start: &Path) -> Result<PathBuf, String> {
        let start = start
            .canonicalize()
            .map_err(|e| format!("{}: {e}", start.display()))?;
        start
            .ancestors()
            .find(|dir| dir.join("book.toml").is_file())
            .map(Path::to_path_buf)
            .ok_or_else(|| {
                format!("no book.toml in {} or above it: run this inside the GPU Puzzles checkout, or pass --book DIR", start.display())
            })
    }

    /// Loads every chapter of the book at `root`. All problems are returned at once.
    pub fn load(root: &Path) -> Result<Book, Vec<Located>> {
        let src = root.join(src_dir(root).map_err(|e| vec![e])?);
        let mut files = Vec::new();
        collect_markdown(&src, &mut files)
            .map_err(|e| vec![Located::new(&src, 0, e.to_string())])?;
        files.sort();
        let mut puzzles: Vec<Puzzle> = Vec::new();
        let mut errors = Vec::new();
        for file in files {
            match std::fs::read_to_string(&file) {
                Ok(text) => match chapter_puzzles(&text, &file) {
                    Ok(found) => puzzles.extend(found),
                    Err(mut e) => errors.append(&mut e),
                },
                Err(e) => errors.push(Located::new(&file, 0, e.to_string())),
            }
        }
        let mut seen: BTreeMap<String, &Puzzle> = BTreeMap::new();
        for p in &puzzles {
            if let Some(first) = seen.insert(p.id().to_string(), p) {
                errors.push(Located::new(
                    &p.spec.origin.file,
                    p.spec.origin.first_line,
                    format!(
                        "puzzle id `{}` is already used in {}",
                        p.id(),
                        first.chapter.display()
                    ),
                ));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        puzzles.sort_by(|a, b| a.id().cmp(b.id()));
        Ok(Book {
            root: root.to_path_buf(),
            src,
            puzzles,
        })
    }

    pub fn find(&self, id: &str) -> Result<&Puzzle, String> {
        self.puzzles.iter().find(|p| p.id() == id).ok_or_else(|| {
            let near: Vec<&str> = self
                .puzzles
                .iter()
                .map(Puzzle::id)
                .filter(|p| p.contains(id) || id.contains(*p))
                .collect();
            if near.is_empty() {
                format!("no puzzle `{id}`; `runner list` shows them all")
            } else {
                format!("no puzzle `{id}`; did you mean {}?", near.join(" or "))
            }
        })
    }
}

/// The puzzles declared in one chapter. `file` is the chapter's path; includes are relative to it.
pub fn chapter_puzzles(markdown: &str, file: &Path) -> Result<Vec<Puzzle>, Vec<Located>> {
    let blocks = extract::blocks(markdown, file).map_err(|e| vec![e])?;
    let base = file.parent().unwrap_or(Path::new("."));
    let mut puzzles: Vec<Puzzle> = Vec::new();
    let mut kernels = Vec::new();
    let mut errors = Vec::new();
    for block in blocks {
        match block.kind {
            BlockKind::Puzzle => match PuzzleSpec::parse(&block.body, file, block.body_line) {
                Ok(spec) => puzzles.push(Puzzle {
                    spec,
                    chapter: file.to_path_buf(),
                    kernels: BTreeMap::new(),
                }),
                Err(e) => errors.push(e),
            },
            // Rooflines name puzzles of any chapter; the preprocessor reads them.
            BlockKind::Roofline => {}
            BlockKind::Kernel { lang, puzzle } => {
                let text = SourceText::new(block.body, file, block.body_line);
                match include::expand(&text, base).and_then(|source| Kernel::new(lang, source)) {
                    Ok(kernel) => kernels.push((puzzle, block.body_line, kernel)),
                    Err(e) => errors.push(e),
                }
            }
        }
    }
    for (id, line, kernel) in kernels {
        let lang = kernel.lang;
        match puzzles.iter_mut().find(|p| p.id() == id) {
            None => errors.push(Located::new(file, line, format!("kernel block names puzzle `{id}`, but this chapter declares no such ```puzzle block"))),
            Some(p) if p.kernels.contains_key(&lang) => {
                errors.push(Located::new(file, line, format!("a second {} kernel for `{id}`", lang.label())))
            }
            Some(p) => {
                p.kernels.insert(lang, kernel);
            }
        }
    }
    for p in &puzzles {
        for lang in p.spec.raw.why_no_kernel.keys() {
            if p.kernels.contains_key(lang) {
                errors.push(Located::new(
                    file,
                    p.spec.origin.first_line,
                    format!(
                        "`{}` has a {} kernel and also a `why_no_kernel` reason for it; keep one",
                        p.id(),
                        lang.label()
                    ),
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(puzzles)
    } else {
        Err(errors)
    }
}

/// `[book] src` from book.toml, "src" by default.
fn src_dir(root: &Path) -> Result<PathBuf, Located> {
    let path = root.join("book.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| Located::new(&path, 0, e.to_string()))?;
    let value: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e
            .span()
            .map(|s| crate::diag::line_of(&text, s.start))
            .unwrap_or(0);
        Located::new(&path, line, e.message().to_string())
    })?;
    let src = value
        .get("book")
        .and_then(|b| b.get("src"))
        .and_then(|s| s.as_str())
        .unwrap_or("src");
    Ok(PathBuf::from(src))
}

fn collect_markdown(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_markdown(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    const SPEC: &str = "```puzzle\nid: p1\ntitle: One\nkernel: k\ngrid: [1]\nblock: [2]\nbuffers:\n  out: { len: 2, output: true }\nargs: [out]\nexpect:\n  out: [1, 1]\n```\n";

    #[test]
    fn loads_a_book_with_included_kernels() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "book.toml", "[book]\ntitle = \"t\"\n");
        write(
            dir.path(),
            "kernels/k.wgsl",
            "fn k() {\n// BEGIN PUZZLE\n// END PUZZLE\n}\n",
        );
        let chapter = format!(
            "# One\n\n{SPEC}\n```wgsl,puzzle=p1\n{{{{#include ../../kernels/k.wgsl}}}}\n```\n"
        );
        write(dir.path(), "src/part/one.md", &chapter);
        let book = Book::load(dir.path()).unwrap();
        let p = book.find("p1").unwrap();
        let k = p.kernel(Lang::Wgsl).unwrap();
        assert!(k.source.lines[0].file.ends_with("kernels/k.wgsl"));
        assert_eq!(p.spec.origin.first_line, 4);
        assert!(book.find("p2").is_err());
    }

    #[test]
    fn problems_are_all_reported_with_lines() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "book.toml", "");
        let chapter = format!(
            "{SPEC}\n```cuda,puzzle=p9\n// BEGIN PUZZLE\n// END PUZZLE\n```\n\n```wgsl,puzzle=p1\nno markers\n```\n"
        );
        write(dir.path(), "src/a.md", &chapter);
        let errors = Book::load(dir.path()).unwrap_err();
        let got: Vec<(usize, &str)> = errors
            .iter()
            .map(|e| (e.line, e.message.as_str()))
            .collect();
        assert_eq!(got.len(), 2, "{errors:?}");
        assert_eq!(got[0].0, 20, "the WGSL block has no markers: {errors:?}");
        assert!(
            got[1].1.contains("names puzzle `p9`") && got[1].0 == 15,
            "{errors:?}"
        );
    }

    #[test]
    fn duplicate_ids_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "book.toml", "");
        write(dir.path(), "src/a.md", SPEC);
        write(dir.path(), "src/b.md", SPEC);
        let errors = Book::load(dir.path()).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].file.ends_with("b.md") && errors[0].line == 2,
            "{errors:?}"
        );
        assert!(errors[0].message.contains("already used"), "{errors:?}");
    }
}
