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
    pub init: Option<Values>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScalar {
    #[serde(rename = "type")]
    pub dtype: Dtype,
    pub value: ScalarValue,
}

/// The spec as written, before sizes are evaluated.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub id: String,
    pub title: String,
    pub kernel: String,
    #[serde(default, rename = "const")]
    pub constants: BTreeMap<String, i64>,
    pub grid: Spanned<Vec<Size>>,
    pub block: Spanned<Vec<Size>>,
    /// CUDA's dynamic shared memory per block, in bytes (`extern __shared__`).
    /// WGSL sizes workgroup memory in the kernel itself and ignores this.
    #[serde(default)]
    pub dynamic_shared_bytes: Option<Spanned<Size>>,
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
    /// Inputs' initial contents; outputs start poisoned.
    pub init: Option<Vec<f64>>,
    pub expect: Option<Vec<f64>>,
}

impl Buffer {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn is_output(&self) -> bool {
        self.init.is_none()
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

/// A spec with every size evaluated: what a backend launches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    pub id: String,
    pub title: String,
    pub kernel: String,
    pub constants: Constants,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per block (CUDA); 0 when unused.
    #[serde(default)]
    pub dynamic_shared_bytes: u32,
    pub args: Vec<Arg>,
}

impl Spec {
    pub fn buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.args.iter().filter_map(|a| match a {
            Arg::Buffer(b) => Some(b),
            Arg::Scalar { .. } => None,
        })
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Buffer> {
        self.buffers().filter(|b| b.is_output())
    }

    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
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
        for case in &spec.raw.stress {
            spec.resolve_stress(&case.value).map_err(|mut e| {
                e.line = spec.origin.first_line + case.referenced.line() as usize - 1;
                e.message = format!("stress case: {}", e.message);
                e
            })?;
        }
        Ok(spec)
    }

    pub fn id(&self) -> &str {
        &self.raw.id
    }

    /// Evaluates sizes with the spec's constants, replaced by `overrides` where given.
    pub fn resolve(&self, overrides: &Constants) -> Result<Spec, Located> {
        self.resolve_with(overrides, false)
    }

    /// A stress run: sizes from `overrides`, random inputs, and expected
    /// outputs from the puzzle's CPU reference ([`crate::reference`]).
    pub fn resolve_stress(&self, overrides: &Constants) -> Result<Spec, Located> {
        let mut spec = self.resolve_with(overrides, true)?;
        let expected = crate::reference::expected(&spec).ok_or_else(|| {
            self.origin.at(
                0,
                format!(
                    "`{}` has no CPU reference in runner/src/reference.rs; stress runs need one",
                    spec.id
                ),
            )
        })?;
        for arg in &mut spec.args {
            if let Arg::Buffer(b) = arg
                && b.is_output()
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

    /// The stress cases the spec declares, as constant overrides.
    pub fn stress_cases(&self) -> Vec<Constants> {
        self.raw.stress.iter().map(|s| s.value.clone()).collect()
    }

    fn resolve_with(&self, overrides: &Constants, stress: bool) -> Result<Spec, Located> {
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
        let grid = dims(&raw.grid, "grid")?;
        let block = dims(&raw.block, "block")?;
        let dynamic_shared_bytes = match &raw.dynamic_shared_bytes {
            None => 0,
            Some(size) => {
                let line = size.referenced.line();
                let v = eval(&size.value, line, "dynamic_shared_bytes")?;
                u32::try_from(v).map_err(|_| {
                    self.origin.at(
                        line,
                        format!("`dynamic_shared_bytes` is {v}; it must be 0 or more"),
                    )
                })?
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
                let random = stress.then_some(args.len() as u64 + 1);
                args.push(Arg::Buffer(
                    self.resolve_buffer(name, buffer, &eval, random)?,
                ));
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
        Ok(Spec {
            id: raw.id.clone(),
            title: raw.title.clone(),
            kernel: raw.kernel.clone(),
            constants,
            grid,
            block,
            dynamic_shared_bytes,
            args,
        })
    }

    fn resolve_buffer(
        &self,
        name: &str,
        buffer: &Spanned<RawBuffer>,
        eval: &dyn Fn(&Size, u64, &str) -> Result<i64, Located>,
        random_seed: Option<u64>,
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
        let (init, expect) = match (b.output, &b.init) {
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
            (false, Some(_)) if random_seed.is_some() => {
                let seed = random_seed.unwrap_or_default();
                (
                    Some(materialize(&Values::Random(seed), line, "init")?),
                    None,
                )
            }
            (false, Some(values)) => (Some(materialize(values, line, "init")?), None),
            // Stress runs take expected values from the CPU reference afterwards.
            (true, None) if random_seed.is_some() => (None, None),
            (true, None) => {
                let expect = self.raw.expect.get(name).ok_or_else(|| {
                    self.origin
                        .at(line, format!("output `{name}` has no `expect` entry"))
                })?;
                (
                    None,
                    Some(materialize(
                        &expect.value,
                        expect.referenced.line(),
                        "expect",
                    )?),
                )
            }
        };
        Ok(Buffer {
            name: name.to_string(),
            dtype: b.dtype,
            shape,
            init,
            expect,
        })
    }
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
        assert_eq!(spec.grid, [3, 1, 1]);
        assert_eq!(spec.block, [4, 1, 1]);
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
        assert_eq!(stressed.grid, [251, 1, 1]);
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
