//! The puzzle spec: the YAML block an author writes, parsed strictly and
//! resolved into concrete launch sizes and buffers.
//!
//! Parsing (`RawSpec`) keeps expressions and source lines; resolving
//! (`Spec::resolve`) evaluates them against the constants, possibly
//! overridden (stress runs change `SIZE`). Every error names its line.

use crate::data::{Dtype, Values};
use crate::diag::Located;
use crate::expr::{self, Constants};
use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    #[serde(default)]
    pub dtype: Dtype,
    #[serde(default)]
    pub output: bool,
    /// Working storage shared between launches (a two-kernel scan's block
    /// sums): starts poisoned, is guarded against out-of-bounds writes, and is
    /// not compared with anything.
    #[serde(default)]
    pub scratch: bool,
    pub init: Option<Values>,
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
    /// Which CPU reference in `runner/src/reference.rs` computes the outputs; the id when absent.
    #[serde(default)]
    pub reference: Option<String>,
    /// Floating-point operations of one run, as an expression over the constants
    /// (for the roofline numbers); absent when the puzzle does no arithmetic worth counting.
    #[serde(default)]
    pub flops: Option<Spanned<Size>>,
    /// Why a language has no kernel for this puzzle, e.g.
    /// `{ wgsl: "WGSL has no view types; the raw kernel above is its version" }`.
    /// Every puzzle has a kernel in each language or a reason here.
    #[serde(default)]
    pub why_no_kernel: BTreeMap<crate::kernel::Lang, String>,
    pub buffers: BTreeMap<String, Spanned<RawBuffer>>,
    #[serde(default)]
    pub scalars: BTreeMap<String, Spanned<RawScalar>>,
    pub args: Spanned<Vec<String>>,
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

#[cfg(test)]
mod global_access_tests {
    use super::*;

    const BASE: &str = "id: p\ntitle: t\nkernel: k\ngrid: [1]\nblock: [4]\n\
buffers:\n  out: { len: 4, output: true }\nargs: [out]\nexpect:\n  out: [0, 0, 0, 0]\n";

    /// (the key as written on the spec's line 11, the bound, or the error's chapter line and words).
    #[test]
    fn parses_strictly_table() {
        let cases: &[(&str, Result<(u32, u32), &str>)] = &[
            ("global_access: { reads: 2, writes: 1 }", Ok((2, 1))),
            ("global_access: { reads: 0, writes: 0 }", Ok((0, 0))),
            ("global_access: { reads: 2, wrties: 1 }", Err("wrties")),
            ("global_access: { reads: 2 }", Err("writes")),
            ("global_access: { reads: -1, writes: 1 }", Err("")),
            ("global_access: 2", Err("")),
        ];
        for (line, want) in cases {
            let text = format!("{BASE}{line}\n");
            let got = PuzzleSpec::parse(&text, Path::new("ch.md"), 100);
            match (got, want) {
                (Ok(spec), Ok((r, w))) => {
                    let bound = spec.raw.global_access.expect("a bound");
                    assert_eq!((bound.reads, bound.writes), (*r, *w), "{line}");
                }
                (Err(e), Err(words)) => {
                    assert_eq!(e.line, 110, "{line}: {e}");
                    assert!(e.message.contains(words), "{line}: {e}");
                }
                (got, _) => panic!("{line}: {:?}", got.map(|s| s.raw.global_access)),
            }
        }
        let none = PuzzleSpec::parse(BASE, Path::new("ch.md"), 100).expect("parses");
        assert_eq!(none.raw.global_access, None);
    }
}

/// Where a spec block sits: the chapter file and the line of its first YAML line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpecOrigin {
    pub file: PathBuf,
    pub first_line: usize,
}

impl SpecOrigin {
    fn at(&self, yaml_line: u64, message: impl Into<String>) -> Located {
        let line = if yaml_line == 0 {
            self.first_line.saturating_sub(1)
        } else {
            self.first_line + yaml_line as usize - 1
        };
        Located::new(&self.file, line, message)
    }
}

/// A parsed spec and where it came from.
#[derive(Debug, Clone)]
pub struct PuzzleSpec {
    pub raw: RawSpec,
    pub origin: SpecOrigin,
    /// The YAML text exactly as written (hashed for cache keys and recorded results).
    pub text: String,
}

/// One buffer, with its size evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Buffer {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    /// Inputs' initial contents; outputs and scratch start poisoned.
    pub init: Option<Vec<f64>>,
    pub expect: Option<Vec<f64>>,
    /// Working storage between launches: guarded, never compared.
    #[serde(default)]
    pub scratch: bool,
}

impl Buffer {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An output the run is judged on (scratch buffers also start poisoned, but are not judged).
    pub fn is_output(&self) -> bool {
        self.init.is_none() && !self.scratch
    }
}

/// A kernel argument, in parameter (CUDA) and binding (WGSL) order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Arg {
    Buffer(Buffer),
    Scalar {
        name: String,
        dtype: Dtype,
        value: f64,
    },
}

impl Arg {
    pub fn name(&self) -> &str {
        match self {
            Arg::Buffer(b) => &b.name,
            Arg::Scalar { name, .. } => name,
        }
    }
}

/// One kernel launch with its sizes evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Launch {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per block (CUDA); 0 when unused.
    #[serde(default)]
    pub dynamic_shared_bytes: u32,
    /// The kernel's parameters, in order, as indices into [`Spec::args`].
    pub args: Vec<usize>,
}

impl Launch {
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }

    pub fn total_threads(&self) -> u64 {
        self.threads_per_block() * self.grid.iter().map(|&g| g as u64).product::<u64>()
    }
}

/// A spec with every size evaluated: what a backend launches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    pub id: String,
    pub title: String,
    /// The CPU reference's name (see [`crate::reference`]).
    pub reference: String,
    pub constants: Constants,
    /// One launch, or several in order (a two-kernel scan).
    pub launches: Vec<Launch>,
    /// Every buffer and scalar, in WGSL binding order.
    pub args: Vec<Arg>,
    /// Floating-point operations of one run, when the spec counts them.
    #[serde(default)]
    pub flops: Option<u64>,
}

impl Spec {
    /// The arguments one launch passes, in parameter order.
    pub fn launch_args<'a>(&'a self, launch: &'a Launch) -> impl Iterator<Item = &'a Arg> + 'a {
        launch.args.iter().map(|&i| &self.args[i])
    }

    /// The fewest bytes a run must move: each input read once, each output
    /// written once (scratch buffers are the kernel's business, not the problem's).
    pub fn min_bytes(&self) -> u64 {
        self.buffers()
            .filter(|b| !b.scratch)
            .map(|b| (b.len() * b.dtype.size()) as u64)
            .sum()
    }

    pub fn buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.args.iter().filter_map(|a| match a {
            Arg::Buffer(b) => Some(b),
            Arg::Scalar { .. } => None,
        })
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Buffer> {
        self.buffers().filter(|b| b.is_output())
    }
}

impl PuzzleSpec {
    /// Parses the YAML of a ```puzzle block. `first_line` is the chapter line of the YAML's first line.
    pub fn parse(text: &str, file: &Path, first_line: usize) -> Result<PuzzleSpec, Located> {
        let origin = SpecOrigin {
            file: file.to_path_buf(),
            first_line,
        };
        let raw: RawSpec = serde_saphyr::from_str(text).map_err(|e| {
            let line = e.location().map(|l| l.line()).unwrap_or(0);
            origin.at(line, first_sentence(&e.to_string()))
        })?;
        let spec = PuzzleSpec {
            raw,
            origin,
            text: text.to_string(),
        };
        // Resolve once now so that every mistake surfaces when the chapter is read.
        spec.resolve(&Constants::new())?;
        // Stress cases: their sizes now, the CPU reference only at the teaching
        // size (cheap; a stress size's reference is computed when it runs).
        for case in &spec.raw.stress {
            spec.resolve_random(&case.value).map_err(|mut e| {
                e.line = spec.origin.first_line + case.referenced.line() as usize - 1;
                e.message = format!("stress case: {}", e.message);
                e
            })?;
        }
        if !spec.raw.stress.is_empty() {
            spec.resolve_stress(&Constants::new())?;
        }
        // The benchmark size is far too large to resolve here (it allocates
        // its buffers); its names are checked, its sizes when it runs.
        for bench in &spec.raw.bench {
            let line = spec.origin.first_line + bench.referenced.line() as usize - 1;
            if bench.value.is_empty() {
                return Err(Located::new(
                    &spec.origin.file,
                    line,
                    "a `bench` case sets no constant; give the sizes to benchmark, e.g. { SIZE: 268435456 }",
                ));
            }
            if let Some(name) = bench
                .value
                .keys()
                .find(|k| !spec.raw.constants.contains_key(*k))
            {
                return Err(Located::new(
                    &spec.origin.file,
                    line,
                    format!("bench: cannot set `{name}`: the spec has no such constant"),
                ));
            }
        }
        Ok(spec)
    }

    pub fn id(&self) -> &str {
        &self.raw.id
    }

    /// Evaluates sizes with the spec's constants, replaced by `overrides` where given.
    pub fn resolve(&self, overrides: &Constants) -> Result<Spec, Located> {
        let spec = self.resolve_with(overrides, Contents::Written)?;
        self.fill_from_reference(spec, "`expect: reference`")
    }

    /// A stress run: sizes from `overrides`, random inputs, and expected
    /// outputs from the puzzle's CPU reference ([`crate::reference`]).
    pub fn resolve_stress(&self, overrides: &Constants) -> Result<Spec, Located> {
        let spec = self.resolve_with(overrides, Contents::Random)?;
        self.fill_from_reference(spec, "stress runs")
    }

    /// Sizes from `overrides` and random inputs, with no expected values yet:
    /// a benchmark decides whether the CPU reference is cheap enough to check against.
    pub fn resolve_random(&self, overrides: &Constants) -> Result<Spec, Located> {
        self.resolve_with(overrides, Contents::Random)
    }

    /// Sizes, launches and FLOPs at `overrides`, with no buffer contents at
    /// all: what a page needs to describe a benchmark without allocating it.
    /// Inputs carry an empty `init`, outputs no `expect`.
    pub fn sized(&self, overrides: &Constants) -> Result<Spec, Located> {
        self.resolve_with(overrides, Contents::Empty)
    }

    /// Expected values from the CPU reference for every output still without them.
    pub fn with_reference(&self, spec: Spec) -> Result<Spec, Located> {
        self.fill_from_reference(spec, "checked benchmarks")
    }

    /// Gives every output still without expected values (stress runs, and
    /// `expect: reference`) the CPU reference's values.
    fn fill_from_reference(&self, mut spec: Spec, who: &str) -> Result<Spec, Located> {
        if spec.outputs().all(|b| b.expect.is_some()) {
            return Ok(spec);
        }
        let expected = crate::reference::expected(&spec).ok_or_else(|| {
            self.origin.at(
                0,
                format!(
                    "`{}` has no CPU reference in runner/src/reference.rs; {who} need one",
                    spec.reference
                ),
            )
        })?;
        for arg in &mut spec.args {
            if let Arg::Buffer(b) = arg
                && b.is_output()
                && b.expect.is_none()
            {
                let values = expected.get(&b.name).ok_or_else(|| {
                    self.origin.at(
                        0,
                        format!("the CPU reference gives no values for output `{}`", b.name),
                    )
                })?;
                b.expect = Some(values.clone());
            }
        }
        Ok(spec)
    }

    /// The benchmark sizes the spec declares, as constant overrides, headline first.
    pub fn bench_cases(&self) -> Vec<Constants> {
        self.raw.bench.iter().map(|b| b.value.clone()).collect()
    }

    /// The stress cases the spec declares, as constant overrides.
    pub fn stress_cases(&self) -> Vec<Constants> {
        self.raw.stress.iter().map(|s| s.value.clone()).collect()
    }

    fn resolve_with(&self, overrides: &Constants, contents: Contents) -> Result<Spec, Located> {
        let raw = &self.raw;
        let mut constants: Constants = raw.constants.clone();
        for (name, value) in overrides {
            if !constants.contains_key(name) {
                return Err(self.origin.at(
                    0,
                    format!("cannot set `{name}`: the spec has no such constant"),
                ));
            }
            constants.insert(name.clone(), *value);
        }
        if !is_identifier(&raw.id) {
            return Err(self.origin.at(
                1,
                format!("id `{}` must be letters, digits and `_`", raw.id),
            ));
        }
        let eval = |size: &Size, line: u64, what: &str| -> Result<i64, Located> {
            expr::eval(&size.0, &constants)
                .map_err(|e| self.origin.at(line, format!("{what}: {e}")))
        };
        let dims = |list: &Spanned<Vec<Size>>, what: &str| -> Result<[u32; 3], Located> {
            let line = list.referenced.line();
            if list.value.is_empty() || list.value.len() > 3 {
                return Err(self
                    .origin
                    .at(line, format!("`{what}` needs 1 to 3 entries (x, y, z)")));
            }
            let mut out = [1u32; 3];
            for (i, size) in list.value.iter().enumerate() {
                let v = eval(size, line, what)?;
                out[i] = u32::try_from(v).ok().filter(|&v| v >= 1).ok_or_else(|| {
                    self.origin.at(
                        line,
                        format!("`{what}` entry {} is {v}; it must be at least 1", i + 1),
                    )
                })?;
            }
            Ok(out)
        };
        let shared_bytes = |size: &Option<Spanned<Size>>| -> Result<u32, Located> {
            let Some(size) = size else { return Ok(0) };
            let line = size.referenced.line();
            let v = eval(&size.value, line, "dynamic_shared_bytes")?;
            u32::try_from(v).map_err(|_| {
                self.origin.at(
                    line,
                    format!("`dynamic_shared_bytes` is {v}; it must be 0 or more"),
                )
            })
        };
        let flops = match &raw.flops {
            None => None,
            Some(size) => {
                let line = size.referenced.line();
                let v = eval(&size.value, line, "flops")?;
                Some(u64::try_from(v).map_err(|_| {
                    self.origin
                        .at(line, format!("`flops` is {v}; it must be 0 or more"))
                })?)
            }
        };

        for (name, expect) in &raw.expect {
            let is_output = raw.buffers.get(name).is_some_and(|b| b.value.output);
            if !is_output {
                return Err(self.origin.at(
                    expect.referenced.line(),
                    format!("`expect` names `{name}`, which is not an output buffer"),
                ));
            }
        }

        let args_line = raw.args.referenced.line();
        let mut args = Vec::new();
        for name in &raw.args.value {
            if args.iter().any(|a: &Arg| a.name() == name) {
                return Err(self
                    .origin
                    .at(args_line, format!("`{name}` appears twice in `args`")));
            }
            if let Some(buffer) = raw.buffers.get(name) {
                // Stress inputs are random, seeded by position: an index mistake cannot hide behind arange.
                let fill = match contents {
                    Contents::Random => Fill::Random(args.len() as u64 + 1),
                    Contents::Written => Fill::Written,
                    Contents::Empty => Fill::Empty,
                };
                args.push(Arg::Buffer(self.resolve_buffer(name, buffer, &eval, fill)?));
            } else if let Some(scalar) = raw.scalars.get(name) {
                let line = scalar.referenced.line();
                let value = match &scalar.value.value {
                    ScalarValue::Number(v) => *v,
                    ScalarValue::Expr(e) => eval(&Size(e.clone()), line, name)? as f64,
                };
                args.push(Arg::Scalar {
                    name: name.clone(),
                    dtype: scalar.value.dtype,
                    value,
                });
            } else {
                return Err(self.origin.at(
                    args_line,
                    format!("`args` names `{name}`, which is neither a buffer nor a scalar"),
                ));
            }
        }
        let unused = raw.buffers.iter().map(|(n, b)| (n, b.referenced.line()));
        let unused = unused.chain(raw.scalars.iter().map(|(n, s)| (n, s.referenced.line())));
        for (name, line) in unused {
            if !raw.args.value.contains(name) {
                return Err(self.origin.at(
                    line,
                    format!("`{name}` is declared but not listed in `args`"),
                ));
            }
        }

        let all_args: Vec<usize> = (0..args.len()).collect();
        let launches = match (&raw.steps, &raw.kernel, &raw.grid, &raw.block) {
            (None, Some(kernel), Some(grid), Some(block)) => vec![Launch {
                kernel: kernel.clone(),
                grid: dims(grid, "grid")?,
                block: dims(block, "block")?,
                dynamic_shared_bytes: shared_bytes(&raw.dynamic_shared_bytes)?,
                args: all_args,
            }],
            (Some(steps), None, None, None) if raw.dynamic_shared_bytes.is_none() => {
                self.resolve_steps(steps, &args, &dims, &shared_bytes)?
            }
            (Some(steps), ..) => {
                return Err(self.origin.at(
                    steps.referenced.line(),
                    "with `steps`, each step names its own `kernel`, `grid`, `block` and \
                     `dynamic_shared_bytes`; remove them from the top level",
                ));
            }
            (None, ..) => {
                return Err(self.origin.at(
                    0,
                    "a puzzle needs `kernel`, `grid` and `block` (or a list of `steps`)",
                ));
            }
        };
        Ok(Spec {
            id: raw.id.clone(),
            title: raw.title.clone(),
            reference: raw.reference.clone().unwrap_or_else(|| raw.id.clone()),
            constants,
            launches,
            args,
            flops,
        })
    }

    /// The launches of a multi-kernel puzzle. Each step's args must be names
    /// from the spec's `args`, and every arg must be used by some step: a
    /// buffer that no kernel touches is a spec that does not line up.
    fn resolve_steps(
        &self,
        steps: &Spanned<Vec<Spanned<RawStep>>>,
        args: &[Arg],
        dims: &dyn Fn(&Spanned<Vec<Size>>, &str) -> Result<[u32; 3], Located>,
        shared_bytes: &dyn Fn(&Option<Spanned<Size>>) -> Result<u32, Located>,
    ) -> Result<Vec<Launch>, Located> {
        if steps.value.is_empty() {
            return Err(self
                .origin
                .at(steps.referenced.line(), "`steps` lists no launches"));
        }
        let mut used = vec![false; args.len()];
        let mut launches = Vec::new();
        for step in &steps.value {
            let raw = &step.value;
            let indices = match &raw.args {
                None => (0..args.len()).collect(),
                Some(names) => {
                    let mut indices = Vec::new();
                    for name in &names.value {
                        let index = args.iter().position(|a| a.name() == name).ok_or_else(|| {
                            self.origin.at(
                                names.referenced.line(),
                                format!(
                                    "step `{}` passes `{name}`, which is not in the spec's `args` ({})",
                                    raw.kernel,
                                    args.iter().map(Arg::name).collect::<Vec<_>>().join(", ")
                                ),
                            )
                        })?;
                        if indices.contains(&index) {
                            return Err(self.origin.at(
                                names.referenced.line(),
                                format!("step `{}` passes `{name}` twice", raw.kernel),
                            ));
                        }
                        indices.push(index);
                    }
                    indices
                }
            };
            for &i in &indices {
                used[i] = true;
            }
            launches.push(Launch {
                kernel: raw.kernel.clone(),
                grid: dims(&raw.grid, "grid")?,
                block: dims(&raw.block, "block")?,
                dynamic_shared_bytes: shared_bytes(&raw.dynamic_shared_bytes)?,
                args: indices,
            });
        }
        if let Some(i) = used.iter().position(|u| !u) {
            return Err(self.origin.at(
                steps.referenced.line(),
                format!("no step passes `{}` to its kernel", args[i].name()),
            ));
        }
        Ok(launches)
    }

    fn resolve_buffer(
        &self,
        name: &str,
        buffer: &Spanned<RawBuffer>,
        eval: &dyn Fn(&Size, u64, &str) -> Result<i64, Located>,
        fill: Fill,
    ) -> Result<Buffer, Located> {
        let line = buffer.referenced.line();
        let b = &buffer.value;
        let sizes: Vec<Size> = match (&b.len, &b.shape) {
            (Some(len), None) => vec![len.clone()],
            (None, Some(shape)) if !shape.is_empty() => shape.clone(),
            _ => {
                return Err(self.origin.at(
                    line,
                    format!("buffer `{name}` needs exactly one of `len` or `shape`"),
                ));
            }
        };
        let mut shape = Vec::new();
        for size in &sizes {
            let v = eval(size, line, name)?;
            shape.push(usize::try_from(v).ok().filter(|&v| v >= 1).ok_or_else(|| {
                self.origin.at(
                    line,
                    format!("buffer `{name}` has size {v}; it must be at least 1"),
                )
            })?);
        }
        let len: usize = shape.iter().product();
        let materialize = |values: &Values, line: u64, what: &str| {
            values
                .materialize(len)
                .map_err(|e| self.origin.at(line, format!("{what} of `{name}` {e}")))
        };
        if b.scratch && (b.output || b.init.is_some()) {
            return Err(self.origin.at(
                line,
                format!(
                    "scratch buffer `{name}` starts poisoned and is not judged; remove its `output` and `init`"
                ),
            ));
        }
        let (init, expect) = match (b.output, &b.init) {
            _ if b.scratch => (None, None),
            (true, Some(_)) => {
                return Err(self.origin.at(
                    line,
                    format!("output `{name}` starts poisoned; remove its `init`"),
                ));
            }
            (false, None) => {
                return Err(self.origin.at(
                    line,
                    format!("input `{name}` needs an `init` (or `output: true`)"),
                ));
            }
            (false, Some(_)) if fill == Fill::Empty => (Some(Vec::new()), None),
            (false, Some(_)) if let Fill::Random(seed) = fill => (
                Some(materialize(&Values::Random(seed), line, "init")?),
                None,
            ),
            (false, Some(values)) => (Some(materialize(values, line, "init")?), None),
            // Stress runs take expected values from the CPU reference afterwards.
            (true, None) if fill != Fill::Written => (None, None),
            (true, None) => {
                let expect = self.raw.expect.get(name).ok_or_else(|| {
                    self.origin
                        .at(line, format!("output `{name}` has no `expect` entry"))
                })?;
                if expect.value == Values::Reference {
                    // Filled in by `fill_from_reference` once every input is known.
                    (None, None)
                } else {
                    (
                        None,
                        Some(materialize(
                            &expect.value,
                            expect.referenced.line(),
                            "expect",
                        )?),
                    )
                }
            }
        };
        Ok(Buffer {
            name: name.to_string(),
            dtype: b.dtype,
            shape,
            init,
            expect,
            scratch: b.scratch,
        })
    }
}

/// What a resolved spec's buffers hold.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Contents {
    /// The inputs and expected values as written (the teaching size).
    Written,
    /// Random inputs, expected values left to the CPU reference.
    Random,
    /// Nothing: sizes only.
    Empty,
}

/// One buffer's contents: as written, random from a seed (its position in
/// `args`, so an index mistake cannot hide behind arange), or none.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fill {
    Written,
    Random(u64),
    Empty,
}

/// YAML reads a bare `N`, `y`, `no`, `off`… as a boolean, so a constant named
/// `N` arrives as `false`. Say so, rather than "expected an integer".
fn yaml_bool_hint(v: bool) -> String {
    format!(
        "YAML read this as the boolean {v}: a bare N, Y, yes, no, on or off is a boolean in YAML; \
         quote the expression (\"N\") or give the constant another name"
    )
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// serde-saphyr appends a source snippet to its messages; the line number
/// already says where, so keep the first line only.
/// It also starts with "error: line 7 column 1: ", which the chapter line replaces.
fn first_sentence(message: &str) -> String {
    let first = message.lines().next().unwrap_or(message).trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    match first
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
    {
        Some((_, message)) => message.to_string(),
        None => first.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "\
id: p06_blocks
title: Blocks
kernel: add_10_blocks
const: { SIZE: 9, TPB: 4 }
grid: [\"(SIZE + TPB - 1) / TPB\"]
block: [TPB]
buffers:
  out: { len: SIZE, output: true }
  a: { len: SIZE, init: arange }
scalars:
  size: { type: u32, value: SIZE }
args: [out, a, size]
expect:
  out: [10, 11, 12, 13, 14, 15, 16, 17, 18]
";

    fn parse(text: &str) -> Result<PuzzleSpec, Located> {
        PuzzleSpec::parse(text, Path::new("ch.md"), 10)
    }

    #[test]
    fn resolves_a_good_spec() {
        let spec = parse(GOOD).unwrap().resolve(&Constants::new()).unwrap();
        assert_eq!(spec.launches.len(), 1);
        assert_eq!(spec.launches[0].grid, [3, 1, 1]);
        assert_eq!(spec.launches[0].block, [4, 1, 1]);
        assert_eq!(spec.launches[0].args, [0, 1, 2]);
        let names: Vec<&str> = spec.args.iter().map(Arg::name).collect();
        assert_eq!(names, ["out", "a", "size"]);
        assert_eq!(spec.outputs().count(), 1);
        assert_eq!(
            spec.args[2],
            Arg::Scalar {
                name: "size".into(),
                dtype: Dtype::U32,
                value: 9.0
            }
        );
    }

    #[test]
    fn stress_runs_use_random_inputs_and_the_reference() {
        let text = GOOD.to_string() + "stress:\n  - { SIZE: 1001 }\n";
        let spec = parse(&text).unwrap();
        let cases = spec.stress_cases();
        assert_eq!(cases.len(), 1);
        let stressed = spec.resolve_stress(&cases[0]).unwrap();
        assert_eq!(stressed.launches[0].grid, [251, 1, 1]);
        let a = stressed
            .buffers()
            .find(|b| b.name == "a")
            .unwrap()
            .init
            .clone()
            .unwrap();
        assert_eq!(a.len(), 1001);
        assert!(
            a.iter().any(|v| v.fract() != 0.0),
            "stress inputs are random, not arange"
        );
        let out = stressed.outputs().next().unwrap().expect.clone().unwrap();
        assert_eq!(
            out[500],
            a[500] + 10.0,
            "expected values come from the CPU reference"
        );
    }

    #[test]
    fn stress_cases_are_checked_when_read() {
        let text = GOOD.to_string() + "stress:\n  - { WIDTH: 3 }\n";
        let err = parse(&text).unwrap_err();
        assert_eq!(err.line, 25, "{err}");
        assert!(err.message.contains("cannot set `WIDTH`"), "{err}");
    }

    /// A benchmark size names known constants and is read without resolving its buffers.
    #[test]
    fn bench_sizes_are_checked_when_read() {
        let cases = [
            ("bench:\n  - { SIZE: 268435456 }\n", None),
            (
                "bench:\n  - { WIDTH: 3 }\n",
                Some("bench: cannot set `WIDTH`"),
            ),
            ("bench:\n  - {}\n", Some("a `bench` case sets no constant")),
        ];
        for (tail, error) in cases {
            let text = GOOD.to_string() + tail;
            match (parse(&text), error) {
                (Ok(spec), None) => assert_eq!(
                    spec.bench_cases(),
                    vec![Constants::from([("SIZE".to_string(), 268_435_456)])]
                ),
                (Err(err), Some(want)) => {
                    assert_eq!(err.line, 25, "{err}");
                    assert!(err.message.contains(want), "{err}");
                }
                (got, _) => panic!("{tail}: {got:?}"),
            }
        }
    }

    #[test]
    fn overrides_follow_through_every_size() {
        let spec = parse(GOOD).unwrap();
        let err = spec
            .resolve(&[("SIZE".to_string(), 17)].into())
            .unwrap_err();
        // The literal expect list no longer fits: that is reported, not ignored.
        assert!(
            err.message.contains("lists 9 values but the buffer has 17"),
            "{err}"
        );
        assert!(spec.resolve(&[("NOPE".to_string(), 1)].into()).is_err());
    }

    const TWO_STEPS: &str = "\
id: scan
title: Two kernels
reference: prefix_sum
const: { SIZE: 15, TPB: 8 }
steps:
  - kernel: local_scan
    grid: [\"(SIZE + TPB - 1) / TPB\"]
    block: [TPB]
  - kernel: add_block_sums
    grid: [\"(SIZE + TPB - 1) / TPB\"]
    block: [TPB]
    args: [out, sums, size]
buffers:
  out: { len: SIZE, output: true }
  a: { len: SIZE, init: arange }
  sums: { len: \"(SIZE + TPB - 1) / TPB\", scratch: true }
scalars:
  size: { type: u32, value: SIZE }
args: [out, a, sums, size]
expect:
  out: reference
";

    #[test]
    fn steps_share_buffers_and_reference_fills_expect() {
        let spec = parse(TWO_STEPS)
            .unwrap()
            .resolve(&Constants::new())
            .unwrap();
        assert_eq!(spec.launches.len(), 2);
        assert_eq!(
            spec.launches[0].args,
            [0, 1, 2, 3],
            "args default to the spec's"
        );
        assert_eq!(spec.launches[1].args, [0, 2, 3]);
        assert_eq!(spec.outputs().count(), 1, "scratch is not judged");
        let out = spec.outputs().next().unwrap().expect.clone().unwrap();
        assert_eq!(out.last(), Some(&105.0), "from the CPU reference");
        assert_eq!(
            spec.min_bytes(),
            2 * 15 * 4,
            "scratch is not part of the problem"
        );
    }

    /// Multi-kernel specs whose buffers do not line up name the line at fault.
    #[test]
    fn steps_that_do_not_line_up() {
        let cases: &[(&str, &str, &str, usize, &str)] = &[
            (
                "unknown arg",
                "    args: [out, sums, size]",
                "    args: [out, block_sums, size]",
                21,
                "passes `block_sums`, which is not in the spec's `args`",
            ),
            (
                "unused buffer",
                "  - kernel: local_scan",
                "  - kernel: local_scan\n    args: [out, sums, size]",
                15,
                "no step passes `a`",
            ),
            (
                "top-level kernel too",
                "steps:",
                "kernel: k\nsteps:",
                16,
                "remove them from the top level",
            ),
            (
                "scratch with init",
                "scratch: true }",
                "scratch: true, init: zeros }",
                25,
                "scratch buffer `sums` starts poisoned",
            ),
            (
                "no kernel at all",
                "steps:",
                "unused:",
                0,
                "unknown field `unused`",
            ),
        ];
        for (name, target, replacement, line, message) in cases {
            assert!(TWO_STEPS.contains(target), "{name}");
            let err = parse(&TWO_STEPS.replacen(target, replacement, 1)).expect_err(name);
            assert!(err.message.contains(message), "{name}: {err}");
            if *line > 0 {
                assert_eq!(err.line, *line, "{name}: {err}");
            }
        }
        let without = TWO_STEPS.replace("reference: prefix_sum\n", "");
        let err = parse(&without).unwrap_err();
        assert!(err.message.contains("`scan` has no CPU reference"), "{err}");
    }

    #[test]
    fn flops_are_an_expression_over_the_constants() {
        let with = GOOD.replace("args:", "flops: \"2 * SIZE\"\nargs:");
        let spec = parse(&with).unwrap().resolve(&Constants::new()).unwrap();
        assert_eq!(spec.flops, Some(18));
        let bad = GOOD.replace("args:", "flops: \"2 * SIZES\"\nargs:");
        let err = parse(&bad).unwrap_err();
        assert_eq!(err.line, 21, "{err}");
        assert!(err.message.contains("unknown constant `SIZES`"), "{err}");
    }

    /// Each malformed spec must fail with a message naming the right chapter line.
    #[test]
    fn malformed_specs_name_their_line() {
        let cases: &[(&str, &str, usize, &str)] = &[
            ("unknown key", "block: [TPB]", 16, "unknown field `threads`"),
            (
                "bad constant",
                "grid: [\"(SIZE + TPB - 1) / TPB\"]",
                14,
                "unknown constant `BLOCKS`",
            ),
            ("zero block", "block: [TPB]", 15, "must be at least 1"),
            (
                "arg missing",
                "args: [out, a, size]",
                21,
                "neither a buffer nor a scalar",
            ),
            (
                "expect length",
                "  out: [10, 11, 12, 13, 14, 15, 16, 17, 18]",
                23,
                "lists 3 values",
            ),
            (
                "bad init word",
                "  a: { len: SIZE, init: arange }",
                18,
                "not a list of numbers",
            ),
            (
                "input without init",
                "  a: { len: SIZE, init: arange }",
                18,
                "needs an `init`",
            ),
            (
                "yaml boolean",
                "  a: { len: SIZE, init: arange }",
                18,
                "YAML read this as the boolean false",
            ),
        ];
        let replacement = |name: &str| match name {
            "unknown key" => "block: [TPB]\nthreads: 4",
            "bad constant" => "grid: [BLOCKS]",
            "zero block" => "block: [\"TPB - 4\"]",
            "arg missing" => "args: [out, a, size, b]",
            "expect length" => "  out: [10, 11, 12]",
            "bad init word" => "  a: { len: SIZE, init: iota }",
            "input without init" => "  a: { len: SIZE }",
            "yaml boolean" => "  a: { len: N, init: arange }",
            _ => unreachable!(),
        };
        for (name, target, line, message) in cases {
            let text = GOOD.replace(target, replacement(name));
            let err = parse(&text).expect_err(name);
            assert_eq!(err.line, *line, "{name}: {err}");
            assert!(err.message.contains(message), "{name}: {err}");
            assert_eq!(err.file, Path::new("ch.md"));
            assert!(!err.message.contains("column"), "{name}: {err}");
        }
    }
}
