//! Trials skipped on this machine, their reasons said once: each keeps
//! `[skipped]` in its line, and the reasons are listed, with counts, before
//! the run. (A reason in libtest's kind column pads every line of the run to
//! the longest one, 300 columns where a reason names a driver.)
//!
//! Shared by the test binaries of `runner` and `book-tests` through `#[path]`.

use libtest_mimic::Trial;
use std::collections::BTreeMap;

/// What a skipped trial's kind starts with; the rest is its reason.
const SKIPPED: &str = "skipped: ";

/// `trials` with every reason moved out of the kind column into a list
/// printed now.
pub fn apart(trials: Vec<Trial>) -> Vec<Trial> {
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let trials: Vec<Trial> = trials
        .into_iter()
        .map(|trial| match trial.kind().strip_prefix(SKIPPED) {
            Some(reason) => {
                *reasons.entry(reason.to_string()).or_default() += 1;
                trial.with_kind("skipped")
            }
            None => trial,
        })
        .collect();
    for (reason, count) in &reasons {
        println!(
            "{}",
            wrapped(&format!("skipped here ({count}): {reason}"), WIDTH)
        );
    }
    trials
}

/// The columns a line of the run may take.
const WIDTH: usize = 100;

/// `text` broken at spaces into lines of at most `width` columns (a word
/// longer than that stands alone), the later lines indented by two.
fn wrapped(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        if !line.trim().is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(format!("  {word}"));
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join("\n")
}
