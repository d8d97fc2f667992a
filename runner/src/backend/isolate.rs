//! Runs a CUDA launch in a child process, so a kernel that faults or never
//! ends cannot take the caller down with it.
//!
//! A faulted CUDA context is unusable for the rest of its process, and an
//! endless kernel cannot be interrupted from the host. So the parent (the
//! CLI, a test binary, the preprocessor) compiles the kernel, then re-runs its
//! own executable with [`CHILD_ENV`] set and the job as JSON on stdin. Every
//! binary that may launch CUDA calls [`serve_if_child`] first thing in `main`.
//! The parent kills a child that outlives the timeout and reports it against
//! the puzzle; the next puzzle gets a fresh process and a fresh context.

use super::{BackendError, Execution};
use crate::spec::Spec;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in a child's environment; its value is unused.
pub const CHILD_ENV: &str = "GPU_PUZZLES_CUDA_CHILD";

/// What a child runs: a compiled kernel and its spec.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChildJob {
    pub spec: Spec,
    pub ptx: String,
    pub timing_samples: usize,
    pub warmup: usize,
    pub buffer_sets: usize,
}

/// In a child: run the job from stdin, print the result, exit. Otherwise: return.
pub fn serve_if_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let mut input = String::new();
    let result: Result<Execution, BackendError> = match std::io::stdin().read_to_string(&mut input)
    {
        Err(e) => Err(BackendError::Device(format!(
            "child could not read its job: {e}"
        ))),
        Ok(_) => match serde_json::from_str::<ChildJob>(&input) {
            Err(e) => Err(BackendError::Device(format!(
                "child could not parse its job: {e}"
            ))),
            Ok(job) => super::cuda::execute(&job),
        },
    };
    let json = serde_json::to_string(&result).unwrap_or_else(|e| format!("\"{e}\""));
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(json.as_bytes());
    let _ = out.flush();
    std::process::exit(0);
}

/// Runs `job` in a child process, killing it after `timeout`.
pub fn run_in_child(job: &ChildJob, timeout: Duration) -> Result<Execution, BackendError> {
    let exe = std::env::current_exe().map_err(|e| {
        BackendError::Device(format!(
            "cannot find this program to isolate the launch: {e}"
        ))
    })?;
    let mut child = Command::new(exe)
        .env(CHILD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| BackendError::Device(format!("cannot start the isolated launch: {e}")))?;
    let json = serde_json::to_vec(job).map_err(|e| BackendError::Device(e.to_string()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&json)
            .map_err(|e| BackendError::Device(format!("cannot send the job: {e}")))?;
    }
    // Read the pipes on threads so a chatty child cannot block on a full pipe.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(BackendError::Timeout(timeout));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                return Err(BackendError::Device(format!(
                    "lost the isolated launch: {e}"
                )));
            }
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    match serde_json::from_str::<Result<Execution, BackendError>>(&out) {
        Ok(result) => result,
        Err(_) => Err(BackendError::Device(format!(
            "the isolated launch ended ({status}) without a result{}",
            if err.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", err.trim())
            }
        ))),
    }
}
