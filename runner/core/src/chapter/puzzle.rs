//! One chapter's puzzles: each ```puzzle block's spec with the kernels that
//! name it, their `{{#include}}`s expanded and their learner's regions found.

use crate::chapter::extract::{self, BlockKind};
use crate::kernel::cut::Kernel;
use crate::kernel::includes;
use crate::lang::Lang;
use crate::source::diag::Located;
use crate::source::include::{self, Files};
use crate::source::text::SourceText;
use crate::spec::resolve::PuzzleSpec;
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

/// The puzzles declared in one chapter. `file` is the chapter's path;
/// includes are relative to its folder and read through `files`. Every
/// problem is returned at once, each at its line.
pub fn chapter_puzzles(
    markdown: &str,
    file: &Path,
    files: &dyn Files,
) -> Result<Vec<Puzzle>, Vec<Located>> {
    let blocks = extract::blocks(markdown, file).map_err(|e| vec![e])?;
    let base = file.parent().unwrap_or(Path::new("."));
    let mut puzzles: Vec<Puzzle> = Vec::new();
    let mut kernels = Vec::new();
    // The ids of specs that did not parse (None where even the id is not
    // readable): their kernels are not also "a kernel without a spec".
    let mut broken: Vec<Option<String>> = Vec::new();
    let mut errors = Vec::new();
    for block in blocks {
        match block.kind {
            BlockKind::Puzzle => match PuzzleSpec::parse(&block.body, file, block.body_line) {
                Ok(spec) => match puzzles.iter().find(|p| p.id() == spec.id()) {
                    // Kernels pair with specs by id: a second spec of one id
                    // would be shown beside the first one's verdict.
                    Some(first) => errors.push(Located::new(
                        file,
                        spec.origin.first_line,
                        format!(
                            "puzzle id `{}` is already used at line {} of this chapter",
                            spec.id(),
                            first.spec.origin.first_line
                        ),
                    )),
                    None => puzzles.push(Puzzle {
                        spec,
                        chapter: file.to_path_buf(),
                        kernels: BTreeMap::new(),
                    }),
                },
                Err(e) => {
                    broken.push(written_id(&block.body));
                    errors.push(e);
                }
            },
            // Rooflines, bus charts and overlap tables name puzzles of any chapter; the
            // preprocessor reads them.
            BlockKind::Roofline | BlockKind::Precision | BlockKind::Bus | BlockKind::Overlap => {}
            BlockKind::Kernel { lang, puzzle } => {
                let text = SourceText::new(block.body, file, block.body_line);
                let expanded = include::expand(&text, base, files).and_then(|source| match lang {
                    Lang::Cuda => includes::expand(&source, files),
                    Lang::Wgsl => Ok(source),
                });
                match expanded.and_then(|source| Kernel::new(lang, source)) {
                    Ok(kernel) => kernels.push((puzzle, block.body_line, kernel)),
                    Err(e) => errors.push(e),
                }
            }
        }
    }
    for (id, line, kernel) in kernels {
        let lang = kernel.lang;
        let spec_broken = broken.iter().any(|b| b.as_deref().is_none_or(|b| b == id));
        match puzzles.iter_mut().find(|p| p.id() == id) {
            None if spec_broken => {}
            None => errors.push(Located::new(
                file,
                line,
                format!(
                    "kernel block names puzzle `{id}`, but this chapter declares no such ```puzzle block"
                ),
            )),
            Some(p) if p.kernels.contains_key(&lang) => errors.push(Located::new(
                file,
                line,
                format!("a second {} kernel for `{id}`", lang.label()),
            )),
            Some(p) => {
                let mut kernel = kernel;
                kernel.name_copy(&id);
                p.kernels.insert(lang, kernel);
            }
        }
    }
    for p in &puzzles {
        errors.extend(bug_and_given_agree(p, file));
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

/// A debugging case (a spec with `bug:`) gives every kernel with a bug, and
/// a kernel given with a bug (`AS GIVEN`) needs the spec to say which.
fn bug_and_given_agree(p: &Puzzle, file: &Path) -> Vec<Located> {
    let bug = p.spec.raw.bug;
    p.kernels
        .values()
        .filter(|k| k.is_given_with_bug() != bug.is_some())
        .map(|k| match bug {
            Some(bug) => Located::new(
                file,
                p.spec.origin.first_line,
                format!(
                    "`{}` states `bug: {}`, but its {} kernel has no `AS GIVEN` lines: mark the \
                     lines the learner is given in place of the fix",
                    p.id(),
                    bug.name(),
                    k.lang.label()
                ),
            ),
            None => k.source.locate(
                1,
                format!(
                    "this {} kernel is given with a bug (`AS GIVEN`), but the spec of `{}` does \
                     not say which: add `bug:` ({})",
                    k.lang.label(),
                    p.id(),
                    crate::spec::finding::Finding::ALL
                        .map(|f| f.name())
                        .join(", ")
                ),
            ),
        })
        .collect()
}

/// The `id:` a spec block states on a line of its own, read without parsing
/// the YAML (which failed): `id: p01_map` gives `p01_map`.
fn written_id(yaml: &str) -> Option<String> {
    yaml.lines().find_map(|line| {
        let value = line.strip_prefix("id:")?.trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        (!value.is_empty()).then(|| value.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::include::MemoryFiles;

    const SPEC: &str = "```puzzle\nid: p1\ntitle: One\nkernel: k\ngrid: [1]\nblock: [2]\nbuffers:\n  out: { len: 2, output: true }\nargs: [out]\nexpect:\n  out: [1, 1]\n```\n";

    #[test]
    fn kernels_are_included_and_paired_with_their_spec() {
        let files = MemoryFiles(
            [(
                PathBuf::from("/b/src/part/../../kernels/k.wgsl"),
                "fn k() {\n// BEGIN PUZZLE\n// END PUZZLE\n}\n".to_string(),
            )]
            .into(),
        );
        let chapter = format!(
            "# One\n\n{SPEC}\n```wgsl,puzzle=p1\n{{{{#include ../../kernels/k.wgsl}}}}\n```\n"
        );
        let found = chapter_puzzles(&chapter, Path::new("/b/src/part/one.md"), &files).unwrap();
        let k = found[0].kernel(Lang::Wgsl).unwrap();
        assert!(k.source.lines[0].file.ends_with("kernels/k.wgsl"));
        assert_eq!(found[0].spec.origin.first_line, 4);
    }

    /// (chapter, the problems' lines and a phrase of each)
    #[test]
    fn every_problem_is_reported_at_its_line() {
        let cases: Vec<(String, Vec<(usize, &str)>)> = vec![
            (
                format!(
                    "{SPEC}\n```cuda,puzzle=p9\n// BEGIN PUZZLE\n// END PUZZLE\n```\n\n```wgsl,puzzle=p1\nno markers\n```\n"
                ),
                vec![(20, "no `// BEGIN PUZZLE`"), (15, "names puzzle `p9`")],
            ),
            (
                format!("{SPEC}\n{SPEC}"),
                vec![(
                    15,
                    "puzzle id `p1` is already used at line 2 of this chapter",
                )],
            ),
            (
                // A spec that fails to parse is the one error: its kernel is
                // not also "a block for no such puzzle".
                format!(
                    "{}\n```wgsl,puzzle=p1\n// BEGIN PUZZLE\n// END PUZZLE\n```\n",
                    SPEC.replace("grid: [1]", "grid: [1")
                ),
                vec![(6, "")],
            ),
            (
                // A debugging case's spec with a kernel that gives no bug.
                format!(
                    "{}\n```wgsl,puzzle=p1\n// BEGIN PUZZLE\n// END PUZZLE\n```\n",
                    SPEC.replace("kernel: k", "kernel: k\nbug: race")
                ),
                vec![(
                    2,
                    "states `bug: race`, but its WGSL kernel has no `AS GIVEN`",
                )],
            ),
            (
                // A kernel given with a bug, under a spec that does not name it.
                format!(
                    "{SPEC}\n```wgsl,puzzle=p1\n// BEGIN PUZZLE\n// AS GIVEN\n// END PUZZLE\n```\n"
                ),
                vec![(15, "add `bug:` (unwritten, wrong, out_of_bounds, race")],
            ),
        ];
        for (chapter, want) in cases {
            let errors =
                chapter_puzzles(&chapter, Path::new("a.md"), &MemoryFiles::default()).unwrap_err();
            let got: Vec<(usize, &str)> = errors
                .iter()
                .map(|e| (e.line, e.message.as_str()))
                .collect();
            assert_eq!(got.len(), want.len(), "{errors:?}");
            for ((line, message), (want_line, phrase)) in got.iter().zip(&want) {
                assert_eq!(line, want_line, "{errors:?}");
                assert!(message.contains(phrase), "{errors:?}");
            }
        }
    }
}
