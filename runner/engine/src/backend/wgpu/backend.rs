//! The wgpu backend as the engine sees it: the adapter probed (for labels
//! and limits, without opening a device), and every run sent to a child
//! process that holds the device ([`super::device`]), so a kernel that never
//! ends costs only that child. wgpu cannot abandon a submission: before
//! this, a hung kernel left the whole process waiting for the queue.

use crate::backend::wgpu::adapter::{self, Adapter};
use crate::backend::wgpu::device;
use crate::child::job::{ChildJob, DeviceOutcome, Runs, WgpuRun, without_data};
use crate::child::process::{self, Answer, Pool};
use puzzle_core::backend_contract::backend::{Backend, BackendError, BackendKind, DeviceInfo, Job};
use puzzle_core::backend_contract::outcome::{Outcome, device_bytes};
use puzzle_core::spec::model::{Arg, Spec};
use puzzle_core::wgsl::front;

pub struct WgpuBackend {
    info: DeviceInfo,
    limits: wgpu::Limits,
    subgroup_size: Option<u32>,
    workers: Pool,
}

impl WgpuBackend {
    /// Finds the adapter wgpu prefers (`WGPU_ADAPTER_NAME` / `WGPU_BACKEND` select another).
    pub fn open() -> Result<WgpuBackend, BackendError> {
        let Adapter {
            info,
            limits,
            subgroup_size,
            ..
        } = adapter::find()?;
        // One child a core: parallel callers (the chapter tests) do not queue behind one.
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(WgpuBackend {
            info,
            limits,
            subgroup_size,
            workers: Pool::new(workers),
        })
    }
}

/// Each buffer's device bytes (data or poison, then a guard band), in the order of `spec.buffers()`.
fn contents(spec: &Spec) -> Vec<Vec<u8>> {
    spec.args
        .iter()
        .enumerate()
        .filter_map(|(tag, arg)| match arg {
            Arg::Buffer(b) => Some(device_bytes(b, tag as u32, false)),
            Arg::Scalar { .. } | Arg::Peers { .. } => None,
        })
        .collect()
}

/// What this backend refuses before a child is asked: what WGSL cannot bind
/// (bf16 and f16 buffers), what an adapter with `limits` cannot launch, and
/// setup steps. A function of the spec and the limits alone, so that its
/// refusals are tested without an adapter.
fn refuse(limits: &wgpu::Limits, spec: &Spec) -> Result<(), BackendError> {
    front::check_bindable(spec)?;
    adapter::check_limits(limits, spec)?;
    // This backend times every launch of a run; untimed setup steps exist
    // for CUDA's backward passes only.
    if let Some(step) = spec.launches.iter().find(|l| l.setup) {
        return Err(BackendError::Launch(format!(
            "step `{}` is a setup step, which only the CUDA backends run untimed",
            step.kernel
        )));
    }
    Ok(())
}

impl Backend for WgpuBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Wgpu
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    /// WebGPU does not say. A CPU adapter (lavapipe) runs through the CPU's
    /// L3, which Linux reports; a GPU gets a generous guess (larger than the
    /// L2 of any current NVIDIA GPU), so the rotation errs on the safe side.
    fn last_level_cache_bytes(&self) -> Option<u64> {
        if self.info.kind == "CPU" {
            let text =
                std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index3/size").ok()?;
            let kib: u64 = text.trim().trim_end_matches('K').parse().ok()?;
            Some(kib * 1024)
        } else {
            Some(128 << 20)
        }
    }

    fn subgroup_size(&self) -> Option<u32> {
        self.subgroup_size
    }

    fn max_buffer_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    fn run(&self, job: &Job) -> Result<Outcome, BackendError> {
        refuse(&self.limits, job.spec)?;
        let run = WgpuRun {
            spec: without_data(job.spec),
            source: job.source.clone(),
            runs: Runs {
                timing_samples: job.timing_samples,
                warmup: job.warmup,
                buffer_sets: job.buffer_sets,
            },
        };
        let inputs = contents(job.spec);
        let (outcome, blobs) = if process::is_child() {
            // Already in a child (a benchmark's): the device is this process's own.
            device::execute(&run, inputs, &mut |_| {})?
        } else {
            let attachments: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
            let answer: Answer<Result<DeviceOutcome, BackendError>> = self
                .workers
                .run(&ChildJob::Wgpu(run), &attachments, job.timeout)
                .map_err(|e| e.into_backend_error())?;
            (answer.reply?, answer.blobs)
        };
        match outcome {
            DeviceOutcome::CompileFailed(errors) => Ok(Outcome::CompileFailed(errors)),
            DeviceOutcome::Ran(ran) => ran.decode(job.spec, blobs).map(Outcome::Ran),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WGSL scan in two steps; `setup` marks which of them are setup steps.
    fn two_steps(setup: [bool; 2]) -> Spec {
        let flag = |on: bool| if on { "    setup: true\n" } else { "" };
        let yaml = format!(
            "\
id: t
title: t
reference: prefix_sum
const: {{ SIZE: 15, TPB: 8 }}
steps:
  - kernel: local_scan
{}    grid: [\"(SIZE + TPB - 1) / TPB\"]
    block: [TPB]
  - kernel: add_block_sums
{}    grid: [\"(SIZE + TPB - 1) / TPB\"]
    block: [TPB]
    args: [out, sums, size]
buffers:
  out: {{ len: SIZE, output: true }}
  a: {{ len: SIZE, init: arange }}
  sums: {{ len: \"(SIZE + TPB - 1) / TPB\", scratch: true }}
scalars:
  size: {{ type: u32, value: SIZE }}
args: [out, a, sums, size]
expect:
  out: reference
",
            flag(setup[0]),
            flag(setup[1]),
        );
        puzzle_core::spec::resolve::PuzzleSpec::parse(&yaml, std::path::Path::new("t.md"), 1)
            .and_then(|p| p.resolve(&Default::default()))
            .unwrap()
    }

    /// A spec with a setup step is refused before any child or device is
    /// asked, naming the step; one without passes (WebGPU's default limits
    /// stand in for an adapter's: the spec is far within them).
    #[test]
    fn setup_steps_are_refused_table() {
        let cases = [
            ([false, false], None),
            (
                [true, false],
                Some(
                    "cannot launch: step `local_scan` is a setup step, which only the CUDA \
                     backends run untimed",
                ),
            ),
        ];
        for (setup, want) in cases {
            let spec = two_steps(setup);
            assert_eq!(
                spec.launches.iter().map(|l| l.setup).collect::<Vec<_>>(),
                setup,
                "the spec as written"
            );
            let got = refuse(&wgpu::Limits::default(), &spec)
                .err()
                .map(|e| e.to_string());
            assert_eq!(got.as_deref(), want, "setup {setup:?}");
        }
    }
}
