//! One child process per job: the engine runs its own executable again
//! with [`CHILD_ENV`] set and the job as JSON on stdin, and reads the reply
//! as JSON from stdout.
//!
//! A faulted CUDA context is unusable for the rest of its process, and a
//! kernel that never ends cannot be interrupted from the host; in a child,
//! either one costs only the child. The parent kills a child that outlives
//! its timeout. Every binary that may run jobs calls
//! `runner::worker::serve_if_child` first thing in `main`.

use crate::child::job::ChildJob;
use puzzle_core::run::backend::BackendError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in a child's environment; its value is unused.
pub const CHILD_ENV: &str = "GPU_PUZZLES_CHILD";

/// Why a child gave no reply.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("the job did not finish within {0:?} and was abandoned")]
    Timeout(Duration),
    #[error("cannot start the child process: {0}")]
    Spawn(std::io::Error),
    #[error("cannot send the job to the child process: {0}")]
    Send(String),
    #[error("the child process ended ({status}) without a result{}", if stderr.is_empty() { String::new() } else { format!(": {stderr}") })]
    NoReply { status: String, stderr: String },
}

impl ChildError {
    /// As a backend reports it: a timeout is a hang, the rest a device failure.
    pub fn into_backend_error(self) -> BackendError {
        match self {
            ChildError::Timeout(limit) => BackendError::Timeout(limit),
            other => BackendError::Device(other.to_string()),
        }
    }
}

/// Runs `job` in a child process and returns its reply, killing the child
/// if it is still running after `timeout`.
pub fn run<R: DeserializeOwned>(job: &ChildJob, timeout: Duration) -> Result<R, ChildError> {
    let exe = std::env::current_exe().map_err(ChildError::Spawn)?;
    let mut child = Command::new(exe)
        .env(CHILD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(ChildError::Spawn)?;
    let json = serde_json::to_vec(job).map_err(|e| ChildError::Send(e.to_string()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&json)
            .map_err(|e| ChildError::Send(e.to_string()))?;
    }
    // Read the pipes on threads so a chatty child cannot block on a full pipe.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
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
                return Err(ChildError::Timeout(timeout));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                return Err(ChildError::NoReply {
                    status: e.to_string(),
                    stderr: String::new(),
                });
            }
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    serde_json::from_slice(&out).map_err(|_| ChildError::NoReply {
        status: status.to_string(),
        stderr: err.trim().to_string(),
    })
}

/// In a child process: the job on stdin. `None` in any other process.
pub fn take_job() -> Option<Result<ChildJob, String>> {
    std::env::var_os(CHILD_ENV)?;
    let mut input = String::new();
    Some(
        std::io::stdin()
            .read_to_string(&mut input)
            .map_err(|e| format!("the child could not read its job: {e}"))
            .and_then(|_| {
                serde_json::from_str(&input)
                    .map_err(|e| format!("the child could not parse its job: {e}"))
            }),
    )
}

/// Prints a child's reply and ends the process.
pub fn reply<R: Serialize>(reply: &R) -> ! {
    let json = serde_json::to_vec(reply).unwrap_or_else(|e| format!("\"{e}\"").into_bytes());
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&json);
    let _ = out.flush();
    std::process::exit(0);
}
