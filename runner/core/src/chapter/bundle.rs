//! One puzzle, packed to be checked away from the book: in the published
//! page's playground, where there are no files to read.
//!
//! A [`Bundle`] holds the chapter's blocks for one puzzle in one language
//! (its ```puzzle block and its kernel block, every other line of the
//! chapter left blank so each keeps its line number) and the text of every
//! file those blocks include. [`Bundle::puzzle`] reads it back through the
//! same [`chapter_puzzles`] the book uses, so the browser's puzzle is the
//! book's: the same spec, skeleton, constants and stress cases.

use crate::chapter::extract::{self, BlockKind};
use crate::chapter::puzzle::{Puzzle, chapter_puzzles};
use crate::lang::Lang;
use crate::source::diag::Located;
use crate::source::include::{Files, MemoryFiles};
use crate::spec::resolve::PuzzleSpec;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One puzzle's blocks and the files they include.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    pub puzzle: String,
    pub lang: Lang,
    /// The chapter, as the book names it (`src/part1/p01_map.md`).
    pub chapter: PathBuf,
    /// The chapter with only this puzzle's blocks left in.
    pub markdown: String,
    /// Every file the blocks include, by the path the include asked for.
    pub files: BTreeMap<PathBuf, String>,
}

impl Bundle {
    /// Packs puzzle `id`'s `lang` kernel from the chapter `markdown` at
    /// `chapter`, reading its includes through `files`. The packed puzzle is
    /// read back before it is returned: a bundle that would not load is an
    /// error here, at the chapter's lines.
    pub fn of(
        markdown: &str,
        chapter: &Path,
        id: &str,
        lang: Lang,
        files: &dyn Files,
    ) -> Result<Bundle, Vec<Located>> {
        let blocks = extract::blocks(markdown, chapter).map_err(|e| vec![e])?;
        let ours = |kind: &BlockKind, body: &str, line: usize| match kind {
            BlockKind::Puzzle => PuzzleSpec::parse(body, chapter, line).is_ok_and(|s| s.id() == id),
            BlockKind::Kernel { lang: l, puzzle } => *l == lang && puzzle == id,
            BlockKind::Roofline | BlockKind::Precision | BlockKind::Bus | BlockKind::Overlap => {
                false
            }
        };
        let mut packed = String::new();
        let mut at = 0;
        for block in blocks
            .iter()
            .filter(|b| ours(&b.kind, &b.body, b.body_line))
        {
            packed.extend(markdown[at..block.range.start].matches('\n'));
            packed.push_str(&markdown[block.range.clone()]);
            at = block.range.end;
        }
        let recorder = Recorder {
            files,
            read: RefCell::default(),
        };
        let found = chapter_puzzles(&packed, chapter, &recorder)?;
        if !found
            .iter()
            .any(|p| p.id() == id && p.kernel(lang).is_some())
        {
            return Err(vec![Located::new(
                chapter,
                0,
                format!("this chapter has no {} kernel for `{id}`", lang.label()),
            )]);
        }
        Ok(Bundle {
            puzzle: id.to_string(),
            lang,
            chapter: chapter.to_path_buf(),
            markdown: packed,
            files: recorder.read.into_inner(),
        })
    }

    /// The puzzle, read from the bundle alone.
    pub fn puzzle(&self) -> Result<Puzzle, Vec<Located>> {
        let files = MemoryFiles(self.files.clone());
        chapter_puzzles(&self.markdown, &self.chapter, &files)?
            .into_iter()
            .find(|p| p.id() == self.puzzle && p.kernel(self.lang).is_some())
            .ok_or_else(|| {
                vec![Located::new(
                    &self.chapter,
                    0,
                    format!(
                        "the bundle holds no {} kernel for `{}`",
                        self.lang.label(),
                        self.puzzle
                    ),
                )]
            })
    }
}

/// Reads through another [`Files`], keeping what it read.
struct Recorder<'a> {
    files: &'a dyn Files,
    read: RefCell<BTreeMap<PathBuf, String>>,
}

impl Files for Recorder<'_> {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        let bytes = self.files.read(path)?;
        let text = String::from_utf8(bytes.clone())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        self.read.borrow_mut().insert(path.to_path_buf(), text);
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAPTER: &str = "# Two puzzles\n\nProse.\n\n```puzzle\nid: p1\ntitle: One\nkernel: k\ngrid: [1]\nblock: [2]\nbuffers:\n  out: { len: 2, output: true }\nargs: [out]\nexpect:\n  out: [1, 1]\n```\n\n```wgsl,puzzle=p1\n{{#include k1.wgsl}}\n```\n\n```puzzle\nid: p2\ntitle: Two\nkernel: k\ngrid: [1]\nblock: [2]\nbuffers:\n  out: { len: 2, output: true }\nargs: [out]\nexpect:\n  out: [2, 2]\n```\n\n```wgsl,puzzle=p2\n{{#include k2.wgsl}}\n```\n";

    fn kernel(value: u32) -> String {
        format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@compute @workgroup_size(2)\nfn k(@builtin(global_invocation_id) i: vec3<u32>) {{\n    // BEGIN PUZZLE\n    out[i.x] = {value}.0;\n    // END PUZZLE\n}}\n"
        )
    }

    fn files() -> MemoryFiles {
        MemoryFiles(BTreeMap::from([
            (PathBuf::from("src/k1.wgsl"), kernel(1)),
            (PathBuf::from("src/k2.wgsl"), kernel(2)),
        ]))
    }

    #[test]
    fn a_bundle_holds_one_puzzle_and_reads_back_as_the_books() {
        let chapter = Path::new("src/two.md");
        let book = chapter_puzzles(CHAPTER, chapter, &files()).unwrap();
        for (id, file) in [("p1", "src/k1.wgsl"), ("p2", "src/k2.wgsl")] {
            let bundle = Bundle::of(CHAPTER, chapter, id, Lang::Wgsl, &files()).unwrap();
            assert_eq!(bundle.files.keys().collect::<Vec<_>>(), [Path::new(file)]);
            assert!(!bundle.markdown.contains("Prose"), "{}", bundle.markdown);
            let json = serde_json::to_string(&bundle).unwrap();
            let back: Bundle = serde_json::from_str(&json).unwrap();
            let puzzle = back.puzzle().unwrap();
            let original = book.iter().find(|p| p.id() == id).unwrap();
            // Same spec at the same lines, same kernel from the same file.
            assert_eq!(puzzle.spec.origin, original.spec.origin, "{id}");
            assert_eq!(puzzle.spec.text, original.spec.text, "{id}");
            let (k, o) = (
                puzzle.kernel(Lang::Wgsl).unwrap(),
                original.kernel(Lang::Wgsl).unwrap(),
            );
            assert_eq!(k.skeleton().text, o.skeleton().text, "{id}");
            assert_eq!(k.copy_name, o.copy_name, "{id}");
        }
    }

    #[test]
    fn what_cannot_be_packed_is_an_error_table() {
        let chapter = Path::new("src/two.md");
        let cases = [
            ("p3", Lang::Wgsl, "no WGSL kernel for `p3`"),
            ("p1", Lang::Cuda, "no CUDA C kernel for `p1`"),
        ];
        for (id, lang, want) in cases {
            let errors = Bundle::of(CHAPTER, chapter, id, lang, &files()).unwrap_err();
            assert!(errors[0].message.contains(want), "{id}: {errors:?}");
        }
        // An include that cannot be read is named at its line.
        let errors =
            Bundle::of(CHAPTER, chapter, "p1", Lang::Wgsl, &MemoryFiles::default()).unwrap_err();
        assert_eq!(errors[0].line, 19, "{errors:?}");
    }
}
