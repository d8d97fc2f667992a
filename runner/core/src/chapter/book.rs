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

    /// The puzzle a person means by `asked`: its id (`p03_guard`), or its
    /// number with or without the letter and the zero (`p3`, `03`, `3`;
    /// `d1` for a debugging case), or its name (`guard`). A number or name
    /// that fits several (Puzzle 19's steps) is an error listing them.
    pub fn find_as_meant(&self, asked: &str) -> Result<&Puzzle, NoSuchPuzzle> {
        if let Ok(p) = self.find(asked) {
            return Ok(p);
        }
        let ids = || self.puzzles.iter().map(Puzzle::id);
        let (letter, digits) = match asked.strip_prefix(['p', 'd']) {
            Some(rest) => (&asked[..1], rest),
            None => ("p", asked),
        };
        let fits: Vec<&str> = match digits.parse::<u32>() {
            Ok(n) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                let prefix = format!("{letter}{n:02}_");
                ids().filter(|id| id.starts_with(&prefix)).collect()
            }
            _ => {
                // A name: the id after its letter and number.
                let name = |id: &str| id.split_once('_').map_or("", |(_, n)| n).to_string();
                let same: Vec<&str> = ids().filter(|id| name(id) == asked).collect();
                if same.is_empty() {
                    ids().filter(|id| name(id).contains(asked)).collect()
                } else {
                    same
                }
            }
        };
        match fits.as_slice() {
            [one] => self.find(one),
            [] => self.find(asked),
            several => Err(NoSuchPuzzle {
                id: asked.to_string(),
                near: several.iter().map(|s| s.to_string()).collect(),
            }),
        }
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

    /// What a person types for a puzzle, and what they mean by it.
    #[test]
    fn finds_the_puzzle_a_person_means_table() {
        let spec = |id: &str| SPEC.replace("id: p1", &format!("id: {id}"));
        let ids = [
            "p03_guard",
            "p19_sgemm_shared",
            "p19_sgemm_registers",
            "p30_fusion",
            "d01_missing_guard",
        ];
        let chapters: Vec<(String, String)> = ids
            .iter()
            .map(|id| (format!("/b/src/{id}.md"), spec(id)))
            .collect();
        let chapters: Vec<(&str, &str)> = chapters
            .iter()
            .map(|(f, t)| (f.as_str(), t.as_str()))
            .collect();
        let book = book(&chapters).unwrap();
        // (asked, the puzzle meant, or the error's words)
        let cases = [
            ("p03_guard", Ok("p03_guard")),
            ("p3", Ok("p03_guard")),
            ("3", Ok("p03_guard")),
            ("03", Ok("p03_guard")),
            ("guard", Ok("p03_guard")),
            ("d1", Ok("d01_missing_guard")),
            ("missing", Ok("d01_missing_guard")),
            ("p30", Ok("p30_fusion")),
            (
                "p19",
                Err("no puzzle `p19`; did you mean p19_sgemm_registers or p19_sgemm_shared?"),
            ),
            (
                "sgemm",
                Err("no puzzle `sgemm`; did you mean p19_sgemm_registers or p19_sgemm_shared?"),
            ),
            ("p4", Err("no puzzle `p4`; `runner list` shows them all")),
        ];
        for (asked, want) in cases {
            let got = book
                .find_as_meant(asked)
                .map(|p| p.id())
                .map_err(|e| e.to_string());
            assert_eq!(got, want.map_err(str::to_string), "{asked}");
        }
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
