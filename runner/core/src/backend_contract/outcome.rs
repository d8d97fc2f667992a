//! What a backend saw: the outputs read back (poison and guard bands
//! decoded), the time, and what a checking backend noticed. Judged later by
//! [`crate::judge`].
//!
//! The words a buffer starts with on a device (its data, or poison, between
//! guard bands of its own canary) are laid out here, once, beside the
//! decoding of what comes back, so every backend poisons and guards alike.

use crate::backend_contract::access_map::AccessMap;
use crate::backend_contract::timing::Timing;
use crate::source::diag::Located;
use crate::spec::model::Buffer;
use serde::{Deserialize, Serialize};

/// How many extra elements follow each buffer on the device, filled with a canary.
/// A write there is an out-of-bounds write, reported by buffer and index.
pub const GUARD_ELEMENTS: usize = 256;

/// What a backend saw; judged later by [`crate::judge`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    /// The kernel did not compile; messages point at the kernel file's lines.
    CompileFailed(Vec<Located>),
    /// Compiled, but not run (e.g. NVRTC present, no GPU): the reason.
    CompiledOnly(String),
    Ran(Execution),
}

/// Raw results of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    pub outputs: Vec<OutputData>,
    pub timing: Option<Timing>,
    /// What a checking backend saw go wrong while the kernel ran (a data
    /// race, an out-of-bounds index, …), at the kernel's lines. Any hazard
    /// fails the run, whatever the outputs.
    #[serde(default)]
    pub hazards: Vec<Located>,
    /// Global-memory reads and writes per invocation, where the backend can
    /// count them (the CPU checker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Box<GlobalAccess>>,
    /// Who touched which element, where the run was traced (the CPU checker's `with_trace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accesses: Option<Box<AccessMap>>,
    /// What the kernel's `printf`s printed (CUDA C), in the order they
    /// reached the host.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub printed: String,
}

/// Global-memory (storage buffer) traffic per invocation, as the CPU
/// checker counted it: each load or store of a value through a pointer into
/// a storage buffer is one access, an atomic is one read and one write, and
/// uniforms are not counted (the rule is `wgsl_sim::access`'s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GlobalAccess {
    pub invocations: u64,
    pub reads: AccessCount,
    pub writes: AccessCount,
}

/// One kind of access over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessCount {
    /// The most one invocation made, and that invocation's global id.
    pub max: u32,
    pub max_thread: [u32; 3],
    /// Over all invocations.
    pub mean: f64,
    /// `nth[k]`: the first access that was some invocation's (k + 1)-th, so
    /// that a bound of k can name the first access too many and its line.
    pub nth: Vec<AccessSite>,
}

/// An access: whose (global id) and where in the kernel file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessSite {
    pub thread: [u32; 3],
    pub at: Located,
}

impl GlobalAccess {
    /// A checker's counts, with each thread named by its global id
    /// (`global`) and each place located in the kernel file (`locate`).
    pub fn from_report<T, P>(
        report: &gpu_hazard::AccessReport<T, P>,
        global: impl Fn(&T) -> [u32; 3],
        locate: impl Fn(&P) -> Located,
    ) -> GlobalAccess {
        let count = |t: &gpu_hazard::Tally<T, P>| AccessCount {
            max: t.max,
            max_thread: global(&t.max_thread),
            mean: report.mean(t),
            nth: t
                .nth
                .iter()
                .map(|site| AccessSite {
                    thread: global(&site.thread),
                    at: locate(&site.at),
                })
                .collect(),
        };
        GlobalAccess {
            invocations: report.threads,
            reads: count(&report.reads),
            writes: count(&report.writes),
        }
    }
}

/// An output buffer as read back: `None` where the poison is still in place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputData {
    pub name: String,
    pub values: Vec<Option<f64>>,
    /// Indices outside the buffer whose guard band was overwritten: past the
    /// end (len, len + 1, …) or, where the backend can see it, before the start (-1, -2, …).
    pub out_of_bounds: Vec<i64>,
    /// Where the backend saw every store (the CPU checker): the elements
    /// that still hold poison although the kernel stored to them, so were
    /// computed from the poison. None where it cannot tell (a GPU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poison_written: Option<Vec<usize>>,
}

impl OutputData {
    /// What came back for buffer `b`, argument number `tag`: its data (decoded
    /// for outputs only; other buffers are not judged) and the guard bands
    /// around it. A band word that no longer holds the canary is an
    /// out-of-bounds write: before the start (-1, -2, …, where the backend
    /// has a leading band) or past the end (len, len + 1, …).
    pub fn from_device(
        b: &Buffer,
        tag: u32,
        before: Option<&[u8]>,
        data: &[u8],
        after: &[u8],
    ) -> OutputData {
        let leading = before
            .map(|band| b.dtype.overwritten(tag, band))
            .unwrap_or_default();
        let mut out_of_bounds: Vec<i64> = leading
            .iter()
            .map(|&i| i as i64 - GUARD_ELEMENTS as i64)
            .collect();
        out_of_bounds.extend(
            b.dtype
                .overwritten(tag, after)
                .into_iter()
                .map(|i| (b.len() + i) as i64),
        );
        OutputData {
            name: b.name.clone(),
            values: if b.is_output() {
                b.dtype.decode(data)
            } else {
                vec![]
            },
            out_of_bounds,
            poison_written: None,
        }
    }
}

/// Buffer `b`'s bytes as a device holds them: its initial values (poison
/// for outputs and scratch), then a guard band of canaries of its own
/// (`tag`: its argument number), and, where the backend can hand the kernel
/// a pointer past the start of the allocation (`leading_band`), a band
/// before it too. [`OutputData::from_device`] reads the same layout back.
pub fn device_bytes(b: &Buffer, tag: u32, leading_band: bool) -> Vec<u8> {
    let band = b.dtype.canary(tag, GUARD_ELEMENTS);
    let mut bytes = if leading_band {
        band.clone()
    } else {
        Vec::new()
    };
    bytes.extend(match &b.init {
        Some(values) => b.dtype.encode(values),
        None => b.dtype.poison(b.len()),
    });
    bytes.extend(band);
    bytes
}
