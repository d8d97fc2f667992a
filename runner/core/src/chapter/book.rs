//! The puzzle catalogue: every puzzle of every chapter, by id.
//!
//! Built from chapter texts the caller has read (the engine from `src/`,
//! the browser from what the page carries), so the CLI, the tests, the book
//! build and the playground see exactly the same puzzles.

use crate::chapter::puzzle::{Puzzle, chapter_puzzles};
use crate::source::diag::{Located, display_path};
use crate::source::include::Files;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// All puzzles of a book, sorted by id.
#[derive(Debug, Clone)]
pub struct Book {
    pub root: PathBuf,
    pub src: PathBuf,
    pub puzzles: Vec<Puzzle>,
}

/// A puzzle id the book does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no puzzle `{id}`; {}", match near.as_slice() {
    [] => "`runner list` shows them all".to_string(),
    near => format!("did you mean {}?", near.join(" or ")),
})]
pub struct NoSuchPuzzle {
    pub id: String,
    /// Ids that contain it or that it contains.
    pub near: Vec<String>,
}

impl Book {
    /// The book whose chapters are `chapters` (path under `src`, markdown).
    /// Every problem of every chapter is returned at once.
    pub fn from_chapters(
        root: &Path,
        src: &Path,
        chapters: impl IntoIterator<Item = (PathBuf, String)>,
        files: &dyn Files,
    ) -> Result<Book, Vec<Located>> {
        let mut puzzles: Vec<Puzzle> = Vec::new();
        let mut errors = Vec::new();
        for (file, text) in chapters {
            match chapter_puzzles(&text, &file, files) {
                Ok(found) => puzzles.extend(found),
                Err(mut e) => errors.append(&mut e),
            }
        }
        let mut seen: BTreeMap<String, &Puzzle> = BTreeMap::new();
        for p in &puzzles {
            if let Some(first) = seen.insert(p.id().to_string(), p) {
                errors.push(Located::new(
                    &p.spec.origin.file,
                    p.spec.origin.first_line,
                    format!(
                        "puzzle id `{}` is already used at {}:{}",
                        p.id(),
                        display_path(&first.chapter),
                        first.spec.origin.first_line
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
            src: src.to_path_buf(),
            puzzles,
        })
    }

    pub fn find(&self, id: &str) -> Result<&Puzzle, NoSuchPuzzle> {
        self.puzzles
            .iter()
            .find(|p| p.id() == id)
            .ok_or_else(|| NoSuchPuzzle {
                id: id.to_string(),
                near: self
                    .puzzles
                    .iter()
                    .map(Puzzle::id)
                    .filter(|p| p.contains(id) || id.contains(*p))
                    .map(str::to_string)
                    .collect(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::include::MemoryFiles;

    const SPEC: &str = "```puzzle\nid: p1\ntitle: One\nkernel: k\ngrid: [1]\nblock: [2]\nbuffers:\n  out: { len: 2, output: true }\nargs: [out]\nexpect:\n  out: [1, 1]\n```\n";

    fn book(chapters: &[(&str, &str)]) -> Result<Book, Vec<Located>> {
        let chapters = chapters
            .iter()
            .map(|(f, t)| (PathBuf::from(f), t.to_string()));
        Book::from_chapters(
            Path::new("/b"),
            Path::new("/b/src"),
            chapters,
            &MemoryFiles::default(),
        )
    }

    #[test]
    fn finds_puzzles_and_names_near_misses() {
        let book = book(&[("/b/src/a.md", SPEC)]).unwrap();
        assert_eq!(book.find("p1").unwrap().title(), "One");
        let cases = [
            ("p2", "no puzzle `p2`; `runner list` shows them all"),
            ("p", "no puzzle `p`; did you mean p1?"),
        ];
        for (id, message) in cases {
            assert_eq!(book.find(id).unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn duplicate_ids_across_chapters_are_reported() {
        let errors = book(&[("/b/src/a.md", SPEC), ("/b/src/b.md", SPEC)]).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].file.ends_with("b.md") && errors[0].line == 2,
            "{errors:?}"
        );
        assert!(
            errors[0].message.contains("already used at /b/src/a.md:2"),
            "{errors:?}"
        );
    }
}
