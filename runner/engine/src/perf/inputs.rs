//! A benchmark's inputs, named and written out: what `runner bench` times a
//! kernel on, so that a library is timed on the very same bytes.
//!
//! A ratio against a library is a claim about the kernel only when both
//! sides multiply the same numbers: a tensor core's power, and so its clock
//! under load, depends on the bits it is fed. Every benchmark report
//! carries [`BenchInputs`] (the distribution in words and a digest of the
//! bytes); `runner inputs` writes a case's buffers as raw files with a
//! manifest that carries the same, and the baseline scripts load them and
//! copy the manifest's [`BenchInputs`] into their reports. A page compares
//! a kernel with a library only where the two digests agree.
//!
//! The manifest also says how the kernel is launched (its PTX, each
//! launch's shape and arguments, the tensor maps' encodings), so that a
//! program holding the library can launch the book's kernel on the same
//! buffers and time the two alternately (`.ci/gpu/baseline/same_process.py`).

use puzzle_core::spec::data::{BENCH_INPUTS, Dtype};
use puzzle_core::spec::expr::Constants;
use puzzle_core::spec::model::{Arg, Spec};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What a benchmark's inputs were: the same digest on both sides of a
/// ratio, or the ratio is not shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchInputs {
    /// How they were drawn, and with which seeds ([`BENCH_INPUTS`]).
    pub distribution: String,
    /// blake3 over every input buffer, in argument order: its type's name,
    /// its length and its bytes as the device holds them.
    pub digest: String,
}

impl BenchInputs {
    /// The inputs of `spec` (resolved for a benchmark), described.
    pub fn of(spec: &Spec) -> BenchInputs {
        let mut hasher = blake3::Hasher::new();
        for b in spec.buffers().filter(|b| !b.is_output() && !b.scratch) {
            let values = b.init.as_deref().unwrap_or_default();
            hasher.update(b.dtype.name().as_bytes());
            hasher.update(&(values.len() as u64).to_le_bytes());
            hasher.update(&b.dtype.encode(values));
        }
        BenchInputs {
            distribution: BENCH_INPUTS.to_string(),
            digest: hasher.finalize().to_hex().to_string(),
        }
    }
}

/// `manifest.json`: a benchmark case's inputs and how its kernel is launched.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub puzzle: String,
    /// The case's constants, every one of the spec's.
    pub constants: Constants,
    pub inputs: BenchInputs,
    /// Floating-point operations of one run, where the spec counts them.
    pub flops: Option<u64>,
    /// Every argument in parameter order.
    pub args: Vec<ArgFile>,
    /// In order; `setup` ones run once before any timed run.
    pub launches: Vec<LaunchPlan>,
    /// The kernel compiled for this GPU, where it was asked for (`--ptx`).
    #[serde(default)]
    pub ptx: Option<String>,
}

/// One argument: a buffer (an input with the file that holds it, or an
/// output or scratch buffer to allocate) or a scalar's value.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ArgFile {
    Buffer {
        name: String,
        dtype: Dtype,
        shape: Vec<usize>,
        /// The raw little-endian bytes, for an input; None for an output.
        file: Option<String>,
        /// How the driver encodes its tensor map, where it is passed as one.
        tensor_map: Option<TensorMapPlan>,
    },
    Scalar {
        name: String,
        dtype: Dtype,
        value: f64,
    },
}

/// `cuTensorMapEncodeTiled`'s arguments, innermost dimension first, as the
/// runner passes them (no interleave, 256-byte L2 promotion, no OOB fill).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TensorMapPlan {
    pub sizes: Vec<u64>,
    /// Byte strides of every dimension but the innermost.
    pub strides: Vec<u64>,
    pub tile: Vec<u32>,
    /// 0 (none), 32, 64 or 128 bytes.
    pub swizzle: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LaunchPlan {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared_bytes: u32,
    /// Indices into the manifest's `args`.
    pub args: Vec<usize>,
    pub setup: bool,
}

/// Why a case's inputs could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("a spec on several GPUs has no single set of inputs to write")]
    SeveralGpus,
}

/// Writes every input of `spec` (resolved for a benchmark) under `dir`, one
/// `<name>.bin` each, and `manifest.json`; `ptx` is the kernel compiled for
/// this GPU, written as `kernel.ptx` where given.
pub fn write(spec: &Spec, dir: &Path, ptx: Option<&str>) -> Result<Manifest, WriteError> {
    if spec.gpus > 1 {
        return Err(WriteError::SeveralGpus);
    }
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| WriteError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut args = Vec::new();
    for arg in &spec.args {
        args.push(match arg {
            Arg::Buffer(b) => {
                let file = match &b.init {
                    Some(values) if !b.scratch => {
                        let name = format!("{}.bin", b.name);
                        let path = dir.join(&name);
                        std::fs::write(&path, b.dtype.encode(values)).map_err(io(&path))?;
                        Some(name)
                    }
                    _ => None,
                };
                let tensor_map = b.tensor_map.as_ref().map(|map| {
                    let (sizes, strides, tile) = map.driver_dimensions(&b.shape, b.dtype.size());
                    TensorMapPlan {
                        sizes,
                        strides,
                        tile,
                        swizzle: map.swizzle,
                    }
                });
                ArgFile::Buffer {
                    name: b.name.clone(),
                    dtype: b.dtype,
                    shape: b.shape.clone(),
                    file,
                    tensor_map,
                }
            }
            Arg::Scalar { name, dtype, value } => ArgFile::Scalar {
                name: name.clone(),
                dtype: *dtype,
                value: *value,
            },
            Arg::Peers { .. } => return Err(WriteError::SeveralGpus),
        });
    }
    let ptx_file = match ptx {
        Some(text) => {
            let path = dir.join("kernel.ptx");
            std::fs::write(&path, text).map_err(io(&path))?;
            Some("kernel.ptx".to_string())
        }
        None => None,
    };
    let manifest = Manifest {
        puzzle: spec.id.clone(),
        constants: spec.constants.clone(),
        inputs: BenchInputs::of(spec),
        flops: spec.flops,
        args,
        launches: spec
            .launches
            .iter()
            .map(|l| LaunchPlan {
                kernel: l.kernel.clone(),
                grid: l.grid,
                block: l.block,
                dynamic_shared_bytes: l.dynamic_shared_bytes,
                args: l.args.clone(),
                setup: l.setup,
            })
            .collect(),
        ptx: ptx_file,
    };
    let path = dir.join("manifest.json");
    let text = serde_json::to_string_pretty(&manifest).expect("a manifest serializes");
    std::fs::write(&path, text).map_err(io(&path))?;
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzle_core::spec::model::Spec as Resolved;

    const SPEC: &str = "id: p\ntitle: t\nkernel: k\ngrid: [1]\nblock: [4]\nconst:\n  SIZE: 4\n\
        buffers:\n  out: { len: SIZE, output: true }\n  a: { len: SIZE, type: bf16, init: random 1 }\n\
        args: [out, a]\nexpect:\n  out: [0, 0, 0, 0]\n";

    fn bench_spec(n: i64) -> Resolved {
        let spec =
            puzzle_core::spec::resolve::PuzzleSpec::parse(SPEC, Path::new("p.md"), 1).unwrap();
        let case: Constants = [("SIZE".to_string(), n)].into_iter().collect();
        spec.resolve_bench(&case).unwrap()
    }

    /// What a user would notice: the bytes written are the bytes the digest
    /// names, the inputs have full mantissas, and other inputs differ.
    #[test]
    fn written_inputs_are_the_digested_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let spec = bench_spec(64);
        let manifest = write(&spec, dir.path(), None).unwrap();
        let bytes = std::fs::read(dir.path().join("a.bin")).unwrap();
        assert_eq!(bytes.len(), 64 * 2);
        let values: Vec<f64> = Dtype::Bf16
            .decode(&bytes)
            .into_iter()
            .map(Option::unwrap)
            .collect();
        assert!(values.iter().all(|v| (-4.0..4.0).contains(v)), "{values:?}");
        // Quarters would all be multiples of 0.25; full mantissas are not.
        assert!(values.iter().filter(|v| (*v * 4.0).fract() != 0.0).count() > 48);
        assert_eq!(manifest.inputs, BenchInputs::of(&spec));
        assert_ne!(
            manifest.inputs.digest,
            BenchInputs::of(&bench_spec(32)).digest
        );
        let read: Manifest = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("manifest.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(read.inputs, manifest.inputs);
        assert!(matches!(&read.args[0], ArgFile::Buffer { file: None, .. }));
    }
}
