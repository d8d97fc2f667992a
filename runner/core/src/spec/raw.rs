//! The spec as an author writes it: a ```puzzle block's YAML, parsed
//! strictly (unknown keys are errors) into types that keep every expression
//! and the line it was written on, for [`super::resolve`] to evaluate.

use crate::lang::Lang;
use crate::spec::data::{Dtype, Values};
use crate::spec::finding::Finding;
use crate::spec::math::Math;
use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// An integer written as a number or as an expression over `const:` names.
#[derive(Debug, Clone, PartialEq)]
pub struct Size(pub String);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Size;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an integer or an expression such as \"(SIZE + TPB - 1) / TPB\"")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Size, E> {
                Ok(Size(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Size, E> {
                Ok(Size(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Size, E> {
                Ok(Size(v.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Size, E> {
                Err(E::custom(yaml_bool_hint(v)))
            }
        }
        de.deserialize_any(Visitor)
    }
}

/// A scalar argument's value: a number, or an integer expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ScalarValue {
    Number(f64),
    Expr(String),
}

impl<'de> Deserialize<'de> for ScalarValue {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ScalarValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or an integer expression")
            }
            fn visit_i64<E>(self, v: i64) -> Result<ScalarValue, E> {
                Ok(ScalarValue::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<ScalarValue, E> {
                Ok(ScalarValue::Number(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ScalarValue, E> {
                Ok(ScalarValue::Number(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<ScalarValue, E> {
                Ok(ScalarValue::Expr(v.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<ScalarValue, E> {
                Err(E::custom(yaml_bool_hint(v)))
            }
        }
        de.deserialize_any(Visitor)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuffer {
    pub len: Option<Size>,
    pub shape: Option<Vec<Size>>,
    /// The element type: f32 (the default), i32, u32, bf16 or f16. Also
    /// accepted as `type`, the word scalars use.
    #[serde(default, alias = "type")]
    pub dtype: Dtype,
    #[serde(default)]
    pub output: bool,
    /// Working storage shared between launches (a two-kernel scan's block
    /// sums): starts poisoned, is guarded against out-of-bounds writes, and is
    /// not compared with anything.
    #[serde(default)]
    pub scratch: bool,
    pub init: Option<Values>,
    /// CUDA only: the kernel receives this buffer as a TMA tensor map
    /// (`const __grid_constant__ CUtensorMap`) instead of a pointer.
    #[serde(default)]
    pub tensor_map: Option<RawTensorMap>,
    /// Which GPUs hold it, in a spec on several (`gpus:`); see [`Place`].
    #[serde(default)]
    pub place: Place,
    /// An output's own tolerance, in place of its type's: `|got − want| ≤
    /// tolerance · (1 + |want|)`.
    pub tolerance: Option<f64>,
}

/// Where a buffer of a spec on several GPUs lives (`place:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Place {
    /// `each` (the default): one per rank, `a@0`, `a@1`, …, each with its own
    /// contents (`random S` gives rank r the seed S + r).
    #[default]
    Each,
    /// `copy`: one per rank, all with rank 0's contents.
    Copy,
    /// `place: R`: one buffer, on GPU R, that every rank's launch is passed.
    Gpu(u32),
}

impl<'de> Deserialize<'de> for Place {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Place;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`each` (the default), `copy`, or a GPU's number")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Place, E> {
                u32::try_from(v)
                    .map(Place::Gpu)
                    .map_err(|_| E::custom(format!("`place: {v}` is no GPU's number")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Place, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("`place: {v}` is no GPU's number")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Place, E> {
                match v {
                    "each" => Ok(Place::Each),
                    "copy" => Ok(Place::Copy),
                    _ => Err(E::custom(format!(
                        "`place: {v}`: write `each` (the default), `copy`, or a GPU's number"
                    ))),
                }
            }
        }
        de.deserialize_any(Visitor)
    }
}

/// How the Tensor Memory Accelerator sees a buffer, e.g.
/// `tensor_map: { box: [BM, BK], swizzle: 128 }`: the tile one copy moves,
/// in the order of `shape` (outermost first), and the shared-memory swizzle
/// in bytes (0 for none, 32, 64 or 128).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTensorMap {
    #[serde(rename = "box")]
    pub tile: Vec<Size>,
    #[serde(default)]
    pub swizzle: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScalar {
    #[serde(rename = "type")]
    pub dtype: Dtype,
    pub value: ScalarValue,
}

/// One launch of a multi-kernel puzzle, as written under `steps:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    pub kernel: String,
    pub grid: Spanned<Vec<Size>>,
    pub block: Spanned<Vec<Size>>,
    #[serde(default)]
    pub dynamic_shared_bytes: Option<Spanned<Size>>,
    /// This kernel's parameters, in CUDA order; the spec's `args` when absent.
    #[serde(default)]
    pub args: Option<Spanned<Vec<String>>>,
    /// Runs once on each set of buffers, outside the timing (see
    /// [`crate::spec::model::Launch::setup`]).
    #[serde(default)]
    pub setup: Option<Spanned<bool>>,
}

/// The spec as written, before sizes are evaluated.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub id: String,
    pub title: String,
    /// The one kernel of a single-launch puzzle (with `grid` and `block`).
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default, rename = "const")]
    pub constants: BTreeMap<String, i64>,
    #[serde(default)]
    pub grid: Option<Spanned<Vec<Size>>>,
    #[serde(default)]
    pub block: Option<Spanned<Vec<Size>>>,
    /// CUDA's dynamic shared memory per block, in bytes (`extern __shared__`).
    /// WGSL sizes workgroup memory in the kernel itself and ignores this.
    #[serde(default)]
    pub dynamic_shared_bytes: Option<Spanned<Size>>,
    /// Several launches in order, sharing the buffers (instead of `kernel`, `grid`, `block`).
    #[serde(default)]
    pub steps: Option<Spanned<Vec<Spanned<RawStep>>>>,
    /// How many times the timed launches run in a row, as a training loop
    /// runs its step: an expression over the constants, 1 to
    /// [`MAX_REPEAT`](crate::spec::model::MAX_REPEAT); once when absent.
    /// Setup steps still run once, before the first round.
    #[serde(default)]
    pub repeat: Option<Spanned<Size>>,
    /// Which CPU reference ([`crate::spec::reference`]) computes the outputs; the id when absent.
    #[serde(default)]
    pub reference: Option<String>,
    /// Floating-point operations of one run, as an expression over the constants
    /// (for the roofline numbers); absent when the puzzle does no arithmetic worth counting.
    #[serde(default)]
    pub flops: Option<Spanned<Size>>,
    /// What the `flops` run on: `fp32` (the default) or `bf16-tensor`,
    /// which sets the compute roof a benchmark is placed under.
    #[serde(default)]
    pub math: Math,
    /// Why a language has no kernel for this puzzle, e.g.
    /// `{ wgsl: "WGSL has no view types; the raw kernel above is its version" }`.
    /// Every puzzle has a kernel in each language or a reason here.
    #[serde(default)]
    pub why_no_kernel: BTreeMap<Lang, String>,
    pub buffers: BTreeMap<String, Spanned<RawBuffer>>,
    #[serde(default)]
    pub scalars: BTreeMap<String, Spanned<RawScalar>>,
    pub args: Spanned<Vec<String>>,
    /// Expected outputs. A spec with neither these nor a `reference` is
    /// a kernel of the learner's own, checked for hazards alone.
    #[serde(default)]
    pub expect: BTreeMap<String, Spanned<Values>>,
    #[serde(default)]
    pub hints: Vec<String>,
    /// Stress runs: constants to change (e.g. `{ SIZE: 1001 }`). Inputs then
    /// become random and the expected outputs come from the CPU reference.
    #[serde(default)]
    pub stress: Vec<Spanned<BTreeMap<String, i64>>>,
    /// The sizes `runner record` benchmarks on a GPU (e.g. `[{ SIZE: 268435456 }]`),
    /// for the performance chapters' recorded figures; the first is the headline
    /// one, which targets refer to. Inputs are random, as in stress runs, and the
    /// output is checked when the CPU reference is affordable.
    #[serde(default)]
    pub bench: Vec<Spanned<BTreeMap<String, i64>>>,
    /// The most global-memory accesses one thread may make, e.g.
    /// `global_access: { reads: 2, writes: 1 }`; see [`AccessBound`].
    #[serde(default)]
    pub global_access: Option<AccessBound>,
    /// A debugging case: what the CPU checker must report on the kernel as
    /// given (e.g. `bug: race`). Its kernels mark the lines given in place
    /// of the fix with `AS GIVEN` (see `kernel::cut`).
    #[serde(default)]
    pub bug: Option<Finding>,
    /// How many GPUs the puzzle runs on at once, 2 to [`MAX_GPUS`], as an
    /// expression over the constants (`gpus: RANKS`); one GPU when absent.
    /// Every buffer is then one per GPU (see [`Place`]), and launches run
    /// once per rank.
    ///
    /// [`MAX_GPUS`]: crate::spec::model::MAX_GPUS
    #[serde(default)]
    pub gpus: Option<Spanned<Size>>,
    /// Peer tables, `{ a_all: a }`: an argument holding the addresses of
    /// buffer `a` on every rank (`gpus:` only).
    #[serde(default)]
    pub peers: BTreeMap<String, Spanned<String>>,
    /// Bytes a collective moves by nccl-tests' bus-bandwidth convention, as an
    /// expression over the constants (`gpus:` only).
    #[serde(default)]
    pub bus_bytes: Option<Spanned<Size>>,
}

/// A bound on global-memory (storage buffer) traffic per thread, as the
/// seeds state it ("you only need 2 global reads and 1 global write per
/// thread"). The CPU checker counts every WGSL run's accesses; a thread
/// over either number fails the run. Both numbers are required, so a
/// bound never silently allows everything of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessBound {
    pub reads: u32,
    pub writes: u32,
}

/// YAML reads a bare `N`, `y`, `no`, `off`… as a boolean, so a constant named
/// `N` arrives as `false`. Say so, rather than "expected an integer".
pub(crate) fn yaml_bool_hint(v: bool) -> String {
    format!(
        "YAML read this as the boolean {v}: a bare N, Y, yes, no, on or off is a boolean in YAML; \
         quote the expression (\"N\") or give the constant another name"
    )
}
