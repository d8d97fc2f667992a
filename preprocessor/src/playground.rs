//! The published book's playground, as the page carries it: each WGSL
//! puzzle packed ([`Bundle`]: its blocks and the files they include, by
//! paths relative to the book) into the box `theme/playground.js` turns into
//! an editor; and, beside each CUDA kernel, why a page cannot run it.

use crate::render;
use puzzle_core::chapter::bundle::Bundle;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use runner::book::BookFiles;
use std::path::Path;

/// What follows the skeleton: for WGSL, the published book's playground,
/// with the puzzle packed for the in-page checker; for CUDA, why a page
/// cannot run it. A puzzle that cannot be packed gets no playground (its
/// problems are the chapter's, reported where it loads). `root` is the
/// book's, and `files` those its chapters may include.
pub fn beside_the_skeleton(puzzle: &Puzzle, lang: Lang, root: &Path, files: &BookFiles) -> String {
    if lang == Lang::Cuda {
        return crate::prose::no_browser_note(puzzle.id());
    }
    let chapter = puzzle.chapter.strip_prefix(root).unwrap_or(&puzzle.chapter);
    let rooted = UnderRoot { root, files };
    let bundle = std::fs::read_to_string(&puzzle.chapter)
        .ok()
        .and_then(|markdown| Bundle::of(&markdown, chapter, puzzle.id(), lang, &rooted).ok())
        .and_then(|bundle| serde_json::to_string(&bundle).ok());
    bundle.map_or_else(String::new, |bundle| {
        render::playground(&bundle, puzzle.id())
    })
}

/// The book's files by paths relative to its root: a bundle names its
/// chapter and includes the same way on every machine that builds it.
struct UnderRoot<'a> {
    root: &'a Path,
    files: &'a BookFiles,
}

impl puzzle_core::source::include::Files for UnderRoot<'_> {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.files.read(&self.root.join(path))
    }
}

/// A page as a reader sees it: without the playground's bundles, which hold
/// the kernel source (markers and all) the in-page checker cuts its skeleton
/// from, as the engine does. The page already shows the solution, folded
/// away, so a bundle gives nothing more away; checks of what a page shows
/// (no marker, no raw block) look at this.
pub fn without_bundles(page: &str) -> String {
    const OPEN: &str = "<script type=\"application/json\" class=\"puzzle-bundle\">";
    let mut shown = String::new();
    let mut rest = page;
    while let Some(start) = rest.find(OPEN) {
        shown.push_str(&rest[..start]);
        let end = rest[start..]
            .find("</script>")
            .map_or(rest.len(), |e| start + e + "</script>".len());
        rest = &rest[end..];
    }
    shown.push_str(rest);
    shown
}
