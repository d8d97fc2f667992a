//! The `runner` a learner types: `bin/runner` (this checkout's runner,
//! rebuilt when its sources change) and the script `.ci/setup` puts on the
//! PATH to call it (`.ci/install-runner`). Each runs as a learner runs it,
//! from a folder outside the book, with a `cargo` on the PATH that only
//! records that it was called: no test here builds anything.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .canonicalize()
        .unwrap()
}

fn write_script(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A place for one test: a folder outside the book to run in, a target
/// folder, a fake `cargo` that logs where and how it was called and
/// "builds" a runner that prints its arguments and its book.
struct Scene {
    dir: tempfile::TempDir,
}

impl Scene {
    fn new() -> Scene {
        let scene = Scene {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(scene.outside()).unwrap();
        write_script(
            &scene.path("fake/cargo"),
            &format!(
                "#!/bin/sh\necho \"in $(pwd): $*\" >> '{log}'\nmkdir -p \"$CARGO_TARGET_DIR/debug\"\n\
                 printf '#!/bin/sh\\necho \"built runner: $*\"\\necho \"book: $GPU_PUZZLES_BOOK\"\\n' \
                 > \"$CARGO_TARGET_DIR/debug/runner\"\nchmod +x \"$CARGO_TARGET_DIR/debug/runner\"\n",
                log = scene.path("cargo.log").display()
            ),
        );
        scene
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn outside(&self) -> PathBuf {
        self.path("elsewhere")
    }

    /// The calls the fake cargo saw.
    fn cargo_calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.path("cargo.log"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    /// A target folder holding the runner this test was built with, fresh
    /// (a new link is newer than every source), so nothing is rebuilt.
    fn real_runner(&self) -> PathBuf {
        let target = self.path("target");
        std::fs::create_dir_all(target.join("debug")).unwrap();
        std::os::unix::fs::symlink(crate::cli::runner_exe(), target.join("debug/runner")).unwrap();
        target
    }

    /// `program args…` run in the folder outside the book, with
    /// `extra_path`, the fake cargo and the system's folders as the PATH;
    /// (status, stdout, stderr).
    fn run(
        &self,
        program: &str,
        args: &[&str],
        extra_path: &[PathBuf],
        env: &[(&str, &Path)],
    ) -> (i32, String, String) {
        let mut path: Vec<PathBuf> = extra_path.to_vec();
        path.push(self.path("fake"));
        // The system's tools only: no `runner` or `cargo` of this machine's.
        path.extend(["/usr/bin".into(), "/bin".into()]);
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(self.outside())
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("XDG_RUNTIME_DIR", std::env::temp_dir())
            .env_remove("GPU_PUZZLES_BOOK")
            .env_remove("CARGO_TARGET_DIR");
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().unwrap();
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

/// Away from the book, `bin/runner list` lists this checkout's puzzles, at
/// once: a fresh binary is not rebuilt.
fn bin_runner_works_from_any_folder_without_rebuilding() {
    let scene = Scene::new();
    let target = scene.real_runner();
    let launcher = root().join("bin/runner");
    let (code, out, err) = scene.run(
        "sh",
        &[launcher.to_str().unwrap(), "list"],
        &[],
        &[("CARGO_TARGET_DIR", &target)],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.split_whitespace().next(), Some("p01_map"), "{out}");
    assert_eq!(scene.cargo_calls(), Vec::<String>::new(), "{err}");
}

/// Without a binary, `bin/runner` builds one (in the checkout, so its
/// pinned toolchain is used), then runs it with the learner's arguments and
/// this checkout as the book; the next call does not build again.
fn bin_runner_builds_what_is_missing_once() {
    let scene = Scene::new();
    let target = scene.path("target");
    let launcher = root().join("bin/runner");
    let args = [
        launcher.to_str().unwrap(),
        "check",
        "p03_guard",
        "--lang",
        "cuda",
    ];
    for _ in 0..2 {
        let (code, out, err) = scene.run("sh", &args, &[], &[("CARGO_TARGET_DIR", &target)]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(
            out.contains("built runner: check p03_guard --lang cuda"),
            "{out}"
        );
        assert!(
            out.contains(&format!("book: {}", root().display())),
            "{out}"
        );
    }
    let calls = scene.cargo_calls();
    assert_eq!(calls.len(), 1, "built once: {calls:?}");
    assert_eq!(
        calls[0],
        format!(
            "in {}: build --locked -p runner-cli --bin runner",
            root().display()
        )
    );
}

/// `.ci/install-runner` (the last step of `.ci/setup`): puts a `runner` in
/// cargo's bin folder that works from anywhere, is silent when run again,
/// moves its own script to this checkout, and leaves any other `runner` alone.
fn setup_puts_runner_on_the_path_and_leaves_others_alone() {
    let scene = Scene::new();
    let target = scene.real_runner();
    let cargo_home = scene.path("cargo-home");
    let bin = cargo_home.join("bin");
    let installed = bin.join("runner");
    let install = root().join(".ci/install-runner");
    let install = || {
        let (code, out, err) = scene.run(
            "bash",
            &[install.to_str().unwrap()],
            std::slice::from_ref(&bin),
            &[("CARGO_HOME", &cargo_home)],
        );
        assert_eq!(code, 0, "never fails the setup: {out}{err}");
        out
    };

    let said = install();
    assert!(said.starts_with("installed "), "{said}");
    let ours = std::fs::read_to_string(&installed).unwrap();
    let exec = format!("exec '{}' \"$@\"", root().join("bin/runner").display());
    assert!(ours.contains(&exec), "{ours}");
    // Typed as a learner types it, from outside the book.
    let (code, out, err) = scene.run(
        "sh",
        &["-c", "runner list"],
        std::slice::from_ref(&bin),
        &[("CARGO_TARGET_DIR", &target)],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.split_whitespace().next(), Some("p01_map"), "{out}");

    assert_eq!(install(), "", "already there: nothing to say");
    assert_eq!(std::fs::read_to_string(&installed).unwrap(), ours);

    // Ours, from another checkout: it now runs this one.
    std::fs::write(
        &installed,
        ours.replace(&exec, "exec '/old/checkout/bin/runner' \"$@\""),
    )
    .unwrap();
    let said = install();
    assert!(
        said.contains("now runs") && said.contains("/old/checkout"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&installed).unwrap(), ours);

    // Someone else's `runner`: kept as it is, and said.
    let theirs = "#!/bin/sh\necho another program\n";
    std::fs::write(&installed, theirs).unwrap();
    let said = install();
    assert!(
        said.contains("is another program, so it was left as it is"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&installed).unwrap(), theirs);

    // Cargo's folder not on the PATH: installed, and the learner told.
    let (code, out, _) = scene.run(
        "bash",
        &[root().join(".ci/install-runner").to_str().unwrap()],
        &[],
        &[("CARGO_HOME", &scene.path("elsewhere-home"))],
    );
    assert_eq!(code, 0);
    assert!(out.contains("is not on your PATH"), "{out}");
}

/// This group's trials, for the suite's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::panicking_trials!("launcher":
        bin_runner_works_from_any_folder_without_rebuilding,
        bin_runner_builds_what_is_missing_once,
        setup_puts_runner_on_the_path_and_leaves_others_alone,
    )
}
