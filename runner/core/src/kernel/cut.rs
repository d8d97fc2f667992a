//! One kernel source, two views: the solution and the skeleton a learner completes.
//!
//! The solution file marks the learner's part:
//!
//! ```text
//!     // BEGIN PUZZLE (roughly 2 lines)
//!     ...solution...
//!     // END PUZZLE
//! ```
//!
//! The skeleton replaces that region with `// FILL ME IN (roughly 2 lines)`.
//! Both are derived from the one file, so they cannot drift apart.
//!
//! A debugging case gives the learner a whole kernel with a bug instead of a
//! gap. Its region holds the fix, then an `AS GIVEN` marker, then the lines
//! the learner receives in its place:
//!
//! ```text
//!     // BEGIN PUZZLE
//!     ...fixed lines...
//!     // AS GIVEN
//!     ...buggy lines...
//!     // END PUZZLE
//! ```
//!
//! Its skeleton is the kernel as given: no gap and no marker, so nothing
//! points at the bug. Its lines are numbered as the learner's copy numbers
//! them, under the file's name alone, because that copy and the page show
//! exactly this text, never the file with both versions.
//!
//! A kernel measured beside a puzzle rather than written (Puzzle 40's
//! layer without its communication, say) has no region at all, and one
//! line saying so instead:
//!
//! ```text
//!     // GIVEN WHOLE: measured beside the puzzle, nothing to write
//! ```
//!
//! Its skeleton is its solution, marker line removed.

use crate::lang::Lang;
use crate::source::diag::Located;
use crate::source::text::{LineOrigin, SourceText};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

const BEGIN: &str = "BEGIN PUZZLE";
const END: &str = "END PUZZLE";
const GIVEN: &str = "AS GIVEN";
const WHOLE: &str = "GIVEN WHOLE";

/// Which version of a kernel to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    Solution,
    Skeleton,
    /// A learner's own file.
    File,
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Solution => "solution",
            Variant::Skeleton => "skeleton",
            Variant::File => "file",
        })
    }
}

/// A kernel with its learner's region located.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    pub lang: Lang,
    /// The source as written, markers included.
    pub source: SourceText,
    /// Line indices (0-based, into `source`) of the BEGIN and END markers.
    begin: usize,
    end: usize,
    /// The `AS GIVEN` marker's line index, in a debugging case's region.
    given: Option<usize>,
    /// Given whole: `begin` and `end` are the `GIVEN WHOLE` line.
    whole: bool,
    /// The marker's size hint, e.g. "roughly 2 lines".
    pub hint: String,
    /// The file name of the learner's copy: the kernel file's own, or, for a
    /// kernel written in its chapter, `<puzzle>.<ext>` (see [`Kernel::name_copy`]).
    pub copy_name: String,
}

impl Kernel {
    /// Finds the one marked region. A missing, unclosed or repeated marker is an error at its line.
    pub fn new(lang: Lang, source: SourceText) -> Result<Kernel, Located> {
        let mut begin = None;
        let mut end = None;
        let mut given = None;
        let mut whole = None;
        // A header this kernel includes may be another puzzle's solution
        // (a training step calls Puzzle 43's loss): its markers are that
        // puzzle's, and here it is given whole.
        let own_file = source.lines.first().map(|o| o.file.clone());
        for (i, (line, origin)) in source.iter().enumerate() {
            if own_file.as_ref().is_some_and(|f| *f != origin.file) {
                continue;
            }
            let at = |m: &str| source.locate(i + 1, m.to_string());
            let markers = [BEGIN, END, GIVEN, WHOLE].map(|m| line.matches(m).count());
            if markers.iter().sum::<usize>() > 1 {
                // The rest of a BEGIN line is the size hint the skeleton
                // shows: a second marker there would show up in it.
                return Err(at("two markers on one line: put each on a line of its own"));
            }
            if line.contains(WHOLE) {
                if whole.is_some() {
                    return Err(at("a second `GIVEN WHOLE` marker: a kernel has one"));
                }
                whole = Some(i);
            } else if line.contains(BEGIN) {
                if begin.is_some() {
                    return Err(at(
                        "a second `BEGIN PUZZLE` marker: a kernel has one learner's region",
                    ));
                }
                begin = Some(i);
            } else if line.contains(GIVEN) {
                if begin.is_none() || end.is_some() {
                    return Err(at(
                        "`AS GIVEN` outside a `BEGIN PUZZLE` ... `END PUZZLE` region: it \
                         separates the fix from the lines the learner is given",
                    ));
                }
                if given.is_some() {
                    return Err(at("a second `AS GIVEN` marker: a region has one"));
                }
                given = Some(i);
            } else if line.contains(END) {
                if begin.is_none() || end.is_some() {
                    return Err(at(
                        "`END PUZZLE` without a matching `BEGIN PUZZLE` above it",
                    ));
                }
                end = Some(i);
            }
        }
        if let Some(w) = whole {
            if let Some(b) = begin.or(end).or(given) {
                return Err(source.locate(
                    b + 1,
                    "a `GIVEN WHOLE` kernel has no learner's region: remove these markers or \
                     the `GIVEN WHOLE` line",
                ));
            }
            let copy_name =
                file_name(&source, lang).unwrap_or_else(|| format!("kernel.{}", lang.extension()));
            return Ok(Kernel {
                lang,
                source,
                begin: w,
                end: w,
                given: None,
                whole: true,
                hint: String::new(),
                copy_name,
            });
        }
        let (Some(begin), Some(end)) = (begin, end) else {
            let message = match begin {
                Some(b) => {
                    return Err(
                        source.locate(b + 1, "`BEGIN PUZZLE` is never closed by `END PUZZLE`")
                    );
                }
                None => {
                    "no `// BEGIN PUZZLE` ... `// END PUZZLE` region marks what the learner writes"
                }
            };
            return Err(source.locate(1, message));
        };
        let marker = source.text.lines().nth(begin).unwrap_or_default();
        let hint = marker
            .split_once(BEGIN)
            .map(|(_, rest)| rest.trim().trim_start_matches(':').trim())
            .map(|h| {
                h.trim_start_matches('(')
                    .trim_end_matches(')')
                    .trim()
                    .to_string()
            })
            .unwrap_or_default();
        let copy_name =
            file_name(&source, lang).unwrap_or_else(|| format!("kernel.{}", lang.extension()));
        Ok(Kernel {
            lang,
            source,
            begin,
            end,
            given,
            whole: false,
            hint,
            copy_name,
        })
    }

    /// Names the learner's copy after `puzzle` where the kernel is written
    /// in its chapter (a kernel file keeps its own name).
    pub fn name_copy(&mut self, puzzle: &str) {
        if file_name(&self.source, self.lang).is_none() {
            self.copy_name = format!("{puzzle}.{}", self.lang.extension());
        }
    }

    /// Whether this is a debugging case: a kernel given with a bug to find,
    /// rather than one with a gap to fill.
    pub fn is_given_with_bug(&self) -> bool {
        self.given.is_some()
    }

    /// Whether the kernel is given whole (`GIVEN WHOLE`): measured beside a
    /// puzzle, with nothing for the learner to write.
    pub fn is_given_whole(&self) -> bool {
        self.whole
    }

    /// The complete kernel, marker lines removed (and, in a debugging case,
    /// the lines as given).
    pub fn solution(&self) -> SourceText {
        let fix_end = self.given.unwrap_or(self.end);
        self.keep(
            |i| i < self.begin || (i > self.begin && i < fix_end) || i > self.end,
            None,
        )
    }

    /// The kernel with the learner's region replaced by one `FILL ME IN`
    /// line; in a debugging case, the kernel as given.
    pub fn skeleton(&self) -> SourceText {
        if let Some(given) = self.given {
            return self.as_given(given);
        }
        if self.whole {
            return self.solution();
        }
        let marker = self.source.text.lines().nth(self.begin).unwrap_or_default();
        let indent: String = marker.chars().take_while(|c| c.is_whitespace()).collect();
        let comment = if self.hint.is_empty() {
            format!("{indent}// FILL ME IN")
        } else {
            format!("{indent}// FILL ME IN ({})", self.hint)
        };
        self.keep(|i| i < self.begin || i > self.end, Some(comment))
    }

    pub fn variant(&self, variant: Variant) -> SourceText {
        match variant {
            Variant::Skeleton => self.skeleton(),
            Variant::Solution | Variant::File => self.solution(),
        }
    }

    /// The kernel with the region's given lines, numbered as the learner's
    /// copy and the page number them (see the module's comment).
    fn as_given(&self, given: usize) -> SourceText {
        let kept = self.keep(
            |i| i < self.begin || (i > given && i < self.end) || i > self.end,
            None,
        );
        SourceText::new(kept.text, Path::new(&self.copy_name), 1)
    }

    fn keep(&self, keep: impl Fn(usize) -> bool, fill: Option<String>) -> SourceText {
        let mut lines: Vec<(String, LineOrigin)> = Vec::new();
        for (i, (line, origin)) in self.source.iter().enumerate() {
            if i == self.begin
                && let Some(fill) = &fill
            {
                lines.push((fill.clone(), origin.clone()));
            }
            if keep(i) {
                lines.push((line.to_string(), origin.clone()));
            }
        }
        SourceText::from_lines(lines)
    }
}

/// The name of the kernel file `source` came from, where it is a `lang`
/// file (not a chapter the kernel is written in).
fn file_name(source: &SourceText, lang: Lang) -> Option<String> {
    source
        .main_file()
        .filter(|f| f.extension().is_some_and(|e| e == lang.extension()))
        .and_then(|f| f.file_name())
        .map(|n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str = "\
void k(float* out) {
    int i = threadIdx.x;
    // BEGIN PUZZLE (roughly 1 line)
    out[i] = 1.0f;
    // END PUZZLE
}
";

    fn kernel(text: &str) -> Result<Kernel, Located> {
        Kernel::new(Lang::Cuda, SourceText::new(text, Path::new("k.cu"), 1))
    }

    #[test]
    fn derives_both_views() {
        let k = kernel(SOLUTION).unwrap();
        assert_eq!(k.hint, "roughly 1 line");
        assert_eq!(
            k.solution().text,
            "void k(float* out) {\n    int i = threadIdx.x;\n    out[i] = 1.0f;\n}\n"
        );
        let skeleton = k.skeleton();
        assert_eq!(
            skeleton.text,
            "void k(float* out) {\n    int i = threadIdx.x;\n    // FILL ME IN (roughly 1 line)\n}\n"
        );
        // The closing brace is line 4 of the skeleton and line 6 of the file.
        assert_eq!(skeleton.locate(4, "x").line, 6);
        assert_eq!(k.solution().locate(3, "x").line, 4);
    }

    #[test]
    fn a_debugging_case_gives_the_buggy_lines_and_solves_with_the_fix() {
        let text = "\
void k(float* out, unsigned n) {
    unsigned i = threadIdx.x;
    // BEGIN PUZZLE
    if (i < n) {
        out[i] = 1.0f;
    }
    // AS GIVEN
    out[i] = 1.0f;
    // END PUZZLE
    return;
}
";
        let k = Kernel::new(
            Lang::Cuda,
            SourceText::new(text, Path::new("kernels/d/k.cu"), 1),
        )
        .unwrap();
        assert!(k.is_given_with_bug());
        assert!(!kernel(SOLUTION).unwrap().is_given_with_bug());
        let solution = k.solution();
        assert_eq!(
            solution.text,
            "void k(float* out, unsigned n) {\n    unsigned i = threadIdx.x;\n    if (i < n) {\n        \
             out[i] = 1.0f;\n    }\n    return;\n}\n"
        );
        // The solution's lines still point into the file.
        assert_eq!(solution.locate(6, "x").line, 10);
        let given = k.skeleton();
        assert_eq!(
            given.text,
            "void k(float* out, unsigned n) {\n    unsigned i = threadIdx.x;\n    out[i] = 1.0f;\n    \
             return;\n}\n"
        );
        // The given kernel's lines are the learner's copy's: line 3 of `k.cu`.
        let at = given.locate(3, "x");
        assert_eq!((at.file.as_path(), at.line), (Path::new("k.cu"), 3));
        assert_eq!(k.variant(Variant::Skeleton), given);
    }

    #[test]
    fn a_missing_line_is_a_bug_too() {
        let text = "a\n// BEGIN PUZZLE\nb\n// AS GIVEN\n// END PUZZLE\nc\n";
        let k = kernel(text).unwrap();
        assert_eq!(k.solution().text, "a\nb\nc\n");
        assert_eq!(k.skeleton().text, "a\nc\n");
    }

    #[test]
    fn markers_in_an_included_header_belong_to_its_own_puzzle() {
        let own = |line| LineOrigin {
            file: "step.cu".into(),
            line,
        };
        let header = |line| LineOrigin {
            file: "loss.cu".into(),
            line,
        };
        // The kernel's own file is the one its text starts in.
        let lines = [
            ("#include \"loss.cu\"", own(1)),
            ("// BEGIN PUZZLE (roughly 1 line)", header(1)),
            ("float loss() { return 1.0f; }", header(2)),
            ("// END PUZZLE", header(3)),
            ("void k(float* out) {", own(2)),
            ("    // BEGIN PUZZLE (roughly 1 line)", own(3)),
            ("    out[0] = loss();", own(4)),
            ("    // END PUZZLE", own(5)),
            ("}", own(6)),
        ];
        let source = SourceText::from_lines(lines.map(|(text, origin)| (text.to_string(), origin)));
        let k = Kernel::new(Lang::Cuda, source).unwrap();
        let skeleton = k.skeleton().text;
        assert!(
            skeleton.contains("float loss() { return 1.0f; }"),
            "{skeleton}"
        );
        assert!(!skeleton.contains("out[0] = loss();"), "{skeleton}");
    }

    #[test]
    fn a_kernel_given_whole_is_its_own_skeleton() {
        let text = "a\n// GIVEN WHOLE: measured, not written\nb\n";
        let k = kernel(text).unwrap();
        assert!(k.is_given_whole() && !k.is_given_with_bug());
        assert_eq!(k.solution().text, "a\nb\n");
        assert_eq!(k.skeleton().text, "a\nb\n");
        assert!(!kernel(SOLUTION).unwrap().is_given_whole());
    }

    #[test]
    fn bad_markers_table() {
        let cases = [
            (
                "// GIVEN WHOLE\n// BEGIN PUZZLE\n// END PUZZLE\n",
                2,
                "a `GIVEN WHOLE` kernel has no learner's region",
            ),
            (
                "// GIVEN WHOLE\n// GIVEN WHOLE\n",
                2,
                "a second `GIVEN WHOLE`",
            ),
            ("void k() {}\n", 1, "no `// BEGIN PUZZLE`"),
            ("a\n// BEGIN PUZZLE\nb\n", 2, "never closed"),
            ("a\n// END PUZZLE\n", 2, "without a matching"),
            (
                "a\n// BEGIN PUZZLE // BEGIN PUZZLE\nb\n// END PUZZLE\n",
                2,
                "two markers on one line",
            ),
            (
                "// BEGIN PUZZLE b // END PUZZLE\n",
                1,
                "two markers on one line",
            ),
            (
                "// BEGIN PUZZLE\n// END PUZZLE\n// BEGIN PUZZLE\n",
                3,
                "a second",
            ),
            (
                "a\n// AS GIVEN\n// BEGIN PUZZLE\n// END PUZZLE\n",
                2,
                "outside",
            ),
            (
                "// BEGIN PUZZLE\n// END PUZZLE\n// AS GIVEN\n",
                3,
                "outside",
            ),
            (
                "// BEGIN PUZZLE\n// AS GIVEN\n// AS GIVEN\n// END PUZZLE\n",
                3,
                "a second `AS GIVEN`",
            ),
            (
                "// BEGIN PUZZLE\n// AS GIVEN // END PUZZLE\n",
                2,
                "two markers on one line",
            ),
        ];
        for (text, line, message) in cases {
            let err = kernel(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.message.contains(message), "{text:?}: {err}");
        }
    }
}
