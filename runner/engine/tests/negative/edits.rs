//! Negative fixtures written as edits of a solution (`fixtures/edits.toml`):
//! read, made on today's solution of their puzzle when a trial runs, and the
//! lines the tables name found by their text in the edited kernel.
//!
//! A fixture copied whole from a solution drifts away from it; an edit
//! cannot, because it is made on the solution of the day. What it can do is
//! lose its anchor (the solution changed where the edit lands): then it
//! fails, naming the fixture and the text it no longer finds.

use super::{fixtures, lang_of, root};
use libtest_mimic::Failed;
use puzzle_core::chapter::book::Book;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::source::text::SourceText;
use std::path::{Component, Path, PathBuf};

/// The file of edits, in the fixtures folder.
const EDITS: &str = "edits.toml";

/// Where `fixture_edits::apply_every_edit` writes each edited kernel, as
/// `<folder>/<name>`, when set: `.ci/gpu/pack` sends them to the GPU
/// machine, where `runner run --file` reads them (it has no Rust toolchain).
pub const WRITE_TO: &str = "GPU_PUZZLES_EDITED_FIXTURES";

/// One fixture of `edits.toml`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// The name the tables know it by; its extension picks the language.
    pub name: String,
    /// Whose solution it edits.
    pub puzzle: String,
    /// The mistake it makes, for the reader and for failure messages.
    pub why: String,
    pub change: Vec<Change>,
}

/// One find/replace pair of an [`Edit`].
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    /// Text found exactly once in the solution.
    pub find: String,
    /// What replaces it; absent or empty, it is removed.
    #[serde(default)]
    pub replace: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Edits {
    #[serde(default)]
    edit: Vec<Edit>,
}

/// Every edit of `edits.toml`, in its order.
pub fn all() -> Result<Vec<Edit>, Failed> {
    let path = fixtures().join(EDITS);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let edits: Edits = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(edits.edit)
}

impl Edit {
    /// Today's solution of its puzzle, in its language, with its changes
    /// made; or why not, naming the fixture and the text that is gone.
    pub fn apply(&self, book: &Book) -> Result<String, String> {
        let fail = |why: String| format!("{EDITS}: fixture `{}`: {why}", self.name);
        let ext = Path::new(&self.name)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let lang = Lang::from_extension(ext)
            .ok_or_else(|| fail("its name must end in .cu or .wgsl".into()))?;
        if self.why.trim().is_empty() || self.change.is_empty() {
            return Err(fail(
                "an edit says `why` and makes at least one change".into(),
            ));
        }
        let puzzle = book.find(&self.puzzle).map_err(|e| fail(e.to_string()))?;
        let kernel = puzzle
            .kernel(lang)
            .ok_or_else(|| fail(format!("`{}` has no {} kernel", self.puzzle, lang.label())))?;
        let text = kernel.variant(Variant::Solution).text;
        let file = kernel
            .source
            .main_file()
            .map(|f| {
                tidy(f.strip_prefix(root()).unwrap_or(f))
                    .display()
                    .to_string()
            })
            .unwrap_or_default();
        let mut spans = Vec::new();
        for (i, change) in self.change.iter().enumerate() {
            let find = &change.find;
            let at: Vec<usize> = text
                .match_indices(find.as_str())
                .map(|(at, _)| at)
                .collect();
            match at[..] {
                _ if find.is_empty() => {
                    return Err(fail(format!("change {}: `find` is empty", i + 1)));
                }
                [at] => spans.push((at, at + find.len(), change.replace.as_str())),
                [] => {
                    return Err(fail(format!(
                        "change {}: its `find` is gone from today's solution of {} ({file}, \
                         after the skeleton cut); make the edit again on the solution:\n{find}",
                        i + 1,
                        self.puzzle
                    )));
                }
                _ => {
                    return Err(fail(format!(
                        "change {}: its `find` occurs {} times in today's solution of {} \
                         ({file}); add a line around it until it occurs once:\n{find}",
                        i + 1,
                        at.len(),
                        self.puzzle
                    )));
                }
            }
        }
        spans.sort_by_key(|&(start, _, _)| start);
        let mut edited = String::with_capacity(text.len());
        let mut done = 0;
        for (start, end, replace) in spans {
            if start < done {
                return Err(fail(
                    "two changes overlap in the solution; make them one change".into(),
                ));
            }
            edited.push_str(&text[done..start]);
            edited.push_str(replace);
            done = end;
        }
        edited.push_str(&text[done..]);
        Ok(edited)
    }
}

/// `path` with each `folder/..` folded away: a chapter's kernel is found
/// through the chapter's folder (`src/algorithms/../../kernels/…`).
fn tidy(path: &Path) -> PathBuf {
    let mut tidy = PathBuf::new();
    for part in path.components() {
        match (part, tidy.components().next_back()) {
            (Component::ParentDir, Some(Component::Normal(_))) => {
                tidy.pop();
            }
            _ => tidy.push(part),
        }
    }
    tidy
}

/// A negative fixture's kernel, as a trial runs it.
pub struct Fixture {
    pub name: String,
    pub lang: Lang,
    pub source: SourceText,
    /// The file its diagnostics name: the whole file's path, or, for an
    /// edit, its name alone (the learner's copy of a kernel is named so too).
    pub path: PathBuf,
    /// Whether it is an edit, whose lines move with the solution.
    pub edited: bool,
}

impl Fixture {
    /// The fixture `name`: the edit of `edits.toml` with that name, made on
    /// `book`'s solution, or else the whole file `fixtures/kernels/<name>`.
    pub fn load(book: &Book, name: &str) -> Result<Fixture, Failed> {
        let lang = lang_of(Path::new(name));
        if let Some(edit) = all()?.into_iter().find(|e| e.name == name) {
            let text = edit.apply(book)?;
            let path = PathBuf::from(name);
            return Ok(Fixture {
                name: name.to_string(),
                lang,
                source: SourceText::new(text, &path, 1),
                path,
                edited: true,
            });
        }
        let path = fixtures().join("kernels").join(name);
        let bytes = std::fs::read(&path).map_err(|e| {
            format!(
                "{}: {e} (nor is `{name}` an edit of {EDITS})",
                path.display()
            )
        })?;
        Ok(Fixture {
            name: name.to_string(),
            lang,
            source: SourceText::from_bytes(bytes, &path)?,
            path,
            edited: false,
        })
    }

    /// The line (1-based) holding `text`, which exactly one line must hold:
    /// how the tables name an edit's lines, which move with the solution. A
    /// text of several lines (two identical lines told apart by the one
    /// before) names the line its last line is on, and must occur once.
    pub fn line_holding(&self, text: &str) -> Result<usize, Failed> {
        let source = &self.source.text;
        let lines: Vec<usize> = if text.contains('\n') {
            source
                .match_indices(text)
                .map(|(at, _)| source[..at + text.len()].lines().count())
                .collect()
        } else {
            source
                .lines()
                .enumerate()
                .filter(|(_, line)| !text.is_empty() && line.contains(text))
                .map(|(i, _)| i + 1)
                .collect()
        };
        match lines[..] {
            [line] => Ok(line),
            _ => Err(format!(
                "{}: {} lines hold `{text}`{}; name a text that one line holds",
                self.name,
                lines.len(),
                if self.edited {
                    " in the kernel its edit makes"
                } else {
                    ""
                }
            )
            .into()),
        }
    }
}

/// `fixture_edits::apply_every_edit`: every edit made on today's book,
/// with or without a backend, so that a lost anchor fails here too; each
/// named by a table (`used`); none also a whole file; each text in `lines`
/// (fixture, text) on one line of its kernel. Every failure is listed. With
/// [`WRITE_TO`] set, writes each edited kernel there.
pub fn apply_every_edit(used: &[String], lines: &[(String, String)]) -> Result<(), Failed> {
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let out = std::env::var_os(WRITE_TO).map(PathBuf::from);
    if let Some(out) = &out {
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    let mut failures = Vec::new();
    // Fixtures whose edit failed: their lines are not looked for as well.
    let mut broken = Vec::new();
    let edits = all()?;
    for (i, edit) in edits.iter().enumerate() {
        if edits[..i].iter().any(|e| e.name == edit.name) {
            failures.push(format!("{EDITS}: two edits are named `{}`", edit.name));
        }
        if fixtures().join("kernels").join(&edit.name).exists() {
            failures.push(format!(
                "`{}` is both an edit and a file of kernels/: remove one",
                edit.name
            ));
        }
        if !used.contains(&edit.name) {
            failures.push(format!(
                "{EDITS}: no table of negative.rs or races.toml names `{}`",
                edit.name
            ));
        }
        match (edit.apply(&book), &out) {
            (Err(e), _) => {
                failures.push(e);
                broken.push(edit.name.as_str());
            }
            (Ok(text), Some(out)) => {
                let path = out.join(&edit.name);
                if let Err(e) = std::fs::write(&path, text) {
                    failures.push(format!("{}: {e}", path.display()));
                }
            }
            (Ok(_), None) => {}
        }
    }
    for (name, text) in lines {
        if broken.contains(&name.as_str()) {
            continue;
        }
        if let Err(e) = Fixture::load(&book, name).and_then(|f| f.line_holding(text)) {
            failures.push(e.message().unwrap_or(name).to_string());
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

/// `fixture_edits::stale_anchor_is_reported`: the negative control. The
/// first edit applies as written; with its anchor gone, repeated, or
/// overlapping another change, it fails, naming the fixture and the text.
pub fn stale_anchor_is_reported() -> Result<(), Failed> {
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let edit = all()?.into_iter().next().ok_or("edits.toml has no edit")?;
    edit.apply(&book)?;
    let with_find = |find: &str| {
        let mut stale = edit.clone();
        stale.change[0].find = find.to_string();
        stale.apply(&book)
    };
    let gone = "    a line that no solution holds\n";
    match with_find(gone) {
        Err(e) if e.contains(&edit.name) && e.contains(gone) && e.contains("gone") => {}
        other => return Err(format!("a lost anchor was not reported as one: {other:?}").into()),
    }
    // Every kernel has more than one closing brace.
    match with_find("}\n") {
        Err(e) if e.contains(&edit.name) && e.contains("times") => {}
        other => return Err(format!("a repeated anchor was not reported: {other:?}").into()),
    }
    let mut twice = edit.clone();
    twice.change.push(edit.change[0].clone());
    match twice.apply(&book) {
        Err(e) if e.contains(&edit.name) && e.contains("overlap") => Ok(()),
        other => Err(format!("overlapping changes were not reported: {other:?}").into()),
    }
}
