//! The messages of the `negative` group as reviewed snapshots (insta): the
//! whole report a learner sees for each fixture a CPU checker rejects (WGSL
//! on `wgsl-sim`, CUDA C on `ptx-sim`), kept in `snapshots/` beside this
//! file, one `.snap` a fixture and backend.
//!
//! The tables keep their substrings (the phrase a fixture must show, at its
//! line); a snapshot keeps everything else a learner reads, so that a changed
//! word, value row or count shows as a diff to review: `cargo insta review`,
//! or `INSTA_UPDATE=always` and a look at `git diff`. With `CI` set, a
//! changed or missing snapshot fails the trial and nothing is written.
//!
//! Only the checkers' reports are kept: they are the same on every machine,
//! where a GPU's words, devices and faults are its own. What a report holds
//! that depends on the machine is replaced before it is compared: paths are
//! made relative to the book's root, and NVRTC's version and a kernel time
//! are blanked.

use super::{fixtures, root};
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::judge::report::RunReport;
use puzzle_core::source::diag::display_path;

/// The folder of the snapshots, beside this file: an absolute path, so that
/// a suite run away from the checkout (`GPU_PUZZLES_BOOK`) finds them too.
fn folder() -> std::path::PathBuf {
    root().join("runner/engine/tests/negative/snapshots")
}

/// `report`, made on `kind`, held to its snapshot `name` (the trial's name)
/// where `kind` is a CPU checker; nothing where it is a GPU, whose words are
/// its own. `what` says in the snapshot's header which fixture it is.
pub(super) fn check(name: &str, what: &str, kind: BackendKind, report: &RunReport) {
    if kind.is_simulator() {
        check_text(name, what, &report.to_text());
    }
}

/// `text` held to its snapshot `name` (a file name: `::` and `/` become
/// `__`), once made deterministic. Panics on a difference, as insta does,
/// after printing the diff.
pub(super) fn check_text(name: &str, what: &str, text: &str) {
    let name = name.replace("::", "__");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(folder());
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(what);
    settings.bind(|| insta::assert_snapshot!(name, deterministic(text)));
}

/// `text` with what differs between machines and runs replaced: paths are
/// made relative to the book's root, whatever the current folder (a
/// diagnostic shows its file relative to it), NVRTC's version becomes
/// `NVRTC <version>`, and a kernel time `kernel time: <time>`.
fn deterministic(text: &str) -> String {
    let fixtures = format!("{}/", display_path(&fixtures()));
    let book = format!("{}/", root().display());
    let text = text
        .replace(&fixtures, "runner/engine/tests/fixtures/")
        .replace(&book, "");
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        lines.push(match line.strip_prefix("kernel time: ") {
            Some(_) => "kernel time: <time>".into(),
            None => without_version(line, "NVRTC "),
        });
    }
    lines.join("\n")
}

/// `line` with the version after each `name` (digits and dots) replaced by
/// `<version>`.
fn without_version(line: &str, name: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(name) {
        let (before, after) = rest.split_at(at + name.len());
        out.push_str(before);
        let digits = after
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(after.len());
        if digits > 0 {
            out.push_str("<version>");
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// This file's own trial: what [`deterministic`] blanks, it blanks.
pub(super) fn trials() -> Vec<libtest_mimic::Trial> {
    vec![libtest_mimic::Trial::test(
        "messages::machine_details_blanked",
        || {
            let kernel = fixtures().join("kernels/p01_wrong_name.cu");
            let text = format!(
                "ERROR: p on sim · CPU checker (PTX from NVRTC 12.9) (CPU)\n\
                 {}:7: here, and {}:3\nkernel time: 1.2 ms\n",
                display_path(&kernel),
                root().join("kernels/p01_map.cu").display(),
            );
            let want = "ERROR: p on sim · CPU checker (PTX from NVRTC <version>) (CPU)\n\
                        runner/engine/tests/fixtures/kernels/p01_wrong_name.cu:7: here, and \
                        kernels/p01_map.cu:3\nkernel time: <time>";
            let got = deterministic(&text);
            if got == want {
                Ok(())
            } else {
                Err(format!("expected {want:?}, got {got:?}").into())
            }
        },
    )]
}
