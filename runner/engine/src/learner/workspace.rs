//! The learner's workspace: a git-ignored copy of every skeleton to edit.
//!
//! `.learner/<puzzle>/<kernel file>` holds one file per puzzle and language,
//! named like the book's kernel (`.learner/p03_guard/add_10_guard.wgsl`).
//! Copies are created when missing and never overwritten, except by an
//! explicit reset; the book's own sources are only ever read.

use crate::learner::former_names;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The folder, relative to the book, that holds the learner's copies.
pub const DIR: &str = ".learner";

/// Where the learner's copies live.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
}

/// What [`Workspace::ensure`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Created {
    pub files: Vec<PathBuf>,
    /// The learner's copies found under a name the book used before, moved
    /// to today's (from, to): see [`former_names`].
    pub moved: Vec<(PathBuf, PathBuf)>,
}

impl Workspace {
    /// The workspace at `dir`, or `<book>/.learner` when none is given.
    pub fn new(book: &Book, dir: Option<PathBuf>) -> Workspace {
        Workspace {
            root: dir.unwrap_or_else(|| book.root.join(DIR)),
        }
    }

    /// The learner's file for one puzzle and language (which may not exist yet).
    pub fn file(&self, puzzle: &Puzzle, lang: Lang) -> PathBuf {
        self.root.join(puzzle.id()).join(file_name(puzzle, lang))
    }

    /// Creates every missing copy from its skeleton; existing files are kept
    /// as they are (they are the learner's work).
    pub fn ensure(&self, book: &Book) -> io::Result<Created> {
        let mut created = Created::default();
        for puzzle in &book.puzzles {
            for (&lang, kernel) in &puzzle.kernels {
                let path = self.file(puzzle, lang);
                if path.exists() {
                    continue;
                }
                std::fs::create_dir_all(path.parent().unwrap_or(&self.root))?;
                let name = file_name(puzzle, lang);
                let former = former_names::former_copies(puzzle.id(), &name)
                    .into_iter()
                    .map(|relative| self.root.join(relative))
                    .find(|old| old.is_file());
                if let Some(old) = former {
                    std::fs::rename(&old, &path)?;
                    created.moved.push((old, path));
                    continue;
                }
                std::fs::write(&path, kernel.skeleton().text)?;
                created.files.push(path);
            }
        }
        Ok(created)
    }

    /// Puts the skeleton back into the learner's copy. The text it replaces,
    /// if any and different, is kept beside it as `<file>.bak` and returned.
    pub fn reset(&self, puzzle: &Puzzle, lang: Lang) -> io::Result<Option<PathBuf>> {
        let Some(kernel) = puzzle.kernel(lang) else {
            return Ok(None);
        };
        let path = self.file(puzzle, lang);
        let skeleton = kernel.skeleton().text;
        let mut backup = None;
        if let Ok(old) = std::fs::read(&path)
            && old != skeleton.as_bytes()
        {
            let bak = path.with_file_name(format!(
                "{}.bak",
                path.file_name().unwrap_or_default().to_string_lossy()
            ));
            std::fs::write(&bak, old)?;
            backup = Some(bak);
        }
        std::fs::create_dir_all(path.parent().unwrap_or(&self.root))?;
        std::fs::write(&path, skeleton)?;
        Ok(backup)
    }

    /// When the learner last saved their copy of `puzzle` in `lang`, if it
    /// differs from the skeleton (a missing, unreadable or untouched copy,
    /// or one reset, is `None`: the workspace wrote it, not the learner).
    pub fn changed_at(&self, puzzle: &Puzzle, lang: Lang) -> Option<SystemTime> {
        let kernel = puzzle.kernel(lang)?;
        let path = self.file(puzzle, lang);
        let at = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
        let text = std::fs::read(&path).ok()?;
        (text != kernel.skeleton().text.as_bytes()).then_some(at)
    }

    /// The language of the changed copy the learner saved last, of any puzzle.
    pub fn changed_last(&self, book: &Book) -> Option<Lang> {
        // Newest first, so usually only one file is read.
        let mut copies: Vec<(SystemTime, &Puzzle, Lang)> = book
            .puzzles
            .iter()
            .flat_map(|p| p.kernels.keys().map(move |&l| (p, l)))
            .filter_map(|(p, l)| {
                let at = std::fs::metadata(self.file(p, l)).and_then(|m| m.modified());
                Some((at.ok()?, p, l))
            })
            .collect();
        copies.sort_by_key(|&(at, _, _)| std::cmp::Reverse(at));
        copies
            .into_iter()
            .find(|&(_, p, l)| self.changed_at(p, l).is_some())
            .map(|(_, _, l)| l)
    }

    /// The puzzle and language whose learner's file `path` is, if it is one
    /// (editors' swap files, backups and the progress file are not).
    pub fn locate<'b>(&self, book: &'b Book, path: &Path) -> Option<(&'b Puzzle, Lang)> {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let root = self
            .root
            .canonicalize()
            .unwrap_or_else(|_| self.root.clone());
        let relative = path.strip_prefix(&root).ok()?;
        let mut parts = relative.components();
        let id = parts.next()?.as_os_str().to_str()?;
        let name = parts.next()?.as_os_str().to_str()?;
        if parts.next().is_some() {
            return None;
        }
        let puzzle = book.puzzles.iter().find(|p| p.id() == id)?;
        let lang = Lang::ALL
            .into_iter()
            .find(|&l| puzzle.kernel(l).is_some() && file_name(puzzle, l) == name)?;
        Some((puzzle, lang))
    }
}

/// The learner's file name: the book's kernel file name (`add_10_guard.cu`),
/// or `<puzzle>.<ext>` for a kernel written inline in its chapter.
pub fn file_name(puzzle: &Puzzle, lang: Lang) -> String {
    puzzle.kernel(lang).map_or_else(
        || format!("{}.{}", puzzle.id(), lang.extension()),
        |k| k.copy_name.clone(),
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A book of two puzzles, p1 (WGSL and CUDA, from kernel files) and p2
    /// (WGSL written inline in its chapter).
    pub(crate) fn book(dir: &Path) -> Book {
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("book.toml", "[book]\ntitle = \"t\"\n");
        write(
            "src/SUMMARY.md",
            "# Summary\n\n- [Two](two.md)\n- [One](one.md)\n",
        );
        // `extra`: more spec lines, e.g. a `why_no_kernel` reason.
        let spec = |id: &str, extra: &str| {
            format!(
                "```puzzle\nid: {id}\ntitle: T {id}\nkernel: k\ngrid: [1]\nblock: [4]\nbuffers:\n  out: {{ len: 4, output: true }}\nargs: [out]\nexpect:\n  out: [1, 1, 1, 1]\nhints:\n  - first\n  - second\n{extra}```\n"
            )
        };
        let wgsl = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@compute @workgroup_size(4)\nfn k(@builtin(local_invocation_id) l: vec3<u32>) {\n    // BEGIN PUZZLE\n    out[l.x] = 1.0;\n    // END PUZZLE\n}\n";
        write("kernels/p1/k.wgsl", wgsl);
        write(
            "kernels/p1/k.cu",
            "extern \"C\" __global__ void k(float* out) {\n    // BEGIN PUZZLE\n    out[threadIdx.x] = 1.0f;\n    // END PUZZLE\n}\n",
        );
        write(
            "src/one.md",
            &format!(
                "# One\n\n{}\n```wgsl,puzzle=p1\n{{{{#include ../kernels/p1/k.wgsl}}}}\n```\n\n```cuda,puzzle=p1\n{{{{#include ../kernels/p1/k.cu}}}}\n```\n",
                spec("p1", "")
            ),
        );
        write(
            "src/two.md",
            &format!(
                "# Two\n\n{}\n```wgsl,puzzle=p2\n{wgsl}```\n",
                spec("p2", "why_no_kernel: { cuda: \"shown in WGSL only\" }\n")
            ),
        );
        crate::book::load::load(dir).unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn creates_every_copy_once_and_keeps_the_learners_work() {
        let dir = tempfile::tempdir().unwrap();
        let book = book(dir.path());
        let ws = Workspace::new(&book, None);
        let created = ws.ensure(&book).unwrap();
        let names: Vec<String> = created
            .files
            .iter()
            .map(|f| f.strip_prefix(&ws.root).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["p1/k.cu", "p1/k.wgsl", "p2/p2.wgsl"]);
        let p1 = book.find("p1").unwrap();
        let wgsl = ws.file(p1, Lang::Wgsl);
        assert!(
            std::fs::read_to_string(&wgsl)
                .unwrap()
                .contains("FILL ME IN")
        );
        std::fs::write(&wgsl, "my work").unwrap();
        assert_eq!(ws.ensure(&book).unwrap(), Created::default());
        assert_eq!(std::fs::read_to_string(&wgsl).unwrap(), "my work");
        // Deleting the workspace and asking again recreates it.
        std::fs::remove_dir_all(&ws.root).unwrap();
        assert_eq!(ws.ensure(&book).unwrap().files.len(), 3);
    }

    #[test]
    fn reset_restores_the_skeleton_and_keeps_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let book = book(dir.path());
        let ws = Workspace::new(&book, None);
        ws.ensure(&book).unwrap();
        let p1 = book.find("p1").unwrap();
        let file = ws.file(p1, Lang::Cuda);
        let skeleton = std::fs::read_to_string(&file).unwrap();
        assert_eq!(ws.reset(p1, Lang::Cuda).unwrap(), None, "nothing to keep");
        std::fs::write(&file, "attempt").unwrap();
        let backup = ws.reset(p1, Lang::Cuda).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), skeleton);
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "attempt");
        assert!(backup.ends_with("p1/k.cu.bak"));
    }

    /// Only the learner's own changes count: fresh copies, and copies
    /// reset to the skeleton, are not "saved last", whatever their dates.
    #[test]
    fn changed_copies_table() {
        let dir = tempfile::tempdir().unwrap();
        let book = book(dir.path());
        let ws = Workspace::new(&book, None);
        ws.ensure(&book).unwrap();
        let p1 = book.find("p1").unwrap();
        let p2 = book.find("p2").unwrap();
        let set = |puzzle, lang, text: &str, seconds: u64| {
            let file = ws.file(puzzle, lang);
            std::fs::write(&file, text).unwrap();
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
            std::fs::File::options()
                .write(true)
                .open(&file)
                .unwrap()
                .set_modified(when)
                .unwrap();
        };
        let skeleton = |puzzle: &Puzzle, lang| puzzle.kernel(lang).unwrap().skeleton().text;
        assert_eq!(ws.changed_at(p1, Lang::Cuda), None, "fresh copy");
        assert_eq!(ws.changed_last(&book), None, "nothing changed yet");
        // (step, file changed, text, second, changed_last after it)
        let steps: [(&str, &Puzzle, Lang, &str, u64, Option<Lang>); 4] = [
            (
                "edit p1 in CUDA",
                p1,
                Lang::Cuda,
                "mine",
                100,
                Some(Lang::Cuda),
            ),
            (
                "edit p2 in WGSL, later",
                p2,
                Lang::Wgsl,
                "mine",
                200,
                Some(Lang::Wgsl),
            ),
            (
                "p1's WGSL touched but unchanged, latest",
                p1,
                Lang::Wgsl,
                &skeleton(p1, Lang::Wgsl),
                300,
                Some(Lang::Wgsl),
            ),
            (
                "p2 reset to its skeleton",
                p2,
                Lang::Wgsl,
                &skeleton(p2, Lang::Wgsl),
                400,
                Some(Lang::Cuda),
            ),
        ];
        for (step, puzzle, lang, text, second, want) in steps {
            set(puzzle, lang, text, second);
            assert_eq!(ws.changed_last(&book), want, "{step}");
        }
        let at = ws
            .changed_at(p1, Lang::Cuda)
            .expect("p1's CUDA copy changed");
        assert_eq!(
            at.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs(),
            100
        );
        assert_eq!(ws.changed_at(p1, Lang::Wgsl), None);
        std::fs::remove_file(ws.file(p1, Lang::Cuda)).unwrap();
        assert_eq!(ws.changed_at(p1, Lang::Cuda), None, "missing copy");
        assert_eq!(ws.changed_last(&book), None);
    }

    #[test]
    fn locate_table() {
        let dir = tempfile::tempdir().unwrap();
        let book = book(dir.path());
        let ws = Workspace::new(&book, None);
        ws.ensure(&book).unwrap();
        let cases = [
            ("p1/k.wgsl", Some(("p1", Lang::Wgsl))),
            ("p1/k.cu", Some(("p1", Lang::Cuda))),
            ("p2/p2.wgsl", Some(("p2", Lang::Wgsl))),
            ("p1/k.cu.bak", None),
            ("p1/.k.wgsl.swp", None),
            ("progress.json", None),
            ("p9/k.wgsl", None),
        ];
        for (relative, want) in cases {
            let got = ws
                .locate(&book, &ws.root.join(relative))
                .map(|(p, l)| (p.id(), l));
            assert_eq!(got, want, "{relative}");
        }
        assert!(ws.locate(&book, &dir.path().join("src/one.md")).is_none());
    }
}
