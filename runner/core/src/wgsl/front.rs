//! The WGSL front end, shared by every backend that runs WGSL (the wgpu
//! backend and the CPU checker): the kernel is parsed and validated with
//! naga, so a mistake comes back as naga's message at the kernel file's line
//! (never as a panic), and its entry points and bindings are checked against
//! the spec before anything runs. A spec with 16-bit buffers, which WGSL
//! cannot bind, is refused first ([`check_bindable`]).

use crate::backend_contract::backend::BackendError;
use crate::source::diag::Located;
use crate::source::text::SourceText;
use crate::spec::data::Dtype;
use crate::spec::model::{Arg, Launch, Spec};
use naga::{AddressSpace, StorageAccess};
use std::collections::BTreeMap;

/// How the kernel declares binding `k` of group 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Declared {
    Storage { read_only: bool },
    Uniform,
}

/// Parses and validates WGSL with naga; errors are mapped to the kernel file's lines.
pub fn compile(source: &SourceText) -> Result<naga::Module, Vec<Located>> {
    let text = &source.text;
    let module = naga::front::wgsl::parse_str(text).map_err(|e| {
        let Some(location) = e.location(text) else {
            return vec![unplaced(source, e.message())];
        };
        let line = location.line_number as usize;
        let mut message = e.message().to_string();
        // A label naga repeats from the message ("expected `;`") adds nothing.
        let labels: Vec<String> = e
            .labels()
            .filter(|(_, label)| !label.is_empty() && !message.contains(&**label))
            .map(|(span, label)| format!("{label} (line {})", mapped_line(source, span)))
            .collect();
        if !labels.is_empty() {
            message = format!("{message}: {}", labels.join("; "));
        }
        let (line, message) =
            match missing_at_line_end(text, line, location.line_position, &message) {
                Some((before, expected, found)) => (
                    before,
                    format!(
                        "{expected} is missing at the end of this line (line {} begins with \
                         {found})",
                        source.origin(line).map_or(line, |o| o.line)
                    ),
                ),
                None => (line, message),
            };
        vec![source.locate(line, message)]
    })?;
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    validator.validate(&module).map_err(|e| {
        let line = e
            .location(text)
            .map(|l| l.line_number as usize)
            .unwrap_or(1);
        let mut message = e.as_inner().to_string();
        let mut cause: &dyn std::error::Error = e.as_inner();
        while let Some(next) = cause.source() {
            message = format!("{message}: {next}");
            cause = next;
        }
        vec![source.locate(line, message)]
    })?;
    Ok(module)
}

/// "expected `;`, found "}"" at the first token of a line means the `;`
/// is missing at the end of the line of code before (blank and comment
/// lines skipped): that line, what is expected, and what was found.
/// `column` is naga's (1-based, in characters of the line). Nothing when
/// the error is elsewhere on its line, or has no line of code before it.
fn missing_at_line_end<'m>(
    text: &str,
    line: usize,
    column: u32,
    message: &'m str,
) -> Option<(usize, &'m str, &'m str)> {
    let (expected, found) = message.split_once(", found ")?;
    let expected = expected.strip_prefix("expected ")?;
    let lines: Vec<&str> = text.lines().collect();
    let this = lines.get(line.checked_sub(1)?)?;
    let indent = this.chars().take_while(|c| c.is_whitespace()).count();
    if column as usize != indent + 1 {
        return None;
    }
    let code = |l: usize| {
        let t = lines[l - 1].trim();
        !t.is_empty() && !t.starts_with("//")
    };
    let before = (1..line).rev().find(|&l| code(l))?;
    Some((before, expected, found))
}

/// naga gives some errors no place, among them its recursion limit (an
/// expression nested about 200 deep, which it reports only as an "internal"
/// error). Such an error is put where the brackets nest deepest when that
/// is deep enough to be the cause, else at line 1, saying naga named none.
fn unplaced(source: &SourceText, message: &str) -> Located {
    let (depth, line) = deepest_nesting(&source.text);
    if depth >= NESTING_SUSPECT {
        source.locate(
            line,
            format!(
                "brackets nest {depth} deep on this line; the WGSL front end (naga) gives up \
                 past about 200 levels of nesting ({message})"
            ),
        )
    } else {
        source.locate(1, format!("{message} (naga names no line)"))
    }
}

/// Nesting this deep is taken to be why naga failed without a place.
const NESTING_SUSPECT: usize = 100;

/// The deepest nesting of `(`, `[` and `{`, and the (1-based) line where it is reached.
fn deepest_nesting(text: &str) -> (usize, usize) {
    let (mut depth, mut deepest, mut at, mut line) = (0usize, 0usize, 1usize, 1usize);
    for c in text.chars() {
        match c {
            '\n' => line += 1,
            '(' | '[' | '{' => {
                depth += 1;
                if depth > deepest {
                    (deepest, at) = (depth, line);
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (deepest, at)
}

fn mapped_line(source: &SourceText, span: naga::Span) -> usize {
    let line = span.location(&source.text).line_number as usize;
    source.origin(line).map(|o| o.line).unwrap_or(line)
}

/// Checks the kernels' entry points and the bindings against the spec; returns how each binding is declared.
pub fn reflect(
    module: &naga::Module,
    spec: &Spec,
    source: &SourceText,
) -> Result<BTreeMap<u32, Declared>, Vec<Located>> {
    for launch in &spec.launches {
        reflect_entry(module, launch, source)?;
    }
    reflect_bindings(module, spec, source)
}

/// The entry point one launch names: present, @compute, and sized like the spec's block.
fn reflect_entry(
    module: &naga::Module,
    launch: &Launch,
    source: &SourceText,
) -> Result<(), Vec<Located>> {
    let whole = |message: String| vec![source.locate(1, message)];
    let Some(entry) = module.entry_points.iter().find(|e| e.name == launch.kernel) else {
        let names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        return Err(whole(format!(
            "no entry point `{}` (the spec's `kernel`); the module has: {}",
            launch.kernel,
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )));
    };
    if entry.stage != naga::ShaderStage::Compute {
        return Err(whole(format!(
            "`{}` is not a @compute entry point",
            launch.kernel
        )));
    }
    if entry.workgroup_size != launch.block {
        return Err(whole(format!(
            "`@workgroup_size{:?}` of `{}` does not match the spec's block {:?}; they must be equal",
            entry.workgroup_size, launch.kernel, launch.block
        )));
    }
    Ok(())
}

/// Every `@group(0) @binding(k)` global against arg `k` of the spec.
fn reflect_bindings(
    module: &naga::Module,
    spec: &Spec,
    source: &SourceText,
) -> Result<BTreeMap<u32, Declared>, Vec<Located>> {
    let mut declared = BTreeMap::new();
    for (handle, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        let name = var.name.clone().unwrap_or_default();
        let line = module
            .global_variables
            .get_span(handle)
            .location(&source.text)
            .line_number as usize;
        let at = |message: String| vec![source.locate(line, message)];
        if binding.group != 0 {
            return Err(at(format!(
                "`{name}` is in @group({}); puzzles use @group(0) only",
                binding.group
            )));
        }
        let Some(arg) = spec.args.get(binding.binding as usize) else {
            return Err(at(format!(
                "`{name}` is @binding({}), but the spec has {} args ({})",
                binding.binding,
                spec.args.len(),
                spec.args
                    .iter()
                    .map(Arg::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        let kind = match var.space {
            AddressSpace::Storage { access } => Declared::Storage {
                read_only: !access.contains(StorageAccess::STORE),
            },
            AddressSpace::Uniform => Declared::Uniform,
            other => {
                return Err(at(format!(
                    "`{name}` is in address space {other:?}; use storage or uniform"
                )));
            }
        };
        // An array<i32> over an f32 buffer would read its bits as integers
        // and show nonsense values: refused, naming both types.
        let (arg_name, dtype) = match arg {
            Arg::Buffer(b) => (&b.name, b.dtype),
            Arg::Scalar { name, dtype, .. } => (name, *dtype),
            Arg::Peers { name: table, .. } => {
                return Err(at(format!(
                    "`{name}` (binding {}) would be `{table}`, a table of other GPUs' addresses; WebGPU drives one GPU and has no peer memory",
                    binding.binding
                )));
            }
        };
        if let Some(scalar) = element_scalar(module, var.ty)
            && !matches_dtype(scalar, dtype)
        {
            return Err(at(format!(
                "`{name}` (binding {}) holds {} values, but the spec's `{arg_name}` is {}; declare it with {}",
                binding.binding,
                scalar_name(scalar),
                dtype.name(),
                dtype.name()
            )));
        }
        match (arg, kind) {
            (Arg::Buffer(b), Declared::Storage { read_only }) => {
                if b.is_output() && read_only {
                    return Err(at(format!(
                        "`{name}` (binding {}) is the output `{}` but is declared read-only; use var<storage, read_write>",
                        binding.binding, b.name
                    )));
                }
            }
            (Arg::Scalar { .. }, Declared::Uniform) => {}
            (Arg::Buffer(b), Declared::Uniform) => {
                return Err(at(format!(
                    "`{name}` (binding {}) is a uniform, but arg {} is the buffer `{}`; declare it var<storage>",
                    binding.binding, binding.binding, b.name
                )));
            }
            (Arg::Scalar { name: arg_name, .. }, Declared::Storage { .. }) => {
                return Err(at(format!(
                    "`{name}` (binding {}) is a storage buffer, but arg {} is the scalar `{arg_name}`; declare it var<uniform>",
                    binding.binding, binding.binding
                )));
            }
            // Refused above, where the types are compared.
            (Arg::Peers { .. }, _) => {}
        }
        declared.insert(binding.binding, kind);
    }
    Ok(declared)
}

/// The scalar a binding's values are made of: `f32` for `array<f32>`,
/// `array<vec4<f32>>`, `array<atomic<…>>` and plain scalars alike; None for
/// anything else (a struct), which is left to the run.
fn element_scalar(module: &naga::Module, ty: naga::Handle<naga::Type>) -> Option<naga::Scalar> {
    use naga::TypeInner;
    match &module.types[ty].inner {
        TypeInner::Array { base, .. } => element_scalar(module, *base),
        TypeInner::Scalar(scalar) | TypeInner::Atomic(scalar) => Some(*scalar),
        TypeInner::Vector { scalar, .. } | TypeInner::Matrix { scalar, .. } => Some(*scalar),
        _ => None,
    }
}

/// Whether WGSL values of `scalar` are the spec's `dtype` (never, for bf16:
/// WGSL has no such type; [`check_bindable`] refuses it before this).
fn matches_dtype(scalar: naga::Scalar, dtype: Dtype) -> bool {
    let want = match dtype {
        Dtype::F32 => naga::Scalar::F32,
        Dtype::I32 => naga::Scalar::I32,
        Dtype::U32 => naga::Scalar::U32,
        Dtype::F16 => naga::Scalar::F16,
        Dtype::Bf16 | Dtype::E4m3 => return false,
    };
    scalar == want
}

/// Whether WGSL can run this spec at all: refused, in a sentence, when a
/// buffer is narrower than 32 bits. WGSL has no bf16 and no FP8, and f16 only behind `enable f16`
/// with a device feature (`shader-f16`) that is not requested here, nor
/// offered by every adapter. Every WGSL path (the wgpu backend, the CPU
/// checker, the page's WebGPU run) asks this before anything is compiled,
/// so such a spec gets these words rather than a binding mismatch.
pub fn check_bindable(spec: &Spec) -> Result<(), BackendError> {
    match spec.buffers().find(|b| b.dtype.is_narrow()) {
        None => Ok(()),
        Some(b) => Err(BackendError::Launch(format!(
            "buffer `{}` is {}, which WGSL cannot bind (WGSL has no bf16 and no FP8, and f16 \
             only behind `enable f16`): this puzzle runs in CUDA C only",
            b.name,
            b.dtype.name()
        ))),
    }
}

/// `f32`, `i32`, `u32`, `f16`, … as WGSL writes them.
fn scalar_name(scalar: naga::Scalar) -> String {
    let letter = match scalar.kind {
        naga::ScalarKind::Float => "f",
        naga::ScalarKind::Sint => "i",
        naga::ScalarKind::Uint => "u",
        naga::ScalarKind::Bool => return "bool".into(),
        _ => return format!("{:?}", scalar.kind).to_lowercase(),
    };
    format!("{letter}{}", scalar.width * 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The first problem of `wgsl` as `line: message`.
    fn first_error(wgsl: &str) -> String {
        let source = SourceText::new(wgsl, Path::new("k.wgsl"), 1);
        let errors = compile(&source).expect_err("the test source does not compile");
        format!("{}: {}", errors[0].line, errors[0].message)
    }

    #[test]
    fn compile_errors_name_the_line_to_fix_table() {
        // (source, expected "line: message" start, text it must not repeat)
        let cases: &[(&str, &str)] = &[
            // The `;` missing on line 2 is found at the `}` of line 3.
            (
                "fn f() {\n    let x = 1\n}\n",
                "2: `;` is missing at the end of this line (line 3 begins with \"}\")",
            ),
            // Blank and comment lines between are skipped.
            (
                "fn f() {\n    let x = 1\n\n    // then\n    let y = 2;\n}\n",
                "2: `;` is missing at the end of this line (line 5 begins with \"let\")",
            ),
            // An error in the middle of a line stays there.
            (
                "fn f() {\n    let x = ;\n}\n",
                "2: expected expression, found \";\"",
            ),
        ];
        for (wgsl, want) in cases {
            let got = first_error(wgsl);
            assert!(got.starts_with(want), "{wgsl:?}\n got: {got}\nwant: {want}");
            assert!(
                got.matches("expected `;`").count() <= 1,
                "said twice: {got}"
            );
        }
    }
}
