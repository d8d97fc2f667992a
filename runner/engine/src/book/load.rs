//! The book on disk: its folder found from where a command runs, its
//! chapters read from `src/` (the folder `book.toml` names), and the files
//! their kernels `{{#include}}`, which must lie inside the book.

use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::summary;
use puzzle_core::source::diag::{Located, line_of};
use puzzle_core::source::include::Files;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why no book was found.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("{path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "no book.toml in {0} or above it: run this inside the GPU Puzzles checkout, pass --book DIR, or set GPU_PUZZLES_BOOK=DIR"
    )]
    NoBook(PathBuf),
}

/// The book that holds `start`: the nearest folder at or above it with a `book.toml`.
pub fn discover(start: &Path) -> Result<PathBuf, DiscoverError> {
    let start = start
        .canonicalize()
        .map_err(|source| DiscoverError::Unreadable {
            path: start.to_path_buf(),
            source,
        })?;
    start
        .ancestors()
        .find(|dir| dir.join("book.toml").is_file())
        .map(Path::to_path_buf)
        .ok_or(DiscoverError::NoBook(start))
}

/// Every chapter of the book at `root`, read and parsed. All problems are returned at once.
pub fn load(root: &Path) -> Result<Book, Vec<Located>> {
    load_with(root, &BookFiles::new(root))
}

/// [`load`], with the chapters' includes read through `files` (which then
/// knows every file the book was made from).
pub fn load_with(root: &Path, files: &BookFiles) -> Result<Book, Vec<Located>> {
    let src = root.join(src_dir(root).map_err(|e| vec![e])?);
    let mut markdown = Vec::new();
    collect_markdown(&src, &mut markdown)
        .map_err(|e| vec![Located::new(&src, 0, e.to_string())])?;
    markdown.sort();
    let mut chapters = Vec::new();
    let mut errors = Vec::new();
    for file in markdown {
        match std::fs::read_to_string(&file) {
            Ok(text) => chapters.push((file, text)),
            Err(e) => errors.push(Located::new(&file, 0, e.to_string())),
        }
    }
    let book = Book::from_chapters(root, &src, chapters, files);
    match (book, errors.is_empty()) {
        (Ok(book), true) => Ok(book),
        (Ok(_), false) => Err(errors),
        (Err(mut more), _) => {
            errors.append(&mut more);
            Err(errors)
        }
    }
}

/// The chapter links of `src/SUMMARY.md`, in order.
pub fn read_summary(src: &Path) -> Result<Vec<summary::Entry>, Located> {
    let file = src.join("SUMMARY.md");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Located::new(&file, 0, format!("cannot read the table of contents: {e}")))?;
    Ok(summary::parse(&text, src))
}

/// Files a chapter may include: those inside the book's folder. A path that
/// leads out of it (`{{#include /etc/passwd}}`, `../../../x`) is refused,
/// so a chapter can neither read nor show what lies outside the book.
pub struct BookFiles {
    root: PathBuf,
    /// Every file read so far: what a build's output depends on besides the chapters.
    read: Mutex<BTreeSet<PathBuf>>,
}

impl BookFiles {
    pub fn new(root: &Path) -> BookFiles {
        BookFiles {
            root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
            read: Mutex::new(BTreeSet::new()),
        }
    }

    /// Every file included so far (read or not: a missing one matters too), by its real path.
    pub fn included(&self) -> Vec<PathBuf> {
        let read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        read.iter().cloned().collect()
    }
}

impl Files for BookFiles {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        {
            let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
            read.insert(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()));
        }
        let real = path.canonicalize()?;
        if !real.starts_with(&self.root) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "it lies outside the book's folder {}; include files from inside the book",
                    self.root.display()
                ),
            ));
        }
        std::fs::read(real)
    }
}

/// `[book] src` from book.toml, "src" by default.
fn src_dir(root: &Path) -> Result<PathBuf, Located> {
    let path = root.join("book.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| Located::new(&path, 0, e.to_string()))?;
    let value: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map(|s| line_of(&text, s.start)).unwrap_or(0);
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
    use puzzle_core::lang::Lang;

    fn write(dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    const SPEC: &str = "```puzzle\nid: p1\ntitle: One\nkernel: k\ngrid: [1]\nblock: [2]\nbuffers:\n  out: { len: 2, output: true }\nargs: [out]\nexpect:\n  out: [1, 1]\n```\n";

    #[test]
    fn loads_the_chapters_under_the_src_that_book_toml_names() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "book.toml",
            "[book]\ntitle = \"t\"\nsrc = \"pages\"\n",
        );
        write(
            dir.path(),
            "kernels/k.wgsl",
            "fn k() {\n// BEGIN PUZZLE\n// END PUZZLE\n}\n",
        );
        let chapter = format!(
            "# One\n\n{SPEC}\n```wgsl,puzzle=p1\n{{{{#include ../../kernels/k.wgsl}}}}\n```\n"
        );
        write(dir.path(), "pages/part/one.md", &chapter);
        let book = load(dir.path()).unwrap();
        let k = book.find("p1").unwrap().kernel(Lang::Wgsl).unwrap();
        assert!(k.source.lines[0].file.ends_with("kernels/k.wgsl"));
        assert_eq!(
            discover(&dir.path().join("pages/part")).unwrap(),
            dir.path().canonicalize().unwrap()
        );
    }

    /// An include that leads out of the book is refused at its line, and
    /// says nothing of what the file holds.
    #[test]
    fn includes_stay_inside_the_book() {
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "secret.cu", "the secret");
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "book.toml", "");
        let secret = outside.path().join("secret.cu");
        let chapter = format!(
            "{SPEC}\n```cuda,puzzle=p1\n{{{{#include {}}}}}\n```\n",
            secret.display()
        );
        write(dir.path(), "src/a.md", &chapter);
        let errors = load(dir.path()).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].line, 15, "{errors:?}");
        assert!(errors[0].message.contains("outside the book"), "{errors:?}");
        assert!(!errors[0].message.contains("the secret"), "{errors:?}");
    }
}
