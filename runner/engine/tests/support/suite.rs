//! What a test suite's `main` needs: its groups run as one binary (each
//! test file linked on its own cost CI minutes), a group picked by name, and
//! the reasons for skipped trials said once.
//!
//! Trials skipped on this machine keep `[skipped]` in their line, and the
//! reasons are listed, with counts, before the run. (A reason in libtest's
//! kind column pads every line of the run to the longest one, 300 columns
//! where a reason names a driver.)
//!
//! Shared by the suites of `runner` and `book-tests` through `#[path]`.

use libtest_mimic::{Arguments, Trial};
use std::collections::BTreeMap;

/// A group of trials: its name and how its trials are made.
pub type Group = (&'static str, fn(&Arguments) -> Vec<Trial>);

/// The environment variable that picks groups by name (`chapters,negative`),
/// where a machine wants some groups and not the rest: libtest's filter
/// matches names, and a group's trials share no prefix.
pub const GROUPS: &str = "TEST_GROUPS";

/// Runs the trials of `groups` (those `TEST_GROUPS` names, or all) as one
/// libtest run, and exits with its status.
pub fn run(groups: &[Group]) -> ! {
    let args = Arguments::from_args();
    let wanted = std::env::var(GROUPS).ok();
    let wanted: Option<Vec<&str>> = wanted
        .as_deref()
        .map(|w| w.split(',').map(str::trim).collect());
    if let Some(names) = &wanted {
        let known: Vec<&str> = groups.iter().map(|(g, _)| *g).collect();
        if let Some(name) = names.iter().find(|n| !known.contains(n)) {
            eprintln!("{GROUPS} names {name:?}, which is not a group here: {known:?}");
            std::process::exit(2);
        }
    }
    let trials = groups
        .iter()
        .filter(|(name, _)| wanted.as_ref().is_none_or(|w| w.contains(name)))
        .flat_map(|(_, make)| make(&args))
        .collect();
    libtest_mimic::run(&args, apart(trials)).exit()
}

/// Trials of plain test functions, which fail by panicking, each named
/// `group::function`.
#[macro_export]
macro_rules! panicking_trials {
    ($group:literal: $($test:ident),+ $(,)?) => {
        vec![$(libtest_mimic::Trial::test(
            concat!($group, "::", stringify!($test)),
            || {
                $test();
                Ok(())
            },
        )),+]
    };
}

/// What a skipped trial's kind starts with; the rest is its reason.
const SKIPPED: &str = "skipped: ";

/// `trials` with every reason moved out of the kind column into a list
/// printed now.
fn apart(trials: Vec<Trial>) -> Vec<Trial> {
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
