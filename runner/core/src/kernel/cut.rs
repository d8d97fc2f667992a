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

use crate::lang::Lang;
use crate::source::diag::Located;
use crate::source::text::{LineOrigin, SourceText};
use serde::{Deserialize, Serialize};
use std::fmt;

const BEGIN: &str = "BEGIN PUZZLE";
const END: &str = "END PUZZLE";

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
    /// The marker's size hint, e.g. "roughly 2 lines".
    pub hint: String,
}

impl Kernel {
    /// Finds the one marked region. A missing, unclosed or repeated marker is an error at its line.
    pub fn new(lang: Lang, source: SourceText) -> Result<Kernel, Located> {
        let mut begin = None;
        let mut end = None;
        for (i, (line, _)) in source.iter().enumerate() {
            let at = |m: &str| source.locate(i + 1, m.to_string());
            if line.matches(BEGIN).count() + line.matches(END).count() > 1 {
                // The rest of a BEGIN line is the size hint the skeleton
                // shows: a second marker there would show up in it.
                return Err(at("two markers on one line: put each on a line of its own"));
            }
            if line.contains(BEGIN) {
                if begin.is_some() {
                    return Err(at(
                        "a second `BEGIN PUZZLE` marker: a kernel has one learner's region",
                    ));
                }
                begin = Some(i);
            } else if line.contains(END) {
                if begin.is_none() || end.is_some() {
                    return Err(at(
                        "`END PUZZLE` without a matching `BEGIN PUZZLE` above it",
                    ));
                }
                end = Some(i);
            }
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
        Ok(Kernel {
            lang,
            source,
            begin,
            end,
            hint,
        })
    }

    /// The complete kernel, marker lines removed.
    pub fn solution(&self) -> SourceText {
        self.keep(|i| i != self.begin && i != self.end, None)
    }

    /// The kernel with the learner's region replaced by one `FILL ME IN` line.
    pub fn skeleton(&self) -> SourceText {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
    fn bad_markers_table() {
        let cases = [
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
        ];
        for (text, line, message) in cases {
            let err = kernel(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.message.contains(message), "{text:?}: {err}");
        }
    }
}
