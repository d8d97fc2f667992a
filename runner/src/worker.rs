//! What a child process of the engine does: serve the one job it was given
//! ([`crate::child::job::ChildJob`]) and exit. Every binary that may start
//! children (the CLI, the test binaries, the preprocessor) calls
//! [`serve_if_child`] first thing in `main`.

use crate::backend::cuda::launch;
use crate::child::job::ChildJob;
use crate::child::process;
use crate::perf::bench;

/// In a child process: serves its job and exits. In any other: returns.
pub fn serve_if_child() {
    let Some(job) = process::take_job() else {
        return;
    };
    match job {
        Ok(ChildJob::CudaLaunch(job)) => process::reply(&launch::execute(&job)),
        Ok(ChildJob::Bench(request)) => process::reply(&bench::serve(&request)),
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    }
}
