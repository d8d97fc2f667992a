//! The `runner` command for the tests that drive it as a learner would: the
//! CLI is a package of its own (`runner-cli`), so this package's tests have
//! no `CARGO_BIN_EXE_runner` and ask cargo to build it, once per run, in the
//! profile the tests were built in. On the GPU machine, where no toolchain
//! is installed, the packed binary beside the test binary is used instead.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The `runner` executable; panics, with cargo's words, if it cannot be built.
pub fn runner_exe() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| packed().unwrap_or_else(|| built().unwrap_or_else(|why| panic!("{why}"))))
}

/// `runner` beside this test binary, as `.ci/gpu/pack` leaves it. Cargo never
/// puts a file of that name beside a test (its copies carry a hash).
fn packed() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let beside = exe.parent()?.join("runner");
    beside.is_file().then_some(beside)
}

/// Builds `runner-cli`'s binary with the cargo that built these tests (cargo
/// holds no lock while tests run) and reads its path from cargo's messages.
fn built() -> Result<PathBuf, String> {
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "--quiet", "-p", "runner-cli", "--bin", "runner"])
        .arg("--message-format=json-render-diagnostics");
    if !cfg!(debug_assertions) {
        cargo.arg("--release");
    }
    let out = cargo
        .output()
        .map_err(|e| format!("cannot start cargo to build `runner`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo could not build `runner`:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "runner")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo built `runner` but named no executable".to_string())
}
