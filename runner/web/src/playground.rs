//! A puzzle read from the bundle its page carries, and the CPU checker's
//! verdict on a reader's kernel: the teaching size, then every stress size,
//! through the core's one path ([`puzzle_core::assess::learner::check`]),
//! as `runner check --backend sim` gives it.

use puzzle_core::assess::cases;
use puzzle_core::assess::execute::{self, Settings};
use puzzle_core::assess::input::{self, BadInput};
use puzzle_core::assess::learner::{self, CheckReport, Subject};
use puzzle_core::backend_contract::backend::{Backend, BackendKind};
use puzzle_core::chapter::bundle::Bundle;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::draw::diagram;
use puzzle_core::kernel::cut::{Kernel, Variant};
use puzzle_core::lang::Lang;
use puzzle_core::quantity::thousands;
use puzzle_core::source::diag::Located;
use puzzle_core::wgsl::checker::SimBackend;
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a kernel may run on the checker: the CLI's limit.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The most memory one size may take in a tab (a WebAssembly module can
/// address 4 GiB at most, and a browser gives less); a stress size that
/// needs more is refused in words.
pub const MEMORY: u64 = 1 << 30;

/// One WGSL puzzle, ready to check kernels.
pub struct Playground {
    pub puzzle: Puzzle,
}

/// Why the page's bundle gives no playground; the page shows the words.
// Display by hand: this crate's dependencies are the core, serde and
// serde_json only (runner/engine/tests/architecture.rs), so no thiserror.
#[derive(Debug)]
pub enum OpenError {
    Unreadable(serde_json::Error),
    NotWgsl,
    /// The bundle's puzzle does not load: each problem on a line.
    Puzzle(Vec<Located>),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Unreadable(e) => write!(f, "the page's puzzle cannot be read: {e}"),
            OpenError::NotWgsl => f.write_str("the playground checks WGSL kernels only"),
            OpenError::Puzzle(errors) => {
                let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                f.write_str(&lines.join("\n"))
            }
        }
    }
}

impl std::error::Error for OpenError {}

/// Why there is no diagram of a reader's kernel; the page shows the words
/// in its place.
#[derive(Debug)]
pub enum DrawError {
    /// The reader's text is not a kernel to run (empty, binary, no entry
    /// point), said as `runner check` says it of `file`.
    Input {
        bad: BadInput,
        file: PathBuf,
        puzzle: String,
    },
    /// The teaching size does not resolve: the spec's words, without its line.
    Spec(Located),
    /// The teaching size has more than [`DRAWN_ELEMENTS`] elements.
    TooLarge { elements: usize, puzzle: String },
    /// The run could not be made.
    Run(Located),
    /// The run stopped before it could be traced: its report's words.
    Stopped(String),
    /// The run traced nothing: the word of its verdict ("FAIL").
    Untraced(&'static str),
}

impl fmt::Display for DrawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawError::Input { bad, file, puzzle } => {
                f.write_str(&bad.describe(file, puzzle, Lang::Wgsl).0)
            }
            DrawError::Spec(e) => f.write_str(&e.message),
            DrawError::TooLarge { elements, puzzle } => write!(
                f,
                "The teaching size has {} elements, too many to draw here; `runner check {puzzle} \
                 --lang wgsl --draw` draws it into a file.",
                thousands(*elements as u64)
            ),
            DrawError::Run(e) => write!(f, "{e}"),
            DrawError::Stopped(message) => f.write_str(message),
            DrawError::Untraced(word) => write!(f, "Nothing to draw: the kernel {word}."),
        }
    }
}

impl std::error::Error for DrawError {}

/// What the page shows before the first check.
#[derive(Debug, Serialize)]
pub struct Start {
    pub puzzle: String,
    pub title: String,
    /// The learner's copy's name, as `runner check` names it.
    pub file: String,
    /// The skeleton (or, in a debugging case, the kernel as given).
    pub text: String,
    /// The marker's size hint ("roughly 2 lines").
    pub hint: String,
    pub given_with_bug: bool,
    /// The teaching size and the stress sizes the check runs at.
    pub sizes: Vec<String>,
}

impl Playground {
    /// Reads the bundle (JSON) a page carries.
    pub fn open(bundle: &str) -> Result<Playground, OpenError> {
        let bundle: Bundle = serde_json::from_str(bundle).map_err(OpenError::Unreadable)?;
        if bundle.lang != Lang::Wgsl {
            return Err(OpenError::NotWgsl);
        }
        let puzzle = bundle.puzzle().map_err(OpenError::Puzzle)?;
        Ok(Playground { puzzle })
    }

    pub fn kernel(&self) -> &Kernel {
        self.puzzle
            .kernel(Lang::Wgsl)
            .expect("Bundle::puzzle returns a puzzle with its WGSL kernel")
    }

    pub fn start(&self) -> Start {
        let kernel = self.kernel();
        let sizes = cases::cases(&self.puzzle.spec, true)
            .iter()
            .map(|case| match case.label() {
                label if label.is_empty() => "the teaching size".to_string(),
                label => label,
            })
            .collect();
        Start {
            puzzle: self.puzzle.id().to_string(),
            title: self.puzzle.title().to_string(),
            file: kernel.copy_name.clone(),
            text: kernel.skeleton().text,
            hint: kernel.hint.clone(),
            given_with_bug: kernel.is_given_with_bug(),
            sizes,
        }
    }

    /// The learner's file name, for messages at its lines.
    pub fn file(&self) -> &Path {
        Path::new(&self.kernel().copy_name)
    }

    /// Checks `text` on `checker` (the CPU checker; in a browser, with the
    /// page's clock), stopping a run after `timeout`, at the teaching size
    /// and (with `stress`) every stress size: the verdict and its words, as `runner check` gives them.
    pub fn check(
        &self,
        text: &str,
        checker: &SimBackend,
        timeout: Duration,
        stress: bool,
    ) -> CheckReport {
        let file = self.file();
        let subject = Subject {
            puzzle: &self.puzzle,
            lang: Lang::Wgsl,
            file,
            backend: BackendKind::Sim,
            device: Some(checker.device().label()),
            stress,
        };
        let input = input::validate(Some(text.as_bytes().to_vec()), file, &self.puzzle);
        learner::check(subject, input, |case, source| {
            execute::run_case(
                checker,
                &self.puzzle,
                Variant::File,
                source,
                case,
                &settings(timeout),
            )
        })
    }
}

/// Teaching sizes up to this many elements are drawn in the page (the book
/// draws its solutions up to the same size).
pub const DRAWN_ELEMENTS: usize = 4096;

impl Playground {
    /// Who read and wrote which element when `text` ran at the teaching size
    /// on `checker` (which must trace), as an SVG picture: the core's
    /// drawing, as `runner check --draw` and the book draw it; or why there is none.
    pub fn draw(
        &self,
        text: &str,
        checker: &SimBackend,
        timeout: Duration,
    ) -> Result<String, DrawError> {
        let file = self.file();
        let id = self.puzzle.id();
        let source =
            input::validate(Some(text.as_bytes().to_vec()), file, &self.puzzle).map_err(|bad| {
                DrawError::Input {
                    bad,
                    file: file.to_path_buf(),
                    puzzle: id.to_string(),
                }
            })?;
        let teaching = cases::Case::teaching();
        let spec = execute::resolve(&self.puzzle.spec, &teaching, Some(MEMORY))
            .map_err(DrawError::Spec)?;
        if spec.elements() > DRAWN_ELEMENTS {
            return Err(DrawError::TooLarge {
                elements: spec.elements(),
                puzzle: id.to_string(),
            });
        }
        let report = execute::run_case(
            checker,
            &self.puzzle,
            Variant::File,
            &source,
            &teaching,
            &settings(timeout),
        )
        .map_err(DrawError::Run)?;
        match &report.accesses {
            Some(accesses) => Ok(diagram::svg(
                accesses,
                self.puzzle.spec.raw.global_access.as_ref(),
            )),
            None => Err(match &report.message {
                Some(message) => DrawError::Stopped(message.clone()),
                None => DrawError::Untraced(report.status.word()),
            }),
        }
    }
}

/// The settings of every run the page makes; `timeout`: [`TIMEOUT`], but for tests.
pub fn settings(timeout: Duration) -> Settings {
    Settings {
        timing_samples: 0,
        timeout,
        memory: Some(MEMORY),
        ..Settings::default()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use puzzle_core::assess::learner::Verdict;
    use puzzle_core::source::include::MemoryFiles;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    /// Puzzle 3 of the book (its CPU reference is found by its id), with
    /// its stress size.
    pub(crate) const CHAPTER: &str = "# Guards\n\n```puzzle\nid: p03_guard\ntitle: Guards\nkernel: add_10_guard\nconst:\n  SIZE: 4\ngrid: [1]\nblock: [8]\nbuffers:\n  out: { len: SIZE, output: true }\n  a:   { len: SIZE, init: arange }\nscalars:\n  size: { type: u32, value: SIZE }\nargs: [out, a, size]\nexpect:\n  out: [10, 11, 12, 13]\nstress:\n  - { SIZE: 7 }\n```\n\n```wgsl,puzzle=p03_guard\n{{#include k.wgsl}}\n```\n";

    pub(crate) const SOLUTION: &str = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@group(0) @binding(1) var<storage, read> a: array<f32>;\n@group(0) @binding(2) var<uniform> size: u32;\n@compute @workgroup_size(8)\nfn add_10_guard(@builtin(local_invocation_id) l: vec3<u32>) {\n    let i = l.x;\n    // BEGIN PUZZLE roughly 3 lines\n    if i < size {\n        out[i] = a[i] + 10.0;\n    }\n    // END PUZZLE\n}\n";

    /// The solution as a reader would type it: without the markers.
    pub(crate) fn solution() -> String {
        SOLUTION
            .replace("    // BEGIN PUZZLE roughly 3 lines\n", "")
            .replace("    // END PUZZLE\n", "")
    }

    pub(crate) fn bundle() -> String {
        let files = MemoryFiles(BTreeMap::from([(
            PathBuf::from("src/k.wgsl"),
            SOLUTION.to_string(),
        )]));
        let bundle = Bundle::of(
            CHAPTER,
            Path::new("src/guard.md"),
            "p03_guard",
            Lang::Wgsl,
            &files,
        )
        .unwrap();
        serde_json::to_string(&bundle).unwrap()
    }

    #[test]
    fn the_page_starts_from_the_skeleton() {
        let playground = Playground::open(&bundle()).unwrap();
        let start = playground.start();
        assert_eq!(start.file, "k.wgsl");
        assert!(start.text.contains("FILL ME IN"), "{}", start.text);
        assert!(
            !start.text.contains("+ 10.0"),
            "the skeleton gives the answer away"
        );
        assert_eq!(start.hint, "roughly 3 lines");
        assert_eq!(start.sizes, ["the teaching size", "SIZE=7"]);
    }

    /// Kernels a reader might type, and what the check must say.
    #[test]
    fn verdicts_on_the_checker_table() {
        let playground = Playground::open(&bundle()).unwrap();
        let solution = solution();
        let unguarded = solution
            .replace("if i < size {", "")
            .replace("    }\n}", "}");
        let cases: [(String, Verdict, &str); 6] = [
            (
                solution.clone(),
                Verdict::Pass,
                "passes at the teaching size and at every stress size (SIZE=7)",
            ),
            (
                playground.start().text,
                Verdict::Fail,
                "fails at the teaching size",
            ),
            (unguarded, Verdict::Fail, "fails at the teaching size"),
            (
                solution.replace("a[i] + 10.0", "a[i] +"),
                Verdict::CompileError,
                "does not compile",
            ),
            (
                solution.replace("out[i] = a[i] + 10.0;", "loop { }"),
                Verdict::Hang,
                "did not finish within 0.5 s",
            ),
            (String::new(), Verdict::BadInput, "cannot be checked"),
        ];
        for (text, verdict, summary) in cases {
            let report = playground.check(
                &text,
                &SimBackend::with_seed(0),
                Duration::from_millis(500),
                true,
            );
            assert_eq!(
                (report.verdict, report.summary.as_str()),
                (verdict, summary),
                "{text}"
            );
        }
    }

    #[test]
    fn the_page_draws_who_touched_what() {
        let playground = Playground::open(&bundle()).unwrap();
        let traced = SimBackend::with_seed(0).with_trace();
        let svg = playground.draw(&solution(), &traced, TIMEOUT).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("out"), "{svg}");
        let broken = playground.draw("fn add_10_guard( {", &traced, TIMEOUT);
        assert!(broken.is_err(), "{broken:?}");
    }

    #[test]
    fn a_bundle_that_is_not_one_is_said_in_words() {
        let error = Playground::open("{").err().unwrap().to_string();
        assert!(
            error.starts_with("the page's puzzle cannot be read"),
            "{error}"
        );
    }
}
