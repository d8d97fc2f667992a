//! Resolving a spec: its sizes evaluated against the constants (possibly
//! overridden, as stress and benchmark runs do), its buffers filled, and its
//! expected values taken from the spec or from the CPU reference. Every
//! error names the chapter line it comes from.

use crate::quantity;
use crate::source::diag::Located;
use crate::spec::data::Values;
use crate::spec::expr::{self, Constants};
use crate::spec::model::{Arg, Buffer, Launch, Spec, TensorMap};
use crate::spec::ranks::{self, Entry, Kind, Layout, Pick};
use crate::spec::raw::{RawBuffer, RawSpec, ScalarValue, Size};
use crate::spec::reference;
use serde::Serialize;
use serde_saphyr::Spanned;
use std::path::{Path, PathBuf};

/// Where a spec block sits: the chapter file and the line of its first YAML line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpecOrigin {
    pub file: PathBuf,
    pub first_line: usize,
}

impl SpecOrigin {
    pub(super) fn at(&self, yaml_line: u64, message: impl Into<String>) -> Located {
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

impl PuzzleSpec {
    /// Parses the YAML of a ```puzzle block. `first_line` is the chapter line of the YAML's first line.
    pub fn parse(text: &str, file: &Path, first_line: usize) -> Result<PuzzleSpec, Located> {
        let origin = SpecOrigin {
            file: file.to_path_buf(),
            first_line,
        };
        // YAML takes a lone carriage return for a line break; the chapter's
        // lines (and every editor's line numbers here) end at `\n` only. The
        // CRs are dropped so that a YAML line number is a chapter line.
        let yaml = text.replace('\r', "");
        let raw: RawSpec = serde_saphyr::from_str(&yaml).map_err(|e| {
            let line = e.location().map(|l| l.line()).unwrap_or(0);
            origin.at(line, first_sentence(&e.to_string()))
        })?;
        let spec = PuzzleSpec {
            raw,
            origin,
            text: text.to_string(),
        };
        // Resolve once now so that every mistake surfaces when the chapter
        // is read: the sizes as written first, then (before anything is
        // allocated) whether the teaching size is cheap enough to set up.
        spec.sized(&Constants::new())?;
        spec.fits(&Constants::new(), TEACHING_MEMORY)
            .map_err(|mut e| {
                e.message = format!(
                    "{}; the teaching size is set up whenever the chapter is read, so keep it \
                     small and put large sizes under `stress` or `bench`",
                    e.message
                );
                e
            })?;
        spec.resolve(&Constants::new())?;
        // Stress cases: their sizes now, but not their data (random inputs
        // and the CPU reference are made when a case runs: a large stress
        // size would otherwise be paid for by every command that reads the
        // book); the CPU reference only at the teaching size (cheap).
        for case in &spec.raw.stress {
            spec.sized(&case.value).map_err(|mut e| {
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
    /// outputs from the puzzle's CPU reference ([`reference`]).
    pub fn resolve_stress(&self, overrides: &Constants) -> Result<Spec, Located> {
        let spec = self.resolve_with(overrides, Contents::Random)?;
        self.fill_from_reference(spec, "stress runs")
    }

    /// Sizes from `overrides` and a benchmark's inputs (full mantissas,
    /// [`Values::materialize_for_timing`]), with no expected values yet: a
    /// benchmark decides whether the CPU reference is cheap enough to
    /// check against.
    pub fn resolve_bench(&self, overrides: &Constants) -> Result<Spec, Located> {
        self.resolve_with(overrides, Contents::Bench)
    }

    /// Sizes, launches and FLOPs at `overrides`, with no buffer contents at
    /// all: what a page needs to describe a benchmark without allocating it.
    /// Inputs carry an empty `init`, outputs no `expect`.
    pub fn sized(&self, overrides: &Constants) -> Result<Spec, Located> {
        self.resolve_with(overrides, Contents::Empty)
    }

    /// Whether a run at `overrides` can set up its buffers within `memory`
    /// bytes ([`Spec::host_bytes`]), decided from the sizes alone, before
    /// anything is allocated. Refused at the largest buffer's line.
    pub fn fits(&self, overrides: &Constants, memory: u64) -> Result<(), Located> {
        let spec = self.sized(overrides)?;
        let needed = spec.host_bytes();
        if needed <= memory {
            return Ok(());
        }
        let largest = spec.buffers().max_by_key(|b| b.len());
        // Rank r's copy `a@r` is written as `a`.
        let written = |name: &str| name.split_once('@').map_or(name, |(n, _)| n).to_string();
        let line = largest
            .and_then(|b| self.raw.buffers.get(&written(&b.name)))
            .map_or(0, |b| b.referenced.line());
        let name = largest.map_or("?", |b| b.name.as_str());
        let elements = largest.map_or(0, |b| b.len() as u64);
        Err(self.origin.at(
            line,
            format!(
                "buffer `{name}` has {} elements here, and setting up this run's buffers takes \
                 about {} of memory; {} is the limit",
                quantity::thousands(elements),
                quantity::bytes(needed),
                quantity::bytes(memory)
            ),
        ))
    }

    /// Expected values from the CPU reference for every output still without them.
    pub fn with_reference(&self, spec: Spec) -> Result<Spec, Located> {
        self.fill_from_reference(spec, "checked benchmarks")
    }

    /// Gives every output still without expected values (stress runs, and
    /// `expect: reference`) the CPU reference's values.
    fn fill_from_reference(&self, mut spec: Spec, who: &str) -> Result<Spec, Located> {
        if spec.hazards_only || spec.outputs().all(|b| b.expect.is_some()) {
            return Ok(spec);
        }
        let expected = reference::expected(&spec).ok_or_else(|| {
            self.origin.at(
                0,
                format!(
                    "`{}` has no CPU reference in runner/core/src/spec/reference/; {who} need one",
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

    /// How many GPUs a run at `overrides` takes (1 for a spec without
    /// `gpus:`, or one whose `gpus` does not evaluate: resolving says why).
    /// Cheap: it evaluates one expression, not the buffers.
    pub fn gpus(&self, overrides: &Constants) -> u32 {
        let mut constants = self.raw.constants.clone();
        constants.extend(overrides.iter().map(|(k, v)| (k.clone(), *v)));
        ranks::gpus(&self.raw, &constants).unwrap_or(1)
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
                    let bound = if v < 1 {
                        "it must be at least 1".to_string()
                    } else {
                        format!("it can be at most {}", quantity::thousands(u32::MAX.into()))
                    };
                    self.origin
                        .at(line, format!("`{what}` entry {} is {v}; {bound}", i + 1))
                })?;
            }
            Ok(out)
        };
        let shared_bytes = |size: &Option<Spanned<Size>>| -> Result<u32, Located> {
            let Some(size) = size else { return Ok(0) };
            let line = size.referenced.line();
            let v = eval(&size.value, line, "dynamic_shared_bytes")?;
            u32::try_from(v).map_err(|_| {
                let bound = if v < 0 {
                    "it must be 0 or more"
                } else {
                    "a block's shared memory is far smaller (at most 227 KiB on an H100)"
                };
                self.origin
                    .at(line, format!("`dynamic_shared_bytes` is {v}; {bound}"))
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

        // Several GPUs: the arguments of every rank, flattened (see `ranks`).
        let at = |(line, message): ranks::Mistake| self.origin.at(line, message);
        let gpus = ranks::gpus(raw, &constants).map_err(at)?;
        let bus_bytes = ranks::bus_bytes(raw, &constants).map_err(at)?;
        let layout = Layout::new(raw, gpus).map_err(at)?;
        let mut args: Vec<Arg> = Vec::new();
        for entry in &layout.entries {
            let arg = match &entry.kind {
                Kind::Buffer {
                    copy_of: Some(first),
                    ..
                } if let Some(Arg::Buffer(first)) = args.get(*first) => Arg::Buffer(Buffer {
                    name: entry.flat.clone(),
                    rank: entry.rank,
                    ..first.clone()
                }),
                Kind::Buffer { pick, .. } => {
                    // Stress inputs are random, seeded by position: an index mistake cannot hide behind arange.
                    let fill = match contents {
                        Contents::Random => Fill::Random(args.len() as u64 + 1),
                        Contents::Bench => Fill::Bench(args.len() as u64 + 1),
                        Contents::Written => Fill::Written,
                        Contents::Empty => Fill::Empty,
                    };
                    let raw_buffer = &raw.buffers[entry.name];
                    let buffer = self
                        .resolve_buffer(entry.name, raw_buffer, &eval, &constants, fill, *pick)?;
                    Arg::Buffer(Buffer {
                        name: entry.flat.clone(),
                        rank: entry.rank,
                        ..buffer
                    })
                }
                Kind::Scalar => self.resolve_scalar(entry, &constants)?,
                Kind::Peers(of) => Arg::Peers {
                    name: entry.flat.clone(),
                    of: of.clone(),
                },
            };
            args.push(arg);
        }

        let all_args: Vec<usize> = (0..raw.args.value.len()).collect();
        let launches = match (&raw.steps, &raw.kernel, &raw.grid, &raw.block) {
            (None, Some(kernel), Some(grid), Some(block)) => vec![Launch {
                kernel: kernel.clone(),
                grid: dims(grid, "grid")?,
                block: dims(block, "block")?,
                dynamic_shared_bytes: shared_bytes(&raw.dynamic_shared_bytes)?,
                args: all_args,
                rank: 0,
                setup: false,
            }],
            (Some(steps), None, None, None) if raw.dynamic_shared_bytes.is_none() => {
                self.resolve_steps(steps, &raw.args.value, &dims, &shared_bytes)?
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
        let (launches, rounds) = self.repeated(launches, &raw.repeat, &eval)?;
        let launches = ranks::per_rank(launches, &layout.slots, gpus);
        Ok(Spec {
            id: raw.id.clone(),
            title: raw.title.clone(),
            reference: raw.reference.clone().unwrap_or_else(|| raw.id.clone()),
            constants,
            launches,
            args,
            flops,
            math: raw.math,
            gpus,
            bus_bytes,
            hazards_only: self.hazards_only(),
            rounds,
        })
    }

    /// A spec with neither `expect` nor `reference` is a kernel of the
    /// learner's own, not a puzzle: it is checked for hazards alone.
    pub fn hazards_only(&self) -> bool {
        self.raw.expect.is_empty() && self.raw.reference.is_none()
    }

    /// One scalar argument (rank r's, with `RANK` = r, where the entry has a rank).
    fn resolve_scalar(&self, entry: &Entry, constants: &Constants) -> Result<Arg, Located> {
        let name = entry.name;
        let scalar = &self.raw.scalars[name];
        let line = scalar.referenced.line();
        let value = match &scalar.value.value {
            ScalarValue::Number(v) => *v,
            ScalarValue::Expr(e) => {
                let mut constants = constants.clone();
                if let Some(rank) = entry.rank {
                    constants.insert(ranks::RANK.to_string(), rank.into());
                }
                expr::eval(e, &constants)
                    .map_err(|e| self.origin.at(line, format!("{name}: {e}")))?
                    as f64
            }
        };
        scalar
            .value
            .dtype
            .holds(value)
            .map_err(|why| self.origin.at(line, format!("scalar `{name}` {why}")))?;
        Ok(Arg::Scalar {
            name: entry.flat.clone(),
            dtype: scalar.value.dtype,
            // As the kernel receives it (0.001 as the nearest float), so the
            // CPU reference computes from the same number.
            value: scalar.value.dtype.round(value),
        })
    }

    fn resolve_buffer(
        &self,
        name: &str,
        buffer: &Spanned<RawBuffer>,
        eval: &dyn Fn(&Size, u64, &str) -> Result<i64, Located>,
        constants: &Constants,
        fill: Fill,
        pick: Option<Pick>,
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
        let mut len: u64 = 1;
        for size in &sizes {
            let v = eval(size, line, name)?;
            if v < 1 {
                return Err(self.origin.at(
                    line,
                    format!("buffer `{name}` has size {v}; it must be at least 1"),
                ));
            }
            len = len.saturating_mul(v as u64);
            shape.push(v as usize);
        }
        if len > MAX_ELEMENTS {
            return Err(self.origin.at(
                line,
                format!(
                    "buffer `{name}` has {} elements; a buffer holds at most {} \
                     (kernels index it with 32-bit integers)",
                    quantity::thousands(len),
                    quantity::thousands(MAX_ELEMENTS)
                ),
            ));
        }
        let len = len as usize;
        // `timing`: a benchmark's inputs ([`Values::materialize_for_timing`]).
        let materialize_as = |values: &Values, line: u64, what: &str, timing: bool| {
            values
                .with_bound(|bound| expr::eval(bound, constants))
                .and_then(|values| match timing {
                    true => values.materialize_for_timing(len, b.dtype.is_float()),
                    false => values.materialize(len),
                })
                .map_err(|e| self.origin.at(line, format!("{what} of `{name}` {e}")))
        };
        let materialize =
            |values: &Values, line: u64, what: &str| materialize_as(values, line, what, false);
        // One rank's contents, in a spec on several GPUs.
        let for_rank = |values: &Values, line: u64, what: &str| match pick {
            None => Ok(values.clone()),
            Some(p) => values
                .for_rank(p.rank, p.ranks, p.vary)
                .map_err(|e| self.origin.at(line, format!("{what} of `{name}` {e}"))),
        };
        if b.scratch && (b.output || b.init.is_some()) {
            return Err(self.origin.at(
                line,
                format!(
                    "scratch buffer `{name}` starts poisoned and is not judged; remove its `output` and `init`"
                ),
            ));
        }
        if let Some(tolerance) = b.tolerance {
            b.dtype.own_tolerance(tolerance, b.output).map_err(|e| {
                self.origin
                    .at(line, format!("the tolerance of `{name}` {e}"))
            })?;
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
            (false, Some(values)) if let Fill::Random(seed) = fill => (
                Some(materialize(&values.reseeded(seed), line, "init")?),
                None,
            ),
            (false, Some(values)) if let Fill::Bench(seed) = fill => (
                Some(materialize_as(&values.reseeded(seed), line, "init", true)?),
                None,
            ),
            (false, Some(values)) => {
                let values = for_rank(values, line, "init")?;
                (Some(materialize(&values, line, "init")?), None)
            }
            // Stress runs take expected values from the CPU reference afterwards.
            (true, None) if fill != Fill::Written || self.hazards_only() => (None, None),
            (true, None) => {
                let expect = self.raw.expect.get(name).ok_or_else(|| {
                    self.origin
                        .at(line, format!("output `{name}` has no `expect` entry"))
                })?;
                let line = expect.referenced.line();
                let values = for_rank(&expect.value, line, "expect")?;
                if values == Values::Reference {
                    // Filled in by `fill_from_reference` once every input is known.
                    (None, None)
                } else {
                    (None, Some(materialize(&values, line, "expect")?))
                }
            }
        };
        // Inputs as the device holds them (rounded to a bf16's 8 significant
        // bits, say), so that the CPU reference computes from exactly the
        // values the kernel reads. f32 inputs as the spec writes them
        // (quarters, small integers) are exact already.
        let init = init.map(|values| values.into_iter().map(|v| b.dtype.round(v)).collect());
        let tensor_map = match &b.tensor_map {
            None => None,
            Some(raw) => {
                let mut tile = Vec::new();
                for size in &raw.tile {
                    let v = eval(size, line, name)?;
                    tile.push(u32::try_from(v).unwrap_or(0));
                }
                let map = TensorMap {
                    tile,
                    swizzle: raw.swizzle,
                };
                map.check(&shape, b.dtype).map_err(|e| {
                    self.origin
                        .at(line, format!("the tensor map of `{name}`: {e}"))
                })?;
                Some(map)
            }
        };
        Ok(Buffer {
            name: name.to_string(),
            dtype: b.dtype,
            shape,
            init,
            expect,
            scratch: b.scratch,
            tensor_map,
            rank: None,
            tolerance: b.tolerance,
        })
    }
}

/// The most elements one buffer may have: every kernel here indexes with
/// 32-bit integers, so a larger buffer could not be reached anyway.
pub const MAX_ELEMENTS: u64 = u32::MAX as u64;

/// The memory a teaching size may take to set up. It is resolved whenever
/// the chapter is read (`runner list` too), so it must stay cheap.
pub const TEACHING_MEMORY: u64 = 1 << 30;

/// What a resolved spec's buffers hold.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Contents {
    /// The inputs and expected values as written (the teaching size).
    Written,
    /// Random inputs, expected values left to the CPU reference.
    Random,
    /// A benchmark's inputs (full mantissas), expected values left to the CPU reference.
    Bench,
    /// Nothing: sizes only.
    Empty,
}

/// One buffer's contents: as written, random from a seed (its position in
/// `args`, so an index mistake cannot hide behind arange), or none.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fill {
    Written,
    Random(u64),
    Bench(u64),
    Empty,
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
