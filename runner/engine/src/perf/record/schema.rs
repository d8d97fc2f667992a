//! What a recording file holds: `results/<device>.json`, one per GPU and
//! backend, with the device, date, runner version and measured ceilings,
//! every puzzle's solution and skeleton as they ran there, and the
//! benchmarks at each spec's `bench` sizes. Each entry carries a hash of its
//! spec and kernel, so a page shows it only while both are unchanged.

use crate::perf::bench::BenchReport;
use crate::perf::calibrate::Ceilings;
use puzzle_core::backend_contract::backend::DeviceInfo;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::judge::report::RunReport;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::spec::expr::Constants;
use serde::{Deserialize, Serialize};

/// One device's recorded results.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Recording {
    pub device: DeviceInfo,
    /// UTC date of the recording, YYYY-MM-DD.
    pub date: String,
    pub runner_version: String,
    /// The device's measured ceilings (`runner calibrate`), when taken.
    #[serde(default)]
    pub ceilings: Option<Ceilings>,
    pub entries: Vec<Entry>,
    /// Solutions timed at their spec's `bench` size (the performance chapters).
    #[serde(default)]
    pub benches: Vec<BenchEntry>,
    /// Puzzles whose results here went stale on a day this GPU could not be
    /// reached: read from `results/awaiting.toml` by `store::load_all`,
    /// never written into the recording.
    #[serde(skip)]
    pub awaiting: Vec<Awaiting>,
}

impl Recording {
    /// Why `puzzle`'s stale results here are expected: its kernel or spec
    /// changed while this GPU could not run it again.
    pub fn awaiting(&self, puzzle: &str) -> Option<&Awaiting> {
        self.awaiting.iter().find(|a| a.puzzle == puzzle)
    }
}

/// A puzzle that changed on a day one GPU could not be reached, so its
/// results on that GPU are stale until it is recorded there again. A page
/// says that the GPU has not run the new version, instead of calling the
/// result stale, and the build accepts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Awaiting {
    pub puzzle: String,
    /// The day the kernel or spec changed, YYYY-MM-DD.
    pub changed: String,
}

/// A solution benchmarked at its spec's `bench` size, or why it could not be.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchEntry {
    pub puzzle: String,
    pub lang: Lang,
    /// The spec's `bench` case: the constants it changes.
    pub case: Constants,
    pub spec_hash: String,
    pub source_hash: String,
    /// A failure in words, not a typed error: it came from a child process
    /// and is read back by later versions of the runner, only to be shown.
    pub outcome: Result<BenchReport, String>,
    /// UTC date this benchmark was taken, YYYY-MM-DD. `runner record --only`
    /// re-times some puzzles and keeps the rest, so the file's own `date` is
    /// only its newest; a page needs each benchmark's to tell whether it
    /// shares a session with a library's time. Absent in files recorded
    /// before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub puzzle: String,
    pub lang: Lang,
    pub variant: Variant,
    /// blake3 of the spec's YAML and of the kernel text that ran.
    pub spec_hash: String,
    pub source_hash: String,
    pub report: RunReport,
}

/// What a page shows for one kernel variant from one recording.
#[derive(Debug, Clone)]
pub enum Recorded<'a> {
    Current {
        recording: &'a Recording,
        report: &'a RunReport,
    },
    /// The spec or the kernel changed since the recording; `awaiting` when
    /// that GPU could not run the new version yet (`results/awaiting.toml`).
    Stale {
        recording: &'a Recording,
        awaiting: Option<&'a Awaiting>,
    },
}

pub fn hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

/// The hash a recording keeps of a spec: its YAML without what changes no
/// result. Hints are advice; the `id` and `title` are names. Renaming a
/// puzzle (AUTHORING.md, "Names") or regrading its hints leaves every
/// recording current; the recordings name the puzzle in their `puzzle`
/// fields, which a rename rewrites.
pub fn spec_hash(spec_text: &str) -> String {
    hash(&without_names_and_hints(spec_text))
}

/// The spec's YAML without its top-level `id:` and `title:` lines, and
/// without its top-level `hints:` key and everything under it (indented
/// lines, `- ` items at the margin, blank lines).
fn without_names_and_hints(spec_text: &str) -> String {
    let mut kept = String::with_capacity(spec_text.len());
    let mut in_hints = false;
    for line in spec_text.split_inclusive('\n') {
        let at_margin = !line.starts_with([' ', '\t', '-']) && !line.trim().is_empty();
        if at_margin {
            in_hints = line.starts_with("hints:");
        }
        let a_name = at_margin && (line.starts_with("id:") || line.starts_with("title:"));
        if !in_hints && !a_name {
            kept.push_str(line);
        }
    }
    kept
}

pub fn entry_hashes(puzzle: &Puzzle, lang: Lang, variant: Variant) -> Option<(String, String)> {
    let kernel = puzzle.kernel(lang)?;
    let source = kernel.variant(variant).text;
    let source = match variant {
        Variant::Skeleton => without_gap_size(&source),
        Variant::Solution | Variant::File => source,
    };
    Some((spec_hash(&puzzle.spec.text), hash(&source)))
}

/// A skeleton as its recordings hash it: the `FILL ME IN` line without the
/// gap's size, "(roughly N lines)". The size is advice to the learner, as a
/// hint is: a truer estimate changes no result, so it leaves every
/// recording of the skeleton current.
fn without_gap_size(skeleton: &str) -> String {
    let mut kept = String::with_capacity(skeleton.len());
    for line in skeleton.split_inclusive('\n') {
        let sized = line.find("FILL ME IN").and_then(|fill| {
            let open = fill + line[fill..].find(" (roughly ")?;
            let close = open + line[open..].find(')')?;
            Some((open, close))
        });
        match sized {
            Some((open, close)) => {
                kept.push_str(&line[..open]);
                kept.push_str(&line[close + 1..]);
            }
            None => kept.push_str(line),
        }
    }
    kept
}

/// "cuda-nvidia-h100-80gb-hbm3".
pub fn file_stem(device: &DeviceInfo) -> String {
    let raw = format!("{}-{}", device.backend, device.name).to_lowercase();
    let mut stem = String::new();
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() {
            stem.push(c);
        } else if !stem.ends_with('-') {
            stem.push('-');
        }
    }
    stem.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzle_core::backend_contract::backend::BackendKind;

    /// (case, skeleton text, the text that is hashed)
    #[test]
    fn a_skeleton_s_gap_size_is_not_hashed_table() {
        let cases = [
            (
                "the size goes",
                "a\n    // FILL ME IN (roughly 26 lines)\nb\n",
                "a\n    // FILL ME IN\nb\n",
            ),
            (
                "one line or many, the same text",
                "    // FILL ME IN (roughly 1 line)\n",
                "    // FILL ME IN\n",
            ),
            (
                "no size, nothing to take",
                "// FILL ME IN\n",
                "// FILL ME IN\n",
            ),
            (
                "other comments keep theirs",
                "// done (roughly 3 lines)\n// FILL ME IN (roughly 3 lines)\n",
                "// done (roughly 3 lines)\n// FILL ME IN\n",
            ),
            (
                "code is kept",
                "x = 1; // FILL ME IN (roughly 2 lines) y\n",
                "x = 1; // FILL ME IN y\n",
            ),
        ];
        for (case, skeleton, hashed) in cases {
            assert_eq!(without_gap_size(skeleton), hashed, "{case}");
        }
    }

    /// (case, spec text, the text that is hashed)
    #[test]
    fn names_and_hints_are_not_hashed_table() {
        let cases = [
            ("no hints", "id: a\nkernel: k\n", "kernel: k\n"),
            (
                "indented items, a key after",
                "id: a\nhints:\n  - one\n  - two\nstress: []\n",
                "stress: []\n",
            ),
            (
                "items at the margin, last key",
                "kernel: k\nhints:\n- one\n\n- two\n",
                "kernel: k\n",
            ),
            ("a flow list", "hints: [one, two]\nk: a\n", "k: a\n"),
            (
                "a key that only starts alike stays",
                "hints_seen: 1\nidle: a\ntitles: b\n",
                "hints_seen: 1\nidle: a\ntitles: b\n",
            ),
            (
                "a title, and an id under another key",
                "title: T\nbuffers:\n  id: { len: 1 }\n",
                "buffers:\n  id: { len: 1 }\n",
            ),
        ];
        for (name, text, want) in cases {
            assert_eq!(without_names_and_hints(text), want, "{name}");
        }
        assert_eq!(spec_hash("id: a\nk: 1\n"), spec_hash("id: b\nk: 1\n"));
        assert_ne!(spec_hash("k: 1\n"), spec_hash("k: 2\n"));
    }

    #[test]
    fn file_stems_table() {
        let mut d = DeviceInfo {
            backend: BackendKind::Cuda,
            name: "NVIDIA H100 80GB HBM3".into(),
            kind: "GPU".into(),
            api: String::new(),
            driver: String::new(),
        };
        assert_eq!(file_stem(&d), "cuda-nvidia-h100-80gb-hbm3");
        d.backend = BackendKind::Wgpu;
        d.name = "NVIDIA H200 (rev 1)".into();
        assert_eq!(file_stem(&d), "wgpu-nvidia-h200-rev-1");
    }
}
