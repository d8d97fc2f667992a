//! Child processes of the engine: its own executable started again with
//! [`CHILD_ENV`] set, serving jobs (as [`super::wire`] messages on stdin and
//! stdout) until its stdin closes.
//!
//! A faulted CUDA context is unusable for the rest of its process, and a
//! kernel that never ends cannot be interrupted from the host: in a child,
//! either costs only the child. Every launch has its own deadline (the
//! child announces its launches before making them), and a child past one
//! is killed; the next job gets a fresh child. A child is kept for the next
//! job otherwise, so a device is opened once, not once a run. Every binary
//! that may start children calls `runner::serve_if_child` first
//! thing in `main`.

use crate::child::job::{ChildJob, ChildReply};
use crate::child::wire;
use puzzle_core::backend_contract::backend::BackendError;
use serde::de::DeserializeOwned;
use std::io::Read;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Set in a child's environment; its value is unused.
pub const CHILD_ENV: &str = "GPU_PUZZLES_CHILD";

/// A child's only argument. A binary that forgot to serve jobs rejects it at
/// once (a test harness would otherwise run its whole suite as the child),
/// and the engine reports what it said.
pub const CHILD_ARG: &str = "--gpu-puzzles-child";

/// Whether this process is a child of the engine.
pub fn is_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// Why a child gave no reply.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("{0}")]
    Timeout(Timeout),
    #[error("cannot start the child process: {0}")]
    Spawn(std::io::Error),
    #[error("cannot send the job to the child process: {0}")]
    Send(std::io::Error),
    #[error("the child process ended ({status}) without a result{}", if stderr.is_empty() { String::new() } else { format!(": {stderr}") })]
    NoReply { status: String, stderr: String },
}

/// A deadline passed: the launch it was for, and whether earlier launches of
/// the job had finished (a launch that is slow, not stuck, finishes the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout {
    pub limit: Duration,
    pub launches_done: u32,
}

impl std::fmt::Display for Timeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a launch did not finish within {:?}", self.limit)
    }
}

impl ChildError {
    /// As a backend reports it: a passed deadline is a hang (or, when
    /// earlier launches finished, a launch too slow for the limit); the
    /// rest a device failure.
    pub fn into_backend_error(self) -> BackendError {
        match self {
            ChildError::Timeout(t) if t.launches_done == 0 => BackendError::Timeout(t.limit),
            ChildError::Timeout(t) => BackendError::Slow {
                limit: t.limit,
                launches_done: t.launches_done,
            },
            other => BackendError::Device(other.to_string()),
        }
    }
}

/// One child serving jobs.
pub struct Worker {
    child: Child,
    /// None once [`Worker::finish`] has closed it.
    stdin: Option<ChildStdin>,
    replies: Receiver<std::io::Result<Option<wire::Message<serde_json::Value>>>>,
    /// The end of what the child wrote to stderr, for when it dies.
    stderr: Arc<Mutex<String>>,
    /// The child said it ends after its reply ([`ChildReply::Ending`]).
    ending: bool,
}

/// A child's answer to a job.
#[derive(Debug)]
pub struct Answer<R> {
    pub reply: R,
    /// The reply's attachments: buffers' bytes.
    pub blobs: Vec<Vec<u8>>,
    /// What the child printed to stdout while it worked: a kernel's
    /// `printf` output, as the GPU's driver wrote it.
    pub printed: Vec<u8>,
}

/// How much of a child's stderr is kept.
const STDERR_KEPT: usize = 4000;

impl Worker {
    pub fn start() -> Result<Worker, ChildError> {
        Worker::start_under(&[])
    }

    /// A child started under another program (`wrapper`: its path and
    /// arguments, followed by the child's own command line), such as
    /// `compute-sanitizer --tool racecheck`.
    pub fn start_under(wrapper: &[std::ffi::OsString]) -> Result<Worker, ChildError> {
        let exe = std::env::current_exe().map_err(ChildError::Spawn)?;
        let mut command = match wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(exe);
                c
            }
            None => Command::new(exe),
        };
        let mut child = command
            .arg(CHILD_ARG)
            .env(CHILD_ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(ChildError::Spawn)?;
        let stdin = child.stdin.take().expect("piped");
        let mut stdout = child.stdout.take().expect("piped");
        let mut err_pipe = child.stderr.take().expect("piped");
        let (send, replies) = mpsc::channel();
        // Read on threads, so a chatty child never blocks on a full pipe.
        std::thread::spawn(move || {
            loop {
                let message = wire::read::<serde_json::Value>(&mut stdout);
                let end = !matches!(message, Ok(Some(_)));
                if send.send(message).is_err() || end {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let kept = stderr.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut chunk) {
                if n == 0 {
                    return;
                }
                if let Ok(mut text) = kept.lock() {
                    text.push_str(&String::from_utf8_lossy(&chunk[..n]));
                    let over = text.len().saturating_sub(STDERR_KEPT);
                    if over > 0 {
                        let cut = (over..text.len())
                            .find(|&i| text.is_char_boundary(i))
                            .unwrap_or(text.len());
                        text.drain(..cut);
                    }
                }
            }
        });
        Ok(Worker {
            child,
            stdin: Some(stdin),
            replies,
            stderr,
            ending: false,
        })
    }

    /// Sends `job` with its attachments and waits for the reply: each launch
    /// the child announces gets `per_launch`, and so does the work before the
    /// first one. A child past its deadline is killed.
    pub fn run<R: DeserializeOwned>(
        &mut self,
        job: &ChildJob,
        blobs: &[&[u8]],
        per_launch: Duration,
    ) -> Result<Answer<R>, ChildError> {
        let stdin = self.stdin.as_mut().ok_or_else(|| {
            ChildError::Send(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
        })?;
        wire::write(stdin, job, blobs).map_err(ChildError::Send)?;
        let mut deadline = Instant::now() + per_launch;
        let mut announced = 0u32;
        let mut launches_done = 0u32;
        let mut printed = Vec::new();
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            let message = match self.replies.recv_timeout(wait) {
                Ok(Ok(Some(message))) => message,
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(ChildError::Timeout(Timeout {
                        limit: per_launch,
                        launches_done,
                    }));
                }
                Ok(Ok(None)) | Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.no_reply());
                }
            };
            printed.extend_from_slice(&message.before);
            let reply: ChildReply<R> =
                serde_json::from_value(message.header).map_err(|e| ChildError::NoReply {
                    status: format!("an answer that does not parse: {e}"),
                    stderr: String::new(),
                })?;
            match reply {
                ChildReply::Launching(n) => {
                    launches_done += announced;
                    announced = n;
                    deadline = Instant::now() + per_launch * n.max(1);
                }
                ChildReply::Ending => self.ending = true,
                ChildReply::Done(reply) => {
                    return Ok(Answer {
                        reply,
                        blobs: message.blobs,
                        printed,
                    });
                }
            }
        }
    }

    /// Whether the child can take another job: it is running and has not
    /// said that it is ending. A child that said so may not have exited
    /// yet; a job sent to it would find it gone.
    fn usable(&mut self) -> bool {
        !self.ending && self.alive()
    }

    /// Closes the child's stdin, so that it ends on its own (and a program
    /// it runs under writes its report), waiting up to `grace` before
    /// killing it. Whether it ended by itself.
    pub fn finish(mut self, grace: Duration) -> bool {
        self.stdin = None;
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Whether the child process is still running.
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The child ended without answering: how, and the end of its stderr.
    fn no_reply(&mut self) -> ChildError {
        let status = match self.child.wait() {
            Ok(status) => status.to_string(),
            Err(e) => e.to_string(),
        };
        // The stderr reader may still be taking in the last lines.
        std::thread::sleep(Duration::from_millis(20));
        let stderr = self
            .stderr
            .lock()
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        ChildError::NoReply { status, stderr }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Children of one kind, started when needed and replaced when one dies or
/// is killed, a few at a time, so parallel callers do not queue behind one.
pub struct Pool {
    slots: Vec<Mutex<Option<Worker>>>,
}

impl Pool {
    pub fn new(size: usize) -> Pool {
        Pool {
            slots: (0..size.max(1)).map(|_| Mutex::new(None)).collect(),
        }
    }

    /// Runs `job` on a free child (starting one if needed). A child that
    /// failed is not kept: the next job gets a fresh one.
    pub fn run<R: DeserializeOwned>(
        &self,
        job: &ChildJob,
        blobs: &[&[u8]],
        per_launch: Duration,
    ) -> Result<Answer<R>, ChildError> {
        let mut slot = self
            .slots
            .iter()
            .find_map(|s| s.try_lock().ok())
            .unwrap_or_else(|| self.slots[0].lock().unwrap_or_else(|e| e.into_inner()));
        // A child that ended since its last job, or said it would (a
        // faulted CUDA context ends its process), is replaced before it is
        // sent anything.
        if slot.as_mut().is_some_and(|w| !w.usable()) {
            *slot = None;
        }
        let worker = match slot.as_mut() {
            Some(worker) => worker,
            None => slot.insert(Worker::start()?),
        };
        let result = worker.run(job, blobs, per_launch);
        if result.is_err() {
            *slot = None;
        }
        result
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::child::job::BenchRequest;
    use puzzle_core::backend_contract::backend::BackendKind;
    use std::ffi::OsString;

    /// A stand-in child: `sh` writes these replies and then lingers, as a
    /// child whose CUDA context faulted lingers while it exits.
    fn fake_child(replies: &[ChildReply<u32>], dir: &std::path::Path) -> Worker {
        let mut bytes = Vec::new();
        for reply in replies {
            wire::write(&mut bytes, reply, &[]).unwrap();
        }
        let file = dir.join("replies");
        std::fs::write(&file, bytes).unwrap();
        let wrapper =
            ["sh", "-c", "cat \"$0\"; sleep 5", file.to_str().unwrap()].map(OsString::from);
        Worker::start_under(&wrapper).unwrap()
    }

    fn any_job(dir: &std::path::Path) -> ChildJob {
        ChildJob::Bench(BenchRequest {
            book: dir.to_path_buf(),
            puzzle: "p01_map".into(),
            backend: BackendKind::Cuda,
            case: Default::default(),
            samples: 1,
            warmup: 0,
            timeout_seconds: 1,
        })
    }

    #[test]
    fn a_child_that_says_it_ends_gets_no_further_job() {
        // (what the child says, whether it may take the next job)
        let cases = [
            (vec![ChildReply::Done(7)], true),
            (vec![ChildReply::Launching(1), ChildReply::Done(7)], true),
            (vec![ChildReply::Ending, ChildReply::Done(7)], false),
        ];
        for (replies, usable) in cases {
            let dir = tempfile::tempdir().unwrap();
            let mut worker = fake_child(&replies, dir.path());
            let answer: Answer<u32> = worker
                .run(&any_job(dir.path()), &[], Duration::from_secs(20))
                .unwrap();
            assert_eq!((answer.reply, answer.blobs.len()), (7, 0), "{replies:?}");
            // Still running either way: only what it said tells them apart.
            assert!(worker.alive(), "{replies:?}");
            assert_eq!(worker.usable(), usable, "{replies:?}");
        }
    }
}
