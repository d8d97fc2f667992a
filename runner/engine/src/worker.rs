//! What a child process of the engine does: serve the jobs it is sent
//! ([`crate::child::job::ChildJob`], as [`crate::child::wire`] messages on
//! stdin) until stdin closes, announcing launches as it goes. Every binary
//! that may start children (the CLI, the test binaries, the preprocessor)
//! calls [`serve_if_child`] first thing in `main`.

use crate::backend::cuda::launch;
use crate::backend::wgpu::device;
use crate::child::job::{ChildJob, ChildReply, DeviceOutcome};
use crate::child::{process, wire};
use crate::perf::bench;
use puzzle_core::backend_contract::backend::BackendError;
use serde::Serialize;
use std::io::Write;

/// In a child process: serves jobs, then exits. In any other: returns.
pub fn serve_if_child() {
    if !process::is_child() {
        return;
    }
    let mut stdin = std::io::stdin().lock();
    loop {
        let message = match wire::read::<ChildJob>(&mut stdin) {
            Ok(Some(message)) => message,
            Ok(None) => std::process::exit(0),
            Err(e) => {
                eprintln!("the child could not read its job: {e}");
                std::process::exit(2);
            }
        };
        let mut announce = |launches: u32| {
            send::<()>(&ChildReply::Launching(launches), &[]);
        };
        match message.header {
            ChildJob::Cuda(job) => {
                let done = launch::execute(&job, message.blobs, &mut announce);
                // A CUDA context that failed is unusable for the rest of the
                // process: say so before the reply, then end.
                let failed = done.is_err();
                if failed {
                    send::<()>(&ChildReply::Ending, &[]);
                }
                reply(done);
                if failed {
                    std::process::exit(0);
                }
            }
            ChildJob::Wgpu(job) => reply(device::execute(&job, message.blobs, &mut announce)),
            ChildJob::Bench(request) => {
                // In words: the parent keeps a failure in its recording as text.
                let done = bench::serve(&request).map_err(|e| e.to_string());
                send(&ChildReply::Done(done), &[]);
            }
        }
    }
}

/// A device's answer: the outcome, with what was read back as attachments.
fn reply(done: Result<(DeviceOutcome, Vec<Vec<u8>>), BackendError>) {
    match done {
        Ok((outcome, blobs)) => {
            let attachments: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
            send(
                &ChildReply::Done(Ok::<_, BackendError>(outcome)),
                &attachments,
            );
        }
        Err(e) => send(&ChildReply::Done(Err::<DeviceOutcome, _>(e)), &[]),
    }
}

fn send<R: Serialize>(reply: &ChildReply<R>, blobs: &[&[u8]]) {
    let mut out = std::io::stdout().lock();
    if wire::write(&mut out, reply, blobs).is_err() {
        // The engine is gone: nobody to answer.
        std::process::exit(0);
    }
    let _ = out.flush();
}
