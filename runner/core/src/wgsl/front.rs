//! The WGSL front end, shared by every backend that runs WGSL (the wgpu
//! backend and the CPU checker): the kernel is parsed and validated with
//! naga, so a mistake comes back as naga's message at the kernel file's line
//! (never as a panic), and its entry points and bindings are checked against
//! the spec before anything runs.

use crate::source::diag::Located;
use crate::source::text::SourceText;
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
        let line = e
            .location(text)
            .map(|l| l.line_number as usize)
            .unwrap_or(1);
        let labels: Vec<String> = e
            .labels()
            .filter(|(_, label)| !label.is_empty())
            .map(|(span, label)| format!("{label} (line {})", mapped_line(source, span)))
            .collect();
        let mut message = e.message().to_string();
        if !labels.is_empty() {
            message = format!("{message}: {}", labels.join("; "));
        }
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
        }
        declared.insert(binding.binding, kind);
    }
    Ok(declared)
}
